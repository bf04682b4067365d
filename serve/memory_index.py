"""The live index's memory documents: which memories it holds and their vectors.

The `documents` stage folds every active memory into the index as a `memory` document
(`doc_id` "memory:<id>", `time` the memory's last update). Recall reads those documents' int8
vectors instead of embedding each memory's text at query time; a memory written or changed after
the index was built has no document of its version and is embedded as before (the overlay).
Invariants: a document serves a memory only while its time equals the memory's last update, so
an edited text is never scored by its old vector; the state of a memory (forgotten, superseded)
always comes from the memory book, never from the documents. Everything here is read once per
generation.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
import pyarrow.compute as pc

from ..store.embedder import Embedder
from ..store.errors import GitstrataError
from ..store.generations import Generation
from ..store.memory import Memory, parse_time
from ..store.vecstore import open_docmeta
from .vectors import VectorIndex

KIND = "memory"
PREFIX = KIND + ":"


def version(mem: Memory) -> int:
    """What a memory document records of the memory it was built from: its last update, in
    epoch seconds (a recall or a reinforcement changes no text and no update time)."""
    t = parse_time(mem.updated) or parse_time(mem.created)
    return int(t.timestamp()) if t is not None else 0


class IndexMemories:
    """The memory documents of one generation."""

    def __init__(self, gen: Generation) -> None:
        self.gen = gen
        self.name = gen.path.name
        self.rows: dict[str, tuple[int, int]] = {}  # memory id -> (doc_idx, version)
        if not gen.has("docmeta") or not gen.has("documents"):
            return
        meta = open_docmeta(gen.path)
        kinds = meta.column("kind").combine_chunks()
        mask = pc.equal(pc.cast(kinds, "string"), KIND)
        rows = np.flatnonzero(mask.to_numpy(zero_copy_only=False)).tolist()
        if not rows:
            return
        times = meta.column("time").to_numpy()
        ids = gen.table("documents", columns=["doc_id"]).column("doc_id")
        for r in rows:
            doc_id = ids[r].as_py()
            if doc_id.startswith(PREFIX):
                self.rows[doc_id[len(PREFIX) :]] = (r, int(times[r]))

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, mem: Memory) -> int | None:
        """The document row holding `mem` as it is now, or None (not indexed, or changed)."""
        got = self.rows.get(mem.id)
        if got is None or got[1] != version(mem):
            return None
        return got[0]

    @cached_property
    def embedder(self) -> Embedder | None:
        if not self.rows or not self.gen.has("embedder"):
            return None
        return Embedder.load(self.gen.file("embedder"))

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


def open_index_memories(gen: Generation | None) -> IndexMemories | None:
    if gen is None:
        return None
    try:
        return IndexMemories(gen)
    except (GitstrataError, OSError, KeyError, ValueError):
        return None  # an unreadable index: recall embeds every memory, as without one
