"""`exec` capture with real processes: exit codes, signals, stdin, separate streams, bounded
memory on huge output, and the attempted change snapshot in real git repositories."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gitstrata.serve.capture import exec_and_record, run_wrapped, snapshot_worktree
from gitstrata.stages.chunk import FileEntry, chunk_file
from gitstrata.store.attempts import load_failures
from gitstrata.store.config import ChunkConfig
from gitstrata.store.errors import NotARepository
from gitstrata.store.journal import Journal

PY = sys.executable


def run(argv, **kw):
    out, err = io.BytesIO(), io.BytesIO()
    result = run_wrapped(argv, stdin=False, stdout=out, stderr=err, **kw)
    return result, out.getvalue(), err.getvalue()


def test_exit_codes_and_separate_streams():
    result, out, err = run(
        [PY, "-c", "import sys; print('to out'); print('to err', file=sys.stderr); sys.exit(3)"]
    )
    assert result.exit_code == 3 and result.signal is None
    assert (out, err) == (b"to out\n", b"to err\n")
    assert (result.stdout_tail, result.stderr_tail) == ("to out\n", "to err\n")
    assert run([PY, "-c", "pass"])[0].exit_code == 0


def test_missing_command_is_127_and_not_executable_is_126(tmp_path):
    result, out, err = run(["gitstrata-no-such-command", "--flag"])
    assert result.exit_code == 127
    assert err == b"gitstrata exec: gitstrata-no-such-command: command not found\n"
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    result, _, err = run([str(script)])
    assert result.exit_code == 126
    assert err.startswith(f"gitstrata exec: {script}: ".encode())


def test_killed_by_signal_is_128_plus_n():
    result, _, _ = run([PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
    assert (result.exit_code, result.signal) == (128 + 9, 9)


WRAPPER = """
import sys
from gitstrata.serve.capture import run_wrapped
result = run_wrapped(sys.argv[1:])
sys.exit(result.exit_code)
"""

CHILD_TERM = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, lambda *a: (print("child got SIGTERM", flush=True), sys.exit(7)))
print("ready", flush=True)
time.sleep(60)
"""


def start_wrapper(*child: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [PY, "-c", WRAPPER, *child],
        stdin=kw.pop("stdin", subprocess.DEVNULL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kw,
    )


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signals_are_forwarded_and_the_childs_code_returned(sig):
    child = CHILD_TERM.replace("SIGTERM", sig.name)
    proc = start_wrapper(PY, "-c", child)
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 7
    assert out == f"child got {sig.name}\n".encode()


def test_the_output_pumps_leave_forwarded_signals_to_the_main_thread() -> None:
    """A signal the kernel hands to a pump thread only sets Python's flag, and the main thread,
    blocked in `wait`, would not forward it until the child exits: the pumps block them."""
    import threading

    from gitstrata.serve.capture import FORWARDED, _pump, _Sink, _Tail

    read_end, write_end = os.pipe()
    os.write(write_end, b"output\n")
    os.close(write_end)
    sink = io.BytesIO()
    masks: list[set[int]] = []

    def pump() -> None:
        with os.fdopen(read_end, "rb", buffering=0) as src:
            _pump(src, _Sink(sink), _Tail(1024), close_on_broken_pipe=False)
        masks.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))

    thread = threading.Thread(target=pump)
    thread.start()
    thread.join(timeout=30)
    assert sink.getvalue() == b"output\n"
    assert set(FORWARDED) <= masks[0]
    assert not set(FORWARDED) & signal.pthread_sigmask(signal.SIG_BLOCK, [])  # not this thread


def test_forwarded_signal_that_kills_the_child():
    proc = start_wrapper(PY, "-c", "import time; print('ready', flush=True); time.sleep(60)")
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM


def test_stdin_passes_through():
    proc = start_wrapper(
        PY, "-c", "import sys; data = sys.stdin.read(); print(data.upper(), end='')",
        stdin=subprocess.PIPE,
    )  # fmt: skip
    out, _ = proc.communicate(b"hello\nworld\n", timeout=60)
    assert (proc.returncode, out) == (0, b"HELLO\nWORLD\n")


def test_closed_stdout_gives_the_child_sigpipe():
    proc = start_wrapper("yes")
    assert proc.stdout.readline() == b"y\n"
    proc.stdout.close()
    proc.wait(timeout=60)
    assert proc.returncode == 128 + signal.SIGPIPE


BIG = """
import resource, sys
from gitstrata.serve.capture import run_wrapped
child = "import sys\\nblock = (b'x' * 1023 + b'\\\\n') * 1024\\nfor _ in range(200):\\n    sys.stdout.buffer.write(block)\\nsys.stdout.buffer.write(b'the end\\\\n')\\n"
with open("/dev/null", "wb") as sink:
    r = run_wrapped([sys.executable, "-c", child], stdin=False, stdout=sink, tail_bytes=64 * 1024)
try:  # this image's own peak: ru_maxrss also counts the parent's memory from before exec
    with open("/proc/self/status") as fh:
        rss_kib = next(int(l.split()[1]) for l in fh if l.startswith("VmHWM:"))
except OSError:
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // (1024 if sys.platform == "darwin" else 1)
print(r.exit_code, r.stdout_bytes, len(r.stdout_tail), r.stdout_tail.endswith("x\\nthe end\\n"), rss_kib)
"""


