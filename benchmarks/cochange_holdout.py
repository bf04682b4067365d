"""Co-change prediction on a time split (Zimmermann et al., "Mining version histories to guide
software changes"): do the partners `Strata.preflight` serves predict what else changes?

    python -m gitstrata.benchmarks.cochange_holdout REPO [--json] [--split 0.8]

Protocol: the repository's non-merge commits in time order; the commit at 80 % is the cut. A
temporary clone checked out at the cut is indexed with `Strata(...).index()`, so the history is
exactly what the product indexes there (renames followed to the cut's paths, bulk commits
flagged); every later commit is a test transaction. For every non-bulk test commit with at least
two files, each of its files (path in that commit) that changed in the history and exists at the
cut is a query; the other files of that commit are the truth. Every method lists at most
`retrieval.coupling_limit` partners (what the agent sees), and we report Recall@5, Recall@10,
MRR (a first hit below the list counts 0) and coverage (share of queries with at least one
partner listed), averaged over queries.

Methods: `gitstrata` is what `Strata.preflight(file)` returns, in its order (no recomputation);
`search` is what `Strata.search` answers to "What else has to change when I change FILE?", read
as files (`answer_files`: a hit's path, or the files a commit hit changed), FILE itself left out;
`search_function` asks the same about the function of FILE the history touched most, by name
only (over the queries whose file has one; `queries` says how many).
The offline baselines rank the same history's partners, restricted like the product to pairs
whose files exist at the cut: `count` (co-commits), `ochiai` (co / sqrt(n_a n_b)), `codemaat`
(code-maat's coupling degree, co / mean(n_a, n_b)), `confidence` (P(b | a) = co / n_a; for one
query it orders like `count`), `w` (the seed's time-decayed Ochiai W, which preflight served
before) and `formula` (`cochange.partner_score` computed offline, a check on the served list).
Offline ties are counted fairly: each metric is its expected value over a uniformly random
order of tied partners (exact, not sampled).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..facade import Strata
from ..pipeline.gitio import Git
from ..pipeline.history import extract_all, rev_list
from ..stages import capsule, cochange
from ..store.config import Config, GraphConfig, HistoryConfig
from ..store.filekind import is_code
from ..store.ids import MODULE_SYMBOL

BASELINES = ("count", "ochiai", "codemaat", "confidence", "w", "formula")
METHODS = ("gitstrata", "search", *BASELINES)
Query = tuple[str, str, frozenset[str]]  # (test commit, file, files that changed with it)
Groups = list[tuple[int, int, frozenset[str]]]  # tied partners: (start rank - 1, size, members)


def transactions(repo: Path, workers: int = 1) -> pl.DataFrame:
    """(sha, t, node, bulk) per non-merge commit and file (its path in that commit), time
    ordered."""
    git = Git(repo)
    shas = rev_list(git, git.require_head())
    cfg = HistoryConfig(symbol_max_files=0)  # file level only: no blob reads needed
    cs, ts, _ = extract_all(git, shas, cfg, workers=workers)
    commits, touches = capsule.finalize(cs, ts)
    c = pl.from_arrow(commits.select(["sha", "commit_time", "bulk"]))
    t = pl.from_arrow(touches.select(["sha", "path"])).unique()
    assert isinstance(c, pl.DataFrame) and isinstance(t, pl.DataFrame)
    return (
        t.join(c, on="sha")
        .select(
            "sha",
            pl.col("commit_time").dt.epoch("s").alias("t"),
            pl.col("path").alias("node"),
            "bulk",
        )
        .sort("t", "sha", "node")
    )


def cut_commit(tx: pl.DataFrame, split: float) -> str:
    order = tx.select("sha", "t").unique().sort("t", "sha")
    return str(order["sha"][max(1, int(order.height * split)) - 1])


def index_at(
    repo: Path, sha: str, where: Path, config: dict[str, Any] | None = None
) -> tuple[Strata, float]:
    """A clone of `repo` checked out at `sha`, indexed (and the seconds that took) with `config`
    (sections of `.strata/config.json`); blame is off (co-change does not read it), and the
    float vectors are kept, so the dense and hybrid baselines rank by exact float cosines."""
    clone = where / "repo"
    quiet = ["git", "-c", "advice.detachedHead=false"]
    subprocess.run([*quiet, "clone", "-q", str(repo), str(clone)], check=True)
    subprocess.run([*quiet, "-C", str(clone), "checkout", "-q", sha], check=True)
    strata = Strata(clone, index_dir=where / "index")
    strata.index_dir.mkdir(parents=True)
    sections = {**(config or {})}
    sections["index"] = {**sections.get("index", {}), "blame": False}
    sections["embedding"] = {"float_vectors": True, **sections.get("embedding", {})}
    (strata.index_dir / "config.json").write_text(json.dumps(sections))
    return strata, strata.index().seconds


def history_of(strata: Strata) -> tuple[pl.DataFrame, set[str], set[str]]:
    """The indexed history as (sha, t, node) of non-bulk commits at the cut's paths, every
    indexed commit, and the files at the cut."""
    gen = strata.engine.index
    c = pl.from_arrow(gen.table("commits", columns=["sha", "bulk"]))
    t = pl.from_arrow(gen.table("touches", columns=["sha", "commit_time", "head_path"]))
    files = gen.table("files", columns=["path"])["path"].to_pylist()
    assert isinstance(c, pl.DataFrame) and isinstance(t, pl.DataFrame)
    ev = (
        t.join(c.filter(~pl.col("bulk")), on="sha", how="semi")
        .select(
            "sha", pl.col("commit_time").dt.epoch("s").alias("t"), pl.col("head_path").alias("node")
        )
        .unique()
    )
    return ev, set(c["sha"].to_list()), set(files)


def queries(test: pl.DataFrame, known: set[str]) -> list[Query]:
    test = test.filter(~pl.col("bulk"))
    out: list[Query] = []
    for (sha,), g in test.group_by("sha", maintain_order=True):
        files = frozenset(g["node"].to_list())
        if len(files) < 2:
            continue
        out += [(str(sha), a, files - {a}) for a in sorted(files) if a in known]
    return sorted(out)


def offline_scores(ev: pl.DataFrame, at_cut: set[str], graph: GraphConfig) -> pl.DataFrame:
    t_now = int(ev.select(pl.col("t").max()).item() or 0)
    pairs = cochange.partner_stats(
        ev,
        t_now=t_now,
        rate=cochange.decay_rate(graph.half_life_days),
        rank_rate=cochange.decay_rate(graph.rank_half_life_days),
        size_power=graph.rank_commit_size_power,
    )
    keep = pl.Series(sorted(at_cut)).implode()
    pairs = pairs.filter(pl.col("a").is_in(keep) & pl.col("b").is_in(keep))
    co = pl.col("co").cast(pl.Float64)
    na, nb = pl.col("na").cast(pl.Float64), pl.col("nb").cast(pl.Float64)
    return pairs.select(
        "a",
        "b",
        co.alias("count"),
        (co / (na * nb).sqrt()).alias("ochiai"),
        (co / ((na + nb) / 2)).alias("codemaat"),
        (co / na).alias("confidence"),
        (pl.col("dsum") / (na * nb).sqrt()).alias("w"),
        cochange.partner_score().alias("formula"),
    )


# ------------------------------------------------------------------ answers read as files

FILES_PER_COMMIT = 3  # files a commit hit stands for when an answer is read as files


def commit_files(strata: Strata, *, code_only: bool = True) -> dict[str, list[str]]:
    """Per indexed commit, the files it changed that exist in the indexed tree (their path
    there), most touched first: a file deleted since is no place for a change. `code_only`:
    source and tests only (`filekind.is_code`)."""
    t = strata.engine.index.table("touches", columns=["sha", "head_path"])
    present = set(strata.engine.index.table("files", columns=["path"])["path"].to_pylist())
    counts: dict[str, Counter[str]] = {}
    for sha, path in zip(t["sha"].to_pylist(), t["head_path"].to_pylist(), strict=True):
        if path in present and (not code_only or is_code(path)):
            counts.setdefault(sha, Counter())[path] += 1
    return {
        sha: [p for p, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))]
        for sha, c in counts.items()
    }


def answer_files(
    hits: list[Any], by_commit: dict[str, list[str]], *, limit: int = 10, skip: str | None = None
) -> list[str]:
    """A search answer as an agent reads it for files: a hit with a path gives that path, a
    commit hit the `FILES_PER_COMMIT` files `by_commit` gives it; repeats and `skip` are
    dropped, and the list is cut at `limit`."""
    out: list[str] = []
    for h in hits:
        if h.path:
            paths = [h.path]
        elif h.kind == "commit":
            paths = by_commit.get(h.key, [])[:FILES_PER_COMMIT]
        else:
            paths = []
        for p in paths:
            if p != skip and p not in out:
                out.append(p)
        if len(out) >= limit:
            break
    return out[:limit]


def coupled_question(subject: str) -> str:
    """The co-change question the `search` methods ask about a file or a function."""
    return f"What else has to change when I change {subject}?"


def most_changed_functions(strata: Strata) -> dict[str, str]:
    """Per file, the name (last part of the qualified name) of its function or method the
    indexed history touched most, ties by name: what a `search_function` question names."""
    t = strata.engine.index.table("touches", columns=["head_path", "qualname"])
    counts = Counter(
        (p, q)
        for p, q in zip(t["head_path"].to_pylist(), t["qualname"].to_pylist(), strict=True)
        if p and q and q != MODULE_SYMBOL
    )
    out: dict[str, str] = {}
    for (path, qual), _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        out.setdefault(path, qual.rsplit(".", 1)[-1])
    return out


def tie_groups(scored: pl.DataFrame, method: str) -> dict[str, Groups]:
    """Per source file, its partners grouped by equal score (rounded to 1e-9), best first."""
    g = (
        scored.select("a", "b", pl.col(method).round(9).alias("s"))
        .group_by("a", "s")
        .agg(pl.col("b"))
        .sort(["a", "s"], descending=[False, True])
    )
    out: dict[str, Groups] = {}
    for a, _, bs in g.iter_rows():
        groups = out.setdefault(a, [])
        start = groups[-1][0] + groups[-1][1] if groups else 0
        groups.append((start, len(bs), frozenset(bs)))
    return out


def served_groups(listed: list[str]) -> Groups:
    """The served list exactly as shown: one partner per rank."""
    return [(i, 1, frozenset([p])) for i, p in enumerate(listed)]


def metrics(ranked: dict[str, Groups], qs: list[Query], limit: int) -> dict[str, float]:
    """Recall@5, Recall@10, MRR and coverage over the first `limit` ranks. A tie group counts
    its expected value over random orders: a member is in the top k with probability
    (k - start) / size, and the first hit's reciprocal rank is averaged over where the first of
    h hits among n tied partners falls."""
    r5 = r10 = mrr = 0.0
    covered = 0
    for _, a, truth in qs:
        groups = [g for g in ranked.get(a, []) if g[0] < limit]
        if groups:
            covered += 1
        first = True
        for start, n, members in groups:
            h = len(truth & members)
            if not h:
                continue
            r5 += h * min(max(min(5, limit) - start, 0), n) / n / len(truth)
            r10 += h * min(max(min(10, limit) - start, 0), n) / n / len(truth)
            if first:
                first = False
                # P(first hit at start + j) = C(n - j, h - 1) / C(n, h), j = 1..n - h + 1
                p, j = h / n, 1
                while j <= n - h + 1 and start + j <= limit:
                    mrr += p / (start + j)
                    p *= (n - j - h + 1) / (n - j) if n > j else 0.0
                    j += 1
    nq = max(len(qs), 1)
    return {
        "recall@5": round(r5 / nq, 4),
        "recall@10": round(r10 / nq, 4),
        "mrr": round(mrr / nq, 4),
        "coverage": round(covered / nq, 4),
    }


@dataclass
class Cut:
    """A repository indexed at the commit `split` of the way through its history."""

    repo: Path  # the repository measured (its whole history)
    tx: pl.DataFrame  # `transactions` of the whole history
    sha: str  # the cut
    strata: Strata  # the clone checked out and indexed there
    seconds: float  # what indexing took


@contextmanager
def indexed_cut(
    repo: Path, split: float = 0.8, *, workers: int = 1, config: dict[str, Any] | None = None
) -> Iterator[Cut]:
    """`repo` indexed at its cut (see `index_at`) in a temp folder, removed on exit; one cut
    serves every hold-out measure of a repository."""
    tx = transactions(repo, workers)
    cut = cut_commit(tx, split)
    with tempfile.TemporaryDirectory(prefix="gitstrata-holdout-") as tmp:
        strata, seconds = index_at(repo, cut, Path(tmp), config)
        try:
            yield Cut(repo, tx, cut, strata, seconds)
        finally:
            strata.close()


def evaluate(repo: Path, *, split: float = 0.8, workers: int = 1) -> dict:
    with indexed_cut(repo, split, workers=workers) as cut:
        return evaluate_at(cut)


def evaluate_at(cut: Cut) -> dict:
    """The measures of the module docstring on `cut`."""
    strata, tx = cut.strata, cut.tx
    cfg = Config.load(strata.index_dir)
    limit = cfg.retrieval.coupling_limit
    ev, history, at_cut = history_of(strata)
    known = set(ev["node"].to_list()) & at_cut
    qs = queries(tx.filter(~pl.col("sha").is_in(sorted(history))), known)
    sources = sorted({q[1] for q in qs})
    served = {a: [c.path for c in strata.preflight(a).coupling] for a in sources}
    by_commit = commit_files(strata, code_only=False)

    def ask(subject: str, path: str) -> list[str]:
        hits = strata.search(coupled_question(subject), top_k=limit).hits
        return answer_files(hits, by_commit, limit=limit, skip=path)

    asked = {a: ask(a, a) for a in sources}
    named = most_changed_functions(strata)
    asked_fn = {a: ask(named[a], a) for a in sources if a in named}
    result: dict = {
        "cut": cut.sha,
        "queries": len(qs),
        "history_commits": len(history),
        "test_commits": tx["sha"].n_unique() - len(history),
        "limit": limit,
        "index_seconds": round(cut.seconds, 2),
    }
    result["gitstrata"] = metrics({a: served_groups(p) for a, p in served.items()}, qs, limit)
    result["search"] = metrics({a: served_groups(p) for a, p in asked.items()}, qs, limit)
    fn_qs = [q for q in qs if q[1] in asked_fn]
    result["search_function"] = {
        "queries": len(fn_qs),
        **metrics({a: served_groups(p) for a, p in asked_fn.items()}, fn_qs, limit),
    }
    scored = offline_scores(ev, at_cut, cfg.graph)
    for method in BASELINES:
        result[method] = metrics(tie_groups(scored, method), qs, limit)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cochange_holdout", description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--split", type=float, default=0.8)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    result = {
        "repo": args.repo.resolve().name,
        **evaluate(args.repo, split=args.split, workers=args.workers),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"queries {result['queries']}  history {result['history_commits']}  "
            f"test {result['test_commits']}  list {result['limit']}"
        )
        print(f"{'method':12} {'recall@5':>9} {'recall@10':>9} {'mrr':>7} {'coverage':>9}")
        for m in METHODS:
            row = result[m]
            print(
                f"{m:12} {row['recall@5']:9.4f} {row['recall@10']:9.4f} {row['mrr']:7.4f} "
                f"{row['coverage']:9.4f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
