"""Memories folded into the index: documents, search, the live state's filter, determinism."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from gitstrata.facade import Strata
from gitstrata.stages.documents import memory_records
from gitstrata.store.generations import Store
from gitstrata.store.memory_team import TeamFile

BILLING = """def charge(amount):
    return amount * 100


def refund(amount):
    return -amount
"""

DECISION = "Money is stored as integer cents, never as floating point numbers"
SECRET = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture
def strata(git_repo) -> Strata:
    git_repo.commit("add billing", {"app/billing.py": BILLING, "README.md": "shop\n"})
    s = Strata(git_repo.path)
    s.index()
    return s


def _memory_docs(s: Strata) -> dict[str, dict]:
    gen = Store(s.index_dir).require_live()
    rows = gen.table("documents").to_pylist()
    return {r["doc_id"]: r for r in rows if r["kind"] == "memory"}


def _bm25_memory_keys(s: Strata, query: str) -> list[str]:
    return [h.key for h in s.search(query, mode="bm25").hits if h.kind == "memory"]


def test_remembered_then_indexed_memory_is_a_document_found_by_search(strata: Strata) -> None:
    mid = strata.remember(DECISION, "decision", anchors=["app/billing.py::charge"]).memory.id
    assert _memory_docs(strata) == {}  # not indexed yet: served from the overlay only
    assert [m.id for m in strata.search("integer cents floating point").memories] == [mid]

    report = strata.index()
    assert not report.up_to_date
    assert report.stage("documents").stats["by_kind"]["memory"] >= 1
    doc = _memory_docs(strata)[f"memory:{mid}"]
    assert doc["title"] == f"decision: {DECISION}"
    assert (doc["path"], doc["qualname"], doc["paths"]) == (
        "app/billing.py", "charge", ["app/billing.py"],
    )  # fmt: skip

    full = strata.search("integer cents floating point")
    assert [(m.id, m.kind, m.text) for m in full.memories][:1] == [(mid, "decision", DECISION)]
    hits = strata.search("integer cents floating point", mode="bm25").hits
    assert hits[0].kind == "memory" and hits[0].key == mid
    assert hits[0].title == f"decision: {DECISION}"

    # recall scores the indexed memory with the index's stored vector
    book = strata.memory
    idx = book.index_memories()
    assert idx is not None and idx.row(book.get(mid)) is not None
    assert set(book._index_cosines("integer cents", [book.get(mid)])) == {0}


def test_a_search_shows_a_memory_only_when_close_to_the_question(strata: Strata) -> None:
    """Beside a search's hits, a memory that shares one common word with the question (the
    best of a small pool by recall's relative ranking) is not shown; one about it is."""
    pitfall = (
        "Charging twice: the retry loop resent the charge. Check why before changing this code."
    )
    mid = strata.remember(pitfall, "pitfall", anchors=["app/billing.py::charge"]).memory.id
    for _ in range(2):  # served from the journal, then from the index
        assert mid in [m.id for m in strata.search("retry loop resent the charge twice").memories]
        assert strata.search("render the code of the README banner").memories == []
        strata.index()


def test_forgotten_or_superseded_memory_is_not_served_before_reindex(strata: Strata) -> None:
    keep = strata.remember("Deploys go out on Tuesdays through the release train", "decision")
    gone = strata.remember(DECISION, "decision")
    strata.index()
    assert _bm25_memory_keys(strata, "integer cents floating") == [gone.memory.id]

    strata.forget_memory(gone.memory.id)
    assert f"memory:{gone.memory.id}" in _memory_docs(strata)  # the index still holds it
    assert _bm25_memory_keys(strata, "integer cents floating") == []
    assert gone.memory.id not in [m.id for m in strata.search("integer cents floating").memories]
    recalled = strata.recall("integer cents floating", reinforce=False)
    assert gone.memory.id not in [r.memory.id for r in recalled]

    strata.update_memory(keep.memory.id, status="archived")
    assert _bm25_memory_keys(strata, "Tuesdays release train") == []

    strata.index()  # the next run leaves both out of the documents
    docs = _memory_docs(strata)
    assert f"memory:{gone.memory.id}" not in docs and f"memory:{keep.memory.id}" not in docs


def test_changed_memory_shows_its_text_of_now_and_is_embedded_again(strata: Strata) -> None:
    mid = strata.remember(DECISION, "decision").memory.id
    strata.index()
    strata.update_memory(mid, text="Money is stored as integer cents in every service")
    hits = strata.search("integer cents", mode="bm25").hits
    assert [h.snippet for h in hits if h.kind == "memory"] == [
        "Money is stored as integer cents in every service"
    ]
    book = strata.memory
    idx = book.index_memories()
    assert idx is not None and idx.row(book.get(mid)) is None  # the old vector is not used


