"""The console-script entry point.

Agents start `gitstrata mcp` once per session, run `gitstrata query` / `gitstrata preflight`
once per question and `gitstrata index` after each commit, so these four are parsed here without Typer and Rich (a quarter of a second
of imports). Their parser is built from the same option specs as the Typer commands
(`options.py`). Anything it does not understand (`--help`, a usage error, every other command)
goes to the Typer CLI, which owns the help text and the error messages.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def _fast(argv: list[str]) -> Callable[[], None] | None:
    """A call for the fast path, or None to let Typer handle `argv`."""
    from .options import FAST_COMMANDS, parse_fast

    rest = list(argv)
    directory = Path(".")
    if rest[:1] == ["-C"] and len(rest) >= 2:
        directory, rest = Path(rest[1]), rest[2:]
    if not rest or rest[0] not in FAST_COMMANDS or any(a in ("-h", "--help") for a in rest):
        return None
    command = rest[0]
    ns = parse_fast(command, rest[1:])
    if ns is None:
        return None
    if command == "mcp":

        def run_mcp() -> None:
            from .facade import Strata

            Strata(directory, index_dir=ns.out, require_repo=False).serve_mcp(
                transport=ns.transport, host=ns.host, port=ns.port, allow_remote=ns.allow_remote
            )

        return run_mcp
    if command == "query":

        def run_query() -> None:
            from .oneshot import run_query as q

            q(
                directory,
                ns.out,
                ns.text,
                file=ns.file,
                mode=ns.mode,
                top_k=ns.top_k,
                raw=ns.raw,
                as_json=ns.as_json,
            )

        return run_query

    if command == "index":

        def run_index() -> None:
            from .oneshot import run_index as i

            i(
                directory,
                ns.path,
                ns.out,
                rebuild=ns.rebuild,
                jobs=ns.jobs,
                executor=ns.executor,
                address=ns.address,
                start_from=ns.start_from,
                quiet=ns.quiet,
                progress_style=ns.progress_style,
                as_json=ns.as_json,
            )

        return run_index

    def run_preflight() -> None:
        from .oneshot import run_preflight as p

        code = p(directory, ns.out, ns.file, symbol=ns.symbol, intent=ns.intent, as_json=ns.as_json)
        if code:
            sys.exit(code)

    return run_preflight


def report_error(exc: BaseException) -> None:
    """One line plus the hint, on stderr: how every `GitstrataError` ends."""
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    from .store.errors import AmbiguousSymbol

    if isinstance(exc, AmbiguousSymbol):  # one line per candidate, with the option picking it
        print(f"error: {exc.headline}", file=sys.stderr)
        for c in exc.candidates:
            print(f"  {c[0]}  lines {c[1]}-{c[2]}  (-s {exc.pick(c)})", file=sys.stderr)
    else:
        print(f"error: {msg}", file=sys.stderr)
    hint = getattr(exc, "hint", None)
    if hint:
        print(f"hint: {hint}", file=sys.stderr)


def main() -> None:
    call = _fast(sys.argv[1:])
    if call is None:
        from .cli import main as cli_main

        cli_main()
        return
    from .store.errors import GitstrataError

    try:
        call()
    except GitstrataError as exc:
        report_error(exc)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
