"""Starting an index from a prebuilt generation (one a CI job published for an older commit).

The prebuilt generation becomes the store's live generation, and the ordinary incremental run
then redoes only what is new: its fingerprints decide which stages are reused, and the history
stages extend its commit range. Invariants:

- It is adopted only when its commit is HEAD or an ancestor of HEAD; anything else (another
  branch's index, a rewritten history, a commit this clone does not have) is refused with the
  reason, so an index never mixes two histories.
- A store whose own live generation is as new (HEAD itself, or a descendant of the prebuilt
  commit) keeps it: starting from an older prebuilt index would only redo work.
- Adopting copies (or hard-links) the artifacts under the store's lock into a new generation and
  publishes it like any other: readers never see a half-adopted index.
"""

from __future__ import annotations

from pathlib import Path

from ..store.errors import IndexCorrupt, InputError
from ..store.generations import Generation, Store
from ..store.remote import open_prebuilt
from .gitio import Git


def start_from(git: Git, store: Store, source: str | Path, head: str) -> str | None:
    """Adopt the prebuilt index at `source` (a store folder or a URI) into `store` unless the
    store already holds one at least as new. Returns a one-line note of what was done."""
    gen = open_prebuilt(source)
    built = gen.manifest.repo_head
    shown = f"{gen.name} built at {built[:10]}"
    if not git.has_commit(built):
        raise InputError(
            f"prebuilt index {shown}: that commit is not in this clone",
            hint="fetch the history it was built from (git fetch --unshallow), or index "
            "without --from",
        )
    if not git.is_ancestor(built, head):
        raise InputError(
            f"prebuilt index {shown}: that commit is not an ancestor of HEAD {head[:10]}",
            hint="use the index built for your merge base, or index without --from",
        )
    with store.lock():
        try:
            live = store.live()
        except IndexCorrupt:
            live = None
        if live is not None:
            mine = live.manifest.repo_head
            if mine == head or (git.has_commit(mine) and git.is_ancestor(built, mine)):
                return f"kept the local index ({live.name} at {mine[:10]}): as new as {shown}"
        adopt(store, gen)
    return f"started from the prebuilt index {shown}"


def adopt(store: Store, gen: Generation) -> Generation:
    """Publish a copy of `gen` (from another store) as `store`'s live generation (the caller
    holds the store's lock)."""
    writer = store.begin()
    try:
        for rec in gen.manifest.stages.values():
            for name in rec.outputs:
                writer.carry(gen, name)
        manifest = gen.manifest.model_copy(update={"generation": writer.name})
        return writer.publish(manifest)
    except BaseException:
        writer.abort()
        raise
