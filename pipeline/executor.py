"""Executors run a stage's work units: in this process, on a local process pool, or as Ray tasks.

Results always come back in input order, so an executor never changes a stage's output: the
same rows, the same checksums, the same manifest fingerprints whichever one ran (the executor is
not part of any fingerprint). Work functions must be module-level (picklable) and take one item.

Two kinds of work:
- `map`: many small items (one file to chunk); below `POOL_MIN_ITEMS` (or the caller's
  `min_items`, for items cheaper than a file) a pool costs more to start than it saves, so
  they run in this process.
- `map_units`: few large units (a commit range to extract, a batch of files to blame); each is
  worth shipping to a worker, whatever their number.

A `distributed` executor's workers may run on other hosts: they read the repository from the
path in the work unit, so that path must be visible to them (a shared filesystem, or a clone at
the same path and commit on every node).
"""

from __future__ import annotations

import os
import sys
import threading
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import context as mp_context
from multiprocessing import current_process, popen_forkserver
from multiprocessing.context import BaseContext
from typing import Any

from ..store.collector import batch_collection
from ..store.errors import InputError

# Below this many items a pool costs more to start than it saves.
POOL_MIN_ITEMS = 256
# worker processes (and stage threads) per core of this machine at the most: more only queue
# for the cores, and `--jobs 100000` started processes until the machine stalled
MAX_JOBS_PER_CPU = 4
# the modules whose functions run on the local pools (capsule's ranges; chunk's files; the
# documents' terms and the embedder's features), imported once by the fork server: every worker
# it forks starts with them loaded, where each worker imported them itself (~0.35 s of a core)
PRELOAD = ("gitstrata.pipeline.history", "gitstrata.pipeline.tree", "gitstrata.pipeline.retrieval")
# imported by the fork server too, and by nothing else: its workers' quiet end when the run that
# asked for them is gone before they start
FORKSERVER_HOOK = "gitstrata.pipeline.forkserver_hook"


# multiprocessing's resource tracker removes the named semaphores of a process that ended without
# removing them, and warns about each on stderr: under an interrupted index's one line, two lines
# of noise (the tracker runs with this process's warning options, given to it when it starts)
_QUIET_TRACKER = "ignore::UserWarning:multiprocessing.resource_tracker"


_MAIN_LOCK = threading.Lock()


@contextmanager
def _main_hidden() -> Iterator[None]:
    """`__main__` replaced by an empty module while a worker's start-up data is made.

    multiprocessing sends a new worker the path of the main module, and the worker runs that
    file again (as `__mp_main__`) before its first task. A script calling `Strata.index()`
    without an `if __name__ == "__main__":` guard, as the README's Python example reads when
    saved as a file, then started a second index in every worker, which failed, and the run
    ended in `BrokenProcessPool`. The workers run only gitstrata's own module-level functions,
    so they never need the caller's main module."""
    with _MAIN_LOCK:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if main is None:
                del sys.modules["__main__"]
            else:
                sys.modules["__main__"] = main


# whether this process started the fork server (or launched a worker through it): a pool
# then forks a worker at once, without the server's imports to wait for (`Executor.apart`)
_server_started = threading.Event()


class _WorkerPopen(popen_forkserver.Popen):
    def _launch(self, process_obj: Any) -> None:
        with _main_hidden():
            super()._launch(process_obj)  # type: ignore[misc]  # not in typeshed
        _server_started.set()


