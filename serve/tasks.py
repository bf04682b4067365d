"""Task continuity: tasks, checkpoints, handoff, interruption recovery, over the task log.

One `TaskService` per process and index folder; each process is a *session* (its id goes into
every record it writes). The MCP server, the CLI and `Strata` all call these methods; they
validate every argument before anything is written (a bad call writes nothing) and raise
`InputError` with one sentence. Invariants:

- Every write is one journal append through `TaskLog` (durable before the call returns); the
  state is a replay, so a crash loses nothing that was acknowledged.
- A task belongs to the repository it was created in (its first root commit); another
  repository's task is refused by every call.
- While the log is degraded, reads answer with a notice saying so and writes are refused.
- The session's *active task* is the last one a call named; the exit hook (`checkpoint_on_exit`)
  checkpoints it when the session wrote anything since its last checkpoint.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..store.errors import GitstrataError, InputError
from ..store.generations import Store
from ..store.tasks import (
    OUTCOMES,
    PROGRESS_STATUSES,
    SEVERITY_IMPORTANCE,
    STATUSES,
    checkpoints,
    failure_key,
)
from ..store.tasks_log import TaskLog
from . import task_git
from .task_input import (
    LIMITS,
    MAX_ITEMS,
    MAX_LIST,
    MAX_PATHS,
    check_mode,
    list_arg,
    number_arg,
    text_arg,
)
from .task_links import invariants_on, linked_failures
from .task_metrics import confidence
from .task_package import (
    PROGRESS_IMPORTANCE,
    add_must_not_redo,
    fold,
    items,
    package,
    render,
    tokens,
)

__all__ = ["LIMITS", "MAX_ITEMS", "MAX_PATHS", "TaskService", "check_mode"]

TRACKED_FILES = 100  # modified files a progress or failure record keeps
OUTCOME_DELTA = {"success": 0.1, "failure": -0.1}


class TaskService:
    """Tasks and checkpoints of one index folder, for the repository at `repo_root`."""

    def __init__(self, index_dir: Path, repo_root: Path | None, *, session: str | None = None):
        self.index_dir = Path(index_dir)
        self.repo = repo_root
        self.log = TaskLog(self.index_dir)
        self.session = session or f"{os.getpid()}-{secrets.token_hex(3)}"
        self.active: int | None = None
        self.last_tool: str | None = None
        self._repo_id: str | None = None
        self._surfaced: set[str] = set()
        # what else a session outcome reweights (the memories this session recalled): each
        # hook takes the delta and returns what it changed
        self.outcome_hooks: list[Callable[[float], dict[str, float]]] = []
        self._wrote = False  # this session wrote a record for the active task
        self._lock = threading.Lock()

    @property
    def repo_id(self) -> str:
        if self._repo_id is None:
            self._repo_id = task_git.repo_identity(self.repo)
        return self._repo_id

    # ------------------------------------------------------------------ state

    def _state(self) -> dict[str, Any]:
        return self.log.current().state

    def notice(self) -> str | None:
        """The degraded-mode notice every answer carries, or None."""
        problems = self.log.current().problems
        if not problems:
            return None
        return (
            "task store in read-only degraded mode: "
            + "; ".join(problems)
            + (" (run `gitstrata doctor`)")
        )

    def _task(self, task_id: int | None) -> dict[str, Any]:
        if task_id is None:
            if self.active is None:
                raise InputError(
                    "no active task in this session",
                    hint="pass task_id, or call create_task / list_tasks first",
                )
            task_id = self.active
        if isinstance(task_id, bool) or not isinstance(task_id, int):
            raise InputError("task_id must be an integer")
        task = self._state()["tasks"].get(str(task_id))
        if task is None:
            raise InputError(f"no task #{task_id}", hint="list_tasks (or `gitstrata task list`)")
        if task.get("repo") and self.repo_id and task["repo"] != self.repo_id:
            raise InputError(
                f"task #{task_id} belongs to another repository",
                hint="open the repository it was created in",
            )
        self.active = task_id
        return task

    def _append(self, record: dict[str, Any]) -> dict[str, Any]:
        Store(self.index_dir).ensure()
        with self._lock:
            written = self.log.append({**record, "session": self.session})
        if written["kind"] == "checkpoint":
            self._wrote = False
        elif written["kind"] != "outcome":
            self._wrote = True
        return written

    # ------------------------------------------------------------------ tasks

    def create_task(self, name: str, goal: str) -> dict[str, Any]:
        rec = {
            "kind": "task",
            "name": text_arg("name", name, required=True),
            "goal": text_arg("goal", goal, required=True),
            "repo": self.repo_id,
            "status": "open",
        }
        written = self._append(rec)
        self.active = written["id"]
        return self.get_task(written["id"])

    def get_task(self, task_id: int | None = None) -> dict[str, Any]:
        task = self._task(task_id)
        state, base, since = fold(task, self._state()["weights"])
        return {
            **self._summary(task),
            "state": {
                k: state[k] for k in ("completed", "in_progress", "blocked", "preferred_next")
            },  # fmt: skip
            "latest_checkpoint": _cp_summary(base) if base else None,
            "records_since_checkpoint": since,
            "notice": self.notice(),
        }

    def _summary(self, task: dict[str, Any]) -> dict[str, Any]:
        return {k: task[k] for k in ("id", "name", "goal", "status", "created", "updated",
                                     "checkpoints")}  # fmt: skip

    def update_task(
        self,
        task_id: int | None,
        *,
        name: str | None = None,
        goal: str | None = None,
        status: str | None = None,
    ) -> dict[str, Any]:
        task = self._task(task_id)
        changes = {
            k: v
            for k, v in (("name", text_arg("name", name)), ("goal", text_arg("goal", goal)))
            if v is not None
        }
        if status is not None:
            if status not in STATUSES:
                raise InputError(
                    f"unknown task status {status!r}", hint=f"use {', '.join(STATUSES)}"
                )
            changes["status"] = status
        if not changes:
            raise InputError("nothing to update", hint="send name, goal or status")
        self._append({"kind": "task_update", "task": task["id"], "changes": changes})
        return self.get_task(task["id"])

    def list_tasks(self, status: str | None = None, limit: int = 50) -> dict[str, Any]:
        if status is not None and status not in STATUSES:
            raise InputError(f"unknown task status {status!r}", hint=f"use {', '.join(STATUSES)}")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIST:
            raise InputError(f"limit must be an integer from 1 to {MAX_LIST}")
        mine = [
            t for t in self._state()["tasks"].values()
            if not (t.get("repo") and self.repo_id and t["repo"] != self.repo_id)
            and (status is None or t["status"] == status)
        ]  # fmt: skip
        mine.sort(key=lambda t: (t["updated"] or "", t["id"]), reverse=True)
        return {
            "tasks": [self._summary(t) for t in mine[:limit]],
            "total": len(mine),
            "interrupted": self.pending_interrupted(),
            "notice": self.notice(),
        }

    # ------------------------------------------------------------------ checkpoints

    def checkpoint(
        self,
        task_id: int | None = None,
        *,
        reason: str = "manual",
        summary: str | None = None,
        completed: Sequence[str] | None = None,
        in_progress: Sequence[str] | None = None,
        blocked: Sequence[str] | None = None,
        next_steps: Sequence[str] | None = None,
        working_set: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """Write a checkpoint: the lists given replace the current ones, the others are folded
        from the last checkpoint and the records since; the work tree is read from git."""
        given = {
            "completed": list_arg("completed", completed),
            "in_progress": list_arg("in_progress", in_progress),
            "blocked": list_arg("blocked", blocked),
            "preferred_next": list_arg("next_steps", next_steps),
        }
        files = list_arg("working_set", working_set, limit=MAX_PATHS)
        summary = text_arg("summary", summary)
        task = self._task(task_id)
        state = self._current_state(task, given, files)
        if summary is not None:
            state["summary"] = summary
        written = self._append(
            {"kind": "checkpoint", "task": task["id"], "reason": reason, "state": state}
        )
        self._wrote = False
        version = sum(1 for c in checkpoints(self._task(task["id"])))
        return {
            "task": task["id"],
            "version": version,
            "record": written["id"],
            "reason": reason,
            "confidence": state["confidence"],
            "must_not_redo": len(state["must_not_redo"]),
            "must_preserve": len(state["must_preserve"]),
            "working_set": state["working_set"],
            "branch": state["branch"],
            "head": state["head"],
            "notice": self.notice(),
        }

    def _current_state(
        self,
        task: dict[str, Any],
        given: dict[str, list[str] | None],
        files: list[str] | None,
    ) -> dict[str, Any]:
        weights = self._state()["weights"]
        state, _, _ = fold(task, weights)
        state["summary"] = None  # a summary belongs to the checkpoint that was given it
        for name, texts in given.items():
            if texts is None:
                continue
            if name == "completed":  # done stays done: a handoff lists what its session did
                known = {i["key"] for i in state[name]}
                state[name] += [i for i in items(texts, name) if i["key"] not in known]
            else:
                state[name] = items(texts, name)
        tree = task_git.work_tree(self.repo, self.index_dir)
        modified = [f["path"] for f in tree.files]
        declared = files if files is not None else [p for p in state["working_set"]]
        state["working_set"] = sorted(set(declared) | set(modified))[:MAX_PATHS]
        state["modified_files"] = tree.files
        state["branch"], state["head"] = tree.branch, tree.head
        state["last_tool"] = self.last_tool
        for item in self._linked_failures(state["working_set"]):
            add_must_not_redo(state, item)
        state["must_preserve"] = self._invariants(state["working_set"])
        state["confidence"] = confidence(state, task)
        return state

    def _files(self) -> list[dict[str, Any]]:
        """The modified and untracked files now, kept with each progress and failure record so a
        crash before the next checkpoint does not lose the working set."""
        return task_git.work_tree(self.repo, self.index_dir).files[:TRACKED_FILES]

    def _linked_failures(self, paths: list[str]) -> list[dict[str, Any]]:
        return linked_failures(self.index_dir, paths)

    def _invariants(self, paths: list[str]) -> list[dict[str, str]]:
        return invariants_on(self.index_dir, paths)

    def list_checkpoints(self, task_id: int | None = None) -> dict[str, Any]:
        task = self._task(task_id)
        return {
            "task": task["id"],
            "checkpoints": [_cp_summary(c) for c in checkpoints(task)],
            "notice": self.notice(),
        }

    # ------------------------------------------------------------------ handoff and tracking

    def session_handoff(
        self,
        summary: str,
        completed: Sequence[str] | None = None,
        in_progress: Sequence[str] | None = None,
        blocked: Sequence[str] | None = None,
        next_steps: Sequence[str] | None = None,
        task_id: int | None = None,
        working_set: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        text_arg("summary", summary, required=True)
        return self.checkpoint(
            task_id,
            reason="handoff",
            summary=summary,
            completed=completed or [],
            in_progress=in_progress or [],
            blocked=blocked or [],
            next_steps=next_steps or [],
            working_set=working_set,
        )

    def report_interruption(self, reason: str, task_id: int | None = None) -> dict[str, Any]:
        text = text_arg("reason", reason, required=True)
        task = self._task(task_id)
        self._append({"kind": "interruption", "task": task["id"], "reason": text})
        return self.checkpoint(task["id"], reason="interrupt", summary=f"interrupted: {text}")

    def track_progress(
        self,
        feature: str,
        status: str,
        completion: float | None = None,
        blockers: Sequence[str] | None = None,
        quality: float | None = None,
        notes: str | None = None,
        task_id: int | None = None,
    ) -> dict[str, Any]:
        if status not in PROGRESS_STATUSES:
            raise InputError(
                f"unknown progress status {status!r}", hint=f"use {', '.join(PROGRESS_STATUSES)}"
            )
        rec = {
            "kind": "progress",
            "feature": text_arg("feature", feature, required=True),
            "status": status,
            "completion": number_arg("completion", completion)
            if completion is not None
            else (1.0 if status == "done" else 0.0),
            "blockers": list_arg("blockers", blockers) or [],
            "quality": number_arg("quality", quality),
            "notes": text_arg("notes", notes),
            "importance": PROGRESS_IMPORTANCE[status],
        }
        task = self._task(task_id)
        written = self._append({**rec, "task": task["id"], "files": self._files()})
        return {"task": task["id"], "record": written["id"], "feature": rec["feature"],
                "status": status, "notice": self.notice()}  # fmt: skip

    def track_failure(
        self,
        error: str,
        component: str | None = None,
        severity: str = "medium",
        root_cause: str | None = None,
        fix: str | None = None,
        related_tests: Sequence[str] | None = None,
        approach: str | None = None,
        task_id: int | None = None,
    ) -> dict[str, Any]:
        if severity not in SEVERITY_IMPORTANCE:
            raise InputError(
                f"unknown severity {severity!r}", hint="use critical, high, medium or low"
            )
        rec = {
            "kind": "failure",
            "error": text_arg("error", error, required=True),
            "component": text_arg("component", component),
            "severity": severity,
            "importance": SEVERITY_IMPORTANCE[severity],
            "root_cause": text_arg("root_cause", root_cause),
            "fix": text_arg("fix", fix),
            "related_tests": list_arg("related_tests", related_tests) or [],
            "approach": text_arg("approach", approach),
        }
        task = self._task(task_id)
        written = self._append({**rec, "task": task["id"], "files": self._files()})
        return {"task": task["id"], "record": written["id"], "importance": rec["importance"],
                "key": failure_key(written), "notice": self.notice()}  # fmt: skip

    # ------------------------------------------------------------------ restore

    def restore_checkpoint(
        self, task_id: int | None = None, mode: str = "SELECTIVE", version: int | None = None
    ) -> dict[str, Any]:
        """The continuation package (see `task_package`), with the drift since the checkpoint
        and the confidence; records the restore (not while degraded) and returns the package
        with its rendered `text` and size in `tokens`."""
        mode = check_mode(mode)
        task = self._task(task_id)
        if version is not None:
            known = [c["version"] for c in checkpoints(task)]
            if isinstance(version, bool) or version not in known:
                raise InputError(
                    f"task #{task['id']} has no checkpoint v{version}",
                    hint="list_checkpoints shows the versions",
                )
        state, base, since = fold(task, self._state()["weights"], upto=version)
        now = task_git.work_tree(self.repo, self.index_dir) if mode != "NONE" else None
        if now is not None and version is None:
            # what the work tree holds now belongs to the task too (a crash may have left
            # edits no checkpoint saw)
            extra = [f["path"] for f in now.files if f["path"] not in state["working_set"]]
            state["working_set"] = [*state["working_set"], *extra][:MAX_PATHS]
            # failed attempts and invariants recorded since the checkpoint apply as well
            for item in self._linked_failures(state["working_set"]):
                add_must_not_redo(state, item)
            have = {i["id"] for i in state["must_preserve"]}
            state["must_preserve"] += [
                i for i in self._invariants(state["working_set"]) if i["id"] not in have
            ]
        pkg = package(task, mode, state, base, since)
        if now is not None:
            pkg["drift"] = task_git.drift(self.repo, state, self.index_dir, now=now)
            pkg["continuation_confidence"] = confidence(state, task, pkg["drift"])
        notice = self.notice()
        if notice:
            pkg["notice"] = notice
        surfaced = [m["key"] for m in pkg.get("must_not_redo", [])]
        self._surfaced.update(surfaced)
        if notice is None:
            self._append({"kind": "restore", "task": task["id"], "mode": mode,
                          "version": pkg.get("version", 0), "surfaced": surfaced})  # fmt: skip
        text = render(pkg)
        pkg["text"] = text
        pkg["tokens"] = tokens(text)
        return pkg

    def session_outcome(self, outcome: str, task_id: int | None = None) -> dict[str, Any]:
        """Mark this session a success or a failure: the weights of the failures its restores
        surfaced move by +-0.1 (importance decides what SELECTIVE details), and so does the
        importance of the memories it recalled (`outcome_hooks`)."""
        if outcome not in OUTCOMES:
            raise InputError(f"unknown outcome {outcome!r}", hint="use success or failure")
        task = self._task(task_id) if task_id is not None or self.active is not None else None
        delta = OUTCOME_DELTA[outcome]
        adjust = {k: delta for k in sorted(self._surfaced) if k.startswith("task-failure:")}
        self._append({"kind": "outcome", "task": task["id"] if task else None,
                      "outcome": outcome, "adjust": adjust})  # fmt: skip
        memories: dict[str, float] = {}
        for hook in self.outcome_hooks:
            memories.update(hook(delta))
        return {
            "outcome": outcome,
            "adjusted": adjust,
            "memories_adjusted": memories,
            "notice": self.notice(),
        }

    def pending_interrupted(self) -> list[dict[str, Any]]:
        """Tasks whose latest checkpoint was written by an interruption and that no session
        restored since."""
        out = []
        for t in self._state()["tasks"].values():
            if t.get("repo") and self.repo_id and t["repo"] != self.repo_id:
                continue
            if t["status"] in ("done", "abandoned"):
                continue
            cps = checkpoints(t)
            if not cps or cps[-1]["reason"] not in ("interrupt", "auto"):
                continue
            if any(r["kind"] == "restore" and r["id"] > cps[-1]["id"] for r in t["records"]):
                continue
            out.append({"task": t["id"], "name": t["name"], "version": cps[-1]["version"]})
        return sorted(out, key=lambda x: x["task"])

    def interrupted_hint(self) -> str | None:
        pending = self.pending_interrupted()
        if not pending:
            return None
        first = pending[0]
        more = f" (and {len(pending) - 1} more)" if len(pending) > 1 else ""
        return (
            f'interrupted task {first["task"]} ("{first["name"]}"){more}: call '
            f"restore_checkpoint(task_id={first['task']}) to resume"
        )

    # ------------------------------------------------------------------ exit

    def checkpoint_on_exit(self, reason: str) -> dict[str, Any] | None:
        """The shutdown hook: an `auto` checkpoint of the active task when this session wrote
        anything for it since its last checkpoint. Never raises (the process is ending)."""
        if self.active is None or not self._wrote:
            return None
        try:
            self._append({"kind": "interruption", "task": self.active, "reason": reason[:200]})
            return self.checkpoint(self.active, reason="auto", summary=f"process ended: {reason}")
        except (GitstrataError, OSError):
            return None

    # ------------------------------------------------------------------ health and metrics

    def evaluate_continuity(self, task_id: int | None = None) -> dict[str, Any]:
        from .task_metrics import evaluate

        task = self._task(task_id)
        return {**evaluate(task, self._state()["weights"]), "notice": self.notice()}

    def runtime_health(self) -> dict[str, Any]:
        loaded = self.log.current()
        path = self.log.journal.path("tasks")
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        try:
            generation = Store(self.index_dir).current_name()
        except (GitstrataError, OSError) as exc:
            generation = f"unreadable: {exc}"
        tasks = loaded.state["tasks"].values()
        return {
            "degraded": bool(loaded.problems),
            "problems": loaded.problems,
            "journal": {
                "stream": "tasks",
                "bytes": size,
                "last_record": loaded.state["last_id"],
                "skipped_lines": len(loaded.warnings),
                "acknowledged": loaded.state["acked"],
                "warnings": loaded.warnings[-5:],
            },  # fmt: skip
            "snapshot": {"state": loaded.snapshot, "replayed_after_it": loaded.replayed},
            "tasks": {"total": len(tasks), "open": sum(t["status"] == "open" for t in tasks)},
            "index_generation": generation,
            "session": self.session,
            "active_task": self.active,
            "interrupted": self.pending_interrupted(),
            "notice": self.notice(),
        }


def _cp_summary(cp: dict[str, Any]) -> dict[str, Any]:
    s = cp["state"]
    return {
        "version": cp["version"],
        "record": cp["id"],
        "at": cp.get("ts"),
        "reason": cp["reason"],
        "session": cp.get("session"),
        "goal": s.get("goal"),
        "confidence": s.get("confidence"),
        "completed": len(s.get("completed", [])),
        "in_progress": len(s.get("in_progress", [])),
        "must_not_redo": len(s.get("must_not_redo", [])),
        "branch": s.get("branch"),
        "head": s.get("head"),
        "summary": s.get("summary"),
    }
