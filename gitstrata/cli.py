"""The `gitstrata` command line: thin commands over the library.

Each command parses its options, makes one call into `Strata` (or the store), and formats the
result. Every `GitstrataError` ends here as one line plus a hint and exit status 1; usage errors
exit 2. Heavy imports happen inside the commands that need them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ._version import __version__

app = typer.Typer(
    name="gitstrata",
    help="Causal memory for coding agents: why code is the way it is, what changes with it, "
    "and what was already tried and failed.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Shared option aliases
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", "--index", help="Index folder (default: REPO/.strata).", show_default=False),
]


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


def _repo(ctx: typer.Context, path: Path | None) -> Path:
    base: Path = ctx.obj.directory
    return base / path if path is not None else base


def _emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


@app.command()
def index(
    ctx: typer.Context,
    path: Annotated[Path | None, typer.Argument(help="Repository to index (default: .).")] = None,
    out: OutOpt = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Ignore the previous index.")] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes.")] = None,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Build or refresh the index (incremental: only what changed is redone)."""
    from .facade import Strata
    from .pipeline.progress import make_progress

    progress = make_progress(quiet or as_json)
    try:
        with Strata(_repo(ctx, path), index_dir=out) as strata:
            report = strata.index(rebuild=rebuild, jobs=jobs, progress=progress)
    finally:
        progress.close()
    if as_json:
        _emit_json(report.to_dict())
        return
    from .render_cli import print_index_report

    print_index_report(report, repo=strata.repo)


def _open_store(ctx: typer.Context, out: Path | None):
    """The store of the repository at -C (or `out`), without requiring a git checkout when
    `out` names a downloaded index."""
    from .store.generations import Store

    if out is not None:
        return Store(out)
    from .pipeline.gitio import Git

    return Store(Git(ctx.obj.directory).root / ".strata")


@app.command()
def status(ctx: typer.Context, out: OutOpt = None, as_json: JsonOpt = False) -> None:
    """Show the live index: generation, indexed HEAD, tables and their sizes."""
    from .store.status import index_status

    info = index_status(_open_store(ctx, out), ctx.obj.directory if out is None else None)
    if as_json:
        _emit_json(info)
        return
    from .render_cli import print_status

    print_status(info)


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
    limit: Annotated[int, typer.Option("--limit", min=1, help="Rows shown in the table view.")] = 50,
) -> None:
    """Run SQL over the live generation: commits, touches, symbols, files, blame, cochange_files, ..."""
    from .store.tables import run_sql

    gen = _open_store(ctx, out).require_live()
    frame = run_sql(gen, query)
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


def main() -> None:
    from .store.errors import GitstrataError

    try:
        # standalone mode: click itself reports usage errors (exit 2) and Ctrl-C
        app()
    except GitstrataError as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        typer.echo(f"error: {msg}", err=True)
        if exc.hint:
            typer.echo(f"hint: {exc.hint}", err=True)
        sys.exit(1)
