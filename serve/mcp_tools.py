"""The MCP server's tools, each built by the SDK when it is first used, listed from kept schemas.

The SDK builds a pydantic model and its JSON schema for every tool it registers: about 20 ms for
gitstrata's 22 tools before `initialize` can be answered (building the server took 57 ms with
it, 40 ms without), nearly all of it for tools a session never calls. `LazyTools` takes the place of the server's tool manager: a tool whose schema a
previous process derived is listed from that schema, and built by the SDK (`Tool.from_function`)
the first time it is looked up by name, which every call and every input-schema lookup does.

Invariants:
- What a client sees and what a call does are the SDK's own: a kept schema is what
  `Tool.from_function` derived, in an earlier process, for a function of the same signature
  (its text, annotations and defaults included) under the same pydantic and SDK versions, and a
  call always runs the tool the SDK built, argument validation included.
- A tool with no kept schema, or whose signature changed, is built at once, as the SDK does,
  and its schema is kept for the next process (`save`).
- The kept schemas are one JSON file in the user's cache folder (`store.usercache`: private,
  replaced atomically, read only when this user owns it); a missing, foreign or malformed file
  is no file, and `GITSTRATA_CACHE=off` keeps nothing.
- The order of `list_tools` is the order of registration, built or not.
"""

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.tools.tool_manager import ToolManager

from ..store import usercache

FORMAT = 1


@dataclass(frozen=True)
class Listed:
    """What `tools/list` reads of a tool not built yet (the attributes of the SDK's `Tool` that
    `MCPServer.list_tools` reads)."""

    name: str
    title: str | None
    description: str
    parameters: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: Any
    icons: Any
    meta: dict[str, Any] | None


@dataclass
class _Waiting:
    fn: Callable[..., Any]
    options: dict[str, Any]
    listed: Listed


def signature_key(fn: Callable[..., Any], structured_output: bool | None) -> str:
    """What a kept schema must have been derived from: the function's whole signature (each
    annotation's text names its type and its `Field`'s constraints and description)."""
    return f"{structured_output}|{inspect.signature(fn)}"


def schema_file() -> Path | None:
    """The kept schemas' file for this pydantic and SDK, or None when caching is off."""
    from importlib.metadata import PackageNotFoundError, version

    import pydantic

    folder = usercache.folder()
    if folder is None:
        return None
    try:
        sdk = version("mcp")
    except PackageNotFoundError:
        return None
    return folder / f"mcp-tools-{FORMAT}-pydantic{pydantic.VERSION}-mcp{sdk}.json"


def read_kept(path: Path | None) -> dict[str, dict[str, Any]]:
    """The kept schemas by tool name; anything malformed is left out."""
    data = usercache.read_owned(path) if path is not None else None
    if data is None:
        return {}
    try:
        kept = json.loads(data)
    except ValueError:
        return {}
    if not isinstance(kept, dict):
        return {}
    return {
        name: entry
        for name, entry in kept.items()
        if isinstance(entry, dict)
        and isinstance(entry.get("signature"), str)
        and isinstance(entry.get("parameters"), dict)
        and isinstance(entry.get("output_schema"), dict | None)
    }


class LazyTools(ToolManager):
    """A tool manager that builds each tool on first use (see the module's invariants)."""

    def __init__(self, kept: dict[str, dict[str, Any]], path: Path | None, **options: Any):
        super().__init__(**options)
        self.kept = kept
        self.path = path
        self.waiting: dict[str, _Waiting] = {}
        self.order: list[str] = []
        self.changed = False

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Any = None,
        icons: Any = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> Any:
        """The SDK's tool at once, or a `Listed` standing for it until its first lookup."""
        options = {"title": title, "description": description, "annotations": annotations,
                   "icons": icons, "meta": meta, "structured_output": structured_output}  # fmt: skip
        name = name or fn.__name__
        if name in self.order:  # the SDK keeps the first of two tools of one name
            return self.get_tool(name)
        self.order.append(name)
        key = signature_key(fn, structured_output)
        entry = self.kept.get(name)
        if entry is None or entry["signature"] != key:
            tool = super().add_tool(fn, name=name, **options)
            self.kept[name] = {"signature": key, "parameters": tool.parameters,
                               "output_schema": tool.output_schema}  # fmt: skip
            self.changed = True
            return tool
        listed = Listed(
            name=name,
            title=title,
            description=description or fn.__doc__ or "",
            parameters=entry["parameters"],
            output_schema=entry["output_schema"],
            annotations=annotations,
            icons=icons,
            meta=meta,
        )
        self.waiting[name] = _Waiting(fn, options, listed)
        return listed

    def get_tool(self, name: str) -> Tool | None:
        waiting = self.waiting.pop(name, None)
        if waiting is not None:
            super().add_tool(waiting.fn, name=name, **waiting.options)
        return super().get_tool(name)

    def list_tools(self) -> list[Any]:
        return [self.waiting[n].listed if n in self.waiting else self._tools[n] for n in self.order
                if n in self.waiting or n in self._tools]  # fmt: skip

    def remove_tool(self, name: str) -> None:
        if self.waiting.pop(name, None) is not None:
            self.order.remove(name)
            return
        super().remove_tool(name)
        self.order.remove(name)

    def save(self) -> None:
        """Keep the schemas of the tools built at registration for the next process."""
        if self.changed and self.path is not None:
            usercache.write_private(self.path, json.dumps(self.kept, sort_keys=True).encode())
            self.changed = False


def install(app: Any) -> LazyTools | None:
    """Give `app` (an `MCPServer` with no tools yet) a `LazyTools`; None, leaving the SDK's own
    manager, when this SDK keeps its tools elsewhere."""
    own = getattr(app, "_tool_manager", None)
    if type(own) is not ToolManager or own.list_tools():
        return None
    path = schema_file()
    lazy = LazyTools(read_kept(path), path, warn_on_duplicate_tools=own.warn_on_duplicate_tools)
    app._tool_manager = lazy
    return lazy
