"""The progress contract of `gitstrata index`: JSON lines a supervisor decodes with
`store.progress`, checked on real runs; the human lines of a plain run still work."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import GitRepo
from hypothesis import given
from hypothesis import strategies as st

from gitstrata.pipeline.graph import dependencies
from gitstrata.pipeline.registry import default_stages
from gitstrata.store.generations import Store
from gitstrata.store.progress import ProgressEvent, ProgressMessage, decode, encode

STAGES = ("chunk", "capsule", "blame", "documents", "embed")  # the steps that report
# the default stage graph; stages whose inputs are ready run side by side, so the order they are
# announced in is any order that keeps each stage after the stages it reads from
RUN_ORDER = ("chunk", "capsule", "blame", "cochange", "links", "firewall", "memories", "documents",
             "fulltext", "embed")  # fmt: skip
DEPENDS_ON = dependencies(default_stages())


def assert_after_dependencies(names: list[str]) -> None:
    """Each stage of `names` (in the order it was announced) comes after those it reads from;
    every stage of the graph is there once."""
    assert sorted(names) == sorted(RUN_ORDER), names
    for i, name in enumerate(names):
        assert DEPENDS_ON[name] <= set(names[:i]), (name, names)


def small_repo(path: Path) -> GitRepo:
    repo = GitRepo(path)
    repo.commit(
        "feat: parser",
        {"src/parse.py": "def parse(text):\n    return text.split()\n", "README.md": "# x\n"},
    )
    repo.commit(
        "fix: parse empty input (INC-7)",
        {"src/parse.py": "def parse(text):\n    return (text or '').split()\n"},
    )
    repo.commit("feat: joiner", {"src/join.py": "def join(words):\n    return ' '.join(words)\n"})
    return repo


def run_index(repo: GitRepo, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gitstrata", "index", str(repo.path), "--out", str(out), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


@given(
    step=st.text(),
    done=st.integers(min_value=0, max_value=2**53),
    total=st.none() | st.integers(min_value=0, max_value=2**53),
)
def test_a_progress_event_round_trips_on_one_line(step: str, done: int, total: int | None) -> None:
    event = ProgressEvent(step, done, total)
    line = encode(event)
    assert "\n" not in line
    assert decode(line) == event
    assert decode(line + "\n") == event


@given(
    step=st.text(),
    done=st.integers(min_value=0, max_value=2**53),
    total=st.none() | st.integers(min_value=0, max_value=2**53),
    eta=st.none() | st.floats(min_value=0, max_value=1e9),
    stage=st.none() | st.text(),
)
def test_an_event_with_eta_and_stage_round_trips(
    step: str, done: int, total: int | None, eta: float | None, stage: str | None
) -> None:
    event = ProgressEvent(step, done, total, eta, stage)
    line = encode(event)
    assert "\n" not in line
    assert decode(line) == event


@given(text=st.text())
def test_a_message_round_trips_on_one_line(text: str) -> None:
    line = encode(ProgressMessage(text))
    assert "\n" not in line
    assert decode(line) == ProgressMessage(text)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "error: not a git repository",
        "[capsule: commits] 3/4 (75%)",
        "{not json",
        "[1, 2]",
        '{"event": "progress", "step": "x", "done": -1, "total": null}',
        '{"event": "progress", "step": "x", "done": true, "total": null}',
        '{"event": "progress", "step": 3, "done": 1, "total": 2}',
        '{"event": "progress", "step": "x", "done": 1, "total": "2"}',
        '{"event": "message"}',
        '{"event": "other", "text": "x"}',
        '{"event": "progress", "step": "x", "done": 1, "total": 2, "eta": -1}',
        '{"event": "progress", "step": "x", "done": 1, "total": 2, "eta": "soon"}',
        '{"event": "progress", "step": "index", "done": 1, "total": 2, "stage": 3}',
    ],
)
def test_lines_that_are_not_events_decode_to_none(line: str) -> None:
    assert decode(line) is None


def test_percent_is_whole_and_absent_without_a_total() -> None:
    assert ProgressEvent("s", 1, 3).percent == 33
    assert ProgressEvent("s", 3, 3).percent == 100
    assert ProgressEvent("s", 5, None).percent is None
    assert ProgressEvent("s", 0, 0).percent is None


def test_index_with_jsonl_progress_writes_only_events(tmp_path: Path) -> None:
    repo = small_repo(tmp_path / "repo")
    done = run_index(repo, tmp_path / "index", "--progress", "jsonl")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    events = [decode(line) for line in lines]
    assert lines and None not in events, done.stderr
    progress = [e for e in events if isinstance(e, ProgressEvent)]
    assert {e.step.split(":")[0] for e in progress} >= set(STAGES)
    last: dict[str, int] = {}
    for e in progress:
        assert e.done >= last.get(e.step, 0), e
        assert e.total is None or e.done <= e.total, e
        last[e.step] = e.done
    # steps with a known size end complete: three commits, three files at HEAD
    assert ProgressEvent("capsule: commits", 3, 3) in progress
    assert Store(tmp_path / "index").current_name() is not None
    assert "gen-" in done.stdout  # the report on stdout is unchanged


def test_jsonl_announces_every_stage_in_order_with_its_number(tmp_path: Path) -> None:
    repo = small_repo(tmp_path / "repo")
    done = run_index(repo, tmp_path / "index", "--progress", "jsonl")
    assert done.returncode == 0, done.stderr
    events = [decode(line) for line in done.stderr.splitlines()]
    stages = [e for e in events if isinstance(e, ProgressEvent) and e.step == "index"]
    n = len(RUN_ORDER)
    # a stage's start says how many stages are done by then, its end counts itself in
    ended: list[str] = []
    started: list[str] = []
    for e in stages:
        assert e.total == n and e.stage is not None, e
        if e.stage in started:
            assert e.stage not in ended, e
            ended.append(e.stage)
            assert e.done == len(ended), (e, stages)
        else:
            assert DEPENDS_ON[e.stage] <= set(ended), (e, stages)
            started.append(e.stage)
            assert e.done == len(ended), (e, stages)
    assert_after_dependencies(started)
    assert sorted(ended) == sorted(RUN_ORDER)
    # a stage's own steps are reported between its start and its end
    lines = [e for e in events if isinstance(e, ProgressEvent)]
    capsule = [i for i, e in enumerate(lines) if e.step == "index" and e.stage == "capsule"]
    start, end = capsule
    assert ProgressEvent("capsule: commits", 3, 3) in lines[start:end]
    # embed counts its documents: one per symbol and per commit of the little repository
    embed = [e for e in lines if e.step == "embed: documents"]
    assert embed[0].done == 0 and embed[-1].done == embed[-1].total and embed[-1].total
    # then its fit, a step of its own once the documents' features are done: counted in the
    # fit's sparse products (a corpus this small is decomposed at once) and the vectors' one
    fit = [i for i, e in enumerate(lines) if e.step == "embed: fit"]
    assert fit and fit[0] > max(i for i, e in enumerate(lines) if e.step == "embed: documents")
    assert lines[fit[0]].done == 0 and lines[fit[-1]] == ProgressEvent("embed: fit", 2, 2)
    # an ETA is never negative and only comes with a known size
    assert all(e.eta is None or (e.total and e.eta >= 0) for e in lines)


def test_an_unchanged_rerun_still_reports_every_stage(tmp_path: Path) -> None:
    repo = small_repo(tmp_path / "repo")
    assert run_index(repo, tmp_path / "index").returncode == 0
    again = run_index(repo, tmp_path / "index")
    assert again.returncode == 0, again.stderr
    lines = again.stderr.splitlines()
    n = len(RUN_ORDER)
    # nothing runs, so one stage after the other: announced, then up to date
    names = [line.split("] ", 1)[1] for line in lines[::2]]
    assert lines == [
        line
        for number, name in enumerate(names, 1)
        for line in (f"[index {number}/{n}] {name}", f"[index {number}/{n}] {name}: up to date")
    ], lines
    assert_after_dependencies(names)


def test_index_without_the_option_prints_plain_lines_for_people(tmp_path: Path) -> None:
    repo = small_repo(tmp_path / "repo")
    done = run_index(repo, tmp_path / "index")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    n = len(RUN_ORDER)
    for name in RUN_ORDER:
        assert any(re.fullmatch(rf"\[index \d+/{n}\] {name}", x) for x in lines), done.stderr
        assert any(
            re.fullmatch(rf"\[index \d+/{n}\] {name}: done in \d+\.\d s", line) for line in lines
        ), done.stderr
    # each stage keeps the number it started as, and no two stages share one, though stages
    # that start together run side by side
    started = [re.fullmatch(rf"\[index (\d+)/{n}\] ([a-z_]+)", x) for x in lines]
    numbers = {m.group(2): int(m.group(1)) for m in started if m}
    assert sorted(numbers.values()) == list(range(1, n + 1)), lines
    for line in lines:
        ended = re.fullmatch(rf"\[index (\d+)/{n}\] ([a-z_]+): done in .*", line)
        if ended:
            assert int(ended.group(1)) == numbers[ended.group(2)], lines
    assert "[capsule: commits] 0/3 (0%)" in lines, done.stderr
    assert any(re.fullmatch(r"\[capsule: commits\] 3/3 \(100%\) in \d+\.\d s", x) for x in lines)
    step = r"\[[^\]]+\] (\d+/\d+ \(\d+%\)(, ETA [\d. a-z]+)?|\d+|done)( in [\d. a-z]+)?"
    stage = r"\[index \d+/\d+\] [a-z_]+(: (done in [\d. a-z]+|up to date))?"
    assert all(re.fullmatch(f"{step}|{stage}", line) for line in lines), lines
    assert not any(decode(line) for line in lines)


def test_plain_progress_gives_an_eta_at_most_once_per_interval() -> None:
    import io

    from gitstrata.pipeline.progress import PlainProgress

    out = io.StringIO()
    progress = PlainProgress(out, interval=0.0)
    with progress.task("blame: files", total=4) as task:
        task.advance()
        task.advance(3)
    lines = out.getvalue().splitlines()
    assert lines[0] == "[blame: files] 0/4 (0%)"
    assert re.fullmatch(r"\[blame: files\] 1/4 \(25%\), ETA \d+\.\d s", lines[1]), lines
    assert re.fullmatch(r"\[blame: files\] 4/4 \(100%\), ETA 0\.0 s", lines[2]), lines
    assert re.fullmatch(r"\[blame: files\] 4/4 \(100%\) in \d+\.\d s", lines[3]), lines
    quiet = io.StringIO()
    slow = PlainProgress(quiet, interval=3600.0)
    with slow.task("blame: files", total=1000) as task:
        for _ in range(1000):
            task.advance()
    assert len(quiet.getvalue().splitlines()) == 2  # its start and its end, nothing between


def test_a_run_waiting_for_the_lock_says_so_in_a_message(tmp_path: Path) -> None:
    """What the MCP server's background build reads: the waiting message, then progress."""
    from gitstrata.serve.indexjob import Build

    repo = small_repo(tmp_path / "repo")
    out = tmp_path / "index"
    with Store(out).lock():
        build = Build.start(sys.executable, repo.path, out, repo.head())
        for _ in range(1200):  # polls for up to two minutes; the assertion is not on time
            build.read_log()
            if build.waiting or build.process.poll() is not None:
                break
            time.sleep(0.1)
        assert build.waiting, build.tail
        assert build.progress()["waiting_for_lock"] is True
        assert build.step is None
    assert build.process.wait(120) == 0, build.tail
    build.read_log()
    assert not build.waiting
    assert build.step is not None
    assert any(line.startswith("waiting for another gitstrata index") for line in build.tail)
