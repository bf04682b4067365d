"""History extraction speed: the `capsule` stage against its floor and its peer, in one run.

    python -m gitstrata.benchmarks.history_speed REPO [--json] [--max-commits N] [--runs 3] [--check]
    python -m gitstrata.benchmarks.history_speed --synthetic 20000 OUT

The floor is raw `git log -p -U0 --no-merges -M` read through a pipe (no parsing at all); the peer
is PyDriller reading the same commits' file diffs (`null` when PyDriller is not installed). The
capsule stage does strictly more: raw entries, hunk ranges, per-symbol attribution of every hunk
on both file versions, intent, and the Arrow tables. `--synthetic N OUT` writes a reproducible
Python repository with N commits through `git fast-import` (co-changing feature clusters,
bugfixes, renames, bulk reformat commits), for measuring at scale. `--check` also runs the
full-parse reference (every file version parsed whole) and reports whether the tables agree.
`--save-tables DIR` writes the stage's final tables (Arrow IPC) and `--same-as DIR` reports
whether this run's tables equal ones saved before, e.g. by the code before a change.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa

from ..pipeline.gitio import Git, git_env
from ..pipeline.history import extract_all, rev_list
from ..stages import capsule
from ..store.config import HistoryConfig

RAW_LOG = ("log", "-p", "-U0", "--no-merges", "-M", "--no-color")


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git subprocesses)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def time_git_log(git: Git, max_commits: int | None) -> tuple[float, float]:
    """(wall, CPU) seconds of the floor: raw `git log -p -U0` read through a pipe."""
    args = [git.exe, *RAW_LOG] + ([f"--max-count={max_commits}"] if max_commits else [])
    c0, t0 = _cpu(), time.perf_counter()
    proc = subprocess.Popen(args, cwd=git.root, stdout=subprocess.PIPE, env=git_env())
    assert isinstance(proc.stdout, io.BufferedReader)  # the default bufsize: has read1
    while proc.stdout.read1(1 << 20):
        pass
    proc.wait()
    return time.perf_counter() - t0, _cpu() - c0


def time_capsule(
    git: Git, shas: list[str], workers: int, tables: list | None = None
) -> tuple[float, float, dict]:
    """(wall, CPU, stats) of the capsule stage's extraction and final tables (appended to
    `tables` when given)."""
    cfg = HistoryConfig()
    c0, t0 = _cpu(), time.perf_counter()
    cs, ts, stats = extract_all(git, shas, cfg, workers=workers)
    commits, touches = capsule.finalize(cs, ts)
    stats["touches"] = touches.num_rows
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    if tables is not None:
        tables.extend((commits, touches))
    if stats.get("workers", 1) > 1:
        cpu += stats.get("cpu_seconds", 0.0)  # pool workers are not this process's children
    return wall, cpu, stats


def identity(git: Git, shas: list[str], *, examples: int = 5) -> dict:
    """The derived attribution against the full-parse reference (every version parsed) on the
    same commits: the tables must be equal row for row."""
    cfg = HistoryConfig()
    tables = []
    for full in (False, True):
        cs, ts, _ = extract_all(git, shas, cfg, workers=1, full_parse=full)
        tables.append(capsule.finalize(cs, ts))
    (fast_c, fast_t), (ref_c, ref_t) = tables
    fast_rows = fast_t.to_pylist()
    ref_rows = ref_t.to_pylist()
    fast_set = {tuple(sorted(r.items())) for r in fast_rows}
    ref_set = {tuple(sorted(r.items())) for r in ref_rows}
    only_fast = [dict(r) for r in fast_set - ref_set]
    only_ref = [dict(r) for r in ref_set - fast_set]

    def brief(rows: list[dict]) -> list[list]:
        rows = sorted(rows, key=lambda r: (r["sha"], r["path"], r["qualname"] or ""))
        return [[r["sha"][:10], r["path"], r["qualname"], r["added"], r["removed"]] for r in rows]

    return {
        "identical": fast_c.equals(ref_c) and fast_t.equals(ref_t),
        "touch_rows": len(ref_rows),
        "rows_only_derived": len(only_fast),
        "rows_only_reference": len(only_ref),
        "examples_derived": brief(only_fast)[:examples],
        "examples_reference": brief(only_ref)[:examples],
    }


TABLES = ("commits", "touches")


def save_tables(out: Path, tables: list) -> None:
    """The stage's final tables as Arrow IPC files in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    for name, table in zip(TABLES, tables, strict=True):
        with pa.ipc.new_file(out / f"{name}.arrow", table.schema) as w:
            w.write_table(table)


