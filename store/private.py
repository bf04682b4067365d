"""Files and folders only their owner can use: an index holds a repository's whole history.

Folders gitstrata creates are 0700 and its files 0600, whatever the umask (a umask only takes
bits away, so each mode is also set explicitly after creation). A store folder or a journal that
an older release made readable by others is tightened the next time it is written, when the
current user owns it; nothing outside the index folder is ever changed.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path, *, existing: bool = True) -> Path:
    """`path` as a folder, created 0700 with any missing parents; an existing one is set to
    0700 too unless `existing` is False (a folder the user named that may not be ours)."""
    path = Path(path)
    missing: list[Path] = []
    here = path
    while not here.exists() and here != here.parent:
        missing.append(here)
        here = here.parent
    if not missing:
        if existing:
            tighten(path, DIR_MODE)
        return path
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue  # made by a concurrent writer
        os.chmod(folder, DIR_MODE)
    return path


def tighten(path: Path, mode: int, fd: int | None = None) -> None:
    """Set `path` (or open `fd`) to `mode` when the current user owns it and it differs."""
    try:
        st = os.fstat(fd) if fd is not None else os.stat(path)
    except OSError:
        return
    if st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) == mode:
        return
    try:
        if fd is not None:
            os.fchmod(fd, mode)
        else:
            os.chmod(path, mode)
    except OSError:
        pass  # a read-only file system: nothing new is written there either


def open_private(path: Path, flags: int) -> int:
    """`os.open(path, flags | O_CREAT)` with the file 0600 (a new one, or an older one
    tightened)."""
    fd = os.open(path, flags | os.O_CREAT, FILE_MODE)
    tighten(path, FILE_MODE, fd)
    return fd


def write_private(path: Path, data: bytes, *, sync: bool = False) -> None:
    """Write `data` to `path` (created 0600, truncated)."""
    fd = open_private(path, os.O_WRONLY | os.O_TRUNC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def tighten_tree(root: Path) -> None:
    """Every folder under `root` (itself included) 0700 and every file 0600."""
    os.chmod(root, DIR_MODE)
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            os.chmod(os.path.join(folder, name), DIR_MODE)
        for name in files:
            full = os.path.join(folder, name)
            if not os.path.islink(full):
                os.chmod(full, FILE_MODE)


def write_shared(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace `path` with `data` atomically (a temp file fsync'd, then renamed), readable by
    others: the team files meant to be committed (invariants, memories), not the index's own."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
