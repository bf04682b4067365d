"""Docs are tested: every CLI command and MCP tool has help text and appears in the README."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import typer.main

from gitstrata.cli import app

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _commands() -> dict[str, object]:
    group = typer.main.get_command(app)
    out = {}
    for name, cmd in group.commands.items():
        out[name] = cmd
        for sub, subcmd in getattr(cmd, "commands", {}).items():
            out[f"{name} {sub}"] = subcmd
    return out


def test_every_command_has_help_and_is_in_the_readme() -> None:
    commands = _commands()
    assert {
        "index",
        "status",
        "query",
        "preflight",
        "exec",
        "graveyard",
        "invariant",
        "sql",
        "inspect",
        "mcp",
    } <= set(commands)
    for name, cmd in commands.items():
        assert (cmd.help or "").strip(), f"`gitstrata {name}` has no help text"
        top = name.split()[0]
        assert f"gitstrata {top}" in README, f"`gitstrata {top}` is not in the README"


def _mcp_tools(tmp_path: Path) -> dict[str, object]:
    """The tools the real MCP server registers (built over an empty folder, never started)."""
    import anyio

    from gitstrata.serve.lifecycle import Lifecycle
    from gitstrata.serve.mcp_server import build_server

    app = build_server(Lifecycle(tmp_path))
    return {tool.name: tool for tool in anyio.run(app.list_tools)}


def test_every_mcp_tool_is_documented(tmp_path) -> None:
    tools = _mcp_tools(tmp_path)
    assert "preflight_check" in tools  # the server was really built
    for name, tool in tools.items():
        assert (tool.description or "").strip(), f"MCP tool {name} has no description"
        assert f"`{name}(" in README, f"MCP tool {name} is not in the README"


def test_readme_has_the_two_commands_and_no_placeholders() -> None:
    assert "make index" in README and "make test" in README
    assert not re.search(r"\b[A-Z]{4,}_(EXAMPLE|EXAMPLES|TABLE)\b|^LIMITATIONS$", README, re.M)


@pytest.mark.slow
def test_readme_python_example_runs(tmp_path, fixture_repo) -> None:
    block = README.split("## Python API", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    repo = tmp_path / "repo"  # the example writes its index into the repository: use a clone
    subprocess.run(["git", "clone", "-q", str(fixture_repo.path), str(repo)], check=True)
    code = block.replace('"path/to/repo"', repr(str(repo)))
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102
    from gitstrata import Strata

    with Strata(repo) as strata:
        assert [
            i.id
            for i in strata.preflight("backend/payments/retry.py", "charge_with_retry").invariants
        ] == ["PAY-1"]


def test_readme_configuration_example_is_valid_and_shows_the_defaults() -> None:
    import json

    from gitstrata.store.config import Config

    text = README.split("## Configuration", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    data = json.loads(text)
    cfg = Config.from_dict(data)
    defaults = Config().model_dump(mode="json")
    for section, values in data.items():
        for key, value in values.items():
            if key == "vendored":
                continue  # the README shows a shortened list
            assert defaults[section][key] == value, f"{section}.{key}"
    assert cfg.retrieval.rrf_k == 60


def test_fast_entry_path_matches_typer_for_one_shot_commands(tmp_path) -> None:
    import subprocess
    import sys

    from gitstrata.entry import _fast

    assert _fast(["-C", "x", "preflight", "a.py", "-s", "f", "--json"]) is not None
    assert _fast(["query", "why", "--mode", "bm25", "-k", "3", "--raw"]) is not None
    assert _fast(["mcp", "--transport", "stdio"]) is not None
    assert _fast(["index", "--json", "-j", "2"]) is not None
    # help, usage errors and every other command go to Typer
    for argv in (
        ["query", "--help"],
        ["query", "x", "--mode", "nope"],
        ["query", "x", "-k", "0"],
        ["preflight"],
        ["status"],
        ["index", "-j", "0"],
        ["index", "--progress", "nope"],
        ["query", "x", "--bogus"],
    ):
        assert _fast(argv) is None, argv
    proc = subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(tmp_path), "preflight", "a.py"],
        capture_output=True,
        text=True,
    )
    assert (
        proc.returncode == 1
        and proc.stderr.startswith("error: ")
        and "not a git repository" in proc.stderr
    )


def test_help_texts_are_sentences_not_the_source_lines() -> None:
    # Typer keeps a docstring's line breaks and the terminal wraps again: ragged help
    from gitstrata.cli import _unwrapped, app

    assert _unwrapped("Run it;\nthen record it.\n\nWhy:\ngitstrata exec -- x") == (
        "Run it; then record it.\n\nWhy:\ngitstrata exec -- x"
    )
    assert _unwrapped("Kinds:\n- one\n- two") == "Kinds:\n- one\n- two"
    exec_help = next(c.help for c in app.registered_commands if c.name == "exec")
    assert "the attempt cannot be recorded" in exec_help
