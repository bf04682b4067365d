"""Speed, memory and size of `gitstrata index` on real repositories, against raw `git log`.

    python -m gitstrata.benchmarks.index_speed [REPO_OR_BUNDLE ...] [--runs N] [--json]
                                               [--incremental-runs N]
                                               [--repos click,ripgrep] [--jobs N]
                                               [--synthetic 25000,50000,100000]

With no repository given it uses `../shared/repos/*.bundle` beside the checkout when present.
Each repository is cloned into a temp folder, and everything is measured there, through the
CLI a user runs (`python -m gitstrata index --progress jsonl`):

- the floor: wall time of raw `git log -p -U0 --no-merges -M` read through a pipe;
- a full index from scratch: wall time, and per stage its wall time and the peak resident
  memory of the whole process tree (the CLI and its workers, summed, sampled every 50 ms; the
  stage boundaries come from the run's own JSON-lines progress events); the summed RSS counts a
  page the CLI shares with its forked workers once per process, so the run's peak proportional
  set size (shared pages split between their processes, sampled every 0.5 s) is given beside it;
- the ratio of the full index to the floor (target: at most 20x);
- the index folder's size on disk against the repository's `.git` (target: at most 1x), and
  each artifact's share of it (and the largest files inside folder artifacts); also its size
  after one `gitstrata query` answered from it, with the mapped copies that answer wrote (the
  incremental runs then start from an index that has them, as a served one does);
- an incremental index after one new commit that edits one source file (target: under 2 s),
  wall and CPU time (`--incremental-runs N` measures N of them after each full index). The
  CLI runs with its bytecode cached, as an installed package's is (`PYTHONDONTWRITEBYTECODE`
  is not passed on: it would make every run compile the package from source).

Medians over `--runs` full and incremental runs (the floor is timed as often). With
`--synthetic N,N,...` it also indexes generated histories of those sizes
(`history_speed.make_synthetic`) and fits each stage's time to `a * commits^k` (k = 1 is
linear); that is slow and therefore opt-in.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from ..pipeline.gitio import git_env
from ..store.generations import Store
from ..store.progress import ProgressEvent, decode
from .history_speed import RAW_LOG, make_synthetic
from .real import default_sources, pick_repos, repo_name

TARGET_RATIO = 20.0
TARGET_INCREMENTAL_S = 2.0
SAMPLE_S = 0.05
PSS_EVERY = 10  # proportional set size is read every 10th sample: it costs ~5 ms a process
COMMENT = {".py": "#", ".rb": "#", ".sh": "#", ".toml": "#", ".yml": "#", ".yaml": "#"}


def log(msg: str) -> None:
    print(f"index_speed: {msg}", file=sys.stderr, flush=True)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=git_env()
    ).stdout


def clone(source: Path, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(source), str(dest)], check=True, capture_output=True)
    return dest


def disk_bytes(path: Path) -> int:
    """Bytes the files under `path` (or the file `path`) occupy (hard links counted once)."""
    if path.is_file():
        return path.stat().st_blocks * 512
    seen: set[tuple[int, int]] = set()
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            st = os.lstat(os.path.join(root, name))
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total


def time_git_log(repo: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.Popen(["git", *RAW_LOG], cwd=repo, stdout=subprocess.PIPE, env=git_env())
    assert isinstance(proc.stdout, io.BufferedReader)
    while proc.stdout.read1(1 << 20):
        pass
    proc.wait()
    return time.perf_counter() - t0


def _children_cpu() -> float:
    """CPU seconds of this process's finished (waited-for) children and their descendants."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _tree(proc: Any) -> tuple[int, float]:
    """(resident bytes, CPU seconds) of a process and its descendants: live ones, plus the
    finished children it has waited for."""
    import psutil

    rss, cpu = 0, 0.0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0, 0.0
    for k, p in enumerate(procs):
        try:
            rss += p.memory_info().rss
            t = p.cpu_times()
            cpu += t.user + t.system + (t.children_user + t.children_system if k == 0 else 0.0)
        except psutil.Error:
            pass
    return rss, cpu


