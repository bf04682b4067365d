"""Where a repository's work tree and its index folder are, found from a starting directory.

Every entry point (the `Strata` facade behind the CLI and the Python API, the MCP server) asks
here, so the rules live in one place:

- The work tree root is the nearest folder at or above the starting directory that holds a
  `.git` entry (a folder, or the `gitdir:` file of a linked worktree or submodule). It is found
  with a few `stat` calls and no subprocess, so a one-shot command or a server start pays nothing.
- The index folder is the one named (`--out` / `--index`), else `<work tree>/.strata`.
- A named index folder needs no checkout: a downloaded index can be read anywhere.
- Without a work tree and without a named index, asking for either is a `NotARepository` error
  that says why (no such directory, a bare repository, not a repository).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import NotARepository

INDEX_FOLDER = ".strata"
_URI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


def is_uri(value: object) -> bool:
    """True for `scheme://...` strings (a remote index location), False for folder paths."""
    return isinstance(value, str) and bool(_URI_RE.match(value))


def find_repo_root(directory: str | os.PathLike[str]) -> Path | None:
    """The nearest folder at or above `directory` holding a `.git` entry (work tree root)."""
    here = Path(directory).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _looks_bare(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()


@dataclass(frozen=True)
class Location:
    """A starting directory resolved to its work tree (if any) and index folder."""

    directory: Path  # where the command was started (`-C`), as given
    repo: Path | None  # the work tree root, None without a checkout
    named_index: Path | None  # the index folder the caller named, if any

    @classmethod
    def resolve(
        cls,
        directory: str | os.PathLike[str] = ".",
        index_dir: str | os.PathLike[str] | None = None,
    ) -> Location:
        start = Path(directory)
        if not start.exists():
            raise NotARepository(f"{start}: no such directory")
        if not start.is_dir():
            raise NotARepository(f"{start}: not a directory")
        named = Path(index_dir) if index_dir is not None else None
        return cls(start, find_repo_root(start), named)

    def problem(self) -> NotARepository:
        """Why there is no work tree here."""
        if _looks_bare(self.directory):
            return NotARepository(f"{self.directory}: a bare repository has no work tree to index")
        return NotARepository(
            f"{self.directory}: not a git repository", hint="run gitstrata inside a git checkout"
        )

    def require_repo(self) -> Path:
        """The work tree root, or the error that says why there is none."""
        if self.repo is None:
            raise self.problem()
        return self.repo

    @property
    def index_dir(self) -> Path:
        """The named index folder, else `<work tree>/.strata` (an error without a work tree)."""
        if self.named_index is not None:
            return self.named_index
        return self.require_repo() / INDEX_FOLDER

    @property
    def index_dir_or_default(self) -> Path:
        """Like `index_dir`, but `<directory>/.strata` without a work tree (for a server that
        must start anyway and report the problem to its client)."""
        if self.named_index is not None or self.repo is not None:
            return self.index_dir
        return self.directory.resolve() / INDEX_FOLDER
