"""A numba kernel for the embedder's one heavy operation: CSR x dense.

It lives in `store/` because both sides use the embedder (the batch side fits it, the read side
transforms queries); queries are one row and stay on the numpy path, so a one-shot command
never pays for compiling this. Checked against the numpy implementation in
tests/test_embedder.py.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def csr_dense(indptr, indices, data, dense, out):  # pragma: no cover - compiled
    """out[i, :] = sum_j data[j] * dense[indices[j], :] for j in indptr[i]:indptr[i+1].

    Single-threaded on purpose: numba's worker threads spinning next to OpenBLAS's slowed the
    eigendecomposition that follows by an order of magnitude.
    """
    n = indptr.shape[0] - 1
    ell = dense.shape[1]
    for i in range(n):
        for j in range(indptr[i], indptr[i + 1]):
            w = data[j]
            r = indices[j]
            for c in range(ell):
                out[i, c] += w * dense[r, c]
    return out


def spmm(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, dense: np.ndarray
) -> np.ndarray:
    out = np.zeros((len(indptr) - 1, dense.shape[1]), dtype=np.float32)
    return csr_dense(
        np.ascontiguousarray(indptr, dtype=np.int64),
        np.ascontiguousarray(indices, dtype=np.int64),
        np.ascontiguousarray(data, dtype=np.float32),
        np.ascontiguousarray(dense, dtype=np.float32),
        out,
    )
