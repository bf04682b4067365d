"""Two-stage vector search over memory-mapped Arrow, and the retrieval stages end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from gitstrata.serve.vectors import VectorIndex
from gitstrata.stages.quantize import quantize
from gitstrata.store.embedder import haar_rotation
from gitstrata.store.generations import Store
from gitstrata.store.schemas import VECTORS_F32
from gitstrata.store.vecstore import mrl_truncate, open_mapped

# vectors wider than the 256 served (a `full_dim` of 384): the prefix is what is quantized
F32_384 = pa.schema(
    [
        VECTORS_F32.field("doc_id"),
        VECTORS_F32.field("vector").with_type(pa.list_(pa.float16(), 384)),
    ]
)


def _clustered(n: int, dim: int = 384, topics: int = 40, seed: int = 0) -> np.ndarray:
    """Unit vectors drawn as sparse mixtures of a few topic directions plus noise."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((topics, dim)) * (0.9 ** np.arange(dim))
    weights = rng.dirichlet(np.full(topics, 0.1), size=n)
    v = weights @ centers + 0.05 * rng.standard_normal((n, dim)) * (0.9 ** np.arange(dim))
    return mrl_truncate(v, dim)


def _write_generation(
    tmp_path: Path, vectors: np.ndarray, seed: int = 4
) -> tuple[Path, np.ndarray]:
    rotation = haar_rotation(256, seed)
    flat = pa.array(vectors.astype(np.float32).reshape(-1))
    table = pa.table(
        {
            "doc_id": [f"d{i}" for i in range(len(vectors))],
            "vector": pa.FixedSizeListArray.from_arrays(flat, 384),
        },
        schema=F32_384,
    )
    bits, i8 = quantize(table, rotation)
    writer = Store(tmp_path / "store").begin()
    writer.write_table("vectors_bits", bits)
    writer.write_table("vectors_i8", i8)
    return writer.tmp, rotation


