"""Blame read from the history's hunks equals `git blame`, and the index is the same either way.

The repositories are built here with the histories that make the two walks part: files renamed
with edits, identical files moved at once, a file split off another in a commit that also
renames, a file changed back to an earlier content, branches merged with and without both sides
editing a file, files deleted and added again, no final line break, CRLF lines, a mode change.
"""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from gitstrata.pipeline.gitio import Git
from gitstrata.pipeline.history import blame_file, history_blames, line_history, merge_history
from gitstrata.pipeline.runner import run_index
from gitstrata.stages import blame as blame_stage
from gitstrata.store.config import Config
from gitstrata.store.generations import Store


def _lines(prefix: str, n: int) -> list[str]:
    return [f"{prefix}_{i} = {i}" for i in range(n)]


def _text(lines: list[str], end: str = "\n") -> str:
    return "".join(line + end for line in lines)


def build_history(repo, seed: int = 1) -> dict[str, str]:
    """A history with every case the module docstring names; returns path -> what it tests."""
    rng = random.Random(seed)
    # enough files that the index reads the history (`HISTORY_MIN_FILES`)
    files = {f"pkg/mod{k}.py": _lines(f"m{k}", 30) for k in range(4)}
    files |= {f"lib/part{k}.py": _lines(f"p{k}", 8) for k in range(16)}
    repo.commit("start", {p: _text(v) for p, v in files.items()} | {"LICENSE": "same\n" * 5})

    def edit(path: str, n: int = 3) -> None:
        lines = files[path]
        for _ in range(n):
            i = rng.randrange(len(lines) + 1)
            op = rng.random()
            if op < 0.4 or not lines:
                lines.insert(i, f"x{rng.randrange(10**6)} = {i}")
            elif op < 0.7:
                del lines[min(i, len(lines) - 1)]
            else:
                lines[min(i, len(lines) - 1)] = f"y{rng.randrange(10**6)} = 1"

    for step in range(8):
        for path in rng.sample(sorted(files), 2):
            edit(path)
        repo.commit(f"edit {step}", {p: _text(v) for p, v in files.items()})
    # a rename with edits, the commit's only one
    repo.git("mv", "pkg/mod0.py", "pkg/renamed.py")
    files["pkg/renamed.py"] = files.pop("pkg/mod0.py")
    edit("pkg/renamed.py")
    repo.commit("rename mod0", {"pkg/renamed.py": _text(files["pkg/renamed.py"])})
    # identical files moved at once
    repo.commit("licenses", {"a/LICENSE": "same\n" * 5, "b/LICENSE": "same\n" * 5})
    for old in ("a/LICENSE", "b/LICENSE", "LICENSE"):
        repo.git("rm", "-q", old)
    repo.commit("move licenses", {f"{d}/LICENSE": "same\n" * 5 for d in "cde"})
    # a file split off another in a commit that also renames it
    half = files["pkg/mod1.py"][:20]
    repo.git("mv", "pkg/mod1.py", "pkg/core.py")
    files["pkg/core.py"] = files.pop("pkg/mod1.py")[5:]
    files["pkg/split.py"] = half + ["extra = 1"]
    repo.commit("split", {p: _text(files[p]) for p in ("pkg/core.py", "pkg/split.py")})
    # changed back to an earlier content
    before = list(files["pkg/mod2.py"])
    edit("pkg/mod2.py", 4)
    repo.commit("try", {"pkg/mod2.py": _text(files["pkg/mod2.py"])})
    files["pkg/mod2.py"] = before
    repo.commit("back", {"pkg/mod2.py": _text(before)})
    edit("pkg/mod2.py")
    repo.commit("after back", {"pkg/mod2.py": _text(files["pkg/mod2.py"])})
    # branches: one edits a file alone (the merge keeps its version), both edit another
    repo.git("checkout", "-q", "-b", "side")
    edit("pkg/mod3.py")
    files["pkg/mod3.py"].append("side_only = 1")
    files["pkg/core.py"].insert(0, "side_top = 1")
    repo.commit("side", {p: _text(files[p]) for p in ("pkg/mod3.py", "pkg/core.py")})
    repo.git("checkout", "-q", "main")
    main_core = list(files["pkg/core.py"][1:])
    main_core.append("main_end = 1")
    repo.commit("main", {"pkg/core.py": _text(main_core)})
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    files["pkg/core.py"] = repo.path.joinpath("pkg/core.py").read_text().splitlines()
    edit("pkg/mod3.py")
    repo.commit("after merge", {"pkg/mod3.py": _text(files["pkg/mod3.py"])})
    # deleted and added again; no final line break; CRLF; a mode change
    repo.git("rm", "-q", "pkg/renamed.py")
    repo.commit("drop renamed")
    repo.commit("again", {"pkg/renamed.py": _text(_lines("again", 12))})
    repo.commit("no eol", {"pkg/noeol.py": _text(_lines("n", 5))[:-1]})
    repo.commit("no eol 2", {"pkg/noeol.py": _text(_lines("n", 6))[:-1]})
    repo.commit("crlf", {"pkg/crlf.py": _text(_lines("c", 6), "\r\n")})
    repo.commit("crlf 2", {"pkg/crlf.py": _text(_lines("c", 4) + ["d = 1"], "\r\n")})
    (repo.path / "pkg/mod2.py").chmod(0o755)
    repo.commit("mode")
    return {
        "pkg/renamed.py": "added again after a deletion",
        "pkg/core.py": "renamed with edits, then edited on both sides of a merge",
        "pkg/split.py": "split off a renamed file",
        "pkg/mod2.py": "changed back to an earlier content, then a mode change",
        "pkg/mod3.py": "edited on a branch alone, then after the merge",
        "c/LICENSE": "identical files moved at once",
    }


