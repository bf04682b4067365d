"""Indexing beyond one process: executors side by side, Ray's cost per work unit, and a
developer's index started from a CI-prebuilt generation.

    python -m gitstrata.benchmarks.scaleout [--commits 100000] [--files 3000] [--runs 1]
                                            [--no-ray] [--json]

On a generated history (`history_speed.make_synthetic`: `--commits` commits over `--files`
Python modules), through the CLI a user runs:

- a full `gitstrata index` with the local executor at 1 and at 2 workers, and with
  `--executor ray` on a local Ray runtime on the same machine: wall time, commits per second,
  the per-file and per-range stages (chunk, capsule, blame); every run must publish the same
  tables (checked by the manifests' checksums);
- Ray's overhead per work unit: `map_units` over trivial units, against running them inline;
- the prebuilt path: CI indexed the commit before HEAD; `gitstrata index --from CI_INDEX` at
  HEAD (what `make index FROM=...` runs) against a full index at HEAD.

Medians over `--runs`. On a machine with other work running the ratios are what to read.
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..store.generations import Store
from .history_speed import make_synthetic
from .index_speed import log, run_index

STAGES = ("chunk", "capsule", "blame")


def checksums(out: Path) -> dict[str, str]:
    gen = Store(out).require_live()
    return {
        name: info.sha256
        for rec in gen.manifest.stages.values()
        for name, info in rec.outputs.items()
        if info.format != "dir"
    }


def _row(label: str, runs: list[dict[str, Any]], commits: int) -> dict[str, Any]:
    wall = statistics.median(r["wall_seconds"] for r in runs)
    return {
        "executor": label,
        "wall_seconds": round(wall, 2),
        "commits_per_second": round(commits / wall, 1) if wall else None,
        "cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in runs), 1),
        "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
        "stages": {
            s: round(statistics.median(r["stages"].get(s, {}).get("seconds", 0.0) for r in runs), 2)
            for s in STAGES
        },
    }


def ray_unit_overhead(units: int = 200) -> dict[str, Any]:
    """Milliseconds per trivial work unit on a local Ray runtime, against inline."""
    from ..pipeline.executor import Executor, make_executor

    t0 = time.perf_counter()
    ex = make_executor("ray", jobs=2)
    startup = time.perf_counter() - t0
    try:
        list(ex.map_units(operator.neg, range(10)))  # workers up
        t0 = time.perf_counter()
        list(ex.map_units(operator.neg, range(units)))
        ray_s = time.perf_counter() - t0
    finally:
        ex.close()
    t0 = time.perf_counter()
    list(Executor().map_units(operator.neg, range(units)))
    inline_s = time.perf_counter() - t0
    return {
        "units": units,
        "startup_seconds": round(startup, 2),
        "ms_per_unit": round((ray_s - inline_s) / units * 1000, 3),
    }


def measure(
    commits: int, files: int, *, runs: int = 1, ray: bool = True, keep: Path | None = None
) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="gitstrata-scaleout-", dir=keep))
    try:
        log(f"generating {commits} commits over {files} files")
        repo = make_synthetic(tmp / "repo", commits, files=files)
        configs: list[tuple[str, int, tuple[str, ...]]] = [("local, 1 worker", 1, ()),
                                                           ("local, 2 workers", 2, ())]  # fmt: skip
        if ray:
            configs.append(("ray (local runtime, 2 CPUs)", 2, ("--executor", "ray")))
        rows: list[dict[str, Any]] = []
        sums: dict[str, dict[str, str]] = {}
        for label, jobs, extra in configs:
            done = []
            for k in range(runs):
                out = tmp / f"index-{len(rows)}-{k}"
                log(f"{label}: full index {k + 1}/{runs}")
                done.append(run_index(repo, out, jobs, extra))
                sums[label] = checksums(out)
                shutil.rmtree(out)
            rows.append(_row(label, done, commits))
        reference = next(iter(sums.values()))
        identical = all(s == reference for s in sums.values())
        # CI built the commit before HEAD; the developer starts from it
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout.strip()
        subprocess.run(["git", "checkout", "-q", "HEAD~1"], cwd=repo, check=True)
        log("CI: index at HEAD~1")
        run_index(repo, tmp / "ci", 2)
        subprocess.run(["git", "checkout", "-q", head], cwd=repo, check=True)
        prebuilt, full = [], []
        for k in range(runs):
            log(f"developer: --from the CI index {k + 1}/{runs}")
            prebuilt.append(run_index(repo, tmp / f"dev-{k}", 2, ("--from", str(tmp / "ci"))))
            log(f"developer: full index {k + 1}/{runs}")
            full.append(run_index(repo, tmp / f"full-{k}", 2))
        # the same run on the CI index's own folder: --from must change nothing else
        shutil.copytree(tmp / "ci", tmp / "own", symlinks=True)
        run_index(repo, tmp / "own", 2)
        dev, own, whole = (
            checksums(tmp / "dev-0"),
            checksums(tmp / "own"),
            checksums(tmp / "full-0"),
        )
        result: dict[str, Any] = {
            "commits": commits,
            "files": files,
            "runs": runs,
            "executors": rows,
            "identical_tables": identical,
            "prebuilt": {
                "from_prebuilt_seconds": round(
                    statistics.median(r["wall_seconds"] for r in prebuilt), 2
                ),
                "full_seconds": round(statistics.median(r["wall_seconds"] for r in full), 2),
                "same_as_incremental": dev == own,
                "differs_from_full": sorted(k for k in dev if dev[k] != whole.get(k)),
            },
            "cpus": os.cpu_count(),
            "load_average": round(os.getloadavg()[0], 2),
        }
        if ray:
            result["ray_overhead"] = ray_unit_overhead()
        return result
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def table(result: dict[str, Any]) -> str:
    lines = [
        f"Synthetic history: {result['commits']:,} commits over {result['files']:,} files; "
        f"{result['cpus']} CPUs, load average {result['load_average']} at the end; medians of "
        f"{result['runs']} run(s). Same tables from every executor: "
        f"{'yes' if result['identical_tables'] else 'NO'}.",
        "",
        "| executor | wall s | commits/s | CPU s | peak RSS MB | chunk s | capsule s | blame s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in result["executors"]:
        st = r["stages"]
        lines.append(
            f"| {r['executor']} | {r['wall_seconds']} | {r['commits_per_second']} | "
            f"{r['cpu_seconds']} | {r['peak_rss_mb']} | {st['chunk']} | {st['capsule']} | "
            f"{st['blame']} |"
        )
    if "ray_overhead" in result:
        o = result["ray_overhead"]
        lines += ["", f"Ray: {o['startup_seconds']} s to start a local runtime; "
                  f"{o['ms_per_unit']} ms overhead per work unit ({o['units']} trivial units)."]  # fmt: skip
    p = result["prebuilt"]
    ratio = p["full_seconds"] / p["from_prebuilt_seconds"] if p["from_prebuilt_seconds"] else 0
    lines += [
        "",
        f"Starting from a CI-prebuilt generation one commit behind: {p['from_prebuilt_seconds']} s "
        f"against {p['full_seconds']} s for a full index ({ratio:.0f}x faster). Same tables as an "
        f"incremental run on the CI index's own folder: "
        f"{'yes' if p['same_as_incremental'] else 'NO'}; tables that differ from a full index: "
        f"{', '.join(p['differs_from_full']) or 'none'}"
        + (
            " (an incremental run keeps the embedder fitted on the older history until 30 % of "
            "the documents are new)"
            if p["differs_from_full"]
            else ""
        )
        + ".",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gitstrata.benchmarks.scaleout")
    ap.add_argument("--commits", type=int, default=100_000)
    ap.add_argument("--files", type=int, default=3_000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--no-ray", action="store_true", help="skip the Ray executor")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    ray = not args.no_ray
    if ray:
        try:
            import ray as _ray  # noqa: F401
        except ImportError:
            print(
                "scaleout: Ray is not installed; measuring the local executor only", file=sys.stderr
            )
            print("  hint: pip install 'gitstrata[ray]'", file=sys.stderr)
            ray = False
    result = measure(args.commits, args.files, runs=args.runs, ray=ray)
    print(json.dumps(result, indent=2) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
