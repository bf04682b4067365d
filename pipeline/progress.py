"""Progress of long work: rich bars on a terminal, plain lines in CI and pipes, JSON lines for
a supervising process, or nothing.

Two levels report. The runner announces every stage of the run as it starts and ends (carried-
over stages too), so the last stages of a run are never silent; inside a stage, a task counts
its units (`capsule: commits`, `blame: files`, `embed: documents`) with an ETA from its rate so
far. Plain lines (`[blame: files] 120/480 (25%), ETA 9 s`) are for people and may change; a
process that reads progress (the MCP server indexing in the background) asks for `jsonl`, whose
lines are the contract defined in `store/progress.py`.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Literal

from ..store.progress import ProgressEvent, ProgressMessage, encode

if TYPE_CHECKING:
    from rich.progress import TaskID

Style = Literal["auto", "plain", "jsonl"]

INDEX_STEP = "index"  # the step that counts the stages of a run


class Task:
    def __init__(self, progress: Progress, label: str, total: int | None) -> None:
        self.progress = progress
        self.label = label
        self.total = total
        self.done = 0
        self.started = time.monotonic()

    def advance(self, n: int = 1) -> None:
        self.done += n
        self.progress._update(self)

    @property
    def eta(self) -> float | None:
        """Seconds left at the rate so far; None before the first unit or without a total."""
        if not self.total or self.done <= 0:
            return None
        elapsed = time.monotonic() - self.started
        return round(max(0.0, elapsed * (self.total - self.done) / self.done), 1)


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes} min {secs:02d} s"


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

    def stage_started(self, name: str, number: int, count: int) -> None:
        """Stage `number` of `count` (1-based) starts."""

    def stage_finished(
        self, name: str, number: int, count: int, seconds: float, skipped: bool
    ) -> None:
        """Stage `number` of `count` ended: ran for `seconds`, or was carried over."""

    def _start(self, task: Task) -> None:
        pass

    def _update(self, task: Task) -> None:
        pass

    def _finish(self, task: Task) -> None:
        pass

    def close(self) -> None:
        pass


# stages run side by side and report from their own threads: one line is one write, in one piece
_LINE_LOCK = threading.Lock()


def _write_line(stream: IO[str], text: str) -> None:
    with _LINE_LOCK:
        stream.write(text + "\n")
        stream.flush()


class PlainProgress(Progress):
    """For logs: one line per stage start and end, per task one line at its start, at most one
    update per `interval` seconds (with an ETA), and one at its end. A stage's lines carry the
    number it started as: stages run side by side, so the count of stages finished would give
    two stages that start together the same number."""

    def __init__(self, stream: IO[str] | None = None, interval: float = 5.0) -> None:
        self.stream = stream or sys.stderr
        self.interval = interval
        self._last: dict[int, float] = {}
        self._numbers: dict[str, int] = {}  # stage -> its place in the order stages started

    def _print(self, text: str) -> None:
        _write_line(self.stream, text)

    def _line(self, task: Task, final: bool = False) -> str:
        if task.total:
            pct = 100 * task.done // max(task.total, 1)
            line = f"[{task.label}] {task.done}/{task.total} ({pct}%)"
            eta = task.eta
            if not final and eta is not None:
                line += f", ETA {_duration(eta)}"
        elif task.done or not final:
            line = f"[{task.label}] {task.done}"
        else:
            line = f"[{task.label}] done"
        if final:
            line += f" in {_duration(time.monotonic() - task.started)}"
        return line

    def message(self, text: str) -> None:
        self._print(text)

    def stage_started(self, name: str, number: int, count: int) -> None:
        with _LINE_LOCK:
            number = self._numbers.setdefault(name, len(self._numbers) + 1)
        self._print(f"[{INDEX_STEP} {number}/{count}] {name}")

    def stage_finished(
        self, name: str, number: int, count: int, seconds: float, skipped: bool
    ) -> None:
        state = "up to date" if skipped else f"done in {_duration(seconds)}"
        number = self._numbers.get(name, number)
        self._print(f"[{INDEX_STEP} {number}/{count}] {name}: {state}")

    def _start(self, task: Task) -> None:
        self._last[id(task)] = task.started
        if task.total:
            self._print(self._line(task))

    def _update(self, task: Task) -> None:
        now = time.monotonic()
        if now - self._last.get(id(task), 0.0) >= self.interval:
            self._last[id(task)] = now
            self._print(self._line(task))

    def _finish(self, task: Task) -> None:
        self._last.pop(id(task), None)
        self._print(self._line(task, final=True))


class RichProgress(Progress):
    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as Bar

        self.console = Console(stderr=True)
        self.bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,
        )
        self.bar.start()
        self._ids: dict[int, TaskID] = {}
        self._stage: TaskID | None = None

    def message(self, text: str) -> None:
        self.console.print(text)

    def stage_started(self, name: str, number: int, count: int) -> None:
        label = f"{INDEX_STEP}: {name}"
        if self._stage is None:
            self._stage = self.bar.add_task(label, total=count, completed=number - 1)
        else:
            self.bar.update(self._stage, description=label, completed=number - 1)

    def stage_finished(
        self, name: str, number: int, count: int, seconds: float, skipped: bool
    ) -> None:
        if self._stage is not None:
            self.bar.update(self._stage, completed=number)
        if not skipped:
            self.console.print(f"{name}: done in {_duration(seconds)}")

    def _start(self, task: Task) -> None:
        self._ids[id(task)] = self.bar.add_task(task.label, total=task.total)

    def _update(self, task: Task) -> None:
        self.bar.update(self._ids[id(task)], completed=task.done)

    def _finish(self, task: Task) -> None:
        self.bar.remove_task(self._ids.pop(id(task)))

    def close(self) -> None:
        self.bar.stop()


class JsonlProgress(Progress):
    """One `store.progress` event per line: each stage's start and end, a task's start, at most
    one update per `interval` seconds, its end; and every message."""

    def __init__(self, stream: IO[str] | None = None, interval: float = 0.5) -> None:
        self.stream = stream or sys.stderr
        self.interval = interval
        self._last: dict[int, float] = {}

    def _emit(self, event: ProgressEvent | ProgressMessage) -> None:
        _write_line(self.stream, encode(event))

    def _event(self, task: Task) -> ProgressEvent:
        return ProgressEvent(task.label, task.done, task.total, eta=task.eta)

    def message(self, text: str) -> None:
        self._emit(ProgressMessage(text))

    def stage_started(self, name: str, number: int, count: int) -> None:
        self._emit(ProgressEvent(INDEX_STEP, number - 1, count, stage=name))

    def stage_finished(
        self, name: str, number: int, count: int, seconds: float, skipped: bool
    ) -> None:
        self._emit(ProgressEvent(INDEX_STEP, number, count, stage=name))

    def _start(self, task: Task) -> None:
        self._last[id(task)] = task.started
        self._emit(self._event(task))

    def _update(self, task: Task) -> None:
        now = time.monotonic()
        if now - self._last.get(id(task), 0.0) >= self.interval:
            self._last[id(task)] = now
            self._emit(self._event(task))

    def _finish(self, task: Task) -> None:
        self._last.pop(id(task), None)
        self._emit(ProgressEvent(task.label, task.done, task.total))


def make_progress(quiet: bool, style: Style = "auto") -> Progress:
    """`auto` is a rich bar on a terminal and plain lines elsewhere; `quiet` silences every style."""
    if quiet:
        return Progress()
    if style == "jsonl":
        return JsonlProgress()
    if style == "auto" and sys.stderr.isatty():
        return RichProgress()
    return PlainProgress()
