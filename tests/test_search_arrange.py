"""The full engine's last word on the order, on the indexed fixture: a file's own chunk does not
take a place of the first five that one of its file's symbols already points at."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # indexes the whole fixture once

QUESTIONS = (
    "What does classifyGatewayStatus return for an unknown status?",
    "How does the rate limiter estimate a client's requests across two windows?",
    "How does escape_cell quote a formula?",
)


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_files_own_chunk_steps_behind_the_first_five_below_its_symbols(
    fixture_bench, question: str
) -> None:
    hits = fixture_bench.strata.engine.search_result(question, 10).response.hits
    seen: set[str] = set()
    for h in hits[:5]:
        if h.kind != "symbol":
            continue
        assert not (h.symbol == "<module>" and h.path in seen), (h.path, question)
        seen.add(h.path or "")
    # moved, not dropped: each question's file chunk is still among the first ten
    moved = [h for h in hits[5:] if h.kind == "symbol" and h.symbol == "<module>"]
    assert any(h.path in seen for h in moved), question


def test_a_files_own_chunk_above_its_symbols_keeps_its_place(fixture_bench) -> None:
    # a module's own chunk found first may be the answer (its constants, its overview); the
    # route's own order, before the plain list is fused in
    engine = fixture_bench.strata.engine
    cfg = engine.config.retrieval.model_copy(update={"baseline_blend": False})
    hits = engine.search_result(
        "How does the Go reconciler decide a charge has failed?", 10, config=cfg
    ).response.hits
    assert (hits[0].path, hits[0].symbol) == ("worker/internal/payments/reconcile.go", "<module>")


def test_a_named_functions_own_commit_is_attached_right_after_it(fixture_bench) -> None:
    """Its code first, its "why" attached: when none of the named function's own commits made
    the first five, the best ranked of them is brought in right after the function."""
    engine = fixture_bench.strata.engine
    resp = engine.search_result("Why does issue_token give each token a not-before claim?", 10)
    hits = resp.response.hits
    assert resp.response.query_class == "behavioral"
    assert (hits[0].symbol, hits[0].pinned) == ("issue_token", True)
    own = {t["sha"] for t in engine.index.touches_by_symbol.get(hits[0].key, [])}
    assert hits[1].kind == "commit" and hits[1].key in own


def test_a_plain_list_is_fused_in_unless_the_question_names_its_co_change_file(
    fixture_bench,
) -> None:
    """A route the router may have read wrongly keeps what plain retrieval found; a co-change
    question that names its file is sure of its anchor and keeps the graph's order."""
    engine = fixture_bench.strata.engine
    on = engine.config.retrieval
    off = on.model_copy(update={"baseline_blend": False})

    def order(question: str, cfg) -> list[tuple[str | None, str | None]]:
        hits = engine.search_result(question, 10, config=cfg).response.hits
        return [(h.kind, h.key) for h in hits]

    named = "Which files usually change together with backend/payments/refunds.py?"
    assert engine.search_result(named, 10).response.query_class == "coupled"
    assert order(named, on) == order(named, off)
    unsure = "refund e-mail template amount"
    assert engine.search_result(unsure, 10).response.query_class == "general"
    assert order(unsure, on) != order(unsure, off)


def test_the_commit_budget_does_not_hand_a_files_chunk_its_place_back(fixture_bench) -> None:
    """A co-change answer holds no commit in its first five: when a commit there gives way, the
    result that moves up is the next one, not the file chunk that stepped behind its symbols."""
    from gitstrata.benchmarks.dataset import queries

    engine = fixture_bench.strata.engine
    for q in queries("dev"):
        resp = engine.search_result(q.text, 10, file_path=q.file_filter)
        hits = resp.response.hits[:5]
        cap = engine.config.retrieval.commit_slots.get(resp.response.query_class)
        seen: set[str] = set()
        for h in hits:
            if h.kind != "symbol":
                continue
            assert not (h.symbol == "<module>" and h.path in seen), (h.path, q.id)
            seen.add(h.path or "")
        if resp.response.query_class == "coupled" and cap == 0:
            assert not [h for h in hits if h.kind == "commit"], q.id