def test_memory_documents_are_redacted(strata: Strata) -> None:
    mid = strata.remember(f"The staging token is {SECRET} and rotates monthly", "fact").memory.id
    strata.index()
    doc = _memory_docs(strata)[f"memory:{mid}"]
    assert SECRET not in doc["title"] and SECRET not in doc["body"]
    assert "[REDACTED:" in doc["body"]
    shown = strata.search("staging token rotates", mode="bm25").hits
    assert shown and all(SECRET not in h.title + h.snippet for h in shown)
    assert all(SECRET not in m.text for m in strata.search("staging token rotates").memories)


def test_team_file_change_reindexes_documents(strata: Strata, git_repo) -> None:
    assert strata.index().up_to_date
    shared = strata.remember("Feature flags live in config/flags.toml", "fact", share=True).memory
    assert (strata.index_dir / "memories.jsonl").is_file()
    strata.index()
    assert f"memory:{shared.id}" in _memory_docs(strata)
    assert strata.index().up_to_date

    # a teammate's memory arrives through the committed team file alone
    team = TeamFile(strata.index_dir / "memories.jsonl")
    mem = strata.memory.get(shared.id)
    mem.id, mem.text = "mteammate01", "Releases are tagged by the CI job, never by hand"
    team.put(mem)
    report = strata.index()
    assert not report.stage("memories").skipped and not report.stage("documents").skipped
    assert "memory:mteammate01" in _memory_docs(strata)


def test_documents_with_memories_are_byte_identical_run_to_run(strata: Strata) -> None:
    strata.remember(DECISION, "decision", anchors=["app/billing.py::charge"])
    strata.remember("Refunds are negative amounts", "fact", anchors=["app/billing.py"])
    first = strata.index()
    second = strata.index(rebuild=True)
    assert first.generation != second.generation
    assert not second.stage("documents").skipped

    def digest(path, name: str) -> str:
        return hashlib.sha256((path / name).read_bytes()).hexdigest()

    for name in ("documents.parquet", "docmeta.arrow", "memories.parquet"):
        assert digest(first.path, name) == digest(second.path, name), name


def test_memory_records_fold_the_journal_over_imports() -> None:
    imported = [
        '{"op": "add", "mid": "adr-0001", "kind": "decision", "text": "Use PostgreSQL",'
        ' "source": "adr", "created": "2024-01-01T00:00:00Z"}'
    ]
    journal = [
        {"op": "add", "mid": "mabc1234", "kind": "pitfall", "text": "Never retry a charge",
         "ts": "2024-02-01T00:00:00Z"},
        {"op": "forget", "mid": "adr-0001", "ts": "2024-03-01T00:00:00Z"},
        {"op": "update", "mid": "mabc1234", "fields": {"tags": ["payments"]},
         "ts": "2024-03-02T00:00:00Z"},
    ]  # fmt: skip
    recs = memory_records(imported, journal, lambda t: t.upper())
    assert [(r["kind"], r["key"], r["title"]) for r in recs] == [
        ("memory", "mabc1234", "PITFALL: NEVER RETRY A CHARGE")
    ]
    assert recs[0]["body"] == "NEVER RETRY A CHARGE\nPAYMENTS"


def test_query_table_prints_memories(strata: Strata, git_repo) -> None:
    mid = strata.remember(DECISION, "decision", anchors=["app/billing.py::charge"]).memory.id
    out = subprocess.run(
        [sys.executable, "-m", "gitstrata", "query", "integer cents floating point"],
        cwd=git_repo.path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "memories:" in out
    line = next(ln for ln in out.splitlines() if mid in ln)
    assert line.strip().startswith(f"decision {mid} [app/billing.py::charge]: Money is stored")


def test_memory_documents_read_alike_from_the_mapped_copy_and_from_parquet(
    strata: Strata, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitstrata.serve.memory_index import _memory_documents
    from gitstrata.store.generations import Generation

    a = strata.remember(DECISION, "decision").memory.id
    b = strata.remember("Deploys go out on Tuesdays through the release train", "decision")
    strata.index()
    path = Store(strata.index_dir).require_live().path
    monkeypatch.setenv("GITSTRATA_MAPPED_COPIES", "off")
    plain = _memory_documents(Generation.open(path))
    assert {row[1] for row in plain} == {f"memory:{a}", f"memory:{b.memory.id}"}
    monkeypatch.delenv("GITSTRATA_MAPPED_COPIES")
    served = Generation.open(path).share()
    served.table("documents", columns=["kind"])  # the first served read makes the copy
    assert served.mapped_table("documents") is not None
    assert _memory_documents(Generation.open(path)) == plain
