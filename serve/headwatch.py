"""Which commit a repository's HEAD names, watched without a subprocess per request.

Invariants:

- HEAD is watched by `stat` of `.git/HEAD`, the ref it names and `packed-refs`; the files are
  read, and `git` asked, only when one of those stats changed.
- A linked worktree is followed to its own git dir (HEAD) and the common dir (refs).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..store.status import read_head


def _git_dirs(repo: Path) -> tuple[Path, Path]:
    """(git dir, common dir): they differ for a linked worktree."""
    git = repo / ".git"
    if git.is_file():
        text = git.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            git = (repo / text[7:].strip()).resolve()
    common = git
    try:
        common = (git / (git / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        pass
    return git, common


def _stat_key(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class HeadWatch:
    """Which commit HEAD names, re-read only when a stat of the files behind it changed."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.git_dir, self.common_dir = _git_dirs(repo)
        self._head_name = str(self.git_dir / "HEAD")  # stat'ed on every request
        self._head_key: tuple[int, int, int] | None = None
        self._ref: str | None = None
        self._ref_files: tuple[str, ...] = ()
        self._key: tuple[Any, ...] | None = None
        self._sha: str | None = None

    def poll(self) -> str | None:
        head_key = _stat_key(self._head_name)
        if head_key != self._head_key:
            self._head_key = head_key
            try:
                with open(self._head_name, encoding="utf-8") as fh:
                    text = fh.read().strip()
            except OSError:
                text = ""
            self._ref = text[4:].strip() if text.startswith("ref:") else None
            # the files that can move the branch: its loose ref (worktree, then common) and
            # the packed refs
            self._ref_files = (
                ()
                if self._ref is None
                else (
                    str(self.git_dir / self._ref),
                    str(self.common_dir / self._ref),
                    str(self.common_dir / "packed-refs"),
                )
            )
        key: tuple[Any, ...] = (head_key, *map(_stat_key, self._ref_files))
        if key != self._key:
            self._key = key
            self._sha = read_head(self.repo)
        return self._sha
