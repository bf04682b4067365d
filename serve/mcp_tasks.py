"""The task continuity tools of `gitstrata mcp`, and the server's exit checkpoint.

Thin handlers over `TaskService`: each validates through the service (a bad argument is a tool
error with one sentence, nothing written) and answers with a short text plus the service's
result as structured content. Two things apply to every tool of the server, not only these:

- the first call of a session carries the "interrupted task N: call restore_checkpoint" hint
  when an earlier session ended without a handoff;
- while the task store is degraded, every answer carries its notice.

`install_exit_checkpoint` makes SIGTERM and SIGINT write the automatic checkpoint of the active
task before the process ends the way it did before; the caller runs the same hook when stdin
closes. (Imported by `mcp_server` only; the SDK is imported inside the functions, and there is
no `from __future__ import annotations` because the SDK reads the handlers' annotations.)
"""

import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from ..store.errors import GitstrataError
from .tasks import LIMITS, MAX_ITEMS, MAX_PATHS, TaskService

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

EXIT_HOOK_SECONDS = 5.0

TaskId = Annotated[
    int | None,
    Field(ge=1, description="The task's id (from create_task or list_tasks); default: the "
          "task this session used last."),
]  # fmt: skip
Items = Annotated[
    list[Annotated[str, Field(max_length=LIMITS["item"])]] | None,
    Field(max_length=MAX_ITEMS, description="Short items, one sentence each (at most 100)."),
]
Mode = Literal["SELECTIVE", "FULL", "NONE"]

CREATE_DESCRIPTION = """\
Start a tracked task that survives session boundaries: name (a few words) and goal (what done
looks like, 1-3 sentences). Returns its id; later calls default to it. Use it at the start of a
multi-step or multi-session piece of work, then track_progress / track_failure as you go and
session_handoff before you stop."""
GET_DESCRIPTION = """\
A task's name, goal, status and current state (completed, in progress, blocked, next), folded
from its latest checkpoint and everything recorded since, with its latest checkpoint. Read-only:
use restore_checkpoint to resume a task with its failed approaches and drift."""
UPDATE_DESCRIPTION = """\
Change a task's name, goal or status (open, blocked, done, abandoned). A goal change is kept in
the history: continuation packages show the new goal and evaluate_continuity counts it as an
explicit change, not a lost goal."""
LIST_DESCRIPTION = """\
List this repository's tasks, most recently updated first, optionally by status (open, blocked,
done, abandoned), with the tasks an interrupted session left behind (restore those with
restore_checkpoint before starting anything new)."""
HANDOFF_DESCRIPTION = """\
End-of-session handoff: write a checkpoint with a summary and the completed, in-progress, blocked
items and next steps, so the next session (or another agent) continues instead of starting over.
The branch, HEAD, modified files, failed approaches (must_not_redo: tracked failures, recorded
failed attempts and reverted commits on the working set) and the invariants on the working set
(must_preserve) are added for you."""
INTERRUPT_DESCRIPTION = """\
Call when you are about to stop unexpectedly (context window nearly full, rate limit, timeout):
records the reason and writes an interrupt checkpoint of the task from what was tracked, so
the next session is told to restore it. Follow it with session_handoff if you still can."""
PROGRESS_DESCRIPTION = """\
Record progress on one feature or step of the task: status (planned, in_progress, blocked, done,
dropped), completion 0-1, blockers, a quality score 0-1 and notes. The latest record per
feature is what a restore shows; a blocked feature is kept as important."""
FAILURE_DESCRIPTION = """\
Record a failure met while working on the task: the error, the component, severity (critical,
high, medium, low; it sets how important the record is), the root cause and fix if known, the
related tests, and approach = what you tried that failed. Every tracked failure is in each
later restore's must_not_redo, so no session walks that path again. For a failed code change,
record_failure (with the diff) also warns preflight_check."""
RESTORE_DESCRIPTION = """\
Resume a task: returns its continuation package. mode SELECTIVE (default) gives the goal, the
important state items, every must_not_redo item, the invariants to preserve, the working set and
the drift since the checkpoint (branch switched, HEAD moved, files changed or gone); FULL adds
the whole history (larger, with stale entries); NONE returns nothing (a fresh start). version
picks an older checkpoint. Read must_not_redo and the drift before continuing."""
CHECKPOINTS_DESCRIPTION = """\
A task's checkpoint versions, oldest first: when, why (manual, handoff, interrupt, auto when a
server ended mid-task), the goal, counts of items, branch and HEAD, and the continuation
confidence. Pass a version to restore_checkpoint to resume from an older one."""
OUTCOME_DESCRIPTION = """\
Mark how this session went (success or failure) at its end: the tracked failures its restores
surfaced gain (success) or lose (failure) weight, which decides how much detail later SELECTIVE
restores give them. must_not_redo always lists every one of them."""
EVALUATE_DESCRIPTION = """\
Score how well a task's state carried over between its checkpoint versions, 0-1 per dimension:
goal retention, action consistency, failure recall, working-set stability, replanning (1 - rate)
and redundant exploration (1 - rate of failures repeated after being listed), and their mean."""
HEALTH_DESCRIPTION = """\
Read-only health of the task store: the journal (records, skipped lines), the snapshot, the
index generation, whether the store is in read-only degraded mode and why, the active and the
interrupted tasks. Changes nothing."""