def test_200_mb_of_output_streams_with_bounded_memory():
    out = subprocess.run([PY, "-c", BIG], capture_output=True, check=True, timeout=600)
    code, total, tail_len, ends, rss_kib = out.stdout.decode().split()
    assert (int(code), int(total), ends) == (0, 200 * 1024 * 1024 + 8, "True")
    assert 60 * 1024 < int(tail_len) <= 64 * 1024
    assert int(rss_kib) < 100 * 1024  # the output alone is 200 MiB


# ---------------------------------------------------------------- snapshots


def test_snapshot_tracked_and_small_untracked_text(git_repo):
    git_repo.commit("base", {"app.py": "def f():\n    return 1\n", ".gitignore": "*.log\n"})
    git_repo.write("app.py", "def f():\n    return 2\n")
    git_repo.write("notes.txt", "first\nsecond")
    git_repo.write("ignored.log", "noise\n")
    git_repo.write("blob.bin", b"\x00\x01\x02")
    git_repo.write("huge.txt", "x" * (64 * 1024 + 1))
    git_repo.write(".strata/invariants.okf.json", "{}\n")
    diff = snapshot_worktree(git_repo.path)
    assert "-    return 1\n+    return 2\n" in diff
    assert diff.endswith(
        "diff --git a/notes.txt b/notes.txt\nnew file mode 100644\n--- /dev/null\n"
        "+++ b/notes.txt\n@@ -0,0 +1,2 @@\n+first\n+second\n\\ No newline at end of file\n"
    )
    for skipped in ("ignored.log", "blob.bin", "huge.txt", "invariants.okf.json"):
        assert skipped not in diff


def test_snapshot_binary_change_and_no_head_yet(git_repo):
    git_repo.write("staged.py", "x = 1\n")
    git_repo.git("add", "staged.py")
    git_repo.write("loose.py", "y = 2\n")
    diff = snapshot_worktree(git_repo.path)
    assert "diff --git a/staged.py b/staged.py\nnew file mode 100644\n" in diff
    assert "+x = 1\n" in diff and "+y = 2\n" in diff
    git_repo.commit("first", {"img.png": b"\x89PNG\x00\x01"})
    git_repo.write("img.png", b"\x89PNG\x00\x02")
    assert "Binary files a/img.png and b/img.png differ" in snapshot_worktree(git_repo.path)


@pytest.mark.parametrize(
    "key, value",
    [
        ("diff.context", "8"),
        ("diff.interHunkContext", "5"),
        ("diff.algorithm", "histogram"),
        ("diff.renames", "false"),
        ("diff.orderFile", "no-such-order-file"),  # git diff fails on it when it applies
        ("core.attributesFile", "*.py -diff"),  # a user's own attributes file, holding this
    ],
)
def test_snapshot_is_the_same_whatever_the_diff_configuration(git_repo, tmp_path, key, value):
    body = "".join(f"    v{i} = {i}\n" for i in range(30))
    git_repo.commit("base", {"app.py": "def f():\n" + body, "old.py": "x = 1\n" * 20})
    git_repo.write(
        "app.py", "def f():\n" + body.replace("v3 = 3", "v3 = 33").replace("v9 =", "w9 =")
    )
    git_repo.git("mv", "old.py", "new.py")
    expected = snapshot_worktree(git_repo.path)
    assert "+    v3 = 33\n" in expected and "rename to new.py" in expected
    if key == "core.attributesFile":
        (tmp_path / "attributes").write_text(value + "\n")
        value = str(tmp_path / "attributes")
    git_repo.git("config", key, value)
    assert snapshot_worktree(git_repo.path) == expected


def test_snapshot_outside_a_repository(tmp_path):
    with pytest.raises(NotARepository):
        snapshot_worktree(tmp_path)


# ---------------------------------------------------------------- exec end to end

MODULE = """import uuid


def charge_with_retry(client, order_id, attempts=3):
    key = f"{order_id}:{uuid.uuid5(uuid.NAMESPACE_URL, order_id)}"
    for _ in range(attempts):
        return client.charge(order_id, key)


def parse_amount(text):
    return int(text)
"""
TEST = """from pay import charge_with_retry


class Client:
    def __init__(self):
        self.keys = []

    def charge(self, order_id, key):
        self.keys.append(key)
        return "ok"


def test_same_key():
    c = Client()
    charge_with_retry(c, "o1")
    charge_with_retry(c, "o1")
    assert len(set(c.keys)) == 1, "ERR_PAYMENT_DUPLICATE: two keys for one order"
"""


def symbols(path: str, text: str) -> list[dict]:
    data = text.encode()
    return chunk_file(FileEntry(path, "0" * 40, "100644", len(data)), data, ChunkConfig())[1]


