"""Two-stage vector search at scale, against exact float32 and FAISS, in one run.

    python -m gitstrata.benchmarks.vector_scale --n 100000 [--queries 200] [--json]

Corpus: this project's own source is cut into documents and embedded with the hashing-LSA
embedder; the synthetic corpus of n vectors is made of Dirichlet mixtures of a few of those real
embeddings plus noise in the same spectrum, so it has the topical structure and the decaying
spectrum of real LSA vectors (uniform noise would flatter the 1-bit stage). Queries are fresh
mixtures of the same kind.

Each side is timed in its own single-threaded subprocess (BLAS, OpenMP and numba threads set to
1) that only maps or loads what that side serves, so its resident memory is that side's:
- `two_stage`: `serve.vectors.VectorIndex` over memory-mapped `vectors_bits` / `vectors_i8`
  (Hamming top-400, int8 rescoring), numba kernels warmed first;
- `f32`: exact brute force, float32 matrix-vector product over the 256-d prefix and the full
  384-d vectors, top 10 by argpartition;
- `faiss`: `IndexBinaryFlat` over the same 256-bit codes, top 400 (null without faiss-cpu);
- `floor`: one streaming read of the four code lanes (XOR-reduce), the memory-bandwidth floor
  of any Hamming scan.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
CANDIDATES = 400
_SPLIT = re.compile(r"^(?=(?:async\s+def|def|class)\s)|^(?=    (?:async\s+def|def)\s)", re.M)


def _rss_mb() -> float:
    try:
        import psutil

        return psutil.Process().memory_info().rss / 2**20
    except ImportError:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def project_texts() -> list[str]:
    """This project's source files cut at top-level and method definitions."""
    import importlib

    folders: set[Path] = set()
    for name in (
        "gitstrata",
        "gitstrata.pipeline",
        "gitstrata.stages",
        "gitstrata.store",
        "gitstrata.serve",
    ):
        for entry in importlib.import_module(name).__path__:
            if Path(entry).is_dir():
                folders.add(Path(entry).resolve())
    texts: list[str] = []
    for folder in sorted(folders):
        for path in sorted(folder.rglob("*.py")):
            src = path.read_text(encoding="utf-8", errors="replace")
            texts.extend(t for t in _SPLIT.split(src) if len(t.strip()) > 40)
    return texts


def base_embeddings(seed: int = 7) -> np.ndarray:
    from ..store.lsa import HashingLSA
    from ..store.vecstore import mrl_truncate

    texts = project_texts()
    _, raw = HashingLSA(full_dim=384, seed=seed).fit_transform(texts)
    vecs = mrl_truncate(raw, 384)
    return vecs[np.linalg.norm(vecs, axis=1) > 0]


def mixtures(
    base: np.ndarray,
    n: int,
    rng: np.random.Generator,
    *,
    k: int = 5,
    alpha: float = 0.3,
    noise: float = 0.35,
    chunk: int = 200_000,
) -> np.ndarray:
    """n unit vectors, each a Dirichlet(alpha) mixture of k random base vectors plus Gaussian
    noise scaled per dimension like the base (relative norm `noise`)."""
    from ..store.vecstore import mrl_truncate

    std = base.std(axis=0)
    std = std / np.linalg.norm(std)
    out = np.empty((n, base.shape[1]), np.float32)
    for lo in range(0, n, chunk):
        m = min(chunk, n - lo)
        idx = rng.integers(0, len(base), size=(m, k))
        w = rng.dirichlet(np.full(k, alpha), size=m).astype(np.float32)
        v = np.einsum("nk,nkd->nd", w, base[idx])
        v = mrl_truncate(v, base.shape[1])
        v += noise * std * rng.standard_normal((m, base.shape[1])).astype(np.float32)
        out[lo : lo + m] = mrl_truncate(v, base.shape[1])
    return out


