"""The options of the one-shot commands, declared once.

`gitstrata query`, `preflight`, `mcp` and `index` are parsed twice: by the Typer CLI (help, usage errors,
every other command) and by the console entry point's small argparse parser, which answers them
without importing Typer and Rich. Both parsers are built from the `Opt` specs here, so a flag,
a default, a range or a choice cannot differ between them. This module imports neither Typer
nor Rich (the fast path imports it); `cli.py` turns each spec into an `Annotated` alias.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

# the choices, as types: the Typer commands annotate their parameters with these
Mode = Literal["full", "bm25", "dense", "hybrid"]
Transport = Literal["stdio", "streamable-http"]
ProgressStyle = Literal["auto", "plain", "jsonl"]
ExecutorKind = Literal["local", "ray"]
PROGRESS_STYLES: tuple[str, ...] = get_args(ProgressStyle)
MODES: tuple[str, ...] = get_args(Mode)
TRANSPORTS: tuple[str, ...] = get_args(Transport)


@dataclass(frozen=True)
class Opt:
    """One command-line parameter: a positional argument when `flags` is empty."""

    dest: str  # the Python parameter's name
    flags: tuple[str, ...]
    type: type  # str, int, bool (a flag) or Path
    help: str
    default: Any = None
    choices: tuple[str, ...] | None = None
    min: int | None = None
    max: int | None = None
    show_default: bool = True
    required: bool = True  # a positional argument only
    multiple: bool = False  # may be given several times (a list)

    @property
    def positional(self) -> bool:
        return not self.flags

    def in_range(self, value: Any) -> bool:
        if value is None:
            return True
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)


# shared by every command that reads an index or prints data
OUT = Opt(
    "out",
    ("--out", "--index"),
    str,
    "Index folder, or a remote location (s3://, gs://, file://) served from a local cache "
    "(default: REPO/.strata).",
    show_default=False,
)
# `gitstrata mcp` serves one index, or several given as NAME=LOCATION
MCP_INDEX = Opt(
    "out",
    ("--out", "--index"),
    str,
    "Index folder or remote location (default: REPO/.strata); repeat as NAME=LOCATION to serve "
    "several repositories (a repository folder or an index folder or URI each).",
    show_default=False,
    multiple=True,
)
JSON = Opt("as_json", ("--json",), bool, "Print machine-readable JSON.", default=False)

QUERY_TEXT = Opt("text", (), str, "A question, a bug report, an identifier or an error code.")
QUERY_FILE = Opt("file", ("--file", "-f"), str, "Only results concerning this file.")
QUERY_MODE = Opt("mode", ("--mode",), str, "Retrieval paths to fuse.", "full", MODES)
QUERY_TOP_K = Opt("top_k", ("--top-k", "-k"), int, "Results to return.", 10, min=1, max=100)
QUERY_RAW = Opt(
    "raw", ("--raw",), bool, "Print the agent-facing block instead of a table.", default=False
)

PREFLIGHT_FILE = Opt(
    "file", (), str, "The file you are about to edit (relative to the current directory)."
)
PREFLIGHT_SYMBOL = Opt(
    "symbol",
    ("--symbol", "-s"),
    str,
    "Function, method or class: NAME, Type::method, Class.method; NAME@LINE picks the one "
    "spanning LINE.",
)
PREFLIGHT_INTENT = Opt("intent", ("--intent", "-i"), str, "What you intend to change.")

MCP_TRANSPORT = Opt("transport", ("--transport",), str, "How clients connect.", "stdio", TRANSPORTS)
MCP_HOST = Opt("host", ("--host",), str, "Bind address for streamable-http.", "127.0.0.1")
MCP_PORT = Opt("port", ("--port",), int, "Port for streamable-http.", 8765, min=0, max=65535)
MCP_ALLOW_REMOTE = Opt(
    "allow_remote",
    ("--allow-remote",),
    bool,
    "Allow binding streamable-http to a non-loopback host.",
    default=False,
)

INDEX_PATH = Opt("path", (), Path, "Repository to index (default: .).", required=False)
INDEX_REBUILD = Opt("rebuild", ("--rebuild",), bool, "Ignore the previous index.", default=False)
INDEX_JOBS = Opt(
    "jobs", ("--jobs", "-j"), int, "Worker processes, and at most this many stages at once.", min=1
)
INDEX_EXECUTOR = Opt(
    "executor",
    ("--executor",),
    str,
    "Where per-file and per-commit-range work runs: local (a process pool) or ray.",
    "local",
    get_args(ExecutorKind),
)
INDEX_ADDRESS = Opt(
    "address",
    ("--address",),
    str,
    "The Ray cluster to run on (host:port of its head, or auto); default: a local Ray runtime.",
)
INDEX_FROM = Opt(
    "start_from",
    ("--from",),
    str,
    "Start from a prebuilt index (a folder or a URI, e.g. the one CI published): only what is "
    "new since its commit is indexed.",
)
QUIET = Opt("quiet", ("--quiet", "-q"), bool, "No progress output.", default=False)
INDEX_PROGRESS = Opt(
    "progress_style",
    ("--progress",),
    str,
    "Progress on stderr: auto (a bar on a terminal, else plain lines), plain, or jsonl (one "
    "JSON event per line, for a program watching the run).",
    "auto",
    PROGRESS_STYLES,
)

# the commands the console entry point answers without Typer, with every parameter they take
FAST_COMMANDS: dict[str, tuple[Opt, ...]] = {
    "query": (QUERY_TEXT, QUERY_FILE, QUERY_MODE, QUERY_TOP_K, QUERY_RAW, OUT, JSON),
    "preflight": (PREFLIGHT_FILE, PREFLIGHT_SYMBOL, PREFLIGHT_INTENT, OUT, JSON),
    "mcp": (MCP_TRANSPORT, MCP_HOST, MCP_PORT, MCP_ALLOW_REMOTE, MCP_INDEX),
    "index": (
        INDEX_PATH,
        OUT,
        INDEX_REBUILD,
        INDEX_JOBS,
        INDEX_EXECUTOR,
        INDEX_ADDRESS,
        INDEX_FROM,
        QUIET,
        INDEX_PROGRESS,
        JSON,
    ),
}


def argparse_parser(command: str) -> argparse.ArgumentParser:
    """A parser for one fast command that fails (never exits) on anything it does not know,
    so that the caller can hand the arguments to Typer instead."""
    p = argparse.ArgumentParser(add_help=False, exit_on_error=False, allow_abbrev=False)
    for opt in FAST_COMMANDS[command]:
        if opt.positional:
            nargs = None if opt.required else "?"
            p.add_argument(opt.dest, type=opt.type, choices=opt.choices, nargs=nargs)
        elif opt.type is bool:
            p.add_argument(*opt.flags, dest=opt.dest, action="store_true", default=opt.default)
        elif opt.multiple:
            p.add_argument(*opt.flags, dest=opt.dest, type=opt.type, action="append")
        else:
            p.add_argument(
                *opt.flags, dest=opt.dest, type=opt.type, default=opt.default, choices=opt.choices
            )
    return p


def parse_fast(command: str, args: list[str]) -> argparse.Namespace | None:
    """`args` parsed for `command`, or None when anything is unknown, missing or out of range
    (Typer then reports it, with the same message as for every other command)."""
    try:
        ns, unknown = argparse_parser(command).parse_known_args(args)
    except (argparse.ArgumentError, SystemExit):
        return None
    if unknown:
        return None
    if not all(opt.in_range(getattr(ns, opt.dest)) for opt in FAST_COMMANDS[command]):
        return None
    return ns
