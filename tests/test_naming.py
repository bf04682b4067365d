"""Naming a symbol for preflight: qualified names, `NAME@LINE`, ambiguous names listed with
their lines (a typed error, exit 1 on the CLI), not found exits 1, and file paths taken from the
directory the command runs in, as git takes them. Real repositories, the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gitstrata import AmbiguousSymbol, InputError, Strata
from gitstrata.serve.targets import match_symbols, parse_symbol_name, resolve_symbol_name

SHAPES = """\
pub struct Circle {
    r: f64,
}

impl Circle {
    pub fn new(r: f64) -> Circle {
        Circle { r }
    }
}

pub struct Square {
    s: f64,
}

impl Square {
    pub fn new(s: f64) -> Square {
        Square { s }
    }
}
"""

CORE = """\
class Engine:
    def start(self):
        return 1

    def stop(self):
        return 2


class Pump:
    def stop(self):
        return 3


def start():
    return 0
"""


def first_commit(s: Strata, question: str) -> str:
    """The sha of the first hit of `question`, which must be a commit."""
    hit = s.search(question).hits[0]
    assert hit.kind == "commit", question
    return hit.key


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gitstrata", *args], cwd=cwd, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from conftest import GitRepo

    r = GitRepo(tmp_path_factory.mktemp("naming") / "repo")
    r.commit("feat: shapes and the engine", {"src/shapes.rs": SHAPES, "src/app/core.py": CORE})
    with Strata(r.path) as s:
        s.index(jobs=1)
    return r


def test_parse_symbol_name() -> None:
    assert parse_symbol_name("Foo::new@12") == ("Foo.new", 12)
    assert parse_symbol_name(" run() ") == ("run", None)
    assert parse_symbol_name("@7") == ("", 7)
    for bad in ("new@", "new@x", "new@0", "new@-3"):
        with pytest.raises(InputError, match="positive number"):
            parse_symbol_name(bad)


def test_match_symbols_levels_and_lines() -> None:
    names = ["<module>", "Foo", "Foo.new", "Bar.new", "new", "Baz.Foo.new"]
    spans = [(1, 40), (1, 9), (3, 5), (12, 15), (20, 22), (30, 33)]
    assert match_symbols(names, spans, "new") == [4]  # exact beats by last component
    assert match_symbols(names, spans, "Foo::new") == [2]  # exact beats a dotted suffix
    assert match_symbols(names, spans, "bar.NEW") == [3]  # then case-insensitive
    assert match_symbols(names, spans, "new@13") == [3]  # the line falls through to Bar.new
    assert match_symbols(names, spans, "Foo.new@31") == [5]
    assert match_symbols(names, spans, "new@99") == []
    assert match_symbols(names, spans, "@4") == [2]  # the innermost named symbol there
    assert match_symbols(names[:4], spans[:4], "new") == [2, 3]  # ambiguous: both listed
    assert match_symbols(names, spans, "<module>") == []


def test_a_recorded_failure_names_its_symbol_by_the_same_rule() -> None:
    rows = [
        {"path": "s.rs", "qualname": q, "start_line": a, "end_line": b}
        for q, a, b in (("<module>", 1, 19), ("Circle.new", 6, 8), ("Square.new", 16, 18))
    ]
    assert resolve_symbol_name("s.rs", "new@17", rows) == "Square.new"
    assert resolve_symbol_name("s.rs", "Square::new", rows) == "Square.new"
    assert resolve_symbol_name("s.rs", "new", rows) == "Circle.new"  # a record takes the first
    assert resolve_symbol_name("s.rs", "new@x", rows) == "new@x"  # kept as written
    assert resolve_symbol_name("s.rs", "brand_new", rows) == "brand_new"


def test_ambiguous_rust_name_lists_candidates_and_qualified_or_line_picks(repo) -> None:
    with Strata(repo.path) as s:
        with pytest.raises(AmbiguousSymbol) as err:
            s.preflight("src/shapes.rs", "new")
        assert err.value.candidates == [("Circle.new", 6, 8), ("Square.new", 16, 18)]
        assert "Circle.new (lines 6-8), Square.new (lines 16-18)" in str(err.value)
        assert s.preflight("src/shapes.rs", "Square::new").symbol == "Square.new"
        assert s.preflight("src/shapes.rs", "new@17").symbol == "Square.new"
        assert s.preflight("src/shapes.rs", "new@6").symbol == "Circle.new"
        missed = s.preflight("src/shapes.rs", "new@99")
        assert not missed.found and missed.message == "src/shapes.rs has no symbol 'new' at line 99"
        assert missed.nearest == ["src/shapes.rs::Circle.new@6", "src/shapes.rs::Square.new@16"]

    run = cli("preflight", "src/shapes.rs", "-s", "new", cwd=repo.path)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.splitlines() == [
        "error: src/shapes.rs: 'new' names 2 symbols",
        "  Circle.new  lines 6-8  (-s new@6)",
        "  Square.new  lines 16-18  (-s new@16)",
        "hint: add the line to the name (new@6) or qualify it (Circle.new)",
    ]
    for name, qualname in (
        ("Foo::new", None),
        ("Square::new", "Square.new"),
        ("new@16", "Square.new"),
    ):
        run = cli("preflight", "src/shapes.rs", "-s", name, "--json", cwd=repo.path)
        if qualname is None:
            # no `Foo`: the last component still matches both `new`s, so it is ambiguous
            assert run.returncode == 1 and "'Foo::new' names 2 symbols" in run.stderr
        else:
            assert run.returncode == 0, run.stderr
            report = json.loads(run.stdout)
            assert report["found"] and report["symbol"] == qualname
            assert report["context"]["qualname"] == qualname


def test_python_class_method_and_exact_beats_method(repo) -> None:
    with Strata(repo.path) as s:
        report = s.preflight("src/app/core.py", "Engine.start")
        assert report.symbol == "Engine.start" and report.context is not None
        assert (report.context.start_line, report.context.end_line) == (2, 3)
        assert s.preflight("src/app/core.py", "start").symbol == "start"  # the exact name
        assert s.preflight("src/app/core.py", "Pump.stop").symbol == "Pump.stop"
        with pytest.raises(AmbiguousSymbol):
            s.preflight("src/app/core.py", "stop")


def test_relative_paths_resolve_from_the_current_directory(repo, tmp_path) -> None:
    sub = repo.path / "src" / "app"
    run = cli("preflight", "core.py", "-s", "Engine.start", "--json", cwd=sub)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["file"] == "src/app/core.py"
    # `-C` is where the command runs: paths are taken from there
    run = cli("-C", str(repo.path / "src"), "preflight", "shapes.rs", "--json", cwd=tmp_path)
    assert run.returncode == 0 and json.loads(run.stdout)["file"] == "src/shapes.rs"
    run = cli("preflight", "../shapes.rs", "-s", "Circle::new", "--json", cwd=sub)
    assert json.loads(run.stdout)["symbol"] == "Circle.new"
    run = cli("preflight", str(sub / "core.py"), "-s", "Pump.stop", "--json", cwd=tmp_path)
    assert run.returncode == 1 and "not a git repository" in run.stderr  # no repo at cwd
    run = cli("preflight", str(sub / "core.py"), "-s", "Pump.stop", "--json", cwd=sub)
    assert run.returncode == 0 and json.loads(run.stdout)["file"] == "src/app/core.py"
    outside = tmp_path / "elsewhere.py"
    outside.write_text("x = 1\n")
    for path in ("../../../outside.py", str(outside)):
        run = cli("preflight", path, cwd=sub)
        assert run.returncode == 1 and run.stdout == ""
        assert run.stderr.startswith(f"error: {path}: outside the repository\n")
        assert "Traceback" not in run.stderr
    # the Python API takes paths from the folder it was opened on, like -C
    with Strata(sub) as s:
        assert s.preflight("core.py", "Engine.stop").file == "src/app/core.py"


def test_query_file_filter_resolves_from_the_current_directory(repo) -> None:
    sub = repo.path / "src" / "app"
    run = cli("query", "engine start", "--file", "core.py", "--json", cwd=sub)
    assert run.returncode == 0, run.stderr
    resp = json.loads(run.stdout)
    assert resp["file_filter"] == "src/app/core.py"
    assert resp["hits"] and {h["path"] for h in resp["hits"] if h["path"]} <= {"src/app/core.py"}


def test_not_found_exits_1_with_the_nearest_matches(repo) -> None:
    sub = repo.path / "src" / "app"
    run = cli("preflight", "core.py", "-s", "Engin.strat", cwd=sub)
    assert run.returncode == 1
    assert "<not_found>src/app/core.py has no symbol 'Engin.strat'</not_found>" in run.stdout
    assert "  src/app/core.py::Engine.start" in run.stdout.splitlines()
    run = cli("preflight", "cores.py", "--json", cwd=sub)
    report = json.loads(run.stdout)
    assert run.returncode == 1 and report["found"] is False
    assert report["nearest"][0] == "src/app/core.py"
    run = cli("preflight", "core.py", "-s", "stop@x", cwd=sub)
    assert run.returncode == 1 and run.stderr.startswith("error: 'stop@x': the line after @")


def test_the_typer_cli_exits_the_same_way(repo) -> None:
    """The Typer app (which the console entry point hands anything it does not parse)."""
    sub = repo.path / "src" / "app"

    def typer_cli(*args: str) -> subprocess.CompletedProcess[str]:
        code = "from gitstrata.cli import main; main()"
        return subprocess.run(
            [sys.executable, "-c", code, *args], cwd=sub, capture_output=True, text=True
        )

    run = typer_cli("preflight", "core.py", "-s", "nothing_like_it", "--json")
    assert run.returncode == 1 and json.loads(run.stdout)["found"] is False
    run = typer_cli("preflight", "core.py", "-s", "stop")
    assert run.returncode == 1 and run.stderr.splitlines()[1:3] == [
        "  Engine.stop  lines 5-6  (-s stop@5)",
        "  Pump.stop  lines 10-11  (-s stop@10)",
    ]
    run = typer_cli("preflight", "core.py", "-s", "stop@10", "--json")
    assert run.returncode == 0 and json.loads(run.stdout)["symbol"] == "Pump.stop"


@pytest.mark.slow  # a real MCP session over stdio
def test_mcp_ambiguous_name_is_a_tool_error_and_not_found_a_report(repo, tmp_path) -> None:
    import anyio
    from test_mcp import call, stdio_session, text_of

    async def main() -> None:
        async with stdio_session(repo, tmp_path / "server.log") as s:
            got = await call(s, "preflight_check", file_path="src/shapes.rs", symbol_name="new")
            assert got.is_error
            assert (
                "src/shapes.rs: 'new' names 2 symbols: Circle.new (lines 6-8), "
                "Square.new (lines 16-18)" in text_of(got)
            )
            assert "new@6" in text_of(got)
            for name in ("new@16", "Square::new"):
                got = await call(s, "preflight_check", file_path="src/shapes.rs", symbol_name=name)
                assert not got.is_error and got.structured_content["symbol"] == "Square.new"
            got = await call(s, "preflight_check", file_path="src/shapes.rs", symbol_name="old")
            assert not got.is_error and got.structured_content["found"] is False
            assert "<not_found>src/shapes.rs has no symbol 'old'</not_found>" in text_of(got)

    anyio.run(main)


def test_a_file_gone_from_head_says_where_it_went(tmp_path) -> None:
    """A path history had but HEAD has not: renamed (its name at HEAD offered first), renamed
    and later deleted, or deleted, each with the commit that did it."""
    from conftest import GitRepo

    r = GitRepo(tmp_path / "repo")
    r.commit(
        "feat: first layout",
        {
            "lib/old.py": "def load():\n    return 1\n",
            "pkg/gone.py": "def gone():\n    return 2\n",
            "tmp/a.py": "def a():\n    return 3\n",
            "keep.py": "def keep():\n    return 4\n",
            "pkg/stay.py": "def stay():\n    return 5\n",
            "app/gone.py": "def other():\n    return 6\n",
        },
    )
    (r.path / "src" / "lib").mkdir(parents=True)
    r.git("mv", "lib/old.py", "src/lib/new.py")
    r.git("mv", "tmp/a.py", "tmp/b.py")
    moved = r.commit("refactor: move the loader under src")
    r.remove("pkg/gone.py")
    deleted = r.commit("chore: drop the gone module")
    r.remove("tmp/b.py")
    dropped = r.commit("chore: drop b")
    released = r.commit("Release: 1.2.0 (#12)", {"keep.py": "def keep():\n    return 7\n"})
    r.commit("docs: a note", {"README.md": "notes\n"})
    with Strata(r.path) as s:
        s.index(jobs=1)
        renamed = s.preflight("lib/old.py", "load")
        gone = s.preflight("pkg/gone.py")
        twice = s.preflight("tmp/a.py")
        never = s.preflight("lib/never.py")
        folder = s.preflight("src/lib")
        # a file filter naming no file of the index is refused, saying what to filter on
        with pytest.raises(InputError, match="^file filter: lib/old.py was renamed to src/lib/"):
            s.search("load", file_path="lib/old.py")
        with pytest.raises(InputError, match="^file filter: src/lib is a folder") as err:
            s.search("load", file_path="src/lib")
        assert err.value.hint == "filter on the files under it with src/lib/**"
        assert [h.path for h in s.search("load", file_path="src/lib/**").hits][:1] == [
            "src/lib/new.py"
        ]
        assert s.search("load", file_path="src/lib/new.py").hits
        # a question naming a file that is gone gets the commit that took it away first
        first = s.search("why was pkg/gone.py removed?").hits[0]
        assert (first.kind, first.key) == ("commit", deleted)
        first = s.search("where did `lib/old.py` go").hits[0]
        assert (first.kind, first.key) == ("commit", moved)
        # a commit named by its hash, abbreviated or whole, comes first
        first = s.search(deleted[:7]).hits[0]
        assert (first.kind, first.key) == ("commit", deleted)
        first = s.search(f"what did {dropped} change").hits[0]
        assert (first.kind, first.key) == ("commit", dropped)
        # a version the question names gets its release commit first
        first = s.search("what changed in v1.2.0?").hits[0]
        assert (first.kind, first.key) == ("commit", released)
    assert not renamed.found and renamed.nearest[0] == "src/lib/new.py"
    assert renamed.message == (
        f"lib/old.py was renamed to src/lib/new.py in {moved[:8]} "
        "(2023-11-16: refactor: move the loader under src)"
    )
    assert not gone.found and gone.nearest[:2] == ["pkg/stay.py", "app/gone.py"]  # its folder first
    assert gone.message == (
        f"pkg/gone.py was deleted in {deleted[:8]} (2023-11-17: chore: drop the gone module)"
    )
    assert not twice.found and "tmp/b.py" not in twice.nearest
    assert twice.message == (
        f"tmp/a.py was renamed to tmp/b.py in {moved[:8]} (2023-11-16: refactor: move the "
        f"loader under src); then tmp/b.py was deleted in {dropped[:8]} (2023-11-18: chore: drop b)"
    )
    assert never.message is not None and never.message.startswith(
        "lib/never.py is not in the index"
    )
    assert folder.message == "src/lib is a folder of 1 indexed files, not a file"
    assert folder.nearest == ["src/lib/new.py"]
    run = cli("preflight", "pkg/gone.py", cwd=r.path)
    assert run.returncode == 1
    assert run.stderr.startswith(f"error: pkg/gone.py was deleted in {deleted[:8]}")


def test_a_path_with_a_line_names_the_symbol_there(repo) -> None:
    """`path:LINE` (and `path:LINE:COLUMN`), as tracebacks and compilers print it, is the file
    and the symbol spanning the line; a named symbol wins over the line."""
    with Strata(repo.path) as s:
        at = s.preflight("src/app/core.py:6")
        col = s.preflight("src/app/core.py:10:5")
        named = s.preflight("src/app/core.py:6", "start")
        outside = s.preflight("src/app/nope.py:3")
    assert at.found and (at.file, at.context and at.context.qualname) == (
        "src/app/core.py",
        "Engine.stop",
    )
    assert col.found and col.context is not None and col.context.qualname == "Pump.stop"
    assert named.context is not None and named.context.qualname == "start"
    assert not outside.found and outside.file == "src/app/nope.py:3"
    run = cli("preflight", "core.py:2", cwd=repo.path / "src" / "app")
    assert run.returncode == 0 and 'symbol="Engine.start"' in run.stdout.splitlines()[0]
    # a question naming the place gets the symbol there first
    with Strata(repo.path) as s:
        first = s.search("why does src/app/core.py:10 return three").hits[0]
    assert (first.kind, first.path, first.symbol) == ("symbol", "src/app/core.py", "Pump.stop")


def test_the_commit_that_introduced_a_thing_or_changed_it_last(tmp_path) -> None:
    """ "Which commit introduced X" and "who last changed X" get that commit first, for a
    symbol and for a file; commits of one second (a rebased series) are ordered by their
    parents, and a file deleted and added again began at its last addition."""
    from conftest import GitRepo

    from gitstrata.serve.render import render_search

    r = GitRepo(tmp_path / "repo")
    body = "def parse_line(s):\n    return {}\n"
    born = r.commit("feat: add the parser", {"src/parse.py": body.format("s.split()")})
    r.commit("feat: notes", {"README.md": "# notes\n"})
    fixed = r.commit(
        "fix: strip the line first", {"src/parse.py": body.format("s.strip().split()")}
    )
    series = []
    for i in range(4):  # join_line comes in at the second step and changes at every later one
        code = body.format(f"s.strip().split(None, {i})")
        if i:
            code += f"\n\ndef join_line(parts):\n    return ' '.join(parts[:{i + 2}])\n"
        series.append(r.commit(f"refactor: step {i}", {"src/parse.py": code}, days=9))
    r.remove("README.md")
    r.commit("chore: drop the notes")
    readded = r.commit("docs: the notes again", {"README.md": "# notes\n\nagain\n"})
    last_readme = r.commit("docs: more notes", {"README.md": "# notes\n\nagain and again\n"})
    with Strata(r.path) as s:
        s.index(jobs=1)

        assert first_commit(s, "which commit introduced parse_line?") == born
        assert first_commit(s, "when was the parse_line function added") == born
        assert first_commit(s, "who last changed parse_line") == series[-1]
        assert first_commit(s, "which commit introduced join_line") == series[1]
        assert first_commit(s, "when was src/parse.py last changed?") == series[-1]
        assert first_commit(s, "which commit added README.md") == readded
        assert first_commit(s, "who last changed README.md") == last_readme
        # its newest commits, in history's order, and those of one intent
        newest = [h.key for h in s.search("recent changes to src/parse.py").hits[:3]]
        assert newest == series[:0:-1]
        assert first_commit(s, "what bugs were fixed in parse_line?") == fixed
        # a part of a thing: not its first commit
        assert first_commit(s, "which commit added the strip to parse_line") != born
        answer = s.search("who last changed parse_line")
        assert answer.query_class == "causal"
        # "who": a commit hit names its author, in the data and in the text an agent reads
        assert answer.hits[0].author == "Test Author"
        line = next(x for x in render_search(answer).splitlines() if "[commit]" in x)
        assert f"{series[-1][:10]} [refactor] refactor: step 3 (by Test Author)" in line


def test_a_co_change_question_naming_a_path_is_about_that_file_alone(tmp_path) -> None:
    """A path spelled out names that file, not every file of its name (`a/mod.rs`,
    `b/mod.rs`): the co-change graph is seeded from it alone, and its partners come first."""
    from conftest import GitRepo

    r = GitRepo(tmp_path / "repo")
    for i in range(3):
        r.commit(
            f"feat: a {i}",
            {"a/mod.rs": f"fn a() -> u8 {{ {i} }}\n", "a/peer.rs": f"fn p() -> u8 {{ {i} }}\n"},
        )
        r.commit(
            f"feat: b {i}",
            {"b/mod.rs": f"fn b() -> u8 {{ {i} }}\n", "b/other.rs": f"fn o() -> u8 {{ {i} }}\n"},
        )
    with Strata(r.path) as s:
        s.index(jobs=1)
        searcher = s.engine.searcher
        assert searcher is not None
        assert searcher._anchor_files("what else changes with a/mod.rs?", []) == (
            {"a/mod.rs": 1.0},
            True,
        )
        named, _ = searcher._anchor_files("what else changes with mod.rs?", [])
        assert set(named) == {"a/mod.rs", "b/mod.rs"}
        answer = s.search("What else has to change when I change a/mod.rs?")
        assert answer.query_class == "coupled"
        assert answer.hits[0].path == "a/peer.rs"


def test_a_symbol_gone_from_head_gets_the_commit_that_took_it_away(tmp_path) -> None:
    """ "why was X removed" about a function HEAD has none of: the newest commit that touched it
    (the one that removed it) comes first; a function HEAD still has is left to the search."""
    from conftest import GitRepo

    r = GitRepo(tmp_path / "repo")
    keep = "def load_config(path):\n    return open(path).read()\n"
    r.commit(
        "feat: loaders", {"app/io.py": keep + "\n\ndef load_legacy_rows(path):\n    return []\n"}
    )
    r.commit(
        "fix: read the config as text",
        {
            "app/io.py": keep.replace("read()", "read().strip()")
            + "\n\ndef load_legacy_rows(path):\n    return []\n"
        },
    )
    removed = r.commit("chore: tidy", {"app/io.py": keep.replace("read()", "read().strip()")})
    r.commit("docs: how legacy rows were loaded and why", {"README.md": "load legacy rows\n"})
    with Strata(r.path) as s:
        s.index(jobs=1)
        first = s.search("why was load_legacy_rows removed?").hits[0]
        assert (first.kind, first.key, first.pinned) == ("commit", removed, True)
        assert s.search("where did load_legacy_rows go").hits[0].key == removed
        # at HEAD, or named for another reason than where it went: nothing pinned for it
        assert s.search("why was load_config changed?").hits[0].key != removed
        assert not any(h.pinned for h in s.search("load_legacy_rows returns no rows").hits)


def test_a_revert_a_version_and_a_gone_files_other_changes_are_told_apart(tmp_path) -> None:
    """ "Why was X reverted" gets the revert first, whose message says why, not X; a version
    is a word of its own ("3.4.3" is not "3.4.1"); a question about another change of a file
    that is gone gets that change, not the commit that took the file away."""
    from conftest import GitRepo

    r = GitRepo(tmp_path / "repo")
    r.commit("feat: the app", {"lib/app.js": "function serve() { return 1 }\n"})
    etag = r.commit(
        "add the etag option to static serving",
        {"lib/app.js": "function serve(opts) { return opts.etag ? 2 : 1 }\n"},
    )
    bumps = []
    for old, new in (("3.3.1", "3.4.1"), ("3.4.1", "3.4.3"), ("3.4.3", "3.5.1")):
        bumps.append(
            r.commit(
                f"Bump sphinx from {old} to {new}", {"docs/requirements.txt": f"sphinx=={new}\n"}
            )
        )
    notes = [
        r.commit("docs: update the release notes", {"docs/RELEASE.md": f"# release\n\nstep {i}\n"})
        for i in range(2)
    ]
    revert = r.commit(
        'Revert "add the etag option to static serving"\n\n'
        f"This reverts commit {etag}.\n\nIt sent stale pages from behind caching proxies.",
        {"lib/app.js": "function serve() { return 1 }\n"},
    )
    r.remove("docs/RELEASE.md")
    gone = r.commit("chore: keep the docs in the wiki")
    with Strata(r.path) as s:
        s.index(jobs=1)

        assert first_commit(s, 'why was "add the etag option to static serving" reverted') == revert
        assert first_commit(s, "why did we roll back the etag option") == revert
        assert first_commit(s, "why was the etag option added to static serving") == etag
        assert first_commit(s, "why was sphinx from 3.4.3 to 3.5.1 bumped") == bumps[2]
        assert first_commit(s, "why was sphinx bumped to 3.4.3") == bumps[1]
        assert first_commit(s, "why was docs/RELEASE.md updated") in notes
        assert first_commit(s, "why was docs/RELEASE.md removed") == gone
        assert first_commit(s, "what happened to docs/RELEASE.md") == gone
