"""Memories from ADRs, the git history and the team file; staleness on real commits."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime

import pyarrow as pa

from gitstrata.facade import Strata
from gitstrata.serve.memory import MemoryBook
from gitstrata.stages.memory_sources import (
    MAX_SYMBOL_ANCHORS,
    adr_records,
    is_adr_path,
    parse_adr,
)
from gitstrata.store.memory import Memory
from gitstrata.store.memory_team import TeamFile, dumps, parse

NYGARD_1 = """# 1. Record architecture decisions

Date: 2020-01-01

## Status

Superseded by [ADR-0003](0003-use-postgresql.md)

## Context

We need to record the architectural decisions made on this project.

## Decision

We will use Architecture Decision Records, as described by Michael Nygard.

## Consequences

See Michael Nygard's article.
"""

NYGARD_3 = """# 3. Use PostgreSQL for orders

Date: 2021-02-01

## Status

Accepted

Supersedes [ADR-0001](0001-record-architecture-decisions.md)

## Context

Orders need transactions across tables.

## Decision

We use PostgreSQL for the orders service.
"""

MADR_FRONT = """---
status: accepted
date: 2022-03-04
deciders: alice, bob
---
# Use Kafka for domain events

## Context and Problem Statement

How do services publish events?

## Decision Outcome

Chosen option: "Kafka", because it keeps the order of events per key.
"""

MADR_LIST = """# Use MongoDB for the catalog

* Status: superseded by [ADR-0005](0005-use-kafka-for-domain-events.md)
* Deciders: carol
* Date: 2019-05-05

## Context and Problem Statement

Where do we store the product catalog?

## Decision Outcome