def _index(repo, out, **index):
    report = run_index(repo.path, out, config=Config.model_validate({"index": index}))
    return report, Store(out).require_live()


def _owners(fb: blame_stage.FileBlame) -> list[str]:
    return [fb.shas[k] for k in fb.line_commit]


@pytest.mark.parametrize("seed", [1, 2])
def test_history_blame_equals_git_blame_for_every_file_it_tells(make_repo, tmp_path, seed):
    repo = make_repo(f"blame{seed}")
    build_history(repo, seed)
    _, gen = _index(repo, tmp_path / "idx")
    git = Git(repo.path)
    head = git.require_head()
    entries = git.ls_tree(head)
    read = line_history(git, head, gen.table("hunks"), gen.table("commits"))
    assert read is not None
    history, times = read
    tellable, needed = history.plan([(e.path, e.blob) for e in entries], head)
    told = []
    for (path, blob, _), fb in history_blames(
        git, head, history, times, [(p, b, None) for p, b in tellable], needed
    ):
        if fb is not None:
            told.append(path)
            assert _owners(fb) == _owners(blame_file(git, path, blob, head))
    # the owners of every version were dropped once the versions made from them were made (a
    # long history's would all be kept); a file asked again is made again, the same
    assert [node for node, owners in history._memo.items() if owners is not None] == []
    for path in told[:3]:
        blob = next(b for p, b in tellable if p == path)
        again = history.owners(path, blob, head)
        assert again is not None
        assert [again[1][k] for k in again[0]] == _owners(blame_file(git, path, blob, head))
    # the plain cases, a merge's own version and a version made twice are told; the renames
    # blame may follow otherwise are left to it
    told_ = set(told)
    assert {"pkg/renamed.py", "pkg/noeol.py", "pkg/crlf.py", "pkg/mod3.py"} <= told_
    assert {"pkg/core.py", "pkg/mod2.py"} <= told_
    assert not {"pkg/split.py", "c/LICENSE"} & told_


