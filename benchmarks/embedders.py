"""The embedder ablation: each embedding backend through the whole product, on the dev split.

    python -m gitstrata.benchmarks.embedders [--json] [--variants a,b] [--repos click]
                                             [--out benchmarks/RESULTS.md]

For every variant (an `embedding` config section) the fixture is indexed with that section in the
index's `config.json`, and the dev split's queries run through the full engine and through the
dense float32 baseline of the same vectors (the embedder alone). Only the dev split is read: the
default backend is chosen on it, so the held-out splits stay unseen by that choice.

Cost, per variant: the `embed` stage's time per 1,000 documents (`embed_documents` over the
index's own documents table, a fit from scratch, one process) on the fixture and on real
repositories (`../shared/repos/*.bundle` when present), and the query-side cost (`embed_query`
per query, median, after the model is loaded) plus the one-off model load of a fresh process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# name -> the `embedding` config section it sets
VARIANTS: dict[str, dict[str, Any]] = {
    "hashing-lsa": {"backend": "hashing-lsa"},
    "wordllama": {"backend": "wordllama"},
    "hashing-lsa+wordllama (w=0.3)": {"backend": "hashing-lsa+wordllama", "wordllama_weight": 0.3},
    "hashing-lsa+wordllama (w=0.5)": {"backend": "hashing-lsa+wordllama", "wordllama_weight": 0.5},
    "hashing-lsa+wordllama (w=0.7)": {"backend": "hashing-lsa+wordllama", "wordllama_weight": 0.7},
}
# further variants, measured on request (`--variants`)
EXTRA_VARIANTS: dict[str, dict[str, Any]] = {
    "wordllama (64 tokens)": {"backend": "wordllama", "wordllama_max_tokens": 64},
    "wordllama (128 tokens)": {"backend": "wordllama", "wordllama_max_tokens": 128},
    "wordllama (all tokens)": {"backend": "wordllama", "wordllama_max_tokens": 65_536},
    "hashing-lsa+wordllama (w=0.2)": {"backend": "hashing-lsa+wordllama", "wordllama_weight": 0.2},
    # components kept: the served prefix alone (256) against 384
    "hashing-lsa (256 components)": {"backend": "hashing-lsa", "full_dim": 256},
    "hashing-lsa (384 components)": {"backend": "hashing-lsa", "full_dim": 384},
    "hashing-lsa+wordllama (w=0.5; all tokens)": {
        "backend": "hashing-lsa+wordllama",
        "wordllama_weight": 0.5,
        "wordllama_max_tokens": 65_536,
    },
    "hashing-lsa+wordllama (w=0.3; 128 tokens)": {
        "backend": "hashing-lsa+wordllama",
        "wordllama_weight": 0.3,
        "wordllama_max_tokens": 128,
    },
}
SPLIT = "dev"
QUERY_SAMPLE = (
    "why does the checkout retry the payment charge",
    "a bot sent a full quota of password guesses just before the minute rolled over",
    "which files must change with the session token refresh",
    "ERR_PAYMENT_DUPLICATE",
)


def _write_config(index_dir: Path, section: dict[str, Any]) -> None:
    index_dir.mkdir(parents=True, exist_ok=True)
    (index_dir / "config.json").write_text(json.dumps({"embedding": section}) + "\n")


def quality(variants: dict[str, dict[str, Any]], workdir: Path) -> dict[str, Any]:
    """Per variant: dev-split metrics of the full engine and of the dense baseline."""
    from .fixture import build_fixture
    from .run import evaluate, setup

    info = build_fixture(workdir / "fixture", force=True)
    out: dict[str, Any] = {}
    for i, (name, section) in enumerate(variants.items()):
        base = workdir / f"v{i}"
        _write_config(base / "index", section)
        bench = setup(base, info)
        out[name] = {
            "full": evaluate(bench, SPLIT, "full"),
            "dense": evaluate(bench, SPLIT, "dense"),
            "documents": _documents(bench.strata).num_rows,
        }
        out[name]["cost"] = embed_cost(_documents(bench.strata), section)
    return out


def _documents(strata: Any):
    from ..store.generations import Store

    return Store(strata.index_dir).require_live().table("documents")


def embed_cost(documents: Any, section: dict[str, Any]) -> dict[str, float]:
    """The `embed` stage's seconds per 1,000 documents (a fit from scratch) and the query
    side's milliseconds per query, for one `embedding` section."""
    from ..stages.embed import embed_documents
    from ..store.config import EmbeddingConfig

    cfg = EmbeddingConfig.model_validate(section)
    embed_documents(documents.slice(0, 64), cfg)  # model files read once, outside the timing
    t0 = time.perf_counter()
    result = embed_documents(documents, cfg)
    seconds = time.perf_counter() - t0
    embedder = result.embedder
    per_query = []
    for _ in range(20):
        for q in QUERY_SAMPLE:
            t1 = time.perf_counter()
            embedder.embed_query(q)
            per_query.append((time.perf_counter() - t1) * 1000)
    n = max(documents.num_rows, 1)
    return {
        "documents": documents.num_rows,
        "embed_s": round(seconds, 3),
        "embed_s_per_1k_docs": round(seconds / n * 1000, 3),
        "query_embed_ms_p50": round(statistics.median(per_query), 4),
    }


