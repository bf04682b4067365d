"""`gitstrata mcp` answers `initialize` before loading the numeric stack: a client's first
round trip must not wait for Arrow, numpy, Polars, Tantivy or numba, which the index thread
loads once the client says it is initialized."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pyarrow", "numpy", "polars", "tantivy", "numba")


def test_the_modules_the_server_imports_leave_the_numeric_stack_out():
    # a fresh interpreter: this test process has imported everything already
    code = (
        "import sys\n"
        "import gitstrata.serve.mcp_server, gitstrata.serve.mcp_multi, gitstrata.serve.mcp_memory\n"
        "import gitstrata.serve.mcp_tasks, gitstrata.serve.mcp_stdin, gitstrata.serve.firewall\n"
        "import gitstrata.serve.lifecycle, gitstrata.store.generations, gitstrata.serve.memory\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    got = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ)
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == "[]"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps")
def test_a_server_that_only_answered_initialize_has_not_loaded_the_numeric_stack(
    git_repo, tmp_path
):
    git_repo.commit("init", {"a.py": "def f():\n    return 1\n"})
    server = subprocess.Popen(
        [sys.executable, "-m", "gitstrata", "-C", str(git_repo.path), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
        env=dict(os.environ),
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "test", "version": "0"}}}  # fmt: skip
        server.stdin.write((json.dumps(hello) + "\n").encode())
        server.stdin.flush()
        answer = json.loads(server.stdout.readline())
        assert answer["id"] == 1 and "capabilities" in answer["result"]
        # the extension modules mapped into the process: an imported package's shared objects
        mapped = Path(f"/proc/{server.pid}/maps").read_text()
        assert f"{os.sep}pydantic_core{os.sep}" in mapped  # what the server does load shows
        loaded = [m for m in HEAVY if f"{os.sep}{m}{os.sep}" in mapped]
        assert loaded == []
    finally:
        server.kill()
        server.wait()


def _imported(args: list[str], cwd: Path) -> set[str]:
    """The modules a command line process imports (what `-X importtime` reports)."""
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    got = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitstrata", *args],
        capture_output=True, text=True, cwd=cwd, env=env,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr[-2000:]
    return {
        line.rsplit("|", 1)[1].strip()
        for line in got.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_one_shot_answers_import_no_parquet_reader_and_no_package_metadata(git_repo, tmp_path):
    git_repo.commit("init", {"a.py": "def f():\n    return 1\n"})
    git_repo.commit("fix f", {"a.py": "def f():\n    return 2\n"})
    repo = ["-C", str(git_repo.path)]
    subprocess.run([sys.executable, "-m", "gitstrata", *repo, "index", "--quiet"], check=True)
    commands = (["query", "fix f"], ["preflight", "a.py", "-s", "f", "-i", "return three"])
    for args in commands:  # the first read of a table leaves its mapped copy
        subprocess.run([sys.executable, "-m", "gitstrata", *repo, *args], check=True)
    # later answers read no Parquet, and the plugin loader pydantic would import with
    # importlib.metadata is the one that finds none
    for args in commands:
        got = _imported([*repo, *args], tmp_path)
        assert "gitstrata.serve.engine" in got
        assert got & {"pyarrow.parquet", "importlib.metadata", "email"} == set()


def test_the_command_lines_pydantic_plugin_loader_finds_none_and_defers_the_rest():
    code = (
        "import os, sys\n"
        "from gitstrata import entry\n"
        "entry._no_pydantic_plugins()\n"
        "import pydantic\n"
        "class M(pydantic.BaseModel):\n"
        "    x: int\n"
        "assert M(x=1).x == 1\n"
        "from pydantic.plugin._loader import get_plugins\n"
        "print(list(get_plugins()), os.environ['PYDANTIC_DISABLE_PLUGINS'],"
        " 'importlib.metadata' in sys.modules)\n"
        "from pydantic.plugin._loader import PYDANTIC_ENTRY_POINT_GROUP\n"  # only the real one has it
        "print(PYDANTIC_ENTRY_POINT_GROUP)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines() == ["[] __all__ False", "pydantic"]
    # plugins the user names are left to pydantic's own loader
    env["PYDANTIC_DISABLE_PLUGINS"] = "some_plugin"
    kept = subprocess.run(
        [sys.executable, "-c", "from gitstrata import entry; import sys; "
         "entry._no_pydantic_plugins(); print(entry._LOADER in sys.modules)"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert kept.stdout.strip() == "False", kept.stderr