def _text_of(data: dict[str, Any], headline: str) -> str:
    notice = data.get("notice")
    return f"NOTICE: {notice}\n{headline}" if notice else headline


def add_task_tools(app: "MCPServer", tasks: TaskService, result: Callable[..., Any],
                   fail: Callable[[GitstrataError], Exception]) -> None:  # fmt: skip
    """Register the continuity tools on `app`; `result(text, data)` and `fail(exc)` are the
    server's own reply helpers (firewall, tool errors)."""
    from mcp_types import CallToolResult, ToolAnnotations

    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    def answer(call: Callable[[], dict[str, Any]], headline: Callable[[dict[str, Any]], str]):
        try:
            data = call()
        except GitstrataError as exc:
            raise fail(exc) from None
        return result(_text_of(data, headline(data)), data)

    @app.tool(name="create_task", description=CREATE_DESCRIPTION, annotations=writes)
    def create_task(
        name: Annotated[str, Field(max_length=LIMITS["name"], description="A few words.")],
        goal: Annotated[str, Field(max_length=LIMITS["goal"], description="What done looks like.")],
    ) -> CallToolResult:
        return answer(
            lambda: tasks.create_task(name, goal),
            lambda d: (
                f"Created task #{d['id']}: {d['name']}. Track progress and failures on it; "
                "call session_handoff before you stop."
            ),
        )

    @app.tool(name="get_task", description=GET_DESCRIPTION, annotations=reads)
    def get_task(task_id: TaskId = None) -> CallToolResult:
        return answer(
            lambda: tasks.get_task(task_id),
            lambda d: f"Task #{d['id']} [{d['status']}] {d['name']}: {d['goal']}",
        )

    @app.tool(name="update_task", description=UPDATE_DESCRIPTION, annotations=writes)
    def update_task(
        task_id: TaskId = None,
        name: Annotated[str | None, Field(max_length=LIMITS["name"])] = None,
        goal: Annotated[str | None, Field(max_length=LIMITS["goal"])] = None,
        status: Annotated[
            Literal["open", "blocked", "done", "abandoned"] | None, Field(description="New status.")
        ] = None,
    ) -> CallToolResult:
        return answer(
            lambda: tasks.update_task(task_id, name=name, goal=goal, status=status),
            lambda d: f"Updated task #{d['id']} [{d['status']}]: {d['goal']}",
        )

    @app.tool(name="list_tasks", description=LIST_DESCRIPTION, annotations=reads)
    def list_tasks(
        status: Annotated[
            Literal["open", "blocked", "done", "abandoned"] | None, Field(description="Filter.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=200, description="At most this many (1-200).")] = 50,
    ) -> CallToolResult:
        def headline(d: dict[str, Any]) -> str:
            rows = [f"#{t['id']} [{t['status']}] {t['name']}" for t in d["tasks"]]
            return f"{d['total']} task(s)" + "".join(f"\n{r}" for r in rows)

        return answer(lambda: tasks.list_tasks(status, limit), headline)

    @app.tool(name="session_handoff", description=HANDOFF_DESCRIPTION, annotations=writes)
    def session_handoff(
        summary: Annotated[
            str, Field(max_length=LIMITS["summary"], description="What happened this session.")
        ],
        completed: Items = None,
        in_progress: Items = None,
        blocked: Items = None,
        next_steps: Items = None,
        task_id: TaskId = None,
        working_set: Annotated[
            list[Annotated[str, Field(max_length=4096)]] | None,
            Field(
                max_length=MAX_PATHS,
                description="Files you were working on (repo-relative); "
                "modified and untracked files are added from git.",
            ),
        ] = None,  # fmt: skip
    ) -> CallToolResult:
        return answer(
            lambda: tasks.session_handoff(
                summary, completed, in_progress, blocked, next_steps, task_id, working_set
            ),
            lambda d: (
                f"Handoff saved: task #{d['task']} checkpoint v{d['version']} "
                f"(confidence {d['confidence']}, {d['must_not_redo']} must_not_redo, "
                f"{d['must_preserve']} must_preserve)."
            ),
        )

    @app.tool(name="report_interruption", description=INTERRUPT_DESCRIPTION, annotations=writes)
    def report_interruption(
        reason: Annotated[
            str, Field(max_length=LIMITS["reason"], description="overflow, rate limit, ...")
        ],
        task_id: TaskId = None,
    ) -> CallToolResult:
        return answer(
            lambda: tasks.report_interruption(reason, task_id),
            lambda d: (
                f"Interrupt checkpoint v{d['version']} of task #{d['task']} saved; the "
                "next session is told to restore it."
            ),
        )

    @app.tool(name="track_progress", description=PROGRESS_DESCRIPTION, annotations=writes)
    def track_progress(
        feature: Annotated[str, Field(max_length=LIMITS["text"], description="Feature or step.")],
        status: Literal["planned", "in_progress", "blocked", "done", "dropped"],
        completion: Annotated[float | None, Field(ge=0, le=1, description="0-1.")] = None,
        blockers: Items = None,
        quality: Annotated[float | None, Field(ge=0, le=1, description="Quality 0-1.")] = None,
        notes: Annotated[str | None, Field(max_length=LIMITS["text"])] = None,
        task_id: TaskId = None,
    ) -> CallToolResult:
        return answer(
            lambda: tasks.track_progress(
                feature, status, completion, blockers, quality, notes, task_id
            ),
            lambda d: f"Progress recorded on task #{d['task']}: {d['feature']} is {d['status']}.",
        )

    @app.tool(name="track_failure", description=FAILURE_DESCRIPTION, annotations=writes)
    def track_failure(
        error: Annotated[
            str, Field(max_length=LIMITS["error"], description="The error message or symptom.")
        ],
        component: Annotated[
            str | None, Field(max_length=LIMITS["component"], description="Module or area.")
        ] = None,
        severity: Literal["critical", "high", "medium", "low"] = "medium",
        root_cause: Annotated[str | None, Field(max_length=LIMITS["text"])] = None,
        fix: Annotated[str | None, Field(max_length=LIMITS["text"])] = None,
        related_tests: Items = None,
        approach: Annotated[
            str | None, Field(max_length=LIMITS["text"], description="What you tried that failed.")
        ] = None,
        task_id: TaskId = None,
    ) -> CallToolResult:
        return answer(
            lambda: tasks.track_failure(
                error, component, severity, root_cause, fix, related_tests, approach, task_id
            ),
            lambda d: (
                f"Failure recorded on task #{d['task']} (importance {d['importance']}); "
                "later restores list it under must_not_redo."
            ),
        )

    @app.tool(name="restore_checkpoint", description=RESTORE_DESCRIPTION, annotations=writes)
    def restore_checkpoint(
        task_id: TaskId = None,
        mode: Annotated[Mode, Field(description="SELECTIVE, FULL or NONE.")] = "SELECTIVE",
        version: Annotated[int | None, Field(ge=1, description="An older checkpoint.")] = None,
    ) -> CallToolResult:
        try:
            data = tasks.restore_checkpoint(task_id, mode, version)
        except GitstrataError as exc:
            raise fail(exc) from None
        text = data.pop("text")
        return result(text, data)

    @app.tool(name="list_checkpoints", description=CHECKPOINTS_DESCRIPTION, annotations=reads)
    def list_checkpoints(task_id: TaskId = None) -> CallToolResult:
        def headline(d: dict[str, Any]) -> str:
            rows = [
                f"v{c['version']} {c['at']} {c['reason']} (confidence {c['confidence']})"
                for c in d["checkpoints"]
            ]
            return f"Task #{d['task']}: {len(rows)} checkpoint(s)" + "".join(f"\n{r}" for r in rows)

        return answer(lambda: tasks.list_checkpoints(task_id), headline)

    @app.tool(name="session_outcome", description=OUTCOME_DESCRIPTION, annotations=writes)
    def session_outcome(
        outcome: Literal["success", "failure"], task_id: TaskId = None
    ) -> CallToolResult:
        return answer(
            lambda: tasks.session_outcome(outcome, task_id),
            lambda d: (
                f"Session marked {d['outcome']}; {len(d['adjusted'])} failure weight(s) adjusted."
            ),
        )

    @app.tool(name="evaluate_continuity", description=EVALUATE_DESCRIPTION, annotations=reads)
    def evaluate_continuity(task_id: TaskId = None) -> CallToolResult:
        return answer(
            lambda: tasks.evaluate_continuity(task_id),
            lambda d: (
                f"Task #{d['task']}: composite {d['composite']} over {d['checkpoints']} "
                f"checkpoint(s); " + ", ".join(f"{k} {v}" for k, v in d["scores"].items())
            ),
        )

    @app.tool(name="get_runtime_health", description=HEALTH_DESCRIPTION, annotations=reads)
    def get_runtime_health() -> CallToolResult:
        return answer(
            tasks.runtime_health,
            lambda d: (
                "task store: "
                + ("DEGRADED (read-only)" if d["degraded"] else "healthy")
                + f"; {d['tasks']['total']} task(s), journal at record #{d['journal']['last_record']}"
            ),
        )


def add_session_notes(app: "MCPServer", tasks: TaskService) -> None:
    """Every tool answer of the server: remember the tool (checkpoints record the last one),
    append the interrupted-task hint to the session's first answer and the degraded notice to
    every answer."""
    from mcp_types import CallToolResult, TextContent

    call = app.call_tool
    pending = {"hint": True}

    async def call_tool(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tasks.last_tool = name
        got = await call(name, arguments, context)
        if not isinstance(got, CallToolResult):
            return got
        notes = []
        if pending["hint"]:
            pending["hint"] = False
            hint = tasks.interrupted_hint() if name != "restore_checkpoint" else None
            if hint:
                notes.append(hint)
        notice = tasks.notice()
        if notice and name not in TASK_TOOLS:  # the task tools carry it already
            notes.append(notice)
        if notes:
            got.content = [*got.content, *(TextContent(type="text", text=n) for n in notes)]
        return got

    app.call_tool = call_tool  # type: ignore[method-assign]


TASK_TOOLS = frozenset(
    {"create_task", "get_task", "update_task", "list_tasks", "session_handoff",
     "report_interruption", "track_progress", "track_failure", "restore_checkpoint",
     "list_checkpoints", "session_outcome", "evaluate_continuity", "get_runtime_health"}
)  # fmt: skip


def run_exit_hook(tasks: TaskService, reason: str) -> None:
    """The exit checkpoint, bounded in time: in a thread, so a write in progress on another
    thread finishes first, and given up after a few seconds rather than holding the exit."""
    worker = threading.Thread(target=tasks.checkpoint_on_exit, args=(reason,), daemon=True)
    worker.start()
    worker.join(EXIT_HOOK_SECONDS)


def install_exit_checkpoint(tasks: TaskService) -> None:
    """SIGTERM and SIGINT write the exit checkpoint, then end the process as before (SIGTERM's
    default action; SIGINT's KeyboardInterrupt)."""

    def on_term(signum: int, frame: Any) -> None:
        run_exit_hook(tasks, "SIGTERM")
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)

    def on_int(signum: int, frame: Any) -> None:
        run_exit_hook(tasks, "SIGINT")
        signal.default_int_handler(signum, frame)

    try:
        signal.signal(signal.SIGTERM, on_term)
        signal.signal(signal.SIGINT, on_int)
    except ValueError:  # not the main thread (an embedding program): its own signals rule
        pass