def load_cost(section: dict[str, Any]) -> float:
    """Seconds a fresh process takes to load a pretrained backend's model (imports and files)
    before its first vector, beyond what gitstrata imports anyway: what a one-shot
    `gitstrata query` pays once. Measured in a subprocess; 0 for hashing-LSA, whose state is
    the index's own (memory-mapped)."""
    code = (
        "import json, sys, time; "
        "from gitstrata.store.config import EmbeddingConfig; "
        "from gitstrata.stages.embed import new_backend; "
        "cfg = EmbeddingConfig.model_validate(json.loads(sys.argv[1])); "
        "t = time.perf_counter(); b = new_backend(cfg); "
        "b.wordllama.transform(['warm up']) if hasattr(b, 'wordllama') else "
        "b.transform(['warm up']) if b.name != 'hashing-lsa' else None; "
        "print(time.perf_counter() - t)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(section)], capture_output=True, text=True
    )
    try:
        return round(float(out.stdout.strip().splitlines()[-1]), 3)
    except (ValueError, IndexError):
        return float("nan")


def real_costs(
    bundles: list[Path], variants: dict[str, dict[str, Any]], workdir: Path
) -> dict[str, Any]:
    """Per repository: the embed cost of each variant over the documents of its index."""
    from gitstrata import Strata

    from .real import clone, repo_name

    out: dict[str, Any] = {}
    for bundle in bundles:
        name = repo_name(bundle)
        repo = clone(bundle, workdir / "repos" / name)
        strata = Strata(repo, index_dir=workdir / "repos" / f"{name}-index")
        strata.index(jobs=1)
        docs = _documents(strata)
        out[name] = {v: embed_cost(docs, section) for v, section in variants.items()}
    return out


def run(
    variants: dict[str, dict[str, Any]] | None = None, bundles: list[Path] | None = None
) -> dict[str, Any]:
    variants = variants or VARIANTS
    with tempfile.TemporaryDirectory(prefix="gitstrata-embedders-") as tmp:
        work = Path(tmp)
        result: dict[str, Any] = {"split": SPLIT, "variants": quality(variants, work)}
        for name, section in variants.items():
            result["variants"][name]["cost"]["load_s"] = load_cost(section)
        if bundles:
            result["real"] = real_costs(bundles, variants, work)
    return result


def _f(x: Any, fmt: str = "{:.3f}") -> str:
    return "-" if x is None else fmt.format(x)


HEADING = "## Embedder ablation (`python -m gitstrata.benchmarks.embedders`)"


def markdown(result: dict[str, Any]) -> str:
    """The ablation table and the cost table: the RESULTS.md section."""
    from .dataset import QUERY_CLASSES

    variants = result["variants"]
    head = "| embedder | nDCG@5 full | nDCG@5 dense | " + " | ".join(QUERY_CLASSES) + " |"
    lines = [
        HEADING,
        "",
        f"The {result['split']} split only (the default is chosen on it): nDCG@5 of the full "
        "engine and of the dense float32 baseline over the same vectors; per class, the full "
        "engine. `w` is wordllama's share of the fused cosine.",
        "",
        head,
        "|" + " --- |" * (3 + len(QUERY_CLASSES)),
    ]
    for name, v in variants.items():
        per = v["full"]["per_class_ndcg@5"]
        cells = " | ".join(_f(per.get(c)) for c in QUERY_CLASSES)
        lines.append(
            f"| {name} | {_f(v['full']['ndcg@5'])} | {_f(v['dense']['ndcg@5'])} | {cells} |"
        )
    lines += [
        "",
        "Embed stage time (fit from scratch, one process) per 1,000 documents, query embedding "
        "time and the one-off model load of a fresh process; times vary with the machine's load. "
        "hashing-LSA's time includes its SVD fit, a pretrained model's only its transform.",
        "",
        "| embedder | corpus | documents | embed s / 1k docs | query embed ms (P50) | load s |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, v in variants.items():
        c = v["cost"]
        lines.append(
            f"| {name} | fixture | {c['documents']:,} | {_f(c['embed_s_per_1k_docs'])} | "
            f"{_f(c['query_embed_ms_p50'], '{:.4f}')} | {_f(c.get('load_s'))} |"
        )
    for repo, per in result.get("real", {}).items():
        for name, c in per.items():
            lines.append(
                f"| {name} | {repo} | {c['documents']:,} | {_f(c['embed_s_per_1k_docs'])} | "
                f"{_f(c['query_embed_ms_p50'], '{:.4f}')} | |"
            )
    return "\n".join(lines) + "\n"


def write_section(path: Path, section: str) -> None:
    """Put `section` into RESULTS.md: in place of the previous one, else at the end (among the
    separately measured sections, which `make bench` keeps)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    start = text.find(HEADING)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        nxt = text.find("\n## ", start + len(HEADING))
        end = len(text) if nxt < 0 else nxt + 1
        text = text[:start] + section + ("\n" if nxt >= 0 else "") + text[end:]
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gitstrata.benchmarks.embedders", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--variants", default=None, help="comma-separated variant names")
    ap.add_argument(
        "--repos", default=None, help="real bundles to time (names, or 'none'); default: none"
    )
    ap.add_argument("--out", type=Path, help="write the section into this RESULTS.md")
    args = ap.parse_args(argv)
    variants = VARIANTS
    if args.variants:
        names = [v.strip() for v in args.variants.split(",") if v.strip()]
        known = {**VARIANTS, **EXTRA_VARIANTS}
        unknown = [n for n in names if n not in known]
        if unknown:
            print(
                f"error: unknown variant {unknown[0]!r}; known: {', '.join(known)}",
                file=sys.stderr,
            )
            return 2
        variants = {n: known[n] for n in names}
    bundles: list[Path] = []
    if args.repos and args.repos != "none":
        from .real import pick_repos, shared_bundles

        picked = pick_repos(shared_bundles(ap.prog), args.repos, ap.prog)
        if picked is None:
            return 2
        bundles = picked
    result = run(variants, bundles)
    if args.out:
        write_section(args.out, markdown(result))
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
