"""The user's cache folder: what gitstrata keeps between processes outside any repository.

Invariants:
- The folder is `$XDG_CACHE_HOME/gitstrata` (default `~/.cache/gitstrata`), made 0700; a file in
  it is written 0600 under a temporary name and published by rename, so a reader sees a whole
  file or none.
- A file is read only when the user running this process owns it (POSIX).
- `GITSTRATA_CACHE=off` stops every file here being read or written; nothing in it is ever
  needed, each only saves time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from . import private

OFF = ("off", "0", "false", "no")
_SAVERS: list[Callable[[], None]] = []


def on_save(save: Callable[[], None]) -> None:
    """Register a cache's `save`: run at exit (`atexit`) and by `save_all`, which a process
    ending through `os._exit` (a one-shot answer, a signalled server) calls first."""
    import atexit

    _SAVERS.append(save)
    atexit.register(save)


def save_all() -> None:
    """Save every cache this process registered (each does nothing when it has nothing new)."""
    for save in list(_SAVERS):
        save()


def folder() -> Path | None:
    """The cache folder, or None when caching is off or no absolute folder can be named."""
    if os.environ.get("GITSTRATA_CACHE", "").lower() in OFF:
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    return Path(base) / "gitstrata"


def owned(fd: int) -> bool:
    """Whether the open file `fd` belongs to this process's user (always, where there are none)."""
    owner = getattr(os, "getuid", None)
    return owner is None or os.fstat(fd).st_uid == owner()


def read_owned(path: Path) -> bytes | None:
    """`path`'s bytes, or None when it is missing, unreadable or another user's."""
    try:
        with open(path, "rb") as fh:
            return fh.read() if owned(fh.fileno()) else None
    except OSError:
        return None


def write_private(path: Path, data: bytes) -> bool:
    """Replace `path` with `data` (0600 in a 0700 folder), atomically; False where it cannot be
    written, which a cache simply does without."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        private.private_dir(path.parent)
        private.write_private(tmp, data)
        os.replace(tmp, path)
        return True
    except (OSError, ValueError):
        try:
            tmp.unlink()
        except OSError:
            pass
        return False
