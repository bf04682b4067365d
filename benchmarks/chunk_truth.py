"""Definition recall and precision of the chunker against hand-made lists, per language.

`python -m gitstrata.benchmarks.chunk_truth [REPO_OR_BUNDLE ...] [--backend auto] [--misses]`

`benchmarks/chunk_truth/<language>.tsv` lists every definition of a few real files (bundle
name, path, qualname, kind, start line, end line), checked by hand against the source at the
bundle's HEAD; the header of each file states what counts as a definition there. Each named
repository (default: `../shared/repos/<bundle>.bundle` beside the checkout) is cloned into a
temp folder, every listed file is read at HEAD and chunked with `parse_source`, the product's
entry point, and its symbols (without `<module>`) are compared with the list:

- exact: the same (path, qualname, kind, start, end);
- names: the same (path, qualname), whatever the lines (a symbol found with other lines).

A bundle that is not present is skipped with a message; nothing is asserted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..stages.chunking import BACKENDS, parse_source

TRUTH_DIR = Path(__file__).resolve().parent / "chunk_truth"

Row = tuple[str, str, str, int, int]  # path, qualname, kind, start, end


@dataclass
class Score:
    language: str
    truth: set[Row] = field(default_factory=set)
    found: set[Row] = field(default_factory=set)
    skipped: list[str] = field(default_factory=list)

    def recall(self, key: int = 5) -> float:
        truth, found = self._cut(self.truth, key), self._cut(self.found, key)
        return _ratio(truth & found, truth)

    def precision(self, key: int = 5) -> float:
        truth, found = self._cut(self.truth, key), self._cut(self.found, key)
        return _ratio(truth & found, found)

    @staticmethod
    def _cut(rows: Iterable[Row], key: int) -> set[tuple]:
        return {r[:key] for r in rows}


def _ratio(hits: set, total: set) -> float:
    return len(hits) / len(total) if total else 1.0


def load_truth(folder: Path = TRUTH_DIR) -> dict[str, dict[str, list[Row]]]:
    """language -> bundle -> rows, from every `<language>.tsv` in `folder`."""
    out: dict[str, dict[str, list[Row]]] = {}
    for tsv in sorted(folder.glob("*.tsv")):
        per_bundle = out.setdefault(tsv.stem, {})
        for n, line in enumerate(tsv.read_text().splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != 6:
                raise ValueError(f"{tsv.name}:{n}: expected 6 tab-separated cells")
            bundle, path, qualname, kind, start, end = cells
            per_bundle.setdefault(bundle, []).append((path, qualname, kind, int(start), int(end)))
    return out


def chunk_rows(repo: Path, paths: Iterable[str], backend: str) -> set[Row]:
    """The symbols `parse_source` gives for each path at the repository's HEAD."""
    found: set[Row] = set()
    for path in sorted(set(paths)):
        data = subprocess.run(
            ["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, check=True
        ).stdout
        pf = parse_source(path, data, backend=backend)
        found |= {(path, s.qualname, s.kind, s.start_line, s.end_line) for s in pf.symbols[1:]}
    return found


def measure(
    sources: dict[str, Path], backend: str = "auto", truth_dir: Path = TRUTH_DIR
) -> list[Score]:
    scores = []
    for language, per_bundle in load_truth(truth_dir).items():
        score = Score(language)
        for bundle, rows in per_bundle.items():
            source = sources.get(bundle)
            if source is None:
                score.skipped.append(bundle)
                continue
            with tempfile.TemporaryDirectory(prefix="chunk-truth-") as tmp:
                repo = Path(tmp) / bundle
                subprocess.run(
                    ["git", "clone", "-q", "--no-checkout", str(source), str(repo)], check=True
                )
                score.found |= chunk_rows(repo, (r[0] for r in rows), backend)
            score.truth |= set(rows)
        scores.append(score)
    return scores


def table(scores: list[Score]) -> str:
    lines = [
        "| language | definitions | symbols | recall | precision | recall (names) "
        "| precision (names) |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in scores:
        if not s.truth:
            lines.append(f"| {s.language} | skipped: no {', '.join(s.skipped)} | | | | | |")
            continue
        lines.append(
            f"| {s.language} | {len(s.truth)} | {len(s.found)} | {s.recall():.1%} "
            f"| {s.precision():.1%} | {s.recall(2):.1%} | {s.precision(2):.1%} |"
        )
    return "\n".join(lines)


def misses(scores: list[Score]) -> str:
    out = []
    for s in scores:
        for r in sorted(s.truth - s.found):
            out.append(f"{s.language}  missed  {r}")
        for r in sorted(s.found - s.truth):
            out.append(f"{s.language}  extra   {r}")
    return "\n".join(out)


def default_sources() -> dict[str, Path]:
    # the package's parent is the checkout; the shared bundles sit beside it
    folder = Path(__file__).resolve().parent.parent.parent / "shared" / "repos"
    return {b.stem: b for b in sorted(folder.glob("*.bundle"))} if folder.is_dir() else {}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="chunk_truth", description=(__doc__ or "").split("\n")[0])
    ap.add_argument("sources", nargs="*", type=Path, metavar="REPO_OR_BUNDLE")
    ap.add_argument("--backend", default="auto", choices=BACKENDS)
    ap.add_argument("--misses", action="store_true", help="list every missed and extra symbol")
    args = ap.parse_args(argv)
    sources = default_sources()
    for s in args.sources:
        if not s.exists():
            print(f"chunk_truth: {s} does not exist", file=sys.stderr)
            print("  hint: pass a git repository or a .bundle file", file=sys.stderr)
            return 2
        sources[s.stem if s.suffix == ".bundle" else s.resolve().name] = s
    scores = measure(sources, args.backend)
    for s in scores:
        if s.skipped:
            print(f"chunk_truth: {s.language}: no {', '.join(s.skipped)}; skipped", file=sys.stderr)
    print(table(scores))
    if args.misses:
        print(misses(scores))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
