"""The `blame` stage with line owners read from the history, against `git blame`, in one run.

    python -m gitstrata.benchmarks.blame_speed [REPO_OR_BUNDLE ...] [--repos click,ky]
                                               [--runs N] [--synthetic N] [--json]

With no repository given it uses `../shared/repos/*.bundle` beside the checkout. Each one is
cloned into a temp folder. Per repository, alternated `--runs` times, the stages `blame` needs
(`chunk`, `capsule`, `blame`) index it into a new folder twice: with
`index.blame_from_history` on (the files whose owners the `hunks` table tells are read from
it, the rest go to `git blame`) and off (every file to `git blame`). Reported: the `blame`
stage's wall time each way (medians), how many files the history told, whether the two `blame`
tables are equal in every run, and, file by file, the history's owners against `git blame
--porcelain` line by line (with the time each took for those files, one file at a time).
`--synthetic N` adds a generated history of N commits (`history_speed.make_synthetic`); given
alone, it measures that history only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..pipeline.gitio import Git
from ..pipeline.history import blame_file, history_blames, line_history
from ..pipeline.registry import default_stages
from ..pipeline.runner import run_index
from ..store.config import Config
from ..store.generations import Store
from .history_speed import make_synthetic
from .real import clone, default_sources, pick_repos, repo_name

STAGES = ("chunk", "capsule", "blame")


def index_blame(repo: Path, out: Path, from_history: bool) -> tuple[float, dict, Any]:
    """(the blame stage's wall seconds, its stats, the generation) of an index of `repo` into
    `out` by the stages blame needs."""
    stages = [s for s in default_stages() if s.name in STAGES]
    config = Config.model_validate({"index": {"blame_from_history": from_history}})
    report = run_index(repo, out, stages=stages, config=config)
    stage = report.stage("blame")
    assert stage is not None
    return stage.seconds, stage.stats, Store(out).require_live()


def line_check(repo: Path, gen: Any) -> dict[str, Any]:
    """The history's owners of every file it tells, against `git blame` line by line."""
    git = Git(repo)
    head = git.require_head()
    symbols = set(gen.table("symbols", columns=["path"])["path"].to_pylist())
    files = gen.table("files", columns=["path", "blob", "status"]).to_pylist()
    todo = [(f["path"], f["blob"]) for f in files if f["status"] == "indexed"]
    todo = [(p, b) for p, b in todo if p in symbols]
    t0 = time.perf_counter()
    read = line_history(git, head, gen.table("hunks"), gen.table("commits"))
    assert read is not None
    history, times = read
    tellable, needed = history.plan(todo, head)
    told = [
        fb
        for _, fb in history_blames(
            git, head, history, times, [(p, b, None) for p, b in tellable], needed
        )
        if fb is not None
    ]
    history_s = time.perf_counter() - t0
    lines = differing = 0
    differing_files: list[str] = []
    t0 = time.perf_counter()
    for fb in told:
        ref = blame_file(git, fb.path, fb.blob, head)
        want = [ref.shas[k] for k in ref.line_commit]
        got = [fb.shas[k] for k in fb.line_commit]
        lines += len(want)
        bad = sum(a != b for a, b in zip(want, got, strict=False)) + abs(len(want) - len(got))
        differing += bad
        if bad:
            differing_files.append(fb.path)
    return {
        "files": len(todo),
        "told": len(told),
        "lines_compared": lines,
        "lines_differing": differing,
        "differing_files": differing_files[:10],
        "history_s": round(history_s, 3),
        "git_blame_s": round(time.perf_counter() - t0, 3),
    }


def measure(repo: Path, runs: int, work: Path) -> dict[str, Any]:
    git = Git(repo)
    commits = int(git.run("rev-list", "--count", "--no-merges", "HEAD").strip())
    on_s: list[float] = []
    off_s: list[float] = []
    equal = True
    stats: dict = {}
    gen = None
    for k in range(runs):
        # alternated, the order swapped each round
        for flag in (True, False) if k % 2 == 0 else (False, True):
            seconds, st, g = index_blame(repo, work / f"{k}-{int(flag)}", flag)
            (on_s if flag else off_s).append(seconds)
            if flag:
                stats, gen = st, g
            else:
                off_table = g.table("blame")
        assert gen is not None
        equal = equal and gen.table("blame").equals(off_table)
    check = line_check(repo, gen)
    on, off = statistics.median(on_s), statistics.median(off_s)
    return {
        "repo": repo.name,
        "commits": commits,
        "runs": runs,
        "files": stats.get("files"),
        "from_history": stats.get("from_history"),
        "git_blamed": stats.get("blamed"),
        "blame_s_history": round(on, 3),
        "blame_s_git": round(off, 3),
        "speedup": round(off / on, 2) if on else None,
        "tables_equal": equal,
        "check": check,
    }


def markdown(results: list[dict[str, Any]]) -> str:
    out = [
        "| repository | commits | files | told by the history | `blame` s, git blame only "
        "| `blame` s, history first | speedup | tables equal | lines compared / differing |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        c = r["check"]
        out.append(
            f"| {r['repo']} | {r['commits']:,} | {r['files']} | {r['from_history']} "
            f"| {r['blame_s_git']:.2f} | {r['blame_s_history']:.2f} | {r['speedup']}x "
            f"| {'yes' if r['tables_equal'] else 'NO'} "
            f"| {c['lines_compared']:,} / {c['lines_differing']} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="blame_speed", description=__doc__.split("\n")[0])
    ap.add_argument("sources", nargs="*", type=Path, metavar="REPO_OR_BUNDLE")
    ap.add_argument("--repos", help="comma-separated names among the shared bundles")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--synthetic", type=int, default=0, metavar="N")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.runs < 1:
        print("blame_speed: --runs must be at least 1", file=sys.stderr)
        return 2
    # `--synthetic` alone measures the generated history only
    default = [] if args.synthetic and not args.repos else default_sources()
    sources = pick_repos(args.sources or default, args.repos, "blame_speed")
    if sources is None:
        return 2
    results = []
    with tempfile.TemporaryDirectory(prefix="gitstrata-blame-speed-") as tmp:
        root = Path(tmp)
        repos = []
        for source in sources:
            if not source.exists():
                print(f"blame_speed: no such repository or bundle: {source}", file=sys.stderr)
                return 2
            repos.append(clone(source, root / repo_name(source)))
        if args.synthetic:
            repos.append(make_synthetic(root / f"synthetic-{args.synthetic}", args.synthetic))
        for repo in repos:
            print(f"blame_speed: {repo.name}", file=sys.stderr, flush=True)
            results.append(measure(repo, args.runs, root / f"work-{repo.name}"))
    print(json.dumps(results, indent=1) if args.json else markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
