"""The journal: durable appends, concurrent writers, torn lines, tombstones, and lines of any
shape that are skipped, kept and reported without stopping a reader or a writer."""

from __future__ import annotations

import json
import multiprocessing as mp
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitstrata.serve.failures import build_failure_record
from gitstrata.store.attempts import Attempt, append_failure, load_failures, read_failures
from gitstrata.store.journal import Journal
from gitstrata.store.journal_health import journal_health


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


# ---------------------------------------------------------------- lines that do not fit

REPRO = b'{"id":9999,"fingerprint":"a","targets":"x"}'
TS = '"ts":"2026-01-01T00:00:00Z"'
# (line, why every reader must skip it)
ODD_LINES = [
    (REPRO, "no ts"),
    (b"[1, 2, 3]", "not a JSON object"),
    (b'"just text"', "not a JSON object"),
    (b"\xff\xfe not utf-8 {", "not valid JSON"),
    (b"{" * 5 + b"}" * 5, "not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),  # nested past the parser's depth
    (b'{"id":"7",' + TS.encode() + b"}", "id is not a positive integer"),
    (b'{"id":-4,' + TS.encode() + b"}", "id is not a positive integer"),
    (b'{"id":true,' + TS.encode() + b"}", "id is not a positive integer"),
    (b'{"id":1000000000000000000000000000,' + TS.encode() + b"}", "id is not a positive integer"),
    (b'{"id":30,"ts":5}', "ts is not text"),
    (b'{"id":31,' + TS.encode() + b',"fingerprint":"a","targets":"x"}', "targets is not a list"),
    (b'{"id":32,' + TS.encode() + b',"fingerprint":"a"}', "a failed attempt without targets"),
    (b'{"id":33,' + TS.encode() + b',"targets":[]}', "a failed attempt without a fingerprint"),
    (
        b'{"id":34,' + TS.encode() + b',"fingerprint":"a","targets":[{"path":7}]}',
        "targets holds an entry that is not {path, qualname}",
    ),
    (
        b'{"id":35,' + TS.encode() + b',"fingerprint":"a","targets":[],"signature":{"errors":"x"}}',
        "signature.errors is not a list of text",
    ),
    (
        b'{"id":36,' + TS.encode() + b',"fingerprint":"a","targets":[],"exit_code":"1"}',
        "exit_code is not an integer or null",
    ),
    (
        b'{"id":37,' + TS.encode() + b',"fingerprint":"a","targets":[],"kind":"memory"}',
        'kind is "memory", not failed_attempt',
    ),
    (
        b'{"id":38,' + TS.encode() + b',"op":"occurrence","target":"1"}',
        "an occurrence without the id of its failed attempt",
    ),
    (
        b'{"id":39,' + TS.encode() + b',"op":"forget","target":[1]}',
        "a tombstone without a failed attempt id or revert:<sha>",
    ),
    (b'{"id":40,' + TS.encode() + b',"op":"rewrite"}', 'unknown op "rewrite"'),
    (
        b'{"id":1,' + TS.encode() + b',"fingerprint":"b","targets":[]}',
        "id 1 used by an earlier line",
    ),
]


def attempt_record(n: int) -> dict:
    diff = f"@@ -1 +1 @@\n-limit = 1\n+limit = {n}\n"
    trace = "FAILED tests/test_limit.py::test_limit - AssertionError"
    return build_failure_record(Attempt("limits.py", diff, trace, notes=f"try {n}", exit_code=1))


def test_no_single_line_breaks_readers_or_writers(tmp_path: Path) -> None:
    j = Journal(tmp_path)
    append_failure(j, attempt_record(1))
    path = j.path("failures")
    with path.open("ab") as fh:
        for line, _ in ODD_LINES:
            fh.write(line + b"\n")
    before = path.read_bytes()

    failures, skipped = read_failures(j)
    assert [f.id for f in failures] == [1]
    assert [(s.line, s.reason) for s in skipped] == [
        (n, why) for n, (_, why) in enumerate(ODD_LINES, start=2)
    ]
    # writes go on, with ids past every id seen, and the odd lines stay byte for byte
    second = append_failure(j, attempt_record(2))
    again = append_failure(j, attempt_record(1))
    assert second["id"] == 10_000 and again["op"] == "occurrence" and again["target"] == 1
    assert path.read_bytes().startswith(before)
    assert [(f.id, f.occurrences) for f in load_failures(j)] == [(1, 2), (10_000, 1)]

    health = journal_health(tmp_path)
    assert (health.records, len(health.skipped)) == (3, len(ODD_LINES))
    assert [s["line"] for s in health.to_dict()["skipped_lines"]] == list(
        range(2, 2 + len(ODD_LINES))
    )
    notice = health.notice() or ""
    assert notice.startswith(f"journal: {len(ODD_LINES)} unreadable lines skipped")
    assert "failures.jsonl lines 2, 3, 4, 5, 6 and 17 more" in notice


def test_a_journal_of_nothing_but_odd_lines_still_takes_records(tmp_path: Path) -> None:
    j = Journal(tmp_path)
    j.root.mkdir(exist_ok=True)
    j.path("failures").write_bytes(REPRO)  # no newline either
    assert read_failures(j)[0] == []
    rec = append_failure(j, attempt_record(3))
    assert rec["id"] == 10_000
    assert j.path("failures").read_bytes().split(b"\n")[:2] == [REPRO, json_line(rec)]


def json_line(rec: dict) -> bytes:
    return json.dumps(rec, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def test_next_id_survives_a_lost_stale_or_damaged_sidecar(tmp_path: Path) -> None:
    j = Journal(tmp_path)
    for n in range(3):
        j.append("memories", {"n": n})
    tail = tmp_path / ".memories.tail"
    assert tail.exists()
    tail.unlink()  # lost
    assert j.append("memories", {"n": 3})["id"] == 4
    with j.path("memories").open("ab") as fh:  # written by something else: stale
        fh.write(b'{"id":41,"ts":"t","n":"other"}\n')
    assert j.append("memories", {"n": 4})["id"] == 42
    # torn in place, or a checksum that does not hold: recovered by a scan all the same
    tail.write_bytes(tail.read_bytes()[:25] + b"9" * 20)
    assert j.append("memories", {"n": 5})["id"] == 43
    size = j.path("memories").stat().st_size
    body = f"{size:020d} {1:020d}"
    tail.write_text(f"{body} 0000000000\n")
    assert j.append("memories", {"n": 6})["id"] == 44
    got = j.read("memories")
    assert got.skipped == [] and [r["id"] for r in got.records] == [1, 2, 3, 4, 41, 42, 43, 44]


def test_append_reads_no_old_line(tmp_path: Path) -> None:
    # with its sidecar in place an append never parses the file: unreadable bytes before the
    # end cannot slow it down or stop it (they would fail any parse)
    j = Journal(tmp_path)
    j.append("memories", {"n": 0})
    with j.path("memories").open("r+b") as fh:
        fh.write(b"\xff" * 5)  # same size, damaged in place
    assert j.append("memories", {"n": 1})["id"] == 2
    got = j.read("memories")
    assert [r["n"] for r in got.records] == [1]
    assert [str(s) for s in got.skipped] == ["memories.jsonl: skipped line 1 (not valid JSON)"]


APPENDER = """
import sys
from pathlib import Path
from gitstrata.serve.failures import build_failure_record
from gitstrata.store.attempts import Attempt, append_failure
from gitstrata.store.journal import Journal
root, worker, n = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
j = Journal(root)
for i in range(n):
    if i % 2:
        j.append("failures", {"op": "forget", "target": 10**9 + worker * 1000 + i})
        continue
    diff = f"@@ -1 +1 @@\\n-x = 0\\n+x = {worker * 1000 + i}\\n" + "+pad\\n" * 200
    rec = build_failure_record(Attempt("x.py", diff, "FAILED tests/t.py::test_x", exit_code=1))
    append_failure(j, rec)
"""


def test_processes_appending_at_once_lose_nothing_and_tear_no_line(tmp_path: Path) -> None:
    root = tmp_path / "journal"
    root.mkdir()
    (root / "failures.jsonl").write_bytes(REPRO + b"\n")
    workers, per = 6, 40
    procs = [
        subprocess.Popen([sys.executable, "-c", APPENDER, str(root), str(w), str(per)])
        for w in range(workers)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0] * workers
    lines = (root / "failures.jsonl").read_bytes().split(b"\n")
    assert lines[0] == REPRO and lines[-1] == b""
    records = [json.loads(line) for line in lines[1:-1]]  # every line whole
    assert len(records) == workers * per
    assert sorted(r["id"] for r in records) == list(range(10_000, 10_000 + workers * per))
    failures, skipped = read_failures(Journal(root))
    assert [s.line for s in skipped] == [1]
    # every attempt differs in its diff: a record each, no occurrence
    assert len(failures) == workers * per // 2
    assert {f.occurrences for f in failures} == {1}


# ---------------------------------------------------------------- through the CLI


def gitstrata(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def changed_repo(git_repo):
    git_repo.commit("feat: limits", {"limits.py": "limit = 1\n"})
    git_repo.write("limits.py", "limit = 2\n")  # the attempt exec records
    return git_repo


def poison(repo: Path) -> Path:
    journal = repo / ".strata" / "journal"
    journal.mkdir(parents=True, exist_ok=True)
    (journal / "failures.jsonl").write_bytes(REPRO + b"\n")
    return journal


EXIT_7 = ["exec", "--", "sh", "-c", "echo FAILED tests/t.py::test_limit; exit 7"]


def test_exec_returns_the_wrapped_code_with_an_odd_line_in_the_journal(changed_repo) -> None:
    journal = poison(changed_repo.path)
    done = gitstrata(changed_repo.path, *EXIT_7)
    assert done.returncode == 7, done.stderr
    assert "recorded failed attempt #10000 (exit 7)" in done.stderr
    assert "Traceback" not in done.stderr
    assert (journal / "failures.jsonl").read_bytes().startswith(REPRO + b"\n")


@pytest.mark.parametrize(
    "damage",
    ["journal is a file", "stream is a folder", "sidecar is a folder", "config is broken"],
)
def test_exec_returns_the_wrapped_code_whatever_is_broken(changed_repo, damage) -> None:
    strata = changed_repo.path / ".strata"
    strata.mkdir()
    if damage == "journal is a file":
        (strata / "journal").write_text("not a folder\n")
    elif damage == "stream is a folder":
        (strata / "journal" / "failures.jsonl").mkdir(parents=True)
    elif damage == "sidecar is a folder":
        (strata / "journal" / ".failures.tail").mkdir(parents=True)
    else:
        (strata / "config.json").write_text("{ not json")
    done = gitstrata(changed_repo.path, *EXIT_7)
    assert done.returncode == 7, done.stderr
    assert "Traceback" not in done.stderr
    recorded = damage in ("sidecar is a folder", "config is broken")
    assert ("recorded failed attempt #1 (exit 7)" in done.stderr) is recorded, done.stderr
    assert ("could not record the failed attempt" in done.stderr) is not recorded
    assert gitstrata(changed_repo.path, "exec", "--", "true").returncode == 0


def test_readers_warn_in_one_line_and_doctor_and_status_name_the_lines(changed_repo) -> None:
    repo = changed_repo.path
    assert gitstrata(repo, *EXIT_7).returncode == 7
    clean = gitstrata(repo, "doctor", "--json")
    assert clean.returncode == 0, clean.stdout
    journal = repo / ".strata" / "journal" / "failures.jsonl"
    with journal.open("ab") as fh:
        fh.write(b"\xff garbage\n" + REPRO + b"\n")

    listed = gitstrata(repo, "graveyard")
    assert listed.returncode == 0
    warning = (
        "warning: journal: 2 unreadable lines skipped (failures.jsonl lines 2, 3); kept in the "
        "file as they are, `gitstrata doctor` says why\n"
    )
    assert listed.stderr == warning
    assert gitstrata(repo, "graveyard", "show", "1").stderr == warning

    doctor = gitstrata(repo, "doctor", "--json")
    assert doctor.returncode == 1
    got = json.loads(doctor.stdout)
    [check] = [c for c in got["checks"] if c["check"] == "journal"]
    assert check["ok"] is False
    assert check["details"] == [
        "failures.jsonl: skipped line 2 (not valid JSON)",
        "failures.jsonl: skipped line 3 (no ts)",
    ]
    text = gitstrata(repo, "doctor")
    assert text.returncode == 1 and "FAIL  journal: 1 records; 2 lines skipped" in text.stdout

    indexed = gitstrata(repo, "index", "--quiet")
    assert indexed.returncode == 0 and indexed.stderr == warning
    status = gitstrata(repo, "status", "--json")
    assert status.returncode == 0
    assert json.loads(status.stdout)["journal"] == {
        "records": 1,
        "skipped": 2,
        "skipped_lines": [
            {"file": "failures.jsonl", "line": 2, "reason": "not valid JSON"},
            {"file": "failures.jsonl", "line": 3, "reason": "no ts"},
        ],
        "error": None,
    }
    assert "2 unreadable line(s) skipped" in gitstrata(repo, "status").stdout
    for args in (("preflight", "limits.py"), ("query", "limit")):
        assert gitstrata(repo, *args).stderr == warning
    assert journal.read_bytes().count(REPRO) == 1  # nothing rewritten


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from([b"", b"ab", b"x", b"needle", b"a needle b", b"{", b"\xff"]), max_size=12
    ),
    st.booleans(),
)
def test_picking_lines_by_bytes_numbers_them_as_a_full_read_does(lines, newline_at_end) -> None:
    from gitstrata.store.journal import pick_lines

    data = b"\n".join(lines) + (b"\n" if newline_at_end and lines else b"")
    split = data.split(b"\n")
    last = len(split) - 1 if split[-1] == b"" else len(split)
    want = [(n, raw, n == last) for n, raw in enumerate(split, 1) if b"needle" in raw]
    assert pick_lines(data, [b"needle", b"dle"]) == want


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=40), st.booleans()), min_size=1, max_size=8))
def test_any_bytes_written_between_appends_stay_and_never_cost_a_record(tmp_path_factory, junk):
    j = Journal(tmp_path_factory.mktemp("j"))
    written = []
    for blob, with_newline in junk:
        written.append(j.append("memories", {"n": len(written)}))
        with j.path("memories").open("ab") as fh:
            fh.write(blob + (b"\n" if with_newline else b""))
    written.append(j.append("memories", {"n": len(written)}))
    data = j.path("memories").read_bytes()
    assert all(blob in data for blob, _ in junk)
    got = j.read("memories")
    ids = [r["id"] for r in written]
    assert len(set(ids)) == len(ids)
    # every record a caller was given back is read back, whatever the junk around it
    assert [r for r in got.records if r in written] == written


