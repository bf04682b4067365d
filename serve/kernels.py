"""Numba kernels of the two-stage vector search: pure functions over numpy arrays.

Layout they assume (see `store/vecstore.py`): 256-bit SimHash codes stored bit-sliced, one
contiguous uint64 array per 64-bit lane (`l0..l3`, each of length n), so a scan streams four
sequential arrays; int8 codes as a C-contiguous (n, 256) array.

Invariants: no Python objects inside a kernel; every selection is deterministic, ties broken by
the smaller row index, so results equal a stable sort of the same keys. Each kernel is checked
against a plain numpy reference in `tests/test_kernels.py`.

The first jitted call in a process costs ~0.2 s even from numba's on-disk cache: one-shot commands
on small indexes use the numpy path in `serve/vectors.py`, the server calls `warm()` once.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

BITS = 256

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S56 = np.uint64(56)


@njit(cache=True, inline="always")
def popcount64(x):
    """popcount(x) for a uint64 by the SWAR bit trick:
    pairs, nibbles, bytes, then the byte sum via a multiply by 0x0101...01 and a shift by 56."""
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return (x * _H01) >> _S56


@njit(cache=True)
def hamming_distances(l0, l1, l2, l3, q, out):
    """out[i] = sum_j popcount(l_j[i] XOR q[j]) for j in 0..3: the Hamming distance, 0..256,
    between code i and the query code q (uint64[4]). Returns out."""
    q0, q1, q2, q3 = q[0], q[1], q[2], q[3]
    for i in range(l0.shape[0]):
        out[i] = (
            popcount64(l0[i] ^ q0)
            + popcount64(l1[i] ^ q1)
            + popcount64(l2[i] ^ q2)
            + popcount64(l3[i] ^ q3)
        )
    return out


@njit(cache=True)
def counting_select(dist, hist, c):
    """The c rows of smallest distance, ordered by (distance, row), in O(n + 257).

    With H the histogram of `dist` over 0..256, the threshold t is the least value with
    sum_{b<=t} H[b] >= c; every row with d < t is taken, and rows with d == t in row order until
    c are taken. Rows are placed by a counting sort, so the output equals the first c entries of
    a stable argsort of `dist`. Returns (rows int64[c], distances int32[c])."""
    n = dist.shape[0]
    if c > n:
        c = n
    rows = np.empty(c, np.int64)
    dists = np.empty(c, np.int32)
    if c == 0:
        return rows, dists
    cum = 0
    t = 0
    while t < BITS and cum + hist[t] < c:
        cum += hist[t]
        t += 1
    offs = np.empty(t + 1, np.int64)
    o = 0
    for b in range(t):
        offs[b] = o
        o += hist[b]
    offs[t] = o
    left_at_t = c - cum
    for i in range(n):
        d = dist[i]
        if d < t:
            p = offs[d]
            rows[p] = i
            dists[p] = d
            offs[d] = p + 1
        elif d == t and left_at_t > 0:
            p = offs[t]
            rows[p] = i
            dists[p] = d
            offs[t] = p + 1
            left_at_t -= 1
    return rows, dists


@njit(cache=True)
def threshold_select(dist, c):
    """The c smallest of `dist` (values 0..256), ordered by (distance, row): equal to the first
    c entries of a stable argsort, like `counting_select`, but without a histogram of all n.

    A strided sample of ~16k distances gives the least T whose sample count, scaled to n, admits
    8c rows; one predictable pass collects the rows with d <= T in row order, and
    `counting_select` runs over those only. Exactness: when at least c rows have d <= T, the
    c-th smallest distance t is <= T, so every row with d <= t was collected. When fewer than c
    (or too many) were collected, it falls back to the full histogram.
    Returns (rows int64[c'], distances int32[c']), c' = min(c, n)."""
    n = dist.shape[0]
    if c > n:
        c = n
    step = max(1, n // 16384)
    hist = np.zeros(BITS + 1, np.int64)
    m = 0
    for i in range(0, n, step):
        hist[dist[i]] += 1
        m += 1
    need = (8 * c * m + n - 1) // max(n, 1)
    t = 0
    cum = hist[0]
    while t < BITS and cum < need:
        t += 1
        cum += hist[t]
    cap = 64 * c + 4096
    picked = np.empty(cap, np.int64)
    cnt = 0
    for i in range(n):
        if dist[i] <= t:
            if cnt < cap:
                picked[cnt] = i
            cnt += 1
    if cnt < c or cnt > cap:
        full = np.zeros(BITS + 1, np.int64)
        for i in range(n):
            full[dist[i]] += 1
        return counting_select(dist, full, c)
    sub = np.empty(cnt, np.uint16)
    h = np.zeros(BITS + 1, np.int64)
    for j in range(cnt):
        d = dist[picked[j]]
        sub[j] = d
        h[d] += 1
    pos, dists = counting_select(sub, h, c)
    return picked[pos], dists


@njit(cache=True)
def hamming_topc(l0, l1, l2, l3, q, c, scratch):
    """Stage 1: d_i = popcount(code_i XOR q) over the four lanes (`hamming_distances`, a loop
    LLVM vectorises), then `threshold_select` of the c smallest. `scratch` is a uint16[>= n]
    buffer reused across calls (no per-query allocation).
    Returns (rows int64[c'], distances int32[c']) ordered by (distance, row)."""
    n = l0.shape[0]
    hamming_distances(l0, l1, l2, l3, q, scratch[:n])
    return threshold_select(scratch[:n], c)


@njit(cache=True, parallel=True)
def hamming_topc_parallel(l0, l1, l2, l3, q, c, scratch):
    """`hamming_topc` with the distance scan split into contiguous chunks over threads (prange),
    each with its own histogram; the histograms are summed and the select runs once. Same
    result as `hamming_topc` for the same inputs."""
    n = l0.shape[0]
    chunk = 65536
    n_chunks = (n + chunk - 1) // chunk
    hists = np.zeros((n_chunks, BITS + 1), np.int64)
    q0, q1, q2, q3 = q[0], q[1], q[2], q[3]
    for k in prange(n_chunks):
        lo = k * chunk
        hi = min(n, lo + chunk)
        for i in range(lo, hi):
            d = (
                popcount64(l0[i] ^ q0)
                + popcount64(l1[i] ^ q1)
                + popcount64(l2[i] ^ q2)
                + popcount64(l3[i] ^ q3)
            )
            scratch[i] = d
            hists[k, d] += 1
    hist = np.zeros(BITS + 1, np.int64)
    for k in range(n_chunks):
        for b in range(BITS + 1):
            hist[b] += hists[k, b]
    return counting_select(scratch[:n], hist, c)


@njit(cache=True)
def hamming_topc_batch(l0, l1, l2, l3, qs, c, scratch):
    """`hamming_topc` for m queries (qs: uint64[m, 4]) in one pass over the codes: the codes are
    read in blocks that stay in cache while every query is scored against them.
    scratch: uint16[m, >= n]. Returns (rows int64[m, c'], distances int32[m, c']), c' = min(c, n)."""
    n = l0.shape[0]
    m = qs.shape[0]
    block = 2048
    hists = np.zeros((m, BITS + 1), np.int64)
    for lo in range(0, n, block):
        hi = min(n, lo + block)
        for j in range(m):
            q0, q1, q2, q3 = qs[j, 0], qs[j, 1], qs[j, 2], qs[j, 3]
            for i in range(lo, hi):
                d = (
                    popcount64(l0[i] ^ q0)
                    + popcount64(l1[i] ^ q1)
                    + popcount64(l2[i] ^ q2)
                    + popcount64(l3[i] ^ q3)
                )
                scratch[j, i] = d
                hists[j, d] += 1
    cc = min(c, n)
    rows = np.empty((m, cc), np.int64)
    dists = np.empty((m, cc), np.int32)
    for j in range(m):
        r, d = counting_select(scratch[j, :n], hists[j], cc)
        rows[j] = r
        dists[j] = d
    return rows, dists


@njit(cache=True, fastmath=True)
def rescore_int8(codes, rows, q):
    """Stage 2, asymmetric: cos(q, d~) = (q . d~) / (|q| |d~|) for each candidate row, with d~
    the int8 code of the row (the per-vector scale cancels) and q the float32 query.
    A zero vector scores 0. Returns float32[len(rows)]."""
    dim = q.shape[0]
    qn = 0.0
    for j in range(dim):
        qn += q[j] * q[j]
    qn = np.sqrt(qn)
    out = np.zeros(rows.shape[0], np.float32)
    for k in range(rows.shape[0]):
        r = rows[k]
        dot = np.float32(0.0)
        nn = np.float32(0.0)
        for j in range(dim):
            v = np.float32(codes[r, j])
            dot += q[j] * v
            nn += v * v
        if nn > 0 and qn > 0:
            out[k] = dot / (np.sqrt(nn) * qn)
    return out


@njit(cache=True)
def rescore_int8_batch(codes, rows, qs):
    """`rescore_int8` for m queries: rows int64[m, c], qs float32[m, dim] -> float32[m, c]."""
    m = qs.shape[0]
    out = np.empty(rows.shape, np.float32)
    for j in range(m):
        out[j] = rescore_int8(codes, rows[j], qs[j])
    return out


@njit(cache=True)
def top_k_desc(scores, rows, k):
    """The k entries of highest score, ties by the smaller row: the first k of a sort by
    (-score, row). Returns (rows int64[k'], scores float32[k']), k' = min(k, len(scores))."""
    order = np.argsort(-scores, kind="mergesort")
    n = scores.shape[0]
    kk = min(k, n)
    # mergesort is stable: equal scores keep candidate order, which is (distance, row); resort
    # equal-score runs by row so ties never depend on the stage-1 order
    out_rows = np.empty(n, np.int64)
    out_scores = np.empty(n, np.float32)
    for i in range(n):
        out_rows[i] = rows[order[i]]
        out_scores[i] = scores[order[i]]
    i = 0
    while i < n:
        j = i + 1
        while j < n and out_scores[j] == out_scores[i]:
            j += 1
        if j - i > 1:
            out_rows[i:j] = np.sort(out_rows[i:j])
        i = j
    return out_rows[:kk], out_scores[:kk]


def warm() -> None:
    """Compile (or load from cache) every kernel once, so the first real query does not pay.

    The arrays are read-only like the memory-mapped ones the server passes: numba specialises
    on writability, so warming with writable arrays would leave the served signature cold."""
    n = 70
    l0, l1, l2, l3 = (_readonly(np.zeros(n, np.uint64)) for _ in range(4))
    q = np.zeros(4, np.uint64)
    scratch = np.empty(n, np.uint16)
    rows, _ = hamming_topc(l0, l1, l2, l3, q, 8, scratch)
    threshold_select(scratch, 8)
    hamming_topc_parallel(l0, l1, l2, l3, q, 8, scratch)
    hamming_topc_batch(l0, l1, l2, l3, q.reshape(1, 4), 8, np.empty((1, n), np.uint16))
    hamming_distances(l0, l1, l2, l3, q, scratch)
    codes = _readonly(np.zeros((n, BITS), np.int8))
    qf = np.zeros(BITS, np.float32)
    s = rescore_int8(codes, rows, qf)
    rescore_int8_batch(codes, rows.reshape(1, -1), qf.reshape(1, -1))
    top_k_desc(s, rows, 4)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a
