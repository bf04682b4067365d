"""The `gitstrata` command line: thin commands over the library.

Each command parses its options, makes one call into `Strata`, and formats the result. The
options of `query`, `preflight` and `mcp` come from `options.py`, which the fast entry path
parses too. Every `GitstrataError` ends here as one line plus a hint and exit status 1; usage
errors exit 2. Heavy imports happen inside the commands that need them.
"""

from __future__ import annotations

import json
import sys
from inspect import cleandoc, getdoc
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from . import options as opts
from ._version import __version__
from .options import Opt

if TYPE_CHECKING:
    from .facade import Strata
    from .store.attempts import FailedAttempt

app = typer.Typer(
    name="gitstrata",
    help="Causal memory for coding agents: why code is the way it is, what changes with it, "
    "and what was already tried and failed.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _param(opt: Opt) -> Any:
    """The Typer parameter declared by `opt` (flags, help, range; the default and the choices
    go in the signature and its type)."""
    kwargs: dict[str, Any] = {"help": opt.help}
    if not opt.show_default:
        kwargs["show_default"] = False
    if opt.min is not None:
        kwargs["min"] = opt.min
    if opt.max is not None:
        kwargs["max"] = opt.max
    return typer.Argument(**kwargs) if opt.positional else typer.Option(*opt.flags, **kwargs)


# Shared option aliases
JsonOpt = Annotated[bool, _param(opts.JSON)]
QuietOpt = Annotated[bool, _param(opts.QUIET)]
OutOpt = Annotated[str | None, _param(opts.OUT)]


class State:
    def __init__(self, directory: Path) -> None:
        self.directory = directory


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gitstrata {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    directory: Annotated[
        Path, typer.Option("-C", help="Run as if started in this directory (like git -C).")
    ] = Path("."),
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    ctx.obj = State(directory)


def _strata(
    ctx: typer.Context, out: str | None, *, path: Path | None = None, require_repo: bool = True
) -> Strata:
    """The `Strata` of the repository at `-C` (joined with `path`) and index folder `out`."""
    from .facade import Strata

    base: Path = ctx.obj.directory
    return Strata(
        base / path if path is not None else base, index_dir=out, require_repo=require_repo
    )


def _emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


@app.command()
def index(
    ctx: typer.Context,
    path: Annotated[Path | None, _param(opts.INDEX_PATH)] = None,
    out: OutOpt = None,
    rebuild: Annotated[bool, _param(opts.INDEX_REBUILD)] = False,
    jobs: Annotated[int | None, _param(opts.INDEX_JOBS)] = None,
    executor: Annotated[opts.ExecutorKind, _param(opts.INDEX_EXECUTOR)] = "local",
    address: Annotated[str | None, _param(opts.INDEX_ADDRESS)] = None,
    start_from: Annotated[str | None, _param(opts.INDEX_FROM)] = None,
    quiet: QuietOpt = False,
    progress_style: Annotated[opts.ProgressStyle, _param(opts.INDEX_PROGRESS)] = "auto",
    as_json: JsonOpt = False,
) -> None:
    """Build or refresh the index (incremental: only what changed is redone)."""
    from .oneshot import run_index

    run_index(
        ctx.obj.directory,
        path,
        out,
        rebuild=rebuild,
        jobs=jobs,
        executor=executor,
        address=address,
        start_from=start_from,
        quiet=quiet,
        progress_style=progress_style,
        as_json=as_json,
    )


def _warn_journal(strata: Strata) -> None:
    """The one-line warning of a command that read the journal and had to skip lines."""
    notice = strata.journal_notice()
    if notice:
        typer.echo(f"warning: {notice}", err=True)


@app.command()
def status(ctx: typer.Context, out: OutOpt = None, as_json: JsonOpt = False) -> None:
    """Show the live index: generation, indexed HEAD, tables and their sizes."""
    info = _strata(ctx, out).status()
    if as_json:
        _emit_json(info)
    else:
        from .render_cli import print_status

        print_status(info)
    if info.get("problem"):
        raise typer.Exit(1)  # an index this version cannot answer from


@app.command()
def inspect(
    ctx: typer.Context,
    out: OutOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Rows per table.")] = 10,
    as_json: JsonOpt = False,
) -> None:
    """Coupling hotspots, hidden couplings, load-bearing files and the index's footprint."""
    info = _strata(ctx, out).inspect(limit)
    if as_json:
        _emit_json(info)
        return
    from .render_cli import print_inspect

    print_inspect(info)


@app.command()
def sql(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="A SQL query over the index's tables (Polars SQL).")],
    out: OutOpt = None,
    as_json: JsonOpt = False,
    csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    parquet: Annotated[
        Path | None, typer.Option("--parquet", help="Write the result to this Parquet file.")
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, help="Rows shown in the table view.")
    ] = 50,
) -> None:
    """Run SQL over the live generation: commits, touches, symbols, files, blame, cochange_files, ..."""
    frame = _strata(ctx, out).sql(query)
    if parquet is not None:
        frame.write_parquet(parquet)
        typer.echo(f"wrote {frame.height} rows to {parquet}")
    elif as_json:
        _emit_json(frame.to_dicts())
    elif csv:
        sys.stdout.write(frame.write_csv())
    else:
        from .render_cli import print_frame

        print_frame(frame, limit=limit)


