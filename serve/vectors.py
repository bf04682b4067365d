"""Two-stage vector search over a generation's memory-mapped codes.

Stage 1 ranks every document by the Hamming distance between its 256-bit SimHash code and the
query's and keeps the C nearest (ties by row); stage 2 rescores those C with the asymmetric
int8 cosine and returns the top k (ties by row). The served width is the embedder's, any number
of components; the codes are 256 bits whatever it is (`store/vecstore.py`). The codes are numpy views into `pa.memory_map`
(see `store/vecstore.py`): nothing of the vector store is copied into the heap.

Below `NUMPY_MAX_ROWS` rows the same two stages run in numpy (`np.bitwise_count` and a stable
sort), which gives the same rows and avoids numba's first-call cost in one-shot commands; a
server calls `warm()` once and then always takes the numba path.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from ..store.embedder import Embedder
from ..store.errors import IndexCorrupt
from ..store.vecstore import CODE_BITS, MappedVectors, open_mapped, sign_codes

NUMPY_MAX_ROWS = 20_000
PARALLEL_MIN_ROWS = 2_000_000


class VectorIndex:
    def __init__(
        self, mapped: MappedVectors, rotation: np.ndarray, embedder: Embedder | None = None
    ) -> None:
        self.mapped = mapped
        self.rotation = np.asarray(rotation, dtype=np.float32)
        self.dim = int(self.rotation.shape[1])  # the served width (any; the codes are 256 bits)
        if self.rotation.shape[0] != CODE_BITS or mapped.codes.shape[1] != self.dim:
            raise IndexCorrupt(
                f"the embedder's {self.rotation.shape[0]} x {self.dim} hyperplanes do not fit "
                f"{mapped.codes.shape[1]}-wide codes",
                hint="run `gitstrata index --rebuild`",
            )
        self.embedder = embedder
        self._jit = False
        self._local = threading.local()

    @classmethod
    def open(cls, gen_dir: Path, *, embedder: Embedder | None = None) -> VectorIndex:
        """Map `vectors_bits.arrow` and `vectors_i8.arrow`; load the embedder state when not given."""
        gen_dir = Path(gen_dir)
        if embedder is None:
            embedder = Embedder.load(gen_dir / "embedder")
        return cls(open_mapped(gen_dir, embedder.mrl_dim), embedder.rotation, embedder)

    @property
    def n(self) -> int:
        return self.mapped.n

    def warm(self) -> None:
        """Compile or load the numba kernels now and use them from here on, whatever n."""
        from . import kernels

        kernels.warm()
        self._jit = True

    def _scratch(self) -> np.ndarray:
        buf = getattr(self._local, "scratch", None)
        if buf is None or buf.shape[0] < self.n:
            buf = np.empty(max(self.n, 1), np.uint16)
            self._local.scratch = buf
        return buf

    def encode(self, qvec: np.ndarray) -> np.ndarray:
        """The query's packed code, uint64[4]."""
        return sign_codes(np.asarray(qvec, dtype=np.float32)[: self.dim], self.rotation)[0]

    def candidates(self, qvec: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
        """Stage 1: (rows int64[c'], Hamming distances int32[c']) ordered by (distance, row)."""
        code = self.encode(qvec)
        lanes = self.mapped.lanes
        if self._jit or self.n > NUMPY_MAX_ROWS:
            from . import kernels

            kern = (
                kernels.hamming_topc_parallel
                if self.n >= PARALLEL_MIN_ROWS
                else kernels.hamming_topc
            )
            return kern(*lanes, code, int(c), self._scratch())
        dist = np.zeros(self.n, np.int32)
        for lane, qw in zip(lanes, code, strict=True):
            dist += np.bitwise_count(lane ^ qw)
        rows = np.argsort(dist, kind="stable")[: max(0, int(c))]
        return rows.astype(np.int64), dist[rows]

    def rescore(self, qvec: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Stage 2: cos(q, int8 code) for each row (float32)."""
        q = np.ascontiguousarray(np.asarray(qvec, dtype=np.float32)[: self.dim])
        if self._jit or self.n > NUMPY_MAX_ROWS:
            from . import kernels

            return kernels.rescore_int8(self.mapped.codes, rows, q)
        d = self.mapped.codes[rows].astype(np.float32)
        norms = np.linalg.norm(d, axis=1) * np.float32(np.linalg.norm(q))
        dots = d @ q
        return np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0).astype(np.float32)

    def search(
        self, qvec: np.ndarray, top_k: int = 10, candidates: int = 400
    ) -> tuple[np.ndarray, np.ndarray]:
        """(rows int64[k'], cosine float32[k']) of the best `top_k`, best first, ties by row."""
        if self.n == 0 or top_k <= 0:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        rows, _ = self.candidates(qvec, max(candidates, top_k))
        scores = self.rescore(qvec, rows)
        if self._jit or self.n > NUMPY_MAX_ROWS:
            from . import kernels

            return kernels.top_k_desc(scores, rows, int(top_k))
        order = np.lexsort((rows, -scores))[:top_k]
        return rows[order], scores[order]

    def search_text(
        self, text: str, top_k: int = 10, candidates: int = 400
    ) -> tuple[np.ndarray, np.ndarray]:
        if self.embedder is None:
            raise ValueError("this index was opened without an embedder")
        return self.search(self.embedder.embed_query(text), top_k, candidates)
