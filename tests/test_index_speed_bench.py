"""`benchmarks.index_speed`: a missing benchmark extra is one clear error, not a traceback."""

from __future__ import annotations

import sys

from gitstrata.benchmarks import index_speed


def test_without_psutil_the_benchmark_says_which_extra_to_install(monkeypatch, capsys):
    # a `None` entry makes `import psutil` raise ImportError, as when the extra is not installed
    monkeypatch.setitem(sys.modules, "psutil", None)
    assert index_speed.main(["--synthetic", "10"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert lines[0] == "index_speed: needs psutil, one of the benchmark extras"
    assert ".[bench]" in lines[1] and "Traceback" not in captured.err
