"""`gitstrata index` end to end on real repositories: summary, incrementality, failure safety,
concurrency, and every bad-input case the foundation promises to handle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gitstrata.pipeline.graph import order_stages
from gitstrata.pipeline.runner import run_index
from gitstrata.pipeline.stage import Stage, StageResult
from gitstrata.pipeline.tree import CHUNK
from gitstrata.store.errors import EmptyRepository, NotARepository, PipelineGraphError, StageError
from gitstrata.store.generations import GITIGNORE, GenerationWriter, Store
from gitstrata.store.schemas import artifact

PY_SRC = '''"""Payments."""
import os

RETRIES = 3


class Gateway:
    def charge(self, order_id: str) -> str:
        """Charge once."""
        return order_id


def charge_with_retry(gw: Gateway, order_id: str) -> str:
    for _ in range(RETRIES):
        return gw.charge(order_id)
    raise RuntimeError("unreachable")
'''

TS_SRC = """export function parseOrder(raw: string): Order {
  return JSON.parse(raw) as Order;
}

export class OrderClient {
  fetch(id: string): Promise<Order> {
    return fetch(`/orders/${id}`).then((r) => r.json());
  }
}
"""


def cli(
    *args: str, cwd: Path | None = None, env: dict | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gitstrata", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
    )


@pytest.fixture
def repo(git_repo):
    git_repo.commit(
        "feat: payments",
        {
            "backend/payments.py": PY_SRC,
            "web/src/orders.ts": TS_SRC,
            "README.md": "# demo\n",
            "assets/logo.png": b"\x89PNG\r\n\x1a\n\0\0\0binary",
            "vendor/lib.js": "function vendored() {}\n",
        },
    )
    return git_repo


def test_index_summary_json(repo) -> None:
    proc = cli("index", str(repo.path), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    chunk = report["stages"][0]
    assert chunk["name"] == "chunk" and not chunk["skipped"]
    stats = chunk["stats"]
    assert stats["files"] == 5
    assert stats["indexed"] == 3
    assert stats["skipped"] == {"binary": 1, "vendored": 1}
    assert (
        stats["symbols_by_language"]["python"] == 4
    )  # <module>, Gateway, Gateway.charge, charge_with_retry
    gen = Path(report["path"])
    assert gen.name == "gen-000001" and (gen / "symbols.parquet").exists()
    assert (repo.path / ".strata" / ".gitignore").exists()


def test_summary_counts_files_of_no_known_language_as_other(git_repo) -> None:
    git_repo.commit(
        "feat: shop",
        {"shop.py": "def buy():\n    return 1\n", "LICENSE": "MIT\n", "NOTICE": "Copyright\n"},
    )
    report = run_index(git_repo.path, stages=[CHUNK])
    by_language = report.stage("chunk").stats["symbols_by_language"]
    assert by_language == {"python": 2, "other": 2}  # <module> and buy; one <module> per file
    assert list(by_language) == ["python", "other"]

    proc = cli("index", str(git_repo.path), "--rebuild")
    assert proc.returncode == 0, proc.stderr
    assert "(python 2, other 2)" in proc.stdout and "None" not in proc.stdout


def _status(repo) -> list[str]:
    return repo.git("status", "--porcelain", "--untracked-files=all").splitlines()


def test_index_leaves_git_status_clean_and_team_files_committable(repo) -> None:
    proc = cli("index", str(repo.path), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert (repo.path / ".strata" / "CURRENT").exists()
    assert _status(repo) == []

    repo.write(".strata/invariants.okf.json", "{}\n")
    repo.write(".strata/config.json", "{}\n")
    assert _status(repo) == ["?? .strata/config.json", "?? .strata/invariants.okf.json"]
    repo.git("add", ".strata/invariants.okf.json")  # no --force needed
    assert "A  .strata/invariants.okf.json" in _status(repo)


def test_index_replaces_the_old_self_unignoring_gitignore_only(repo) -> None:
    old = "# written by gitstrata: everything here is rebuilt from git except team knowledge\n*\n!.gitignore\n!invariants.okf.json\n!config.json\n"
    ignore = repo.write(".strata/.gitignore", old)
    assert _status(repo) == ["?? .strata/.gitignore"]
    run_index(repo.path, stages=[CHUNK])
    assert ignore.read_text(encoding="utf-8") == GITIGNORE
    assert _status(repo) == []

    own = "# mine\n*\n!.gitignore\n"
    ignore.write_text(own, encoding="utf-8")
    run_index(repo.path, stages=[CHUNK], rebuild=True)
    assert ignore.read_text(encoding="utf-8") == own


def test_second_run_skips_everything_then_one_file_reparsed(repo, tmp_path) -> None:
    out = tmp_path / "index"  # outside the work tree, so commits below do not pick it up
    first = run_index(repo.path, out, stages=[CHUNK])
    again = run_index(repo.path, out, stages=[CHUNK])
    assert again.up_to_date and again.generation == first.generation
    assert all(s.skipped for s in again.stages)

    repo.commit("fix: retry", {"backend/payments.py": PY_SRC.replace("RETRIES = 3", "RETRIES = 5")})
    third = run_index(repo.path, out, stages=[CHUNK])
    assert not third.up_to_date and third.generation == "gen-000002"
    stats = third.stage("chunk").stats
    assert stats["parsed"] == 1 and stats["reused"] == 3  # README, orders.ts, the binary logo
    symbols = Store(out).require_live().table("symbols")
    module = [
        r
        for r in symbols.to_pylist()
        if r["path"] == "backend/payments.py" and r["qualname"] == "<module>"
    ]
    assert "RETRIES = 5" in module[0]["code"]
    assert sorted({r["path"] for r in symbols.to_pylist()}) == [
        "README.md",
        "backend/payments.py",
        "web/src/orders.ts",
    ]


def test_failing_stage_leaves_previous_generation_live(repo) -> None:
    run_index(repo.path, stages=[CHUNK])
    store = Store(repo.path / ".strata")
    before = store.current_name()

    def boom(ctx):
        raise ValueError("disk on fire")

    broken = Stage(name="broken", run=boom, inputs=("symbols",), outputs=("files_copy",))
    # An output without a schema is a graph error, reported before anything runs.
    with pytest.raises(PipelineGraphError, match="files_copy"):
        run_index(repo.path, stages=[CHUNK, broken], rebuild=True)

    def boom_chunk(ctx):
        raise ValueError("disk on fire")

    failing = Stage(name="chunk", run=boom_chunk, outputs=("files", "symbols"), source="tree")
    with pytest.raises(StageError, match="disk on fire"):
        run_index(repo.path, stages=[failing], rebuild=True)
    assert store.current_name() == before
    assert not list(store.root.glob(".tmp-*"))
    assert store.require_live().table("files").num_rows == 5


def test_graph_validation_reports_every_problem() -> None:
    def noop(ctx):
        return StageResult()

    a = Stage(name="a", run=noop, inputs=("nope",), outputs=("files",))
    b = Stage(name="b", run=noop, outputs=("files", "mystery"))
    with pytest.raises(PipelineGraphError) as exc:
        order_stages([a, b])
    msg = str(exc.value)
    assert "'nope'" in msg and "'files' is written by both" in msg and "'mystery'" in msg


@pytest.mark.slow
def test_concurrent_index_runs_do_not_corrupt(repo) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gitstrata", "index", str(repo.path), "--quiet", "--rebuild"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    codes = [p.wait(120) for p in procs]
    assert codes == [0, 0, 0]
    store = Store(repo.path / ".strata")
    live = store.require_live()
    assert live.verify() == []
    assert live.table("symbols").num_rows > 0
    assert not list(store.root.glob(".tmp-*"))


def test_moved_generation_folder_still_loads(repo, tmp_path) -> None:
    report = run_index(repo.path, out=tmp_path / "ci-out", stages=[CHUNK])
    moved = tmp_path / "downloaded"
    (tmp_path / "ci-out").rename(moved)
    live = Store(moved).require_live()
    assert live.name == report.generation
    assert live.verify() == []
    assert live.table("files").num_rows == 5


# ---------------------------------------------------------------- bad input


def _one_line_error(proc: subprocess.CompletedProcess, needle: str) -> None:
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    first = proc.stderr.strip().splitlines()[0]
    assert first.startswith("error: ") and needle in first, proc.stderr


def test_not_a_repository(tmp_path) -> None:
    (tmp_path / "plain").mkdir()
    _one_line_error(cli("index", str(tmp_path / "plain")), "not a git repository")
    with pytest.raises(NotARepository):
        run_index(tmp_path / "plain")


def test_a_worktree_whose_repository_moved_names_what_git_says(make_repo, tmp_path) -> None:
    main = make_repo("main")
    main.commit("one", {"a.py": "x = 1\n"})
    main.git("worktree", "add", "-q", str(tmp_path / "wt"))
    main.path.rename(tmp_path / "moved")  # the worktree's `.git` file names a folder now gone
    proc = cli("index", str(tmp_path / "wt"))
    _one_line_error(proc, "git cannot open this repository: not a git repository: ")


def test_git_refusing_another_users_repository_is_named_with_its_fix() -> None:
    from gitstrata.pipeline.gitio import refused

    said = (
        b"fatal: detected dubious ownership in repository at '/srv/app'\n"
        b"To add an exception for this directory, call:\n\n"
        b"\tgit config --global --add safe.directory /srv/app\n"
    )
    err = refused(Path("/srv/app"), said)
    assert "another user owns it" in str(err)
    assert err.hint == "if you trust it, run `git config --global --add safe.directory /srv/app`"
    plain = refused(Path("/x"), b"fatal: not a git repository (or any of the parent directories)")
    assert "not a git repository" in str(plain) and plain.hint


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_a_repository_another_user_owns_gets_the_safe_directory_hint(make_repo) -> None:
    repo = make_repo("owned")
    repo.commit("one", {"a.py": "x = 1\n"})
    for path in (repo.path, *repo.path.rglob("*")):
        os.lchown(path, 65534, 65534)  # nobody: git refuses it to root too
    proc = cli("index", str(repo.path))
    _one_line_error(proc, "another user owns it")
    assert "safe.directory" in proc.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_a_system_wide_safe_directory_lets_git_work_as_it_does_for_the_user(
    make_repo, tmp_path
) -> None:
    repo = make_repo("owned-trusted")
    repo.commit("one", {"a.py": "x = 1\n"})
    for path in (repo.path, *repo.path.rglob("*")):
        os.lchown(path, 65534, 65534)
    system = tmp_path / "gitconfig"  # as a CI image sets it: `git config --system ...`
    system.write_text(f"[safe]\n\tdirectory = {repo.path}\n")
    env = {**os.environ, "GIT_CONFIG_SYSTEM": str(system)}
    assert subprocess.run(["git", "-C", str(repo.path), "status"], env=env).returncode == 0
    out = tmp_path / "idx"
    proc = subprocess.run(
        [sys.executable, "-m", "gitstrata", "index", str(repo.path), "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_missing_path(tmp_path) -> None:
    _one_line_error(cli("index", str(tmp_path / "nope")), "no such directory")


def test_bare_repository(tmp_path) -> None:
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "bare.git")], check=True)
    _one_line_error(cli("index", str(tmp_path / "bare.git")), "bare repository")


def test_empty_repository(git_repo) -> None:
    _one_line_error(cli("index", str(git_repo.path)), "no commits yet")
    with pytest.raises(EmptyRepository):
        run_index(git_repo.path)


def test_git_missing_from_path(repo, tmp_path) -> None:
    env = {**os.environ, "PATH": str(tmp_path / "empty-bin")}
    proc = subprocess.run(
        [sys.executable, "-m", "gitstrata", "index", str(repo.path)],
        capture_output=True,
        text=True,
        env=env,
    )
    _one_line_error(proc, "git is not installed")


def test_usage_error_exits_2(repo) -> None:
    proc = cli("index", str(repo.path), "--jobs", "0")
    assert proc.returncode == 2


def test_odd_files_do_not_stop_indexing(git_repo) -> None:
    git_repo.commit(
        "odd files",
        {
            "broken.py": "def f(:\n    return (\n",
            "latin1.py": "s = '\xe9t\xe9'\n".encode("latin-1"),
            "caf\u00e9/na\u00efve.ts": "export const x = 1;\n",
            "big.txt": "x" * 2_000_001,
        },
    )
    report = run_index(git_repo.path, stages=[CHUNK])
    stats = report.stage("chunk").stats
    assert stats["skipped"] == {"too_large": 1}
    assert stats["indexed"] == 3
    paths = set(Store(git_repo.path / ".strata").require_live().table("files")["path"].to_pylist())
    assert "caf\u00e9/na\u00efve.ts" in paths


def test_repeated_qualnames_get_distinct_ids(git_repo, tmp_path) -> None:
    git_repo.commit(
        "overloads",
        {
            "Shapes.java": "class Shapes {\n  int area(int a) { return a * a; }\n  int area(int a, int b) { return a * b; }\n}\n"
        },
    )
    run_index(git_repo.path, tmp_path / "idx", stages=[CHUNK])
    rows = Store(tmp_path / "idx").require_live().table("symbols").to_pylist()
    areas = [r for r in rows if r["qualname"] == "Shapes.area"]
    assert len(areas) == 2 and areas[0]["symbol_id"] != areas[1]["symbol_id"]
    assert len({r["symbol_id"] for r in rows}) == len(rows)


def _empty(*names: str) -> StageResult:
    return StageResult(tables={n: artifact(n).schema.empty_table() for n in names})


def _waiting_pair(seen: dict[str, bool], patience: float) -> tuple[Stage, Stage]:
    """Two stages that read nothing from each other; each says whether the other had started
    while it ran (each waits up to `patience` seconds for it)."""
    started = {"a": threading.Event(), "b": threading.Event()}

    def side(me: str, other: str, outputs: tuple[str, ...]):
        def run(ctx):
            started[me].set()
            seen[me] = started[other].wait(patience)
            return _empty(*outputs)

        return run

    a = Stage(name="a", run=side("a", "b", ("commits", "touches")), outputs=("commits", "touches"))
    b = Stage(name="b", run=side("b", "a", ("blame",)), inputs=("symbols",), outputs=("blame",))
    return a, b


def test_stages_whose_inputs_are_ready_run_side_by_side(repo) -> None:
    seen: dict[str, bool] = {}
    a, b = _waiting_pair(seen, patience=30.0)
    report = run_index(repo.path, stages=[CHUNK, a, b], jobs=2)
    assert seen == {"a": True, "b": True}
    # the report keeps the graph's order whatever finished first
    assert [s.name for s in report.stages] == ["chunk", "a", "b"]


def test_one_job_runs_one_stage_at_a_time(repo) -> None:
    seen: dict[str, bool] = {}
    a, b = _waiting_pair(seen, patience=0.3)
    run_index(repo.path, stages=[CHUNK, a, b], jobs=1)
    # whichever ran first waited in vain; the second found the first had run
    assert sorted(seen.values()) == [False, True]


def _waiting_trio(seen: dict[str, bool], child: bool) -> list[Stage]:
    """Three stages that read nothing from each other; each says whether both others had
    started while it ran; `c` declares that its work runs in a child process."""
    names = ("a", "b", "c")
    started = {n: threading.Event() for n in names}

    def side(me: str, outputs: tuple[str, ...]):
        def run(ctx):
            started[me].set()
            seen[me] = all(started[n].wait(2.0) for n in names if n != me)
            return _empty(*outputs)

        return run

    return [
        Stage(name="a", run=side("a", ("commits", "touches")), outputs=("commits", "touches")),
        Stage(name="b", run=side("b", ("blame",)), inputs=("symbols",), outputs=("blame",)),
        Stage(
            name="c",
            run=side("c", ("memories",)),
            inputs=("symbols",),
            outputs=("memories",),
            child=child,
        ),
    ]


def _counted_trio(peak: list[int]) -> list[Stage]:
    """Three stages like `_waiting_trio`'s, none marked as working in a child: `peak[0]` ends
    as the most that ran at once. Each waits (a while at most) for a second one to be running,
    so two that can run together are seen together however late the second starts."""
    lock = threading.Lock()
    running = [0]
    two = threading.Event()

    def side(outputs: tuple[str, ...]):
        def run(ctx):
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
                if running[0] >= 2:
                    two.set()
            two.wait(5.0)
            time.sleep(0.05)
            with lock:
                running[0] -= 1
            return _empty(*outputs)

        return run

    return [
        Stage(name="a", run=side(("commits", "touches")), outputs=("commits", "touches")),
        Stage(name="b", run=side(("blame",)), inputs=("symbols",), outputs=("blame",)),
        Stage(name="c", run=side(("memories",)), inputs=("symbols",), outputs=("memories",)),
    ]


def test_a_stage_starts_while_the_table_it_reads_is_written(repo, monkeypatch) -> None:
    """`b` reads `a`'s table: it starts once `a` has returned it, while `a`'s file is still
    being written. After a new commit `a` runs again and returns the same table: `b`, which
    started before that was known, is carried over all the same."""
    b_started = threading.Event()
    seen: list[bool] = []  # per run of `b`: whether `a`'s file was still being written
    writing = threading.Event()

    def a_run(ctx):
        return _empty("commits", "touches")

    def b_run(ctx):
        b_started.set()
        seen.append(writing.is_set())
        return _empty("blame")

    write_table = GenerationWriter.write_table

    def slow_write(self, name, table):
        if name == "commits":  # held until `b` has started (30 s at most: then the test fails)
            writing.set()
            b_started.wait(30.0)
        info = write_table(self, name, table)
        writing.clear()
        return info

    monkeypatch.setattr(GenerationWriter, "write_table", slow_write)
    a = Stage(name="a", run=a_run, outputs=("commits", "touches"), source="head")
    b = Stage(name="b", run=b_run, inputs=("commits",), outputs=("blame",))
    first = run_index(repo.path, stages=[CHUNK, a, b], jobs=2)
    assert seen == [True] and not first.stage("b").skipped
    store = Store(repo.path / ".strata")
    before = store.require_live().manifest.stages["b"]
    b_started.clear()
    repo.commit("docs: more", {"README.md": "# demo\n\nmore\n"})
    second = run_index(repo.path, stages=[CHUNK, a, b], jobs=2)
    assert not second.stage("a").skipped  # a new HEAD: `a` runs, and makes the same table
    assert seen == [True, True] and second.stage("b").skipped
    after = store.require_live().manifest.stages["b"]
    assert after.fingerprint == before.fingerprint and after.outputs == before.outputs


def test_a_stage_working_in_a_child_process_takes_no_place(repo) -> None:
    seen: dict[str, bool] = {}
    run_index(repo.path, stages=[CHUNK, *_waiting_trio(seen, child=True)], jobs=2)
    assert seen == {"a": True, "b": True, "c": True}
    # without the mark, two jobs run two stages at once, never three (counted, not timed: a
    # loaded machine may start the second late)
    peak = [0]
    run_index(repo.path, stages=[CHUNK, *_counted_trio(peak)], jobs=2, rebuild=True)
    assert peak == [2]


def test_a_failure_waits_for_the_stages_still_running(repo) -> None:
    run_index(repo.path, stages=[CHUNK])
    store = Store(repo.path / ".strata")
    before = store.current_name()
    slow_started, slow_done = threading.Event(), threading.Event()

    def slow(ctx):
        slow_started.set()
        time.sleep(0.5)
        result = _empty("blame")
        slow_done.set()
        return result

    def boom(ctx):
        assert slow_started.wait(30.0)
        raise ValueError("disk on fire")

    failing = Stage(name="a", run=boom, outputs=("commits", "touches"))
    sibling = Stage(name="b", run=slow, inputs=("symbols",), outputs=("blame",))
    with pytest.raises(StageError, match="disk on fire"):
        run_index(repo.path, stages=[CHUNK, failing, sibling], rebuild=True, jobs=2)
    # the sibling finished before the error came out, and its temp folder went with the run's
    assert slow_done.is_set()
    assert store.current_name() == before
    assert not list(store.root.glob(".tmp-*"))
