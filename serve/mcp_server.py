"""`gitstrata mcp`: the repository's causal memory served over the Model Context Protocol.

Four tools (`preflight_check`, `search_causal_history`, `record_failure`, `record_invariant`),
four resources (`strata://status`, `strata://invariants`, `strata://graveyard`,
`strata://hotspots`) and the recommended workflow as prompts. Invariants:

- `initialize` is answered before anything is loaded: over stdio the index thread (load, first
  build, refresh: `Lifecycle`) starts when the client says it is initialized, or at its first
  tool call; a tool asked before there is an index answers "indexing, N% done" (with the
  invariants that already apply) instead of waiting.
- Every string a client receives, text or structured content, passed the firewall; the
  structured content of the read tools is bounded like their text (`payload.bound`: the same
  budget, the same truncation notice).
- Bad arguments (paths outside the repository, oversize payloads, unknown severities, values of
  the wrong type or range) come back as tool errors (`is_error`) with one sentence saying what
  to send instead; the server keeps running. Streamable HTTP binds to a loopback address unless
  `allow_remote` is given.

This and the other `mcp_*` modules (`mcp_tasks`: the task continuity tools and the exit
checkpoint; `mcp_tools`: tools built on first use) are the only modules that import `mcp`
(~0.5 s). (No `from __future__ import annotations`:
the SDK reads the tool functions' annotations, and `CallToolResult` is only imported inside the
functions that register tools.)
"""

import ipaddress
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol

from pydantic import Field

from ..store.attempts import Attempt, PayloadLimits
from ..store.errors import GitstrataError, IndexCorrupt, InputError
from ..store.journal_health import JournalWatch
from ..store.oneline import escape_breaks
from ..store.redact import redact_text
from ..store.vocabulary import Severity
from .invariants import MAX_DESCRIPTION, MAX_SCOPE
from .lifecycle import Lifecycle
from .paths import repo_relative
from .payload import bound
from .views import graveyard_view, hotspots_view, invariants_for, invariants_view

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult

    from .engine import Engine
    from .models import PreflightReport
    from .tasks import TaskService

TRANSPORTS = ("stdio", "streamable-http")
# attempted_diff and error_trace; notes and command
MCP_LIMITS = PayloadLimits(payload=256 * 1024, note=16 * 1024)
MAX_QUERY_CHARS = 4000  # query, intended_change
# the share of `retrieval.token_budget` one repository's search answer may take: a search of
# every repository a server serves (`mcp_multi`) splits the budget between them
BUDGET_SHARE: ContextVar[float] = ContextVar("budget_share", default=1.0)
MIN_SEARCH_BUDGET = 200  # tokens: the least `retrieval.token_budget` may be
# the longest string each tool argument may be, checked before any work: an argument's size
# must not decide how long a call holds the server (the diff and the error output are bounded
# in bytes by MCP_LIMITS; any other string by ANY_ARG_CHARS)
ARG_LIMITS = {
    "file_path": 4096,
    "symbol_name": 512,
    "query": MAX_QUERY_CHARS,
    "intended_change": MAX_QUERY_CHARS,
    "rule_id": 256,
    "scope": MAX_SCOPE,
    "invariant_description": MAX_DESCRIPTION,
    "notes": MCP_LIMITS.note,
    "command": MCP_LIMITS.note,
}
ANY_ARG_CHARS = 2 * MCP_LIMITS.payload
# the longest JSON-RPC line the stdio server reads whole: every argument at its limit, escaped,
# fits; a longer line is answered as too large without being held (`mcp_stdin`)
MAX_REQUEST_BYTES = 4 * 1024 * 1024

INSTRUCTIONS = """\
gitstrata is this repository's causal memory, built from its git history: why code is the way it
is, what else changes with it, which team invariants apply, and which approaches were already
tried and failed. Call preflight_check before you edit a function or file; use
search_causal_history for "why" questions, regressions and error messages; call record_failure
when a change you tried failed its tests, and record_invariant when you learn a rule that must
always hold. Run tests through `gitstrata exec -- <command>` so failures are recorded for you."""

