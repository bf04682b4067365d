"""What the serving layer keeps between requests is never older than its inputs: a new
generation, a journal append and a memory write are seen by the very next answer."""

from __future__ import annotations

from gitstrata import Strata

BILLING = (
    "def charge(amount):\n    return amount * 100\n\n\ndef refund(amount):\n    return -amount\n"
)
ROUNDED = BILLING.replace("amount * 100", "round(amount * 100)")


def _record_int_rounding(s: Strata) -> None:
    """A failed attempt at rounding `charge` with int()."""
    s.record_failure(
        "app/billing.py",
        "-    return round(amount * 100)\n+    return int(amount * 100 + 0.5)\n",
        "AssertionError: charge(0.285) == 28 (expected 29)",
        notes="rounding the charge to whole cents with int() truncates negative amounts",
        symbol_name="charge",
    )


def test_preflight_memory_staleness_follows_generations_and_anchor_edits(git_repo) -> None:
    git_repo.commit("init", {"app/billing.py": BILLING})
    s = Strata(git_repo.path)
    s.index()
    sym = s.remember("Charges are integer cents", "decision", anchors=["app/billing.py::charge"])
    engine = s.engine
    first = s.preflight("app/billing.py", "charge")
    assert [m.id for m in first.memories] == [sym.memory.id]
    assert first.memories[0].stale == []
    # the same answer again comes from what the engine kept: still not stale
    assert s.preflight("app/billing.py", "charge").memories[0].stale == []

    head = git_repo.commit("Charge rounds", {"app/billing.py": ROUNDED})
    s.index()
    again = s.preflight("app/billing.py", "charge")
    assert s.engine is engine  # one engine, swapped to the new generation
    assert len(again.memories[0].stale) == 1
    assert again.memories[0].stale[0].startswith(f"possibly stale since {head[:10]} Charge rounds")

    # anchoring again pins the anchor to the new code: the next answer says it is current
    s.update_memory(sym.memory.id, anchors=["app/billing.py::charge"])
    assert s.preflight("app/billing.py", "charge").memories[0].stale == []

    # a memory written now is in the very next answer, with its own staleness
    other = s.remember(
        "Refunds are negative charges", "pitfall", anchors=["app/billing.py::refund"]
    )
    shown = s.preflight("app/billing.py", "refund").memories
    assert [m.id for m in shown] == [other.memory.id] and shown[0].stale == []


def test_preflight_history_and_warnings_follow_new_commits_and_journal_appends(git_repo) -> None:
    git_repo.commit("init", {"app/billing.py": BILLING})
    s = Strata(git_repo.path)
    s.index()
    intent = "round the charge to whole cents"
    before = s.preflight("app/billing.py", "charge", intent)
    assert [h.commit.subject for h in before.history] == ["init"]
    assert before.warnings == [] and before.past_attempts == []
    assert s.preflight("app/billing.py", "charge", intent).history == before.history

    head = git_repo.commit("Charge rounds to whole cents", {"app/billing.py": ROUNDED})
    s.index()
    after = s.preflight("app/billing.py", "charge", intent)
    assert [h.commit.sha for h in after.history][:1] == [head]
    assert after.history_total == 2 and after.history[0].added >= 1

    # a failure recorded now warns the very next preflight of the same change
    _record_int_rounding(s)
    warned = s.preflight("app/billing.py", "charge", intent)
    assert [w.failure_id for w in warned.warnings + warned.past_attempts]