def test_merge_history_names_only_versions_a_merge_made(make_repo):
    repo = make_repo()
    build_history(repo)
    git = Git(repo.path)
    merges = merge_history(git, git.require_head())
    assert merges is not None and len(merges) == 1
    (merge,) = merges.values()
    assert len(merge.parents) == 2
    assert {path for path, _ in merge.made()} == {"pkg/core.py"}


def test_index_blame_is_the_same_with_and_without_the_history(make_repo, tmp_path):
    repo = make_repo()
    build_history(repo, 3)
    report, on = _index(repo, tmp_path / "on")
    stats = report.stage("blame").stats
    assert stats["from_history"] > 0 and stats["blamed"] > 0
    _, off = _index(repo, tmp_path / "off", blame_from_history=False)
    assert on.table("blame").equals(off.table("blame"))
    # after one more commit the incremental index agrees with a fresh one
    repo.commit("more", {"pkg/mod3.py": repo.path.joinpath("pkg/mod3.py").read_text() + "z = 1\n"})
    _index(repo, tmp_path / "on")
    on = Store(tmp_path / "on").require_live()
    _, fresh = _index(repo, tmp_path / "fresh", blame_from_history=False)
    assert on.table("blame").equals(fresh.table("blame"))
    hunks = on.table("hunks")
    assert hunks.num_rows == fresh.table("hunks").num_rows
    assert pa.compute.all(pa.compute.greater_equal(pa.compute.list_value_length(hunks["hunks"]), 0))


def test_a_history_of_merges_too_large_to_read_goes_to_git_blame(make_repo, tmp_path, monkeypatch):
    from gitstrata.pipeline import history

    repo = make_repo()
    build_history(repo)
    monkeypatch.setattr(history, "MERGE_OUTPUT_CAP", 10)
    git = Git(repo.path)
    assert history.merge_history(git, git.require_head()) is None
    report, capped = _index(repo, tmp_path / "capped")
    assert report.stage("blame").stats["from_history"] == 0
    _, off = _index(repo, tmp_path / "off", blame_from_history=False)
    assert capped.table("blame").equals(off.table("blame"))


def test_a_merged_file_whose_name_git_quotes_is_still_blamed_right(make_repo, tmp_path):
    repo = make_repo()
    odd, plain = 'pkg/we"ird.py', "pkg/plain.py"
    base = {f"lib/part{k}.py": _text(_lines(f"p{k}", 5)) for k in range(16)}
    repo.commit("start", base | {odd: _text(_lines("w", 10)), plain: _text(_lines("q", 10))})
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("side", {odd: _text(["top = 1", *_lines("w", 10)]), plain: _text(_lines("q", 11))})
    repo.git("checkout", "-q", "main")
    repo.commit(
        "main",
        {odd: _text([*_lines("w", 10), "end = 1"]), plain: _text(["q = 0"] + _lines("q", 10))},
    )
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    report, on = _index(repo, tmp_path / "on")
    assert report.stage("blame").stats["from_history"] > 0
    _, off = _index(repo, tmp_path / "off", blame_from_history=False)
    assert on.table("blame").equals(off.table("blame"))


# four versions of a file of two functions (one letter a statement) whose diffs Myers and
# histogram place apart: replaying histogram's hunks gives some of `f`'s lines another commit
# than `git blame` does
_PARTED = (
    ("aaa}}", "}bab"),
    ("aaa}}", "}ba"),
    ("aaa}}", "a"),
    ("a}aa}", "aa"),
)
_LETTER = {"a": "    x = 1", "b": "    y = 2", "}": "    pass"}


def _parted(f: str, g: str) -> str:
    return _text(["def f():", *(_LETTER[c] for c in f), "def g():", *(_LETTER[c] for c in g)])


