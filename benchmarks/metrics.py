"""Ranking and warning metrics, as plain functions over target ids.

A ranked list is a sequence of *sets* of target ids (one set per result, since one hit can satisfy
several targets: a symbol hit is both `symbol:PATH::NAME` and `file:PATH`). Relevance is a dict
target -> grade (1..3). Every function is deterministic and checked by hand in
tests/test_metrics.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence


def credited(ranked: Sequence[set[str]], relevant: Mapping[str, int], k: int) -> list[int]:
    """Grade credited at each of the first k positions; a target is credited once (first hit)."""
    seen: set[str] = set()
    gains = []
    for ids in ranked[:k]:
        best, best_t = 0, None
        for t in ids:
            g = relevant.get(t, 0)
            if g > best and t not in seen:
                best, best_t = g, t
        if best_t is not None:
            seen.add(best_t)
        gains.append(best)
    return gains


def recall_at(ranked: Sequence[set[str]], relevant: Mapping[str, int], k: int) -> float:
    if not relevant:
        return 0.0
    found = set()
    for ids in ranked[:k]:
        found |= ids & relevant.keys()
    return len(found) / len(relevant)


def mrr(ranked: Sequence[set[str]], relevant: Mapping[str, int], k: int = 10) -> float:
    for i, ids in enumerate(ranked[:k], start=1):
        if ids & relevant.keys():
            return 1.0 / i
    return 0.0


def ndcg_at(ranked: Sequence[set[str]], relevant: Mapping[str, int], k: int = 5) -> float:
    """nDCG with gains 2^g - 1 and log2(i + 1) discounts; each target credited once."""
    gains = credited(ranked, relevant, k)
    dcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def warning_outcome(surfaced: Iterable[int], expected: Iterable[int]) -> tuple[bool | None, bool]:
    """(hit, false_alarm) for one query: `hit` is None when nothing was expected; a false alarm is
    any surfaced warning that was not expected."""
    got, want = set(surfaced), set(expected)
    hit = None if not want else bool(got & want)
    return hit, bool(got - want)


def mean(xs: Iterable[float]) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0


def percentile(xs: Sequence[float], q: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    pos = (len(s) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)
