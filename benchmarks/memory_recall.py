"""Memory recall and staleness, measured through the `Strata` API.

    python -m gitstrata.benchmarks.memory_recall [--json FILE] [--markdown] [--index BACKENDS]

Recall: the labelled set in `memory_data/recall_set.json` (written before the ranking was tuned;
each query has one correct memory; four kinds: exact keywords, inflected forms, typos, paraphrases
sharing no word with the memory) is stored with `Strata.remember` in a fresh repository, then
every query is asked with `Strata.recall` in each mode (bm25, vector, hybrid) without
reinforcement, so the order of the queries does not matter. Reports Recall@1, Recall@3 and MRR
per kind and overall: without an index (subword vectors alone), then for each embedding backend
after `Strata.index` of a small repository, when the memories are documents of the index and
recall reads their vectors from it.

Staleness: the scripted history of the same file (files, memories anchored to their symbols or to
a whole file, then commits that change some of those symbols) is replayed in a real repository,
indexed after every commit; `Strata.memory.stale()` is compared with the expected set:
precision and recall.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .metrics import mean

DATA = Path(__file__).resolve().parent / "memory_data" / "recall_set.json"
MODES = ("bm25", "vector", "hybrid")
KINDS = ("exact", "inflected", "typo", "paraphrase")


def _git(repo: Path, *args: str, when: int = 1_700_000_000) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "Bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
        "GIT_AUTHOR_DATE": f"{when} +0000",
        "GIT_COMMITTER_DATE": f"{when} +0000",
    }
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def _repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    for rel, text in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text, encoding="utf-8")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "initial")
    return path


def recall_benchmark(
    workdir: Path, data: dict[str, Any], backend: str | None = None
) -> dict[str, Any]:
    """Recall without an index (`backend` None), or after `gitstrata index` of a small
    repository with that embedding backend: the memories are then documents of the index and
    recall scores them with their stored vectors and the index embedder's query vector."""
    from gitstrata import Strata

    files = {"README.md": "memory benchmark\n"}
    if backend is not None:
        files.update(data["staleness"]["files"])  # a little code beside the memories
    repo = _repo(workdir / f"recall-{backend or 'none'}", files)
    strata = Strata(repo)
    if backend is not None:
        strata.index_dir.mkdir(parents=True, exist_ok=True)
        (strata.index_dir / "config.json").write_text(
            json.dumps({"embedding": {"backend": backend}}) + "\n", encoding="utf-8"
        )
    ids = {}
    for m in data["memories"]:
        got = strata.remember(m["text"], m["kind"], dedup=False, source="user")
        ids[got.memory.id] = m["id"]
    indexed = 0
    if backend is not None:
        report = strata.index()
        documents = report.stage("documents")
        if documents is not None:
            indexed = int(documents.stats["by_kind"].get("memory", 0))
        book = strata.memory
        idx = book.index_memories()
        served = sum(1 for m in book.live() if idx is not None and idx.row(m) is not None)
        if served != len(ids):
            raise RuntimeError(f"{served} of {len(ids)} memories are served from the index")
    rows: dict[str, dict[str, list[int | None]]] = {mode: {} for mode in MODES}
    for mode in MODES:
        for q in data["queries"]:
            hits = strata.recall(q["q"], 10, mode=mode, reinforce=False, follow_links=False)
            ranked = [ids[h.memory.id] for h in hits]
            rank = ranked.index(q["answer"]) + 1 if q["answer"] in ranked else None
            rows[mode].setdefault(q["kind"], []).append(rank)
    out: dict[str, Any] = {
        "memories": len(data["memories"]),
        "queries": len(data["queries"]),
        "index": backend,
        "indexed_memories": indexed,
    }
    if backend is not None:
        out["beside_search"] = beside_search(strata, data["queries"], ids)
    table = []
    for kind in (*KINDS, "all"):
        for mode in MODES:
            ranks = (
                [r for k in KINDS for r in rows[mode].get(k, [])]
                if kind == "all"
                else rows[mode].get(kind, [])
            )
            table.append(
                {
                    "kind": kind,
                    "mode": mode,
                    "queries": len(ranks),
                    "recall@1": mean([1.0 if r == 1 else 0.0 for r in ranks]),
                    "recall@3": mean([1.0 if r is not None and r <= 3 else 0.0 for r in ranks]),
                    "mrr": mean([1.0 / r if r else 0.0 for r in ranks]),
                }
            )
    out["table"] = table
    return out


def beside_search(strata: Any, queries: list[dict[str, Any]], ids: dict[str, str]) -> list[dict]:
    """The memories a full `Strata.search` shows beside its hits, per query kind: how many
    questions show their labelled memory, and how many other memories are shown in all."""
    rows: dict[str, list[tuple[bool, int]]] = {}
    for q in queries:
        shown = [ids.get(m.id) for m in strata.search(q["q"]).memories]
        rows.setdefault(q["kind"], []).append(
            (q["answer"] in shown, sum(1 for x in shown if x != q["answer"]))
        )
    rows["all"] = [r for k in KINDS for r in rows.get(k, [])]
    return [
        {
            "kind": kind,
            "queries": len(rows.get(kind, [])),
            "answer_shown": sum(hit for hit, _ in rows.get(kind, [])),
            "others_shown": sum(n for _, n in rows.get(kind, [])),
        }
        for kind in (*KINDS, "all")
    ]


