"""Numba kernels for the embedder's fit: CSR x dense, and a CSR matrix's transpose.

It lives in `store/` because both sides use the embedder (the batch side fits it, the read side
transforms queries); queries are one row and stay on the numpy path, so a one-shot command
never pays for compiling this. Checked against the numpy implementation in
tests/test_embedder.py.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def csr_dense(indptr, indices, data, dense, out, first, last):  # pragma: no cover - compiled
    """out[i, :] = sum_j data[j] * dense[indices[j], :] for j in indptr[i]:indptr[i+1], for the
    rows first <= i < last (without the GIL: row ranges can run on threads side by side).

    No numba worker threads: their spinning next to OpenBLAS's slowed the eigendecomposition
    that follows by an order of magnitude; `spmm` splits rows over plain threads instead.
    """
    ell = dense.shape[1]
    for i in range(first, last):
        for j in range(indptr[i], indptr[i + 1]):
            w = data[j]
            r = indices[j]
            for c in range(ell):
                out[i, c] += w * dense[r, c]
    return out


@njit(cache=True, nogil=True)
def csr_transpose(indptr, indices, data, m, t_indptr, t_indices, t_data):  # pragma: no cover
    """The transpose of the CSR matrix (rows x `m`) into `t_indptr` (m + 1), `t_indices` and
    `t_data` (one slot per non-zero): a counting sort by column, each column's entries in row
    order (what a stable sort by column gives), with no memory beyond the result."""
    for j in range(len(indices)):
        t_indptr[indices[j] + 1] += 1
    for c in range(m):
        t_indptr[c + 1] += t_indptr[c]
    fill = t_indptr[:-1].copy()
    for i in range(len(indptr) - 1):
        for j in range(indptr[i], indptr[i + 1]):
            c = indices[j]
            p = fill[c]
            t_indices[p] = i
            t_data[p] = data[j]
            fill[c] = p + 1


def transpose(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, data) of the transpose (m x rows) of a CSR matrix; row numbers are
    int32 while they fit, as the column numbers are."""
    rows = len(indptr) - 1
    t_indptr = np.zeros(m + 1, np.int64)
    t_indices = np.empty(len(indices), np.int32 if rows < 2**31 else np.int64)
    t_data = np.empty(len(data), np.float32)
    csr_transpose(
        indptr, indices, np.ascontiguousarray(data, np.float32), m, t_indptr, t_indices, t_data
    )
    return t_indptr, t_indices, t_data


def _index_array(a: np.ndarray) -> np.ndarray:
    """`a` as contiguous int32 or int64 (int32 column numbers halve a fit's largest arrays; the
    kernels are compiled for either)."""
    return np.ascontiguousarray(a, dtype=a.dtype if a.dtype in (np.int32, np.int64) else np.int64)


def row_ranges(indptr: np.ndarray, parts: int) -> list[tuple[int, int]]:
    """At most `parts` consecutive row ranges covering every row, of about equal non-zeros."""
    n = len(indptr) - 1
    cuts = np.searchsorted(indptr, np.linspace(0, indptr[-1], parts + 1)[1:-1], side="left")
    edges = np.unique(np.concatenate(([0], np.clip(cuts, 0, n), [n])))
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def spmm(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    dense: np.ndarray,
    threads: int = 1,
) -> np.ndarray:
    """CSR x dense; with `threads` > 1, row ranges of about equal work on that many threads.
    Every row is summed in the same order either way, so the result is the same bit for bit."""
    n = len(indptr) - 1
    out = np.zeros((n, dense.shape[1]), dtype=np.float32)
    args = (
        np.ascontiguousarray(indptr, dtype=np.int64),
        _index_array(indices),
        np.ascontiguousarray(data, dtype=np.float32),
        np.ascontiguousarray(dense, dtype=np.float32),
        out,
    )
    ranges = row_ranges(args[0], threads) if threads > 1 and n > 1 else [(0, n)]
    if len(ranges) == 1:
        csr_dense(*args, 0, n)
        return out
    with ThreadPoolExecutor(len(ranges), thread_name_prefix="gitstrata-spmm") as pool:
        for done in [pool.submit(csr_dense, *args, a, b) for a, b in ranges]:
            done.result()
    return out
