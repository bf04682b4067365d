"""Ctrl-C at any moment of a `gitstrata` process: before the command starts it ends the process
quietly (exit 130, no traceback); a host that imports the module keeps its own handler."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from gitstrata.benchmarks import history_speed
from gitstrata.benchmarks.robustness import marked_processes, waited

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_ctrl_c_before_the_command_starts_is_one_line(tmp_path):
    # a console script named like ours, interrupted right after the import that installs the
    # handler and before `main` runs: the window in which Python would print a traceback
    script = tmp_path / "gitstrata"
    script.write_text(
        "import os, signal, sys\n"
        "from gitstrata.entry import main\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "for _ in range(10**6):\n"
        "    pass\n"
        "sys.exit(main())\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script), "status"],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=tmp_path,
    )
    assert done.returncode == 130
    assert done.stderr == "interrupted\n"
    assert "Traceback" not in done.stderr


def test_ctrl_c_inside_a_finaliser_reaches_the_command(tmp_path):
    # a KeyboardInterrupt raised in a weakref callback or `__del__` is "unraisable": Python
    # would print it and go on; the command line delivers it again and ends as interrupted
    script = tmp_path / "gitstrata"
    script.write_text(
        "import sys\n"
        "from gitstrata import entry\n"
        "class Dies:\n"
        "    def __del__(self):\n"
        "        raise KeyboardInterrupt\n"
        "def command():\n"
        "    Dies()\n"
        "    for _ in range(10**7):\n"
        "        pass\n"
        "    print('not interrupted')\n"
        "entry.run_guarded(command)\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=_env(), cwd=tmp_path
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr == "interrupted\n"
    assert "not interrupted" not in done.stdout


def test_a_host_importing_the_module_keeps_its_ctrl_c():
    # whatever the host's handler is (Python's default, or SIG_IGN inherited by a process
    # started in the background), importing the module leaves it
    code = (
        "import signal\n"
        "before = signal.getsignal(signal.SIGINT)\n"
        "from gitstrata import entry\n"
        "assert signal.getsignal(signal.SIGINT) is before\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(), check=False
    )
    assert done.stdout == "ok\n", done.stderr


def test_python_dash_m_installs_the_handler_too(tmp_path):
    # `python -m gitstrata` runs `__main__.py`, whose path names the package
    code = (
        "import runpy, sys, signal\n"
        "sys.argv = [sys.argv[0]]\n"
        "import gitstrata, os\n"
        "path = os.path.join(os.path.dirname(gitstrata.__file__), '__main__.py')\n"
        "sys.argv[0] = path\n"
        "from gitstrata import entry\n"
        "print(entry._is_program())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(), check=False
    )
    assert done.stdout == "True\n", done.stderr


@pytest.mark.parametrize(
    ("sig", "line", "code"),
    [(signal.SIGINT, "interrupted", 130), (signal.SIGTERM, "terminated", 143)],
)
def test_a_signal_a_library_turned_into_its_own_error_still_ends_the_run(sig, line, code):
    # pydantic building a validator runs Python callbacks from compiled code: the exception a
    # handler raised there came back as "SchemaError: Error building ... validator", and a
    # SIGTERM at that moment ended the command as an internal error
    script = (
        "import os, signal, time\n"
        "from gitstrata import entry\n"
        "signal.signal(signal.SIGTERM, entry._terminate)\n"
        "signal.signal(signal.SIGINT, entry._interrupted_early)\n"
        "def call():\n"
        "    try:\n"
        f"        os.kill(os.getpid(), {int(sig)})\n"
        "        time.sleep(10)\n"
        "    except BaseException:\n"
        "        raise RuntimeError('Error building \"model\" validator') from None\n"
        "entry.run_guarded(call)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=_env(), timeout=60
    )
    assert (done.returncode, done.stderr) == (code, line + "\n")


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_an_index_stopped_while_its_workers_run_leaves_no_process(tmp_path, sig):
    # stopped from outside (a CI timeout, a supervisor: the signal reaches the CLI alone) while
    # capsule's pool extracts the history, the workers went on, blocked writing results nobody
    # read, and kept their fork server alive for good
    repo = history_speed.make_synthetic(tmp_path / "repo", 900)
    mark = f"GITSTRATA_TEST_MARK={uuid.uuid4().hex}"
    env = {**_env(), mark.split("=")[0]: mark.split("=")[1]}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitstrata", "index", str(repo), "--out", str(tmp_path / "idx"),
         "--jobs", "2", "--progress", "plain"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    # the CLI, the fork server and two workers
    assert waited(lambda: len(marked_processes(mark)) >= 4, 60), "capsule's pool never started"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert waited(lambda: not marked_processes(mark), 10), f"left behind: {marked_processes(mark)}"
    if sig != signal.SIGKILL:
        assert proc.returncode == (130 if sig == signal.SIGINT else 143)
        assert err.splitlines()[-1] == ("interrupted" if sig == signal.SIGINT else "terminated")
        assert "Traceback" not in err and "leaked" not in err
