"""Shared test fixtures: real git repositories built in a temp dir.

Authors, committers and dates are fixed so that SHAs are stable from run to run.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

BASE_EPOCH = 1_700_000_000  # 2023-11-14T22:13:20Z
DAY = 86_400


class GitRepo:
    """A real git repository with deterministic commits."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tick = 0
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.name", "Test Author")
        self.git("config", "user.email", "author@example.com")
        self.git("config", "commit.gpgsign", "false")

    def env(self, when: int) -> dict[str, str]:
        stamp = f"{when} +0000"
        return {
            **os.environ,
            "GIT_AUTHOR_NAME": "Test Author",
            "GIT_AUTHOR_EMAIL": "author@example.com",
            "GIT_COMMITTER_NAME": "Test Author",
            "GIT_COMMITTER_EMAIL": "author@example.com",
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_DATE": stamp,
        }

    def git(self, *args: str, when: int | None = None) -> str:
        out = subprocess.run(
            ["git", *args],
            cwd=self.path,
            check=True,
            capture_output=True,
            env=self.env(when if when is not None else BASE_EPOCH),
        )
        return out.stdout.decode("utf-8", "replace")

    def write(self, rel: str, content: str | bytes) -> Path:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            target.write_text(content, encoding="utf-8")
        else:
            target.write_bytes(content)
        return target

    def remove(self, rel: str) -> None:
        self.git("rm", "-q", rel)

    def commit(
        self,
        message: str,
        files: dict[str, str | bytes] | None = None,
        *,
        days: float | None = None,
        allow_empty: bool = False,
    ) -> str:
        """Write `files`, stage everything and commit; returns the new SHA.

        `days` is the commit time as days after BASE_EPOCH; by default each commit is one day
        after the previous one.
        """
        for rel, content in (files or {}).items():
            self.write(rel, content)
        self.git("add", "-A")
        self._tick += 1
        when = BASE_EPOCH + int((days if days is not None else self._tick) * DAY)
        args = ["commit", "-q", "-m", message]
        if allow_empty:
            args.append("--allow-empty")
        self.git(*args, when=when)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()


@pytest.fixture(scope="session", autouse=True)
def private_cache_home(tmp_path_factory: pytest.TempPathFactory):
    """The tests' processes keep their compiled patterns apart from the user's cache."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache-home"))
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(scope="session")
def fixture_repo(tmp_path_factory: pytest.TempPathFactory):
    """The benchmark fixture repository, built once per test run. Tests only read it: one that
    writes (an index inside it, a commit) works on `git clone` of it instead."""
    from gitstrata.benchmarks.fixture import build_fixture

    return build_fixture(tmp_path_factory.mktemp("fixture") / "repo")


@pytest.fixture(scope="session")
def fixture_bench(tmp_path_factory: pytest.TempPathFactory, fixture_repo):
    """The fixture with its recorded failures, indexed once per test run (outside the repo)."""
    from gitstrata.benchmarks import run as bench_run

    bench = bench_run.setup(tmp_path_factory.mktemp("bench"), fixture_repo)
    yield bench
    bench.strata.close()


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepo:
    """An empty git repository (no commits yet) in a temp dir."""
    return GitRepo(tmp_path / "repo")


@pytest.fixture
def make_repo(tmp_path: Path):
    """Factory: make_repo("name") -> a new empty GitRepo under tmp_path."""

    def _make(name: str = "repo") -> GitRepo:
        return GitRepo(tmp_path / name)

    return _make


def watch_firewall(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count the firewall's runs: the texts it was asked for are listed."""
    from gitstrata.serve import firewall

    asked: list[str] = []
    original = firewall.clean

    def run(text: str) -> str:
        asked.append(text)
        return original(text)

    monkeypatch.setattr(firewall, "clean", run)
    return asked
