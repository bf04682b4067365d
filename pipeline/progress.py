"""Progress of long work: rich bars on a terminal, plain lines in CI and pipes, JSON lines for
a supervising process, or nothing.

Plain lines (`[capsule: commits] 120/480 (25%)`) are for people and may change; a process that
reads progress (the MCP server indexing in the background) asks for `jsonl`, whose lines are the
contract defined in `store/progress.py`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Literal

from ..store.progress import ProgressEvent, ProgressMessage, encode

if TYPE_CHECKING:
    from rich.progress import TaskID

Style = Literal["auto", "plain", "jsonl"]


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


class JsonlProgress(Progress):
    """One `store.progress` event per line: a task's start, at most one update per `interval`
    seconds, its end; and every message."""

    def __init__(self, stream: IO[str] | None = None, interval: float = 0.5) -> None:
        self.stream = stream or sys.stderr
        self.interval = interval
        self._last = 0.0

    def _emit(self, event: ProgressEvent | ProgressMessage) -> None:
        print(encode(event), file=self.stream, flush=True)

    def _event(self, task: Task) -> ProgressEvent:
        return ProgressEvent(task.label, task.done, task.total)

    def message(self, text: str) -> None:
        self._emit(ProgressMessage(text))

    def _start(self, task: Task) -> None:
        self._last = time.monotonic()
        self._emit(self._event(task))

    def _update(self, task: Task) -> None:
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._emit(self._event(task))

    def _finish(self, task: Task) -> None:
        self._emit(self._event(task))


def make_progress(quiet: bool, style: Style = "auto") -> Progress:
    """`auto` is a rich bar on a terminal and plain lines elsewhere; `quiet` silences every style."""
    if quiet:
        return Progress()
    if style == "jsonl":
        return JsonlProgress()
    if style == "auto" and sys.stderr.isatty():
        return RichProgress()
    return PlainProgress()
