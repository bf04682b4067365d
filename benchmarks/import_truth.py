"""Import-link quality on real repositories: `python -m gitstrata.benchmarks.import_truth`.

For a few files per language, the links a reader finds by hand (committed as paths only under
`benchmarks/import_truth/<repo>.json`) are compared with what the `chunk` stage writes to
`files.imports_resolved`: precision and recall of the file -> file links. Each repository is
cloned from `../shared/repos/<repo>.bundle` (beside the checkout, or `--repos`) into a temp folder
and indexed through `run_index`, so the numbers are what a user's index holds; a missing bundle is
skipped with a message. `--hidden REPO` also builds the full index of those repositories and
counts their co-change file pairs flagged hidden (no import link), linked and unknown.
`--asked` also builds the full index and asks `Strata.search`, in the product and the BM25,
dense and hybrid baselines, "Which files import T?" of every file the hand-listed files import
(truth: those of the listed files that import it; recall in the first ten files named) and
"What does F import?" of every listed file importing something (truth: its listed links;
recall in the first as many files named, and two more).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..pipeline.runner import run_index
from ..pipeline.tree import CHUNK
from ..store.generations import Store

TRUTH_DIR = Path(__file__).resolve().parent / "import_truth"


def default_repos() -> Path:
    # the package's parent is the checkout; the shared bundles sit beside it
    return Path(__file__).resolve().parent.parent.parent / "shared" / "repos"


def clone(bundle: Path, into: Path) -> Path:
    dest = into / bundle.stem
    subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True, capture_output=True)
    return dest


def score(truth: dict[str, list[str]], resolved: dict[str, list[str]]) -> dict[str, Any]:
    """Micro precision / recall over the (file, target) links of the hand-listed files."""
    tp = fp = fn = 0
    misses: dict[str, dict[str, list[str]]] = {}
    for path, expected in truth.items():
        got = set(resolved.get(path, []))
        want = set(expected)
        tp += len(got & want)
        fp += len(got - want)
        fn += len(want - got)
        if got != want:
            misses[path] = {"extra": sorted(got - want), "missing": sorted(want - got)}
    return {
        "files": len(truth),
        "links": tp + fn,
        "found": tp + fp,
        "precision": round(tp / (tp + fp), 4) if tp + fp else None,
        "recall": round(tp / (tp + fn), 4) if tp + fn else None,
        "misses": misses,
    }


def measure(repo: Path, truth: dict[str, list[str]]) -> dict[str, Any]:
    run_index(repo, stages=[CHUNK], rebuild=True)
    files = Store(repo / ".strata").require_live().table("files")
    rows = files.select(["path", "imports_resolved"]).to_pylist()
    return score(truth, {r["path"]: r["imports_resolved"] or [] for r in rows})


MODES = ("full", "bm25", "dense", "hybrid")


def asked(repo: Path, truth: dict[str, list[str]]) -> dict[str, dict[str, float | None]]:
    """Per search mode, the recall of the import questions of `--asked` (module doc)."""
    from ..facade import Strata

    targets = sorted({t for links in truth.values() for t in links})
    out: dict[str, dict[str, float | None]] = {}
    with Strata(repo) as strata:
        strata.index()

        def named(question: str, mode: str, asked_of: str) -> list[str]:
            hits = strata.search(question, top_k=10, mode=mode).hits
            paths = (h.path for h in hits if h.kind == "symbol" and h.path)
            return [p for p in dict.fromkeys(paths) if p != asked_of]

        for mode in MODES:
            into = [
                len(want & set(named(f"Which files import {t}?", mode, t))) / len(want)
                for t in targets
                if (want := {src for src, links in truth.items() if t in links})
            ]
            of = [
                len(
                    set(links) & set(named(f"What does {src} import?", mode, src)[: len(links) + 2])
                )
                / len(links)
                for src, links in truth.items()
                if links
            ]
            out[mode] = {
                "importers": len(into),
                "importers_recall@10": round(sum(into) / len(into), 4) if into else None,
                "imported": len(of),
                "imports_recall": round(sum(of) / len(of), 4) if of else None,
            }
    return out


def hidden_counts(repo: Path) -> dict[str, int]:
    """Co-change file pairs (each unordered pair once) by their `hidden` flag."""
    run_index(repo, rebuild=True)
    cf = Store(repo / ".strata").require_live().table("cochange_files").to_pylist()
    pairs = [r for r in cf if r["src"] < r["dst"]]
    return {
        "pairs": len(pairs),
        "hidden": sum(r["hidden"] is True for r in pairs),
        "linked": sum(r["hidden"] is False for r in pairs),
        "unknown": sum(r["hidden"] is None for r in pairs),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="import_truth", description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--repos", type=Path, default=None, help="folder of <repo>.bundle files")
    ap.add_argument(
        "--hidden", nargs="*", default=[], metavar="REPO", help="also count hidden pairs"
    )
    ap.add_argument(
        "--asked", action="store_true", help="also ask search for importers and imports"
    )
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    repos = args.repos or default_repos()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="import-truth-") as tmp:
        for truth_file in sorted(TRUTH_DIR.glob("*.json")):
            name = truth_file.stem
            bundle = repos / f"{name}.bundle"
            if not bundle.is_file():
                print(f"import_truth: {bundle} not found; {name} skipped", file=sys.stderr)
                continue
            truth = json.loads(truth_file.read_text())["links"]
            repo = clone(bundle, Path(tmp))
            results[name] = measure(repo, truth)
            if name in args.hidden:
                results[name]["cochange_pairs"] = hidden_counts(repo)
            if args.asked:
                results[name]["asked"] = asked(repo, truth)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print("| repo | files | links | found | precision | recall |")
    print("|---|---|---|---|---|---|")
    for name, r in results.items():
        print(
            f"| {name} | {r['files']} | {r['links']} | {r['found']} | {r['precision']} | {r['recall']} |"
        )
    for name, r in results.items():
        for path, miss in r["misses"].items():
            print(f"{name} {path}: extra {miss['extra']} missing {miss['missing']}")
        if "cochange_pairs" in r:
            print(f"{name} co-change file pairs: {r['cochange_pairs']}")
    if args.asked:
        print()
        print(
            "| repo | importers asked | recall@10 full / BM25 / dense / hybrid "
            "| imports asked | recall, the same |"
        )
        print("|---|---|---|---|---|")
        for name, r in results.items():
            a = r["asked"]
            into = " / ".join(str(a[m]["importers_recall@10"]) for m in MODES)
            of = " / ".join(str(a[m]["imports_recall"]) for m in MODES)
            print(
                f"| {name} | {a['full']['importers']} | {into} | {a['full']['imported']} | {of} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
