"""The router's learned reader: its training, and how well each way of routing reads questions
of a split it was not trained on.

`python -m gitstrata.benchmarks.router_model --write` trains the reader on `TRAIN_SPLITS` (dev
and the retired held-out splits) and writes `serve/router_model.npz`; a test checks the shipped
file equals a fresh run. Without `--write` it reports, for each split, the share of questions
whose class is read right by the cue patterns alone, by the reader alone and by the router as it
routes (the cue patterns, then the reader when it is sure of a sentence they do not read), each
reader trained
leaving that split out. The cue patterns were written on the splits of `TRAIN_SPLITS`, so their
share there is optimistic; the reader's is not.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ..serve import router
from ..serve import router_model as rm
from .dataset import SPLITS, queries

# the splits the shipped reader learns from: dev and the held-out splits retired so far; a
# held-out split written after them stays out until it has been used to diagnose a change
TRAIN_SPLITS: tuple[str, ...] = ("dev",) + tuple(f"heldout_v{i}" for i in range(1, 18))


def _examples(splits: Sequence[str]) -> tuple[list[tuple[str, bool]], list[str]]:
    texts: list[tuple[str, bool]] = []
    labels: list[str] = []
    for split in splits:
        for q in queries(split):
            text = router.route_text(q.text)
            texts.append((text, router.is_exact(text)))
            labels.append(q.query_class)
    return texts, labels


def fit(splits: Sequence[str] = TRAIN_SPLITS) -> rm.Model:
    texts, labels = _examples(splits)
    return rm.train(texts, labels, splits=splits)


def leave_one_out(splits: Sequence[str] = SPLITS) -> dict[str, dict[str, float]]:
    """Per split: the share of its questions each way of routing reads right, the reader
    trained on the other splits of `TRAIN_SPLITS` (a split written after them: on all)."""
    out: dict[str, dict[str, float]] = {}
    for split in splits:
        model = fit([s for s in TRAIN_SPLITS if s != split])

        def reader(text: str, lookup: bool, model: rm.Model = model) -> Sequence[tuple[str, float]]:
            return rm.ranked(model, text, lookup)

        texts, labels = _examples([split])
        n = len(labels)
        cues = sum(router._pick(t)[0] == c for (t, _), c in zip(texts, labels, strict=True))
        alone = sum(reader(t, x)[0][0] == c for (t, x), c in zip(texts, labels, strict=True))
        routed = sum(
            router._read(t, reader)[0] == c for (t, _), c in zip(texts, labels, strict=True)
        )
        out[split] = {
            "questions": n,
            "cue_patterns": round(cues / n, 4),
            "reader": round(alone / n, 4),
            "router": round(routed / n, 4),
        }
    return out


def markdown(result: dict[str, dict[str, float]]) -> str:
    lines = [
        "| split | questions | cue patterns | learned reader (split left out) | router |",
        "|---|---|---|---|---|",
    ]
    for split, r in result.items():
        lines.append(
            f"| {split} | {r['questions']:.0f} | {r['cue_patterns']:.0%} | {r['reader']:.0%} | "
            f"{r['router']:.0%} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gitstrata.benchmarks.router_model")
    ap.add_argument("--write", action="store_true", help="train and write the shipped weights")
    ap.add_argument("--json", action="store_true", help="print the per-split shares as JSON")
    args = ap.parse_args(argv)
    if args.write:
        rm.save(fit(), rm.WEIGHTS)
        print(f"wrote {rm.WEIGHTS.name}: trained on {', '.join(TRAIN_SPLITS)}")
        return 0
    unknown = [s for s in TRAIN_SPLITS if s not in SPLITS]
    if unknown:
        print(f"error: unknown splits {unknown}", file=sys.stderr)
        return 2
    result = leave_one_out()
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