def same_as(saved: Path, tables: list) -> dict:
    """Whether each table equals the one `save_tables` wrote to `saved` (row for row)."""
    out: dict = {}
    for name, table in zip(TABLES, tables, strict=True):
        with pa.memory_map(str(saved / f"{name}.arrow")) as f:
            before = pa.ipc.open_file(f).read_all()
        out[name] = before.equals(table)
        out[f"{name}_rows"] = [before.num_rows, table.num_rows]
    out["identical"] = all(out[name] for name in TABLES)
    return out


def time_pydriller(root: Path, limit: int) -> tuple[float | None, int]:
    try:
        from pydriller import Repository
    except ImportError:
        return None, 0
    n = 0
    t0 = time.perf_counter()
    for commit in Repository(str(root), only_no_merge=True).traverse_commits():
        for m in commit.modified_files:
            _ = (m.added_lines, m.deleted_lines, m.diff)
        n += 1
        if n >= limit:
            break
    return time.perf_counter() - t0, n


def measure(
    repo: Path,
    *,
    max_commits: int | None = None,
    pydriller_limit: int = 2000,
    check: bool = False,
    save: Path | None = None,
    compare: Path | None = None,
) -> dict:
    git = Git(repo)
    head = git.require_head()
    shas = rev_list(git, head, max_count=max_commits)
    git_log_s, git_log_cpu = time_git_log(git, max_commits)
    tables: list = []
    capsule_s, capsule_cpu, stats = time_capsule(git, shas, workers=1, tables=tables)
    jobs = os.cpu_count() or 1
    if jobs > 1 and len(shas) >= 2 * HistoryConfig().commits_per_worker:
        split: list = []
        parallel_s, parallel_cpu, pstats = time_capsule(git, shas, workers=jobs, tables=split)
        # ranges split over workers (and shared by idle ones) must give the serial tables
        pstats["same_as_serial"] = all(a.equals(b) for a, b in zip(split, tables, strict=True))
    else:
        parallel_s, parallel_cpu, pstats = capsule_s, capsule_cpu, stats
    pyd_s, pyd_n = time_pydriller(git.root, pydriller_limit)
    n = len(shas)

    def ratio(a: float, b: float) -> float | None:
        return round(a / b, 2) if b else None

    result = {
        "repo": git.root.name,
        "commits": n,
        "git_log_seconds": round(git_log_s, 3),
        "git_log_cpu_seconds": round(git_log_cpu, 3),
        "git_log_commits_per_s": round(n / git_log_s, 1) if git_log_s else None,
        "capsule_seconds": round(capsule_s, 3),
        "capsule_cpu_seconds": round(capsule_cpu, 3),
        "capsule_commits_per_s": round(n / capsule_s, 1) if capsule_s else None,
        "capsule_vs_git_log": ratio(capsule_s, git_log_s),
        "capsule_vs_git_log_cpu": ratio(capsule_cpu, git_log_cpu),
        "capsule_parallel_seconds": round(parallel_s, 3),
        "capsule_parallel_workers": pstats.get("workers", 1),
        "capsule_parallel_shared_ranges": pstats.get("shared_ranges", 0),
        "capsule_parallel_same_as_serial": pstats.get("same_as_serial", True),
        "capsule_parallel_vs_git_log": ratio(parallel_s, git_log_s),
        "capsule_parallel_cpu_seconds": round(parallel_cpu, 3),
        "capsule_parallel_vs_git_log_cpu": ratio(parallel_cpu, git_log_cpu),
        "capsule_parallel_commits_per_s": round(n / parallel_s, 1) if parallel_s else None,
        "parsed_versions": stats.get("parsed_versions"),
        "derived_versions": stats.get("derived_versions"),
        "spliced_versions": stats.get("spliced_versions"),
        # of those derived or spliced, made from the file's latest cached version (no diff led
        # to them: a side branch's last version)
        "near_versions": stats.get("near_versions"),
        "read_versions": stats.get("read_versions"),
        "rebuilt_versions": stats.get("rebuilt_versions"),
        "touches": stats.get("touches"),
        "pydriller_commits": pyd_n if pyd_s is not None else None,
        "pydriller_commits_per_s": round(pyd_n / pyd_s, 1) if pyd_s else None,
        "load_average": round(os.getloadavg()[0], 2),
    }
    if pyd_s:
        result["capsule_vs_pydriller"] = round(
            result["capsule_commits_per_s"] / result["pydriller_commits_per_s"], 1
        )
        result["capsule_parallel_vs_pydriller"] = round(
            result["capsule_parallel_commits_per_s"] / result["pydriller_commits_per_s"], 1
        )
    if check:
        result["identity"] = identity(git, shas)
    if save is not None:
        save_tables(save, tables)
    if compare is not None:
        result["same_as"] = same_as(compare, tables)
    return result


