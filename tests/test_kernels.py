"""numba kernels against plain numpy references (unpackbits, full stable sorts)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.serve import kernels as K


def _codes(rng: np.random.Generator, n: int, distinct: int | None = None) -> np.ndarray:
    """uint64[n, 4]; with `distinct`, rows repeat so distances tie."""
    pool = rng.integers(0, 2**64, size=(distinct or n, 4), dtype=np.uint64)
    if distinct is None:
        return pool
    return pool[rng.integers(0, distinct, size=n)]


def _lanes(codes: np.ndarray) -> list[np.ndarray]:
    return [np.ascontiguousarray(codes[:, j]) for j in range(4)]


def _ref_dist(codes: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamming distance by unpacking every bit."""
    x = (codes ^ q[None, :]).view(np.uint8)
    return np.unpackbits(x, axis=1).sum(axis=1).astype(np.int32)


@pytest.mark.parametrize("n", [1, 63, 64, 65, 1000, 4099])
@pytest.mark.parametrize("distinct", [None, 3])
def test_hamming_distances_match_unpackbits(n: int, distinct: int | None) -> None:
    rng = np.random.default_rng(n)
    codes = _codes(rng, n, distinct)
    q = rng.integers(0, 2**64, size=4, dtype=np.uint64)
    out = K.hamming_distances(*_lanes(codes), q, np.empty(n, np.uint16))
    np.testing.assert_array_equal(out.astype(np.int32), _ref_dist(codes, q))


def test_popcount_extremes() -> None:
    codes = np.array([[0, 0, 0, 0], [2**64 - 1] * 4, [1, 2, 4, 2**63]], dtype=np.uint64)
    q = np.zeros(4, np.uint64)
    out = K.hamming_distances(*_lanes(codes), q, np.empty(3, np.uint16))
    assert out.tolist() == [0, 256, 4]


@pytest.mark.parametrize("kernel", [K.hamming_topc, K.hamming_topc_parallel])
@pytest.mark.parametrize(
    ("n", "c", "distinct"),
    [
        (1, 5, None),
        (100, 0, None),
        (1000, 37, 5),
        (70001, 400, None),
        (777, 400, 40),
        (130, 130, None),
        (50, 400, 2),
    ],
)
@pytest.mark.slow
def test_topc_equals_stable_sort(kernel, n: int, c: int, distinct: int | None) -> None:
    rng = np.random.default_rng(n + c)
    codes = _codes(rng, n, distinct)
    q = rng.integers(0, 2**64, size=4, dtype=np.uint64)
    rows, dists = kernel(*_lanes(codes), q, c, np.empty(n, np.uint16))
    ref = _ref_dist(codes, q)
    order = np.argsort(ref, kind="stable")[: min(c, n)]
    np.testing.assert_array_equal(rows, order)
    np.testing.assert_array_equal(dists, ref[order])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 300), st.integers(0, 320), st.integers(1, 8), st.integers(0, 2**32))
def test_topc_property(n: int, c: int, distinct: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, distinct)
    q = codes[0] if seed % 2 else rng.integers(0, 2**64, size=4, dtype=np.uint64)
    rows, _ = K.hamming_topc(*_lanes(codes), q, c, np.empty(n, np.uint16))
    np.testing.assert_array_equal(rows, np.argsort(_ref_dist(codes, q), kind="stable")[:c])


def test_topc_batch_equals_single() -> None:
    rng = np.random.default_rng(7)
    n, m = 5003, 6
    codes = _codes(rng, n, 50)
    qs = rng.integers(0, 2**64, size=(m, 4), dtype=np.uint64)
    qs[0] = codes[10]
    lanes = _lanes(codes)
    rows, dists = K.hamming_topc_batch(*lanes, qs, 100, np.empty((m, n), np.uint16))
    for j in range(m):
        r, d = K.hamming_topc(*lanes, qs[j], 100, np.empty(n, np.uint16))
        np.testing.assert_array_equal(rows[j], r)
        np.testing.assert_array_equal(dists[j], d)


def _ref_cos(codes: np.ndarray, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
    d = codes[rows].astype(np.float64)
    qq = q.astype(np.float64)
    nd = np.linalg.norm(d, axis=1)
    dots = d @ qq
    return np.where(nd > 0, dots / np.where(nd > 0, nd, 1) / np.linalg.norm(qq), 0.0)


@pytest.mark.parametrize("c", [0, 1, 17, 400])
def test_rescore_matches_float64_reference(c: int) -> None:
    rng = np.random.default_rng(c)
    n = 1000
    codes = rng.integers(-127, 128, size=(n, 256), dtype=np.int8)
    codes[3] = 0  # a zero vector scores 0
    rows = rng.choice(n, size=c, replace=False).astype(np.int64)
    if c:
        rows[0] = 3
    q = rng.standard_normal(256).astype(np.float32)
    got = K.rescore_int8(codes, rows, q)
    np.testing.assert_allclose(got, _ref_cos(codes, rows, q), atol=2e-6)
    if c:
        assert got[0] == 0.0


def test_rescore_batch_equals_single() -> None:
    rng = np.random.default_rng(11)
    codes = rng.integers(-127, 128, size=(300, 256), dtype=np.int8)
    rows = np.stack([rng.choice(300, 50, replace=False) for _ in range(4)]).astype(np.int64)
    qs = rng.standard_normal((4, 256)).astype(np.float32)
    got = K.rescore_int8_batch(codes, rows, qs)
    for j in range(4):
        np.testing.assert_array_equal(got[j], K.rescore_int8(codes, rows[j], qs[j]))


def test_top_k_desc_breaks_ties_by_row() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.9, 0.1, 0.5], np.float32)
    rows = np.array([40, 7, 3, 2, 99, 8], np.int64)
    r, s = K.top_k_desc(scores, rows, 4)
    assert r.tolist() == [2, 7, 3, 8]
    assert s.tolist() == pytest.approx([0.9, 0.9, 0.5, 0.5])
    r, _ = K.top_k_desc(scores, rows, 100)
    ref = np.lexsort((rows, -scores))
    assert r.tolist() == rows[ref].tolist()


@pytest.mark.parametrize("case", ["random", "sampled_low", "hidden_low", "constant"])
def test_threshold_select_equals_stable_sort(case: str) -> None:
    rng = np.random.default_rng(3)
    n, c = 200_003, 400
    step = n // 16384
    if case == "random":
        dist = rng.binomial(256, 0.45, size=n).astype(np.uint16)
    elif case == "sampled_low":  # the sample sees only small values: too few rows collected
        dist = np.full(n, 120, np.uint16)
        dist[::step] = 3
    elif case == "hidden_low":  # the small values sit between sample points: too many collected
        dist = np.full(n, 200, np.uint16)
        dist[1::step][:c] = 5
    else:
        dist = np.full(n, 77, np.uint16)
    rows, d = K.threshold_select(dist, c)
    order = np.argsort(dist, kind="stable")[:c]
    np.testing.assert_array_equal(rows, order)
    np.testing.assert_array_equal(d, dist[order])