class _WorkerProcess(mp_context.ForkServerProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        return _WorkerPopen(process_obj)


class _WorkerContext(mp_context.ForkServerContext):
    Process = _WorkerProcess  # type: ignore[assignment]


_CONTEXT = _WorkerContext()


def pool_context() -> BaseContext:
    """How every local process pool starts its workers: forked by a fork server (never a fork of
    this process, whose stage threads may hold locks), which imports `PRELOAD` first, and
    started without the caller's main module (`_main_hidden`)."""
    _CONTEXT.set_forkserver_preload([*PRELOAD, FORKSERVER_HOOK])
    if _QUIET_TRACKER not in sys.warnoptions:
        sys.warnoptions.append(_QUIET_TRACKER)
    return _CONTEXT


def local_pool(
    workers: int, initializer: Callable[..., None] | None = None, initargs: tuple = ()
) -> ProcessPoolExecutor:
    """A process pool of `workers` on `pool_context`, each worker running `initializer(*initargs)`
    first. Its workers end as soon as this process is gone, however it ended (`_watch_owner`)."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=pool_context(),
        initializer=_start_worker,
        initargs=(_owner_end(), initializer, initargs),
    )


_OWNER_LOCK = threading.Lock()
# (pid, read end, write end) of this process's owner pipe; the write end is never written to,
# and stays open while this process lives
_owner: tuple[int, Any, Any] | None = None


def _owner_end() -> Any:
    """The read end of a pipe whose write end only this process holds: a worker reading it sees
    its end of file once this process is gone, killed or not. One pipe per process (a fork of
    this process makes its own)."""
    global _owner
    with _OWNER_LOCK:
        if _owner is None or _owner[0] != os.getpid():
            reader, writer = pool_context().Pipe(duplex=False)
            _owner = (os.getpid(), reader, writer)
        return _owner[1]


def _start_worker(owner: Any, initializer: Callable[..., None] | None, initargs: tuple) -> None:
    batch_collection()  # a worker of ours: its collector is set for batch work
    threading.Thread(target=_watch_owner, args=(owner,), name="owner-watch", daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _watch_owner(owner: Any) -> None:
    """End this worker once the process that made its pool is gone. Without it, a run killed or
    interrupted from outside (a CI timeout, a supervisor) left its workers behind for good: one
    blocked writing a result nobody reads, the other waiting for that one's lock, and the fork
    server alive for them."""
    try:
        while True:
            owner.recv_bytes()  # nothing is ever sent: this returns only at the end of file
    except (EOFError, OSError):
        os._exit(1)


def start_pool_server() -> None:
    """Start the fork server of `pool_context` now, without waiting for it: it imports `PRELOAD`
    on another core while this process goes on, so the first pool forks its workers at once."""
    from multiprocessing import forkserver

    pool_context()  # its preload names gitstrata's modules only, never the caller's main
    forkserver.ensure_running()
    _server_started.set()


def local_jobs(jobs: int | None) -> int:
    """The jobs a run on this machine uses for `jobs` asked (None: one per core), at most
    `MAX_JOBS_PER_CPU` per core; one in a daemonic process (a worker of a caller's own
    multiprocessing pool, indexing several repositories at once), which may not start
    processes of its own."""
    if current_process().daemon:
        return 1
    cpus = os.cpu_count() or 1
    return max(1, min(jobs or cpus, MAX_JOBS_PER_CPU * cpus))


EXECUTORS = ("local", "inline", "ray")
RAY_HINT = "install the extra: pip install 'gitstrata[ray]'"


class Executor:
    """In-process, one item at a time."""

    jobs = 1
    distributed = False

    def map(
        self, fn: Callable[[Any], Any], items: Iterable[Any], min_items: int = POOL_MIN_ITEMS
    ) -> Iterator[Any]:
        for item in items:
            yield fn(item)

    def map_units(self, fn: Callable[[Any], Any], units: Iterable[Any]) -> Iterator[Any]:
        return self.map(fn, units)

    def apart(self, fn: Callable[[Any], Any], unit: Any) -> Any:
        """`fn(unit)`, off this process where a worker can take it at once (here: in it)."""
        return fn(unit)

    def close(self) -> None:
        pass


class LocalExecutor(Executor):
    """A process pool sized to the cores, started lazily on the first large map."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = local_jobs(jobs)
        self._pool: ProcessPoolExecutor | None = None
        # stages running side by side share the one pool
        self._pool_lock = threading.Lock()

    def _ensure_pool(self) -> ProcessPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = local_pool(self.jobs)
            return self._pool

    def map(
        self, fn: Callable[[Any], Any], items: Iterable[Any], min_items: int = POOL_MIN_ITEMS
    ) -> Iterator[Any]:
        items = list(items)
        if self.jobs == 1 or len(items) < min_items:
            yield from super().map(fn, items)
            return
        chunk = max(1, min(64, len(items) // (self.jobs * 8)))
        yield from self._ensure_pool().map(fn, items, chunksize=chunk)

    def map_units(self, fn: Callable[[Any], Any], units: Iterable[Any]) -> Iterator[Any]:
        units = list(units)
        if self.jobs == 1 or len(units) < 2:
            yield from Executor.map(self, fn, units)
            return
        yield from self._ensure_pool().map(fn, units)

    def apart(self, fn: Callable[[Any], Any], unit: Any) -> Any:
        """`fn(unit)` on a worker of the pool once this run's fork server is up (a worker is
        then forked at once): a stage's Python work there leaves this process's interpreter
        lock to the stages running beside it, on the other core. In this process otherwise:
        a server started for one unit would make it wait for the server's imports."""
        if self.jobs == 1 or not _server_started.is_set():
            return fn(unit)
        return self._ensure_pool().submit(fn, unit).result()

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(cancel_futures=True)
                self._pool = None


def _run_batch(fn: Callable[[Any], Any], batch: Sequence[Any]) -> list[Any]:
    return [fn(item) for item in batch]


class RayExecutor(Executor):
    """Work units as Ray tasks: on a local Ray runtime started here (`address` None), or on the
    cluster at `address` ("auto" for the one this host belongs to)."""

    distributed = True

    def __init__(self, jobs: int | None = None, address: str | None = None) -> None:
        if address is None and jobs is not None:
            jobs = local_jobs(jobs)  # a local runtime: this machine's cores
        try:
            import ray
        except ImportError:
            raise InputError(
                "the ray executor needs Ray, which is not installed", hint=RAY_HINT
            ) from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            import logging

            # Ray reports usage statistics unless told not to; nothing leaves the machine.
            os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
            kwargs: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": logging.ERROR,
                "configure_logging": True,
            }
            if address is not None:
                kwargs["address"] = address
            elif jobs is not None:
                kwargs["num_cpus"] = jobs
            try:
                ray.init(**kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = address or "a local Ray runtime"
                raise InputError(
                    f"cannot start the ray executor on {where}: {exc}",
                    hint="check --address (host:port of the head node, or auto)",
                ) from None
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.jobs = max(1, jobs or cpus)
        self._task = ray.remote(_run_batch)

    def _batches(self, fn: Callable[[Any], Any], items: list[Any], per_task: int) -> Iterator[Any]:
        refs = [
            self._task.remote(fn, items[i : i + per_task]) for i in range(0, len(items), per_task)
        ]
        for ref in refs:
            yield from self._ray.get(ref)

    def map(
        self, fn: Callable[[Any], Any], items: Iterable[Any], min_items: int = POOL_MIN_ITEMS
    ) -> Iterator[Any]:
        items = list(items)
        if len(items) < min_items:
            yield from super().map(fn, items)
            return
        per_task = max(1, min(256, -(-len(items) // (self.jobs * 4))))
        yield from self._batches(fn, items, per_task)

    def map_units(self, fn: Callable[[Any], Any], units: Iterable[Any]) -> Iterator[Any]:
        yield from self._batches(fn, list(units), 1)

    def close(self) -> None:
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()
        self._started = False


def make_executor(
    kind: str = "local", jobs: int | None = None, address: str | None = None
) -> Executor:
    if kind == "local":
        return LocalExecutor(jobs)
    if kind == "inline":
        return Executor()
    if kind == "ray":
        return RayExecutor(jobs, address)
    raise InputError(f"unknown executor {kind!r}", hint=f"known: {', '.join(EXECUTORS)}")
