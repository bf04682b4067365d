"""Task continuity over the real journal, real git repositories and the real CLI.

Replay equals live state (with and without a snapshot); a torn journal line and a corrupt
snapshot put the store in read-only degraded mode that every answer reports, and `gitstrata
doctor` recovers; drift after a branch switch; what SELECTIVE, FULL and NONE packages carry;
bad input writes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GitRepo

from gitstrata import Strata
from gitstrata.serve.tasks import TaskService
from gitstrata.store.errors import InputError
from gitstrata.store.tasks import check_record, replay
from gitstrata.store.tasks_log import TaskLog, TaskStoreDegraded


def cli(repo: GitRepo, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gitstrata", "-C", str(repo.path), *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )


def journal(repo: GitRepo) -> Path:
    return repo.path / ".strata" / "journal" / "tasks.jsonl"


def service(repo: GitRepo) -> TaskService:
    return TaskService(repo.path / ".strata", repo.path)


@pytest.fixture
def repo(make_repo) -> GitRepo:
    r = make_repo()
    r.commit(
        "feat: auth", {"auth/login.py": "def login():\n    pass\n", "auth/token.py": "T = 1\n"}
    )
    return r


def busy_task(tasks: TaskService) -> int:
    """A task with two checkpoints, superseded progress, a goal change and failures."""
    tid = tasks.create_task("session tokens", "login issues a session token")["id"]
    tasks.track_progress("reproduce", "done")
    tasks.track_progress("signing", "in_progress", notes="try HMAC-MD5")
    tasks.track_failure("weak hash rejected", component="auth/token", severity="high",
                        approach="sign with HMAC-MD5", root_cause="MD5 is banned")  # fmt: skip
    tasks.checkpoint(next_steps=["sign with HMAC-MD5 again with a longer key"])
    tasks.update_task(tid, goal="login issues a signed, rotating session token")
    tasks.track_progress("signing", "in_progress", notes="HMAC-SHA256")
    tasks.track_failure("typo in a log line", component="auth/log", severity="low")
    tasks.session_handoff("signing switched to SHA256", completed=["reproduce"],
                          in_progress=["signing with HMAC-SHA256"], next_steps=["rotate keys"])  # fmt: skip
    return tid


def test_replay_equals_live_state_with_and_without_a_snapshot(repo) -> None:
    tasks = service(repo)
    busy_task(tasks)
    live = tasks.log.current().state
    records = tasks.log.journal.read("tasks").records
    assert all(check_record(r) is None for r in records)
    assert replay(records) == live
    assert TaskLog(repo.path / ".strata").load().state == live
    tasks.log.snapshot()
    more = tasks.create_task("second", "another goal")["id"]
    tasks.track_progress("x", "planned", task_id=more)
    fresh = TaskLog(repo.path / ".strata").load()
    assert fresh.snapshot == "used" and fresh.replayed == 2 and not fresh.problems
    assert fresh.state == replay(tasks.log.journal.read("tasks").records)


def test_a_torn_journal_line_is_skipped_reported_read_only_and_doctor_recovers(repo) -> None:
    tasks = service(repo)
    tid = busy_task(tasks)
    with open(journal(repo), "ab") as f:  # a crash in the middle of an append
        f.write(b'{"kind":"progress","task":1,"feat')
    torn = journal(repo).read_bytes()
    again = service(repo)
    health = again.runtime_health()
    assert health["degraded"] and health["journal"]["skipped_lines"] == 1
    assert "incomplete last line" in health["notice"]
    got = again.get_task(tid)  # reads still answer, and say so
    assert "degraded" in got["notice"] and got["goal"].endswith("rotating session token")
    with pytest.raises(TaskStoreDegraded, match="read-only"):
        again.track_progress("rotate keys", "in_progress", task_id=tid)
    assert journal(repo).read_bytes() == torn
    listed = cli(repo, "task", "list")
    assert listed.returncode == 0 and "degraded" in listed.stderr
    fixed = cli(repo, "doctor")
    # the journal check keeps reporting the line (it stays in the file); the task store repairs
    assert fixed.returncode == 1 and "FAIL  journal:" in fixed.stdout
    assert "ok    task store: 1 problem(s) found and repaired" in fixed.stdout
    assert "tasks.jsonl: skipped an incomplete last line" in fixed.stdout
    assert "done: acknowledged 1 unreadable journal line" in fixed.stdout
    assert journal(repo).read_bytes().startswith(torn)  # nothing rewritten
    healed = service(repo)
    assert healed.notice() is None
    healed.track_progress("rotate keys", "in_progress", task_id=tid)
    pkg = healed.restore_checkpoint(tid)
    assert pkg["in_progress"] == ["signing with HMAC-SHA256", "rotate keys"]


def test_an_odd_shaped_record_is_skipped_and_reported(repo) -> None:
    tasks = service(repo)
    busy_task(tasks)
    with open(journal(repo), "a") as f:
        record = {"id": 999, "ts": "2026-01-01T00:00:00Z", "kind": "progress", "task": "x"}
        f.write(json.dumps({**record, "feature": 3}) + "\n")
    loaded = TaskLog(repo.path / ".strata").load()
    assert loaded.warnings == ["tasks.jsonl: skipped record 999: progress.task is not a task id"]
    assert loaded.problems and loaded.state["last_id"] < 999


def test_a_corrupt_snapshot_means_degraded_mode_and_doctor_rebuilds_it(repo) -> None:
    tasks = service(repo)
    tid = busy_task(tasks)
    tasks.log.snapshot()
    snap = repo.path / ".strata" / "snapshots" / "tasks.json"
    data = json.loads(snap.read_text())
    data["state"]["tasks"][str(tid)]["goal"] = "something else"  # checksum no longer matches
    snap.write_text(json.dumps(data))
    broken = service(repo)
    assert "task snapshot tasks.json is corrupt" in (broken.notice() or "")
    assert broken.get_task(tid)["goal"] == "login issues a signed, rotating session token"
    with pytest.raises(TaskStoreDegraded):
        broken.create_task("x", "y")
    [report] = [c for c in Strata(repo.path).doctor() if c.name == "task store"]
    assert report.ok
    assert report.details == ["the task snapshot tasks.json is corrupt (checksum or format)"]
    healed = service(repo)
    assert healed.notice() is None and healed.log.current().snapshot == "used"
    assert healed.get_task(tid)["goal"] == "login issues a signed, rotating session token"


def test_restore_reports_drift_after_a_branch_switch(repo) -> None:
    tasks = service(repo)
    tid = tasks.create_task("tokens", "sign tokens")["id"]
    repo.write("auth/token.py", "T = 2\n")
    repo.write("auth/new.py", "N = 1\n")
    cp = tasks.checkpoint(next_steps=["finish"])
    assert cp["branch"] == "main" and cp["working_set"] == ["auth/new.py", "auth/token.py"]
    assert tasks.restore_checkpoint(tid)["drift"] == {"drifted": False, "notes": []}
    old_head = repo.head()
    repo.git("stash", "-u", "-q")
    repo.git("checkout", "-q", "-b", "other")
    repo.commit("feat: other", {"auth/token.py": "T = 3\n"})
    drift = tasks.restore_checkpoint(tid)["drift"]
    assert drift["drifted"]
    assert drift["branch"] == {"was": "main", "now": "other"}
    assert drift["head"] == {"was": old_head, "now": repo.head(), "commits_ahead": 1}
    assert drift["files_gone"] == ["auth/new.py"] and drift["files_changed"] == ["auth/token.py"]
    text = tasks.restore_checkpoint(tid)["text"]
    assert "branch switched from main to other" in text
    assert "HEAD moved from" in text and "1 file(s) of the working set are gone" in text


def test_selective_keeps_every_must_not_redo_and_fewer_stale_entries_than_full(repo) -> None:
    strata = Strata(repo.path)
    strata.record_invariant("INV-TOK-1", "auth/**", "Tokens are signed with a rotated key.")
    strata.record_failure("auth/token.py", "-T = 1\n+T = md5()\n", "FAILED test_token", "md5 again")
    tasks = strata.tasks
    repo.write("auth/token.py", "T = 2\n")
    tid = busy_task(tasks)
    selective = tasks.restore_checkpoint(tid, "SELECTIVE")
    full = tasks.restore_checkpoint(tid, "full")
    none = tasks.restore_checkpoint(tid, "NONE")
    keys = {m["key"] for m in selective["must_not_redo"]}
    assert keys == {"task-failure:4", "task-failure:8", "failure:1"}
    assert keys == {m["key"] for m in full["must_not_redo"]}
    assert [i["id"] for i in selective["must_preserve"]] == ["INV-TOK-1"]
    assert selective["goal"] == full["goal"] == "login issues a signed, rotating session token"
    # the superseded plan is in FULL's history only
    assert "sign with HMAC-MD5 again" in full["text"]
    assert "sign with HMAC-MD5 again" not in selective["text"]
    assert "sign with HMAC-MD5 in auth/token" in selective["text"]  # as a must_not_redo item
    assert selective["stale_entries"] == 0 < full["stale_entries"]
    # a low-severity failure is kept as must_not_redo but not detailed by SELECTIVE
    assert [f["error"] for f in selective["failures"]] == ["weak hash rejected"]
    assert len(full["failures"]) == 2
    assert selective["tokens"] < full["tokens"]
    assert none["empty"] and "must_not_redo" not in none and none["tokens"] < 60


def test_session_outcome_reweighs_the_failures_a_restore_surfaced(repo) -> None:
    tasks = service(repo)
    tid = busy_task(tasks)
    tasks.restore_checkpoint(tid)
    got = tasks.session_outcome("success")
    assert got["adjusted"] == {"task-failure:4": 0.1, "task-failure:8": 0.1}
    assert service(repo).log.current().state["weights"] == got["adjusted"]


def test_evaluate_continuity_scores_the_checkpoint_versions(repo) -> None:
    tasks = service(repo)
    tid = busy_task(tasks)
    got = tasks.evaluate_continuity(tid)
    assert got["checkpoints"] == 2 and got["pairs"] == 1
    assert got["scores"]["goal_retention"] == 1.0  # changed, but by an explicit update
    assert got["scores"]["failure_recall"] == 1.0
    assert got["scores"]["replanning"] == 0.0  # next steps share nothing
    assert 0 < got["composite"] < 1


def test_exit_checkpoint_only_when_the_session_wrote_something(repo) -> None:
    tasks = service(repo)
    assert tasks.checkpoint_on_exit("SIGTERM") is None  # no active task
    tid = tasks.create_task("t", "g")["id"]
    tasks.session_handoff("done for today", completed=["a"])
    assert tasks.checkpoint_on_exit("SIGTERM") is None  # nothing since the handoff
    tasks.track_progress("b", "in_progress")
    got = tasks.checkpoint_on_exit("SIGTERM")
    assert got is not None and got["reason"] == "auto" and got["version"] == 2
    hint = service(repo).interrupted_hint()
    assert hint == f'interrupted task {tid} ("t"): call restore_checkpoint(task_id={tid}) to resume'


def test_bad_input_is_one_line_and_writes_nothing(repo, make_repo) -> None:
    tasks = service(repo)
    tid = tasks.create_task("t", "g")["id"]
    other = make_repo("other")
    other.commit("init", {"x.py": "x = 1\n"})
    foreign = service(other)
    foreign_id = foreign.create_task("elsewhere", "g")["id"]
    # a shared index folder: the other repository's task record in this one's journal
    with open(journal(repo), "a") as f:
        rec = foreign.log.journal.read("tasks").records[0]
        f.write(json.dumps({**rec, "id": 50}) + "\n")
    before = journal(repo).read_bytes()
    for args, message in [
        (("task", "show", "99"), "error: no task #99"),
        (("task", "restore", str(tid), "--mode", "PARTIAL"), "error: unknown restore mode"),
        (("task", "restore", "50"), "error: task #50 belongs to another repository"),
        (("task", "handoff", str(tid), "--summary", "s" * 5000), "error: summary is 5000"),
        (("task", "checkpoint", str(tid), "--done", "d" * 1001), "error: an entry of completed"),
        (("task", "create", "n", "--goal", " "), "error: goal is empty"),
    ]:
        done = cli(repo, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert done.stderr.startswith(message), (args, done.stderr)
        assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) <= 2
    assert journal(repo).read_bytes() == before
    assert foreign_id == 1 and [t["id"] for t in tasks.list_tasks()["tasks"]] == [tid]
    with pytest.raises(InputError, match="must be a number from 0 to 1"):
        tasks.track_progress("f", "done", completion=2.0, task_id=tid)
    assert journal(repo).read_bytes() == before


def test_cli_task_commands_round_trip_as_json(repo) -> None:
    created = json.loads(cli(repo, "task", "create", "cli task", "--goal", "g", "--json").stdout)
    tid = str(created["id"])
    cp = json.loads(
        cli(repo, "task", "checkpoint", tid, "--done", "a", "--next", "b", "--json").stdout
    )
    assert cp["version"] == 1 and cp["reason"] == "manual"
    handed = json.loads(cli(repo, "task", "handoff", tid, "--summary", "s", "--json").stdout)
    assert handed["version"] == 2 and handed["reason"] == "handoff"
    shown = json.loads(cli(repo, "task", "show", tid, "--json").stdout)
    assert [c["reason"] for c in shown["checkpoints_list"]] == ["manual", "handoff"]
    restored = json.loads(cli(repo, "task", "restore", tid, "--mode", "FULL", "--json").stdout)
    assert restored["mode"] == "FULL" and len(restored["history"]) == 3
    listed = json.loads(cli(repo, "task", "list", "--json").stdout)
    assert [t["name"] for t in listed["tasks"]] == ["cli task"]
    doctor = json.loads(cli(repo, "doctor", "--json").stdout)
    assert doctor["ok"] and doctor["checks"][-1]["check"] == "task store"


def test_a_crash_and_a_wiped_work_tree_keep_the_files_tracked_records_saw(repo) -> None:
    tasks = service(repo)
    tid = tasks.create_task("keys", "load signing keys")["id"]
    repo.write("auth/keys.py", "KEYS = []\n")
    repo.write("auth/token.py", "T = 2\n")
    tasks.track_progress("key loading", "in_progress")
    repo.git("stash", "-u", "-q")  # the process died and the work tree was reset
    pkg = service(repo).restore_checkpoint(tid)
    assert pkg["version"] == 0 and pkg["working_set"] == ["auth/keys.py", "auth/token.py"]
    assert pkg["drift"]["files_gone"] == ["auth/keys.py"]
    assert pkg["drift"]["files_changed"] == ["auth/token.py"]


def test_a_snapshot_is_written_every_so_many_records_and_used_at_start(repo) -> None:
    from gitstrata.store.tasks_log import SNAPSHOT_EVERY

    tasks = service(repo)
    tid = tasks.create_task("t", "g")["id"]
    snap = repo.path / ".strata" / "snapshots" / "tasks.json"
    for i in range(SNAPSHOT_EVERY - 1):  # the task record was the first append
        assert not snap.exists()
        tasks.track_progress(f"step {i}", "done", task_id=tid)
    assert snap.exists()
    fresh = TaskLog(repo.path / ".strata").load()
    assert fresh.snapshot == "used" and fresh.replayed == 0 and not fresh.problems
    assert fresh.state == tasks.log.current().state


def test_must_not_redo_links_reverted_commits_on_the_working_set(repo) -> None:
    bad = repo.commit("perf: cache tokens forever", {"auth/token.py": "T = cached()\n"})
    repo.git("revert", "--no-edit", "HEAD")
    strata = Strata(repo.path)
    strata.index(jobs=1)
    tasks = strata.tasks
    tid = tasks.create_task("tokens", "token caching that expires")["id"]
    repo.write("auth/token.py", "T = 3\n")
    cp = tasks.checkpoint(next_steps=["cache with expiry"])
    assert cp["must_not_redo"] == 1
    pkg = tasks.restore_checkpoint(tid)
    [item] = pkg["must_not_redo"]
    assert item["key"] == f"revert:{bad[:10]}" and item["source"] == "revert"
    assert f"reverted commit {bad[:10]}" in pkg["text"]


def test_the_prompt_names_open_tasks_interrupted_first(repo) -> None:
    tasks = service(repo)
    first = tasks.create_task("docs pass", "every public function has a docstring")["id"]
    second = busy_task(tasks)
    tasks.report_interruption("context window full", task_id=second)
    done = tasks.create_task("old chore", "bump the lock file")["id"]
    tasks.update_task(done, status="done")
    prompt = cli(repo, "prompt")
    assert prompt.returncode == 0, prompt.stderr
    lines = [ln for ln in prompt.stdout.splitlines() if ln.startswith("- task ")]
    assert lines == [
        f'- task {second} "session tokens" [open]: login issues a signed, rotating session token'
        " (interrupted: call restore_checkpoint first)",
        f'- task {first} "docs pass" [open]: every public function has a docstring',
    ]


def test_a_session_outcome_reweights_the_memories_it_recalled(repo) -> None:
    s = Strata(repo.path)
    used = s.remember("Session tokens are signed with HMAC-SHA256.", "decision", importance=0.5)
    other = s.remember("Release notes go in CHANGELOG.md.", "preference", importance=0.5)
    s.tasks.create_task("tokens", "sign session tokens")
    assert [r.memory.id for r in s.recall("how are session tokens signed", limit=1)] == [
        used.memory.id
    ]
    got = s.tasks.session_outcome("success")
    assert got["memories_adjusted"] == {used.memory.id: 0.6}
    assert s.memory.get(used.memory.id).importance == 0.6
    assert s.memory.get(other.memory.id).importance == 0.5
    again = Strata(repo.path)  # a new session recalled nothing: nothing moves
    assert again.tasks.session_outcome("failure")["memories_adjusted"] == {}


def test_the_changed_files_are_listed_whatever_the_diff_configuration(repo) -> None:
    from gitstrata.serve.task_git import work_tree

    repo.write("auth/login.py", "def login():\n    return 1\n")
    repo.git("rm", "-q", "auth/token.py")
    expected = [("auth/login.py", "modified"), ("auth/token.py", "deleted")]
    assert [(f["path"], f["status"]) for f in work_tree(repo.path).files] == expected
    repo.git("config", "diff.orderFile", "no-such-order-file")  # git diff fails on it
    assert [(f["path"], f["status"]) for f in work_tree(repo.path).files] == expected
