"""The Python API from a plain script and from a caller's own process pool.

multiprocessing hands a new worker the path of the main module, and the worker runs it before its
first task; a script without an `if __name__ == "__main__":` guard (the README's example saved
as a file) then started an index in every worker, and the run ended in `BrokenProcessPool`. A
worker of the caller's own pool is daemonic and may not start processes: an index there failed
in `capsule` ("daemonic processes are not allowed to have children")."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstrata.benchmarks import history_speed
from gitstrata.benchmarks.robustness import pool_script, run_script, unguarded_script


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # 450 commits: capsule extracts them on two workers, forked by a server started early
    return history_speed.make_synthetic(tmp_path_factory.mktemp("history") / "repo", 450)


def test_a_script_without_a_main_guard_indexes_on_the_pool(tmp_path: Path, history: Path) -> None:
    marker = tmp_path / "runs.txt"
    script = tmp_path / "analytics.py"
    script.write_text(unguarded_script(history, tmp_path / "idx", marker))
    done = run_script(script, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["2"], done.stdout  # the pool did the work
    assert "Traceback" not in done.stderr
    assert marker.read_text() == "ran\n"  # the script ran once: in no worker


def test_an_index_in_a_worker_of_the_callers_own_pool(tmp_path: Path, history: Path) -> None:
    script = tmp_path / "many.py"
    script.write_text(pool_script(history, [tmp_path / "a", tmp_path / "b"]))
    done = run_script(script, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    # each worker indexed in process: it may not start processes of its own
    assert done.stdout.split() == ["1", "1"], done.stdout
    assert "Traceback" not in done.stderr