def median_of(runs: list[dict]) -> dict:
    """One result: each number is the median over the runs (ratios too: each ratio is measured
    within its own run, then the median is taken); a yes / no holds when it held in every run."""
    out = dict(runs[0])
    for key, value in out.items():
        if isinstance(value, bool):
            out[key] = all(r.get(key) is True for r in runs)
        elif isinstance(value, (int, float)):
            values = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
            out[key] = statistics.median(values)
    out["runs"] = len(runs)
    return out


# ---------------------------------------------------------------- synthetic history

WORDS = [
    "order",
    "payment",
    "retry",
    "cache",
    "token",
    "user",
    "session",
    "invoice",
    "report",
    "export",
    "parse",
    "render",
]
INTENT_TEMPLATES = [
    ("fix({f}): handle empty {w} in {fn} (INC-{n})", 0.22),
    ("feat({f}): add {w} support to {fn}", 0.25),
    ("refactor({f}): simplify {fn}", 0.15),
    ("perf({f}): cache {w} lookups in {fn}", 0.06),
    ("test({f}): cover {fn}", 0.08),
    ("docs({f}): explain {w} handling", 0.06),
    ("Update {fn} for {w} changes", 0.18),
]


class _Module:
    def __init__(self, path: str, rng: random.Random, serial: list[int]) -> None:
        self.path = path
        self.functions: list[tuple[str, list[str]]] = []
        for _ in range(rng.randint(3, 8)):
            self.add_function(rng, serial)

    def add_function(self, rng: random.Random, serial: list[int]) -> None:
        serial[0] += 1
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{serial[0]}"
        body = [f"    value = {rng.randint(0, 999)}" for _ in range(rng.randint(2, 6))]
        self.functions.append((name, body + ["    return value"]))

    def edit(self, rng: random.Random, serial: list[int]) -> str:
        if rng.random() < 0.1:
            self.add_function(rng, serial)
            return self.functions[-1][0]
        name, body = rng.choice(self.functions)
        op = rng.random()
        i = rng.randrange(len(body) - 1)
        if op < 0.5:
            body[i] = f"    value = {rng.randint(0, 99999)}"
        elif op < 0.8 or len(body) < 4:
            body.insert(i, f"    value += {rng.randint(0, 99)}")
        else:
            del body[i]
        return name

    def render(self) -> bytes:
        parts = [f'"""Module {self.path}."""\nimport os\n\nLIMIT = 10\n']
        for name, body in self.functions:
            parts.append(f"\ndef {name}(value):\n" + "\n".join(body) + "\n")
        return "\n".join(parts).encode()


