"""Task continuity through the real `gitstrata mcp` over stdio: a server killed mid-task (SIGTERM,
SIGKILL) and a new server process that restores the task; bad arguments write nothing.

The server's pid comes from `get_runtime_health` (its session id starts with it). Waits are
bounded polls; nothing asserts a time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import anyio
import pytest
from conftest import GitRepo
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

pytestmark = pytest.mark.slow  # real MCP sessions over stdio, each spawning the server

TASK_TOOLS = {
    "create_task", "get_task", "update_task", "list_tasks", "session_handoff",
    "report_interruption", "track_progress", "track_failure", "restore_checkpoint",
    "list_checkpoints", "session_outcome", "evaluate_continuity", "get_runtime_health",
}  # fmt: skip


def build_repo(path: Path) -> GitRepo:
    repo = GitRepo(path)
    repo.commit("feat: login", {"auth/login.py": "def login(user):\n    return True\n"})
    repo.commit("feat: tokens", {"auth/token.py": "def issue(user):\n    return 'x'\n"})
    done = subprocess.run(
        [sys.executable, "-m", "gitstrata", "index", str(repo.path), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return repo


@pytest.fixture
def repo(tmp_path) -> GitRepo:
    return build_repo(tmp_path / "repo")


@asynccontextmanager
async def session(repo: GitRepo, log: Path):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gitstrata", "-C", str(repo.path), "mcp"],
        cwd=str(log.parent),
        env=dict(os.environ),
    )
    with open(log, "a", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            yield s


async def call(s: ClientSession, tool: str, **arguments):
    return await s.call_tool(tool, arguments, read_timeout_seconds=60)


def texts(result) -> str:
    return "\n".join(c.text for c in result.content)


def task_records(repo: GitRepo) -> list[dict]:
    path = repo.path / ".strata" / "journal" / "tasks.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_for(check, what: str, seconds: float = 60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if got := check():
            return got
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


async def work_then_kill(repo: GitRepo, log: Path, signum: int) -> int:
    """A session that works on a task and is killed with `signum` mid-task; the task id."""
    failed: list[AssertionError] = []
    with suppress(Exception):  # the client sees its server die: whatever it raises is expected
        async with session(repo, log) as s:
            try:
                tools = {t.name for t in (await s.list_tools()).tools}
                assert tools >= TASK_TOOLS
                created = await call(s, "create_task", name="session tokens",
                                     goal="login issues a signed session token")  # fmt: skip
                assert not created.is_error, texts(created)
                task_id = created.structured_content["id"]
                for args in (
                    {"feature": "reproduce the bug", "status": "done"},
                    {
                        "feature": "token signing",
                        "status": "in_progress",
                        "notes": "HMAC over user",
                    },
                ):
                    got = await call(s, "track_progress", **args)
                    assert not got.is_error, texts(got)
                got = await call(s, "track_failure", error="KeyError: 'secret'", component="auth/token",
                                 severity="high", approach="read the secret from os.environ",
                                 root_cause="no secret in the test environment")  # fmt: skip
                assert not got.is_error, texts(got)
                repo.write("auth/token.py", "def issue(user):\n    return sign(user)\n")
                health = await call(s, "get_runtime_health")
                pid = int(health.structured_content["session"].split("-")[0])
                acknowledged = len(task_records(repo))
                os.kill(pid, signum)
                if signum == signal.SIGTERM:
                    wait_for(
                        lambda: any(r.get("reason") == "auto" for r in task_records(repo)),
                        "the automatic checkpoint",
                    )
                wait_for(lambda: _gone(pid), "the server to end")
                assert len(task_records(repo)) >= acknowledged
                return task_id
            except AssertionError as exc:
                failed.append(exc)
                raise
    if failed:
        raise failed[0]
    raise AssertionError("the session ended before the kill")


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_sigterm_mid_task_checkpoints_and_a_new_server_restores(repo, tmp_path) -> None:
    async def main() -> None:
        task_id = await work_then_kill(repo, tmp_path / "one.log", signal.SIGTERM)
        auto = [r for r in task_records(repo) if r.get("kind") == "checkpoint"]
        assert [c["reason"] for c in auto] == ["auto"]
        state = auto[0]["state"]
        assert [i["text"] for i in state["completed"]] == ["reproduce the bug"]
        assert state["in_progress"][0]["text"].startswith("token signing")
        assert "auth/token.py" in state["working_set"]
        assert state["last_tool"] == "get_runtime_health"
        async with session(repo, tmp_path / "two.log") as s:
            first = await call(s, "list_tasks")
            assert f"interrupted task {task_id}" in texts(first)
            assert "restore_checkpoint" in texts(first)
            got = await call(s, "restore_checkpoint", task_id=task_id, mode="SELECTIVE")
            assert not got.is_error, texts(got)
            pkg = got.structured_content
            assert pkg["checkpoint_reason"] == "auto" and pkg["version"] == 1
            assert pkg["goal"] == "login issues a signed session token"
            assert pkg["completed"] == ["reproduce the bug"]
            assert any("os.environ" in m["text"] for m in pkg["must_not_redo"])
            assert "must_not_redo" in texts(got) and "os.environ" in texts(got)
            assert pkg["drift"]["drifted"] is False
            again = await call(s, "list_tasks")
            assert "interrupted task" not in texts(again)  # restored: the hint is gone

    anyio.run(main)


def test_sigkill_loses_nothing_that_was_acknowledged(repo, tmp_path) -> None:
    async def main() -> None:
        task_id = await work_then_kill(repo, tmp_path / "one.log", signal.SIGKILL)
        assert not [r for r in task_records(repo) if r.get("kind") == "checkpoint"]
        async with session(repo, tmp_path / "two.log") as s:
            got = await call(s, "restore_checkpoint", task_id=task_id)
            pkg = got.structured_content
            assert pkg["version"] == 0 and pkg["records_since_checkpoint"] == 3
            assert pkg["completed"] == ["reproduce the bug"]
            assert pkg["in_progress"] == ["token signing: HMAC over user"]
            assert [m["key"] for m in pkg["must_not_redo"]] == ["task-failure:4"]

    anyio.run(main)


def test_bad_task_arguments_are_one_line_errors_and_write_nothing(repo, tmp_path) -> None:
    other = build_repo(tmp_path / "other")
    other.commit("feat: more", {"x.py": "x = 1\n"})

    async def main() -> None:
        async with session(other, tmp_path / "other.log") as s:
            foreign = (await call(s, "create_task", name="elsewhere", goal="g")).structured_content
        # a client that closes stdin ends the session: its active task is checkpointed
        wait_for(
            lambda: (
                [(r["kind"], r.get("reason")) for r in task_records(other)][-2:]
                == [("interruption", "stdin closed"), ("checkpoint", "auto")]
            ),
            "the checkpoint written when stdin closed",
        )
        # the other repository's task, copied into this one's journal (a shared index folder)
        journal = repo.path / ".strata" / "journal"
        journal.mkdir(parents=True, exist_ok=True)
        record = task_records(other)[0]
        record["repo"] = "0" * 40
        (journal / "tasks.jsonl").write_text(json.dumps(record) + "\n")
        before = (journal / "tasks.jsonl").read_bytes()
        async with session(repo, tmp_path / "server.log") as s:
            cases = [
                ("get_task", {"task_id": 99}, "no task #99"),
                ("restore_checkpoint", {"task_id": 99}, "no task #99"),
                ("restore_checkpoint", {"task_id": foreign["id"], "mode": "PARTIAL"}, "mode"),
                ("restore_checkpoint", {"task_id": foreign["id"]}, "another repository"),
                ("track_progress", {"feature": "x", "status": "done"}, "no active task"),
                ("create_task", {"name": "n" * 300, "goal": "g"}, "name"),
                ("track_failure", {"error": "e" * 5000, "task_id": 1}, "error"),
                ("session_handoff", {"summary": "s", "completed": ["c"] * 101}, "completed"),
                ("list_tasks", {"limit": 0}, "limit"),
                ("update_task", {"task_id": 99, "status": "finished"}, "status"),
            ]
            for tool, arguments, expected in cases:
                got = await s.call_tool(tool, arguments)
                assert got.is_error, (tool, arguments, texts(got))
                assert expected in texts(got), (tool, texts(got))
                assert "\n" not in texts(got) and "http" not in texts(got), texts(got)
        assert (journal / "tasks.jsonl").read_bytes() == before

    anyio.run(main)


def test_a_degraded_task_store_is_reported_by_every_answer(repo, tmp_path) -> None:
    from gitstrata import Strata

    tid = Strata(repo.path).tasks.create_task("t", "g")["id"]
    snapshots = repo.path / ".strata" / "snapshots"
    snapshots.mkdir(parents=True, exist_ok=True)
    (snapshots / "tasks.json").write_text("{not json")
    before = journal_bytes(repo)

    async def main() -> None:
        async with session(repo, tmp_path / "server.log") as s:
            pre = await call(s, "preflight_check", file_path="auth/login.py")
            assert not pre.is_error and "task store in read-only degraded mode" in texts(pre)
            got = await call(s, "get_task", task_id=tid)
            assert not got.is_error and texts(got).startswith("NOTICE: task store in read-only")
            refused = await call(s, "track_progress", feature="f", status="done", task_id=tid)
            assert refused.is_error and "gitstrata doctor" in texts(refused)
            health = (await call(s, "get_runtime_health")).structured_content
            assert health["degraded"] and "is corrupt" in health["problems"][0]

    anyio.run(main)
    assert journal_bytes(repo) == before


def journal_bytes(repo: GitRepo) -> bytes:
    return (repo.path / ".strata" / "journal" / "tasks.jsonl").read_bytes()
