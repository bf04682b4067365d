"""Rank fusion and final assembly: time-decayed RRF, spreading activation, slot budget, pinning.

Pure functions over rankings (lists of document indexes, best first) and plain arrays, each
checked against a hand computation in tests/test_fusion.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

DAY = 86_400.0


def recency_multiplier(age_seconds: float, alpha: float, half_life_days: float) -> float:
    """1 + alpha * exp(-lambda * age), lambda = ln 2 / half-life: in [1, 1 + alpha]."""
    if alpha <= 0:
        return 1.0
    lam = math.log(2.0) / (half_life_days * DAY)
    return 1.0 + alpha * math.exp(-lam * max(0.0, age_seconds))


def recency_array(age_seconds: np.ndarray, alpha: float, half_life_days: float) -> np.ndarray:
    """`recency_multiplier` over an array of ages."""
    if alpha <= 0:
        return np.ones_like(age_seconds, dtype=np.float64)
    lam = math.log(2.0) / (half_life_days * DAY)
    return 1.0 + alpha * np.exp(-lam * np.maximum(age_seconds, 0.0))


def td_rrf(
    rankings: Mapping[str, Sequence[int]],
    weights: Mapping[str, float],
    *,
    k: int,
    recency: Callable[[int], float] | None = None,
) -> dict[int, float]:
    """Score(d) = sum_m w_m / (k + rank_m(d)) * (1 + alpha e^{-lambda dt_d}); ranks start at 1.

    `recency(doc)` returns the multiplier; None means plain RRF.
    """
    scores: dict[int, float] = {}
    for path, ranking in rankings.items():
        w = weights.get(path, 0.0)
        if w <= 0:
            continue
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + w / (k + rank)
    if recency is not None:
        for doc in scores:
            scores[doc] *= recency(doc)
    return scores


def rank_by(scores: Mapping[int, float]) -> list[int]:
    """Documents by descending score, ties by ascending index (deterministic)."""
    return sorted(scores, key=lambda d: (-scores[d], d))


def spread_activation(
    seeds: Mapping[int, float],
    neighbours: Callable[[int], Sequence[tuple[int, float, bool]]],
    *,
    delta: float,
    gamma: float,
) -> dict[int, float]:
    """One hop: a(v) = delta * sum_s a(s) W(s, v) gamma^[import-linked(s, v)], seeds excluded.

    `neighbours(s)` yields (v, W(s, v), import_linked) for graph node s.
    """
    out: dict[int, float] = {}
    for s, a in seeds.items():
        if a <= 0:
            continue
        for v, w, linked in neighbours(s):
            if v in seeds:
                continue
            out[v] = out.get(v, 0.0) + delta * a * w * (gamma if linked else 1.0)
    return out


def slot_budget(
    ranked: Sequence[int], is_commit: Callable[[int], bool], *, cap: int, window: int = 5
) -> list[int]:
    """At most `cap` commits in the first `window` positions; the excess is deferred to just
    after the window in its original order, never dropped."""
    head: list[int] = []
    deferred: list[int] = []
    rest_start = len(ranked)
    commits = 0
    for i, doc in enumerate(ranked):
        if len(head) >= window:
            rest_start = i
            break
        if is_commit(doc):
            if commits >= cap:
                deferred.append(doc)
                continue
            commits += 1
        head.append(doc)
    return head + deferred + list(ranked[rest_start:]) if len(head) >= window else head + deferred


def pin(ranked: Sequence[int], doc: int, position: int = 1) -> list[int]:
    """Move `doc` to 1-based `position` (inserting it if the ranker missed it)."""
    out = [d for d in ranked if d != doc]
    out.insert(max(0, min(position - 1, len(out))), doc)
    return out


def fuse_plain(ranked: Sequence[int], plain: Sequence[int], weight: float, k: int) -> list[int]:
    """A route's order with a plain retrieval list fused back in: RRF with weight 1 for the
    route's order and `weight` for the plain list, ties by ascending index. Documents only the
    plain list holds join the order; none is dropped."""
    if weight <= 0 or not plain:
        return list(ranked)
    return rank_by(td_rrf({"route": ranked, "plain": plain}, {"route": 1.0, "plain": weight}, k=k))
