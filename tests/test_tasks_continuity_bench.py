"""The continuity benchmark's order is guarded: SELECTIVE beats FULL and NONE on the composite
(at the benchmark's reading budget), never loses to FULL when the budget is unbounded, and is
smaller than FULL. Scores are deterministic; the benchmark runs through `Strata.tasks` on real
repositories, so a change that degrades restores fails here."""

from __future__ import annotations

import pytest

from gitstrata.benchmarks import continuity

pytestmark = pytest.mark.slow  # 24 scenarios, each in its own git repository


@pytest.fixture(scope="module")
def result() -> dict:
    return continuity.run(runs=1)


def test_there_are_at_least_twenty_scenarios_over_every_interruption_kind(result) -> None:
    kinds = {sc.kind for sc in continuity.scenarios()}
    assert result["summary"]["scenarios"] >= 20
    assert kinds == {
        "SIGTERM", "crash", "context overflow", "tool timeout", "branch switch", "goal change",
        "workspace wipe", "retry storm", "handoff", "multi-day pause",
    }  # fmt: skip


def test_selective_beats_full_and_none(result) -> None:
    bounded = result["summary"][f"budget_{continuity.BUDGET}"]
    assert bounded["SELECTIVE"]["composite"] > bounded["FULL"]["composite"]
    assert bounded["SELECTIVE"]["composite"] > bounded["NONE"]["composite"]
    unbounded = result["summary"]["unbounded"]
    assert unbounded["SELECTIVE"]["composite"] >= unbounded["FULL"]["composite"]
    # every must_not_redo item is kept: no forbidden action is repeated after a SELECTIVE restore
    assert bounded["SELECTIVE"]["redundant"] == 1.0
    size = result["summary"]["size"]
    assert size["SELECTIVE"]["tokens_median"] < size["FULL"]["tokens_median"]


def test_full_packages_carry_stale_entries_and_selective_none(result) -> None:
    rows = result["rows"]
    assert all(r["stale_entries"] == 0 for r in rows if r["mode"] == "SELECTIVE")
    assert sum(r["stale_entries"] for r in rows if r["mode"] == "FULL") > 0


def test_the_reader_stops_at_its_budget() -> None:
    text = "\n".join(["goal: a", *(f"history: #{i} progress x{i}: done 100%" for i in range(50))])
    got = continuity.read(text + "\ngoal: b", 40)
    assert got["goals"] == ["a"] and got["tokens_read"] <= 40
    assert continuity.read(text + "\ngoal: b", None)["goals"] == ["a", "b"]
