"""`gitstrata mcp --index NAME=LOCATION ...`: several repositories behind one MCP server.

Each repository gets the single-repository server of `mcp_server.build_server` (its own
`Lifecycle`, so each loads, builds and hot-swaps its index on its own, and its own task store);
one front server lists their tools once and routes each call. Invariants:

- Every tool takes an extra `repo` argument naming a served repository. It is required, except
  by `search_causal_history`, which searches every repository when it is omitted and labels
  each answer with its repository.
- Every answer names its repository: text in `<repository name="...">`, structured content
  under `repo` (or `repositories` for a search of all).
- `strata://status` lists every repository's status; `strata://NAME/invariants`, `/graveyard`
  and `/hotspots` (and `/status`) are one repository's resources.
"""

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.errors import InputError
from .lifecycle import Lifecycle

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
SEARCH_TOOL = "search_causal_history"
PER_REPO_RESOURCES = ("status", "invariants", "graveyard", "hotspots")


def split_named(locations: Sequence[str]) -> list[tuple[str, str]] | None:
    """`NAME=LOCATION` pairs, or None for one plain location (a folder or a URI, whose query
    may hold `=`); a mix, or a name given twice, is an `InputError`."""
    pairs: list[tuple[str, str] | None] = []
    for item in locations:
        name, sep, where = item.partition("=")
        pairs.append((name, where) if sep and NAME_RE.match(name) and where else None)
    if not any(pairs):
        if len(locations) > 1:
            raise InputError(
                "several --index locations need a name each",
                hint="pass --index NAME=FOLDER_OR_URI for every repository",
            )
        return None
    if not all(pairs):
        bad = next(loc for loc, p in zip(locations, pairs, strict=True) if p is None)
        raise InputError(
            f"--index {bad}: every location needs a name when several are served",
            hint="pass --index NAME=FOLDER_OR_URI (names: letters, digits, . _ -)",
        )
    named = [p for p in pairs if p is not None]
    names = [n for n, _ in named]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise InputError(f"--index {dup}=...: the name is given twice", hint="name each once")
    return named


class _All:
    """Closes every repository's lifecycle (what a signal handler ends)."""

    def __init__(self, lives: Sequence[Lifecycle]) -> None:
        self.lives = lives

    def close(self) -> None:
        for life in self.lives:
            life.close()