def test_exec_records_a_failed_pytest_run_once_then_counts(git_repo, tmp_path, monkeypatch):
    git_repo.commit("pay", {"pay.py": MODULE, "test_pay.py": TEST})
    git_repo.write("pay.py", MODULE.replace(
        'key = f"{order_id}:{uuid.uuid5(uuid.NAMESPACE_URL, order_id)}"',
        "key = str(uuid.uuid4())  # API_TOKEN=ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    ))  # fmt: skip
    monkeypatch.chdir(git_repo.path)
    journal_root = tmp_path / "journal"
    argv = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_pay.py"]
    out, err = io.BytesIO(), io.BytesIO()
    rows = symbols("pay.py", MODULE)
    code = exec_and_record(git_repo.path, journal_root, argv, "fresh key per call", lambda: rows,
                           stdin=False, stdout=out, stderr=err)  # fmt: skip
    assert code == 1
    assert b"1 failed" in out.getvalue()
    assert err.getvalue() == b"gitstrata: recorded failed attempt #1 (exit 1)\n"
    [failure] = load_failures(Journal(journal_root))
    assert failure.targets == (("pay.py", "charge_with_retry"),)
    assert failure.signature.failing == ("test_pay.py::test_same_key",)
    assert "ERR_PAYMENT_DUPLICATE" in failure.signature.codes
    assert failure.exit_code == 1 and failure.notes == "fresh key per call"
    assert "+    key = str(uuid.uuid4())  # API_TOKEN=[REDACTED:" in failure.diff
    assert "ghp_" not in json.dumps(failure.record)
    err2 = io.BytesIO()
    assert exec_and_record(git_repo.path, journal_root, argv, None, rows,
                           stdin=False, stdout=io.BytesIO(), stderr=err2) == 1  # fmt: skip
    assert err2.getvalue() == b"gitstrata: failed attempt #1 seen again (2 occurrences, exit 1)\n"
    assert [f.occurrences for f in load_failures(Journal(journal_root))] == [2]


def test_exec_success_records_nothing_and_missing_command_is_recorded(git_repo, tmp_path):
    git_repo.commit("base", {"a.py": "x = 1\n"})
    journal_root = tmp_path / "journal"
    sink = io.BytesIO()
    assert exec_and_record(git_repo.path, journal_root, [PY, "-c", "pass"], stdin=False,
                           stdout=sink, stderr=sink) == 0  # fmt: skip
    assert not (journal_root / "failures.jsonl").exists()
    err = io.BytesIO()
    code = exec_and_record(git_repo.path, journal_root, ["gitstrata-missing-tool"], stdin=False,
                           stdout=sink, stderr=err)  # fmt: skip
    assert code == 127
    [failure] = load_failures(Journal(journal_root))
    assert failure.exit_code == 127 and failure.command == "gitstrata-missing-tool"
    assert "command not found" in failure.trace


def test_exec_records_nothing_when_there_is_nothing_to_say(git_repo, tmp_path):
    # `gitstrata exec -- false` on a clean tree: no diff, no output, no notes
    git_repo.commit("base", {"a.py": "x = 1\n"})
    journal_root = tmp_path / "journal"
    argv = [PY, "-c", "import sys; sys.exit(1)"]
    err = io.BytesIO()
    assert exec_and_record(git_repo.path, journal_root, argv, stdin=False, stdout=err,
                           stderr=err) == 1  # fmt: skip
    assert err.getvalue() == (
        b"gitstrata: nothing recorded (exit 1): no changes, no output and no notes\n"
    )
    assert load_failures(Journal(journal_root)) == []
    # the same run with a note says what was tried: it is recorded
    assert exec_and_record(git_repo.path, journal_root, argv, "tried a lock-free get", stdin=False,
                           stdout=err, stderr=err) == 1  # fmt: skip
    assert [f.notes for f in load_failures(Journal(journal_root))] == ["tried a lock-free get"]


def test_exec_outside_a_repository_still_records(tmp_path):
    journal_root = tmp_path / "journal"
    err = io.BytesIO()
    argv = [PY, "-c", "raise SystemExit('boom')"]
    assert exec_and_record(tmp_path, journal_root, argv, stdin=False, stdout=err, stderr=err) == 1
    assert b"recording without a diff" in err.getvalue()
    assert [f.diff for f in load_failures(Journal(journal_root))] == [""]


def test_exec_keeps_the_exit_code_when_the_journal_is_unwritable(git_repo, tmp_path):
    git_repo.commit("base", {"a.py": "x = 1\n"})
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the journal folder should be\n")
    err = io.BytesIO()
    argv = [PY, "-c", "import sys; sys.exit('boom: 5')"]
    code = exec_and_record(git_repo.path, blocked / "journal", argv, stdin=False, stdout=err,
                           stderr=err)  # fmt: skip
    assert code == 1
    assert b"gitstrata: could not record the failed attempt" in err.getvalue()
    assert os.path.isfile(blocked) and Path(blocked).read_text().startswith("a file")
