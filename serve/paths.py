"""Turning a caller's file path into a repo-relative POSIX path, or refusing it.

Agents send absolute paths, `./` prefixes, Windows separators and now and then `../../etc`.
Everything that leaves the repository (by `..`, by an absolute path elsewhere, or through a
symlink pointing out) is refused with `InputError`, before any lookup.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path, PurePosixPath

from ..store.errors import InputError

MAX_PATH_CHARS = 4096


def repo_relative(repo_root: Path | None, file_path: str) -> str:
    if not isinstance(file_path, str):
        raise InputError("file_path must be text")
    return _repo_relative(repo_root, file_path)


@lru_cache(maxsize=4096)
def _repo_relative(repo_root: Path | None, file_path: str) -> str:
    if not isinstance(file_path, str) or not file_path.strip():
        raise InputError("file_path is empty")
    if len(file_path) > MAX_PATH_CHARS or "\0" in file_path:
        raise InputError("file_path is not a valid path")
    raw = file_path.strip().replace("\\", "/")
    if repo_root is not None and os.path.isabs(raw):
        root = Path(os.path.realpath(repo_root))
        real = Path(os.path.realpath(raw))
        try:
            inside = real.relative_to(root)
        except ValueError:
            raise InputError(f"{file_path}: outside the repository") from None
        return inside.as_posix()
    if raw.startswith("/"):
        raise InputError(f"{file_path}: outside the repository")
    parts: list[str] = []
    for part in PurePosixPath(raw).parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise InputError(f"{file_path}: outside the repository")
            parts.pop()
            continue
        parts.append(part)
    if not parts:
        raise InputError(f"{file_path}: names the repository itself, not a file")
    rel = "/".join(parts)
    if repo_root is not None:
        root = Path(os.path.realpath(repo_root))
        full = root / rel
        if full.exists() or full.is_symlink():
            real = Path(os.path.realpath(full))
            if real != root and root not in real.parents:
                raise InputError(f"{file_path}: a symlink that points outside the repository")
    return rel
