"""What the serving layer keeps between requests is never older than its inputs: a new
generation, a journal append and a memory write are seen by the very next answer."""

from __future__ import annotations

from gitstrata import Strata

BILLING = (
    "def charge(amount):\n    return amount * 100\n\n\ndef refund(amount):\n    return -amount\n"
)
ROUNDED = BILLING.replace("amount * 100", "round(amount * 100)")


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