def build_multi_server(apps: dict[str, "MCPServer"], lives: dict[str, Lifecycle]) -> "MCPServer":
    """A front server over per-repository servers: the first one's tools, prompts and
    resources, with calls routed by `repo`."""
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult, TextContent

    from .firewall_passed import clean, clean_tree
    from .mcp_server import BUDGET_SHARE

    names = list(apps)
    front = apps[names[0]]
    # the first repository's own handlers, kept before the front's are replaced
    own_call = {n: apps[n].call_tool for n in names}
    own_read = {n: apps[n].read_resource for n in names}
    own_list_tools = front.list_tools
    own_list_resources = front.list_resources
    choices = ", ".join(names)

    async def list_tools() -> Any:
        tools = await own_list_tools()
        for tool in tools:
            schema = json.loads(json.dumps(tool.input_schema))
            must = "" if tool.name == SEARCH_TOOL else " Required."
            also = " Omit it to search every repository." if tool.name == SEARCH_TOOL else ""
            schema.setdefault("properties", {})["repo"] = {
                "type": "string",
                "enum": names,
                "description": f"Which repository: one of {choices}.{must}{also}",
            }
            tool.input_schema = schema
        return tools

    def labelled(name: str, result: Any) -> Any:
        if not isinstance(result, CallToolResult):
            return result
        text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
        data = result.structured_content
        return CallToolResult(
            content=[TextContent(type="text", text=f'<repository name="{name}">\n{text}\n</repository>')],
            structured_content={"repo": name, **data} if isinstance(data, dict) else data,
            is_error=result.is_error,
        )  # fmt: skip

    async def call_one(name: str, tool: str, arguments: dict[str, Any], context: Any) -> Any:
        try:
            return labelled(name, await own_call[name](tool, arguments, context))
        except ToolError as exc:
            raise ToolError(f"{name}: {exc}") from exc

    async def call_tool(tool: str, arguments: dict[str, Any], context: Any = None) -> Any:
        arguments = dict(arguments)
        repo = arguments.pop("repo", None)
        if repo is None and tool == SEARCH_TOOL and len(names) > 1:
            parts: list[tuple[str, Any]] = []
            # the answers together within one answer's budget: each repository's is its share
            share = BUDGET_SHARE.set(1.0 / len(names))
            try:
                for name in names:
                    try:
                        parts.append((name, await own_call[name](tool, arguments, context)))
                    except ToolError as exc:  # the arguments are the same for all: say it once
                        raise ToolError(str(exc)) from exc
            finally:
                BUDGET_SHARE.reset(share)
            texts = [labelled(n, r).content[0].text for n, r in parts]
            data = {n: r.structured_content for n, r in parts}
            return CallToolResult(
                content=[TextContent(type="text", text="\n".join(texts))],
                structured_content={"repositories": data},
                is_error=all(r.is_error for _, r in parts),
            )
        if repo is None:
            if len(names) == 1:
                repo = names[0]
            else:
                raise ToolError(f"{tool}: repo is missing; send one of {choices}.")
        if repo not in own_call:
            raise ToolError(f"{tool}: repo {clean(str(repo))[:80]!r} is not served here; send one of {choices}.")  # fmt: skip
        return await call_one(repo, tool, arguments, context)

    async def list_resources() -> Any:
        from mcp_types import Resource

        resources = list(await own_list_resources())
        for name in names:
            for what in PER_REPO_RESOURCES:
                resources.append(
                    Resource(
                        uri=f"strata://{name}/{what}",
                        name=f"{name} {what}",
                        description=f"The {what} of repository {name}.",
                        mime_type="application/json",
                    )
                )
        return resources

    async def read_resource(uri: Any, context: Any = None) -> Any:
        from mcp.server.lowlevel.helper_types import ReadResourceContents

        text = str(uri)
        if text == "strata://status":
            body = {"repositories": {n: lives[n].status() for n in names}}
            out = json.dumps(clean_tree(body), indent=2, ensure_ascii=False, default=str)
            return [ReadResourceContents(content=out, mime_type="application/json")]
        found = re.match(r"^strata://([^/]+)/([a-z]+)$", text)
        if found and found.group(1) in own_read and found.group(2) in PER_REPO_RESOURCES:
            return await own_read[found.group(1)](f"strata://{found.group(2)}", context)
        return await own_read[names[0]](uri, context)

    front.list_tools = list_tools  # type: ignore[method-assign]
    front.call_tool = call_tool  # type: ignore[method-assign,assignment]
    front.list_resources = list_resources  # type: ignore[method-assign]
    front.read_resource = read_resource  # type: ignore[method-assign]
    return front


def serve_many(
    repos: Sequence[tuple[str, Path, Path | None]],
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    allow_remote: bool = False,
) -> None:
    """Serve several repositories: (name, folder to start from, index folder or None)."""
    from .mcp_server import (
        TRANSPORTS,
        _client_gone,
        _silence_stdout,
        _stop_on_signals,
        build_server,
        check_bind_host,
    )
    from .mcp_tasks import run_exit_hook
    from .tasks import TaskService

    if transport not in TRANSPORTS:
        raise InputError(f"unknown transport {transport!r}", hint="use stdio or streamable-http")
    if transport == "streamable-http":
        check_bind_host(host, allow_remote)
        host = host.strip("[]")
    lives = {name: Lifecycle(directory, index_dir) for name, directory, index_dir in repos}
    tasks = {name: TaskService(life.index_dir, life.repo) for name, life in lives.items()}
    everything = _All(list(lives.values()))

    def checkpoint(reason: str) -> None:
        for t in tasks.values():
            run_exit_hook(t, reason)

    try:
        apps = {name: build_server(lives[name], tasks[name]) for name in lives}
        app = build_multi_server(apps, lives)
        for life in lives.values():  # only the front hears "initialized": load them all now
            life.start()
        if transport == "stdio":
            _stop_on_signals(everything, checkpoint)
            app.run("stdio")
        else:
            where = f"[{host}]" if ":" in host else host
            print(f"gitstrata mcp: serving {', '.join(lives)} on http://{where}:{port}/mcp",
                  file=sys.stderr, flush=True)  # fmt: skip
            app.run("streamable-http", host=host, port=port)
    except KeyboardInterrupt:
        pass
    except BaseException as exc:
        if not _client_gone(exc):
            raise
        _silence_stdout()
    finally:
        checkpoint("stdin closed" if transport == "stdio" else "server stopped")
        everything.close()