def make_synthetic(out: Path, commits: int, *, seed: int = 7, files: int = 600) -> Path:
    """Write a repository with `commits` commits to `out` via `git fast-import`."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(out)], check=True)
    proc = subprocess.Popen(
        ["git", "fast-import", "--quiet", "--done"], cwd=out, stdin=subprocess.PIPE, env=git_env()
    )
    assert proc.stdin is not None
    w = proc.stdin.write
    serial = [0]
    modules: list[_Module] = []
    features: list[list[_Module]] = []
    popularity: list[float] = []
    t = 1_546_300_800  # 2019-01-01
    for k in range(1, commits + 1):
        t += rng.randint(60, 8 * 3_600)
        changed: dict[str, _Module] = {}
        renamed: tuple[str, str] | None = None
        if k == 1 or (len(modules) < files and rng.random() < 0.04):
            feat: list[_Module] = []
            for _ in range(rng.randint(2, 6) if k > 1 else 30):
                m = _Module(f"pkg{len(modules) % 23}/mod_{len(modules)}.py", rng, serial)
                modules.append(m)
                feat.append(m)
                changed[m.path] = m
            for i in range(0, len(feat), 5):
                features.append(feat[i : i + 5])
                popularity.append(1.0)
            msg, fn = "feat: add new modules", "-"
        elif rng.random() < 0.002:
            for m in rng.sample(modules, min(len(modules), 60)):
                m.edit(rng, serial)
                changed[m.path] = m
            msg, fn = "style: reformat the code base", "-"
        else:
            # activity and coupling drift, as in real projects: features heat up and cool
            # down, and modules move between features when code is reorganised
            popularity = [max(0.02, p * rng.uniform(0.9, 1.1)) for p in popularity]
            if rng.random() < 0.01:
                src, dst = rng.sample(features, 2)
                if len(src) > 2:
                    dst.append(src.pop(rng.randrange(len(src))))
            feat = rng.choices(features, weights=popularity)[0]
            touched = rng.sample(feat, rng.randint(1, min(4, len(feat))))
            if rng.random() < 0.1:
                other = rng.choice(features)
                touched += [m for m in rng.sample(other, min(2, len(other))) if m not in touched]
            if rng.random() < 0.15:
                extra = rng.choice(modules)
                if extra not in touched:
                    touched.append(extra)
            fn = "-"
            for m in touched:
                fn = m.edit(rng, serial)
                changed[m.path] = m
            if rng.random() < 0.003:
                m = touched[0]
                old = m.path
                m.path = old.replace(".py", f"_v{k}.py")
                renamed = (old, m.path)
                changed.pop(old, None)
                changed[m.path] = m
            template = rng.choices(
                [x for x, _ in INTENT_TEMPLATES], [p for _, p in INTENT_TEMPLATES]
            )[0]
            msg = template.format(
                f=f"f{features.index(feat)}", w=rng.choice(WORDS), fn=fn, n=rng.randint(1, 999)
            )
        data = msg.encode()
        w(b"commit refs/heads/main\n")
        w(f"author Dev {k % 7} <dev{k % 7}@example.com> {t} +0000\n".encode())
        w(f"committer Dev {k % 7} <dev{k % 7}@example.com> {t} +0000\n".encode())
        w(b"data %d\n%s\n" % (len(data), data))
        if renamed:
            w(f"R {renamed[0]} {renamed[1]}\n".encode())
        for path, m in sorted(changed.items()):
            content = m.render()
            w(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(content), content))
        w(b"\n")
    w(b"done\n")
    proc.stdin.close()
    if proc.wait() != 0:
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=out, check=True, env=git_env())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="history_speed", description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", nargs="?", type=Path)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--max-commits", type=int, default=None)
    ap.add_argument("--pydriller-limit", type=int, default=2000)
    ap.add_argument(
        "--runs", type=int, default=1, help="repeat; every number is the median over the runs"
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help="also compare the attribution with the full-parse reference (every version parsed)",
    )
    ap.add_argument("--save-tables", type=Path, metavar="DIR", help="write the final tables")
    ap.add_argument(
        "--same-as",
        type=Path,
        metavar="DIR",
        help="report whether the tables equal those --save-tables wrote to DIR",
    )
    ap.add_argument(
        "--synthetic", nargs=2, metavar=("N", "OUT"), help="generate a history and exit"
    )
    args = ap.parse_args(argv)
    if args.synthetic:
        n, out = int(args.synthetic[0]), Path(args.synthetic[1])
        make_synthetic(out, n)
        print(
            json.dumps({"synthetic": str(out), "commits": n})
            if args.json
            else f"wrote {n} commits to {out}"
        )
        return 0
    if args.repo is None:
        ap.error("REPO is required (or --synthetic N OUT)")
    runs = [
        measure(
            args.repo,
            max_commits=args.max_commits,
            pydriller_limit=args.pydriller_limit,
            check=args.check and i == 0,
            save=args.save_tables if i == 0 else None,
            compare=args.same_as if i == 0 else None,
        )
        for i in range(max(1, args.runs))
    ]
    result = median_of(runs)
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:30} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
