"""Blame ownership: equal to `git blame` line by line, mapped onto symbols, load-bearing share."""

from __future__ import annotations

import subprocess

import pyarrow as pa
import pytest

from gitstrata.pipeline import history as adapter
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


def test_parse_porcelain_equals_git_blame(history):
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


def test_parse_porcelain_rejects_garbage():
    with pytest.raises(blame.BlameFormatError):
        blame.parse_porcelain(b"not blame output\n")
    with pytest.raises(blame.BlameFormatError):
        blame.parse_porcelain(b"a" * 40 + b" 1 1 1\nauthor x\n")
    with pytest.raises(blame.BlameFormatError):
        blame.parse_porcelain(b"a" * 40 + b" 1 3 1\nauthor x\n\tline\n")


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
    # three of the ten lines are blank: the share counts code lines only
    code = {sha: row["code_lines"] for (q, sha), row in rows.items() if q == "<module>"}
    assert code == {shas[0]: 3, shas[1]: 2, shas[2]: 2}
    assert rows[("<module>", shas[0])]["symbol_code_lines"] == 7
    assert rows[("<module>", shas[0])]["load_bearing_share"] == pytest.approx(2 / 7)
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


FIXED = "def parse(text):\n    value = text.strip()\n    return int(value)\n"
FIXED2 = (
    "def parse(text):\n"
    "    value = text.strip()\n"
    "\n"
    "    # an empty field means zero (INC-9)\n"
    "    if not value:\n"
    "        return 0\n"
    "    return int(value)\n"
)
FIXED3 = FIXED2.replace("    # an empty field means zero (INC-9)\n", "    # empty: zero\n    #\n")


def test_blank_and_comment_lines_are_never_load_bearing(git_repo):
    r = git_repo
    first = r.commit("feat: parse", {"p.py": FIXED, "conf.yaml": "a: 1\n"})
    fix = r.commit("fix: empty field crashes parse (INC-9)", {"p.py": FIXED2})
    words = r.commit("fix: comment wording", {"p.py": FIXED3, "conf.yaml": "# note\na: 1\n\n"})
    fb = blame_file(Git(r.path), "p.py", "b" * 40, r.head(), language="python")
    assert fb.code is not None
    assert fb.code.tolist() == [True, True, False, False, False, True, True, True]
    symbols = _symbols([("p.py", "parse", 1, 8)])
    commits = _commits([(first, "feature"), (fix, "bugfix"), (words, "bugfix")])
    rows = {row["sha"]: row for row in blame.build([fb], symbols, commits).to_pylist()}
    assert {s: (row["lines"], row["code_lines"]) for s, row in rows.items()} == {
        first: (3, 3),
        fix: (3, 2),  # the blank line is ownership, not code
        words: (2, 0),
    }
    assert rows[fix]["load_bearing"] is True
    # a fix that only rewrote comments does not make the function load-bearing
    assert rows[words]["load_bearing"] is False
    assert rows[fix]["symbol_code_lines"] == 5
    assert rows[fix]["load_bearing_share"] == pytest.approx(2 / 5)
    yaml = blame_file(Git(r.path), "conf.yaml", "c" * 40, r.head(), language="yaml")
    assert yaml.code is not None and yaml.code.tolist() == [False, True, False]


LIB = "def area(w, h):\n    return w*h\n\n\ndef label(name):\n    return 'box: '+name\n"
LIB_FORMATTED = (
    'def area(w, h):\n    return w * h\n\n\ndef label(name):\n    return "box: " + name\n'
)


def test_formatting_commit_in_ignore_revs_owns_no_lines(git_repo):
    r = git_repo
    feat = r.commit("feat: area and label", {"lib.py": LIB})
    fmt = r.commit("style: run the formatter", {"lib.py": LIB_FORMATTED})
    r.commit(
        "chore: skip the formatting commit in blame",
        {".git-blame-ignore-revs": f"# black\n{fmt}\nabc123\n"},
    )
    git = Git(r.path)
    plain = blame_file(git, "lib.py", "b" * 40, r.head())
    assert {plain.shas[k] for k in plain.line_commit[[1, 5]]} == {fmt}
    revs, key = adapter.ignore_revs(git, r.head())
    assert revs == [fmt]
    with_list = r.path.parent / "ignore-list"
    with_list.write_text(f"{fmt}\n")
    fb = blame_file(git, "lib.py", "b" * 40, r.head(), ignore_file=str(with_list))
    assert fmt not in fb.shas
    assert {fb.shas[k] for k in fb.line_commit} == {feat}


