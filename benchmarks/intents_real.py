"""Commit intents against hand labels on real repositories.

    python -m gitstrata.benchmarks.intents_real [--labels DIR] [--json] [--errors] [REPO ...]

A REPO is a git bundle (cloned to a temp folder) or a repository folder; its name (the bundle's
or folder's stem) selects `<name>.jsonl` in the labels folder (`benchmarks/labels/` by default;
lines `{"sha", "intent", "why"}`, rules in its `RULES.md`). With no REPO, the bundles in
`../shared/repos/` beside the project are used when present, and skipped with a message when not.

The labelled commits go through the `capsule` stage's own extraction (`pipeline.history.extract`:
the streamed `git log` the index reads, and `capsule.build` with the repository's history
config), so the intent measured is the one the index stores. Reported per repository: accuracy,
per-class precision / recall / support, bugfix precision, and the most frequent confusions
(label -> predicted).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..pipeline.gitio import Git
from ..pipeline.history import extract
from ..store.config import Config
from ..store.vocabulary import INTENTS

HERE = Path(__file__).resolve().parent
LABELS = HERE / "labels"
BUNDLES = HERE.parent.parent / "shared" / "repos"


def load_labels(path: Path) -> dict[str, str]:
    """sha -> hand label from a `<name>.jsonl` file."""
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[row["sha"]] = row["intent"]
    return out


def predict(repo: Path, shas: Sequence[str]) -> dict[str, tuple[str, str]]:
    """sha -> (intent, subject) as the `capsule` stage computes them for these commits."""
    git = Git(repo)
    cfg = Config.load(repo / ".strata").history
    commits, *_ = extract((str(git.root), list(shas), cfg))
    rows = commits.select(["sha", "intent", "subject"]).to_pylist()
    return {r["sha"]: (r["intent"], r["subject"]) for r in rows}


def score(labels: dict[str, str], predicted: dict[str, str]) -> dict:
    """Accuracy, per-class precision / recall / support and confusions of `predicted`."""
    pairs = [(labels[s], predicted[s]) for s in sorted(labels)]
    n = len(pairs)
    per_class = {}
    seen = {g for g, _ in pairs} | {p for _, p in pairs}
    for c in [*INTENTS, *sorted(seen - set(INTENTS))]:
        tp = sum(1 for g, p in pairs if g == c and p == c)
        n_pred = sum(1 for _, p in pairs if p == c)
        n_gold = sum(1 for g, _ in pairs if g == c)
        if n_pred or n_gold:
            per_class[c] = {
                "precision": tp / n_pred if n_pred else None,
                "recall": tp / n_gold if n_gold else None,
                "support": n_gold,
                "predicted": n_pred,
            }
    confusions = Counter(f"{g}->{p}" for g, p in pairs if g != p)
    bug = per_class.get("bugfix", {})
    return {
        "n": n,
        "accuracy": sum(g == p for g, p in pairs) / n if n else 0.0,
        "bugfix_precision": bug.get("precision"),
        "bugfix_recall": bug.get("recall"),
        "per_class": per_class,
        "confusions": dict(sorted(confusions.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


@contextmanager
def checkout(source: Path) -> Iterator[Path]:
    """A repository folder for `source`: the folder itself, or a temp clone of a bundle."""
    if source.is_dir():
        yield source
        return
    with tempfile.TemporaryDirectory(prefix="gitstrata-intents-") as tmp:
        dest = Path(tmp) / source.stem
        subprocess.run(
            ["git", "clone", "-q", str(source), str(dest)], check=True, capture_output=True
        )
        yield dest


def evaluate(source: Path, labels_dir: Path = LABELS) -> dict | None:
    """The scores of one repository, with its mismatches; None when it has no labels."""
    name = source.stem if source.is_file() else source.name
    label_file = labels_dir / f"{name}.jsonl"
    if not label_file.exists():
        return None
    labels = load_labels(label_file)
    with checkout(source) as repo:
        got = predict(repo, sorted(labels))
    missing = sorted(set(labels) - set(got))
    if missing:
        raise SystemExit(f"{name}: {len(missing)} labelled commits not in history ({missing[0]})")
    result = score(labels, {s: got[s][0] for s in labels})
    result["repo"] = name
    result["errors"] = [
        {"sha": s, "label": labels[s], "predicted": got[s][0], "subject": got[s][1]}
        for s in sorted(labels)
        if labels[s] != got[s][0]
    ]
    return result


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:5.2f}"


def render(results: list[dict], *, errors: bool = False) -> str:
    lines = [
        f"{'repository':<12} {'n':>3} {'accuracy':>8} {'bugfix P':>8} {'bugfix R':>8}",
    ]
    for r in results:
        lines.append(
            f"{r['repo']:<12} {r['n']:>3} {r['accuracy']:8.2f} {_fmt(r['bugfix_precision']):>8}"
            f" {_fmt(r['bugfix_recall']):>8}"
        )
    for r in results:
        lines.append("")
        lines.append(f"{r['repo']}: class      P     R   support predicted")
        for c, m in r["per_class"].items():
            lines.append(
                f"  {c:<14} {_fmt(m['precision'])} {_fmt(m['recall'])} {m['support']:>6}"
                f" {m['predicted']:>6}"
            )
        top = ", ".join(f"{k} {v}" for k, v in list(r["confusions"].items())[:6])
        lines.append(f"  confusions (label->predicted): {top or 'none'}")
        if errors:
            for e in r["errors"]:
                lines.append(
                    f"    {e['sha'][:10]} {e['label']:>8} -> {e['predicted']:<8} {e['subject']}"
                )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gitstrata.benchmarks.intents_real")
    ap.add_argument("repos", nargs="*", type=Path, help="git bundles or repository folders")
    ap.add_argument("--labels", type=Path, default=LABELS, help="folder of <name>.jsonl labels")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--errors", action="store_true", help="list every mismatch")
    args = ap.parse_args(argv)
    sources = list(args.repos)
    if not sources:
        sources = sorted(BUNDLES.glob("*.bundle")) if BUNDLES.is_dir() else []
        if not sources:
            print(f"no repositories given and no bundles in {BUNDLES}: skipped", file=sys.stderr)
            return 0
    if not args.labels.is_dir():
        print(f"error: labels folder not found: {args.labels}", file=sys.stderr)
        return 2
    results = []
    for source in sources:
        if not source.exists():
            print(f"error: no such repository or bundle: {source}", file=sys.stderr)
            return 2
        r = evaluate(source, args.labels)
        if r is None:
            print(f"{source.name}: no labels in {args.labels}: skipped", file=sys.stderr)
            continue
        results.append(r)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(render(results, errors=args.errors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
