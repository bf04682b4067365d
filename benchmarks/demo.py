"""`python -m gitstrata.benchmarks.demo DIR`: the benchmark fixture, ready to try.

Builds the fixture repository in DIR, records what a team would have recorded there (the
fixture's failed agent attempts, the way `record_failure` receives them, and a few invariants),
indexes it, and prints the index summary and a preflight command to run next.

It lives here, beside the fixture, because the product never imports `benchmarks` (the fixture's
content is test data); it drives the product only through its public API (`Strata`) and prints
with the CLI's own renderer, so what it shows is what `gitstrata index` shows.

Invariants:
- Deterministic: the fixture's SHAs are fixed and every failed attempt carries its recorded time,
  so the same commands print the same output on every machine (timings aside). The README's
  preflight and index examples are generated from it and checked by `tests/test_readme_demo.py`.
- Failures are recorded before the first index, so they are folded into the documents.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..facade import Strata
from ..pipeline.progress import Progress, make_progress
from ..pipeline.runner import IndexReport
from ..store.errors import GitstrataError
from .failures import failure_records
from .fixture import FixtureInfo, build_fixture

__all__ = ["INVARIANTS", "PREFLIGHT", "Demo", "build_demo", "main", "preflight_argv"]

# (rule id, scope, description, severity): the rules the fixture's history teaches
INVARIANTS: tuple[tuple[str, str, str, str], ...] = (
    (
        "INV-PAY-001",
        "backend/payments/**",
        "Every gateway charge must reuse ONE idempotency key per order across all retries; "
        "never create keys inside the retry loop (INC-2407).",
        "critical",
    ),
    (
        "INV-MONEY-002",
        "backend/api/**",
        "Amounts cross the API as integer cents in `*_cents` fields; never send or parse "
        "floats (ADR 0001, INC-2333).",
        "high",
    ),
    (
        "INV-CACHE-003",
        "backend/core/ttl_cache.py::TTLCache.*",
        "TTLCache reads take the lock; the lock-free read path was reverted after it served "
        "half-updated entries.",
        "high",
    ),
)

# the flagship example: an agent about to repeat the attempt that already failed
PREFLIGHT = (
    "backend/payments/retry.py",
    "charge_with_retry",
    "generate a fresh idempotency key for every retry attempt",
)


def preflight_argv() -> list[str]:
    """The arguments of the preflight command the demo suggests (after `gitstrata`)."""
    path, symbol, intent = PREFLIGHT
    return ["preflight", path, "-s", symbol, "-i", intent]


@dataclass(frozen=True)
class Demo:
    fixture: FixtureInfo
    failures: int  # attempts recorded (repeats included)
    invariants: int
    report: IndexReport | None  # None when built with `index=False`


def build_demo(
    out_dir: Path,
    *,
    force: bool = False,
    index: bool = True,
    progress: Progress | None = None,
    jobs: int | None = None,
) -> Demo:
    """Build, record and (unless `index=False`) index the demo repository in `out_dir`."""
    info = build_fixture(out_dir, force=force)
    records = failure_records()
    with Strata(info.path) as strata:
        for rec in records:
            strata.record_failure(
                **{k: v for k, v in rec.items() if k != "recorded_at"},
                recorded_at=rec.get("recorded_at"),
            )
        for rule_id, scope, description, severity in INVARIANTS:
            strata.record_invariant(rule_id, scope, description, severity)
        report = strata.index(progress=progress, jobs=jobs) if index else None
    return Demo(info, len(records), len(INVARIANTS), report)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.demo",
        description="Build the benchmark fixture with recorded failures and invariants, "
        "index it, and print a preflight command to try.",
    )
    parser.add_argument("out_dir", type=Path, help="directory to create the repository in")
    parser.add_argument("--force", action="store_true", help="replace a non-empty directory")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    args = parser.parse_args(argv)
    from ..entry import report_error
    from ..render_plain import print_index_report

    progress = make_progress(args.quiet)
    try:
        demo = build_demo(args.out_dir, force=args.force, progress=progress)
    except GitstrataError as exc:
        report_error(exc)
        return 1
    finally:
        progress.close()
    print(
        f"built {demo.fixture.path} ({demo.fixture.commit_count} commits); recorded "
        f"{demo.failures} failed attempts and {demo.invariants} invariants"
    )
    assert demo.report is not None
    print_index_report(demo.report, repo=demo.fixture.path)
    command = shlex.join(["gitstrata", "-C", str(demo.fixture.path), *preflight_argv()])
    print(f"\nnext, see what an agent sees before editing charge_with_retry:\n  {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