def _exact_top(vectors: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    prefix = mrl_truncate(vectors, 256)
    return np.argsort(-(prefix @ q), kind="stable")[:k]


def _proc_maps(path: Path) -> list[tuple[int, int]] | None:
    """Address ranges the kernel maps from `path` into this process (None off Linux)."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return None
    out = []
    target = str(path.resolve())
    for line in maps.read_text().splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5] == target:
            a, b = (int(x, 16) for x in parts[0].split("-"))
            out.append((a, b))
    return out


@pytest.fixture(scope="module")
def mapped(tmp_path_factory):
    vectors = _clustered(30_011)
    folder, rotation = _write_generation(tmp_path_factory.mktemp("vec"), vectors)
    return vectors, folder, rotation


def test_views_are_zero_copy(mapped) -> None:
    _, folder, _ = mapped
    m = open_mapped(folder)
    assert m.n == 30_011
    for mm, arrays, name in (
        (m.maps[0], m.lanes, "vectors_bits.arrow"),
        (m.maps[1], (m.codes, m.scales), "vectors_i8.arrow"),
    ):
        mm.seek(0)
        whole = mm.read_buffer(mm.size())  # a slice of the mapping itself, not a copy
        lo, hi = whole.address, whole.address + whole.size
        regions = _proc_maps(folder / name)
        for arr in arrays:
            if regions is not None:
                assert any(
                    a <= arr.ctypes.data and arr.ctypes.data + arr.nbytes <= b for a, b in regions
                )
            assert not arr.flags.owndata and not arr.flags.writeable
            start = arr.ctypes.data
            assert lo <= start and start + arr.nbytes <= hi
    assert m.lanes[0].ctypes.data % 8 == 0


def test_numpy_and_numba_paths_agree(mapped) -> None:
    vectors, folder, rotation = mapped
    rng = np.random.default_rng(1)
    small = VectorIndex(open_mapped(folder), rotation)
    jit = VectorIndex(open_mapped(folder), rotation)
    jit.warm()
    for _ in range(5):
        q = mrl_truncate(vectors[rng.integers(len(vectors))] + 0.1 * rng.standard_normal(384), 256)
        # force the numpy path regardless of n
        small._jit = False
        import gitstrata.serve.vectors as sv

        old = sv.NUMPY_MAX_ROWS
        sv.NUMPY_MAX_ROWS = 10**9
        try:
            r_np, d_np = small.candidates(q, 400)
            s_np = small.rescore(q, r_np)
        finally:
            sv.NUMPY_MAX_ROWS = old
        r_nb, d_nb = jit.candidates(q, 400)
        np.testing.assert_array_equal(r_np, r_nb)
        np.testing.assert_array_equal(d_np, d_nb)
        np.testing.assert_allclose(s_np, jit.rescore(q, r_nb), atol=2e-6)


@pytest.mark.slow
def test_recall_against_exact_float32(mapped) -> None:
    vectors, folder, rotation = mapped
    index = VectorIndex(open_mapped(folder), rotation)
    rng = np.random.default_rng(2)
    hits = 0
    trials = 40
    for _ in range(trials):
        q = mrl_truncate(
            vectors[rng.integers(len(vectors))] + 0.3 * rng.standard_normal(384) * 0.05, 256
        )
        rows, cos = index.search(q, top_k=10, candidates=400)
        assert (np.diff(cos) <= 0).all()
        hits += len(set(rows.tolist()) & set(_exact_top(vectors, q, 10).tolist()))
    assert hits / (10 * trials) >= 0.95


def test_search_edge_cases(tmp_path: Path) -> None:
    vectors = _clustered(5, seed=3)
    folder, rotation = _write_generation(tmp_path, vectors)
    index = VectorIndex(open_mapped(folder), rotation)
    q = mrl_truncate(vectors[2], 256)
    rows, cos = index.search(q, top_k=10)
    assert rows[0] == 2 and len(rows) == 5 and cos[0] == pytest.approx(1.0, abs=1e-2)
    assert index.search(q, top_k=0)[0].size == 0
    empty, rot = _write_generation(tmp_path / "empty", np.zeros((0, 384), np.float32))
    assert VectorIndex(open_mapped(empty), rot).search(q, 10)[0].size == 0


# ---------------------------------------------------------------- the stages on a real repository

PAYMENTS = '''"""Payments."""


class Gateway:
    def charge(self, order_id: str) -> str:
        """Charge the card once."""
        return order_id

    def refund(self, order_id: str) -> None:
        raise PaymentError("ERR_PAYMENT_DUPLICATE")


def charge_with_retry(gw: Gateway, order_id: str) -> str:
    for _ in range(3):
        return gw.charge(order_id)
'''

CACHE = '''class TTLCache:
    def set(self, key, value):
        """Store a value until its time to live expires."""
        self.entries[key] = value

    def get(self, key):
        return self.entries.get(key)


def render_page(template, title):
    return template.format(title=title)


def parse_order(raw):
    return json.loads(raw)
'''


def test_retrieval_stages_end_to_end(git_repo) -> None:
    import pyarrow.parquet as pq

    from gitstrata.pipeline.runner import run_index
    from gitstrata.store.embedder import Embedder
    from gitstrata.store.fulltext import FullText
    from gitstrata.store.schemas import DOCUMENTS

    git_repo.commit("feat: payments gateway", {"pay/charge.py": PAYMENTS, "util/cache.py": CACHE})
    git_repo.commit(
        "fix: retry the charge on timeout (INC-2407)",
        {"pay/charge.py": PAYMENTS.replace("range(3)", "range(5)")},
    )
    report = run_index(git_repo.path)
    stages = {s.name: s for s in report.stages}
    assert stages["embed"].stats["refit"] is True
    gen = report.path
    for name in (
        "documents.parquet",
        "docmeta.arrow",
        "vectors_f32.parquet",
        "vectors_i8.arrow",
        "vectors_bits.arrow",
        "embedder/meta.json",
        "fulltext/meta.json",
    ):
        assert (gen / name).exists(), name

    docs = pq.read_table(gen / "documents.parquet")
    assert docs.schema.names == DOCUMENTS.names
    titles = docs.column("title").to_pylist()
    assert "charge_with_retry" in titles and "fix: retry the charge on timeout (INC-2407)" in titles

    ft = FullText.open(gen / "fulltext")
    for query in ("charge_with_retry", "charge with retry", "retry"):
        rows, _ = ft.search(query, 3, kinds=["symbol"])
        assert titles[rows[0]] == "charge_with_retry", query
    rows, _ = ft.search("TTLCache.set", 3)
    assert titles[rows[0]] == "TTLCache.set"
    rows, _ = ft.search("ttl cache", 3, kinds=["symbol"])
    assert titles[rows[0]] in ("TTLCache", "TTLCache.set")
    rows, _ = ft.search("INC-2407", 3)
    assert titles[rows[0]] == "fix: retry the charge on timeout (INC-2407)"

    index = VectorIndex.open(gen)
    assert index.n == docs.num_rows
    rows, cos = index.search_text("retry charging the card on timeout", top_k=3)
    assert {"charge_with_retry", "fix: retry the charge on timeout (INC-2407)"} & {
        titles[r] for r in rows
    }
    rows, _ = index.search_text("TTLCache.set store value time to live", top_k=1)
    assert titles[rows[0]] == "TTLCache.set"

    # one more small commit: the embedder is reused (few new documents), vectors stay identical
    git_repo.commit(
        "docs: explain render_page",
        {"util/cache.py": CACHE.replace("def render_page", "def render_page ")},
    )
    again = run_index(git_repo.path)
    stats = {s.name: s.stats for s in again.stages}
    assert stats["embed"]["refit"] is False and 0 < stats["embed"]["new_fraction"] <= 0.3
    old = Embedder.load(gen / "embedder")
    new = Embedder.load(again.path / "embedder")
    np.testing.assert_array_equal(old.backend.components, new.backend.components)
    np.testing.assert_array_equal(old.rotation, new.rotation)


def test_vector_components_are_written_without_statistics(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    vectors = _clustered(50)
    flat = pa.array(vectors.astype(np.float16).reshape(-1))
    table = pa.table(
        {
            "doc_id": [f"d{i}" for i in range(50)],
            "vector": pa.FixedSizeListArray.from_arrays(flat, 384),
        },
        schema=F32_384,
    )
    writer = Store(tmp_path / "store").begin()
    info = writer.write_table("vectors_f32", table)
    written = pq.ParquetFile(writer.tmp / info.file)
    group = written.metadata.row_group(0)
    stats = {group.column(i).path_in_schema: group.column(i).is_stats_set for i in range(2)}
    # no reader filters on a component; the ids keep theirs
    assert stats == {"doc_id": True, "vector.list.element": False}
    assert written.read().equals(table)