Chosen option: "MongoDB", because the catalog is schemaless.
"""

FILES = [
    ("docs/adr/0001-record-architecture-decisions.md", NYGARD_1),
    ("docs/adr/0003-use-postgresql.md", NYGARD_3),
    ("docs/adr/0004-use-mongodb-for-the-catalog.md", MADR_LIST),
    ("docs/adr/0005-use-kafka-for-domain-events.md", MADR_FRONT),
]


def test_adr_parsing_nygard_and_madr() -> None:
    one = parse_adr(*FILES[0])
    assert one is not None
    assert (one.number, one.title, one.status, one.date) == (
        1, "Record architecture decisions", "superseded", "2020-01-01",
    )  # fmt: skip
    assert one.superseded_by == [3] and one.summary.startswith("We will use Architecture")
    three = parse_adr(*FILES[1])
    assert three is not None and three.status == "accepted" and three.supersedes == [1]
    kafka = parse_adr(*FILES[3])
    assert kafka is not None
    assert (kafka.number, kafka.title, kafka.status, kafka.date) == (
        5, "Use Kafka for domain events", "accepted", "2022-03-04",
    )  # fmt: skip
    assert kafka.summary.startswith('Chosen option: "Kafka"')
    mongo = parse_adr(*FILES[2])
    assert mongo is not None and mongo.number == 4 and mongo.status == "superseded"
    assert mongo.superseded_by == [5] and mongo.date == "2019-05-05"
    assert is_adr_path("docs/adr/0001-x.md") and is_adr_path("service/adr/0002-y.md")
    assert not is_adr_path("docs/adr/README.md") and not is_adr_path("docs/guide.md")


def test_adr_records_have_supersede_edges_both_ways() -> None:
    recs = {r["origin"]: r for r in adr_records(FILES, "2023-01-01T00:00:00Z")}
    first, pg = recs[FILES[0][0]], recs[FILES[1][0]]
    mongo, kafka = recs[FILES[2][0]], recs[FILES[3][0]]
    assert first["status"] == "superseded" and first["superseded_by"] == pg["mid"]
    assert pg["supersedes"] == [first["mid"]] and pg["status"] == "active"
    assert mongo["status"] == "superseded" and mongo["superseded_by"] == kafka["mid"]
    assert kafka["supersedes"] == [mongo["mid"]]
    assert pg["kind"] == "decision" and pg["source"] == "adr"
    assert pg["text"].startswith("ADR-0003: Use PostgreSQL for orders.")
    assert pg["created"] == "2021-02-01T00:00:00Z"
    assert adr_records(FILES, "x") == adr_records(list(reversed(FILES)), "x")  # stable ids


def test_index_imports_adrs_git_pitfalls_and_hotspots(git_repo) -> None:
    git_repo.commit("docs: ADRs", dict(FILES))
    git_repo.commit("feat: cache prices", {"app/price.py": "def price(x):\n    return x\n"})
    git_repo.commit("feat: faster prices", {"app/price.py": "def price(x):\n    return x * 1\n"})
    sha = git_repo.git("rev-parse", "HEAD").strip()
    revert = git_repo.commit(
        f'Revert "feat: faster prices"\n\nThis reverts commit {sha}.',
        {"app/price.py": "def price(x):\n    return x\n"},
    )
    git_repo.commit(
        "fix: price rounding again", {"app/price.py": "def price(x):\n    return round(x)\n"}
    )
    s = Strata(git_repo.path)
    s.index()
    by_source: dict[str, list[Memory]] = {}
    for m in s.memory.live():
        by_source.setdefault(m.source, []).append(m)
    assert len(by_source["adr"]) == 4
    pitfalls = sorted(m.text for m in by_source["git"] if m.kind == "pitfall")
    assert len(pitfalls) == 2
    assert pitfalls[0].startswith("Fixed again: fix: price rounding again (in app/price.py)")
    # the undone commit named once, by its own subject, beside the commit that undid it
    assert pitfalls[1].startswith(
        f"Reverted: feat: faster prices ({sha[:10]}), undone by {revert[:10]} (in app/price.py)"
    )
    assert all(
        "candidate" in m.tags and m.importance == 0.2
        for m in by_source["git"]
        if m.kind == "pitfall"
    )
    hits = s.recall("which database for orders", 3, reinforce=False)
    assert hits[0].memory.source == "adr" and "PostgreSQL" in hits[0].memory.text
    # an agent discards a candidate: the forget survives the next index run
    s.forget_memory(next(m.id for m in by_source["git"] if m.kind == "pitfall"))
    s.index()
    assert len([m for m in s.memory.live() if m.source == "git" and m.kind == "pitfall"]) == 1


def _mem(mid: str, text: str, updated: str = "2026-01-02T00:00:00Z") -> Memory:
    return Memory(id=mid, kind="decision", text=text, created="2026-01-01T00:00:00Z",
                  updated=updated, shared=True, tags=("b", "a"))  # fmt: skip


def test_team_file_is_byte_stable_and_sorted(tmp_path) -> None:
    mems = [_mem("mbbb", "Second é"), _mem("maaa", "First")]
    text = dumps(mems)
    assert text.splitlines()[0].startswith('{"created"') and '"id":"maaa"' in text.splitlines()[0]
    again, warnings = parse(text)
    assert warnings == [] and dumps(again) == text
    team = TeamFile(tmp_path / "memories.jsonl")
    for m in mems:
        team.put(m)
    assert (tmp_path / "memories.jsonl").read_text(encoding="utf-8") == text
    team.put(mems[0])
    assert (tmp_path / "memories.jsonl").read_text(encoding="utf-8") == text


def test_conflicted_team_file_reimports_without_loss(tmp_path) -> None:
    base = [_mem("maaa", "Base")]
    ours = dumps([*base, _mem("mccc", "Ours adds this")]).splitlines()
    theirs = dumps([*base, _mem("mddd", "Theirs adds that"),
                    _mem("maaa", "Base, edited", "2026-02-01T00:00:00Z")]).splitlines()  # fmt: skip
    conflicted = "\n".join(["<<<<<<< HEAD", *ours, "=======", *theirs, ">>>>>>> branch"]) + "\n"
    mems, warnings = parse(conflicted)
    assert [m.id for m in mems] == ["maaa", "mccc", "mddd"]
    assert mems[0].text == "Base, edited" and len(warnings) == 3
    # resolved by hand by keeping both sides' lines: the same memories, then canonical bytes
    resolved = "\n".join([*ours, *theirs]) + "\n"
    again, warnings = parse(resolved)
    assert [m.id for m in again] == ["maaa", "mccc", "mddd"] and warnings == []
    path = tmp_path / "memories.jsonl"
    path.write_text(resolved, encoding="utf-8")
    TeamFile(path).rewrite()
    assert path.read_text(encoding="utf-8") == dumps(again)


def test_shared_memories_go_to_the_team_file_and_are_imported_on_index(git_repo, tmp_path) -> None:
    git_repo.commit("init", {"app/a.py": "def f():\n    return 1\n"})
    s = Strata(git_repo.path)
    got = s.remember("Feature flags live in the config service", "decision", share=True)
    team = git_repo.path / ".strata" / "memories.jsonl"
    assert got.memory.id in team.read_text(encoding="utf-8")
    s.index()
    ignored = subprocess.run(["git", "check-ignore", "-q", ".strata/memories.jsonl"],
                             cwd=git_repo.path)  # fmt: skip
    assert ignored.returncode == 1  # not ignored: meant to be committed
    # a teammate's clone: no journal, the team file arrives with the checkout
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(git_repo.path), str(clone)], check=True)
    (clone / ".strata").mkdir()
    (clone / ".strata" / "memories.jsonl").write_bytes(team.read_bytes())
    other = Strata(clone)
    other.index()
    gen = other.store.live()
    assert gen is not None and gen.table("memories")["id"].to_pylist() == [got.memory.id]
    assert other.recall("feature flags", 1)[0].memory.id == got.memory.id
    assert (clone / ".strata" / "memories.jsonl").read_bytes() == team.read_bytes()
    s.forget_memory(got.memory.id)
    assert team.read_text(encoding="utf-8") == ""


BILLING = (
    "def charge(amount):\n    return amount * 100\n\n\ndef refund(amount):\n    return -amount\n"
)


def test_staleness_follows_the_anchored_symbol_not_its_file(git_repo) -> None:
    git_repo.commit("init", {"app/billing.py": BILLING})
    s = Strata(git_repo.path)
    s.index()
    sym = s.remember("Charges are integer cents", "decision", anchors=["app/billing.py::charge"])
    whole = s.remember("Billing has no I/O", "principle", anchors=["app/billing.py"])
    git_repo.commit(
        "Refund takes abs", {"app/billing.py": BILLING.replace("-amount", "-abs(amount)")}
    )
    s.index()
    stale = {m.id: notes for m, notes in s.memory.stale()}
    assert sym.memory.id not in stale
    assert whole.memory.id in stale  # the file changed
    head = git_repo.commit(
        "Charge rounds", {"app/billing.py": BILLING.replace("-amount", "-abs(amount)").replace(
            "amount * 100", "round(amount * 100)")},
    )  # fmt: skip
    s.index()
    stale = {m.id: notes for m, notes in s.memory.stale()}
    assert stale[sym.memory.id][0].commit == head
    assert (
        stale[sym.memory.id][0].text().startswith(f"possibly stale since {head[:10]} Charge rounds")
    )
    hit = s.recall("integer cents", 1)[0]
    assert hit.stale and hit.stale[0].commit == head
    report = s.preflight("app/billing.py", "charge")
    assert report.memories[0].id == sym.memory.id and report.memories[0].stale
    out = subprocess.run([sys.executable, "-m", "gitstrata", "-C", str(git_repo.path), "memory", "stale"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert "possibly stale since" in out.stdout and sym.memory.id in out.stdout
    assert pa is not None


def test_a_renamed_file_is_followed_and_an_unindexed_anchor_starts_at_its_first_commit(
    git_repo,
) -> None:
    git_repo.commit("init", {"app/billing.py": BILLING, "README.md": "x\n"})
    s = Strata(git_repo.path)
    s.index()
    pinned = s.remember("Charges are integer cents", "decision", anchors=["app/billing.py::charge"])
    git_repo.write("app/new.py", "def fresh():\n    return 1\n")  # not committed, not indexed
    # written (by the clock) before the commits that follow, as it would be outside a test
    before = MemoryBook(s.index_dir, git_repo.path, clock=lambda: datetime(2023, 11, 1, tzinfo=UTC))
    early = before.remember("fresh is a placeholder", "fact", anchors=["app/new.py::fresh"])
    assert early.memory.anchors[0].hash is None
    git_repo.git("mv", "app/billing.py", "app/payments.py")
    git_repo.commit("Rename billing to payments")
    s.index()
    assert s.memory.stale() == []  # renamed unchanged; the new file's first commit is no change
    git_repo.commit("Fresh returns two", {"app/new.py": "def fresh():\n    return 2\n"})
    git_repo.commit(
        "Charge rounds",
        {"app/payments.py": BILLING.replace("amount * 100", "round(amount * 100)")},
    )
    s.index()
    stale = {m.id: notes[0] for m, notes in s.memory.stale()}
    assert set(stale) == {pinned.memory.id, early.memory.id}
    assert stale[pinned.memory.id].subject == "Charge rounds"
    assert stale[early.memory.id].subject == "Fresh returns two"


def test_the_hotspot_fact_does_not_depend_on_hash_order() -> None:
    # files changed equally often are listed by path, whatever order the commits come in: the
    # memories artifact must be the same bytes from run to run (the executors' identity test)
    code = (
        "from datetime import UTC, datetime, timedelta\n"
        "import pyarrow as pa\n"
        "from gitstrata.stages.memory_sources import git_records\n"
        "t0 = datetime(2024, 1, 1, tzinfo=UTC)\n"
        "shas = [f'{i:040x}' for i in range(12)]\n"
        "commits = pa.table({'sha': shas, 'commit_time': [t0 + timedelta(hours=i) for i in "
        "range(12)], 'subject': ['feat: step'] * 12, 'intent': ['feature'] * 12, "
        "'reverted_sha': [None] * 12})\n"
        "paths = ['zeta.py', 'alpha.py', 'mid.py']\n"
        "touches = pa.table({'sha': [s for s in shas for _ in paths], "
        "'head_path': [paths[(i + j) % 3] for i in range(12) for j in range(3)]})\n"
        "[fact] = git_records(commits, touches, hotspot_min=1)\n"
        "print(fact['text'])\n"
    )
    texts = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert texts == {
        "Code hotspots (source and test files changed most in the last 12 commits): alpha.py (12), "
        "mid.py (12), zeta.py (12).\n"
    }


def test_hotspots_are_code_files_not_the_changelog_manifest_or_ci() -> None:
    import pyarrow as pa

    from gitstrata.stages.memory_sources import git_records

    shas = [f"{i:040x}" for i in range(10)]
    commits = pa.table({
        "sha": shas, "commit_time": list(range(10)), "subject": ["feat: step"] * 10,
        "intent": ["feature"] * 10, "reverted_sha": [None] * 10,
    })  # fmt: skip
    paths = ["CHANGELOG.md", "package.json", ".github/workflows/ci.yml", "lib/core.js"]
    paths += ["test/core.test.js"]
    touches = pa.table({
        "sha": [s for s in shas for _ in paths], "head_path": [p for _ in shas for p in paths],
    })  # fmt: skip
    [fact] = git_records(commits, touches, hotspot_min=1)
    assert fact["text"].endswith(": lib/core.js (10), test/core.test.js (10).")


def test_a_commits_candidate_follows_the_code_it_changed_not_its_file(git_repo) -> None:
    body = "def {n}(x):\n    return x{k}\n"
    code = "".join(body.format(n=n, k="") for n in ("price", "tax", "fee"))
    git_repo.commit("feat: money", {"app/money.py": code, "web/cart.ts": "export const c = 0;\n"})
    for i in range(3):  # the cart changes with the money module
        git_repo.commit(f"feat: cart {i}", {"web/cart.ts": f"export const c = {i + 1};\n",
                                            "app/money.py": code + f"\nVERSION = {i}\n"})  # fmt: skip
    fast = code.replace("return x\n", "return x * 1\n", 1)  # `price` only
    sha = git_repo.commit("perf: faster price", {"app/money.py": fast + "\nVERSION = 2\n"})
    git_repo.commit(f'Revert "perf: faster price"\n\nThis reverts commit {sha}.',
                    {"app/money.py": code + "\nVERSION = 2\n"})  # fmt: skip
    broad = "".join(body.format(n=n, k=" + 0") for n in ("price", "tax", "fee"))
    git_repo.commit("fix: rounding again", {"app/money.py": broad + "\nVERSION = 2\n"})
    s = Strata(git_repo.path)
    s.index()
    cands = {m.text.split(":")[0]: m for m in s.memory.live() if "candidate" in m.tags}
    # the revert changed `price` alone: it is anchored there
    assert [a.label for a in cands["Reverted"].anchors] == ["app/money.py::price"]
    assert {a.label for a in cands["Fixed again"].anchors} == {
        "app/money.py::price",
        "app/money.py::tax",
        "app/money.py::fee",
    }

    def shown(path: str, symbol: str | None = None) -> list[str]:
        return [m.id for m in s.preflight(path, symbol).memories]

    assert cands["Reverted"].id in shown("app/money.py", "price")
    assert cands["Reverted"].id not in shown("app/money.py", "tax")  # other code of its file
    assert cands["Reverted"].id in shown("app/money.py")  # the whole file
    # not through a co-change partner: the cart is edited with the money module, not its price
    assert not [i for i in shown("web/cart.ts") if i in {m.id for m in cands.values()}]
    # a team's memory on the partner still is
    team = s.remember("Prices are integers of cents", "decision", anchors=["app/money.py"])
    assert team.memory.id in shown("web/cart.ts")


def test_a_candidate_that_changed_many_functions_keeps_its_file(git_repo) -> None:
    many = [f"f{i}" for i in range(MAX_SYMBOL_ANCHORS + 1)]
    code = "".join(f"def {n}(x):\n    return x\n" for n in many)
    git_repo.commit("feat: steps", {"app/steps.py": code})
    git_repo.commit("fix: steps again", {"app/steps.py": code.replace("return x", "return +x")})
    s = Strata(git_repo.path)
    s.index()
    [cand] = [m for m in s.memory.live() if "candidate" in m.tags]
    assert [a.label for a in cand.anchors] == ["app/steps.py"]
    assert cand.id in [m.id for m in s.preflight("app/steps.py").memories]
    assert cand.id not in [m.id for m in s.preflight("app/steps.py", "f1").memories]


def test_a_revert_that_was_itself_reverted_leaves_no_pitfall(git_repo) -> None:
    git_repo.commit("feat: prices", {"app/price.py": "def price(x):\n    return x\n"})
    sha = git_repo.commit("feat: cache", {"app/price.py": "def price(x):\n    return x * 1\n"})
    first = git_repo.commit(
        f'Revert "feat: cache"\n\nThis reverts commit {sha}.',
        {"app/price.py": "def price(x):\n    return x\n"},
    )
    git_repo.commit(
        f'Revert "Revert "feat: cache""\n\nThis reverts commit {first[:12]}.',  # by a prefix
        {"app/price.py": "def price(x):\n    return x * 1\n"},
    )
    git_repo.commit("Revert slower rounding.", {"app/round.py": "def r(x):\n    return x\n"})
    s = Strata(git_repo.path)
    s.index()
    pitfalls = sorted(m.text for m in s.memory.live() if m.kind == "pitfall")
    # the cache is back: neither the revert nor its revert warns; a plain revert still does,
    # named without the sentence's full stop
    assert len(pitfalls) == 1
    assert pitfalls[0].startswith("Reverted: slower rounding, undone by ")


def test_the_hotspots_are_listed_once_and_only_where_asked_for(git_repo) -> None:
    # the index's hotspots fact and the pack's hotspots section say the same: the section (paths
    # at HEAD) stays; ties are in path order in every process
    for i in range(8):  # the fact names files changed by eight commits or more
        git_repo.commit(
            f"feat: step {i}",
            {
                "app/zeta.py": f"def z():\n    return {i}\n",
                "app/alpha.py": f"def a():\n    return {i}\n",
                "app/mid.py": f"def m():\n    return {i}\n",
            },
        )
    s = Strata(git_repo.path)
    s.index()
    assert any(m.source == "git" and "hotspot" in m.tags for m in s.memory.live())
    # asked for, it is recalled; beside a search's hits (whose query names a hotspot), it is not
    assert s.recall("code hotspots", 3, reinforce=False)[0].memory.id == "git-hotspots"
    assert s.search("why does app/alpha.py return the step", 5).memories == []
    packs = {
        subprocess.run(
            [sys.executable, "-m", "gitstrata", "-C", str(git_repo.path), "context"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.split("\n", 1)[1]  # the first line has today's date
        for seed in ("1", "2", "3")
    }
    assert len(packs) == 1
    pack = packs.pop()
    assert "Code hotspots (source and test files" not in pack
    heading = "## Hotspots (code files changed most in the last 500 commits)\n"
    section = pack.split(heading, 1)[1].splitlines()[:3]
    assert section == [
        "- app/alpha.py (8 commits)",
        "- app/mid.py (8 commits)",
        "- app/zeta.py (8 commits)",
    ]
