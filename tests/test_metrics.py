"""Benchmark metrics against hand computations."""

from __future__ import annotations

import math

import pytest

from gitstrata.benchmarks.metrics import mrr, ndcg_at, percentile, recall_at, warning_outcome

RANKED = [{"a", "file:x"}, {"b"}, {"c"}, {"file:x"}, {"d"}]
REL = {"b": 3, "d": 1, "file:x": 2}


def test_recall_and_mrr() -> None:
    assert recall_at(RANKED, REL, 3) == pytest.approx(2 / 3)
    assert recall_at(RANKED, REL, 5) == 1.0
    assert mrr(RANKED, REL) == 1.0
    assert mrr([{"z"}, {"d"}], REL) == 0.5
    assert mrr([{"z"}], REL) == 0.0


def test_ndcg_by_hand() -> None:
    # gains at ranks 1..5: file:x (2) -> 3, b (3) -> 7, 0, file:x again -> 0, d (1) -> 1
    dcg = 3 / math.log2(2) + 7 / math.log2(3) + 1 / math.log2(6)
    idcg = 7 / math.log2(2) + 3 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(RANKED, REL, 5) == pytest.approx(dcg / idcg)
    assert ndcg_at([{"b"}, {"file:x"}, {"d"}], REL, 5) == pytest.approx(1.0)


def test_warning_outcome() -> None:
    assert warning_outcome([1, 2], [2]) == (True, True)
    assert warning_outcome([], [2]) == (False, False)
    assert warning_outcome([3], []) == (None, True)
    assert warning_outcome([], []) == (None, False)


def test_percentile() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([5], 95) == 5