def _write_arrow(path: Path, table) -> None:
    import pyarrow as pa
    import pyarrow.ipc as ipc

    with pa.OSFile(str(path), "wb") as sink, ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def build(n: int, queries: int, folder: Path, seed: int = 11) -> dict:
    from ..store.embedder import haar_rotation
    from ..store.vecstore import bits_table, i8_table, int8_quantize, mrl_truncate, sign_codes

    t0 = time.perf_counter()
    base = base_embeddings()
    rng = np.random.default_rng(seed)
    corpus = mixtures(base, n, rng)
    qs = mixtures(base, queries, rng, k=2)
    rotation = haar_rotation(256, seed)
    prefix = mrl_truncate(corpus, 256)
    codes, scales = int8_quantize(prefix)
    _write_arrow(folder / "vectors_i8.arrow", i8_table(codes, scales))
    del codes
    bits = np.concatenate(
        [sign_codes(prefix[i : i + 200_000], rotation) for i in range(0, n, 200_000)]
    )
    _write_arrow(folder / "vectors_bits.arrow", bits_table(bits))
    np.save(folder / "f32_256.npy", prefix)
    np.save(folder / "f32_384.npy", corpus)
    np.save(folder / "queries.npy", qs)
    np.save(folder / "rotation.npy", rotation)
    truth = {}
    for name, mat, qq in (("256", prefix, mrl_truncate(qs, 256)), ("384", corpus, qs)):
        tops = []
        for lo in range(0, len(qq), 16):
            scores = qq[lo : lo + 16] @ mat.T
            part = np.argpartition(-scores, 10, axis=1)[:, :10]
            order = np.argsort(-np.take_along_axis(scores, part, axis=1), axis=1, kind="stable")
            tops.append(np.take_along_axis(part, order, axis=1))
        truth[name] = np.concatenate(tops)
    return {
        "base_documents": int(len(base)),
        "build_seconds": time.perf_counter() - t0,
        "truth": truth,
    }


# ---------------------------------------------------------------- probes (one per subprocess)


def _times(fn, qs: np.ndarray) -> tuple[list[float], list]:
    out, ts = [], []
    for q in qs:
        t = time.perf_counter()
        out.append(fn(q))
        ts.append((time.perf_counter() - t) * 1e3)
    return ts, out


def probe(kind: str, folder: Path) -> dict:
    from ..store.vecstore import mrl_truncate

    qs = np.load(folder / "queries.npy")
    q256 = mrl_truncate(qs, 256)
    rss0 = _rss_mb()
    res: dict = {}
    if kind == "two_stage":
        from ..serve import kernels
        from ..serve.vectors import VectorIndex
        from ..store.vecstore import open_mapped

        index = VectorIndex(open_mapped(folder), np.load(folder / "rotation.npy"))
        index.warm()
        rss0 = _rss_mb()  # after the JIT: count the vector store, not the compiler
        index.search(q256[0], 10, CANDIDATES)
        ts, rows = _times(lambda q: index.search(q, 10, CANDIDATES)[0], q256)
        scratch = index._scratch()
        lanes = index.mapped.lanes
        codes = [index.encode(q) for q in q256]
        th, _ = _times(
            lambda c: kernels.hamming_topc(*lanes, c, CANDIDATES, scratch), np.array(codes)
        )
        res = {"ms": ts, "hamming_ms": th, "rows": [r.tolist() for r in rows]}
    elif kind == "f32":
        m256 = np.load(folder / "f32_256.npy")
        m384 = np.load(folder / "f32_384.npy")
        rss0 = _rss_mb() - (m256.nbytes + m384.nbytes) / 2**20
        top = lambda m, q: np.argpartition(-(m @ q), 10)[:10]  # noqa: E731
        t256, _ = _times(lambda q: top(m256, q), q256)
        t384, _ = _times(lambda q: top(m384, q), qs)
        del m256
        res = {"ms": t256, "ms_384": t384, "rss_384_mb": m384.nbytes / 2**20}
    elif kind == "faiss":
        try:
            import faiss
        except ImportError:
            return {"ms": None}
        faiss.omp_set_num_threads(1)
        import pyarrow as pa
        import pyarrow.ipc as ipc

        t = ipc.open_file(pa.memory_map(str(folder / "vectors_bits.arrow"))).read_all()
        packed = np.stack([t.column(f"lane{j}").to_numpy() for j in range(4)], axis=1)
        binary = faiss.IndexBinaryFlat(256)
        binary.add(np.ascontiguousarray(packed).view(np.uint8))
        del packed, t
        from ..store.vecstore import sign_codes

        qcodes = sign_codes(q256, np.load(folder / "rotation.npy")).view(np.uint8)
        ts, _ = _times(lambda q: binary.search(q[None, :], CANDIDATES), qcodes)
        res = {"ms": ts}
    elif kind == "floor":
        from numba import njit

        from ..store.vecstore import open_mapped

        @njit(cache=False)
        def stream(l0, l1, l2, l3):  # pragma: no cover - jitted
            acc = np.uint64(0)
            for i in range(l0.shape[0]):
                acc ^= l0[i] ^ l1[i] ^ l2[i] ^ l3[i]
            return acc

        lanes = open_mapped(folder).lanes
        stream(*lanes)
        ts, _ = _times(lambda q: stream(*lanes), q256)
        res = {"ms": ts}
    res["rss_mb"] = _rss_mb() - rss0
    return res


