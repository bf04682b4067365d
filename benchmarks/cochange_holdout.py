"""Co-change prediction on a time split (Zimmermann et al., "Mining version histories to guide
software changes"): does the ranking of a file's partners predict what else changes with it?

    python -m gitstrata.benchmarks.cochange_holdout REPO [--json] [--max-commits N]

Protocol: the repository's non-merge commits in time order (through the `capsule` stage, so
renames are followed to HEAD paths and bulk commits are flagged); the first 80 % are history,
the last 20 % test transactions. For every non-bulk test commit with at least two files, each of
its files that already changed in the history is a query; the other files of that commit are the
truth. Each method ranks the query's history partners (ties by path) and we report Recall@5,
Recall@10 and MRR averaged over queries. Methods: `count` (co-commits), `ochiai`
(co / sqrt(n_a n_b)), `codemaat` (code-maat's coupling degree, co / mean(n_a, n_b)),
`confidence` (P(b | a) = co / n_a; for one query it orders like `count`), `w` (the seed's
time-decayed Ochiai W, for reference) and `gitstrata` (`cochange.partner_score`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import polars as pl

from ..pipeline.gitio import Git
from ..pipeline.history import extract_all, rev_list
from ..stages import capsule, cochange
from ..stages.frames import frame
from ..store.config import GraphConfig, HistoryConfig

METHODS = ("gitstrata", "count", "ochiai", "codemaat", "confidence", "w")


def transactions(repo: Path, max_commits: int | None = None, workers: int = 1) -> pl.DataFrame:
    """(sha, t, node, k, bulk) per commit and HEAD path, time ordered."""
    git = Git(repo)
    shas = rev_list(git, git.require_head(), max_count=max_commits)
    cfg = HistoryConfig(symbol_max_files=0)  # file level only: no blob reads needed
    cs, ts, _ = extract_all(git, shas, cfg, workers=workers)
    commits, touches = capsule.finalize(cs, ts)
    c = frame(commits.select(["sha", "commit_time", "bulk"]))
    t = frame(touches.select(["sha", "head_path"])).unique()
    return (
        t.join(c, on="sha")
        .select(
            "sha",
            pl.col("commit_time").dt.epoch("s").alias("t"),
            pl.col("head_path").alias("node"),
            "bulk",
        )
        .sort("t", "sha", "node")
    )


def pair_stats(train: pl.DataFrame, rate: float) -> pl.DataFrame:
    """Directed (a, b) rows with every statistic a method needs, from history transactions."""
    ev = train.filter(~pl.col("bulk")).select("sha", "t", "node").unique()
    t_now = int(ev.select(pl.col("t").max()).item() or 0)
    return cochange.partner_stats(ev, t_now=t_now, rate=rate)


def scores(pairs: pl.DataFrame, half_life_days: float) -> pl.DataFrame:
    co = pl.col("co").cast(pl.Float64)
    na, nb = pl.col("na").cast(pl.Float64), pl.col("nb").cast(pl.Float64)
    return pairs.with_columns(
        co.alias("count"),
        (co / (na * nb).sqrt()).alias("ochiai"),
        (co / ((na + nb) / 2)).alias("codemaat"),
        (co / na).alias("confidence"),
        (pl.col("dsum") / (na * nb).sqrt()).alias("w"),
        cochange.partner_score().alias("gitstrata"),
    )


def evaluate(tx: pl.DataFrame, *, split: float = 0.8, half_life_days: float = 365.0) -> dict:
    order = tx.select("sha", "t").unique().sort("t", "sha")
    cut = int(order.height * split)
    train_shas = order.head(cut).select("sha")
    test_shas = order.tail(order.height - cut).select("sha")
    train = tx.join(train_shas, on="sha", how="semi")
    test = tx.join(test_shas, on="sha", how="semi").filter(~pl.col("bulk"))
    ranked = scores(pair_stats(train, cochange.decay_rate(half_life_days)), half_life_days)
    known = train.select(pl.col("node").unique())
    sizes = test.group_by("sha").agg(pl.len().alias("size"))
    test = test.join(sizes.filter(pl.col("size") >= 2), on="sha", how="semi")
    queries = test.join(known, on="node", how="semi").select("sha", pl.col("node").alias("a"))
    truth = queries.join(test.select("sha", pl.col("node").alias("b")), on="sha").filter(
        pl.col("a") != pl.col("b")
    )
    nq = queries.height
    truth_n = truth.group_by("sha", "a").agg(pl.len().alias("n_truth"))
    result: dict = {"queries": nq, "history_commits": cut, "test_commits": order.height - cut}
    for method in METHODS:
        r = (
            ranked.select("a", "b", method)
            .sort(["a", method, "b"], descending=[False, True, False])
            .with_columns(pl.int_range(1, pl.len() + 1).over("a").alias("rank"))
        )
        hits = truth.join(r.select("a", "b", "rank"), on=["a", "b"], how="inner")
        per_q = (
            truth_n.join(
                hits.group_by("sha", "a").agg(
                    (pl.col("rank") <= 5).sum().alias("h5"),
                    (pl.col("rank") <= 10).sum().alias("h10"),
                    pl.col("rank").min().alias("first"),
                ),
                on=["sha", "a"],
                how="left",
            )
            .fill_null(0)
            .with_columns(
                (pl.col("h5") / pl.col("n_truth")).alias("r5"),
                (pl.col("h10") / pl.col("n_truth")).alias("r10"),
                pl.when(pl.col("first") > 0).then(1.0 / pl.col("first")).otherwise(0.0).alias("rr"),
            )
        )
        denom = max(nq, 1)
        result[method] = {
            "recall@5": round(float(per_q["r5"].sum()) / denom, 4),
            "recall@10": round(float(per_q["r10"].sum()) / denom, 4),
            "mrr": round(float(per_q["rr"].sum()) / denom, 4),
        }
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cochange_holdout", description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--max-commits", type=int, default=None)
    ap.add_argument("--half-life-days", type=float, default=GraphConfig().half_life_days)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    tx = transactions(args.repo, args.max_commits, args.workers)
    result = {"repo": args.repo.resolve().name, **evaluate(tx, half_life_days=args.half_life_days)}
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"queries {result['queries']}  history {result['history_commits']}  test {result['test_commits']}"
        )
        print(f"{'method':12} {'recall@5':>9} {'recall@10':>9} {'mrr':>7}")
        for m in METHODS:
            row = result[m]
            print(f"{m:12} {row['recall@5']:9.4f} {row['recall@10']:9.4f} {row['mrr']:7.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
