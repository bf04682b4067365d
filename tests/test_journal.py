"""The journal: durable appends, concurrent writers, torn lines, tombstones."""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.store.journal import Journal


def test_append_assigns_ids_and_reads_back(tmp_path: Path) -> None:
    j = Journal(tmp_path / "journal")
    a = j.append("failures", {"file_path": "a.py", "note": "x"})
    b = j.append("failures", {"file_path": "b.py"})
    assert (a["id"], b["id"]) == (1, 2)
    got = j.read("failures")
    assert [r["file_path"] for r in got.records] == ["a.py", "b.py"]
    assert got.warnings == []


def test_forget_appends_a_tombstone(tmp_path: Path) -> None:
    j = Journal(tmp_path)
    j.append("memories", {"text": "keep"})
    j.append("memories", {"text": "drop"})
    j.append("memories", {"op": "forget", "target": 2})
    assert [r["text"] for r in j.live("memories").records] == ["keep"]
    assert len(j.read("memories").records) == 3  # nothing rewritten


def test_torn_last_line_is_skipped_and_next_append_is_clean(tmp_path: Path) -> None:
    j = Journal(tmp_path)
    j.append("failures", {"n": 1})
    j.append("failures", {"n": 2})
    with open(j.path("failures"), "ab") as fh:
        fh.write(b'{"id": 3, "n": ')  # crash mid-write
    got = j.read("failures")
    assert [r["n"] for r in got.records] == [1, 2]
    assert got.warnings == ["failures.jsonl: skipped an incomplete last line"]
    rec = j.append("failures", {"n": 4})
    assert rec["id"] == 3
    lines = j.path("failures").read_bytes().split(b"\n")
    assert json.loads(lines[3]) == rec


def _writer(root: str, worker: int, count: int) -> None:
    j = Journal(Path(root))
    for i in range(count):
        j.append("failures", {"worker": worker, "i": i, "pad": "x" * 5000})


def test_concurrent_appends_from_processes(tmp_path: Path) -> None:
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, 25)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    got = Journal(tmp_path).read("failures")
    assert got.warnings == []
    assert len(got.records) == 100
    assert sorted(r["id"] for r in got.records) == list(range(1, 101))
    for w in range(4):
        assert [r["i"] for r in got.records if r["worker"] == w] == list(range(25))


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.text(min_size=1, max_size=8).filter(lambda k: k not in ("id", "ts")),
            st.text(max_size=30) | st.integers(),
            max_size=4,
        ),
        max_size=8,
    )
)
def test_roundtrip_property(tmp_path_factory, records) -> None:
    j = Journal(tmp_path_factory.mktemp("j"))
    written = [j.append("memories", r) for r in records]
    assert j.read("memories").records == written
