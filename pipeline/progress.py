"""Progress of long work: rich bars on a terminal, plain lines in CI and pipes, or nothing.

Plain lines look like `[capsule: commits] 120/480 (25%)`, or `[documents: full-text index] 3`
when the total is unknown, so a supervising process (the MCP server indexing in the background)
can read the percentage from the child's stderr.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import TaskID


class Task:
    def __init__(self, progress: Progress, label: str, total: int | None) -> None:
        self.progress = progress
        self.label = label
        self.total = total
        self.done = 0

    def advance(self, n: int = 1) -> None:
        self.done += n
        self.progress._update(self)


class Progress:
    """Silent base: `--quiet`."""

    @contextmanager
    def task(self, label: str, total: int | None = None) -> Iterator[Task]:
        task = Task(self, label, total)
        self._start(task)
        try:
            yield task
        finally:
            self._finish(task)

    def message(self, text: str) -> None:
        pass

    def _start(self, task: Task) -> None:
        pass

    def _update(self, task: Task) -> None:
        pass

    def _finish(self, task: Task) -> None:
        pass

    def close(self) -> None:
        pass


class PlainProgress(Progress):
    """One line per task start, at most one update line per `interval` seconds, one at the end."""

    def __init__(self, stream: IO[str] | None = None, interval: float = 2.0) -> None:
        self.stream = stream or sys.stderr
        self.interval = interval
        self._last = 0.0

    def _line(self, task: Task) -> str:
        if task.total:
            pct = 100 * task.done // max(task.total, 1)
            return f"[{task.label}] {task.done}/{task.total} ({pct}%)"
        return f"[{task.label}] {task.done}"

    def message(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def _start(self, task: Task) -> None:
        self._last = time.monotonic()

    def _update(self, task: Task) -> None:
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            print(self._line(task), file=self.stream, flush=True)

    def _finish(self, task: Task) -> None:
        if task.done:
            print(self._line(task), file=self.stream, flush=True)


class RichProgress(Progress):
    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        self.console = Console(stderr=True)
        self.bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        self.bar.start()
        self._ids: dict[int, TaskID] = {}

    def message(self, text: str) -> None:
        self.console.print(text)

    def _start(self, task: Task) -> None:
        self._ids[id(task)] = self.bar.add_task(task.label, total=task.total)

    def _update(self, task: Task) -> None:
        self.bar.update(self._ids[id(task)], completed=task.done)

    def _finish(self, task: Task) -> None:
        self.bar.remove_task(self._ids.pop(id(task)))

    def close(self) -> None:
        self.bar.stop()


def make_progress(quiet: bool) -> Progress:
    if quiet:
        return Progress()
    if sys.stderr.isatty():
        return RichProgress()
    return PlainProgress()
