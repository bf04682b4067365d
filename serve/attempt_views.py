"""The matching views of the journal's failed attempts, kept beside a generation from one process
to the next.

A process builds a `FailureView` for every recorded attempt before its first answer: tokenized
notes, changed lines and the messages of the commits it would undo, three embeddings, the
symbols its diff changed. With 1,200 attempts that took 2.3 s of every one-shot `preflight` and
`query`, for views the process before it had built from the same journal and generation. The
process that builds views now keeps them in the generation's `mapped/` folder
(`Generation.keep`), and the next one reads the views of the attempts it has there.

Invariants:
- A kept view is the view `_failure_parts` builds, field for field: the same terms in the same
  order with the same counts, the same sets, vectors bit for bit (their float32 bytes).
- Each view is keyed by a digest of everything of the attempt it is made from
  (`anticontext._attempt_key`); the file by the code and libraries that make views (every
  module of `serve` and `store` by size and modification time, the Python and numpy versions):
  an attempt recorded again, edited or folded with a repeat, and a new release, build again.
- The first process of a new generation takes from the views the generation before it kept,
  when both have the same embedder, what follows from an attempt alone (its terms and sets, the
  vectors of its text and of its place), and reads again what the new history says: the
  commits it would undo (and their messages' terms and vector, unless that text is the same)
  and the symbols its diff changed. An incremental index keeps the embedder unless more than
  `embedding.refit_fraction` of the documents are new. When the new generation's history is
  the earlier one's and more, read by the same code under the same configuration, a view
  whose files (its targets', both sides of each file of its diff) no new commit touched is
  taken whole: what its history part reads (those files' touches and HEAD symbols, the
  undone commits' messages and intents) is row for row what the earlier generation read.
- A process reads the files in its first pass over a generation's attempts only, and writes
  one when it built a view then; later, after appends, it builds each new attempt's view alone
  and writes the file again only once `SAVE_AFTER` views were new to it.
- It is a cache: a file that is missing, damaged or of another schema is ignored (and replaced
  by the next process that builds a view); `GITSTRATA_MAPPED_COPIES=off` turns it off with the
  mapped copies.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from ..store.errors import IndexCorrupt
from ..store.generations import MAPPED, Generation, Store
from . import arrow_ops as pc
from .graveyard import FailureView

_STRINGS = pa.list_(pa.string())
SCHEMA = pa.schema(
    [
        ("key", pa.binary(16)),
        ("text_terms", _STRINGS),
        ("text_counts", pa.list_(pa.int64())),  # None: the terms are a set, not a Counter
        ("vector", pa.binary()),
        ("identifiers", _STRINGS),
        ("touched", _STRINGS),
        ("location", _STRINGS),
        ("place", pa.binary()),
        ("why_terms", _STRINGS),
        ("why_vector", pa.binary()),
        ("why_text", pa.string()),  # the messages `why_terms` and `why_vector` are made from
        ("changed_paths", _STRINGS),
        ("changed_names", _STRINGS),
        ("nearby_codes", _STRINGS),
    ]
)
_SETS = ("identifiers", "touched", "location", "why_terms", "nearby_codes")
_VECTORS = ("vector", "place", "why_vector")
# a process that already knows the generation's views writes the file again only once this many
# attempts were new to it (an append builds one view in milliseconds; the next process can too)
SAVE_AFTER = 16

_fingerprint: str | None = None


def key(attempt_key: tuple) -> bytes:
    """The digest a view is kept under: of everything of the attempt it is made from."""
    return hashlib.blake2b(
        repr(attempt_key).encode("utf-8", "surrogatepass"), digest_size=16
    ).digest()


def _code_fingerprint() -> str:
    """The modules and libraries a view is made by: every module of `serve` and `store` by name,
    size and modification time (stat only: a one-shot process pays a millisecond), and the
    Python and numpy versions."""
    global _fingerprint
    if _fingerprint is None:
        h = hashlib.blake2b(digest_size=8)
        h.update(f"{sys.version_info[:3]} {np.__version__}".encode())
        here = Path(__file__).resolve().parent
        for folder in (here, here.parent / "store"):
            for entry in sorted(os.scandir(folder), key=lambda e: e.name):
                if entry.name.endswith(".py"):
                    st = entry.stat()
                    h.update(f"{folder.name}/{entry.name} {st.st_size} {st.st_mtime_ns}\n".encode())
        _fingerprint = h.hexdigest()
    return _fingerprint


def _name() -> str:
    return f"attempt-views-{_code_fingerprint()}"


def load(gen: Generation) -> dict[bytes, dict[str, Any]]:
    """Views kept beside `gen`, by key, as `FailureView` keyword arguments (all but id, targets
    and source) and the `why_text` they were made with."""
    return _rows(gen.kept(_name()))


class Previous(NamedTuple):
    """The views an earlier generation kept (`rows`, by key) and the files `changed` since: a
    view whose files are none of them is that generation's whole (None: every view reads its
    history part again)."""

    rows: dict[bytes, dict[str, Any]]
    changed: frozenset[str] | None


def load_previous(gen: Generation) -> Previous:
    """Views kept beside the generation before `gen` in its store, when it has the same
    embedder (its vectors are then the ones `gen`'s would be): what follows from an attempt
    alone carries over; the rest is read from `gen`'s history again (`_failure_parts`), unless
    no commit new to `gen` touched the attempt's files (`Previous.changed`)."""
    mine = gen.info("embedder").sha256 if gen.has("embedder") else None
    if not mine:
        return Previous({}, None)
    names = Store(gen.path.parent).generations()
    older = names[: names.index(gen.name)] if gen.name in names else []
    for name in reversed(older):
        path = gen.path.parent / name
        if not (path / MAPPED / f"{_name()}.arrow").is_file():
            continue
        try:
            previous = Generation.open(path)
            theirs = previous.info("embedder").sha256 if previous.has("embedder") else None
        except (IndexCorrupt, OSError, KeyError):
            return Previous({}, None)
        if theirs != mine:
            return Previous({}, None)
        return Previous(_rows(previous.kept(_name())), changed_since(previous, gen))
    return Previous({}, None)


# what a view's history part is read from: the history's tables and HEAD's symbols, made by
# these stages under these sections of the configuration
_HISTORY_STAGES = ("chunk", "capsule")
_HISTORY_CONFIG = ("index", "history", "redaction", "chunk")


def changed_since(previous: Generation, gen: Generation) -> frozenset[str] | None:
    """The files the commits `gen` has and `previous` lacks touched (their paths, former
    paths and names at HEAD), and the files whose content at HEAD differs (a merge that
    resolved a conflict changes a file no commit of the history touched), when `gen`'s history
    is `previous`'s and more, read by the same code under the same configuration: what else
    of a view's history part (the commits it would undo, their messages and intents, the
    symbols its diff changed at HEAD) reads is then `previous`'s, row for row. None otherwise
    (a rewritten history, another branch, a commit window that moved, another release or
    configuration)."""
    try:
        for stage in _HISTORY_STAGES:
            a, b = gen.manifest.stages.get(stage), previous.manifest.stages.get(stage)
            if a is None or b is None or not a.code_version or a.code_version != b.code_version:
                return None
        for section in _HISTORY_CONFIG:
            if gen.manifest.config.get(section) != previous.manifest.config.get(section):
                return None
        needed = [(g, name) for g in (gen, previous) for name in ("commits", "files")]
        if not all(g.has(name) for g, name in [*needed, (gen, "touches")]):
            return None
        before = previous.table("commits", columns=["sha"]).column("sha").combine_chunks()
        now = gen.table("commits", columns=["sha"]).column("sha").combine_chunks()
        if pc.any(pc.equal(pc.is_in(before, value_set=now), False)).as_py():
            return None  # a commit of `previous` is not in `gen`'s history
        touches = gen.table("touches", columns=["sha", "path", "old_path", "head_path"])
        touches = pc.filter(touches, pc.equal(pc.is_in(touches.column("sha"), before), False))
        blobs_before, blobs_now = _blobs(previous), _blobs(gen)
    except (IndexCorrupt, OSError, KeyError, pa.ArrowException):
        return None
    touched = {
        p
        for name in ("path", "old_path", "head_path")
        for p in touches.column(name).to_pylist()
        if p is not None
    }
    rewritten = {
        p for p in blobs_before.keys() | blobs_now.keys() if blobs_before.get(p) != blobs_now.get(p)
    }
    return frozenset(touched | rewritten)


def _blobs(gen: Generation) -> dict[str, str]:
    """Each file of `gen`'s HEAD and its blob."""
    files = gen.table("files", columns=["path", "blob"])
    return dict(
        zip(files.column("path").to_pylist(), files.column("blob").to_pylist(), strict=True)
    )


def _rows(table: pa.Table | None) -> dict[bytes, dict[str, Any]]:
    if table is None or not table.schema.equals(SCHEMA):
        return {}
    cols = {name: table.column(name).to_pylist() for name in SCHEMA.names}
    out: dict[bytes, dict[str, Any]] = {}
    for i, k in enumerate(cols["key"]):
        terms, counts = cols["text_terms"][i], cols["text_counts"][i]
        fields: dict[str, Any] = {
            "text_terms": frozenset(terms)
            if counts is None
            else Counter(dict(zip(terms, counts, strict=True))),
            "changed": tuple(zip(cols["changed_paths"][i], cols["changed_names"][i], strict=True)),
            "why_text": cols["why_text"][i],
        }
        for name in _SETS:
            fields[name] = frozenset(cols[name][i])
        for name in _VECTORS:
            raw = cols[name][i]
            fields[name] = None if raw is None else np.frombuffer(raw, dtype=np.float32)
        out[k] = fields
    return out


def save(gen: Generation, views: Iterable[tuple[bytes, FailureView, str]]) -> bool:
    """Keep `views` (key, view, the text its `why_*` fields were made from) beside `gen`,
    replacing what was kept."""
    rows: dict[str, list[Any]] = {name: [] for name in SCHEMA.names}
    for k, v, why_text in views:
        rows["key"].append(k)
        rows["why_text"].append(why_text)
        terms = v.text_terms
        rows["text_terms"].append(list(terms))
        rows["text_counts"].append(
            [terms[t] for t in terms] if isinstance(terms, Mapping) else None
        )
        for name in _SETS:
            rows[name].append(list(getattr(v, name)))
        for name in _VECTORS:
            vec = getattr(v, name)
            rows[name].append(
                None if vec is None else np.ascontiguousarray(vec, dtype=np.float32).tobytes()
            )
        rows["changed_paths"].append([p for p, _ in v.changed])
        rows["changed_names"].append([q for _, q in v.changed])
    return gen.keep(_name(), pa.table(rows, schema=SCHEMA))


def view(attempt_id: int | str, targets: tuple, fields: Mapping[str, Any]) -> FailureView:
    """The journal attempt's view from its kept fields."""
    return FailureView(
        id=attempt_id,
        targets=targets,
        source="journal",
        **{k: v for k, v in fields.items() if k != "why_text"},
    )