def _tree_pss(proc: Any) -> int:
    """Proportional set size of a process and its descendants: a page shared by the CLI and
    its forked workers (libraries, copy-on-write data) counts once in total, where the sum of
    their RSS counts it once per process."""
    import psutil

    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_full_info().pss
        except (psutil.Error, AttributeError):
            pass
    return total


def run_index(
    repo: Path, out: Path, jobs: int | None = None, extra: tuple[str, ...] = ()
) -> dict[str, Any]:
    """One `gitstrata index` through the CLI (with `extra` arguments): wall time, per-stage
    wall time and peak RSS."""
    import psutil

    cmd = [sys.executable, "-m", "gitstrata", "index", str(repo), "--out", str(out)]
    cmd += ["--progress", "jsonl"] + (["--jobs", str(jobs)] if jobs else []) + list(extra)
    # bytecode cached as for an installed package: with PYTHONDONTWRITEBYTECODE inherited, every
    # run would compile the package's modules from source again (~0.3-0.5 s of CPU per run)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["NO_COLOR"] = "1"
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
    )
    ps = psutil.Process(proc.pid)
    current = ["(start)"]
    stages: dict[str, dict[str, Any]] = {}
    peak = [0]
    tail: list[str] = []
    lock = threading.Lock()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            event = decode(line)
            if not isinstance(event, ProgressEvent) or event.step != "index" or not event.stage:
                tail[:] = [*tail[-9:], line.rstrip()]
                continue
            now = time.perf_counter()
            rss, cpu = _tree(ps)
            with lock:
                if event.total and event.done < event.total and event.stage not in stages:
                    current[0] = event.stage
                    stages[event.stage] = {"started": now, "peak_rss": rss, "cpu0": cpu}
                elif event.stage in stages:
                    rec = stages[event.stage]
                    rec["seconds"] = now - rec["started"]
                    rec["cpu"] = max(0.0, cpu - rec["cpu0"])
                    rec["peak_rss"] = max(rec["peak_rss"], rss)
                    current[0] = "(between)"

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    peak_pss, samples = 0, 0
    while proc.poll() is None:
        rss, _cpu = _tree(ps)
        samples += 1
        if samples % PSS_EVERY == 0:
            peak_pss = max(peak_pss, _tree_pss(ps))
        with lock:
            peak[0] = max(peak[0], rss)
            if current[0] in stages:
                rec = stages[current[0]]
                rec["peak_rss"] = max(rec["peak_rss"], rss)
        time.sleep(SAMPLE_S)
    wall = time.perf_counter() - t0
    reader.join()
    if proc.returncode != 0:
        raise RuntimeError(f"gitstrata index failed ({proc.returncode}): {' | '.join(tail)}")
    gen = Store(out).live()
    assert gen is not None
    manifest = gen.manifest
    per_stage = {
        name: {
            "seconds": round(manifest.timings.get(name, rec.get("seconds", 0.0)), 3),
            "cpu_seconds": round(rec.get("cpu", 0.0), 2),
            "peak_rss_mb": round(rec["peak_rss"] / 2**20, 1),
            "skipped": manifest.stages[name].skipped if name in manifest.stages else None,
        }
        for name, rec in stages.items()
    }
    return {
        "wall_seconds": round(wall, 3),
        "cpu_seconds": round(_children_cpu() - cpu0, 2),
        "peak_rss_mb": round(peak[0] / 2**20, 1),
        "peak_pss_mb": round(peak_pss / 2**20, 1),
        "stages": per_stage,
    }


def _source_file(repo: Path) -> Path:
    """A source file HEAD touched (the kind of file a next commit edits), else any tracked one."""
    names = [n for n in git(repo, "show", "--name-only", "--format=", "HEAD").splitlines() if n]
    names += [n for n in git(repo, "ls-files").splitlines() if n]
    exts = (".py", ".go", ".rs", ".js", ".ts", ".java", ".c")
    for name in names:
        if name.endswith(exts) and (repo / name).is_file():
            return repo / name
    return repo / next(n for n in names if (repo / n).is_file())


