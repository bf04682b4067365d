"""Serving latency in process: preflight and search, warm, and the cost of opening an index.

    python -m gitstrata.benchmarks.serve_latency [REPO_OR_BUNDLE ...] [--real] [--json]

Without a repository the benchmark fixture is built in a temp folder and indexed: targets are
the fixture's load-bearing functions, queries the dev split's texts (never a held-out split).
`--real` adds `../shared/repos/*.bundle` beside the checkout (skipped with a message when
absent); a `.bundle` is cloned into a temp folder and indexed there, a repository folder is
served from its own index (built first when it has none). On a real repository the targets are
its hot symbols (the functions and methods touched by the most commits, each with the subject
of the newest commit touching it as intended change) and the queries its commit subjects,
spread evenly over the history, and the names of hot symbols.

Reported per repository: P50 / P95 in milliseconds over `--rounds` passes after one warm-up
pass, with the CPU time of the same calls (less stretched by a busy machine), and the CPU time
of the first call of each target and query after `warm()` (a question not asked before in the
generation: repeated ones reuse the generation's part of the answer; in process the record of
texts the firewall passed in earlier processes is off, so the firewall runs over all of an
answer's new strings), and the same first calls on a new engine after `Engine.prescrub` (the
firewall run ahead over the strings the generation's answers serve, as a server does in the
background once warm) with what that pass cost; `Strata(repo)` open time after imports (the engine included); the one-shot CLI's wall time for `preflight`
and `query` (median of `--cli-runs` processes after one warm-up, so the disk cache is warm,
and the warm-up leaves the record of the texts the firewall passed, as an earlier command does),
with the process's user + system CPU time. `--phases` adds the CPU time per call of each phase of
preflight and search (timers around the engine's callees), over the first calls (which then
carry the timers' own cost) and over questions asked again after the latency passes.
`--attempts N` then records N failed attempts through the API on a copy of each repository
(each on a function of the index, chosen at random with a fixed seed, with a one-line diff of
its code) and measures the one-shot commands again: the first `preflight` process after them
(which builds every attempt's matching view and keeps them beside the generation) and the
median of `--cli-runs` after it, as a team's journal grows.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .dataset import queries
from .metrics import percentile

Target = tuple[str, str | None, str | None]

TARGETS: list[Target] = [
    (
        "backend/payments/retry.py",
        "charge_with_retry",
        "generate a fresh idempotency key for every retry attempt",
    ),
    ("backend/core/ttl_cache.py", "TTLCache.get", "make reads lock-free"),
    ("backend/auth/tokens.py", "validate_token", "remove the clock skew grace period"),
    ("web/src/api/orders.ts", "parseOrderResponse", "add a refunded_cents field"),
    (
        "worker/internal/jobs/runner.go",
        "Runner.processBatch",
        "run every job of a batch in parallel",
    ),
    ("backend/api/schemas.py", "OrderOut", None),
    ("backend/export/csv_export.py", "escape_cell", "also escape pipes"),
]


def hot_targets(index_dir: Path, n: int = 20) -> list[Target]:
    """The `n` functions and methods touched by the most commits (ties by path and name), each
    with the subject of the newest commit touching it as the intended change."""
    from gitstrata.store.generations import Store

    gen = Store(index_dir).require_live()
    sym = gen.table("symbols", columns=["symbol_id", "path", "qualname", "kind"]).to_pylist()
    callable_ids = {
        s["symbol_id"]: (s["path"], s["qualname"])
        for s in sym
        if s["kind"] in ("function", "method")
    }
    touches = gen.table("touches", columns=["symbol_id", "sha", "commit_time"]).to_pylist()
    counts: Counter[str] = Counter()
    newest: dict[str, tuple[int, str]] = {}
    for t in touches:
        sid = t["symbol_id"]
        if sid in callable_ids:
            counts[sid] += 1
            stamp = (int(t["commit_time"].timestamp()) if hasattr(t["commit_time"], "timestamp")
                     else int(t["commit_time"]), t["sha"])  # fmt: skip
            newest[sid] = max(newest.get(sid, stamp), stamp)
    subjects = dict(
        zip(
            *(gen.table("commits", columns=["sha", "subject"]).column(c).to_pylist()
              for c in ("sha", "subject")),
            strict=True,
        )
    )  # fmt: skip
    ranked = sorted(counts, key=lambda s: (-counts[s], callable_ids[s]))
    picked: list[Target] = []
    seen: set[tuple[str, str]] = set()
    for sid in ranked:
        path, qualname = callable_ids[sid]
        if (path, qualname) in seen:  # overloads: one name is ambiguous, skip the repeat
            continue
        if sum(1 for s in sym if s["path"] == path and s["qualname"] == qualname) > 1:
            continue
        seen.add((path, qualname))
        picked.append((path, qualname, subjects.get(newest[sid][1]) or None))
        if len(picked) == n:
            break
    return picked


def real_queries(index_dir: Path, targets: list[Target], n: int = 20) -> list[str]:
    """Commit subjects spread evenly over the history (three quarters of `n`) and hot symbols'
    names (the rest)."""
    from gitstrata.store.generations import Store

    gen = Store(index_dir).require_live()
    t = gen.table("commits", columns=["commit_time", "subject"]).sort_by("commit_time")
    subjects = [s for s in t.column("subject").to_pylist() if s and len(s) > 12]
    subjects = list(dict.fromkeys(subjects))
    k = n - n // 4
    step = max(1, len(subjects) // k)
    out = subjects[::step][:k]
    out += [q.rsplit(".", 1)[-1] for _, q, _ in targets if q][: n - len(out)]
    return out


@contextmanager
def no_passed_record() -> Iterator[None]:
    """This process without the record of texts the firewall passed before (`firewall_passed`):
    a question not asked before pays for its firewall pass, whatever earlier processes served."""
    import os

    from gitstrata.serve import firewall_passed

    before = os.environ.get("GITSTRATA_FIREWALL_CACHE")
    os.environ["GITSTRATA_FIREWALL_CACHE"] = "off"
    firewall_passed.reset()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("GITSTRATA_FIREWALL_CACHE", None)
        else:
            os.environ["GITSTRATA_FIREWALL_CACHE"] = before
        firewall_passed.reset()


def measure(
    repo: Path,
    index_dir: Path,
    rounds: int = 30,
    targets: list[Target] | None = None,
    texts: list[str] | None = None,
    with_phases: bool = False,
) -> dict[str, Any]:
    """In-process latencies (see the module's docstring), without the record of passed texts."""
    with no_passed_record():
        return _measure(repo, index_dir, rounds, targets, texts, with_phases)


def _measure(
    repo: Path,
    index_dir: Path,
    rounds: int,
    targets: list[Target] | None,
    texts: list[str] | None,
    with_phases: bool,
) -> dict[str, Any]:
    t0 = time.perf_counter()
    from gitstrata import Strata
    from gitstrata.serve import engine as _engine  # noqa: F401  (imports are not the open cost)

    import_ms = (time.perf_counter() - t0) * 1000
    targets = targets if targets is not None else TARGETS
    texts = texts if texts is not None else [q.text for q in queries("dev")]
    t0 = time.perf_counter()
    strata = Strata(repo, index_dir=index_dir)
    engine = strata.engine
    open_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    report = engine.preflight(*targets[0])
    first_preflight_ms = (time.perf_counter() - t0) * 1000
    assert report.found, targets[0]
    t0 = time.perf_counter()
    engine.warm()
    warm_ms = (time.perf_counter() - t0) * 1000
    # the first call of each target and query after `warm()`: what a question not asked
    # before in this generation costs (later calls reuse the generation's part of the answer)
    # (with `--phases` the timers run over this pass too: its phases are the first calls')
    first_pre: list[float] = []
    first_srch: list[float] = []
    first_phases: dict[str, dict[str, float]] = {}
    with phase_timers(engine, with_phases) as spent:
        for what, call, items, into in (
            ("preflight", lambda t: engine.preflight(*t), targets, first_pre),
            ("search", lambda q: engine.search(q, 10), texts, first_srch),
        ):
            spent.clear()
            for item in items:
                c0 = time.thread_time()
                call(item)
                into.append((time.thread_time() - c0) * 1000)
            if with_phases:
                first_phases[f"{what} (first call)"] = per_call(spent, into)
    pre, srch, pre_cpu, srch_cpu = [], [], [], []
    for _ in range(rounds):
        for t in targets:
            c0, t0 = time.thread_time(), time.perf_counter()
            engine.preflight(*t)
            pre.append((time.perf_counter() - t0) * 1000)
            pre_cpu.append((time.thread_time() - c0) * 1000)
    for _ in range(max(1, rounds // 10)):
        for q in texts:
            c0, t0 = time.thread_time(), time.perf_counter()
            engine.search(q, 10)
            srch.append((time.perf_counter() - t0) * 1000)
            srch_cpu.append((time.thread_time() - c0) * 1000)
    phases = {**first_phases, **phase_breakdown(engine, targets, texts)} if with_phases else None
    ahead = first_calls_after_prescrub(repo, index_dir, targets, texts)
    return {
        **({"phases": phases} if phases else {}),
        "import_ms": round(import_ms, 1),
        "open_ms": round(open_ms, 2),
        "first_preflight_ms": round(first_preflight_ms, 1),
        "warm_ms": round(warm_ms, 1),
        "preflight_p50_ms": round(percentile(pre, 50), 3),
        "preflight_p95_ms": round(percentile(pre, 95), 3),
        "search_p50_ms": round(percentile(srch, 50), 3),
        "search_p95_ms": round(percentile(srch, 95), 3),
        # CPU time of the calling thread: what the call costs, less stretched by a busy machine
        "preflight_cpu_p50_ms": round(percentile(pre_cpu, 50), 3),
        "preflight_cpu_p95_ms": round(percentile(pre_cpu, 95), 3),
        "search_cpu_p50_ms": round(percentile(srch_cpu, 50), 3),
        "search_cpu_p95_ms": round(percentile(srch_cpu, 95), 3),
        "preflight_first_cpu_p50_ms": round(percentile(first_pre, 50), 3),
        "search_first_cpu_p50_ms": round(percentile(first_srch, 50), 3),
        **ahead,
        "targets": len(targets),
        "queries": len(texts),
        "preflight_calls": len(pre),
        "search_calls": len(srch),
    }


def first_calls_after_prescrub(
    repo: Path, index_dir: Path, targets: list[Target], texts: list[str]
) -> dict[str, Any]:
    """The first calls again, on a new engine in a process that forgot every text the firewall
    passed, after `Engine.prescrub` (what a server runs in the background once warm): its CPU
    and wall time, the strings it passed, and the first calls' CPU P50."""
    from gitstrata import Strata
    from gitstrata.serve import firewall, firewall_passed

    firewall_passed.reset()
    firewall._clean_cached.cache_clear()
    strata = Strata(repo, index_dir=index_dir)
    try:
        engine = strata.engine
        engine.warm()
        c0, t0 = time.process_time(), time.perf_counter()
        passed = engine.prescrub()
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        pre, srch = [], []
        for t in targets:
            c0 = time.thread_time()
            engine.preflight(*t)
            pre.append((time.thread_time() - c0) * 1000)
        for q in texts:
            c0 = time.thread_time()
            engine.search(q, 10)
            srch.append((time.thread_time() - c0) * 1000)
    finally:
        strata.close()
        firewall_passed.reset()
    return {
        "prescrub_strings": passed,
        "prescrub_cpu_s": round(cpu, 2),
        "prescrub_wall_s": round(wall, 2),
        "preflight_first_prescrubbed_cpu_p50_ms": round(percentile(pre, 50), 3),
        "search_first_prescrubbed_cpu_p50_ms": round(percentile(srch, 50), 3),
    }


# (object attribute path on the engine, label): the callees of `Engine.preflight` and
# `Engine.search`, timed one level down (nested entries are indented)
PHASES = (
    ("build_preflight", "target lookup, ownership, history, coupling"),
    ("searcher.search", "search: retrieval"),
    ("searcher._route", "  route (router)"),
    ("searcher._bm25_path", "  BM25 (Tantivy)"),
    ("searcher._vector_path", "  vectors"),
    ("searcher._graph_path", "  co-change graph"),
    ("searcher._fuse", "  fusion"),
    ("searcher._rerank", "  rerank"),
    ("searcher._assemble", "  hits (models)"),
    ("_retrieved", "retrieved items for the graveyard"),
    ("Intent.of", "intent (terms, identifiers, vector)"),
    ("anti.for_preflight", "anti-context: warnings"),
    ("anti.past_attempts", "anti-context: past attempts"),
    ("anti.for_search", "anti-context: search warnings"),
    ("anti.rules", "invariants"),
    ("memory.for_target", "memories for the target"),
    ("memory._recall", "  memory recall"),
    ("scrub_model", "firewall (every string field)"),
    ("index_notes", "index notes (HEAD, shallow)"),
    ("repo_relative", "path check"),
)


@contextmanager
def phase_timers(engine: Any, on: bool = True) -> Iterator[dict[str, float]]:
    """CPU seconds spent in each phase (label -> seconds) while the block runs: each callee of
    the engine is wrapped with a timer on this engine only (module functions for the block)."""
    from gitstrata.serve import engine as engine_module

    spent: dict[str, float] = {}
    undo: list[tuple[Any, str, Any, bool]] = []

    def wrap(owner: Any, name: str, label: str) -> None:
        inner = getattr(owner, name, None)
        if inner is None:
            return

        def timed(*args: Any, **kwargs: Any) -> Any:
            c0 = time.thread_time()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.thread_time() - c0

        undo.append((owner, name, vars(owner).get(name), name in vars(owner)))
        setattr(owner, name, timed)

    for where, label in PHASES if on else ():
        head, _, name = where.rpartition(".")
        if head == "Intent":
            wrap(engine_module.Intent, name, label)
        elif head:
            wrap(getattr(engine, head), name, label)
        elif hasattr(engine_module, name):
            wrap(engine_module, name, label)
        else:
            wrap(engine, name, label)
    try:
        yield spent
    finally:
        for owner, name, raw, own in reversed(undo):
            if own:
                setattr(owner, name, raw)
            else:
                delattr(owner, name)


def per_call(spent: dict[str, float], cpu_ms: list[float]) -> dict[str, float]:
    """{"total": mean CPU ms per call, label: mean ms per call} in the order of `PHASES`."""
    n = max(1, len(cpu_ms))
    out = {"total": round(sum(cpu_ms) / n, 3)}
    for _, label in PHASES:  # in the order of the table, nested under their parent
        if label in spent:
            out[label] = round(spent[label] * 1000 / n, 3)
    return out


def phase_breakdown(
    engine: Any, targets: list[Target], texts: list[str], rounds: int = 5
) -> dict[str, dict[str, float]]:
    """CPU milliseconds per call of each phase (mean), for preflight and search asked again
    (`rounds` passes over questions the generation has answered before)."""
    out: dict[str, dict[str, float]] = {}
    with phase_timers(engine) as spent:
        for what, call, items in (
            ("preflight", lambda t: engine.preflight(*t), targets),
            ("search", lambda q: engine.search(q, 10), texts),
        ):
            spent.clear()
            cpu: list[float] = []
            for _ in range(rounds):
                for item in items:
                    c0 = time.thread_time()
                    call(item)
                    cpu.append((time.thread_time() - c0) * 1000)
            out[f"{what} (repeated)"] = per_call(spent, cpu)
    return out


def cli_wall(
    repo: Path, index_dir: Path, target: Target, query: str, runs: int = 7
) -> dict[str, Any]:
    """Median wall time of `gitstrata preflight` and `gitstrata query` processes (one warm-up
    run each first, so the disk cache is warm)."""
    base = [sys.executable, "-m", "gitstrata", "-C", str(repo)]
    path, symbol, intent = target
    pre = [*base, "preflight", path, "--out", str(index_dir)]
    pre += ["-s", symbol] if symbol else []
    pre += ["-i", intent] if intent else []
    qry = [*base, "query", query, "--out", str(index_dir)]
    out: dict[str, Any] = {}
    for name, argv in (("preflight", pre), ("query", qry)):
        walls, cpus = [], []
        for i in range(runs + 1):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            done = subprocess.run(argv, capture_output=True, check=False)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode not in (0, 1):
                raise SystemExit(f"{' '.join(argv[3:6])}: {done.stderr.decode()[-400:]}")
            if i:
                walls.append(wall)
                cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out[f"cli_{name}_s"] = round(statistics.median(walls), 3)
        out[f"cli_{name}_min_s"] = round(min(walls), 3)
        # user + system CPU of the process: its cost, less stretched by a busy machine
        out[f"cli_{name}_cpu_s"] = round(statistics.median(cpus), 3)
    return out


def sources_of(args: argparse.Namespace) -> list[Path]:
    sources = list(args.sources)
    if args.real:
        from .real import shared_bundles

        sources += shared_bundles("serve_latency")
    return sources


def prepare(source: Path, tmp: Path) -> tuple[Path, Path, str]:
    """(work tree, index folder, name) for a bundle (cloned and indexed in `tmp`) or a repository
    (its own index, built when missing)."""
    from gitstrata import Strata
    from gitstrata.store.generations import Store

    if source.suffix == ".bundle":
        from .real import clone

        name = source.stem
        repo = clone(source, tmp / name)
    else:
        repo, name = source, source.resolve().name
    with Strata(repo) as strata:
        if Store(strata.index_dir).current_name() is None:
            t0 = time.perf_counter()
            strata.index()
            print(f"serve_latency: indexed {name} in {time.perf_counter() - t0:.1f} s",
                  file=sys.stderr, flush=True)  # fmt: skip
        return repo, strata.index_dir, name


def record_attempts(repo: Path, index_dir: Path, n: int, seed: int = 3) -> None:
    """`n` failed attempts recorded through the API, each on a function of the index (chosen at
    random with `seed`): a one-line diff of its code, a failing test and notes."""
    import random

    from gitstrata import Strata
    from gitstrata.store.generations import Store

    table = (
        Store(index_dir)
        .require_live()
        .table("symbols", columns=["path", "qualname", "kind", "code"])
    )
    functions = [
        r for r in table.to_pylist()
        if r["kind"] in ("function", "method") and r["qualname"] != "<module>" and r["code"]
    ]  # fmt: skip
    if not functions:
        raise SystemExit(f"{repo}: the index has no functions to record attempts on")
    rnd = random.Random(seed)
    verbs = ("cache", "retry", "skip", "inline", "memoize", "batch", "reorder", "drop")
    with Strata(repo, index_dir=index_dir) as strata:
        for i in range(n):
            f = rnd.choice(functions)
            line = next((ln for ln in f["code"].splitlines()[1:] if ln.strip()), "pass")
            verb = rnd.choice(verbs)
            strata.record_failure(
                f["path"],
                f"--- a/{f['path']}\n+++ b/{f['path']}\n@@ -2 +2 @@\n-{line}\n+{line}  # {verb} {i}\n",
                f"FAILED tests/test_{verb}.py::test_{i} - AssertionError: {verb} broke {f['qualname']}",
                notes=f"tried to {verb} in {f['qualname']} to speed it up",
                symbol_name=f["qualname"],
            )


def with_attempts(
    repo: Path, index_dir: Path, tmp: Path, n: int, target: Target, query: str, runs: int
) -> dict[str, Any]:
    """The one-shot commands on a copy of `repo` (and its index) with `n` recorded attempts."""
    import shutil

    copy = tmp / f"{repo.name}-attempts"
    shutil.copytree(repo, copy, symlinks=True)
    try:
        inside = index_dir.resolve().relative_to(repo.resolve())
    except ValueError:
        copied_index = tmp / f"{repo.name}-attempts-index"
        shutil.copytree(index_dir, copied_index, symlinks=True)
    else:
        copied_index = copy / inside
    record_attempts(copy, copied_index, n)
    path, symbol, intent = target
    argv = [sys.executable, "-m", "gitstrata", "-C", str(copy), "preflight", path,
            "--out", str(copied_index), *(["-s", symbol] if symbol else []),
            *(["-i", intent] if intent else [])]  # fmt: skip
    t0 = time.perf_counter()
    first = subprocess.run(argv, capture_output=True, check=False)
    wall = time.perf_counter() - t0
    if first.returncode not in (0, 1):
        raise SystemExit(f"preflight with {n} attempts: {first.stderr.decode()[-400:]}")
    out = {"attempts": n, "cli_preflight_first_s": round(wall, 3)}
    got = cli_wall(copy, copied_index, target, query, runs)
    out.update({k.replace("cli_", "cli_attempts_", 1): v for k, v in got.items()})
    return out


def run_repo(
    source: Path,
    tmp: Path,
    rounds: int,
    cli_runs: int,
    phases: bool = False,
    attempts: int = 0,
) -> dict[str, Any]:
    repo, index_dir, name = prepare(source, tmp)
    targets = hot_targets(index_dir)
    texts = real_queries(index_dir, targets)
    res: dict[str, Any] = {
        "repo": name,
        **measure(repo, index_dir, rounds, targets, texts, with_phases=phases),
    }
    if cli_runs:
        res.update(cli_wall(repo, index_dir, targets[0], texts[0], cli_runs))
    if attempts and cli_runs:
        res.update(with_attempts(repo, index_dir, tmp, attempts, targets[0], texts[0], cli_runs))
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.serve_latency", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("sources", nargs="*", type=Path, metavar="REPO_OR_BUNDLE")
    ap.add_argument("--real", action="store_true", help="add ../shared/repos/*.bundle")
    ap.add_argument("--index", type=Path, help="the index folder of a single REPO")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--cli-runs", type=int, default=7, help="one-shot processes per command")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--phases", action="store_true", help="also the CPU time per phase (timers on callees)"
    )
    ap.add_argument(
        "--attempts",
        type=int,
        default=0,
        metavar="N",
        help="then the one-shot commands again on a copy of each repository with N recorded "
        "failed attempts",
    )
    args = ap.parse_args(argv)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gitstrata-serve-") as tmp:
        sources = sources_of(args)
        if not sources:
            from gitstrata import Strata

            from .fixture import build_fixture

            info = build_fixture(Path(tmp) / "fixture")
            repo, index_dir = info.path, Path(tmp) / "index"
            Strata(repo, index_dir=index_dir).index(jobs=1)
            res = {
                "repo": "fixture",
                **measure(repo, index_dir, args.rounds, with_phases=args.phases),
            }
            if args.cli_runs:
                res.update(cli_wall(repo, index_dir, TARGETS[0], queries("dev")[0].text,
                                    args.cli_runs))  # fmt: skip
            results.append(res)
        elif args.index is not None and len(sources) == 1 and sources[0].suffix != ".bundle":
            targets = hot_targets(args.index)  # the repository's own, not the fixture's
            texts = real_queries(args.index, targets)
            res = {
                "repo": sources[0].name,
                **measure(
                    sources[0], args.index, args.rounds, targets, texts, with_phases=args.phases
                ),
            }
            if args.cli_runs:
                res.update(cli_wall(sources[0], args.index, targets[0], texts[0], args.cli_runs))
            results.append(res)
        else:
            for source in sources:
                results.append(
                    run_repo(
                        source, Path(tmp), args.rounds, args.cli_runs, args.phases, args.attempts
                    )
                )
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[0]))
    else:
        for res in results:
            for k, v in res.items():
                if k != "phases":
                    print(f"{k:20s} {v}")
            for what, spent in res.get("phases", {}).items():
                print(f"{what} CPU ms per call, by phase:")
                for label, ms in spent.items():
                    print(f"  {label:45s} {ms:8.3f}")
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
