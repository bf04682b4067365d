"""Task continuity records: their journal format, their validation, and the replay into state.

Tasks and checkpoints have no table of their own: every write is one record appended to the
journal stream `tasks`, and the task state is what replaying those records gives. The records
(besides the journal's `id` and `ts`; `session` names the process that wrote it):

    task          name, goal, repo (the repository's identity), status    -> a task; id = its id
    task_update   task, changes {name?, goal?, status?}
    checkpoint    task, reason (manual | handoff | interrupt | auto), state {goal, completed,
                  in_progress, blocked, preferred_next, must_not_redo, must_preserve,
                  working_set, modified_files, branch, head, last_tool, last_failure,
                  confidence, summary}; its version is its rank among the task's checkpoints
    progress      task, feature, status, completion, blockers, quality, notes, importance,
                  files (the modified files then: path, status, hash)
    failure       task, error, component, severity, importance, root_cause, fix,
                  related_tests, approach, files
    interruption  task, reason
    restore       task, version, mode, surfaced (the failure keys the package showed)
    outcome       task or null, outcome (success | failure), adjust {failure key: delta}
    ack           skipped: how many unreadable lines `gitstrata doctor` reported and accepted

`check_record` is the one validator: replay skips (and reports) a record it rejects, and every
writer runs it before appending, so what was acknowledged always replays. `replay` is pure and
order-dependent only through the journal's ids; applying records one by one to a snapshot's
state gives the same state as replaying them all (`apply` is the only mutation).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

STREAM = "tasks"
KINDS = (
    "task",
    "task_update",
    "checkpoint",
    "progress",
    "failure",
    "interruption",
    "restore",
    "outcome",
    "ack",
)
STATUSES = ("open", "blocked", "done", "abandoned")
REASONS = ("manual", "handoff", "interrupt", "auto")
MODES = ("SELECTIVE", "FULL", "NONE")
OUTCOMES = ("success", "failure")
PROGRESS_STATUSES = ("planned", "in_progress", "blocked", "done", "dropped")
SEVERITY_IMPORTANCE = {"critical": 1.0, "high": 0.8, "medium": 0.5, "low": 0.3}
LIST_FIELDS = ("completed", "in_progress", "blocked", "preferred_next")
# what SELECTIVE keeps: items at least this important (must_not_redo is kept whole)
IMPORTANT = 0.5

__all__ = [
    "IMPORTANT",
    "KINDS",
    "MODES",
    "OUTCOMES",
    "PROGRESS_STATUSES",
    "REASONS",
    "SEVERITY_IMPORTANCE",
    "STATUSES",
    "STREAM",
    "VALIDATOR",
    "apply",
    "check_record",
    "empty_state",
    "replay",
]


# ---------------------------------------------------------------- validation


def _is_str(v: Any, *, empty: bool = False) -> bool:
    return isinstance(v, str) and (empty or bool(v.strip()))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any, low: float = 0.0, high: float = 1.0) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and low <= v <= high


def _str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _items(v: Any) -> bool:
    return isinstance(v, list) and all(
        isinstance(x, dict) and _is_str(x.get("text")) and _is_num(x.get("importance", 0.5))
        for x in v
    )


def _check_state(state: Any) -> str | None:
    if not isinstance(state, dict):
        return "state is not an object"
    if not isinstance(state.get("goal", ""), str):
        return "state.goal is not text"
    for name in LIST_FIELDS:
        if not _items(state.get(name, [])):
            return f"state.{name} is not a list of items"
    for name in ("must_not_redo", "must_preserve", "modified_files"):
        value = state.get(name, [])
        if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
            return f"state.{name} is not a list of objects"
    if not _str_list(state.get("working_set", [])):
        return "state.working_set is not a list of paths"
    for name in ("branch", "head", "last_tool", "summary"):
        if state.get(name) is not None and not isinstance(state[name], str):
            return f"state.{name} is not text"
    if state.get("last_failure") is not None and not isinstance(state["last_failure"], dict):
        return "state.last_failure is not an object"
    if not _is_num(state.get("confidence", 0.0)):
        return "state.confidence is not a number from 0 to 1"
    return None


def check_record(record: Mapping[str, Any]) -> str | None:
    """Why `record` is not a valid `tasks` record, or None when it is. Registered as the stream's
    validator; never raises."""
    if not isinstance(record, Mapping):
        return "not an object"
    kind = record.get("kind")
    if kind not in KINDS:
        return f"unknown kind {kind!r}"
    if "id" in record and not _is_int(record["id"]):
        return "id is not an integer"
    if kind == "ack":
        return None if _is_int(record.get("skipped")) else "ack.skipped is not an integer"
    if kind == "outcome":
        if record.get("outcome") not in OUTCOMES:
            return "outcome is not success or failure"
        if record.get("task") is not None and not _is_int(record["task"]):
            return "outcome.task is not an integer"
        adjust = record.get("adjust", {})
        if not isinstance(adjust, dict) or not all(_is_num(v, -1, 1) for v in adjust.values()):
            return "outcome.adjust is not a map of weights"
        return None
    if kind == "task":
        if not _is_str(record.get("name")) or not isinstance(record.get("goal", ""), str):
            return "task needs a name and a goal"
        if not isinstance(record.get("repo", ""), str):
            return "task.repo is not text"
        return None if record.get("status", "open") in STATUSES else "task.status is unknown"
    if not _is_int(record.get("task")):
        return f"{kind}.task is not a task id"
    files = record.get("files", [])
    if not isinstance(files, list) or not all(
        isinstance(f, dict) and isinstance(f.get("path"), str) for f in files
    ):
        return f"{kind}.files is not a list of files"
    if kind == "task_update":
        changes = record.get("changes")
        if not isinstance(changes, dict) or not changes:
            return "task_update.changes is empty"
        if "status" in changes and changes["status"] not in STATUSES:
            return "task_update.status is unknown"
        if any(k not in ("name", "goal", "status") for k in changes):
            return "task_update changes an unknown field"
        if not all(isinstance(v, str) for v in changes.values()):
            return "task_update.changes holds a value that is not text"
        return None
    if kind == "checkpoint":
        if record.get("reason") not in REASONS:
            return "checkpoint.reason is unknown"
        return _check_state(record.get("state"))
    if kind == "progress":
        if not _is_str(record.get("feature")) or record.get("status") not in PROGRESS_STATUSES:
            return "progress needs a feature and a known status"
        if not _is_num(record.get("completion", 0.0)) or not _is_num(record.get("importance", 0.5)):
            return "progress.completion or importance is out of range"
        if record.get("quality") is not None and not _is_num(record["quality"]):
            return "progress.quality is out of range"
        return None if _str_list(record.get("blockers", [])) else "progress.blockers is not a list"
    if kind == "failure":
        if not _is_str(record.get("error")) or record.get("severity") not in SEVERITY_IMPORTANCE:
            return "failure needs an error and a known severity"
        if not _is_num(record.get("importance", 0.5)):
            return "failure.importance is out of range"
        return None if _str_list(record.get("related_tests", [])) else "failure.related_tests"
    if kind == "interruption":
        return None if _is_str(record.get("reason")) else "interruption needs a reason"
    # restore
    if record.get("mode") not in MODES or not _is_int(record.get("version", 0)):
        return "restore needs a mode and a checkpoint version"
    return None if _str_list(record.get("surfaced", [])) else "restore.surfaced is not a list"


# the stream and its validator, for a journal that validates each record it reads
VALIDATOR = (STREAM, check_record)


# ---------------------------------------------------------------- replay


def empty_state() -> dict[str, Any]:
    """The state before any record: tasks by id (as text, JSON keys), the last applied id, the
    count of unreadable lines accepted by `doctor`, and the failure weights sessions adjusted."""
    return {"tasks": {}, "last_id": 0, "acked": 0, "weights": {}}


def apply(state: dict[str, Any], record: Mapping[str, Any]) -> None:
    """Fold one valid record into `state` (in place). A record for an unknown task is kept out
    (it can only come from a hand-edited journal) but still advances `last_id`."""
    rid = record.get("id")
    if _is_int(rid):
        state["last_id"] = max(state["last_id"], rid)
    kind = record["kind"]
    if kind == "ack":
        state["acked"] = max(state["acked"], record["skipped"])
        return
    if kind == "outcome":
        for key, delta in record.get("adjust", {}).items():
            state["weights"][key] = round(state["weights"].get(key, 0.0) + delta, 4)
    if kind == "task":
        state["tasks"][str(rid)] = {
            "id": rid,
            "name": record["name"],
            "goal": record.get("goal", ""),
            "repo": record.get("repo", ""),
            "status": record.get("status", "open"),
            "created": record.get("ts"),
            "updated": record.get("ts"),
            "checkpoints": 0,
            "records": [dict(record)],
        }
        return
    task = state["tasks"].get(str(record.get("task")))
    if task is None:
        return
    task["records"].append(dict(record))
    task["updated"] = record.get("ts", task["updated"])
    if kind == "task_update":
        for key, value in record["changes"].items():
            task[key] = value
    elif kind == "checkpoint":
        task["checkpoints"] += 1
        task["records"][-1]["version"] = task["checkpoints"]


def replay(records: Iterable[Mapping[str, Any]], state: dict[str, Any] | None = None) -> dict:
    """`state` (default: empty) with every valid record whose id is past its `last_id` applied,
    in id order. Invalid records are the caller's to filter and report (`check_record`)."""
    out = empty_state() if state is None else copy.deepcopy(state)
    start = out["last_id"]
    for rec in sorted(records, key=lambda r: r.get("id", 0)):
        if rec.get("id", 0) > start:
            apply(out, rec)
    return out


# ---------------------------------------------------------------- derived views


def checkpoints(task: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The task's checkpoint records, oldest first (each with its `version`)."""
    return [r for r in task["records"] if r["kind"] == "checkpoint"]


def records_of(task: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    return [r for r in task["records"] if r["kind"] == kind]


def failure_key(record: Mapping[str, Any]) -> str:
    """The key a tracked failure is weighted by (`outcome.adjust`): `task-failure:<id>`."""
    return f"task-failure:{record['id']}"


def importance_of(record: Mapping[str, Any], weights: Mapping[str, float]) -> float:
    """A progress or failure record's importance, with the sessions' outcome adjustments."""
    base = float(record.get("importance", 0.5))
    if record.get("kind") == "failure":
        base += weights.get(failure_key(record), 0.0)
    return round(min(1.0, max(0.0, base)), 4)
