"""The progress contract between `gitstrata index` and a process that supervises it.

`gitstrata index --progress jsonl` writes one JSON object per line on stderr, encoded here; a
supervisor (the MCP server building its index in the background) decodes them here. Both sides
import this module, so the format has exactly one definition; the human lines of a plain run
are not a contract and are never parsed.

Lines:

    {"event": "progress", "step": "index", "done": 2, "total": 10, "stage": "blame"}
    {"event": "progress", "step": "capsule: commits", "done": 120, "total": 480, "eta": 31.5}
    {"event": "progress", "step": "fulltext: documents", "done": 0, "total": null}
    {"event": "message", "text": "waiting for another gitstrata index on ... to finish ..."}

Invariants:

- One event per line, no newline inside a line (JSON escapes it), keys in the order above;
  `eta` and `stage` are present only when known.
- The step `index` counts the stages of the run: `done` is the number of stages finished and
  `stage` names the one that starts (`done` = its number - 1) or has just finished (`done` = its
  number). Every stage reports both, whether it runs or is carried over from the last index.
- `eta` is the estimated seconds left in `step`, from its rate so far (after its first unit).
- `done` counts finished units of `step` and never decreases within one step; `total` is the
  number of units when it is known up front, else null. A step reports at its start (done 0),
  at most once per interval while it runs, and at its end.
- Any other line on the same stream (a Python warning, an `error:` / `hint:` line of a failed
  run) decodes to None, so a reader keeps it as plain text instead of failing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TypeGuard

PROGRESS = "progress"
MESSAGE = "message"


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """How far one step of an index run has got."""

    step: str
    done: int
    total: int | None = None
    eta: float | None = None
    stage: str | None = None

    @property
    def percent(self) -> int | None:
        """Whole percent done, or None for a step whose size is not known up front."""
        if not self.total:
            return None
        return min(100, 100 * self.done // self.total)


@dataclass(frozen=True, slots=True)
class ProgressMessage:
    """A line of text the run wants its user to see (e.g. it waits for another run's lock)."""

    text: str


Event = ProgressEvent | ProgressMessage


def encode(event: Event) -> str:
    """One line of JSON, without the trailing newline."""
    if isinstance(event, ProgressEvent):
        data: dict[str, object] = {
            "event": PROGRESS,
            "step": event.step,
            "done": event.done,
            "total": event.total,
        }
        if event.eta is not None:
            data["eta"] = event.eta
        if event.stage is not None:
            data["stage"] = event.stage
    else:
        data = {"event": MESSAGE, "text": event.text}
    return json.dumps(data, ensure_ascii=False, separators=(", ", ": "))


def decode(line: str) -> Event | None:
    """The event a line encodes, or None for any line that is not one."""
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    kind = data.get("event")
    if kind == PROGRESS:
        step, done, total = data.get("step"), data.get("done"), data.get("total")
        eta, stage = data.get("eta"), data.get("stage")
        if (
            isinstance(step, str)
            and _count(done)
            and (total is None or _count(total))
            and (eta is None or _seconds(eta))
            and (stage is None or isinstance(stage, str))
        ):
            return ProgressEvent(step, done, total, None if eta is None else float(eta), stage)
        return None
    if kind == MESSAGE and isinstance(data.get("text"), str):
        return ProgressMessage(data["text"])
    return None


def _count(value: object) -> TypeGuard[int]:
    # bool is an int to Python, not a count to us
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _seconds(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
