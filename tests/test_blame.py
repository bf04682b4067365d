"""Blame ownership: equal to `git blame` line by line, mapped onto symbols, load-bearing share."""

from __future__ import annotations

import subprocess

import pyarrow as pa
import pytest

from gitstrata.pipeline.gitio import Git
from gitstrata.pipeline.history import blame_file
from gitstrata.stages import blame
from gitstrata.store import schemas
from gitstrata.store.ids import symbol_id

V1 = "def f():\n    a = 1\n    return a\n\n\ndef g():\n    return 2\n"
V2 = "def f():\n    a = 1\n    b = 2\n    return a + b\n\n\ndef g():\n    return 2\n"
V3 = "import os\n\ndef f():\n    a = 1\n    b = 2\n    return a + b\n\n\ndef g():\n    return 3\n"


def git_blame_lines(repo, path: str) -> list[str]:
    """The reference: one full sha per line, from git's own default output."""
    out = subprocess.run(
        ["git", "blame", "-l", "-s", "--root", "HEAD", "--", path],
        cwd=repo.path,
        check=True,
        capture_output=True,
        env=repo.env(0),
    ).stdout.decode()
    return [line.split()[0].lstrip("^") for line in out.splitlines()]


@pytest.fixture
def history(git_repo):
    r = git_repo
    shas = [
        r.commit("feat: f and g", {"m.py": V1, "other.txt": "x\ny\n"}),
        r.commit("fix: f must add b (INC-7)", {"m.py": V2}),
        r.commit("refactor: import os, g returns 3", {"m.py": V3}),
        r.commit("docs: other", {"other.txt": "x\nY\nz\n"}),
    ]
    return r, shas


def test_parse_incremental_equals_git_blame(history):
    r, shas = history
    git = Git(r.path)
    for path in ("m.py", "other.txt"):
        fb = blame_file(git, path, "blob", r.head())
        got = [fb.shas[k] for k in fb.line_commit]
        assert got == git_blame_lines(r, path)
    fb = blame_file(git, "m.py", "blob", r.head())
    assert [fb.shas[k] for k in fb.line_commit] == [
        shas[2],
        shas[2],
        shas[0],
        shas[0],
        shas[1],
        shas[1],
        shas[0],
        shas[0],
        shas[0],
        shas[2],
    ]
    times = dict(zip(fb.shas, fb.author_times, strict=True))
    assert times[shas[0]] == 1_700_000_000 + 86_400


def test_parse_incremental_rejects_garbage():
    with pytest.raises(blame.BlameFormatError):
        blame.parse_incremental(b"not blame output\n")
    with pytest.raises(blame.BlameFormatError):
        blame.parse_incremental(b"a" * 40 + b" 1 1 1\nauthor x\n")


def _symbols(rows):
    return pa.Table.from_pylist(
        [
            {
                "symbol_id": symbol_id(p, q),
                "path": p,
                "qualname": q,
                "name": q,
                "kind": "function",
                "start_line": s,
                "end_line": e,
                "blob": "b" * 40,
            }
            for p, q, s, e in rows
        ],
        schema=schemas.SYMBOLS,
    )


def _commits(pairs):
    return pa.Table.from_pylist(
        [
            {
                "sha": sha,
                "author_time": 0,
                "commit_time": 0,
                "intent": intent,
                "files": 1,
                "symbols": 1,
                "added": 0,
                "removed": 0,
                "bulk": False,
            }
            for sha, intent in pairs
        ],
        schema=schemas.COMMITS,
    )


def test_symbol_ownership_and_load_bearing_share(history):
    r, shas = history
    git = Git(r.path)
    fbs = [blame_file(git, "m.py", "b" * 40, r.head())]
    symbols = _symbols([("m.py", "<module>", 1, 10), ("m.py", "f", 3, 6), ("m.py", "g", 9, 10)])
    # the first commit is outside the indexed history: no intent, never load-bearing
    commits = _commits([(shas[1], "bugfix"), (shas[2], "refactor"), (shas[3], "docs")])
    table = blame.build(fbs, symbols, commits)
    assert table.schema.equals(schemas.BLAME)
    rows = {(r_["qualname"], r_["sha"]): r_ for r_ in table.to_pylist()}
    f = {sha: row["lines"] for (q, sha), row in rows.items() if q == "f"}
    assert f == {shas[0]: 2, shas[1]: 2}
    assert rows[("f", shas[1])]["load_bearing"] is True
    assert rows[("f", shas[0])]["intent"] is None and rows[("f", shas[0])]["load_bearing"] is False
    assert rows[("f", shas[1])]["load_bearing_share"] == pytest.approx(0.5)
    assert rows[("f", shas[1])]["symbol_lines"] == 4
    mod = {sha: row["lines"] for (q, sha), row in rows.items() if q == "<module>"}
    assert mod == {shas[0]: 5, shas[1]: 2, shas[2]: 3}
    assert rows[("<module>", shas[0])]["load_bearing_share"] == pytest.approx(0.2)
    g = {sha: row["lines"] for (q, sha), row in rows.items() if q == "g"}
    assert g == {shas[0]: 1, shas[2]: 1}
    assert rows[("g", shas[2])]["load_bearing_share"] == 0.0


def test_reused_rows_are_rejoined_with_intent(history):
    r, shas = history
    git = Git(r.path)
    symbols = _symbols([("m.py", "f", 3, 6), ("other.txt", "<module>", 1, 3)])
    before = blame.build([blame_file(git, "m.py", "b" * 40, r.head())], symbols, _commits([]))
    assert set(before["intent"].to_pylist()) == {None}
    # the history grew: reused rows pick up intents they did not have
    after = blame.build(
        [blame_file(git, "other.txt", "c" * 40, r.head())],
        symbols,
        _commits([(shas[1], "bugfix")]),
        reused=before,
    )
    f_rows = [row for row in after.to_pylist() if row["qualname"] == "f"]
    assert {row["sha"]: row["intent"] for row in f_rows} == {shas[0]: None, shas[1]: "bugfix"}
    assert sorted(set(after["path"].to_pylist())) == ["m.py", "other.txt"]
