"""Serving latency in process: preflight and search, warm, and the cost of opening an index.

    python -m gitstrata.benchmarks.serve_latency [REPO] [--json]

Without REPO the benchmark fixture is built in a temp folder and indexed. Targets are the
fixture's load-bearing functions; queries are the dev split's texts (never a held-out split).
Reported: P50 / P95 in milliseconds over `--rounds` passes, after one warm-up pass.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from .dataset import queries
from .metrics import percentile

TARGETS = [
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


def measure(repo: Path, index_dir: Path, rounds: int = 30) -> dict[str, Any]:
    t0 = time.perf_counter()
    from gitstrata import Strata
    from gitstrata.serve import engine as _engine  # noqa: F401  (imports are not the open cost)

    import_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    strata = Strata(repo, index_dir=index_dir)
    engine = strata.engine
    open_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    engine.warm()
    warm_ms = (time.perf_counter() - t0) * 1000
    texts = [q.text for q in queries("dev")]
    for t in TARGETS:
        engine.preflight(*t)
    for q in texts:
        engine.search(q, 10)
    pre, srch = [], []
    for _ in range(rounds):
        for t in TARGETS:
            t0 = time.perf_counter()
            engine.preflight(*t)
            pre.append((time.perf_counter() - t0) * 1000)
    for _ in range(max(1, rounds // 10)):
        for q in texts:
            t0 = time.perf_counter()
            engine.search(q, 10)
            srch.append((time.perf_counter() - t0) * 1000)
    return {
        "import_ms": round(import_ms, 1),
        "open_ms": round(open_ms, 2),
        "warm_ms": round(warm_ms, 1),
        "preflight_p50_ms": round(percentile(pre, 50), 3),
        "preflight_p95_ms": round(percentile(pre, 95), 3),
        "search_p50_ms": round(percentile(srch, 50), 3),
        "search_p95_ms": round(percentile(srch, 95), 3),
        "preflight_calls": len(pre),
        "search_calls": len(srch),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.serve_latency", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("repo", nargs="?", type=Path)
    ap.add_argument("--index", type=Path)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gitstrata-serve-") as tmp:
        if args.repo is None:
            from gitstrata import Strata

            from .fixture import build_fixture

            info = build_fixture(Path(tmp) / "fixture")
            repo, index_dir = info.path, Path(tmp) / "index"
            Strata(repo, index_dir=index_dir).index(jobs=1)
        else:
            repo, index_dir = args.repo, args.index or args.repo / ".strata"
        result = measure(repo, index_dir, args.rounds)
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:20s} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
