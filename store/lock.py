"""An exclusive, blocking file lock so two `gitstrata index` runs serialise.

`flock` locks die with their process, so a crashed indexer never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from .errors import IndexLocked
from .private import open_private


class FileLock:
    def __init__(
        self,
        path: Path,
        *,
        timeout: float | None = None,
        on_wait: Callable[[], None] | None = None,
    ) -> None:
        self.path = path
        self.timeout = timeout
        self.on_wait = on_wait
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = open_private(self.path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if self.on_wait is not None:
                self.on_wait()
            deadline = None if self.timeout is None else time.monotonic() + self.timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if deadline is not None and time.monotonic() > deadline:
                        os.close(fd)
                        raise IndexLocked(
                            f"{self.path.parent}: another gitstrata index is still running",
                            hint="wait for it to finish, or stop it",
                        ) from None
                    time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
