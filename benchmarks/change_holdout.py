"""Where does a change go? Later commits' subjects asked of the index at an earlier cut.

    python -m gitstrata.benchmarks.change_holdout [REPO ...] [--json] [--split 0.8]
                                                 [--max-queries 300] [--repos click,ky]
                                                 [--config '{"embedding": {...}}']

With no repository given it uses `../shared/repos/*.bundle` beside the checkout (each cloned to
a temp folder). Protocol: the repository's non-merge commits in time order; the commit at 80 %
is the cut, and a clone checked out there is indexed with `Strata(...).index()` (as
`cochange_holdout` does). Every later commit that is not bulk, changes at most `MAX_FILES`
files, and changes at least one code file (source or test, `filekind.is_code`) that exists at
the cut is a query: its subject is the question, those code files are the truth. At most
`--max-queries` queries are kept, evenly spaced in time.

Each query goes through `Strata.search` once per mode (`full`, the product, and the baselines
`bm25`, `dense` and `hybrid`, which rank every document alike). Its answer is read as a list of
files, as an agent reads it: a hit with a path gives that path; a commit hit gives the code
files that commit changed that still exist at the cut, most touched first
(`cochange_holdout.FILES_PER_COMMIT`); repeats are dropped and the list is cut at 10 files.
Reported per mode: Recall@5 and Recall@10 of the truth files, the share of queries with a truth
file first (Hit@1) and in the first five (Hit@5), and MRR (the first truth file's reciprocal
rank, 0 beyond 10). `named` is the subset whose subject names a
truth file (its name without extension, at least four characters, as a word); `unnamed` is
the rest, where the words must be matched to code without a file name to lean on.

What it does not measure: whether the right function (not only the file) is found, and
anything a subject does not say (many subjects are terse). It is a floor, not a ceiling.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from ..store.filekind import is_code
from .cochange_holdout import Cut, answer_files, commit_files, indexed_cut

MODES = ("full", "bm25", "dense", "hybrid")
MAX_FILES = 10  # a commit changing more is a sweep, not a change someone would ask about
LIST = 10
Query = tuple[str, str, frozenset[str]]  # (sha, subject, truth files)


def subjects(repo: Path, shas: list[str]) -> dict[str, str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "log", "--no-walk=unsorted", "--format=%H%x00%s", *shas],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return dict(line.split("\x00", 1) for line in out.splitlines() if "\x00" in line)


def queries(repo: Path, test: pl.DataFrame, at_cut: set[str], limit: int) -> list[Query]:
    """The test commits' (sha, subject, code files at the cut), `limit` of them evenly spaced."""
    test = test.filter(~pl.col("bulk"))
    files: dict[str, set[str]] = {}
    for sha, node in test.select("sha", "node").iter_rows():
        files.setdefault(sha, set()).add(node)
    order = test.select("sha", "t").unique().sort("t", "sha")["sha"].to_list()
    picked = [s for s in order if len(files[s]) <= MAX_FILES]
    truth = {s: frozenset(f for f in files[s] if f in at_cut and is_code(f)) for s in picked}
    picked = [s for s in picked if truth[s]]
    if len(picked) > limit:
        step = len(picked) / limit
        picked = [picked[int(i * step)] for i in range(limit)]
    subj = subjects(repo, picked) if picked else {}
    return [(s, subj[s], truth[s]) for s in picked if subj.get(s, "").strip()]


def names_a_file(subject: str, truth: frozenset[str]) -> bool:
    low = subject.lower()
    for f in truth:
        stem = f.rsplit("/", 1)[-1].split(".", 1)[0].lower()
        if len(stem) >= 4 and re.search(rf"(?<![a-z0-9]){re.escape(stem)}(?![a-z0-9])", low):
            return True
    return False


def score(files: list[str], truth: frozenset[str]) -> dict[str, float]:
    first = next((i for i, f in enumerate(files) if f in truth), None)
    return {
        "recall@5": len(truth & set(files[:5])) / len(truth),
        "recall@10": len(truth & set(files[:10])) / len(truth),
        "hit@1": float(first == 0),
        "hit@5": float(first is not None and first < 5),
        "mrr": 0.0 if first is None else 1.0 / (first + 1),
    }


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = ("recall@5", "recall@10", "hit@1", "hit@5", "mrr")
    n = max(len(rows), 1)
    return {k: round(sum(r[k] for r in rows) / n, 4) for k in keys}