def test_repeated_questions_reuse_the_generation_part_and_rebuild_the_live_part(git_repo) -> None:
    git_repo.commit("init", {"app/billing.py": BILLING})
    git_repo.commit("Charge in integer cents", {"app/billing.py": ROUNDED})
    s = Strata(git_repo.path)
    s.index()
    first = s.preflight("app/billing.py", "charge", "round the charge")
    again = s.preflight("app/billing.py", "charge", "round the charge")
    fixed = {"latency_ms": 0.0}
    assert again.model_copy(update=fixed) == first.model_copy(update=fixed)
    # each answer owns its lists: a caller trimming one does not change the next
    assert again is not first and again.history is not first.history
    again.history.clear()
    assert s.preflight("app/billing.py", "charge", "round the charge").history == first.history
    assert first.invariants == []

    hit = s.search("integer cents", 5, file_path="app/billing.py")
    repeat = s.search("integer cents", 5, file_path="app/billing.py")
    assert [h.key for h in repeat.hits] == [h.key for h in hit.hits] and hit.hits
    # the repeat is built from the kept part (the same hit models in a list of its own) and its
    # phase report names that part instead of the retrieval phases it skipped
    assert repeat.hits is not hit.hits and repeat.hits[0] is hit.hits[0]
    # (the phases' names only: which work each answer did, never how long it took)
    hit_phases, repeat_phases = set(hit.latency_ms), set(repeat.latency_ms)
    assert {"route", "bm25", "rerank"} <= hit_phases
    assert repeat_phases == {"cached", "anticontext", "total"}

    # a rule recorded now applies to the very next answer to the same question
    s.record_invariant("INV-BILL-1", "app/billing.py", "Charges stay integer cents")
    ruled = s.preflight("app/billing.py", "charge", "round the charge")
    assert [i.id for i in ruled.invariants] == ["INV-BILL-1"]
    assert ruled.history == first.history
    searched = s.search("integer cents", 5, file_path="app/billing.py")
    assert [i.id for i in searched.invariants] == ["INV-BILL-1"]
    assert [h.key for h in searched.hits] == [h.key for h in hit.hits]


def test_warnings_are_kept_per_journal_state_and_rebuilt_when_a_failure_is_recorded(
    git_repo,
) -> None:
    git_repo.commit("init", {"app/billing.py": BILLING})
    git_repo.commit("Charge in integer cents", {"app/billing.py": ROUNDED})
    s = Strata(git_repo.path)
    s.index()
    intent = "round the charge to whole cents"
    _record_int_rounding(s)
    first = s.preflight("app/billing.py", "charge", intent)
    again = s.preflight("app/billing.py", "charge", intent)
    assert [w.failure_id for w in first.warnings] == [1]
    # the same journal state: the warnings matched once are shared, in lists of the answer's own
    assert again.warnings == first.warnings and again.warnings[0] is first.warnings[0]
    assert again.warnings is not first.warnings
    again.warnings.clear()
    assert s.preflight("app/billing.py", "charge", intent).warnings == first.warnings
    hit = s.search("round the charge to whole cents with int", 5)
    assert [w.failure_id for w in hit.warnings] == [1]
    assert s.search("round the charge to whole cents with int", 5).warnings[0] is hit.warnings[0]

    # a second failure changes the journal: the very next answers match again and show it
    s.record_failure(
        "app/billing.py",
        "-    return round(amount * 100)\n+    return math.floor(amount * 100 + 0.5)\n",
        "AssertionError: charge(-0.285) == -29 (expected -28)",
        notes="rounding the charge to whole cents with floor() is wrong for refunds",
        symbol_name="charge",
    )
    later = s.preflight("app/billing.py", "charge", intent)
    assert [w.failure_id for w in later.warnings] == [1, 2]
    searched = s.search("round the charge to whole cents with int", 5)
    assert [w.failure_id for w in searched.warnings] == [1, 2]


def test_a_warm_server_attaches_the_same_why_commits(git_repo) -> None:
    """`warm()` orders every symbol's commits with one sort of the touches; a symbol hit's
    "why" commits are those a process that was not warmed orders one symbol at a time: the
    fixes first, then the newest, commits made in the same second by sha."""
    git_repo.commit("feat: billing", {"app/billing.py": BILLING}, days=1)
    for i, (subject, day) in enumerate(
        [("fix: charge rounds half up", 2), ("feat: charge fees", 3), ("docs: charge", 3),
         ("fix: refund sign", 4), ("perf: charge", 5), ("feat: charge again", 5)]
    ):  # fmt: skip
        body = BILLING.replace("amount * 100", f"amount * 100 + {i}")
        body = body.replace("-amount", f"-amount - {i % 2}")
        git_repo.commit(subject, {"app/billing.py": body}, days=day)
    cold = Strata(git_repo.path)
    cold.index()
    warm = Strata(git_repo.path)
    warm.engine.warm()
    index, searcher, _ = warm.engine._state
    made = index.symbol_commit_orders()
    assert len(made) >= 2
    for symbol_id, order in made.items():
        shas, keys = searcher._symbol_commits(symbol_id)
        assert order == sorted(shas, key=keys.__getitem__)
    for question in ("why does charge round", "refund sign fix", "charge fees"):
        a, b = cold.search(question), warm.search(question)
        assert [h.why for h in a.hits] == [h.why for h in b.hits]
        assert any(h.why for h in a.hits)