@app.command("config")
def config_cmd(
    ctx: typer.Context,
    out: OutOpt = None,
    defaults: Annotated[
        bool, typer.Option("--defaults", help="Print the defaults, ignoring config.json.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Print the effective configuration: the defaults with .strata/config.json applied."""
    cfg = _strata(ctx, out, require_repo=not defaults).config(defaults=defaults)
    data = cfg.model_dump(mode="json")
    if as_json:
        _emit_json(data)
        return
    base = type(cfg)().model_dump(mode="json")
    for section, values in data.items():
        for key, value in values.items():
            mark = "" if value == base[section][key] else "  (config.json)"
            typer.echo(f"{section}.{key} = {json.dumps(value)}{mark}")


@app.command()
def query(
    ctx: typer.Context,
    text: Annotated[str, _param(opts.QUERY_TEXT)],
    file: Annotated[str | None, _param(opts.QUERY_FILE)] = opts.QUERY_FILE.default,
    mode: Annotated[opts.Mode, _param(opts.QUERY_MODE)] = opts.QUERY_MODE.default,
    top_k: Annotated[int, _param(opts.QUERY_TOP_K)] = opts.QUERY_TOP_K.default,
    raw: Annotated[bool, _param(opts.QUERY_RAW)] = opts.QUERY_RAW.default,
    out: OutOpt = opts.OUT.default,
    as_json: JsonOpt = opts.JSON.default,
) -> None:
    """Search code, commit history and failed attempts; shows every path's evidence per hit."""
    from .oneshot import run_query

    run_query(
        ctx.obj.directory, out, text, file=file, mode=mode, top_k=top_k, raw=raw, as_json=as_json
    )


@app.command()
def preflight(
    ctx: typer.Context,
    file: Annotated[str, _param(opts.PREFLIGHT_FILE)],
    symbol: Annotated[str | None, _param(opts.PREFLIGHT_SYMBOL)] = opts.PREFLIGHT_SYMBOL.default,
    intent: Annotated[str | None, _param(opts.PREFLIGHT_INTENT)] = opts.PREFLIGHT_INTENT.default,
    out: OutOpt = opts.OUT.default,
    as_json: JsonOpt = opts.JSON.default,
) -> None:
    """Before editing: why the code exists, what changes with it, invariants, failed attempts."""
    from .oneshot import run_preflight

    code = run_preflight(
        ctx.obj.directory, out, file, symbol=symbol, intent=intent, as_json=as_json
    )
    if code:
        raise typer.Exit(code)


@app.command()
def mcp(
    ctx: typer.Context,
    out: Annotated[list[str] | None, _param(opts.MCP_INDEX)] = None,
    transport: Annotated[opts.Transport, _param(opts.MCP_TRANSPORT)] = opts.MCP_TRANSPORT.default,
    host: Annotated[str, _param(opts.MCP_HOST)] = opts.MCP_HOST.default,
    port: Annotated[int, _param(opts.MCP_PORT)] = opts.MCP_PORT.default,
    allow_remote: Annotated[bool, _param(opts.MCP_ALLOW_REMOTE)] = opts.MCP_ALLOW_REMOTE.default,
) -> None:
    """Serve the repository to agents over the Model Context Protocol (stdio by default); with
    several --index NAME=LOCATION, serve each of those repositories."""
    from .facade import serve_mcp

    serve_mcp(
        ctx.obj.directory,
        out or [],
        transport=transport,
        host=host,
        port=port,
        allow_remote=allow_remote,
    )


@app.command(
    "exec",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def exec_(
    ctx: typer.Context,
    command: Annotated[list[str], typer.Argument(help="The command to run, after `--`.")],
    notes: Annotated[
        str | None, typer.Option("--notes", "-n", help="What you were trying.")
    ] = None,
    out: OutOpt = None,
) -> None:
    """Run a command transparently; when it fails, record the attempt in the graveyard.

    Output streams live, the exit code is the command's own (also when the attempt cannot be
    recorded: that is a warning). Example:
    gitstrata exec --notes "fresh key per retry" -- pytest -x tests/test_retry.py
    """
    raise typer.Exit(_strata(ctx, out).exec(command, notes))


@app.command()
def doctor(ctx: typer.Context, out: OutOpt = None, as_json: JsonOpt = False) -> None:
    """Check the index folder: the live generation's files, the journal's lines and the task
    store (whose snapshot it rebuilds from the journal); exit status 1 when a check fails."""
    checks = _strata(ctx, out, require_repo=False).doctor()
    if as_json:
        _emit_json({"ok": all(c.ok for c in checks), "checks": [c.to_dict() for c in checks]})
    else:
        for c in checks:
            typer.echo(f"{'ok  ' if c.ok else 'FAIL'}  {c.name}: {c.summary}")
            for line in c.details:
                typer.echo(f"        {line}")
            for line in c.actions:
                typer.echo(f"        done: {line}")
            if c.hint and not c.ok:
                typer.echo(f"        hint: {c.hint}")
    if not all(c.ok for c in checks):
        raise typer.Exit(1)


graveyard_app = typer.Typer(
    help="Failed attempts recorded here (the graveyard).", no_args_is_help=False
)
app.add_typer(graveyard_app, name="graveyard")


@graveyard_app.callback(invoke_without_command=True)
def graveyard_default(ctx: typer.Context, out: OutOpt = None, as_json: JsonOpt = False) -> None:
    """List failed attempts (newest first)."""
    if ctx.invoked_subcommand is not None:
        return
    _list_failures(ctx, out, as_json)


@graveyard_app.command("list")
def graveyard_list(ctx: typer.Context, out: OutOpt = None, as_json: JsonOpt = False) -> None:
    """List failed attempts (newest first), as `gitstrata graveyard` alone does."""
    _list_failures(ctx, out, as_json)


def _list_failures(ctx: typer.Context, out: str | None, as_json: bool) -> None:
    strata = _strata(ctx, out)
    failures = strata.failures()
    _warn_journal(strata)
    if as_json:
        from .serve.firewall_passed import clean_tree  # recorded text came from outside

        _emit_json(clean_tree([_failure_dict(f) for f in failures]))
        return
    from .render_cli import print_graveyard

    print_graveyard(failures)


def _failure_dict(f: FailedAttempt) -> dict[str, Any]:
    return {
        "id": f.id,
        "first_seen": f.first_seen,
        "last_seen": f.last_seen,
        "occurrences": f.occurrences,
        "targets": [{"path": p, "qualname": q} for p, q in f.targets],
        "command": f.command,
        "exit_code": f.exit_code,
        "notes": f.notes,
        "all_notes": f.all_notes(),  # the first record's and every repeat's, each once
        "signature": f.signature.to_dict(),
        "diff": f.diff,
    }


@graveyard_app.command("show")
def graveyard_show(
    ctx: typer.Context,
    failure_id: Annotated[int, typer.Argument(help="The attempt's id.")],
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show one failed attempt with its diff and failure signature."""
    strata = _strata(ctx, out)
    f = strata.failure(failure_id)
    _warn_journal(strata)
    if as_json:
        from .serve.firewall_passed import clean_tree  # recorded text came from outside

        _emit_json(clean_tree(_failure_dict(f)))
        return
    from .render_cli import print_failure

    print_failure(f)


@graveyard_app.command("forget")
def graveyard_forget(
    ctx: typer.Context,
    failure_id: Annotated[
        str, typer.Argument(help="The attempt's id, or revert:<sha> for a reverted commit.")
    ],
    out: OutOpt = None,
) -> None:
    """Forget a failed attempt, or mute a reverted commit's warnings (appends a tombstone;
    nothing is rewritten)."""
    fid = _strata(ctx, out).forget_failure(failure_id)
    typer.echo(f"forgot failed attempt #{fid}" if isinstance(fid, int) else f"muted {fid}")


invariant_app = typer.Typer(
    help="Team rules that must hold (.strata/invariants.okf.json).", no_args_is_help=True
)
app.add_typer(invariant_app, name="invariant")

SEVERITIES = ("critical", "high", "medium", "low")


@invariant_app.command("add")
def invariant_add(
    ctx: typer.Context,
    rule_id: Annotated[str, typer.Argument(help="A stable id, e.g. PAY-001.")],
    scope: Annotated[
        str, typer.Option("--scope", help='Glob, optionally ::Symbol*, e.g. "backend/payments/**".')
    ],
    description: Annotated[
        str, typer.Option("--description", "-d", help="The rule, in one or two sentences.")
    ],
    severity: Annotated[
        str, typer.Option("--severity", help="critical | high | medium | low")
    ] = "high",
    out: OutOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Add (or replace) an invariant."""
    if severity not in SEVERITIES:
        raise typer.BadParameter(f"use one of {', '.join(SEVERITIES)}", param_hint="--severity")
    inv = _strata(ctx, out).record_invariant(rule_id, scope, description, severity)
    from .serve.firewall_passed import clean_tree

    if as_json:
        _emit_json(clean_tree(inv.model_dump()))
    else:
        typer.echo(clean_tree(f"added {inv.id} [{inv.severity}] {inv.scope}"))


@invariant_app.command("list")
def invariant_list(ctx: typer.Context, out: OutOpt = None, as_json: JsonOpt = False) -> None:
    """List invariants."""
    rules = _strata(ctx, out).invariants()
    from .serve.firewall_passed import clean_tree

    if as_json:
        _emit_json(clean_tree([r.to_dict() for r in rules]))
        return
    for r in rules:
        typer.echo(clean_tree(f"{r.id}  [{r.severity}]  {r.scope}  {r.description}"))
    if not rules:
        typer.echo(
            "no invariants yet: gitstrata invariant add RULE --scope GLOB --description TEXT"
        )


@invariant_app.command("remove")
def invariant_remove(
    ctx: typer.Context,
    rule_id: Annotated[str, typer.Argument(help="The rule's id.")],
    out: OutOpt = None,
) -> None:
    """Remove an invariant."""
    _strata(ctx, out).remove_invariant(rule_id)
    typer.echo(f"removed {rule_id}")


# the task commands reuse the option aliases above, so they are registered after them
from .cli_tasks import task_app  # noqa: E402

app.add_typer(task_app, name="task")


def _register_memory() -> None:
    from .memory_cli import register

    register(app)


_register_memory()


def _unwrapped(doc: str | None) -> str | None:
    """`doc` with the line breaks inside its sentences joined: Typer keeps a help text's line
    breaks and the terminal wraps its lines again, which read as ragged lines. A break after a
    colon (an example follows) or before a list item stays."""
    if not doc:
        return doc
    out: list[str] = []
    for line in cleandoc(doc).split("\n"):
        keep = not out or not out[-1] or out[-1].endswith(":") or not line or line[0] in "-*\t "
        if keep:
            out.append(line)
        else:
            out[-1] = f"{out[-1]} {line}"
    return "\n".join(out)


def _unwrap_help(group: typer.Typer) -> None:
    """Every command's help text of `group` and its sub-groups, unwrapped (`_unwrapped`)."""
    for info in group.registered_commands:
        info.help = _unwrapped(info.help or getdoc(info.callback))
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _unwrap_help(sub.typer_instance)


_unwrap_help(app)


def main() -> None:
    from .entry import report_error
    from .store.errors import GitstrataError

    try:
        # standalone mode: click itself reports usage errors (exit 2) and Ctrl-C
        app()
    except GitstrataError as exc:
        report_error(exc)
        sys.exit(1)
