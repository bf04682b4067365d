"""`serve_latency --phases`: each phase of a preflight and a search is timed on the real engine,
on first calls and on questions asked again, and the engine is left exactly as it was."""

from __future__ import annotations

from gitstrata import Strata
from gitstrata.benchmarks.serve_latency import per_call, phase_breakdown, phase_timers
from gitstrata.serve import engine as engine_module
from gitstrata.serve import preflight, safe
from gitstrata.serve.graveyard import Intent

BILLING = "def charge(amount):\n    return amount * 100\n"


def test_phase_breakdown_times_the_phases_and_restores_the_engine(git_repo) -> None:
    git_repo.commit("Add charge in cents", {"app/billing.py": BILLING})
    s = Strata(git_repo.path)
    s.index()
    engine = s.engine
    got = phase_breakdown(engine, [("app/billing.py", "charge", "round it")], ["charge"], rounds=2)
    pre, search = got["preflight (repeated)"], got["search (repeated)"]
    assert pre["total"] > 0 and search["total"] > 0
    for label in ("target lookup, ownership, history, coupling", "search: retrieval",
                  "firewall (every string field)", "memories for the target"):  # fmt: skip
        assert label in pre
    assert "anti-context: search warnings" in search and "  BM25 (Tantivy)" in search
    assert "memories for the target" not in search
    # nothing of the timers stays behind
    assert engine_module.build_preflight is preflight.build_preflight
    assert engine_module.scrub_model is safe.scrub_model
    assert isinstance(vars(Intent)["of"], classmethod)
    assert "_retrieved" not in vars(engine) and "search" not in vars(engine.searcher)
    assert "for_preflight" not in vars(engine.anti)
    assert s.preflight("app/billing.py", "charge").found


def test_first_call_phases_are_the_uncached_work(git_repo) -> None:
    git_repo.commit("Add charge in cents", {"app/billing.py": BILLING})
    s = Strata(git_repo.path)
    s.index()
    engine = s.engine
    target = ("app/billing.py", "charge", "round it")
    with phase_timers(engine) as spent:
        engine.preflight(*target)
        first = per_call(spent, [1.0])
        spent.clear()
        engine.preflight(*target)  # the generation's part of the answer is kept
        again = per_call(spent, [1.0])
    assert first["total"] == again["total"] == 1.0
    assert "target lookup, ownership, history, coupling" in first
    assert "firewall (every string field)" in first and "memories for the target" in first
    assert "target lookup, ownership, history, coupling" not in again
    assert "memories for the target" in again
    assert engine_module.build_preflight is preflight.build_preflight
    with phase_timers(engine, on=False) as spent:
        engine.preflight(*target)
    assert spent == {}