@pytest.mark.parametrize("algorithm", ["histogram", "patience", "minimal"])
def test_history_blame_ignores_the_configured_diff_algorithm(make_repo, tmp_path, algorithm):
    """A repository (or its user) may set `diff.algorithm`; `git blame` diffs with Myers
    whatever it says, so the history's hunks are made with Myers too, and blame read from
    them is still `git blame`'s."""
    repo = make_repo(f"parted-{algorithm}")
    repo.git("config", "diff.algorithm", algorithm)
    for f, g in _PARTED:
        repo.commit(f"version {f} {g}", {f"lib/f{k}.py": _parted(f, g) for k in range(20)})
    report, on = _index(repo, tmp_path / "on")
    assert report.stage("blame").stats["from_history"] > 0
    _, off = _index(repo, tmp_path / "off", blame_from_history=False)
    assert on.table("blame").equals(off.table("blame"))


def test_blame_through_a_merge_is_the_same_whatever_log_shows_of_merges(make_repo, tmp_path):
    """`git log -m` shows a merge in `log.diffMerges`'s format. Read against its first parent
    alone, a merge whose file differs from both parents was not known to have made it, and
    the history took the lines it wrote for those of another commit that made the same file."""
    repo = make_repo("merged")
    base = {f"lib/f{k}.py": _text(_lines(f"v{k}", 12)) for k in range(20)}
    f1, fixed = base["lib/f1.py"], base["lib/f1.py"] + "fix = 1\n"
    repo.commit("start", base)
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("side makes the fixed file", {"lib/f1.py": fixed})
    repo.git("checkout", "-q", "-b", "feat", "HEAD~1")
    repo.commit("feat", {"lib/f1.py": f1 + "feat = 1\n"})
    repo.git("checkout", "-q", "-b", "trunk", "HEAD~1")
    repo.commit("trunk", {"lib/f1.py": "main = 1\n" + f1})
    # the merge writes the same file as `side`, different from both of its parents'
    repo.git("merge", "-q", "--no-ff", "--no-commit", "-s", "ours", "feat")
    repo.commit("merge feat", {"lib/f1.py": fixed})
    repo.git("merge", "-q", "--no-ff", "-s", "ours", "-m", "merge side", "side")
    repo.commit("after", {"lib/f2.py": base["lib/f2.py"] + "after = 1\n"})
    _, plain = _index(repo, tmp_path / "plain", blame_from_history=False)
    for value in ("first-parent", "combined"):
        repo.git("config", "log.diffMerges", value)
        report, told = _index(repo, tmp_path / value)
        assert report.stage("blame").stats["from_history"] > 0
        assert told.table("blame").equals(plain.table("blame")), value


@pytest.mark.parametrize(
    "key, value",
    [
        ("diff.interHunkContext", "3"),  # -U0 hunks joined, with the lines between them
        ("diff.renameLimit", "1"),
        ("diff.orderFile", "no-such-order-file"),  # git log stops on it
        ("diff.submodule", "log"),
        ("diff.ignoreSubmodules", "all"),
        ("core.attributesFile", "*.py -diff"),  # a user's own attributes file, holding this
    ],
)
def test_the_index_does_not_depend_on_the_diff_configuration(make_repo, tmp_path, key, value):
    """The history's tables and blame of a repository with renames, a merge and a submodule
    are the same under git's defaults and under a setting that changes what `git log -p`
    prints by default."""
    repo = make_repo("configured")
    build_history(repo, 4)
    sub = make_repo("sub")
    sub.commit("one", {"a.txt": "a\n"})
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.path), "ext")
    repo.commit("add the submodule")
    sub.commit("two", {"a.txt": "a\nb\n"})
    repo.git("-C", "ext", "-c", "protocol.file.allow=always", "pull", "-q")
    core = repo.path.joinpath("pkg/core.py").read_text()
    repo.commit("bump it, edit two lines apart", {"pkg/core.py": "a = 1\n" + core + "z = 1\n"})
    _, plain = _index(repo, tmp_path / "plain")
    if key == "core.attributesFile":
        (tmp_path / "attributes").write_text(value + "\n")
        value = str(tmp_path / "attributes")
    repo.git("config", key, value)
    _, configured = _index(repo, tmp_path / "configured")
    for table in ("commits", "touches", "hunks", "blame"):
        assert configured.table(table).equals(plain.table(table)), table