WORKFLOW = """\
Working with gitstrata in this repository:

1. Before editing a function, method or file, call preflight_check(file_path, symbol_name,
   intended_change). Read every section: <invariants must_hold> are rules you must keep;
   <anti_context_do_not_repeat> lists approaches that were already tried here and failed (do not
   repeat them); <load_bearing_code> marks lines written by bug fixes (removing them may reopen
   the bug); <co_change_coupling> names files that usually change together with this one, most
   likely first (P = how often each changed when this one did; "weak" = seen together in one
   commit only), even without an import between them: check whether they need the same change.
2. To understand why code looks the way it does, or where a symptom comes from, call
   search_causal_history with a question, an identifier or the error message. Ask it too what
   calls a function ("what calls X"), which files import a file ("which files import F") and
   which tests to run after a change ("which tests cover X").
3. Run tests through `gitstrata exec -- <test command>` (for example
   `gitstrata exec -- pytest -x`): the exit code is preserved and a failing run is recorded with
   its diff and error output, so later sessions do not repeat it.
4. If a change failed outside `gitstrata exec` (a manual run, a CI log), call
   record_failure(file_path, attempted_diff, error_trace, notes) before you revert it: say in
   notes what you tried and why it failed.
5. When you learn a rule that must always hold (from a review, an incident, a failing test),
   call record_invariant(rule_id, scope, invariant_description, severity) so every later
   preflight_check on that scope shows it."""

PREFLIGHT_DESCRIPTION = """\
Call BEFORE editing a function, method, class or file. Returns what to know first: the symbol's
location and signature, the team invariants that apply to it (rules that must hold), failed
attempts already recorded for it (do not repeat them), load-bearing lines written by bug fixes,
the commits that shaped it (causal history), files/symbols that historically change together
with it (co-change coupling, including hidden couplings with no import between them), its
callers and callees by name, and the test files to run after the change.
file_path is relative to the repository root (an absolute path inside the repository also works;
`path:LINE` names the symbol spanning that line);
symbol_name is a function, method or class name (`Class.method` or `Type::method` for a method,
`name@LINE` for the one spanning that line) and may be omitted for a whole-file check;
intended_change says in a sentence what you are about to do: failed and reverted attempts warn
only when they resemble it (without it they are listed as history, <past_attempts>). An unknown
file or symbol returns a report saying so with the nearest names (a file renamed or deleted
since: the commit that did it, and a renamed file's path at HEAD first); a name shared by several
symbols is an error listing them with their lines (call again with `name@LINE`)."""

SEARCH_DESCRIPTION = """\
Search this repository's code, commit history (each commit's intent, message and diff) and
recorded failed attempts together. Use it for "why" questions (why does X take a lock?), for
regressions and bug reports in plain language, for an error message or code, for an
identifier, for a place (`path:LINE`), for a commit by its hash, for a release by its
version, for the commit that introduced, last changed or removed a symbol or file ("which
commit introduced X", "who last changed X", "why was X removed"), or for the tests to run
after changing something ("which tests cover X": test code only), or for a function's callers
or callees ("what calls X", "what does X call"). Returns ranked hits (symbols and commits,
with the commits that shaped each symbol) plus warnings about failed attempts
relevant to the query. file_path restricts the results to
one file (relative to the repository root) or a glob (`src/**`)."""

RECORD_FAILURE_DESCRIPTION = """\
Record an approach you tried that FAILED (tests, build or runtime), so this and later sessions
are warned before trying it again: it shows up at once in preflight_check and
search_causal_history for the symbols the diff touched. Call it before reverting the change.
attempted_diff is the unified diff of what you tried, against HEAD (`git diff` output);
error_trace is the failing output (test failures, stack trace, compiler errors); each is at most
256 KB (send the failing hunks and the end of the output if larger). Secrets are redacted before
anything is stored. Recording the same attempt again counts one more occurrence."""

