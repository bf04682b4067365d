"""What a task call may send: the limits and the checks, each failing with one sentence.

Every `TaskService` call runs these before it writes anything, so a bad argument leaves the
journal untouched.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..store.errors import InputError
from ..store.tasks import MODES

# limits on what a caller may send (characters; list lengths)
LIMITS = {"name": 200, "goal": 2000, "item": 1000, "summary": 4000, "error": 4000,
          "text": 2000, "reason": 500, "component": 300, "tool": 200}  # fmt: skip
MAX_ITEMS = 100
MAX_PATHS = 500
MAX_LIST = 200  # tasks a list returns


def text_arg(name: str, value: str | None, *, required: bool = False) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip() and not required):
        if required:
            raise InputError(f"{name} is missing", hint=f"send {name} as text")
        return None
    if not isinstance(value, str):
        raise InputError(f"{name} must be text")
    if required and not value.strip():
        raise InputError(f"{name} is empty", hint=f"send a non-empty {name}")
    limit = LIMITS.get(name, LIMITS["text"])
    if len(value) > limit:
        raise InputError(
            f"{name} is {len(value)} characters, over the {limit} characters limit",
            hint="send a shorter text: a summary, not a transcript",
        )
    return value.strip()


def list_arg(
    name: str, values: Sequence[str] | None, *, limit: int = MAX_ITEMS
) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str) or not all(isinstance(v, str) for v in values):
        raise InputError(f"{name} must be a list of texts")
    if len(values) > limit:
        raise InputError(f"{name} has {len(values)} entries, over the {limit} entries limit")
    out = []
    for v in values:
        if len(v) > LIMITS["item"]:
            raise InputError(
                f"an entry of {name} is {len(v)} characters, over the {LIMITS['item']} limit"
            )
        if v.strip():
            out.append(v.strip())
    return out


def number_arg(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InputError(f"{name} must be a number from 0 to 1")
    return float(value)


def check_mode(mode: str) -> str:
    got = mode.upper() if isinstance(mode, str) else mode
    if got not in MODES:
        raise InputError(f"unknown restore mode {mode!r}", hint="use SELECTIVE, FULL or NONE")
    return str(got)
