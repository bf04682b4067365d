"""The reranker follows the router: the co-change graph's activation counts in the rerank as much
as the route trusts the graph path."""

from __future__ import annotations

import pytest

from gitstrata.serve.rerank import WEIGHTS
from gitstrata.serve.router import classify
from gitstrata.serve.search import COUPLED_RERANK, rerank_weights


def test_graph_weight_follows_the_routes_trust_in_the_graph_path() -> None:
    lookup = classify("ERR_QUOTA_EXCEEDED")
    assert lookup.query_class == "exact"
    got = rerank_weights(lookup, lookup.w_graph, 1.0)
    assert got["graph"] == pytest.approx(WEIGHTS["graph"] * lookup.w_graph)
    assert {k: v for k, v in got.items() if k != "graph"} == {
        k: v for k, v in WEIGHTS.items() if k != "graph"
    }
    # a route that trusts the graph at least as much as configured keeps the full weight
    general = classify("token refresh")
    assert rerank_weights(general, general.w_graph, 1.0) == WEIGHTS
    # a symptom's route turns the graph off: so does its rerank; so does a graph weight of 0
    symptom = classify("uploads silently dropped on slow networks")
    assert rerank_weights(symptom, symptom.w_graph, 1.0)["graph"] == 0.0
    assert rerank_weights(general, 1.0, 0.0)["graph"] == 0.0
    # a co-change question's answer shares no words with it: the graph's order counts most
    coupled = classify("What else must change with services/billing/invoice.py?")
    assert rerank_weights(coupled, coupled.w_graph, 1.0) is COUPLED_RERANK


@pytest.mark.slow
def test_a_lookup_of_an_error_code_puts_the_code_raising_it_before_its_definition(
    fixture_bench,
) -> None:
    # the error table is a co-change hub; its activation must not lift it over the functions
    # that raise the code
    hits = fixture_bench.strata.engine.search_result("ERR_ORDER_NOT_FOUND", 10).response.hits
    first = [(h.path, h.symbol) for h in hits[:3]]
    assert ("backend/api/errors.py", "<module>") in first
    assert first[:2] == [
        ("backend/orders/service.py", "OrderService.cancel_order"),
        ("backend/api/orders.py", "get_order"),
    ]


@pytest.mark.slow
def test_a_why_question_in_other_words_than_its_commit_takes_the_hybrid_list(
    fixture_bench, monkeypatch
) -> None:
    from gitstrata.serve import search

    engine = fixture_bench.strata.engine
    searcher = engine._state[1]
    cfg = engine.config.retrieval

    def order(question: str) -> list[int]:
        return [r.row for r in searcher.search(question, 10, cfg).ranked]

    own = "Why was the lock-free read path in TTLCache.get reverted?"
    other = "Why are cache reads guarded by a mutex again?"
    got_own, got_other = order(own), order(other)
    with monkeypatch.context() as m:  # BM25's list whatever the question's words
        m.setattr(search, "UNSURE_BLEND", {})
        bm25_own, bm25_other = order(own), order(other)
    with monkeypatch.context() as m:  # the hybrid list whatever the question's words
        m.setitem(search.BASELINE_BLEND, "causal", ("hybrid", *search.BASELINE_BLEND["causal"][1:]))
        m.setattr(search, "UNSURE_BLEND", {})
        hybrid_other = order(other)
    # asked in its commit's words, BM25's first documents hold them: BM25's list stays
    assert got_own == bm25_own
    # asked in other words, none of BM25's first documents holds half of them: the hybrid list
    assert got_other == hybrid_other != bm25_other