RECORD_INVARIANT_DESCRIPTION = """\
Record a rule that must always hold in part of the code (a team invariant), learned from a
review, an incident or a failing test. Every later preflight_check whose target matches the scope
shows it, without any retrieval or scoring. rule_id is a stable id such as INV-PAY-001 (recording
the same id again replaces the rule); scope is a path glob relative to the repository root,
optionally narrowed to symbols: "src/payments/**", "api/*.py", "api/schemas.py::Order*";
invariant_description states the rule and why it exists in one or two sentences."""

# the argument schemas an agent sees
FilePath = Annotated[
    str,
    Field(
        description="Path of the file, relative to the repository root (e.g. src/payments/retry.py)."
    ),
]
SymbolName = Annotated[
    str | None,
    Field(
        description="Function, method or class name; `Class.method` or `Type::method` for a method; "
        "`name@LINE` picks the one spanning LINE. Omit for the whole file."
    ),
]


def check_bind_host(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback bind address unless the caller asked for it."""
    if allow_remote or host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise InputError(
            f"refusing to serve on {host}: only loopback addresses (127.0.0.1, ::1, localhost) "
            "are allowed by default, because the MCP endpoint has no authentication",
            hint="pass --allow-remote to bind another address on purpose",
        )


def _limit(name: str, text: str | None, limit: int) -> None:
    if text is not None and len(text) > limit:
        raise InputError(
            f"{name} is {len(text)} characters, over the {limit} characters limit",
            hint="send the relevant part: the failing hunks of a diff, the last lines of an output",
        )


def _message(exc: GitstrataError) -> str:
    # one line, as the command line shows it, whatever a name in it holds
    return escape_breaks(f"{exc} ({exc.hint})" if exc.hint else str(exc))


class _Replies:
    """How every tool answers: firewall-cleaned results, tool errors, the "indexing" notice."""

    def __init__(self, life: Lifecycle) -> None:
        self.life = life
        self.journal = JournalWatch(life.index_dir / "journal")
        self._shaped: dict[tuple[Any, ...], tuple[tuple[object, ...], str, dict[str, Any]]] = {}

    def result(
        self,
        text: str,
        data: dict[str, Any],
        *,
        is_error: bool = False,
        scrubbed: bool = False,
        fill: dict[str, str] | None = None,
    ) -> "CallToolResult":
        """`fill`: placeholders of `text` replaced after the firewall, by values of our own (a
        latency changes every call, and would make every text new to the firewall's cache)."""
        from mcp_types import CallToolResult, TextContent

        from .firewall_passed import clean, clean_tree

        # journal lines every reader skips are named in every answer until someone fixes them
        health = self.journal.health()
        if not health.ok:
            text = f"{text}\n\nNote: {health.notice()}"
            data = {**data, "journal": clean_tree(health.to_dict())}  # reasons quote lines

        # `scrubbed`: an engine result, whose every string field the engine already cleaned
        # (serve/safe.py); the block is cleaned again as a whole, since fields joined into one
        # text could form a pattern that no single field holds
        out = clean(text)
        for placeholder, value in (fill or {}).items():
            out = out.replace(placeholder, value, 1)
        return CallToolResult(
            content=[TextContent(type="text", text=out)],
            structured_content=data if scrubbed else clean_tree(data),
            is_error=is_error,
        )

    def shaped(self, report: "PreflightReport", budget: int) -> tuple[str, dict[str, Any]]:
        """The rendered block (with a fixed latency, filled in after the firewall: see `result`)
        and the bounded structured content of `report`, as the engine returned it. Both follow
        from the report and the budget alone, and an agent asks the same target again and
        again: they are kept by what the report is made of. That is the objects the engine
        built most of it from (`PreflightReport.origin`, compared by identity: the generation's
        part of the answer and the journal's), the JSON of the fields built on each request,
        and the latency's length (the bound counts characters). Without an origin, the whole
        report's JSON."""
        from .render import render_preflight

        latency = report.latency_ms
        origin = report.origin()
        if origin:
            live = report.model_dump_json(include=set(report.LIVE_FIELDS))
            key: tuple[Any, ...] = (budget, len(repr(latency)), *map(id, origin), live)
        else:
            key = (budget, len(repr(latency)), report.model_dump_json(exclude={"latency_ms"}))
        got = self._shaped.get(key)
        if got is None or any(a is not b for a, b in zip(got[0], origin, strict=True)):
            data = report.model_dump(mode="json")
            data["latency_ms"] = 0.0
            shown = report.model_copy(update={"latency_ms": 0.0})
            # the origin is kept with the answer: an id is unique only while its object lives
            got = (origin, render_preflight(shown, budget=budget), bound(data, budget))
            if len(self._shaped) >= 64:
                self._shaped.clear()
            self._shaped[key] = got
        _, text, bounded = got
        return text, {**bounded, "latency_ms": latency}

    def fail(self, exc: GitstrataError) -> "ToolError":
        from mcp.server.mcpserver.exceptions import ToolError

        from .firewall_passed import clean

        return ToolError(clean(_message(exc)))

    def unavailable(self, extra: str = "", data: dict[str, Any] | None = None) -> "CallToolResult":
        text, state, is_error = self.life.notice()
        return self.result(text + extra, {**state, **(data or {})}, is_error=is_error)

    async def engine(self) -> "Engine | None":
        import anyio

        if self.life.damage is not None:  # an answer from damaged files could be anything
            raise IndexCorrupt(self.life.damage, hint="a rebuild of what is damaged has started")
        engine = self.life.engine
        if engine is None:  # a load may be in progress: wait for it off the event loop
            self.life.start()  # a client that never said it was initialized
            engine = await anyio.to_thread.run_sync(self.life.acquire)
        return engine


def import_server_modules() -> None:
    """Import what `serve` needs before it answers `initialize` (the SDK is most of a server's
    start-up), so that the command line can import it with the cycle collector paused."""
    from mcp.server.mcpserver import MCPServer  # noqa: F401

    from . import mcp_tasks, tasks  # noqa: F401


def build_server(life: Lifecycle, tasks: "TaskService | None" = None) -> "MCPServer":
    """The MCP server over `life`'s index (tools, resources, prompts), not yet running."""
    from importlib.metadata import PackageNotFoundError, version

    from mcp.server.mcpserver import MCPServer

    from .mcp_tasks import add_session_notes, add_task_tools
    from .mcp_tools import install as install_lazy_tools
    from .tasks import TaskService

    try:
        ver = version("gitstrata")
    except PackageNotFoundError:
        ver = "0+unknown"
    with _plain_logging():
        app = MCPServer("gitstrata", instructions=INSTRUCTIONS, version=ver, log_level="WARNING")
    lazy = install_lazy_tools(app)
    replies = _Replies(life)
    _add_read_tools(app, life, replies)
    _add_write_tools(app, life, replies)
    tasks = tasks if tasks is not None else TaskService(life.index_dir, life.repo)
    add_task_tools(app, tasks, replies.result, replies.fail)
    from .mcp_memory import add_memory_tools

    book = add_memory_tools(app, life, replies)
    tasks.outcome_hooks.append(book.adjust_used)
    _add_resources(app, life)
    _add_prompts(app)
    _explain_bad_arguments(app)
    add_session_notes(app, tasks)
    if lazy is not None:
        lazy.save()
    return app


@contextmanager
def _plain_logging() -> Iterator[None]:
    """Build the SDK's server with the standard library's log handler: its constructor would
    otherwise import `rich` for a coloured one (about 40 ms before `initialize` can be
    answered, for the few warnings this server logs to stderr). A version of the SDK without
    the hook is left as it is."""
    import logging

    import mcp.server.mcpserver.server as sdk

    configure = getattr(sdk, "configure_logging", None)
    if configure is None:
        yield
        return

    def plain(level: str = "INFO") -> None:
        logging.basicConfig(level=level, format="%(message)s")

    sdk.configure_logging = plain
    try:
        yield
    finally:
        sdk.configure_logging = configure


def argument_error(tool: str, error: Any, schema: dict[str, Any] | None) -> str:
    """One sentence for the first of pydantic's `errors()` on `tool`'s arguments: which argument,
    what was wrong, and what to send (from the tool's own schema), without the validator's dump."""
    loc = [str(p) for p in error.get("loc", ())]
    name = loc[0] if loc else "arguments"
    prop = ((schema or {}).get("properties") or {}).get(name) or {}
    if error.get("type") == "missing":
        problem = f"{name} is missing"
    elif error.get("type") == "extra_forbidden":
        known = ", ".join((schema or {}).get("properties") or {})
        return f"{tool} has no argument {name}: send only {known}."
    else:
        msg = str(error.get("msg", "invalid")).rstrip(".")
        problem = f"{name} is not valid ({msg[:1].lower()}{msg[1:]})"
    kind = _schema_kind(prop)
    what = str(prop.get("description") or "").rstrip(".")
    send = f"{kind}: {what[:1].lower()}{what[1:]}" if what else kind
    return f"{tool}: {problem}; send {send}."


def _schema_kind(prop: dict[str, Any]) -> str:
    types = [prop.get("type")] if "type" in prop else [a.get("type") for a in prop.get("anyOf", [])]
    names = {"string": "a string", "integer": "an integer", "number": "a number",
             "boolean": "true or false", "null": "null"}  # fmt: skip
    out = " or ".join(names.get(t, str(t)) for t in types if t) or "a value"
    if "enum" in prop:
        out = "one of " + ", ".join(str(v) for v in prop["enum"])
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        out += f" from {low} to {high}"
    return out


def _explain_bad_arguments(app: "MCPServer") -> None:
    """Arguments the SDK's validation rejects get `argument_error`'s sentence instead of the
    validator's multi-line dump (with its documentation URLs)."""
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import ValidationError

    from .mcp_stdin import OVERSIZED_ARGUMENT

    call = app.call_tool

    async def call_tool(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if OVERSIZED_ARGUMENT in (arguments or {}):
            size = arguments[OVERSIZED_ARGUMENT]
            raise ToolError(
                f"the request is {size} bytes, over the {MAX_REQUEST_BYTES} bytes a call may "
                "send (send the relevant part: the failing hunks of a diff, the last lines of an "
                "output)"
            )
        for key, value in (arguments or {}).items():
            if isinstance(value, str):
                try:
                    _limit(key, value, ARG_LIMITS.get(key, ANY_ARG_CHARS))
                except InputError as exc:
                    raise ToolError(_message(exc)) from None
        try:
            return await call(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError) or not cause.errors():
                raise
            tool = app._tool_manager.get_tool(name)
            schema = tool.parameters if tool is not None else None
            raise ToolError(argument_error(name, cause.errors()[0], schema)) from cause

    app.call_tool = call_tool  # type: ignore[method-assign]


def _start_after_initialize(app: "MCPServer", life: Lifecycle) -> None:
    """Start loading the index once the client is initialized: `initialize` itself never waits
    for imports or reads of the index."""
    from mcp_types import NotificationParams

    async def initialized(ctx: Any, params: Any) -> None:
        life.start()

    app._lowlevel_server.add_notification_handler(
        "notifications/initialized", NotificationParams, initialized
    )


def _add_read_tools(app: "MCPServer", life: Lifecycle, replies: _Replies) -> None:
    from mcp_types import CallToolResult, ToolAnnotations

    from .render import render_search

    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    # The read tools are coroutines: with a warm engine a call takes about a millisecond of CPU,
    # less than the hop to a worker thread would cost, so it runs on the event loop.
    @app.tool(name="preflight_check", description=PREFLIGHT_DESCRIPTION, annotations=read_only)
    async def preflight_check(
        file_path: FilePath,
        symbol_name: SymbolName = None,
        intended_change: Annotated[
            str | None, Field(description="One sentence: what you are about to change and how.")
        ] = None,
    ) -> CallToolResult:
        try:
            _limit("intended_change", intended_change, MAX_QUERY_CHARS)
            path = repo_relative(life.repo, file_path)
            engine = await replies.engine()
            if engine is None:
                rules = invariants_for(life.index_dir, path, symbol_name or None)
                lines = "".join(
                    f"\n  [{r['severity']}] {r['id']} ({r['scope']}): {r['description']}"
                    for r in rules
                )
                extra = (
                    f"\nInvariants that apply to {path} (they always hold):{lines}" if rules else ""
                )
                return replies.unavailable(extra, {"file": path, "invariants": rules})
            if engine.repo_root == life.repo:  # `path` was checked against that tree just now
                report = engine.preflight_checked(
                    path, symbol_name or None, intended_change or None
                )
            else:
                report = engine.preflight(path, symbol_name or None, intended_change or None)
            text, data = replies.shaped(report, engine.config.retrieval.token_budget)
            return replies.result(
                text,
                data,
                scrubbed=True,
                fill={'latency_ms="0.00"': f'latency_ms="{report.latency_ms:.2f}"'},
            )
        except GitstrataError as exc:
            raise replies.fail(exc) from None
        finally:
            life.note_answered()

    @app.tool(name="search_causal_history", description=SEARCH_DESCRIPTION, annotations=read_only)
    async def search_causal_history(
        query: Annotated[
            str,
            Field(
                description="A question, a bug report, an error message or code, or an identifier."
            ),
        ],
        top_k: Annotated[int, Field(ge=1, le=50, description="How many results (1-50).")] = 8,
        file_path: Annotated[
            str | None, Field(description="Only results concerning this file.")
        ] = None,
    ) -> CallToolResult:
        try:
            if not query.strip():
                raise InputError(
                    "query is empty",
                    hint="ask a question, paste an error message or name an identifier",
                )
            _limit("query", query, MAX_QUERY_CHARS)
            path = repo_relative(life.repo, file_path) if file_path else None
            engine = await replies.engine()
            if engine is None:
                return replies.unavailable()
            resp = engine.search(query, top_k, file_path=path)
            # the text and the structured content within preflight's budget (4 characters a
            # token), or this repository's share of it
            share = engine.config.retrieval.token_budget * BUDGET_SHARE.get()
            budget = max(MIN_SEARCH_BUDGET, int(share))
            data = bound(resp.model_dump(mode="json"), budget)
            return replies.result(render_search(resp, budget=budget), data, scrubbed=True)
        except GitstrataError as exc:
            raise replies.fail(exc) from None
        finally:
            life.note_answered()


def _add_write_tools(app: "MCPServer", life: Lifecycle, replies: _Replies) -> None:
    from mcp_types import CallToolResult, ToolAnnotations

    # `api` (Arrow, numpy) is imported by the first write, not before `initialize` is answered
    append_only = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, open_world_hint=False
    )

    @app.tool(
        name="record_failure", description=RECORD_FAILURE_DESCRIPTION, annotations=append_only
    )
    def record_failure(
        file_path: FilePath,
        attempted_diff: Annotated[
            str, Field(description="Unified diff of the failed change, against HEAD.")
        ],
        error_trace: Annotated[
            str, Field(description="The failing output: test failures, traceback, errors.")
        ],
        notes: Annotated[
            str | None, Field(description="What you tried and why it failed, in plain words.")
        ] = None,
        symbol_name: SymbolName = None,
        command: Annotated[
            str | None, Field(description="The command that failed, e.g. `pytest tests/x -q`.")
        ] = None,
    ) -> CallToolResult:
        attempt = Attempt(
            file_path=file_path,
            attempted_diff=attempted_diff,
            error_trace=error_trace,
            notes=notes,
            symbol_name=symbol_name,
            command=command,
        )
        from . import api

        try:
            got = api.record_failure(life.repo, life.index_dir, attempt, limits=MCP_LIMITS)
        except GitstrataError as exc:
            raise replies.fail(exc) from None
        if got.occurrences > 1:
            text = (
                f"This attempt was already recorded as failed attempt #{got.failure_id}; this is "
                f"occurrence {got.occurrences}. Do not try it again: look for another approach."
            )
        else:
            text = (
                f"Recorded failed attempt #{got.failure_id} for {', '.join(got.targets)}. "
                "preflight_check and search_causal_history warn about it from now on."
            )
        return replies.result(text, got.model_dump(mode="json"))

    @app.tool(
        name="record_invariant", description=RECORD_INVARIANT_DESCRIPTION, annotations=append_only
    )
    def record_invariant(
        rule_id: Annotated[
            str, Field(description="Stable id: letters, digits and . _ - : / (e.g. INV-PAY-001).")
        ],
        scope: Annotated[
            str,
            Field(
                description='Path glob, optionally ::SymbolGlob: "src/payments/**", "api/schemas.py::Order*".'
            ),
        ],
        invariant_description: Annotated[
            str, Field(description="The rule and why it exists, 1-2 sentences.")
        ],
        severity: Annotated[Severity, Field(description="How bad breaking it is.")] = "high",
    ) -> CallToolResult:
        from . import api

        try:
            inv = api.record_invariant(
                life.index_dir, rule_id, scope, invariant_description, severity
            )
        except GitstrataError as exc:
            raise replies.fail(exc) from None
        text = (
            f"Recorded invariant {inv.id} [{inv.severity}] for {inv.scope}; every preflight_check on "
            "that scope shows it. Commit .strata/invariants.okf.json to share it with the team."
        )
        return replies.result(text, inv.model_dump(mode="json"))


def _add_resources(app: "MCPServer", life: Lifecycle) -> None:
    from .firewall_passed import clean_tree

    journal = JournalWatch(life.index_dir / "journal")

    def resource_json(data: dict[str, Any]) -> str:
        return json.dumps(clean_tree(data), indent=2, ensure_ascii=False, default=str)

    @app.resource("strata://status", name="status", mime_type="application/json",
                  description="Index state: phase, served generation and HEAD, indexed range, table counts, "
                  "build progress, last refresh and errors.")  # fmt: skip
    def status() -> str:
        return resource_json({**life.status(), "journal": journal.health().to_dict()})

    @app.resource("strata://invariants", name="invariants", mime_type="application/json",
                  description="Every team invariant recorded for this repository.")  # fmt: skip
    def invariants() -> str:
        return resource_json(invariants_view(life.index_dir))

    @app.resource("strata://graveyard", name="graveyard", mime_type="application/json",
                  description="Failed attempts recorded in this repository, newest first.")  # fmt: skip
    def graveyard() -> str:
        return resource_json(graveyard_view(life.index_dir / "journal"))

    @app.resource("strata://hotspots", name="hotspots", mime_type="application/json",
                  description="Strongest co-change couplings between files, and hidden ones (no import link).")  # fmt: skip
    def hotspots() -> str:
        engine = life.engine
        if engine is None:
            return resource_json(life.notice()[1])
        return resource_json(hotspots_view(engine))


def _add_prompts(app: "MCPServer") -> None:
    from .firewall_passed import clean

    @app.prompt(name="workflow", description="How to use gitstrata while changing this repository.")
    def workflow() -> str:
        return WORKFLOW

    @app.prompt(
        name="before_edit", description="Check a function with gitstrata before editing it."
    )
    def before_edit(file_path: str, symbol_name: str = "", intended_change: str = "") -> str:
        target = f"{symbol_name} in {file_path}" if symbol_name else file_path
        said = redact_text(intended_change)
        ask = f' with intended_change="{said}"' if said else ""
        return clean(
            f"Before changing {target}, call preflight_check{ask}. Keep every invariant it lists, do "
            "not repeat any failed attempt it shows, keep the load-bearing lines unless you know why "
            "they exist, and check the co-changed files for the same change. Then edit, and run the "
            "tests through `gitstrata exec -- <test command>`."
        )


def serve(
    directory: str | Path,
    *,
    index_dir: str | Path | None = None,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    allow_remote: bool = False,
) -> None:
    """Run the MCP server for the repository at `directory` until the client goes away."""
    if transport not in TRANSPORTS:
        raise InputError(f"unknown transport {transport!r}", hint="use stdio or streamable-http")
    if transport == "streamable-http":
        check_bind_host(host, allow_remote)
        host = host.strip("[]")  # "[::1]" as in a URL, "::1" for the socket
    from .mcp_tasks import install_exit_checkpoint, run_exit_hook
    from .tasks import TaskService

    life = Lifecycle(Path(directory), Path(index_dir) if index_dir is not None else None)
    tasks = TaskService(life.index_dir, life.repo)
    install_exit_checkpoint(tasks)  # SIGTERM / SIGINT: the active task is checkpointed first
    ended = "stdin closed"
    try:
        app = build_server(life, tasks)
        if transport == "stdio":
            _start_after_initialize(app, life)
            _stop_on_signals(life, lambda reason: run_exit_hook(tasks, reason))
            _run_stdio(app)
        else:
            life.start()  # many clients, none of them first: load at once
            where = f"[{host}]" if ":" in host else host
            print(f"gitstrata mcp: serving {life.repo or life.directory} on http://{where}:{port}/mcp",
                  file=sys.stderr, flush=True)  # fmt: skip
            app.run("streamable-http", host=host, port=port)
    except KeyboardInterrupt:
        ended = "SIGINT"
    except BaseException as exc:
        if not _client_gone(exc):
            raise
        _silence_stdout()  # the interpreter's last flush would report the broken pipe again
    finally:
        run_exit_hook(tasks, ended if transport == "stdio" else "server stopped")
        life.close()


def _run_stdio(app: "MCPServer") -> None:
    """`app.run("stdio")`, reading requests through `mcp_stdin.BoundedLines`."""
    import anyio
    from mcp.server.stdio import stdio_server

    from .mcp_stdin import BoundedLines, claim_stdin

    async def run() -> None:
        lines = BoundedLines(claim_stdin(), MAX_REQUEST_BYTES)
        async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]
            server = app._lowlevel_server
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


def _client_gone(exc: BaseException) -> bool:
    """True when `exc` (or every exception of a group) says the client closed the stream."""
    import anyio

    if isinstance(exc, BaseExceptionGroup):
        return all(_client_gone(e) for e in exc.exceptions)
    gone = (BrokenPipeError, ConnectionResetError, EOFError, anyio.BrokenResourceError)
    return isinstance(exc, (*gone, anyio.ClosedResourceError))


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


class Closable(Protocol):
    def close(self) -> None: ...


def _stop_on_signals(life: Closable, before_exit: Callable[[str], None] | None = None) -> None:
    """SIGINT and SIGTERM end a stdio server at once and cleanly (exit 0): its stdin reader is a
    thread that no exception reaches, so waiting for the event loop to notice could be forever.
    A build in progress is stopped; every acknowledged journal write is already on disk.
    `before_exit(signal name)` runs first (the active task's automatic checkpoint)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if before_exit is not None:
            before_exit(signal.Signals(signum).name)
        life.close()
        from ..store import usercache

        usercache.save_all()  # what the caches learned, as a normal exit would
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        _silence_stdout()
        os._exit(0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