def _run_probe(kind: str, folder: Path) -> dict:
    env = {**os.environ, **dict.fromkeys(THREAD_VARS, "1")}
    cmd = [
        sys.executable,
        "-m",
        "gitstrata.benchmarks.vector_scale",
        "--probe",
        kind,
        "--dir",
        str(folder),
    ]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _pct(ts: list[float], p: float) -> float:
    return round(float(np.percentile(ts, p)), 4)


def run(n: int, queries: int = 200) -> dict:
    with tempfile.TemporaryDirectory(prefix="gitstrata-vec-") as tmp:
        folder = Path(tmp)
        built = build(n, queries, folder)
        two = _run_probe("two_stage", folder)
        f32 = _run_probe("f32", folder)
        fa = _run_probe("faiss", folder)
        floor = _run_probe("floor", folder)
        served = (folder / "vectors_bits.arrow").stat().st_size + (
            folder / "vectors_i8.arrow"
        ).stat().st_size
    rows = two["rows"]
    recall = {}
    for dim, truth in built["truth"].items():
        hits = sum(len(set(r) & set(t.tolist())) for r, t in zip(rows, truth, strict=True))
        recall[dim] = hits / (10 * len(rows))
    p50_two, p50_f32, p50_ham = (
        _pct(two["ms"], 50),
        _pct(f32["ms"], 50),
        _pct(two["hamming_ms"], 50),
    )
    # FAISS is an optional peer: its probe reports no times when it is not installed.
    p50_faiss = None if fa["ms"] is None else _pct(fa["ms"], 50)
    p50_floor = _pct(floor["ms"], 50)
    f32_384_bytes = n * 384 * 4
    return {
        "n": n,
        "queries": queries,
        "candidates": CANDIDATES,
        "base_documents": built["base_documents"],
        "recall_at_10_vs_f32_256": round(recall["256"], 4),
        "recall_at_10_vs_f32_384": round(recall["384"], 4),
        "p50_ms_two_stage": p50_two,
        "p95_ms_two_stage": _pct(two["ms"], 95),
        "p50_ms_hamming_stage": p50_ham,
        "p50_ms_f32_bruteforce": p50_f32,
        "p95_ms_f32_bruteforce": _pct(f32["ms"], 95),
        "p50_ms_f32_bruteforce_384": _pct(f32["ms_384"], 50),
        "p50_ms_faiss_binary": p50_faiss,
        "p50_ms_stream_floor": p50_floor,
        "speedup_vs_f32": round(p50_f32 / p50_two, 2) if p50_two else None,
        "hamming_vs_faiss": round(p50_ham / p50_faiss, 3) if p50_faiss else None,
        "hamming_vs_floor": round(p50_ham / p50_floor, 3) if p50_floor else None,
        "rss_mb_two_stage": round(two["rss_mb"], 1),
        "rss_mb_f32": round(f32["rss_384_mb"], 1),
        "served_mb": round(served / 2**20, 1),
        "f32_384_mb": round(f32_384_bytes / 2**20, 1),
        "served_fraction_of_f32_384": round(served / f32_384_bytes, 4),
        "build_seconds": round(built["build_seconds"], 1),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="corpus size (vectors)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--probe", help=argparse.SUPPRESS)
    ap.add_argument("--dir", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.probe:
        print(json.dumps(probe(args.probe, Path(args.dir))))
        return
    result = run(args.n, args.queries)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:32s} {value}")


if __name__ == "__main__":
    main()
