"""Several repositories behind one `gitstrata mcp`, through the SDK's real stdio client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from gitstrata.serve.mcp_multi import split_named
from gitstrata.store.errors import InputError

pytestmark = pytest.mark.slow  # real MCP sessions over stdio


def test_named_locations_are_parsed_and_checked() -> None:
    assert split_named([]) is None
    assert split_named(["idx"]) is None
    # a URI's query holds "=": still one plain location
    assert split_named(["s3://b/p?endpoint_override=h:9"]) is None
    assert split_named(["api=../api", "web=s3://b/web?scheme=http"]) == [
        ("api", "../api"),
        ("web", "s3://b/web?scheme=http"),
    ]
    with pytest.raises(InputError, match="need a name each"):
        split_named(["a", "b"])
    with pytest.raises(InputError, match="every location needs a name"):
        split_named(["api=x", "plain"])
    with pytest.raises(InputError, match="given twice"):
        split_named(["api=x", "api=y"])


def _repo(make_repo, name: str, body: str, token_budget: int = 400):
    repo = make_repo(name)
    (repo.path / ".strata").mkdir(parents=True)
    config = {"retrieval": {"token_budget": token_budget}}
    (repo.path / ".strata" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    repo.commit("feat: first", {"src/core.py": f"def run(x):\n    return x + 1  # {body}\n"})
    repo.commit(
        f"fix: {body} overflow when the counter wraps",
        {"src/core.py": f"def run(x):\n    return (x + 1) % 256  # {body}\n"},
    )
    done = subprocess.run(
        [sys.executable, "-m", "gitstrata", "index", str(repo.path), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return repo


@asynccontextmanager
async def session(args: list[str], cwd: Path, log: Path):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gitstrata", "mcp", *args],
        cwd=str(cwd),
        env=dict(os.environ),
    )
    with open(log, "a", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            yield s


def test_two_repositories_behind_one_server(make_repo, tmp_path) -> None:
    api = _repo(make_repo, "api", "apiside")
    web = _repo(make_repo, "web", "webside")
    args = ["--index", f"api={api.path}", "--index", f"web={web.path / '.strata'}"]

    async def main() -> None:
        async with session(args, tmp_path, tmp_path / "server.log") as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            repo_arg = tools["preflight_check"].input_schema["properties"]["repo"]
            assert repo_arg["enum"] == ["api", "web"]
            # a search of every repository, each answer labelled
            both = await s.call_tool("search_causal_history", {"query": "overflow counter wraps"})
            assert not both.is_error
            text = both.content[0].text
            assert '<repository name="api">' in text and '<repository name="web">' in text
            assert set(both.structured_content["repositories"]) == {"api", "web"}
            # the two answers within one answer's budget (4 x 400 characters): half each
            for part in text.split('<repository name="')[1:]:
                assert len(part.split("</repository>")[0]) <= 800
            for part in both.structured_content["repositories"].values():
                assert len(json.dumps(part, ensure_ascii=False)) <= 800
            # one repository
            one = await s.call_tool(
                "preflight_check", {"file_path": "src/core.py", "symbol_name": "run", "repo": "web"}
            )
            assert not one.is_error and one.structured_content["repo"] == "web"
            assert "webside" in one.content[0].text and "apiside" not in one.content[0].text
            # which repository must be said, and be one of them
            missing = await s.call_tool("preflight_check", {"file_path": "src/core.py"})
            assert missing.is_error and "repo is missing; send one of api, web" in (
                missing.content[0].text
            )
            unknown = await s.call_tool(
                "preflight_check", {"file_path": "src/core.py", "repo": "nope"}
            )
            assert unknown.is_error and "is not served here" in unknown.content[0].text
            # writes go to the named repository's journal only
            rec = await s.call_tool(
                "record_invariant",
                {
                    "rule_id": "INV-API-1",
                    "scope": "src/**",
                    "invariant_description": "run stays total on every input.",
                    "repo": "api",
                },
            )
            assert not rec.is_error
            status = json.loads((await s.read_resource("strata://status")).contents[0].text)
            assert set(status["repositories"]) == {"api", "web"}
            inv = await s.read_resource("strata://api/invariants")
            assert "INV-API-1" in inv.contents[0].text
            inv_web = await s.read_resource("strata://web/invariants")
            assert "INV-API-1" not in inv_web.contents[0].text

    anyio.run(main)


def test_unnamed_locations_are_a_one_line_error(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gitstrata", "mcp", "--index", "a", "--index", "b"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "several --index locations need a name each" in proc.stderr
    assert "Traceback" not in proc.stderr
