"""`gitstrata doctor`: check what this repository's index folder holds, report, repair.

`CHECKS` is a list of functions, each taking the `Strata` and returning one finding: its
`name`, whether it is `ok`, what it `found` (problems, one line each) and the `actions` it took
to repair them. A check never raises for bad data it was written to find: it reports it. New
checks are appended to the list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .facade import Strata

Check = Callable[["Strata"], dict[str, Any]]


def check_task_store(strata: Strata) -> dict[str, Any]:
    """The task log: replay the journal, compare and rebuild the snapshot, acknowledge the
    journal lines that cannot be read (they stay in the journal)."""
    from .store.tasks_log import TaskLog

    got = TaskLog(strata.index_dir).repair()
    return {
        "name": "task store",
        "ok": bool(got.get("ok")),
        "found": got.get("found", got.get("problems", [])),
        "actions": got.get("actions", []),
    }


CHECKS: list[Check] = [check_task_store]


def run_doctor(strata: Strata) -> dict[str, Any]:
    """Every check's finding; `ok` when every check is."""
    results = [check(strata) for check in CHECKS]
    return {"ok": all(r["ok"] for r in results), "checks": results}