@pytest.mark.parametrize("graph", [False, True])
def test_index_honours_blame_ignore_revs(git_repo, tmp_path, monkeypatch, graph):
    from gitstrata.pipeline.runner import run_index
    from gitstrata.pipeline.tree import CHUNK
    from gitstrata.store.config import Config
    from gitstrata.store.generations import Store

    r = git_repo
    feat = r.commit("feat: area and label", {"lib.py": LIB})
    fmt = r.commit("style: run the formatter", {"lib.py": LIB_FORMATTED})
    r.commit("chore: skip the formatting commit in blame", {".git-blame-ignore-revs": f"{fmt}\n"})
    # a second list, named in the repository's git config (git applies it itself)
    fmt2 = r.commit("style: wrap", {"lib.py": LIB_FORMATTED.replace("w * h", "(w * h)")})
    (r.path / ".git" / "more-revs").write_text(f"{fmt2}\n")
    r.git("config", "blame.ignoreRevsFile", ".git/more-revs")
    stages = [CHUNK, adapter.CAPSULE, adapter.BLAME]
    # the commit-graph is written only for many files; the answer must not depend on it
    monkeypatch.setattr(adapter, "BLAME_GRAPH_MIN_FILES", 1 if graph else 10**9)

    def owners(out, config=None):
        report = run_index(r.path, out, stages=stages, config=config, jobs=1)
        gen = Store(out).live()
        assert gen is not None
        rows = gen.table("blame").to_pylist()
        return report, {row["sha"] for row in rows if row["path"] == "lib.py"}

    report, on = owners(tmp_path / "on")
    assert on == {feat}
    stage = report.stage("blame")
    assert stage is not None and stage.stats["ignored_revs"] == 1
    assert stage.stats["commit_graph"] is graph
    off = Config.from_dict({"index": {"blame_ignore_revs": False}})
    # neither list applies: the repository's file nor the one its git config names
    assert {fmt, fmt2} <= owners(tmp_path / "off", off)[1]
    # a file the setting names that this checkout lacks (a global setting for
    # `.git-blame-ignore-revs`, say) stops `git blame`; the index warns and goes on
    r.git("config", "--add", "blame.ignoreRevsFile", "no-such-list")
    report, still = owners(tmp_path / "missing")
    assert still == {feat}
    assert any("no-such-list" in w and "does not have" in w for w in report.warnings)


def test_blame_with_commit_graph_equals_git_blame(history, tmp_path):
    r, shas = history
    r.commit("style: reflow f", {"m.py": V3.replace("a + b", "a+b")})
    r.commit("feat: h", {"m.py": V3 + "\n\ndef h():\n    return 4\n", "n.py": "x = 1\n"})
    git = Git(r.path)
    env = adapter.blame_graph_env(git, r.head(), str(tmp_path / "objects"))
    assert env is not None
    assert (tmp_path / "objects" / "info" / "commit-graph").exists()
    # the repository's own object folder gets no commit-graph
    assert not (r.path / ".git" / "objects" / "info" / "commit-graph").exists()
    ignore = tmp_path / "ignore-list"
    ignore.write_text(f"{shas[2]}\n")
    for path in ("m.py", "other.txt", "n.py"):
        fb = blame_file(git, path, "blob", r.head(), env=env)
        assert [fb.shas[k] for k in fb.line_commit] == git_blame_lines(r, path)
        plain = blame_file(git, path, "blob", r.head(), ignore_file=str(ignore))
        graph = blame_file(git, path, "blob", r.head(), ignore_file=str(ignore), env=env)
        assert [plain.shas[k] for k in plain.line_commit] == [
            graph.shas[k] for k in graph.line_commit
        ]
        assert graph.author_times == plain.author_times


def test_a_fix_s_changelog_entry_and_docs_are_not_load_bearing_code(git_repo):
    r = git_repo
    first = r.commit(
        "feat: parse",
        {"p.py": FIXED, "CHANGES.md": "# Changes\n\n- parse\n", "HISTORY": "1.0\n=\n"},
    )
    fix = r.commit(
        "fix: empty field crashes parse (INC-9)",
        {
            "p.py": FIXED2,
            "CHANGES.md": "# Changes\n\n- parse\n- empty fields no longer crash\n",
            "HISTORY": "1.0\n=\nfix empty fields\n",
        },
    )
    commits = _commits([(first, "feature"), (fix, "bugfix")])
    for path, language in (("CHANGES.md", "markdown"), ("HISTORY", None)):
        fb = blame_file(Git(r.path), path, "d" * 40, r.head(), language=language)
        assert fb.code is not None and not fb.code.any(), path
        rows = blame.build([fb], _symbols([(path, "<module>", 1, 4)]), commits).to_pylist()
        assert {row["sha"] for row in rows} == {first, fix}
        assert not any(row["load_bearing"] for row in rows), path
    code = blame_file(Git(r.path), "p.py", "b" * 40, r.head(), language="python")
    rows = blame.build([code], _symbols([("p.py", "parse", 1, 8)]), commits).to_pylist()
    assert any(row["load_bearing"] for row in rows if row["sha"] == fix)
