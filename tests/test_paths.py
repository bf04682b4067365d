"""Paths are confined when they are used: resolved again on every call (a symlink planted after
a path was first accepted is refused), and paths named by a diff's headers are confined before a
failed attempt is stored."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitstrata.serve.failures import build_failure_record
from gitstrata.serve.paths import _inside, repo_relative, stays_inside
from gitstrata.store.attempts import Attempt, FailedAttempt
from gitstrata.store.errors import InputError

OUTSIDE = "/etc/passwd"


def test_a_symlink_planted_after_the_path_was_accepted_is_refused(git_repo) -> None:
    root = git_repo.path
    git_repo.write("notes/todo.txt", "later\n")
    for _ in range(3):  # accepted, repeatedly: nothing may remember the answer
        assert repo_relative(root, "notes/todo.txt") == "notes/todo.txt"
        assert repo_relative(root, str(root / "notes" / "todo.txt")) == "notes/todo.txt"
    (root / "notes" / "todo.txt").unlink()
    os.symlink(OUTSIDE, root / "notes" / "todo.txt")
    for name in ("notes/todo.txt", str(root / "notes" / "todo.txt")):
        with pytest.raises(InputError, match="outside the repository"):
            repo_relative(root, name)


def test_a_folder_swapped_for_a_symlink_is_refused_for_every_path_below_it(git_repo) -> None:
    root = git_repo.path
    git_repo.write("cfg/app.ini", "[app]\n")
    assert repo_relative(root, "cfg/app.ini") == "cfg/app.ini"
    assert repo_relative(root, "cfg/missing.ini") == "cfg/missing.ini"  # names nothing yet
    (root / "cfg" / "app.ini").unlink()
    (root / "cfg").rmdir()
    os.symlink("/etc", root / "cfg")
    for name in ("cfg/app.ini", "cfg/missing.ini", "cfg/passwd", "./cfg/../cfg/passwd"):
        with pytest.raises(InputError, match="symlink that points outside"):
            repo_relative(root, name)


def _resolved(root: Path, rel: str) -> bool:
    """The reference: `realpath` of the root and of the whole path, asked afresh."""
    real = os.path.realpath(root)
    return _inside(real, os.path.realpath(os.path.join(real, rel)))


def test_the_walk_under_the_root_agrees_with_realpath(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    top = tmp_path / "top"
    root = top / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "file.py").write_text("y = 2\n")
    os.symlink("pkg", root / "src" / "inner")  # a link that stays inside
    os.symlink(outside, root / "src" / "away")  # a link that leaves
    os.symlink("../../outside/deep", root / "rel_away")
    os.symlink("missing_target", root / "dangling")
    os.symlink(root / "src", top / "linked_repo_src")
    names = [
        "src/pkg/mod.py", "src/inner/mod.py", "src/away/x", "src/away", "rel_away/y",
        "dangling", "dangling/z", "file.py/not_a_folder", "no/such/file", "src/../file.py",
        "src/../../top/repo/file.py", "src/inner/../../file.py", "src/./pkg", "src//pkg",
    ]  # fmt: skip
    for rel in names:
        assert stays_inside(root, rel) == _resolved(root, rel), rel
        assert stays_inside(str(root), rel) == _resolved(root, rel), rel

    # the root's real path is kept only while it names the same folder: moved away and a link
    # to another folder put in its place, the root is resolved again
    link = tmp_path / "via"
    os.symlink(top, link)
    via_root = link / "repo"
    assert stays_inside(via_root, "src/away/x") is False
    assert stays_inside(via_root, "src/pkg/mod.py") is True
    os.rename(top, tmp_path / "moved")
    os.symlink(outside, top)  # `via/repo` now leads into `outside` (no `repo` in it: missing)
    for rel in ("src/pkg/mod.py", "deep", "src/away/x"):
        assert stays_inside(via_root, rel) == _resolved(via_root, rel), rel
    (outside / "repo").mkdir()
    os.symlink(tmp_path / "moved" / "repo" / "src", outside / "repo" / "escape")
    for rel in ("escape/pkg/mod.py", "escape", "src"):
        assert stays_inside(via_root, rel) == _resolved(via_root, rel), rel
        assert stays_inside(via_root, rel) is False or rel == "src"

    # the link on the way pointed at another repository while the first stays where it was
    other = tmp_path / "other"
    (other / "repo").mkdir(parents=True)
    os.symlink(outside, other / "repo" / "leak")
    os.symlink(tmp_path / "moved", tmp_path / "via2")
    via2_root = tmp_path / "via2" / "repo"
    assert stays_inside(via2_root, "leak") is True  # names nothing in `moved/repo`
    os.unlink(tmp_path / "via2")
    os.symlink(other, tmp_path / "via2")
    assert stays_inside(via2_root, "leak") is False
    assert stays_inside(via2_root, "leak") == _resolved(via2_root, "leak")


@pytest.mark.parametrize(
    "name", ["../../etc/passwd", "/etc/passwd", "a/../../x", "..", "\\..\\..\\etc\\passwd"]
)
def test_paths_that_leave_the_repository_are_refused(git_repo, name) -> None:
    with pytest.raises(InputError):
        repo_relative(git_repo.path, name)


def diff_of(*paths: str) -> str:
    return "".join(
        f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-root:x:0:0\n+root::0:0\n"
        for p in paths
    )


def test_paths_of_a_diffs_headers_are_confined_before_they_are_stored(git_repo) -> None:
    root = git_repo.path
    git_repo.commit("feat: app", {"app.py": "x = 1\n"})
    os.symlink("/etc", root / "etc_link")
    diff = diff_of("app.py", "../../etc/passwd", "/etc/shadow", "etc_link/passwd", "ok/../../x")
    attempt = Attempt(None, diff, "FAILED tests/t.py::test_x", notes="n")
    rec = build_failure_record(attempt, repo_root=str(root))
    assert rec["targets"] == [{"path": "app.py", "qualname": None}]
    assert rec["target_notes"] == [
        "left out '../../etc/passwd', a path of the diff outside the repository",
        "left out '/etc/shadow', a path of the diff outside the repository",
        "left out 'etc_link/passwd', a path of the diff outside the repository",
        "left out 'ok/../../x', a path of the diff outside the repository",
    ]
    # without a work tree at hand the check is by name alone
    rec = build_failure_record(attempt)
    assert [t["path"] for t in rec["targets"]] == ["app.py", "etc_link/passwd"]
    # the caller's own file is refused outright, through a symlink too
    for name in ("../../etc/passwd", "etc_link/passwd"):
        with pytest.raises(InputError, match="inside the repository"):
            build_failure_record(Attempt(name, diff, "boom"), repo_root=str(root))


def test_a_stored_target_outside_the_repository_is_never_served() -> None:
    # a line written by an older version or by hand
    rec = {
        "id": 3,
        "ts": "2026-01-01T00:00:00Z",
        "fingerprint": "f" * 16,
        "targets": [
            {"path": "../../etc/passwd", "qualname": None},
            {"path": "/etc/passwd", "qualname": None},
            {"path": "app.py", "qualname": "main"},
        ],
    }
    assert FailedAttempt.from_record(rec).targets == (("app.py", "main"),)


def test_untracked_symlinks_are_not_read_into_a_snapshot(git_repo, tmp_path: Path) -> None:
    from gitstrata.serve.capture import snapshot_worktree

    git_repo.commit("feat: app", {"app.py": "x = 1\n"})
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT\n")
    os.symlink(secret, git_repo.path / "link.txt")
    git_repo.write("plain.txt", "plain text\n")
    snap = snapshot_worktree(git_repo.path)
    assert "+plain text" in snap
    assert "TOP-SECRET-CONTENT" not in snap
