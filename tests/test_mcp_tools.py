"""The MCP server's tools built on first use (`serve/mcp_tools.py`) and the user's cache folder
(`store/usercache.py`): a server listing kept schemas lists what the SDK derives, a call runs
the SDK-built tool, and a changed signature or a bad file never serves a stale schema."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool

from gitstrata.serve.lifecycle import Lifecycle
from gitstrata.serve.mcp_server import build_server
from gitstrata.serve.mcp_tools import LazyTools, schema_file
from gitstrata.store import usercache


@pytest.fixture
def cache_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("GITSTRATA_CACHE", raising=False)
    return home


def _server(directory: Path) -> tuple[Any, LazyTools]:
    app = build_server(Lifecycle(directory))
    manager = app._tool_manager
    assert isinstance(manager, LazyTools)
    return app, manager


def _listing(app: Any) -> list[dict[str, Any]]:
    tools = anyio.run(app.list_tools)
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]


def test_a_server_from_kept_schemas_lists_what_the_sdk_derives(tmp_path, cache_home) -> None:
    first, built = _server(tmp_path)
    assert built.waiting == {}  # nothing kept yet: every tool built at once, as the SDK does
    path = schema_file()
    assert path is not None and path.is_file()
    second, lazy = _server(tmp_path)
    assert set(lazy.waiting) == {t["name"] for t in _listing(first)}
    assert _listing(second) == _listing(first)
    os.environ["GITSTRATA_CACHE"] = "off"
    try:
        third, eager = _server(tmp_path)
    finally:
        del os.environ["GITSTRATA_CACHE"]
    assert eager.waiting == {} and eager.path is None
    assert _listing(third) == _listing(first)


def test_a_tool_is_built_by_the_sdk_when_first_called(tmp_path, cache_home) -> None:
    _server(tmp_path)
    app, lazy = _server(tmp_path)
    waiting = set(lazy.waiting)
    with pytest.raises(ToolError) as bad:  # validated by the model the SDK builds now
        anyio.run(app.call_tool, "search_causal_history", {"query": "why", "top_k": 0})
    assert str(bad.value).startswith("search_causal_history: top_k is not valid")
    assert set(lazy.waiting) == waiting - {"search_causal_history"}
    tool = lazy.get_tool("search_causal_history")
    assert isinstance(tool, Tool)
    assert tool.parameters == lazy.kept["search_causal_history"]["parameters"]
    assert [t["name"] for t in _listing(app)] == [t["name"] for t in _listing(_server(tmp_path)[0])]


def test_a_changed_signature_is_built_at_once_and_kept_again(tmp_path, cache_home) -> None:
    first, _ = _server(tmp_path)
    truth = {t["name"]: t["inputSchema"] for t in _listing(first)}
    path = schema_file()
    assert path is not None
    kept = json.loads(path.read_text())
    kept["preflight_check"]["signature"] += " (an older version)"
    kept["preflight_check"]["parameters"] = {"type": "object", "properties": {"stale": {}}}
    path.write_text(json.dumps(kept))
    app, lazy = _server(tmp_path)
    assert "preflight_check" not in lazy.waiting
    assert {t["name"]: t["inputSchema"] for t in _listing(app)} == truth
    again = json.loads(path.read_text())["preflight_check"]
    assert again["parameters"] == truth["preflight_check"]


@pytest.mark.parametrize("content", [b"\x00not json", b"[1, 2]", b'{"preflight_check": 3}'])
def test_a_malformed_file_is_no_file(tmp_path, cache_home, content: bytes) -> None:
    first, _ = _server(tmp_path)
    path = schema_file()
    assert path is not None
    path.write_bytes(content)
    app, lazy = _server(tmp_path)
    assert "preflight_check" not in lazy.waiting
    assert _listing(app) == _listing(first)


def test_the_cache_folder_is_private_and_can_be_turned_off(
    tmp_path, cache_home, monkeypatch
) -> None:
    folder = usercache.folder()
    assert folder == cache_home / "gitstrata"
    path = folder / "x.json"
    assert usercache.write_private(path, b"{}")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert usercache.read_owned(path) == b"{}"
    assert usercache.read_owned(folder / "missing") is None
    assert [p.name for p in folder.iterdir()] == ["x.json"]  # no temporary file left behind
    monkeypatch.setenv("GITSTRATA_CACHE", "off")
    assert usercache.folder() is None and schema_file() is None
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.delenv("GITSTRATA_CACHE")
    assert usercache.folder() is None
