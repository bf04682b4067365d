"""One background `gitstrata index` child of the MCP server, and what it has reported so far.

Invariants:

- The server never imports the pipeline: it runs `gitstrata index --progress jsonl` as a child
  process with its stderr in `<index>/mcp-index.log`.
- Progress is decoded with `store.progress`, the one definition of that format; the log's other
  lines (messages, `error:` / `hint:`) are kept as a short tail for the failure report.
- A line still being written is left for the next read, so an event is never half decoded.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..store.private import open_private
from ..store.progress import ProgressEvent, ProgressMessage, decode

LOG_NAME = "mcp-index.log"
# the message a run prints while another run holds the index lock (pipeline/runner.py)
WAITING = "waiting for another gitstrata index"


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Build:
    """One `gitstrata index` child and what its log said so far."""

    head: str
    process: subprocess.Popen
    log_path: Path
    started: float = field(default_factory=time.monotonic)
    started_at: str = field(default_factory=utc_now)
    offset: int = 0
    step: str | None = None
    done: int = 0
    total: int | None = None
    percent: int | None = None
    tail: list[str] = field(default_factory=list)
    waiting: bool = False  # on another run's lock

    @classmethod
    def start(cls, python: str, repo: Path, index_dir: Path, head: str) -> Build:
        """Start `gitstrata index` on `repo` into `index_dir`, its stderr to the log file."""
        log_path = index_dir / LOG_NAME
        cmd = [
            python,
            "-m",
            "gitstrata",
            "index",
            str(repo),
            "--out",
            str(index_dir),
            "--progress",
            "jsonl",
        ]
        env = {**os.environ, "NO_COLOR": "1"}
        with os.fdopen(open_private(log_path, os.O_WRONLY | os.O_TRUNC), "wb") as fh:
            process = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=fh,
                cwd=repo,
                env=env,
            )
        return cls(head=head, process=process, log_path=log_path)

    def read_log(self) -> None:
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1  # a line still being written is read next time
        self.offset += end
        for raw in data[:end].decode("utf-8", "replace").splitlines():
            line = raw.strip()
            if not line:
                continue
            event = decode(line)
            if isinstance(event, ProgressEvent):
                self.waiting = False
                self.step, self.done = event.step, event.done
                self.total, self.percent = event.total, event.percent
                continue
            if isinstance(event, ProgressMessage):
                line = event.text
                self.waiting = self.waiting or line.startswith(WAITING)
            self.tail = [*self.tail[-19:], line]

    def stop(self) -> None:
        """End the child if it still runs (it publishes nothing when interrupted)."""
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def error_text(self, code: int) -> str:
        lines = [x for x in self.tail if x.startswith(("error:", "hint:"))]
        if lines:
            return " ".join(lines)
        last = self.tail[-1] if self.tail else ""
        return f"`gitstrata index` exited with status {code}" + (f": {last}" if last else "")

    def where(self) -> str:
        """Where the child is, in words for the agent waiting on it."""
        if self.waiting:
            return "waiting for another `gitstrata index` run on this index to finish"
        if self.step is None:
            return "starting"
        if self.percent is not None:
            return f"step {self.step!r}, {self.percent}% done"
        return f"step {self.step!r}"

    def progress(self) -> dict[str, Any]:
        """The last step the child reported (steps without a known size report no percent)."""
        return {
            "step": self.step,
            "done": self.done,
            "total": self.total,
            "percent": self.percent,
            "waiting_for_lock": self.waiting,
            "seconds": round(time.monotonic() - self.started, 1),
        }
