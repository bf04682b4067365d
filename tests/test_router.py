"""The query router on a table of example queries (written for this test, not benchmark text)."""

from __future__ import annotations

import pytest

from gitstrata.serve.router import classify, named_identifiers

CASES = [
    ("why does normalize_currency round half up", "behavioral"),
    ("why is TokenBucket.refill called twice", "behavioral"),
    ("why was normalize_currency changed to round half up", "causal"),
    ("what is the reason for the grace period in token checks", "causal"),
    ("explain the purpose of the retry jitter", "causal"),
    ("rename the export column header to amount", "change"),
    ("raise the session timeout to two hours", "change"),
    ("add a dry-run flag to the migration script", "change"),
    ("ERR_QUOTA_EXCEEDED", "exact"),
    ("INC-9912 postmortem", "exact"),
    ("KeyDecodeError in the parser", "exact"),
    ("3f9a2c1d7e", "exact"),
    ("services/billing/invoice.py", "exact"),
    ("customers got two confirmation emails after a timeout", "symptom"),
    ("the dashboard kept showing stale totals", "symptom"),
    ("uploads silently dropped on slow networks", "symptom"),
    ("token refresh", "general"),
    ("pagination of the audit log", "general"),
]


@pytest.mark.parametrize(("query", "expected"), CASES)
def test_router_classes(query: str, expected: str) -> None:
    assert classify(query).query_class == expected


def test_route_carries_weights_and_slots() -> None:
    r = classify("raise the session timeout to two hours")
    assert (r.w_bm25, r.w_vec, r.w_graph, r.commit_slots, r.pin) == (1.0, 1.0, 1.3, 0, True)
    r = classify("why was the cache lock added")
    assert (r.commit_slots, r.prefer, r.pin) == (3, "commits", False)
    r = classify("ERR_QUOTA_EXCEEDED", {"exact": 1})
    assert (r.w_bm25, r.w_vec, r.w_graph, r.commit_slots) == (2.0, 0.4, 0.2, 1)
    assert classify("anything", adaptive=False).query_class == "general"


def test_named_identifiers_skip_generic_words() -> None:
    assert named_identifiers("why does TTLCache.set hold the lock in charge_with_retry()") == (
        "TTLCache.set",
        "charge_with_retry",
    )
    assert named_identifiers("why does the cache hold the lock") == ()
    assert named_identifiers("parseOrder and OrderClient") == ("parseOrder", "OrderClient")
