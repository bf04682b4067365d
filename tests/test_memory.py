"""Agent memories: writes, dedup, ranking with reinforcement and decay, bad input, staleness."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gitstrata.facade import Strata
from gitstrata.serve.memory import MemoryBook
from gitstrata.serve.memory_rank import opposite, polarity, stem
from gitstrata.serve.render import estimate_tokens
from gitstrata.store.errors import InputError
from gitstrata.store.journal import Journal
from gitstrata.store.memory import STREAM, Memory, strength, validate_memory

T0 = datetime(2026, 1, 1, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, days: float) -> None:
        self.now += timedelta(days=days)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def book(tmp_path: Path, clock: Clock) -> MemoryBook:
    return MemoryBook(tmp_path / ".strata", clock=clock, use_index=False)


def _records(root: Path) -> list[dict]:
    return Journal(root / "journal").read(STREAM).records


def test_remember_appends_one_record_and_recall_finds_it(book: MemoryBook, tmp_path: Path) -> None:
    got = book.remember("We deploy to Fly.io from the main branch", "fact")
    assert got.action == "created"
    recs = _records(tmp_path / ".strata")
    assert [r["op"] for r in recs] == ["add"]
    assert recs[0]["mid"] == got.memory.id
    hits = book.recall("where do we deploy")
    assert [h.memory.id for h in hits] == [got.memory.id]
    assert [r["op"] for r in _records(tmp_path / ".strata")] == ["add", "recall"]
    assert book.get(got.memory.id).recalls == 1


def test_dedup_reinforces_supersedes_and_merges(book: MemoryBook) -> None:
    a = book.remember("The team prefers pytest fixtures over unittest setUp methods", "preference")
    same = book.remember(
        "The team prefers pytest fixtures over unittest setUp methods.", "preference"
    )
    assert same.action == "reinforced" and same.memory.id == a.memory.id
    assert same.similarity >= 0.85
    against = book.remember(
        "The team avoids pytest fixtures and uses unittest setUp methods", "preference"
    )
    assert against.action == "superseded", against.similarity
    assert 0.65 <= against.similarity < 0.85
    old = book.get(a.memory.id)
    assert old.status == "superseded" and old.superseded_by == against.memory.id
    assert book.get(against.memory.id).supersedes == (a.memory.id,)

    b = book.remember("Retries use exponential backoff with jitter for HTTP clients", "decision")
    merged = book.remember(
        "Retries use exponential backoff with jitter for HTTP clients; the cap is five attempts per request",
        "decision",
    )
    assert merged.action == "merged", merged.similarity
    assert merged.memory.id == b.memory.id
    assert "the cap is five attempts" in book.get(b.memory.id).text

    new = book.remember("Invoices are rendered to PDF by a worker", "fact")
    assert new.action == "created" and new.similarity < 0.65


def test_different_anchors_are_different_memories(tmp_path: Path, clock: Clock) -> None:
    repo = tmp_path / "repo"
    (repo / "a").mkdir(parents=True)
    (repo / "a" / "x.py").write_text("def f():\n    pass\n")
    (repo / "a" / "y.py").write_text("def g():\n    pass\n")
    book = MemoryBook(tmp_path / ".strata", repo, clock=clock)
    one = book.remember("Do not cache this result", "pitfall", anchors=["a/x.py"])
    two = book.remember("Do not cache this result", "pitfall", anchors=["a/y.py"])
    assert two.action == "created" and two.memory.id != one.memory.id


def test_polarity() -> None:
    assert polarity("We prefer tabs") == 1
    assert polarity("Avoid tabs") == -1
    assert polarity("Don't avoid tabs") == 1
    assert polarity("The build takes ten minutes") == 0
    assert opposite("Use Redis for sessions", "Never use Redis for sessions")
    assert not opposite("Use Redis", "Use Redis always")
    assert stem("deploys") == stem("deploying") == stem("deployed") == "deploy"


def test_associations_link_neighbours_and_recall_follows_them(book: MemoryBook) -> None:
    idx = book.remember(
        "Database performance: add indexes on foreign keys used in joins", "decision"
    )
    other = book.remember(
        "Slow joins on large tables came from missing foreign key indexes", "pitfall"
    )
    assert idx.memory.id in book.get(other.memory.id).links
    assert other.memory.id in book.get(idx.memory.id).links
    w = book.get(other.memory.id).links[idx.memory.id]
    assert w == pytest.approx(other.similarity * 0.5, abs=1e-3)
    book.remember("Invoices are rendered to PDF by a worker", "fact")
    hits = book.recall("database performance", 5)
    ids = [h.memory.id for h in hits]
    assert ids[0] == idx.memory.id and other.memory.id in ids


def test_a_targets_memories_are_kept_within_the_minute_and_follow_writes_and_time(
    book: MemoryBook, clock: Clock
) -> None:
    ask = ("app/pay.py", "charge", "retry the charge when the card is declined")
    pit = book.remember("Never retry a declined card", "pitfall", anchors=["app/pay.py::charge"])
    first = book.for_target(*ask)
    assert [r.memory.id for r in first] == [pit.memory.id]
    clock.advance(10 / 86400)  # ten seconds: the same minute, the same answer
    again = book.for_target(*ask)
    assert again is not first and again[0] is first[0]
    # a write is seen by the very next question
    dec = book.remember("Charges are integer cents", "decision", anchors=["app/pay.py"])
    after = book.for_target(*ask)
    assert [r.memory.id for r in after] == [pit.memory.id, dec.memory.id]
    # and decay by the clock: three months later the same memories score lower
    clock.advance(90)
    later = book.for_target(*ask)
    assert [r.memory.id for r in later] == [r.memory.id for r in after]
    assert all(b.score < a.score for a, b in zip(after, later, strict=True))


def test_reinforcement_raises_rank_and_decay_lowers_it(book: MemoryBook, clock: Clock) -> None:
    a = book.remember("Payment retries: use idempotency keys on the charge request", "fact")
    b = book.remember(
        "Payment retries: log the idempotency key of every charge", "fact", dedup=False
    )
    first = [h.memory.id for h in book.recall("payment idempotency", 2, reinforce=False)]
    loser = first[1]
    clock.advance(30)
    for _ in range(3):
        book.recall("payment idempotency", 1, reinforce=False)  # reads do not reinforce
    for _ in range(3):  # the trailing one is recalled on its own three times
        hits = book.recall(book.get(loser).text, 1)
        assert hits[0].memory.id == loser
    order = [h.memory.id for h in book.recall("payment idempotency", 2, reinforce=False)]
    assert order[0] == loser
    assert {a.memory.id, b.memory.id} == set(order)
    before = strength(book.get(loser), clock())
    clock.advance(60)
    after = strength(book.get(loser), clock())
    assert after < before
    winner_score = book.recall("payment idempotency", 2, reinforce=False)[0].score
    clock.advance(365)
    assert book.recall("payment idempotency", 2, reinforce=False)[0].score < winner_score


def test_ebbinghaus_strength_formula() -> None:
    m = Memory(id="mabc", kind="pitfall", text="x", importance=0.5, created="2026-01-01T00:00:00Z",
               updated="2026-01-01T00:00:00Z", recalls=2)  # fmt: skip
    now = datetime(2026, 1, 11, tzinfo=UTC)
    lam = 0.35 * (1 - 0.8 * 0.5)
    assert strength(m, now) == pytest.approx(0.5 * 2.718281828 ** (-lam * 10) * 1.4, rel=1e-6)
    d = Memory(id="mdef", kind="decision", text="x", importance=0.5, created=m.created,
               updated=m.updated, recalls=2)  # fmt: skip
    assert strength(d, now) > strength(m, now)  # decisions fade slower than pitfalls


def test_weak_matches_below_a_fifth_of_the_best_are_dropped(book: MemoryBook) -> None:
    book.remember("Kafka consumer lag alerts page the on-call engineer", "fact")
    book.remember("The Kafka cluster has three brokers", "fact")
    book.remember("Lunch is at noon", "fact")
    hits = book.recall("kafka consumer lag alerts", 10, reinforce=False)
    best = hits[0].score
    assert all(h.score >= 0.2 * best for h in hits)
    assert "Lunch is at noon" not in [h.memory.text for h in hits]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda b: b.remember(""), "empty"),
        (lambda b: b.remember("x" * 4001), "4000 characters limit"),
        (lambda b: b.remember("fine", "opinion"), "unknown memory kind"),
        (lambda b: b.remember("fine", status="maybe"), "unknown memory status"),
        (lambda b: b.remember("fine", importance=3), "from 0 to 1"),
        (lambda b: b.remember("fine", anchors=["../etc/passwd"]), "outside the repository"),
        (lambda b: b.remember("fine", anchors=["/etc/passwd"]), "outside the repository"),
        (lambda b: b.forget("mnosuchid"), "unknown memory id"),
        (lambda b: b.update("mnosuchid", text="y"), "unknown memory id"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    book: MemoryBook, tmp_path: Path, call, message
) -> None:
    with pytest.raises(InputError) as err:
        call(book)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert _records(tmp_path / ".strata") == []


def test_forget_and_update_append_records(book: MemoryBook, tmp_path: Path) -> None:
    m = book.remember("Staging deploys nightly", "fact").memory
    book.update(m.id, status="archived", importance=0.9)
    assert book.get(m.id).status == "archived" and book.get(m.id).importance == 0.9
    book.forget(m.id)
    with pytest.raises(InputError):
        book.get(m.id)
    ops = [r["op"] for r in _records(tmp_path / ".strata")]
    assert ops == ["add", "update", "forget"]
    for r in _records(tmp_path / ".strata"):
        validate_memory(r)


def test_consolidation_merges_clusters_prunes_faded_and_keeps_bridges(
    book: MemoryBook, clock: Clock, tmp_path: Path
) -> None:
    a = book.remember("Use black for formatting Python code", "preference", dedup=False)
    b = book.remember("Use black for formatting the Python code here", "preference", dedup=False)
    hub1 = book.remember("Orders service database uses PostgreSQL replicas", "fact", importance=1.0)
    hub2 = book.remember("Replicas of the orders database lag under load", "fact", importance=1.0)
    bridge = book.remember("Orders service database replicas", "session", importance=0.1)
    lone = book.remember(
        "Temporary debugging note about a flaky printer", "session", importance=0.1
    )
    assert {hub1.memory.id, hub2.memory.id} <= set(book.get(bridge.memory.id).links)
    clock.advance(40)
    for _ in range(5):  # the hubs stay strong
        for hub in (hub1, hub2):
            assert book.recall(hub.memory.text, 1)[0].memory.id == hub.memory.id
    n_before = len(_records(tmp_path / ".strata"))
    got = book.consolidate()
    merged_ids = {mid for m in got["merged"] for mid in [m["into"], *m["merged"]]}
    assert {a.memory.id, b.memory.id} <= merged_ids
    assert lone.memory.id in got["pruned"]
    assert bridge.memory.id in got["kept_bridges"]
    assert bridge.memory.id not in got["pruned"]
    recs = _records(tmp_path / ".strata")
    assert len(recs) > n_before and recs[:n_before] == _records(tmp_path / ".strata")[:n_before]
    assert all(r["op"] != "add" or r["mid"] for r in recs)  # nothing removed: only appended
    assert book.last_maintenance() is not None


def _remember_many(root: str, worker: int, n: int) -> None:
    book = MemoryBook(Path(root), use_index=False)
    for i in range(n):
        book.remember(f"worker {worker} note {i} " + "x" * (worker * 7 + i), "session", dedup=False)


def test_concurrent_remember_from_processes_loses_nothing(tmp_path: Path) -> None:
    root = tmp_path / ".strata"
    code = (
        "import sys; from tests.test_memory import _remember_many; "
        "_remember_many(sys.argv[1], int(sys.argv[2]), 15)"
    )
    env_path = str(Path(__file__).resolve().parents[1])
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(root), str(w)], cwd=env_path)
        for w in range(4)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    book = MemoryBook(root, use_index=False)
    assert len(book.live()) == 60
    ids = [r["id"] for r in _records(root)]
    assert sorted(ids) == list(range(1, 61))


def test_strata_api_and_cli_json(git_repo, tmp_path: Path) -> None:
    git_repo.commit("init", {"app/pay.py": "def charge(x):\n    return x\n"})
    s = Strata(git_repo.path)
    got = s.remember("Charges are in integer cents", "decision", anchors=["app/pay.py::charge"])
    assert got.memory.anchors[0].label == "app/pay.py::charge"
    out = subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(git_repo.path), "memory", "search",
         "integer cents", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    data = json.loads(out.stdout)
    assert data[0]["id"] == got.memory.id
    bad = subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(git_repo.path), "memory", "add", "x",
         "--kind", "opinion"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("error: unknown memory kind")


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(repo), *args],
        capture_output=True,
        text=True,
    )


def test_cli_memory_commands_json_context_and_prompt(git_repo) -> None:
    git_repo.commit("init", {"app/pay.py": "def charge(x):\n    return x\n"})
    added = json.loads(_cli(git_repo.path, "memory", "add", "Charges are integer cents",
                            "-k", "decision", "-a", "app/pay.py::charge", "--json").stdout)  # fmt: skip
    mid = added["memory"]["id"]
    assert added["action"] == "created"
    pit = json.loads(_cli(git_repo.path, "memory", "add", "Never retry a declined card",
                          "-k", "pitfall", "-i", "0.9", "--json").stdout)  # fmt: skip
    listed = json.loads(_cli(git_repo.path, "memory", "list", "--json").stdout)
    assert {m["id"] for m in listed} == {mid, pit["memory"]["id"]}
    shown = json.loads(_cli(git_repo.path, "memory", "show", mid[:6], "--json").stdout)
    assert shown["id"] == mid and shown["stale"] == []
    stats = json.loads(_cli(git_repo.path, "memory", "stats", "--json").stdout)
    assert stats["kinds"] == {"decision": 1, "pitfall": 1}
    assert stats["engineering"]["failures"]["by_severity"] == {"critical": 1}
    cons = json.loads(_cli(git_repo.path, "memory", "consolidate", "--dry-run", "--json").stdout)
    assert cons["merged"] == [] and cons["pruned"] == [] and cons["dry_run"] is True
    assert json.loads(_cli(git_repo.path, "memory", "stale", "--json").stdout) == []
    upd = _cli(git_repo.path, "memory", "update", mid, "--status", "archived")
    assert upd.returncode == 0 and "updated" in upd.stdout
    bad = _cli(git_repo.path, "memory", "update", mid, "--status", "maybe")
    assert bad.returncode == 1 and bad.stderr.startswith("error: unknown memory status")
    ctx = _cli(git_repo.path, "context", "--budget", "200")
    assert ctx.returncode == 0 and "## Pitfalls" in ctx.stdout and "Never retry" in ctx.stdout
    s = Strata(git_repo.path)
    for i in range(12):
        s.remember(f"Service number {i} listens on port {8000 + i}", "fact", dedup=False)
    small = _cli(git_repo.path, "context", "--budget", "100").stdout
    large = _cli(git_repo.path, "context", "--budget", "5000").stdout
    assert "left out to fit 100 tokens" in small and "left out" not in large
    assert estimate_tokens(small) <= 100 + small.count("\n") and "port 8011" in large
    prompt = _cli(git_repo.path, "prompt").stdout
    assert "preflight_check" in prompt and "Never retry a declined card" in prompt
    assert "search_causal_history" in prompt and "what calls a function" in prompt
    gone = _cli(git_repo.path, "memory", "forget", mid)
    assert gone.returncode == 0
    again = _cli(git_repo.path, "memory", "show", mid)
    assert again.returncode == 1 and "unknown memory id" in again.stderr


def test_preflight_shows_memories_of_co_change_partners(git_repo) -> None:
    for i in range(3):
        git_repo.commit(f"change both {i}", {"api/schema.py": f"def order():\n    return {i}\n",
                                              "web/form.ts": f"export const v = {i};\n"})  # fmt: skip
    s = Strata(git_repo.path)
    s.index()
    m = s.remember("The form mirrors the order schema field by field", "decision",
                   anchors=["web/form.ts"])  # fmt: skip
    report = s.preflight("api/schema.py", "order")
    assert [x.id for x in report.memories] == [m.memory.id]
    assert report.memories[0].via == "web/form.ts"


def test_preflight_recalls_an_unanchored_decision_by_its_words(git_repo) -> None:
    """A decision anchored nowhere is shown when the target's words recall it; a fact or an
    anchored memory elsewhere is not, whether or not such a decision exists."""
    git_repo.commit("add billing", {"pay/card.py": "def charge_card(card):\n    return card\n"})
    git_repo.commit("add the ledger", {"pay/ledger.py": "X = 1\n"})
    s = Strata(git_repo.path)
    s.index()
    s.remember("Card charges are retried by the queue, never inline", "fact")
    s.remember("Refunds go through the ledger service", "decision", anchors=["pay/ledger.py"])
    ask = ("pay/card.py", "charge_card", "retry the card charge when it is declined")
    assert s.preflight(*ask).memories == []
    m = s.remember("Never retry a declined card charge inline", "decision")
    assert [x.id for x in s.preflight(*ask).memories] == [m.memory.id]
