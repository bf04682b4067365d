"""`serve_latency --phases`: each phase of a preflight and a search is timed on the real engine,
and the engine is left exactly as it was."""

from __future__ import annotations

from gitstrata import Strata
from gitstrata.benchmarks.serve_latency import phase_breakdown
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
    pre, search = got["preflight"], got["search"]
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
