"""The console-script entry point.

`gitstrata mcp` is started by agents on every session, so its start-up time matters: it is
parsed here without Typer and Rich (a fifth of a second of imports). Everything else, including
any `mcp` invocation this small parser does not understand, goes to the Typer CLI.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _mcp_args(argv: list[str]) -> argparse.Namespace | None:
    rest = list(argv)
    directory = "."
    if rest[:1] == ["-C"] and len(rest) >= 2:
        directory, rest = rest[1], rest[2:]
    if rest[:1] != ["mcp"] or any(a in ("-h", "--help") for a in rest):
        return None
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    parser.add_argument("--index", type=Path)
    parser.add_argument("--transport", choices=("stdio", "streamable-http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--allow-remote", action="store_true")
    try:
        ns, unknown = parser.parse_known_args(rest[1:])
    except argparse.ArgumentError:
        return None
    if unknown or not 0 <= ns.port <= 65535:
        return None
    ns.directory = Path(directory)
    return ns


def main() -> None:
    ns = _mcp_args(sys.argv[1:])
    if ns is not None:
        from .store.errors import GitstrataError

        try:
            from .serve.mcp_server import serve

            serve(
                ns.directory,
                index_dir=ns.index,
                transport=ns.transport,
                host=ns.host,
                port=ns.port,
                allow_remote=ns.allow_remote,
            )
        except GitstrataError as exc:
            print(
                f"error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
                file=sys.stderr,
            )
            if exc.hint:
                print(f"hint: {exc.hint}", file=sys.stderr)
            sys.exit(1)
        except KeyboardInterrupt:
            sys.exit(130)
        return
    from .cli import main as cli_main

    cli_main()
