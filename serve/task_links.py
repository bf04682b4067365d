"""What a task's working set links to: recorded failed attempts and reverted commits that
touched it (its must_not_redo beyond the task's own failures), and the team invariants whose
scope matches it (its must_preserve). Reads the journal, the live index and the invariants
file; never writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..store.errors import GitstrataError
from ..store.generations import Store

LINK_LIMIT = 50  # graveyard entries and reverted commits linked into must_not_redo


def linked_failures(index_dir: Path, paths: list[str]) -> list[dict[str, Any]]:
    """Graveyard entries and reverted commits that touched `paths`, as must_not_redo items."""
    from ..store.attempts import load_failures, revert_id, target_label
    from ..store.journal import Journal

    wanted = set(paths)
    if not wanted:
        return []
    out: list[dict[str, Any]] = []
    for f in load_failures(Journal(index_dir / "journal")):
        hit = [t for t in f.targets if t[0] in wanted]
        if hit:
            note = f.notes or (f.signature.errors[0] if f.signature.errors else "failed")
            out.append({"key": f"failure:{f.id}", "source": "graveyard", "importance": 0.8,
                        "text": f"failed attempt #{f.id} on {target_label(hit[0])}: {note}"})  # fmt: skip
    for sha, subject in reverted_commits(index_dir, wanted):
        out.append({"key": revert_id(sha), "source": "revert", "importance": 0.8,
                    "text": f"reverted commit {sha[:10]}: {subject}"})  # fmt: skip
    return out[:LINK_LIMIT]


def invariants_on(index_dir: Path, paths: list[str]) -> list[dict[str, str]]:
    """The team invariants whose scope matches one of `paths`, each once."""
    from .invariants import InvariantStore

    try:
        store = InvariantStore.in_strata(index_dir)
        seen: dict[str, dict[str, str]] = {}
        for p in paths:
            for inv in store.match_file(p):
                seen.setdefault(inv.id, inv.to_dict())
    except GitstrataError:
        return []
    return list(seen.values())


def reverted_commits(index_dir: Path, paths: set[str]) -> list[tuple[str, str]]:
    """(sha, subject) of the reverted commits (per the live index) that touched `paths`."""
    try:
        gen = Store(index_dir).live()
        if gen is None:
            return []
        commits = gen.table("commits", columns=["sha", "subject", "intent", "reverted_sha"])
        reverted = [
            (r["reverted_sha"], r["subject"])
            for r in commits.to_pylist()
            if r["intent"] == "revert" and r["reverted_sha"]
        ]
        if not reverted:
            return []
        touches = gen.table("touches", columns=["sha", "head_path"]).to_pylist()
    except (GitstrataError, OSError, KeyError):
        return []
    touched: dict[str, set[str]] = {}
    for t in touches:
        touched.setdefault(t["sha"], set()).add(t["head_path"])
    out = []
    for prefix, subject in reverted:
        for sha, files in touched.items():
            if sha.startswith(prefix) and files & paths:
                out.append((sha, subject or ""))
                break
    return out[:LINK_LIMIT]
