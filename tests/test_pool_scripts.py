"""The Python API from a plain script: the local pools' workers never run the caller's file again.

multiprocessing hands a new worker the path of the main module, and the worker runs it before its
first task; a script without an `if __name__ == "__main__":` guard (the README's example saved
as a file) then started an index in every worker, and the run ended in `BrokenProcessPool`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gitstrata.benchmarks import history_speed

ROOT = Path(__file__).resolve().parents[1]


def test_a_script_without_a_main_guard_indexes_on_the_pool(tmp_path: Path) -> None:
    # 450 commits: capsule extracts them on two workers, forked by a server started early
    repo = history_speed.make_synthetic(tmp_path / "repo", 450)
    marker = tmp_path / "runs.txt"
    script = tmp_path / "analytics.py"
    script.write_text(
        "from gitstrata import Strata\n"
        f"with open({str(marker)!r}, 'a') as fh:\n"
        "    fh.write('ran\\n')\n"
        f"with Strata({str(repo)!r}, index_dir={str(tmp_path / 'idx')!r}) as strata:\n"
        "    report = strata.index(jobs=2)\n"
        "    print(next(s.stats['workers'] for s in report.stages if s.name == 'capsule'))\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["2"], done.stdout  # the pool did the work
    assert "Traceback" not in done.stderr
    assert marker.read_text() == "ran\n"  # the script ran once: in no worker
