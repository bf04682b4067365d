"""Executors run a stage's per-item work: in this process, or on a local process pool.

Results always come back in input order, so an executor never changes a stage's output. Work
functions must be module-level (picklable) and take one item.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

# Below this many items a pool costs more to start than it saves.
POOL_MIN_ITEMS = 256


class Executor:
    """In-process, one item at a time."""

    jobs = 1

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        for item in items:
            yield fn(item)

    def close(self) -> None:
        pass


class LocalExecutor(Executor):
    """A process pool sized to the cores, started lazily on the first large map."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        items = list(items)
        if self.jobs == 1 or len(items) < POOL_MIN_ITEMS:
            yield from super().map(fn, items)
            return
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.jobs, mp_context=mp.get_context("forkserver")
            )
        chunk = max(1, min(64, len(items) // (self.jobs * 8)))
        yield from self._pool.map(fn, items, chunksize=chunk)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def make_executor(kind: str = "local", jobs: int | None = None) -> Executor:
    if kind == "local":
        return LocalExecutor(jobs)
    if kind == "inline":
        return Executor()
    raise ValueError(f"unknown executor {kind!r}; known: local, inline")
