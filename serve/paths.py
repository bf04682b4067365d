"""Turning a caller's file path into a repo-relative POSIX path, or refusing it.

Agents send absolute paths, `./` prefixes, Windows separators and now and then `../../etc`.
Everything that leaves the repository (by `..`, by an absolute path elsewhere, or through a
symlink pointing out, at any depth) is refused with `InputError`, before any lookup.

Checked when used, every time: the file system is asked again on each call (no per-path memo),
so a symlink planted after a path was first accepted is refused from the next call on. Only the
root's own real path is kept, and checked against the folder it names on every call.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from ..store.errors import InputError

MAX_PATH_CHARS = 4096


def repo_relative(repo_root: Path | None, file_path: str) -> str:
    if not isinstance(file_path, str) or not file_path.strip():
        raise InputError(
            "file_path is empty" if isinstance(file_path, str) else "file_path must be text"
        )
    if len(file_path) > MAX_PATH_CHARS or "\0" in file_path:
        raise InputError("file_path is not a valid path")
    raw = file_path.strip().replace("\\", "/")
    if repo_root is not None and os.path.isabs(raw):
        root = os.path.realpath(repo_root)
        real = os.path.realpath(raw)
        if not _inside(root, real):
            raise InputError(f"{file_path}: outside the repository")
        rel = os.path.relpath(real, root)
        if rel == ".":
            raise InputError(f"{file_path}: names the repository itself, not a file")
        return Path(rel).as_posix()
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
    if repo_root is not None and not stays_inside(repo_root, rel):
        raise InputError(f"{file_path}: a symlink that points outside the repository")
    return rel


def stays_inside(repo_root: str | os.PathLike[str], rel: str) -> bool:
    """Whether `rel` under `repo_root`, every symlink on the way resolved now (a missing tail
    is fine: it names nothing yet), is still inside the repository.

    What `os.path.realpath` of the whole path says, for fewer system calls: the root's real
    path is kept while the root and that path still name the same folder (two `stat`s rather
    than an `lstat` of every folder above it), and a plain relative path is walked from there,
    one `lstat` per part; the first symlink on the way, or a part such as `..`, sends it to
    `realpath`."""
    root = _real_root(repo_root)
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return _inside(root, os.path.realpath(os.path.join(root, rel)))
    path = root
    for part in parts:
        path = os.path.join(path, part)
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            return True  # nothing there: no symlink further on either (realpath reads it so)
        if stat.S_ISLNK(mode):
            return _inside(root, os.path.realpath(os.path.join(root, rel)))
    return True


_ROOTS: dict[str, tuple[str, int, int]] = {}  # root as given -> (real path, device, inode)


def _real_root(repo_root: str | os.PathLike[str]) -> str:
    """`os.path.realpath(repo_root)`, kept while both the given path and the kept real path
    still lead to the same folder (device and inode): a folder moved, or a link on the way
    pointed elsewhere, is resolved again."""
    key = os.fspath(repo_root)
    kept = _ROOTS.get(key)
    if kept is not None:
        real, dev, ino = kept
        try:
            a, b = os.stat(key), os.stat(real)
        except OSError:
            pass
        else:
            if (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino) == (dev, ino):
                return real
    real = os.path.realpath(key)
    try:
        st = os.stat(real)
    except OSError:
        _ROOTS.pop(key, None)
        return real
    if len(_ROOTS) >= 64:
        _ROOTS.clear()
    _ROOTS[key] = (real, st.st_dev, st.st_ino)
    return real


def _inside(root: str, real: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)
