"""The live index's memory documents: which memories it holds and their vectors.

The `documents` stage folds every active memory into the index as a `memory` document
(`doc_id` "memory:<id>"). Recall reads those documents' int8
vectors instead of embedding each memory's text at query time; a memory written or changed after
the index was built has no document of its version and is embedded as before (the overlay).
Invariants: a document serves a memory only while its title and body are what the memory gives
now (redacted as the stage redacts by default), so an edited text is never scored by its old
vector; the state of a memory (forgotten, superseded)
always comes from the memory book, never from the documents. Everything here is read once per
generation.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from typing import Any

import numpy as np
import pyarrow as pa

from ..store.embedder import Embedder
from ..store.errors import GitstrataError
from ..store.generations import Generation
from ..store.memory import Memory, document_fields
from ..store.redact import redact_text
from ..store.vecstore import open_docmeta
from . import arrow_ops as pc
from .vectors import VectorIndex

KIND = "memory"
PREFIX = KIND + ":"


def _digest(title: str, body: str) -> str:
    return hashlib.blake2b(f"{title}\0{body}".encode(), digest_size=12).hexdigest()


class IndexMemories:
    """The memory documents of one generation."""

    def __init__(self, gen: Generation) -> None:
        self.gen = gen
        self.name = gen.path.name
        self.rows: dict[str, tuple[int, str]] = {}  # memory id -> (doc_idx, digest of its text)
        self._same: dict[tuple[Any, ...], bool] = {}
        if not gen.has("docmeta") or not gen.has("documents"):
            return
        meta = open_docmeta(gen.path)
        kinds = pc.cast(meta.column("kind").combine_chunks(), pa.string())
        if not pc.any(pc.equal(kinds, KIND)).as_py():
            return
        for row, doc_id, title, body in _memory_documents(gen):
            if doc_id.startswith(PREFIX):
                self.rows[doc_id[len(PREFIX) :]] = (int(row), _digest(title, body))

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, mem: Memory) -> int | None:
        """The document row holding `mem` as it is now, or None (not indexed, or changed since:
        its old vector would score words it no longer says)."""
        got = self.rows.get(mem.id)
        if got is None:
            return None
        key = (mem.id, mem.kind, mem.text, mem.tags, mem.anchors)
        same = self._same.get(key)
        if same is None:
            if len(self._same) > 50_000:
                self._same.clear()
            doc = document_fields(mem)
            title, body = redact_text(doc["title"]) or "", redact_text(doc["body"]) or ""
            same = self._same[key] = _digest(title, body) == got[1]
        return got[0] if same else None

    @cached_property
    def embedder(self) -> Embedder | None:
        if not self.rows or not self.gen.has("embedder"):
            return None
        gen = self.gen
        return gen.derived("embedder", lambda: Embedder.load(gen.file("embedder")))

    @cached_property
    def vectors(self) -> VectorIndex | None:
        if self.embedder is None or not self.gen.has("vectors_i8"):
            return None
        return VectorIndex.open(self.gen.path, embedder=self.embedder)

    def cosines(self, qvec: Any, rows: list[int]) -> list[float]:
        """cos(query vector, the int8 vector of each document row)."""
        vi = self.vectors
        if vi is None or not rows:
            return [0.0] * len(rows)
        got = vi.rescore(np.asarray(qvec, dtype=np.float32), np.asarray(rows, dtype=np.int64))
        return [float(x) for x in got]


def _memory_documents(gen: Generation) -> list[tuple[Any, ...]]:
    """(doc_idx, doc_id, title, body) of the memory documents, in file order. Memory documents
    come last: from the table's mapped copy only the rows from the first of them on are read;
    from Parquet, the row groups whose `kind` statistics exclude them are not (one file's
    reader, as `pq.read_table` with a filter imports pyarrow.dataset, tens of ms one-shot)."""
    names = ["doc_idx", "doc_id", "title", "body", "kind"]
    t = gen.mapped_table("documents")
    if t is not None and not set(names) <= set(t.schema.names):
        t = gen.table("documents", columns=names)  # a served generation's copy then holds them
    if t is not None:
        kinds = t.column("kind").to_pylist()
        first = kinds.index(KIND) if KIND in kinds else len(kinds)
        t = t.slice(first).select(names)
    else:
        import pyarrow.parquet as pq

        with pq.ParquetFile(gen.file("documents")) as pf:
            meta = pf.metadata
            leaves = [meta.schema.column(i).path for i in range(meta.num_columns)]
            at = leaves.index("kind") if "kind" in leaves else -1
            groups = [g for g in range(meta.num_row_groups) if _may_hold(meta.row_group(g), at)]
            # every group: the generation's columns, which search's texts share (read once)
            t = None if len(groups) == meta.num_row_groups else pf.read_row_groups(groups, names)
        if t is None:
            t = gen.table("documents", columns=names)
    cols = [t.column(c).to_pylist() for c in names]
    return [row[:4] for row in zip(*cols, strict=True) if row[4] == KIND]


def _may_hold(group: Any, column: int) -> bool:
    """The row group may hold a `kind` of KIND (no statistics: it may)."""
    stats = group.column(column).statistics if column >= 0 else None
    if stats is None or not stats.has_min_max:
        return True
    try:
        return bool(stats.min <= KIND <= stats.max)
    except TypeError:  # statistics of another type than text: read the group
        return True


def open_index_memories(gen: Generation | None) -> IndexMemories | None:
    if gen is None:
        return None
    try:
        return IndexMemories(gen)
    except (GitstrataError, OSError, KeyError, ValueError):
        return None  # an unreadable index: recall embeds every memory, as without one
