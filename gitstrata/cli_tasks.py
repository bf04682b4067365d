"""`gitstrata task ...`: thin commands over `Strata.tasks` (registered by `cli.py`)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from .cli import JsonOpt, OutOpt, _emit_json, _strata

task_app = typer.Typer(
    help="Tasks that survive sessions: checkpoints, handoffs, restores.", no_args_is_help=True
)

TaskArg = Annotated[int, typer.Argument(help="The task's id (`gitstrata task list`).")]
Done = Annotated[list[str] | None, typer.Option("--done", help="A completed item (repeatable).")]
Doing = Annotated[
    list[str] | None, typer.Option("--doing", help="An item in progress (repeatable).")
]
Blocked = Annotated[list[str] | None, typer.Option("--blocked", help="A blocker (repeatable).")]
Next = Annotated[list[str] | None, typer.Option("--next", help="A next step (repeatable).")]
Files = Annotated[list[str] | None, typer.Option("--file", help="A working-set file (repeatable).")]


def _service(ctx: typer.Context, out: str | None) -> Any:
    return _strata(ctx, out).tasks


def _notice(data: dict[str, Any]) -> None:
    if data.get("notice"):
        typer.echo(f"NOTICE: {data['notice']}", err=True)


@task_app.command("list")
def task_list(
    ctx: typer.Context,
    status: Annotated[
        str | None, typer.Option("--status", help="open | blocked | done | abandoned")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=200, help="At most N.")] = 50,
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List this repository's tasks, most recently updated first."""
    data = _service(ctx, out).list_tasks(status, limit)
    if as_json:
        _emit_json(data)
        return
    _notice(data)
    for t in data["tasks"]:
        typer.echo(
            f"#{t['id']}  [{t['status']}]  {t['name']}  (v{t['checkpoints']}, {t['updated']})"
        )
    for i in data["interrupted"]:
        typer.echo(f"interrupted: task #{i['task']}: `gitstrata task restore {i['task']}`")
    if not data["tasks"]:
        typer.echo("no tasks yet: agents create them over MCP (create_task)")


@task_app.command("create")
def task_create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="A few words.")],
    goal: Annotated[str, typer.Option("--goal", "-g", help="What done looks like.")],
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Create a task."""
    data = _service(ctx, out).create_task(name, goal)
    if as_json:
        _emit_json(data)
    else:
        typer.echo(f"created task #{data['id']}: {data['name']}")


@task_app.command("show")
def task_show(ctx: typer.Context, task_id: TaskArg, out: OutOpt = None, as_json: JsonOpt = False):
    """A task's goal, state and checkpoints."""
    service = _service(ctx, out)
    data = service.get_task(task_id)
    data["checkpoints_list"] = service.list_checkpoints(task_id)["checkpoints"]
    if as_json:
        _emit_json(data)
        return
    _notice(data)
    typer.echo(f"task #{data['id']} [{data['status']}] {data['name']}")
    typer.echo(f"goal: {data['goal']}")
    for name, items in data["state"].items():
        for item in items:
            typer.echo(f"  {name}: {item['text']}")
    for c in data["checkpoints_list"]:
        typer.echo(
            f"  v{c['version']}  {c['at']}  {c['reason']}  confidence {c['confidence']}"
            f"  {c['branch'] or '-'}@{(c['head'] or '-')[:10]}"
        )
    if data["records_since_checkpoint"]:
        typer.echo(f"  ({data['records_since_checkpoint']} record(s) since the last checkpoint)")


def _print_checkpoint(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        _emit_json(data)
        return
    _notice(data)
    typer.echo(
        f"task #{data['task']}: checkpoint v{data['version']} ({data['reason']}), confidence "
        f"{data['confidence']}, {data['must_not_redo']} must_not_redo, "
        f"{data['must_preserve']} must_preserve, {len(data['working_set'])} working-set file(s)"
    )


@task_app.command("checkpoint")
def task_checkpoint(
    ctx: typer.Context,
    task_id: TaskArg,
    done: Done = None,
    doing: Doing = None,
    blocked: Blocked = None,
    next_: Next = None,
    files: Files = None,
    summary: Annotated[str | None, typer.Option("--summary", help="One paragraph.")] = None,
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a checkpoint (lists not given are carried over from the last one)."""
    data = _service(ctx, out).checkpoint(
        task_id, summary=summary, completed=done, in_progress=doing, blocked=blocked,
        next_steps=next_, working_set=files,
    )  # fmt: skip
    _print_checkpoint(data, as_json)


@task_app.command("handoff")
def task_handoff(
    ctx: typer.Context,
    task_id: TaskArg,
    summary: Annotated[str, typer.Option("--summary", help="What happened this session.")],
    done: Done = None,
    doing: Doing = None,
    blocked: Blocked = None,
    next_: Next = None,
    files: Files = None,
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """End-of-session handoff: a checkpoint with a summary and the full lists."""
    data = _service(ctx, out).session_handoff(summary, done, doing, blocked, next_, task_id, files)
    _print_checkpoint(data, as_json)


@task_app.command("restore")
def task_restore(
    ctx: typer.Context,
    task_id: TaskArg,
    mode: Annotated[str, typer.Option("--mode", help="SELECTIVE | FULL | NONE")] = "SELECTIVE",
    version: Annotated[
        int | None, typer.Option("--version", min=1, help="An older checkpoint.")
    ] = None,
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print the continuation package of a task (with the drift since its checkpoint)."""
    data = _service(ctx, out).restore_checkpoint(task_id, mode, version)
    if as_json:
        _emit_json(data)
    else:
        typer.echo(data["text"])
