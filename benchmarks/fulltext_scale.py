"""Full-text side at scale: our Tantivy index against bm25s on the same documents and terms.

    python -m gitstrata.benchmarks.fulltext_scale --n 100000 [--json]

Documents are windows of 5 to 40 lines of this project's own source, each with a path and a
title taken from the window, so term statistics look like a code base's. Both engines get the
terms of `store/tokenizer.py` (bm25s is given the token lists, so only indexing and scoring are
compared). Queries are 2 to 4 terms drawn from a random document. Single-threaded, one query at
a time; P50 / P95 over all queries. Our side searches four boosted fields (title, symbol, path,
body) as the product does; bm25s searches one.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from ..store import fulltext
from ..store.fulltext_writer import write_index
from ..store.tokenizer import tokenize
from .vector_scale import project_texts


def corpus(n: int, seed: int = 5) -> list[tuple[str, str, str]]:
    """n (title, path, body) triples."""
    lines = [ln for t in project_texts() for ln in t.splitlines() if ln.strip()]
    rng = np.random.default_rng(seed)
    docs = []
    for i in range(n):
        start = int(rng.integers(0, len(lines) - 40))
        body = "\n".join(lines[start : start + int(rng.integers(5, 40))])
        words = tokenize(body)
        title = words[0] if words else f"doc{i}"
        docs.append((title, f"src/m{i % 997}/f{i % 31}.py", body))
    return docs


def run(n: int, queries: int = 300) -> dict:
    docs = corpus(n)
    t0 = time.perf_counter()
    tokens = [tokenize(f"{t} {p} {b}") for t, p, b in docs]
    tokenize_s = time.perf_counter() - t0
    rng = np.random.default_rng(9)
    qterms: list[list[str]] = []
    while len(qterms) < queries:
        toks = tokens[int(rng.integers(0, n))]
        if len(toks) >= 4:
            qterms.append(
                list(dict.fromkeys(rng.choice(toks, size=int(rng.integers(2, 5))).tolist()))
            )

    out: dict = {"n": n, "queries": queries, "tokenize_s": round(tokenize_s, 2)}
    with tempfile.TemporaryDirectory(prefix="gitstrata-ft-") as tmp:
        t0 = time.perf_counter()
        rows = (
            (i, "symbol", [p], fulltext.field_terms(t, [t], [p], b))
            for i, (t, p, b) in enumerate(docs)
        )
        write_index(Path(tmp) / "ft", rows, threads=1)
        out["tantivy_build_s"] = round(time.perf_counter() - t0, 2)
        ft = fulltext.FullText.open(Path(tmp) / "ft")
        ft.search_terms(qterms[0], 20)
        ts = []
        for q in qterms:
            t0 = time.perf_counter()
            ft.search_terms(q, 20)
            ts.append((time.perf_counter() - t0) * 1e3)
        out["tantivy_p50_ms"] = round(float(np.percentile(ts, 50)), 4)
        out["tantivy_p95_ms"] = round(float(np.percentile(ts, 95)), 4)
        size = sum(f.stat().st_size for f in (Path(tmp) / "ft").rglob("*") if f.is_file())
        out["tantivy_index_mb"] = round(size / 2**20, 1)
    try:
        import bm25s
    except ImportError:
        out.update(bm25s_build_s=None, bm25s_p50_ms=None, bm25s_p95_ms=None)
        return out
    t0 = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    out["bm25s_build_s"] = round(time.perf_counter() - t0, 2)
    vocab = retriever.vocab_dict
    ts = []
    for q in qterms:
        t0 = time.perf_counter()
        ids = [[vocab[t] for t in q if t in vocab]]
        retriever.retrieve(ids, k=20, show_progress=False, n_threads=1)
        ts.append((time.perf_counter() - t0) * 1e3)
    out["bm25s_p50_ms"] = round(float(np.percentile(ts, 50)), 4)
    out["bm25s_p95_ms"] = round(float(np.percentile(ts, 95)), 4)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    result = run(args.n, args.queries)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:20s} {value}")


if __name__ == "__main__":
    main()