def staleness_benchmark(workdir: Path, script: dict[str, Any]) -> dict[str, Any]:
    from gitstrata import Strata

    repo = _repo(workdir / "stale", script["files"])
    strata = Strata(repo)
    strata.index()
    ids = {}
    for m in script["memories"]:
        got = strata.remember(m["text"], "fact", anchors=[m["anchor"]], dedup=False)
        ids[got.memory.id] = m["id"]
    when = 1_700_000_000
    for edit in script["edits"]:
        path = repo / edit["file"]
        text = path.read_text(encoding="utf-8")
        assert edit["old"] in text, edit["subject"]
        path.write_text(text.replace(edit["old"], edit["new"], 1), encoding="utf-8")
        when += 86_400
        _git(repo, "commit", "-q", "-am", edit["subject"], when=when)
        strata.index()
    flagged = {ids[m.id] for m, _ in strata.memory.stale() if m.id in ids}
    expected = set(script["expected_stale"])
    tp = len(flagged & expected)
    return {
        "memories": len(script["memories"]),
        "commits": len(script["edits"]),
        "expected": sorted(expected),
        "flagged": sorted(flagged),
        "precision": tp / len(flagged) if flagged else 1.0,
        "recall": tp / len(expected) if expected else 1.0,
    }


INDEX_BACKENDS = ("hashing-lsa", "wordllama")


def run(workdir: Path | None = None, backends: tuple[str, ...] = INDEX_BACKENDS) -> dict[str, Any]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="gitstrata-memory-") as tmp:
        base = Path(workdir or tmp)
        return {
            "recall": recall_benchmark(base, data),
            "recall_indexed": [recall_benchmark(base, data, b) for b in backends],
            "staleness": staleness_benchmark(base, data["staleness"]),
        }


def markdown(result: dict[str, Any]) -> str:
    """The RESULTS.md section."""
    rec, st = result["recall"], result["staleness"]
    lines = [
        "## Memory recall and staleness",
        "",
        "`python -m gitstrata.benchmarks.memory_recall --markdown`: "
        f"{rec['memories']} memories and {rec['queries']} labelled queries "
        "(`benchmarks/memory_data/recall_set.json`, written before the ranking was tuned), "
        "asked through `Strata.recall` without reinforcement; no index, so the vector path is "
        "the subword (character 3-5-gram) vectors alone.",
        "",
        "| Query kind | Queries | Mode | Recall@1 | Recall@3 | MRR |",
        "|---|--:|---|--:|--:|--:|",
    ]
    for row in rec["table"]:
        kind = f"**{row['kind']}**" if row["kind"] == "all" else row["kind"]
        mode = f"**{row['mode']}**" if row["mode"] == "hybrid" else row["mode"]
        lines.append(
            f"| {kind} | {row['queries']} | {mode} | {row['recall@1']:.0%} | "
            f"{row['recall@3']:.0%} | {row['mrr']:.2f} |"
        )
    for got in result.get("recall_indexed", []):
        lines += [
            "",
            f"With an index (`{got['index']}` embedding backend; {got['indexed_memories']} "
            "memories folded into the index's documents, scored by their stored vectors):",
            "",
            "| Query kind | Queries | Mode | Recall@1 | Recall@3 | MRR |",
            "|---|--:|---|--:|--:|--:|",
        ]
        for row in got["table"]:
            if row["mode"] == "bm25":
                continue  # the keyword path does not read the index
            kind = f"**{row['kind']}**" if row["kind"] == "all" else row["kind"]
            mode = f"**{row['mode']}**" if row["mode"] == "hybrid" else row["mode"]
            lines.append(
                f"| {kind} | {row['queries']} | {mode} | {row['recall@1']:.0%} | "
                f"{row['recall@3']:.0%} | {row['mrr']:.2f} |"
            )
        side = got.get("beside_search")
        if side:
            lines += [
                "",
                "Beside a full `Strata.search` of each query (the memories shown next to its "
                "hits), same index:",
                "",
                "| Query kind | Queries | Labelled memory shown | Other memories shown |",
                "|---|--:|--:|--:|",
            ]
            for row in side:
                kind = f"**{row['kind']}**" if row["kind"] == "all" else row["kind"]
                lines.append(
                    f"| {kind} | {row['queries']} | {row['answer_shown']} | {row['others_shown']} |"
                )
    lines += [
        "",
        f"Staleness on a scripted history ({st['memories']} memories anchored to symbols and "
        f"files, {st['commits']} commits, each indexed): precision {st['precision']:.0%}, "
        f"recall {st['recall']:.0%} (flagged {', '.join(st['flagged']) or 'none'}; expected "
        f"{', '.join(st['expected'])}).",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.memory_recall", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--json", dest="json_out", type=Path)
    ap.add_argument("--markdown", action="store_true", help="print the RESULTS.md section")
    ap.add_argument(
        "--index",
        default=",".join(INDEX_BACKENDS),
        help="embedding backends to also measure with an index, comma-separated ('' for none)",
    )
    args = ap.parse_args(argv)
    result = run(backends=tuple(b for b in args.index.split(",") if b))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n")
    if args.markdown:
        sys.stdout.write(markdown(result) + "\n")
    elif not args.json_out:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