def new_commit(repo: Path, k: int) -> None:
    path = _source_file(repo)
    mark = COMMENT.get(path.suffix, "//")
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"\n{mark} index_speed: one more line ({k})\n")
    git(repo, "add", "-A")
    git(
        repo,
        "-c",
        "user.name=Bench",
        "-c",
        "user.email=bench@example.com",
        "commit",
        "-q",
        "-m",
        f"fix: one more line ({k})",
    )


def _median_stages(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    names = list(runs[0]["stages"])
    return {
        n: {
            "seconds": round(statistics.median(r["stages"][n]["seconds"] for r in runs), 3),
            "cpu_seconds": round(statistics.median(r["stages"][n]["cpu_seconds"] for r in runs), 2),
            "peak_rss_mb": round(max(r["stages"][n]["peak_rss_mb"] for r in runs), 1),
            "skipped": runs[-1]["stages"][n]["skipped"],
        }
        for n in names
        if all(n in r["stages"] for r in runs)
    }


def artifact_sizes(out: Path) -> dict[str, float]:
    """MB on disk of each artifact of the live generation (folders summed), largest first."""
    gen = Store(out).live()
    assert gen is not None
    sizes = {
        name: disk_bytes(gen.path / info.file) / 2**20
        for rec in gen.manifest.stages.values()
        for name, info in rec.outputs.items()
    }
    return {k: round(v, 2) for k, v in sorted(sizes.items(), key=lambda kv: -kv[1])}


def folder_file_sizes(out: Path, min_mb: float = 0.05) -> dict[str, float]:
    """MB on disk of the files inside the live generation's folder artifacts (the embedder's
    arrays, the full-text index's segments and term cache), `min_mb` or more, largest first."""
    gen = Store(out).live()
    assert gen is not None
    sizes = {}
    for rec in gen.manifest.stages.values():
        for name, info in rec.outputs.items():
            folder = gen.path / info.file
            if info.format != "dir" or not folder.is_dir():
                continue
            for f in folder.rglob("*"):
                mb = disk_bytes(f) / 2**20 if f.is_file() else 0.0
                if mb >= min_mb:
                    sizes[f"{name}/{f.relative_to(folder)}"] = mb
    return {k: round(v, 2) for k, v in sorted(sizes.items(), key=lambda kv: -kv[1])}


def served_size(repo: Path, out: Path) -> int:
    """Bytes of the index at `out` after one `gitstrata query` process answered from it: the
    first serving process writes uncompressed mapped copies of the tables it reads beside
    them, which stay on disk."""
    cmd = [sys.executable, "-m", "gitstrata", "-C", str(repo), "query", "fix", "--out", str(out)]
    subprocess.run(cmd, capture_output=True, check=False)
    return disk_bytes(out)


def measure_repo(
    source: Path, *, runs: int = 1, jobs: int | None = None, incremental_runs: int | None = None
) -> dict[str, Any]:
    """`runs` full indexes, each followed by `incremental_runs` (default 1) incremental ones,
    every one after one more new commit."""
    per_full = max(1, incremental_runs or 1)
    with tempfile.TemporaryDirectory(prefix="gitstrata-index-speed-") as tmp:
        repo = clone(source, Path(tmp) / "r")
        commits = int(git(repo, "rev-list", "--count", "--no-merges", "HEAD"))
        git_bytes = disk_bytes(repo / ".git")
        floor = statistics.median(time_git_log(repo) for _ in range(runs))
        full_runs, incr_runs = [], []
        index_bytes = served_bytes = 0
        sizes: dict[str, float] = {}
        inner: dict[str, float] = {}
        for k in range(runs):
            out = Path(tmp) / f"index-{k}"
            log(f"{repo_name(source)}: full index {k + 1}/{runs}")
            full_runs.append(run_index(repo, out, jobs))
            index_bytes = disk_bytes(out)
            sizes = artifact_sizes(out)
            inner = folder_file_sizes(out)
            served_bytes = served_size(repo, out)
            for j in range(per_full):
                new_commit(repo, k * per_full + j)
                log(f"{repo_name(source)}: incremental index {j + 1}/{per_full} after full {k + 1}")
                incr_runs.append(run_index(repo, out, jobs))
            # the next full run starts from the original history again
            git(repo, "reset", "-q", "--hard", f"HEAD~{per_full}")
        full = statistics.median(r["wall_seconds"] for r in full_runs)
        incr = statistics.median(r["wall_seconds"] for r in incr_runs)
        return {
            "repo": repo_name(source),
            "commits": commits,
            "runs": runs,
            "git_log_seconds": round(floor, 3),
            "index_seconds": round(full, 3),
            "index_cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in full_runs), 2),
            "ratio_to_git_log": round(full / floor, 1) if floor else None,
            "ratio_target": TARGET_RATIO,
            "peak_rss_mb": max(r["peak_rss_mb"] for r in full_runs),
            "peak_pss_mb": max(r["peak_pss_mb"] for r in full_runs),
            "stages": _median_stages(full_runs),
            "git_dir_mb": round(git_bytes / 2**20, 1),
            "index_mb": round(index_bytes / 2**20, 1),
            "size_ratio": round(index_bytes / git_bytes, 2) if git_bytes else None,
            # after one answer: the mapped copies the first serving process writes beside it
            "served_index_mb": round(served_bytes / 2**20, 1),
            "served_size_ratio": round(served_bytes / git_bytes, 2) if git_bytes else None,
            "artifact_mb": sizes,
            "folder_files_mb": inner,
            "incremental_seconds": round(incr, 3),
            "incremental_runs": len(incr_runs),
            # CPU is what the load of a shared machine stretches least
            "incremental_cpu_seconds": round(
                statistics.median(r["cpu_seconds"] for r in incr_runs), 2
            ),
            "incremental_target_seconds": TARGET_INCREMENTAL_S,
            "incremental_stages": _median_stages(incr_runs),
            "load_average": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(),
        }


def fit_exponent(sizes: list[int], seconds: list[float]) -> float | None:
    """Least-squares slope of log(seconds) on log(size): the k of seconds ~ size^k."""
    pts = [(math.log(n), math.log(s)) for n, s in zip(sizes, seconds, strict=True) if s > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return round(sum((x - mx) * (y - my) for x, y in pts) / den, 2) if den else None


def measure_growth(sizes: list[int], jobs: int | None = None) -> dict[str, Any]:
    points = []
    with tempfile.TemporaryDirectory(prefix="gitstrata-index-growth-") as tmp:
        for n in sizes:
            repo = make_synthetic(Path(tmp) / f"syn-{n}", n)
            log(f"synthetic {n}: full index")
            run = run_index(repo, Path(tmp) / f"index-{n}", jobs)
            run["commits"] = n
            run["git_log_seconds"] = round(time_git_log(repo), 3)
            points.append(run)
    names = [n for n in points[0]["stages"] if all(n in p["stages"] for p in points)]
    exponents = {n: fit_exponent(sizes, [p["stages"][n]["seconds"] for p in points]) for n in names}
    exponents["total"] = fit_exponent(sizes, [p["wall_seconds"] for p in points])
    return {"sizes": sizes, "points": points, "exponents": exponents}


def _table(results: list[dict[str, Any]]) -> str:
    lines = []
    for r in results:
        if "error" in r:
            lines.append(f"{r['repo']}: FAILED {r['error']}")
            continue
        lines.append(
            f"{r['repo']}: {r['commits']} commits, git log {r['git_log_seconds']:.2f} s, "
            f"index {r['index_seconds']:.1f} s ({r['ratio_to_git_log']}x, target "
            f"{TARGET_RATIO:.0f}x), peak RSS {r['peak_rss_mb']:.0f} MB (PSS "
            f"{r['peak_pss_mb']:.0f} MB), index "
            f"{r['index_mb']} MB / .git {r['git_dir_mb']} MB ({r['size_ratio']}x; "
            f"{r['served_index_mb']} MB after one answer), incremental "
            f"{r['incremental_seconds']:.2f} s (CPU {r['incremental_cpu_seconds']:.2f} s)"
        )
        lines.append(
            "  largest artifacts: "
            + ", ".join(f"{n} {mb} MB" for n, mb in list(r["artifact_mb"].items())[:6])
        )
        lines.append(
            "  largest files in folders: "
            + ", ".join(f"{n} {mb} MB" for n, mb in list(r["folder_files_mb"].items())[:4])
        )
        for name, s in r["stages"].items():
            inc = r["incremental_stages"].get(name, {})
            lines.append(
                f"  {name:<10} {s['seconds']:8.2f} s  (CPU {s['cpu_seconds']:7.2f} s) "
                f"{s['peak_rss_mb']:7.0f} MB   "
                f"incremental {inc.get('seconds', 0):6.2f} s"
                + (" (carried)" if inc.get("skipped") else "")
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="index_speed", description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("sources", nargs="*", type=Path, metavar="REPO_OR_BUNDLE")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--runs", type=int, default=1, help="full and incremental runs per repository")
    ap.add_argument(
        "--incremental-runs",
        type=int,
        default=None,
        help="incremental runs after each full one, each after one more commit (default 1)",
    )
    ap.add_argument("--jobs", type=int, default=None, help="passed to gitstrata index --jobs")
    ap.add_argument("--repos", default=None, help="only these bundles (comma separated names)")
    ap.add_argument(
        "--synthetic",
        default=None,
        metavar="N,N,...",
        help="also index synthetic histories of these sizes and fit each stage's growth",
    )
    args = ap.parse_args(argv)
    try:  # peak memory and CPU of the indexing process tree
        import psutil  # noqa: F401
    except ImportError:
        print("index_speed: needs psutil, one of the benchmark extras", file=sys.stderr)
        print('  hint: pip install -e ".[bench]" (or run `make bench`)', file=sys.stderr)
        return 2
    # `--synthetic` alone measures only the synthetic histories
    bundles = [] if args.synthetic and not args.repos else default_sources()
    sources = list(args.sources) or bundles
    picked = pick_repos(sources, args.repos, "index_speed")
    if picked is None:
        return 2
    sources = picked
    if not sources and not args.synthetic:
        log("no repositories given and no ../shared/repos/*.bundle; skipped")
        return 0
    for s in sources:
        if not s.exists():
            print(f"index_speed: {s} does not exist", file=sys.stderr)
            print("  hint: pass a git repository or a .bundle file", file=sys.stderr)
            return 2
    sizes: list[int] = []
    if args.synthetic:
        try:
            sizes = [int(x) for x in args.synthetic.split(",") if x.strip()]
        except ValueError:
            print(f"index_speed: --synthetic {args.synthetic!r} is not a list", file=sys.stderr)
            print("  hint: e.g. --synthetic 25000,50000,100000", file=sys.stderr)
            return 2
    results: list[dict[str, Any]] = []
    for s in sources:
        try:
            results.append(
                measure_repo(
                    s,
                    runs=max(1, args.runs),
                    jobs=args.jobs,
                    incremental_runs=args.incremental_runs,
                )
            )
        except (RuntimeError, subprocess.CalledProcessError) as exc:
            results.append({"repo": repo_name(s), "error": str(exc)})
        if not args.json:
            print(_table(results[-1:]), flush=True)
    growth = measure_growth(sizes, args.jobs) if sizes else None
    if args.json:
        print(json.dumps({"repositories": results, "growth": growth, "cpus": os.cpu_count()}))
    elif growth:
        print("growth exponents (seconds ~ commits^k):")
        for name, k in growth["exponents"].items():
            print(f"  {name:<10} k = {k}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
