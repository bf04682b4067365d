"""The bodies of `gitstrata query`, `gitstrata preflight` and `gitstrata index`, free of Typer.

Agents that use the CLI rather than MCP run these once per question (and `index` after each
commit), so the console entry point
parses their arguments itself and calls here without importing Typer; the Typer commands call
the same functions, so both paths print exactly the same thing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from .facade import Strata
    from .options import ProgressStyle


def run_query(
    directory: Path,
    index_dir: str | Path | None,
    text: str,
    *,
    file: str | None = None,
    mode: str = "full",
    top_k: int = 10,
    raw: bool = False,
    as_json: bool = False,
) -> None:
    from .facade import Strata

    with Strata(directory, index_dir=index_dir) as strata:
        resp = strata.search(text, top_k, file_path=file, mode=mode)
        if as_json:
            sys.stdout.write(resp.model_dump_json(indent=2) + "\n")
        elif raw:
            from .serve.render import render_search

            sys.stdout.write(render_search(resp) + "\n")
        else:
            from .render_plain import print_search

            print_search(resp)
        _warn_journal(strata)


def run_preflight(
    directory: Path,
    index_dir: str | Path | None,
    file: str,
    *,
    symbol: str | None = None,
    intent: str | None = None,
    as_json: bool = False,
) -> int:
    """Print the preflight report; the exit status is 1 when the file or the symbol is not
    found (the report says so and lists the nearest matches), else 0. `file` is relative to
    `directory`, as git takes paths from the current directory."""
    from .facade import Strata

    with Strata(directory, index_dir=index_dir) as strata:
        report = strata.preflight(file, symbol, intent)
        if as_json:
            sys.stdout.write(report.model_dump_json(indent=2) + "\n")
        else:
            from .serve.render import render_preflight

            budget = strata.engine.config.retrieval.token_budget
            sys.stdout.write(render_preflight(report, budget=budget) + "\n")
        _warn_journal(strata)
    if not report.found:  # a script reading only the exit status and stderr learns why too
        from .serve.firewall_passed import clean
        from .store.oneline import escape_breaks

        nearest = f"; nearest: {', '.join(report.nearest[:3])}" if report.nearest else ""
        why = clean(report.message or f"{file} is not in the index")
        # one line, whatever a name in it holds
        sys.stderr.write(f"error: {escape_breaks(why + nearest)}\n")
    return 0 if report.found else 1


def _warn_journal(strata: Strata) -> None:
    notice = strata.journal_notice()
    if notice:
        sys.stderr.write(f"warning: {notice}\n")


def run_index(
    directory: Path,
    path: Path | None,
    index_dir: str | Path | None,
    *,
    rebuild: bool = False,
    jobs: int | None = None,
    executor: str = "local",
    address: str | None = None,
    start_from: str | None = None,
    quiet: bool = False,
    progress_style: ProgressStyle = "auto",
    as_json: bool = False,
    preload: Callable[[], None] | None = None,
) -> None:
    """`preload`: imports the run needs (`entry._index_modules`), made by `Strata.index` once
    the pools' fork server is starting, so that the server imports its own at the same time."""
    from .facade import Strata, jobs_used
    from .pipeline.progress import make_progress

    if jobs is not None and address is None and jobs_used(jobs) < jobs:
        cores = os.cpu_count() or 1
        sys.stderr.write(
            f"note: --jobs {jobs} is more than this machine's {cores} cores can run;"
            f" using {jobs_used(jobs)}\n"
        )

    progress = make_progress(quiet or as_json, progress_style)
    repo = directory / path if path is not None else directory
    try:
        with Strata(repo, index_dir=index_dir) as strata:
            report = strata.index(
                rebuild=rebuild,
                jobs=jobs,
                progress=progress,
                executor=executor,
                address=address,
                start_from=start_from,
                preload=preload,
            )
            # the documents stage read the journal: say what it had to leave out
            notice = strata.journal_health().notice()
    finally:
        progress.close()
    if notice:
        sys.stderr.write(f"warning: {notice}\n")
    if as_json:
        import json

        sys.stdout.write(json.dumps(report.to_dict(), indent=2, default=str) + "\n")
        return
    from .render_plain import print_index_report

    print_index_report(report, repo=strata.location.require_repo())
