"""Nothing leaves the machine: indexing and querying work with the network disabled.

The CLI runs in a subprocess whose `sitecustomize` makes every internet socket connect and name
lookup fail (and log the attempt), with the semantic embedders configured: the wordllama model
must come from its wheel, never from a model hub."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GitRepo

GUARD = """
import os, socket

_LOG = os.environ["GITSTRATA_TEST_NETLOG"]


def _refuse(what):
    with open(_LOG, "a", encoding="utf-8") as fh:
        fh.write(what + "\\n")
    raise OSError("network disabled in this test: " + what)


_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex


def connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _refuse("connect %r" % (address,))
    return _connect(self, address)


def connect_ex(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _refuse("connect_ex %r" % (address,))
    return _connect_ex(self, address)


socket.socket.connect = connect
socket.socket.connect_ex = connect_ex
socket.create_connection = lambda address, *a, **k: _refuse("create_connection %r" % (address,))
socket.getaddrinfo = lambda host, *a, **k: _refuse("getaddrinfo %r" % (host,))
"""


def _offline_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    guard_dir = tmp_path / "guard"
    guard_dir.mkdir()
    (guard_dir / "sitecustomize.py").write_text(GUARD, encoding="utf-8")
    log = tmp_path / "net.log"
    log.write_text("")
    path = os.pathsep.join(p for p in (str(guard_dir), *sys.path) if p)
    env = {
        **os.environ,
        "PYTHONPATH": path,
        "GITSTRATA_TEST_NETLOG": str(log),
        # a model hub client that were reached anyway must not find a cached copy to hide behind
        "HF_HOME": str(tmp_path / "hf"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HOME": str(tmp_path / "home"),
    }
    return env, log


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=600
    )


def test_the_guard_refuses_internet_connections(tmp_path: Path) -> None:
    env, log = _offline_env(tmp_path)
    probe = _run(
        env, "-c", "import socket; socket.create_connection(('198.51.100.7', 443), timeout=1)"
    )
    assert probe.returncode != 0 and "network disabled in this test" in probe.stderr
    assert "create_connection" in log.read_text()


NEEDS_WORDLLAMA = pytest.mark.skipif(
    importlib.util.find_spec("wordllama") is None,
    reason="wordllama is not installed (the `wordllama` and `dev` extras)",
)


@pytest.mark.parametrize(
    "backend",
    [
        "hashing-lsa",
        pytest.param("wordllama", marks=NEEDS_WORDLLAMA),
        pytest.param("hashing-lsa+wordllama", marks=NEEDS_WORDLLAMA),
    ],
)
def test_index_and_query_with_the_network_disabled(tmp_path: Path, backend: str) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.commit(
        "Add login rate limiting\n\nToo many password guesses from one client locked accounts.",
        {
            "auth/limits.py": (
                "def allow_login(client, window):\n"
                '    """Count the login attempts of a client in the current minute."""\n'
                "    return window.count(client) < 5\n"
            ),
            "web/render.py": "def render_page(template, title):\n    return template.format(title)\n",
        },
    )
    (repo.path / ".strata").mkdir()
    (repo.path / ".strata" / "config.json").write_text(
        json.dumps({"embedding": {"backend": backend}})
    )
    env, log = _offline_env(tmp_path)
    index = _run(env, "-m", "gitstrata", "-C", str(repo.path), "index", "--quiet")
    assert index.returncode == 0, index.stderr
    query = _run(
        env,
        "-m",
        "gitstrata",
        "-C",
        str(repo.path),
        "query",
        "too many password guesses in a minute",
        "--json",
    )
    assert query.returncode == 0, query.stderr
    hits = json.loads(query.stdout)["hits"]
    assert any(h.get("path") == "auth/limits.py" for h in hits)
    assert log.read_text() == ""
    gens = sorted((repo.path / ".strata").glob("gen-*/embedder/meta.json"))
    assert json.loads(gens[-1].read_text())["backend"] == backend
