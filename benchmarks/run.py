"""The quality benchmark: every configuration over the same fixture, index and queries.

    python -m gitstrata.benchmarks.run [--splits dev,heldout_v1] [--json FILE] [--out RESULTS.md]

Steps: build the fixture repository in a temp folder, record its failed attempts through the
public API (they land in the journal and are folded into documents by the index run), index it,
then run each split's queries through BM25-only, dense float32, hybrid RRF and the full engine,
plus the ablations (the full engine with one component off). Baselines see the failure records
as ordinary documents: failures are removed from their rankings before ranking metrics (the most
generous treatment), and a relevant failure anywhere in their unfiltered top 5 counts as a
warning hit. Quality numbers are deterministic; latencies are medians of warm, in-process runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .dataset import HELDOUT_SPLITS, QUERY_CLASSES, SPLITS, Query, queries
from .fixture import FixtureInfo, build_fixture, failure_records
from .metrics import mean, mrr, ndcg_at, percentile, recall_at, warning_outcome

CONFIGS = ("bm25", "dense", "hybrid", "full")

# ablation name -> (retrieval overrides, graveyard overrides)
ABLATIONS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "- query-adaptive router": ({"adaptive_routing": False}, {}),
    "- co-change graph path": ({"graph_path": False}, {}),
    "- interaction reranker": ({"reranker": False}, {}),
    "- time decay (plain RRF)": ({"time_decay": False}, {}),
    "- plain list fused back in": ({"baseline_blend": False}, {}),
    "- commit slot budget": ({"slot_budget": False}, {}),
    "- named-symbol pinning": ({"pinning": False}, {}),
    "- direct top-commit warning trigger": (
        {},
        {"commit_trigger_rank1": False, "commit_trigger_score": 99.0},
    ),
    "- commit-relevance gate (any top-3 commit)": ({}, {"commit_gating": False}),
    "float32 exact instead of 1-bit + int8": ({"exact_vectors": True}, {}),
}


@dataclass
class Bench:
    info: FixtureInfo
    strata: Any  # gitstrata.Strata
    failure_ids: dict[int, int]  # journal failure id -> failure_records() index


def setup(workdir: Path, info: FixtureInfo | None = None) -> Bench:
    """Record the fixture's failed attempts and index it into `workdir/index`; the fixture
    repository is built in `workdir/fixture` unless an already built one is given (it is only
    read: the index and the journal live outside it)."""
    from gitstrata import Strata

    if info is None:
        info = build_fixture(workdir / "fixture", force=True)
    # the float vectors too: the dense and hybrid baselines rank by exact float cosines
    index_dir = workdir / "index"
    index_dir.mkdir(parents=True, exist_ok=True)
    config = index_dir / "config.json"
    if not config.exists():
        config.write_text(
            json.dumps({"embedding": {"float_vectors": True}}) + "\n", encoding="utf-8"
        )
    strata = Strata(info.path, index_dir=index_dir)
    ids: dict[int, int] = {}
    for i, rec in enumerate(failure_records()):
        got = strata.record_failure(
            **{k: v for k, v in rec.items() if k != "recorded_at"},
            recorded_at=rec.get("recorded_at"),
        )
        ids.setdefault(int(got.failure_id), i)
    strata.index(jobs=1)
    strata.engine.warm()
    return Bench(info, strata, ids)


def _relevance(q: Query, info: FixtureInfo) -> dict[str, int]:
    rel: dict[str, int] = {}
    for r in q.relevant:
        key = f"commit:{info.sha(r.commit_name)}" if r.commit_name else r.target
        rel[key] = max(rel.get(key, 0), r.grade)
    return rel


def _ids(hit) -> set[str]:
    if hit.kind == "commit":
        return {f"commit:{hit.key}"}
    out = set()
    if hit.path:
        out.add(f"file:{hit.path}")
        if hit.symbol and hit.symbol != "<module>":
            out.add(f"symbol:{hit.path}::{hit.symbol}")
    return out


def evaluate(
    bench: Bench,
    split: str,
    config: str,
    *,
    retrieval: dict | None = None,
    graveyard: dict | None = None,
    timing: bool = False,
) -> dict[str, Any]:
    engine = bench.strata.engine
    rcfg = engine.config.retrieval.model_copy(update=retrieval or {})
    gcfg = engine.config.graveyard.model_copy(update=graveyard or {})
    mode = config if config in ("bm25", "dense", "hybrid") else "full"
    per_class: dict[str, list[float]] = {c: [] for c in QUERY_CLASSES}
    r3, r5, mrrs, ndcgs, hits_w, alarms, cochange, lat = [], [], [], [], [], [], [], []
    for q in queries(split):
        t0 = time.perf_counter()
        result = engine.search_result(
            q.text, 10, file_path=q.file_filter, mode=mode, config=rcfg, graveyard=gcfg
        )
        lat.append((time.perf_counter() - t0) * 1000)
        resp = result.response
        if mode == "full":
            ranked_hits = resp.hits
            surfaced = {
                bench.failure_ids.get(w.failure_id, -1)
                for w in resp.warnings
                if w.source == "journal"
            }
        else:
            ranked_hits = [h for h in resp.hits if h.kind not in ("failure", "memory")]
            surfaced = {
                bench.failure_ids.get(int(h.key.split(":")[-1]), -1)
                for h in resp.hits[:5]
                if h.kind == "failure"
            }
        ranked = [_ids(h) for h in ranked_hits]
        rel = _relevance(q, bench.info)
        r3.append(recall_at(ranked, rel, 3))
        r5.append(recall_at(ranked, rel, 5))
        mrrs.append(mrr(ranked, rel))
        nd = ndcg_at(ranked, rel, 5)
        ndcgs.append(nd)
        per_class[q.query_class].append(nd)
        hit, alarm = warning_outcome(surfaced - {-1}, q.expected_warnings)
        if hit is not None:
            hits_w.append(1.0 if hit else 0.0)
        alarms.append(1.0 if alarm else 0.0)
        if q.coupled_files:
            paths = {h.path for h in ranked_hits[:10] if h.path}
            cochange.append(sum(1 for f in q.coupled_files if f in paths) / len(q.coupled_files))
    out = {
        "queries": len(ndcgs),
        "recall@3": round(mean(r3), 4),
        "recall@5": round(mean(r5), 4),
        "mrr": round(mean(mrrs), 4),
        "ndcg@5": round(mean(ndcgs), 4),
        "warning_hit_rate": round(mean(hits_w), 4),
        "false_alarm_rate": round(mean(alarms), 4),
        "cochange_discovery": round(mean(cochange), 4),
        "per_class_ndcg@5": {c: round(mean(v), 4) for c, v in per_class.items() if v},
    }
    if timing:
        warm = []
        for q in queries(split):
            for _ in range(3):
                t0 = time.perf_counter()
                engine.search_result(
                    q.text, 10, file_path=q.file_filter, mode=mode, config=rcfg, graveyard=gcfg
                )
                warm.append((time.perf_counter() - t0) * 1000)
        out["p50_ms"] = round(percentile(warm, 50), 3)
        out["p95_ms"] = round(percentile(warm, 95), 3)
    return out


def run(
    splits: tuple[str, ...] = SPLITS,
    *,
    ablations: bool = True,
    workdir: Path | None = None,
    speed: bool = False,
    sizes: tuple[int, ...] = (10_000, 100_000),
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gitstrata-bench-") as tmp:
        bench = setup(Path(workdir or tmp))
        result: dict[str, Any] = {
            "machine": {
                "python": platform.python_version(),
                "platform": platform.platform(),
                "processor": platform.machine(),
                "cpus": os.cpu_count(),
            },
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
            "fixture": {"head": bench.info.head, "commits": bench.info.commit_count},
            "index": _index_size(bench),
            "splits": {},
            "ablations": {},
        }
        for split in splits:
            result["splits"][split] = {
                "configs": {c: evaluate(bench, split, c, timing=True) for c in CONFIGS}
            }
        if ablations:
            for name, (r, g) in ABLATIONS.items():
                result["ablations"][name] = {
                    split: evaluate(bench, split, "full", retrieval=r, graveyard=g)
                    for split in splits
                }
        bench.strata.close()
        from .firewall import measure as measure_firewall

        result["firewall"] = {k: v for k, v in measure_firewall().items() if k != "misses"}
        if speed:
            from .speed import run_speed

            here = Path(__file__).resolve().parent.parent
            self_repo = here if (here / ".git").exists() else None
            result["speed"] = run_speed(bench.info.path, bench.strata.index_dir, self_repo, sizes)
    return result


def _index_size(bench: Bench) -> dict[str, Any]:
    gen = bench.strata.engine.index.gen
    served = sum(gen.info(n).bytes for n in ("vectors_bits", "vectors_i8", "docmeta") if gen.has(n))
    f32 = sum(gen.info(n).bytes for n in ("vectors_f32",) if gen.has(n))
    return {
        "generation": gen.name,
        "served_vector_kb": round(served / 1024, 1),
        "f32_vector_kb_on_disk": round(f32 / 1024, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.run", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--splits", default=",".join(SPLITS))
    ap.add_argument("--json", dest="json_out", type=Path)
    ap.add_argument("--out", type=Path, help="write RESULTS.md here")
    ap.add_argument("--no-ablations", action="store_true")
    ap.add_argument("--speed", action="store_true", help="also run the speed benchmarks")
    ap.add_argument(
        "--sizes", default="10000,100000", help="vector counts for the vector benchmark"
    )
    ap.add_argument("--no-continuity", action="store_true", help="skip benchmarks/continuity.py")
    ap.add_argument(
        "--embedders",
        action="store_true",
        help="also run the embedder ablation (benchmarks/embedders.py, dev split only)",
    )
    ap.add_argument(
        "--real",
        action="store_true",
        help="also run benchmarks/real.py over the real repositories' bundles beside the checkout",
    )
    ap.add_argument(
        "--memory",
        action="store_true",
        help="also run benchmarks/memory_recall.py (memory recall and staleness)",
    )
    ap.add_argument(
        "--redaction",
        action="store_true",
        help="also run benchmarks/redaction.py (planted secrets)",
    )
    ap.add_argument(
        "--robustness",
        action="store_true",
        help="also run benchmarks/robustness.py (bad input, damage, signals, fuzz)",
    )
    args = ap.parse_args(argv)
    splits = tuple(s for s in args.splits.split(",") if s)
    sizes = tuple(int(x) for x in args.sizes.split(",") if x)
    result = run(splits, ablations=not args.no_ablations, speed=args.speed, sizes=sizes)
    if args.real:
        from . import real

        result["real"] = [real.measure_repo(source) for source in real.default_sources()]
    if not args.no_continuity:
        from . import continuity

        result["continuity"] = continuity.run()
    if args.memory:
        from . import memory_recall

        result["memory"] = memory_recall.run()
    if args.redaction:
        from . import redaction

        result["redaction"] = redaction.measure()
    if args.embedders:
        from . import embedders

        result["embedders"] = embedders.run()
    if args.robustness:
        from . import robustness

        result["robustness"] = robustness.measure()
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n")
    if args.out:
        from .report import write_results

        extra: list[str] = []
        if "firewall" in result:
            from .firewall import markdown as firewall_markdown

            extra.append(firewall_markdown(result["firewall"]))
        if "real" in result:
            from .real import markdown

            extra.append(markdown(result["real"], "python -m gitstrata.benchmarks.real"))
        if "speed" in result:
            from .speed import sections

            extra += sections(result["speed"])
        if "continuity" in result:
            from .continuity import markdown as continuity_markdown

            extra.append(continuity_markdown(result["continuity"]))
        if "memory" in result:
            from .memory_recall import markdown as memory_markdown

            extra.append(memory_markdown(result["memory"]))
        if "redaction" in result:
            from .redaction import markdown as redaction_markdown

            extra.append(redaction_markdown(result["redaction"]))
        if "robustness" in result:
            from .robustness import markdown as robustness_markdown

            extra.append(robustness_markdown(result["robustness"]))
        write_results(result, args.out, extra or None)
        if "embedders" in result:
            from .embedders import markdown as embedders_markdown
            from .embedders import write_section

            write_section(args.out, embedders_markdown(result["embedders"]))
    if not args.json_out and not args.out:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 0


__all__ = ["ABLATIONS", "CONFIGS", "HELDOUT_SPLITS", "evaluate", "run", "setup"]

if __name__ == "__main__":
    raise SystemExit(main())
