"""`gitstrata doctor`: independent checks of an index folder, each one named and reported.

A check is a function from the index folder to a `Check`; `CHECKS` lists them in the order they
are reported. A check never raises for what it finds (a finding is its result). The checks read
without writing, except that the task store's rebuilds its snapshot (derived data) from the
journal and acknowledges unreadable task lines with a new record: the journal's lines are never
changed. Add a check by writing one such function and listing it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import GitstrataError
from .generations import Store
from .journal_health import journal_health

REBUILD = "gitstrata index --rebuild"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    summary: str  # one line
    details: list[str] = field(default_factory=list)
    hint: str | None = None
    actions: list[str] = field(default_factory=list)  # what the check repaired

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.name,
            "ok": self.ok,
            "summary": self.summary,
            "details": list(self.details),
            "hint": self.hint,
            "actions": list(self.actions),
        }


def check_generation(index_dir: Path) -> Check:
    """The live generation opens, and every output's checksum matches its manifest."""
    store = Store(index_dir)
    try:
        gen = store.live()
    except GitstrataError as exc:
        return Check("generation", False, str(exc), hint=exc.hint or f"run `{REBUILD}`")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return Check("generation", False, f"{index_dir}: {exc}", hint=f"run `{REBUILD}`")
    if gen is None:
        return Check("generation", True, "no index built yet", hint="run `gitstrata index`")
    try:
        problems = gen.verify()
    except (GitstrataError, OSError) as exc:
        problems = [str(exc)]
    outputs = sum(len(rec.outputs) for rec in gen.manifest.stages.values())
    if problems:
        n = len(problems)
        summary = f"{gen.name}: {n} of {outputs} outputs damaged"
        return Check("generation", False, summary, problems, hint=f"run `{REBUILD}`")
    return Check("generation", True, f"{gen.name}: {outputs} outputs, checksums match")


def check_journal(index_dir: Path) -> Check:
    """Every journal line parses and fits its record type."""
    health = journal_health(index_dir / "journal")
    if health.error is not None:
        return Check("journal", False, f"cannot be read: {health.error}")
    if not health.skipped:
        return Check("journal", True, f"{health.records} records, every line readable")
    n = len(health.skipped)
    return Check(
        "journal",
        False,
        f"{health.records} records; {n} line{'s' if n > 1 else ''} skipped by every reader",
        [str(s) for s in health.skipped],
        hint="the lines stay in the file untouched; fix or delete them by hand if they matter",
    )


def check_task_store(index_dir: Path) -> Check:
    """The task log: replay the journal, compare the snapshot with it and rebuild it, and
    acknowledge the task lines that cannot be read (they stay in the journal)."""
    from .tasks_log import TaskLog

    got = TaskLog(index_dir).repair()
    found = [str(x) for x in got.get("found", got.get("problems", []))]
    actions = [str(x) for x in got.get("actions", [])]
    ok = bool(got.get("ok"))
    if not ok:
        summary = found[0] if found else "cannot be checked"
    elif found:
        summary = f"{len(found)} problem(s) found and repaired"
    else:
        summary = f"{got.get('tasks', 0)} task(s), snapshot matches the journal"
    return Check("task store", ok, summary, found, actions=actions)


CHECKS: tuple[Callable[[Path], Check], ...] = (check_generation, check_journal, check_task_store)


def run_doctor(index_dir: Path, checks: Sequence[Callable[[Path], Check]] = CHECKS) -> list[Check]:
    return [check(Path(index_dir)) for check in checks]