def test_a_line_holding_the_largest_id_does_not_stop_appends(tmp_path: Path) -> None:
    j = Journal(tmp_path)
    j.append("memories", {"n": 0})
    with j.path("memories").open("ab") as fh:
        fh.write(b'{"id":9007199254740991,"ts":"t","n":"max"}\n{"id":3,"ts":"t","n":"three"}\n')
    got = [j.append("memories", {"n": n})["id"] for n in range(1, 4)]
    assert got == [2, 4, 5]
    assert len({r["id"] for r in j.read("memories").records}) == 6


def _piece(kind: int, n: int) -> bytes:
    """A line (or part of one) of the failures stream: records of every type, odd lines, a
    line torn without its newline, a repeat of an earlier id."""
    rec: dict
    if kind == 0:
        rec = {**attempt_record(n), "id": n, "ts": "2026-01-01T00:00:00Z"}
    elif kind == 1:
        rec = {"id": n, "ts": "2026-01-02T00:00:00Z", "op": "occurrence", "target": max(1, n - 2),
               "notes": f"again {n}"}  # fmt: skip
    elif kind == 2:
        rec = {"id": n, "ts": "2026-01-03T00:00:00Z", "op": "forget", "target": max(1, n - 3)}
    elif kind == 3:
        rec = {"id": n, "ts": "2026-01-03T00:00:00Z", "op": "forget", "target": "revert:abc1234"}
    elif kind == 4:
        return ODD_LINES[n % len(ODD_LINES)][0][:200] + b"\n"
    elif kind == 5:
        return json.dumps({**attempt_record(n), "id": n, "ts": "x"}).encode()[:30]  # torn
    else:
        rec = {**attempt_record(n), "id": 1, "ts": "2026-01-04T00:00:00Z"}  # id 1 again
    return json.dumps(rec).encode() + b"\n"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(1, 3), st.booleans()), min_size=1, max_size=14
    )
)
def test_a_stream_read_again_after_appends_reads_as_a_whole_read_does(tmp_path_factory, steps):
    """`read_stream` with what earlier reads kept parses only what was appended; after every
    append, and after the file is cut or rewritten, it answers as a read of the whole file."""
    from gitstrata.store.attempts import STREAM, StreamState, read_stream

    j = Journal(tmp_path_factory.mktemp("j"))
    path = j.path(STREAM)
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = StreamState()
    n = 0
    for kind, count, rewrite in steps:
        data = path.read_bytes() if path.exists() else b""
        if rewrite and len(data) > 40:  # not an append: the kept lines no longer match
            data = data[: len(data) // 2] + b"\n"
        for _ in range(count):
            n += 1
            data += _piece(kind, n)
        path.write_bytes(data)
        for _ in range(2):  # twice: a read with nothing new
            assert read_stream(j, kept) == read_stream(j)


# the reference readings the journal's hot path must agree with: `pathlib`'s parts for a target
# path, and each field's types checked one by one


def _relative_path_reference(path: str) -> str | None:
    import re
    from pathlib import PurePosixPath

    if not isinstance(path, str) or len(path) > 4096:
        return None
    raw = path.replace("\\", "/").strip()
    if not raw or raw.startswith("/") or re.match(r"^[A-Za-z]:", raw):
        return None
    if any(ord(c) < 32 or ord(c) == 127 for c in raw):
        return None
    parts = [p for p in PurePosixPath(raw).parts if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


_PATH_PIECES = st.sampled_from(
    ["a", "b.py", ".", "..", "", " ", "\\", "/", "C:", "x\x00", "é", "\x7f", "\t"]
)


@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.text(max_size=30), st.lists(_PATH_PIECES, max_size=8).map("/".join)))
def test_a_target_path_reads_as_pathlib_reads_it(path: str) -> None:
    from gitstrata.store.attempts import relative_path

    assert relative_path(path) == _relative_path_reference(path)


def _fields_reference(rec: dict) -> str | None:
    from gitstrata.store.attempts import _FIELD_TYPES, _TYPE_NAMES, _fits

    for name, types in _FIELD_TYPES.items():
        if name in rec and not _fits(rec[name], types):
            return f"{name} is not {' or '.join(_TYPE_NAMES[t] for t in types)}"
    return None


class _Text(str):
    pass


_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=3),
    st.builds(_Text, st.text(max_size=3)), st.just([]), st.just({}), st.just(["x"]),
)  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(st.dictionaries(st.sampled_from(["kind", "source", "diff", "diff_bytes", "diff_truncated",
                                        "command", "exit_code", "signal", "notes", "signature",
                                        "redactions", "target_notes", "other"]),
                       _VALUES, max_size=6))  # fmt: skip
def test_a_record_s_field_types_are_judged_as_one_by_one(rec: dict) -> None:
    from gitstrata.store.attempts import _check_fields

    assert _check_fields(rec) == _fields_reference(rec)
