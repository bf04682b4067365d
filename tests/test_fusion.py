"""Fusion math against hand computations."""

from __future__ import annotations

import math

import pytest

from gitstrata.serve.fusion import (
    fuse_plain,
    pin,
    rank_by,
    recency_multiplier,
    slot_budget,
    spread_activation,
    td_rrf,
)


def test_rrf_by_hand() -> None:
    scores = td_rrf({"bm25": [10, 20, 30], "vec": [20, 40]}, {"bm25": 1.0, "vec": 2.0}, k=60)
    assert scores[10] == pytest.approx(1 / 61)
    assert scores[20] == pytest.approx(1 / 62 + 2 / 61)
    assert scores[30] == pytest.approx(1 / 63)
    assert scores[40] == pytest.approx(2 / 62)
    assert rank_by(scores) == [20, 40, 10, 30]


def test_a_plain_list_fused_into_the_routes_order_by_hand() -> None:
    # k=3: route 7 -> 1/4, 8 -> 1/5, 9 -> 1/6; plain (weight 0.5) 9 -> 0.5/4, 5 -> 0.5/5
    got = fuse_plain([7, 8, 9], [9, 5], 0.5, 3)
    # 9: 1/6 + 1/8 = 0.2917 > 7: 0.25 > 8: 0.2 > 5: 0.1; the plain list's own find joins
    assert got == [9, 7, 8, 5]
    assert fuse_plain([7, 8, 9], [9, 5], 0.0, 3) == [7, 8, 9]
    assert fuse_plain([7, 8, 9], [], 1.0, 3) == [7, 8, 9]


def test_zero_weight_path_is_ignored() -> None:
    assert td_rrf({"graph": [1, 2]}, {"graph": 0.0}, k=60) == {}


def test_time_decay_by_hand() -> None:
    # age = one half-life: multiplier 1 + alpha / 2
    assert recency_multiplier(120 * 86400, 0.25, 120) == pytest.approx(1.125)
    assert recency_multiplier(0, 0.25, 120) == pytest.approx(1.25)
    assert recency_multiplier(-5, 0.25, 120) == pytest.approx(1.25)  # future clamps to now
    ages = {1: 0.0, 2: 240 * 86400.0}
    scores = td_rrf(
        {"bm25": [2, 1]},
        {"bm25": 1.0},
        k=60,
        recency=lambda d: recency_multiplier(ages[d], 0.25, 120),
    )
    assert scores[2] == pytest.approx((1 / 61) * (1 + 0.25 * 0.25))
    assert scores[1] == pytest.approx((1 / 62) * 1.25)
    assert rank_by(scores) == [1, 2]  # the fresh document overtakes


def test_spreading_activation_by_hand() -> None:
    graph = {0: [(1, 0.5, False), (2, 0.4, True)], 3: [(1, 0.2, False), (0, 0.9, False)]}
    act = spread_activation({0: 1.0, 3: 0.5}, lambda s: graph.get(s, []), delta=0.5, gamma=0.5)
    assert act[1] == pytest.approx(0.5 * (1.0 * 0.5 + 0.5 * 0.2))
    assert act[2] == pytest.approx(0.5 * 1.0 * 0.4 * 0.5)
    assert 0 not in act  # seeds are not re-activated
    assert math.isclose(sum(act.values()), 0.3 + 0.1)


def test_slot_budget_caps_and_defers() -> None:
    commits = {1, 2, 3, 4}
    ranked = [1, 2, 3, 10, 4, 11, 12, 13]
    out = slot_budget(ranked, commits.__contains__, cap=2, window=5)
    assert out[:5] == [1, 2, 10, 11, 12]
    assert out[5:] == [3, 4, 13]  # deferred, in order, never dropped
    assert sorted(out) == sorted(ranked)
    assert slot_budget(ranked, commits.__contains__, cap=0)[:4] == [10, 11, 12, 13]
    assert slot_budget([1, 2], commits.__contains__, cap=0) == [1, 2]
    assert slot_budget(ranked, commits.__contains__, cap=5) == ranked


def test_pin() -> None:
    assert pin([5, 6, 7], 7) == [7, 5, 6]
    assert pin([5, 6, 7], 9) == [9, 5, 6, 7]
    assert pin([5, 6, 7], 7, position=2) == [5, 7, 6]


def test_recency_array_matches_scalar() -> None:
    import numpy as np

    from gitstrata.serve.fusion import recency_array

    ages = np.array([0.0, 86400.0 * 120, 86400.0 * 500, -10.0])
    expect = [recency_multiplier(a, 0.25, 120) for a in ages]
    assert recency_array(ages, 0.25, 120).tolist() == pytest.approx(expect)


def test_a_change_request_does_not_credit_a_files_path_title_in_full() -> None:
    """Place words of a change request ("the mobile order screen") name the file; its own
    chunk, titled by its path, keeps PATH_TITLE_SHARE of that title coverage when code is
    preferred, and all of it otherwise."""
    from gitstrata.serve.rerank import PATH_TITLE_SHARE, Candidate, rerank

    titles = {
        1: frozenset({"mobile/src/order_screen.tsx", "mobile", "order", "screen"}),
        2: frozenset({"order", "screen"}),
    }
    query = ["mobile", "order", "screen"]

    def scored(prefer: str) -> dict[int, float]:
        cands = [Candidate(r, 1.0, None, 0.0, "symbol", None) for r in (1, 2)]
        got = rerank(
            cands,
            "show the tax on the mobile order screen",
            query,
            lambda t: 1.0,
            lambda r: (f" {' '.join(query)} ", f" {' '.join(sorted(titles[r]))} "),
            lambda r: "",
            prefer,
        )
        return {c.row: c.rerank for c in got}

    neutral, code = scored("neutral"), scored("code")
    assert neutral[1] > neutral[2]
    assert code[1] - code[2] == pytest.approx(
        neutral[1] - neutral[2] - (1 - PATH_TITLE_SHARE) * 0.5
    )
    assert code[2] > code[1]