def evaluate(
    repo: Path,
    *,
    split: float = 0.8,
    max_queries: int = 300,
    config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The measures of the module docstring; `config`: sections of `.strata/config.json` for the
    cut's index (e.g. another embedder)."""
    with indexed_cut(repo, split, config=config) as cut:
        return evaluate_at(cut, max_queries=max_queries)


def evaluate_at(cut: Cut, *, max_queries: int = 300) -> dict[str, Any]:
    """`evaluate` on a repository already indexed at its cut."""
    strata = cut.strata
    gen = strata.engine.index
    history = set(gen.table("commits", columns=["sha"])["sha"].to_pylist())
    at_cut = set(gen.table("files", columns=["path"])["path"].to_pylist())
    qs = queries(
        cut.repo, cut.tx.filter(~pl.col("sha").is_in(sorted(history))), at_cut, max_queries
    )
    by_commit = commit_files(strata)
    per: dict[str, list[dict[str, float]]] = {m: [] for m in MODES}
    named = [names_a_file(subject, truth) for _, subject, truth in qs]
    for _, subject, truth in qs:
        for m in MODES:
            hits = strata.search(subject, top_k=LIST, mode=m).hits
            per[m].append(score(answer_files(hits, by_commit), truth))
    result: dict[str, Any] = {
        "cut": cut.sha,
        "queries": len(qs),
        "named": sum(named),
        "index_seconds": round(cut.seconds, 2),
    }
    for m in MODES:
        rows = per[m]
        result[m] = {
            "all": mean(rows),
            "named": mean([r for r, n in zip(rows, named, strict=True) if n]),
            "unnamed": mean([r for r, n in zip(rows, named, strict=True) if not n]),
        }
    return result


def markdown(results: list[dict[str, Any]]) -> str:
    """One row per repository and mode; `results` hold `evaluate`'s dict and `repo`."""
    out = [
        "| repository | queries (naming a file) | mode | Recall@5 | Recall@10 | Hit@1 | Hit@5 | MRR "
        "| MRR, naming no file |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        for m in MODES:
            x, u = r[m]["all"], r[m]["unnamed"]
            out.append(
                f"| {r['repo']} | {r['queries']} ({r['named']}) | {m} | {x['recall@5']:.3f} "
                f"| {x['recall@10']:.3f} | {x['hit@1']:.3f} | {x['hit@5']:.3f} | {x['mrr']:.3f} "
                f"| {u['mrr']:.3f} |"
            )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    from .real import clone, pick_repos, repo_name, shared_bundles

    ap = argparse.ArgumentParser(prog="change_holdout", description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="*", type=Path, metavar="REPO_OR_BUNDLE")
    ap.add_argument("--json", action="store_true", help="print one JSON list")
    ap.add_argument("--split", type=float, default=0.8)
    ap.add_argument("--max-queries", type=int, default=300)
    ap.add_argument("--repos", default=None, help="only these names (comma separated)")
    ap.add_argument(
        "--config",
        default=None,
        metavar="JSON",
        help='sections of config.json for the index at the cut, e.g. \'{"embedding": {"backend": '
        '"wordllama"}}\'',
    )
    args = ap.parse_args(argv)
    try:
        config = json.loads(args.config) if args.config else None
    except json.JSONDecodeError as exc:
        print(f"change_holdout: --config is not JSON: {exc}", file=sys.stderr)
        return 2
    if config is not None and not isinstance(config, dict):
        print("change_holdout: --config must be a JSON object of config sections", file=sys.stderr)
        return 2
    sources = list(args.sources) or shared_bundles("change_holdout")
    picked = pick_repos(sources, args.repos, "change_holdout")
    if picked is None:
        return 2
    results = []
    for s in picked:
        if not s.exists():
            print(f"change_holdout: {s} does not exist", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory(prefix="gitstrata-change-src-") as tmp:
            repo = s if (s / ".git").exists() else clone(s, Path(tmp) / "r")
            res = evaluate(repo, split=args.split, max_queries=args.max_queries, config=config)
        results.append({"repo": repo_name(s), **res})
        print(f"change_holdout: {repo_name(s)} done", file=sys.stderr)
    print(json.dumps(results) if args.json else markdown(results), end="" if args.json else "")
    if args.json:
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
