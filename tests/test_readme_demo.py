"""The README's shown outputs are real: the flagship preflight block and the sample `gitstrata
index` output are produced here, on the demo repository, by the real CLI, and compared with the
README line by line. Only what differs from run to run is normalised: timings, and the date of a
failed attempt's last occurrence (the day the demo was built).

To refresh the README after an intended change: run `python -m gitstrata.benchmarks.demo shop`,
then in `shop/` the commands the README shows, and paste their output.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gitstrata.benchmarks.demo import INVARIANTS, build_demo, preflight_argv

pytestmark = pytest.mark.slow  # the demo repository is built and indexed

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _console_blocks(text: str) -> list[list[str]]:
    return [block.splitlines() for block in re.findall(r"```console\n(.*?)```", text, re.S)]


def _runs(block: list[str]) -> list[tuple[str, list[str]]]:
    """(command, output lines) for each `$ ` line of a console block."""
    runs: list[tuple[str, list[str]]] = []
    for line in block:
        if line.startswith("$ "):
            runs.append((line[2:], []))
        else:
            runs[-1][1].append(line)
    return runs


def _argv(command: str) -> list[str]:
    return shlex.split(command.split("  #", 1)[0])


TIMING = re.compile(r"\b\d+\.\d\d(?=s;|$)")
PREFLIGHT_VOLATILE = (
    (re.compile(r'latency_ms="[\d.]+"'), 'latency_ms="…"'),
    (re.compile(r'(<failed_attempt id="1" date=)"\d{4}-\d\d-\d\d"'), r'\1"…"'),
)


def _index_lines(lines: list[str]) -> list[list[str]]:
    # timings vary, and the seconds column's padding with them: compare words
    return [TIMING.sub("…", line).split() for line in lines]


def _preflight_lines(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        for pattern, repl in PREFLIGHT_VOLATILE:
            line = pattern.sub(repl, line)
        out.append(line)
    return out


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    demo = build_demo(tmp_path_factory.mktemp("demo") / "shop", index=False)
    assert demo.report is None and demo.failures > 0 and demo.invariants == len(INVARIANTS)
    return demo.fixture.path


def gitstrata(repo: Path, argv: list[str]) -> list[str]:
    assert argv[0] == "gitstrata", argv
    proc = subprocess.run(
        [sys.executable, "-m", "gitstrata", *argv[1:]], cwd=repo, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_readme_index_output_is_the_demo_repositorys(shop: Path) -> None:
    [block] = [b for b in _console_blocks(_section("CLI")) if b[0] == "$ gitstrata index"]
    (first_cmd, first_shown), (again_cmd, again_shown) = _runs(block)
    first = gitstrata(shop, _argv(first_cmd))
    assert _index_lines(first) == _index_lines(first_shown)
    header = first_shown.index("stage      status  seconds")
    stages = [line.split()[0] for line in first_shown[header + 1 : -1]]
    assert "firewall" in stages and "embed" in stages
    again = gitstrata(shop, _argv(again_cmd))
    assert again_shown[-1] == "..."  # the README shortens the repeat
    assert _index_lines(again[: len(again_shown) - 1]) == _index_lines(again_shown[:-1])


def test_readme_preflight_example_is_the_demo_repositorys(shop: Path) -> None:
    [block] = _console_blocks(_section("What an agent sees"))
    runs = _runs(block)
    assert _argv(runs[0][0]) == ["cd", "shop"] and runs[0][1] == []
    command, shown = runs[1]
    argv = _argv(command)
    assert argv[1:] == preflight_argv()  # the command the demo tells you to run
    if not (shop / ".strata" / "CURRENT").exists():  # this test alone: index first
        gitstrata(shop, ["gitstrata", "index"])
    assert _preflight_lines(gitstrata(shop, argv)) == _preflight_lines(shown)


def test_demo_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "notes.txt").write_text("mine\n")
    proc = subprocess.run(
        [sys.executable, "-m", "gitstrata.benchmarks.demo", str(tmp_path / "shop")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"error: {tmp_path / 'shop'} is not empty",
        "hint: choose an empty directory or pass --force",
    ]
    assert (tmp_path / "shop" / "notes.txt").read_text() == "mine\n"
