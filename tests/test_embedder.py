"""The embedders: the contract every backend keeps, the hashing-LSA (shapes on tiny corpora,
determinism across runs and processes, state round trip, the SVD against a dense reference, the
refit rule), wordllama (the package's own model, offline) and their fusion."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from gitstrata.stages.embed import Reuse, embed_documents
from gitstrata.stages.quantize import quantize, vectors_matrix
from gitstrata.store import lsa as lsa_module
from gitstrata.store.combined import LsaWordLlama
from gitstrata.store.config import Config, ConfigError, EmbeddingConfig
from gitstrata.store.embedder import BACKENDS, Embedder, haar_rotation, make_backend, read_meta
from gitstrata.store.errors import IndexCorrupt
from gitstrata.store.lsa import HashingLSA, _truncated_svd, dequantize_rows, quantize_rows
from gitstrata.store.schemas import DOCUMENTS
from gitstrata.store.wordllama import WordLlamaBackend

CORPUS = [
    "def charge_with_retry(gateway, order): retry the payment charge on timeout",
    "class TTLCache: expire cached entries after a time to live",
    "def parse_order(raw): parse the JSON order payload",
    "def sign_webhook(secret, body): hmac signature of the webhook body",
    "raise PaymentError('ERR_PAYMENT_DUPLICATE') when the charge is a duplicate",
    "def render_page(template, title): format the html page",
    "def tokenize(text): split identifiers on camelCase and snake_case",
    "def open_index(path): memory map the arrow vector files",
    "class RateLimiter: token bucket limiting requests per second",
    "def migrate(db): apply schema migrations in order",
]


# every registered backend but the ONNX one, which needs a model folder (tests/test_onnx_embedder.py)
FACTORIES = {
    "hashing-lsa": lambda: HashingLSA(full_dim=384, seed=3),
    "wordllama": lambda: WordLlamaBackend(),
    "hashing-lsa+wordllama": lambda: LsaWordLlama(lsa={"full_dim": 384, "seed": 3}, weight=0.4),
}
DIMS = {"hashing-lsa": 384, "wordllama": 256, "hashing-lsa+wordllama": 512}
needs_wordllama = pytest.mark.skipif(
    importlib.util.find_spec("wordllama") is None,
    reason="wordllama is not installed (the `wordllama` and `dev` extras)",
)


def test_every_backend_is_in_the_contract_suite() -> None:
    assert set(BACKENDS) == {*FACTORIES, "onnx"}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=[needs_wordllama] if "wordllama" in n else [])
        for n in sorted(FACTORIES)
    ],
)
def test_backends_contract(tmp_path: Path, name: str) -> None:
    backend = FACTORIES[name]()
    assert backend.name == name and isinstance(BACKENDS[name].matryoshka, bool)
    fitted = backend.fit(CORPUS)
    assert fitted.dim == DIMS[name]
    out = fitted.transform(CORPUS[:3])
    assert out.shape == (3, DIMS[name]) and out.dtype == np.float32
    assert np.linalg.norm(out, axis=1).min() > 0
    np.testing.assert_array_equal(fitted.transform(CORPUS[:3]), out)
    assert fitted.transform([]).shape == (0, DIMS[name])
    (tmp_path / name).mkdir()
    fitted.save(tmp_path / name)
    meta = {"params": json.loads(json.dumps(fitted.params())), "full_dim": fitted.dim}
    again = BACKENDS[name].load(tmp_path / name, meta)
    np.testing.assert_array_equal(again.transform(CORPUS[:3]), out)
    # one text alone (the query path) embeds as it does in a batch
    np.testing.assert_allclose(again.transform([CORPUS[1]])[0], out[1], rtol=1e-5, atol=1e-6)


def _embedder(texts: list[str], seed: int = 3) -> Embedder:
    backend = make_backend("hashing-lsa", full_dim=384, seed=seed).fit(texts)
    return Embedder(backend, mrl_dim=256, rotation=haar_rotation(256, seed), fit_keys=np.zeros(0))


def test_tiny_corpus_is_padded_and_unit_length() -> None:
    emb = _embedder(CORPUS)
    full = emb.embed_full(CORPUS)
    assert full.shape == (10, 384)
    np.testing.assert_allclose(np.linalg.norm(full, axis=1), 1.0, atol=1e-5)
    assert not full[:, 10:].any()  # rank 10: the remaining components are zero
    sv = emb.backend.singular_values
    assert (np.diff(sv[:10]) <= 0).all() and not sv[10:].any()


def test_query_is_the_renormalised_prefix() -> None:
    emb = _embedder(CORPUS)
    q = emb.embed_query("retry the charge")
    assert q.shape == (256,) and q.dtype == np.float32
    full = emb.backend.transform(["retry the charge"])[0]
    np.testing.assert_allclose(q, full[:256] / np.linalg.norm(full[:256]), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("retry charge timeout", 0),
        ("ttl cache expiry", 1),
        ("webhook signature", 3),
        ("tokenzie identifers", 6),
    ],
)
def test_nearest_document(query: str, expected: int) -> None:
    emb = _embedder(CORPUS)
    docs = emb.embed_full(CORPUS)[:, :256]
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    assert int(np.argmax(docs @ emb.embed_query(query))) == expected


def test_deterministic_in_process_and_across_processes(tmp_path: Path) -> None:
    a, b = _embedder(CORPUS), _embedder(CORPUS)
    np.testing.assert_array_equal(a.embed_full(CORPUS), b.embed_full(CORPUS))
    a.save(tmp_path / "emb")
    code = (
        "import sys, json; from gitstrata.store.embedder import Embedder; "
        "e = Embedder.load(sys.argv[1]); print(json.dumps(e.embed_query(sys.argv[2]).tolist()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "emb"), "parse the order"],
        capture_output=True,
        text=True,
        check=True,
    )
    other = np.array(json.loads(out.stdout), dtype=np.float32)
    np.testing.assert_array_equal(other, a.embed_query("parse the order"))
    loaded = Embedder.load(tmp_path / "emb")
    np.testing.assert_array_equal(loaded.rotation, a.rotation)
    # memory-mapped int8 codes, as a plain array over the mapped pages
    assert loaded.backend.codes.dtype == np.int8
    assert isinstance(loaded.backend.codes.base, np.memmap)


def test_int8_components_dequantise_within_half_a_scale_of_float() -> None:
    rng = np.random.default_rng(5)
    matrix = (rng.standard_normal((500, 384)) * rng.random((500, 1))).astype(np.float32)
    matrix[7] = 0.0  # a zero row keeps scale 0
    codes, scales = quantize_rows(matrix)
    assert codes.dtype == np.int8 and scales.dtype == np.float32 and scales[7] == 0
    ref_scales = np.abs(matrix).max(axis=1) / 127
    np.testing.assert_allclose(scales, ref_scales, rtol=1e-6)
    back = dequantize_rows(codes, scales)
    assert (np.abs(back - matrix) <= ref_scales[:, None] / 2 + 1e-7).all()
    # relative to each row's size, about a percent (a Gaussian row's peak over its root mean
    # square, ~3.3, over 127 steps times sqrt(12)): float16 is ~0.03 %
    norms = np.linalg.norm(matrix, axis=1) + 1e-12
    assert (np.linalg.norm(back - matrix, axis=1) / norms).max() < 0.015
    rows = np.array([3, 7, 499, 3])
    np.testing.assert_array_equal(dequantize_rows(codes, scales, rows), back[rows])


def test_int8_state_matches_the_float_fit_and_an_earlier_float16_state_loads(
    tmp_path: Path,
) -> None:
    fitted = HashingLSA(full_dim=384, seed=3).fit(CORPUS)
    fitted.save(tmp_path)
    assert np.load(tmp_path / "components.npy").dtype == np.int8
    # the fit's own vectors are those of the int8 state it saved
    again = HashingLSA.load(tmp_path, {"params": fitted.params()})
    np.testing.assert_array_equal(again.transform(CORPUS), fitted.transform(CORPUS))
    # within float16's rounding of the same components: the LSA's vectors barely move
    ref = fitted.components.astype(np.float16).astype(np.float32)
    np.save(tmp_path / "components.npy", ref.astype(np.float16), allow_pickle=False)
    (tmp_path / "component_scales.npy").unlink()
    old = HashingLSA.load(tmp_path, {"params": fitted.params()})
    np.testing.assert_array_equal(old.components, ref)
    a, b = old.transform(CORPUS), fitted.transform(CORPUS)
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert cos.min() > 0.999
    # a bulk transform gathering a few rows equals the whole dequantised product
    text = [CORPUS[0] + " " + CORPUS[4], CORPUS[2]]
    np.testing.assert_allclose(
        again.transform(text), _dense_transform(again, text), rtol=1e-5, atol=1e-6
    )


def _dense_transform(lsa: HashingLSA, texts: list[str]) -> np.ndarray:
    """A plain numpy reference: the dense tf-idf rows times the whole float32 components."""
    out = np.zeros((len(texts), lsa.full_dim), np.float32)
    comps = lsa.codes.astype(np.float32) * lsa.scales[:, None]
    for i, (ids, w) in enumerate(lsa.featurize(texts)):
        row = np.zeros(len(lsa.features), np.float32)
        pos = np.searchsorted(lsa.features, ids)
        ok = (pos < len(lsa.features)) & (
            lsa.features[np.minimum(pos, len(lsa.features) - 1)] == ids
        )
        row[pos[ok]] = w[ok] * lsa.idf[pos[ok]]
        out[i] = (row / np.linalg.norm(row)) @ comps
    return out


def _random_csr(rng: np.random.Generator, n: int, m: int, nnz_row: int, rank: int | None = None):
    if rank is None:
        dense = np.zeros((n, m), np.float32)
        for i in range(n):
            cols = rng.choice(m, nnz_row, replace=False)
            dense[i, cols] = rng.random(nnz_row)
    else:
        # a decaying spectrum, like a real term-document matrix
        basis = rng.standard_normal((rank, m)) * (rng.random((rank, m)) < nnz_row / m)
        weights = 0.85 ** np.arange(rank)
        dense = ((rng.standard_normal((n, rank)) * weights) @ basis).astype(np.float32)
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return dense, indptr, cols.astype(np.int64), dense[rows, cols]


def test_randomized_svd_exact_when_rank_fits() -> None:
    rng = np.random.default_rng(0)
    dense, indptr, indices, data = _random_csr(rng, 300, 8000, 40)
    comps, sv = _truncated_svd(indptr, indices, data, 8000, 384, 16, 4, 1)
    ref = np.linalg.svd(dense.astype(np.float64), compute_uv=False)
    np.testing.assert_allclose(sv[:300], ref, rtol=1e-4, atol=1e-4)
    assert not sv[300:].any() and not comps[:, 300:].any()


def test_randomized_svd_made_in_row_blocks_is_the_whole_product(monkeypatch) -> None:
    # rank above k + oversample: the power iterations run and B^T U is made in row blocks
    rng = np.random.default_rng(2)
    _, indptr, indices, data = _random_csr(rng, 500, 6000, 30)
    whole = _truncated_svd(indptr, indices, data, 6000, 64, 8, 2, 3)
    monkeypatch.setattr(lsa_module, "SVD_BLOCK_ROWS", 7)
    blocked = _truncated_svd(indptr, indices, data, 6000, 64, 8, 2, 3)
    assert np.array_equal(whole[0], blocked[0]) and np.array_equal(whole[1], blocked[1])
    comps = blocked[0]
    # the sign convention: each component's largest-magnitude entry (the first) is positive
    top = np.abs(comps).argmax(axis=0)
    live = np.abs(comps).max(axis=0) > 0
    assert (comps[top, np.arange(comps.shape[1])][live] > 0).all()


@pytest.mark.slow
def test_randomized_svd_top_components_of_a_large_matrix() -> None:
    rng = np.random.default_rng(1)
    dense, indptr, indices, data = _random_csr(rng, 2000, 3000, 60, rank=60)
    comps, sv = _truncated_svd(indptr, indices, data, 3000, 20, 10, 4, 1)
    ref_u, ref_s, ref_vt = np.linalg.svd(dense.astype(np.float64), full_matrices=False)
    np.testing.assert_allclose(sv, ref_s[:20], rtol=1e-3)
    # same subspace: the projection of each true component onto ours keeps its length
    overlap = np.linalg.norm(ref_vt[:20] @ comps.astype(np.float64), axis=1)
    assert overlap.min() > 0.999


def _dense_rows(rng: np.random.Generator, n: int, m: int, share: float, rank: int):
    """A CSR matrix of rank `rank` with a decaying spectrum and about `share` of its cells set,
    each row's columns distinct and sorted, as featurization makes them."""
    basis = rng.standard_normal((rank, m)) * (rng.random((rank, m)) < share)
    dense = ((rng.standard_normal((n, rank)) * 0.9 ** np.arange(rank)) @ basis).astype(np.float32)
    dense[rng.random((n, m)) > share] = 0.0
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return dense, indptr, cols.astype(np.int64), dense[rows, cols]


def test_few_dense_documents_take_the_gram_matrix_path() -> None:
    # the bundles' corpora as the fit sees them: the 565- and 806-document ones are decomposed
    # through their Gram matrix, the 4,222-document one (1.2 % non-zeros) by the range finder
    path = lsa_module.svd_path
    assert path(565, 5439, 126_494, 256, 16) == "gram"
    assert path(806, 6290, 192_894, 256, 16) == "gram"
    assert path(4222, 18774, 940_864, 256, 16) == "randomized"
    assert path(1200, 8142, 240_534, 256, 16) == "randomized"  # past GRAM_MAX_ROWS
    assert path(500, 6000, 15_000, 256, 16) == "randomized"  # too sparse for BLAS
    assert path(40, 300, 1_000, 256, 16) == "dense"
    assert path(0, 300, 0, 256, 16) == "empty"


def test_the_gram_matrix_path_is_the_exact_truncated_svd(monkeypatch) -> None:
    rng = np.random.default_rng(7)
    dense, indptr, indices, data = _dense_rows(rng, 300, 8000, 0.05, 120)
    assert lsa_module.svd_path(300, 8000, len(data), 64, 16) == "gram"
    done: list[int] = []
    comps, sv = _truncated_svd(indptr, indices, data, 8000, 64, 16, 4, 1, 1, done.append)
    assert sum(done) == lsa_module.svd_products(300, 8000, len(data), 64, 16, 4) == 2
    _, ref_s, ref_vt = np.linalg.svd(dense.astype(np.float64), full_matrices=False)
    np.testing.assert_allclose(sv, ref_s[:64], rtol=1e-5)
    # the same vectors up to the sign convention (largest-magnitude entry positive)
    ref = ref_vt[:64].T * np.sign(ref_vt[:64].T[np.abs(ref_vt[:64].T).argmax(axis=0), range(64)])
    np.testing.assert_allclose(comps, ref, atol=1e-5)
    # columns of the expanded matrix made a few at a time: the same result
    monkeypatch.setattr(lsa_module, "GRAM_BLOCK_BYTES", 8 * 300 * 7)
    blocked = _truncated_svd(indptr, indices, data, 8000, 64, 16, 4, 1)
    np.testing.assert_allclose(blocked[0], comps, atol=1e-6)
    np.testing.assert_allclose(blocked[1], sv, rtol=1e-6)
    # and nearer the optimum than the range finder: more of the matrix's energy is kept
    monkeypatch.setattr(lsa_module, "GRAM_MAX_ROWS", 0)
    approx, _ = _truncated_svd(indptr, indices, data, 8000, 64, 16, 4, 1)
    kept = [float(np.sum((dense.astype(np.float64) @ v) ** 2)) for v in (comps, approx)]
    assert kept[0] >= kept[1] * (1 - 1e-6)


def test_the_gram_matrix_path_pads_past_the_rank() -> None:
    rng = np.random.default_rng(8)
    # 30 distinct rows, each repeated (scaled): rank 30
    base = np.where(rng.random((30, 12000)) < 0.05, rng.random((30, 12000)), 0.0)
    dense = (base[np.arange(200) % 30] * (1 + np.arange(200) // 30)[:, None]).astype(np.float32)
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(201, np.int64)
    np.cumsum(np.bincount(rows, minlength=200), out=indptr[1:])
    indices, data = cols.astype(np.int64), dense[rows, cols]
    assert lsa_module.svd_path(200, 12000, len(data), 64, 16) == "gram"
    comps, sv = _truncated_svd(indptr, indices, data, 12000, 64, 16, 4, 1)
    ref = np.linalg.svd(dense.astype(np.float64), compute_uv=False)
    np.testing.assert_allclose(sv[:30], ref[:30], rtol=1e-4)
    # past the rank: no singular value and no direction, as the range finder leaves them
    assert not sv[30:].any() and not comps[:, 30:].any()


@pytest.mark.parametrize("index_type", [np.int32, np.int64])
def test_the_numba_transpose_equals_a_stable_sort_and_the_dense_transpose(index_type) -> None:
    from gitstrata.store.sparse import transpose

    rng = np.random.default_rng(4)
    indptr, indices, data = _random_rows(rng, 211, 90, 30)  # empty rows, repeated columns
    indices = indices.astype(index_type)
    fast = transpose(indptr, indices, data, 90)
    order = np.argsort(indices, kind="stable")
    rows = np.repeat(np.arange(211), np.diff(indptr))
    np.testing.assert_array_equal(fast[1], rows[order])
    np.testing.assert_array_equal(fast[2], data[order])
    np.testing.assert_array_equal(
        fast[0], np.concatenate([[0], np.cumsum(np.bincount(indices, minlength=90))])
    )
    # the numpy path of `lsa._transpose` (below the kernels' work) gives the same arrays
    small = lsa_module._transpose(indptr, indices, data, 90, 1)
    for a, b in zip(small, fast, strict=True):
        np.testing.assert_array_equal(a, b)
    dense = np.zeros((211, 90), np.float32)
    np.add.at(dense, (rows, indices), data)
    back = np.zeros((90, 211), np.float32)
    np.add.at(back, (np.repeat(np.arange(90), np.diff(fast[0])), fast[1]), fast[2])
    np.testing.assert_array_equal(back, dense.T)


def test_orth_in_row_blocks_is_an_orthonormal_basis_of_the_same_span(monkeypatch) -> None:
    rng = np.random.default_rng(6)
    y = rng.standard_normal((300, 12)).astype(np.float32)
    y[:, 11] = y[:, 0] + y[:, 1]  # a dependent column: its direction is dropped
    whole = lsa_module._orth(y)
    monkeypatch.setattr(lsa_module, "ORTH_BLOCK_ROWS", 7)
    blocked = lsa_module._orth(y)
    assert blocked.shape == whole.shape == (300, 11)
    np.testing.assert_allclose(blocked, whole, atol=1e-5)
    np.testing.assert_allclose(blocked.T.astype(np.float64) @ blocked, np.eye(11), atol=1e-5)
    # every column of y lies in the basis's span
    q = blocked.astype(np.float64)
    np.testing.assert_allclose(q @ (q.T @ y), y, atol=1e-3)


@pytest.mark.parametrize("docs", [1, 2, 60, 400])
def test_a_consumed_fit_is_the_same_fit_and_counts_its_steps(docs: int) -> None:
    texts = [f"{CORPUS[i % len(CORPUS)]} part{i} step_{i % 9}" for i in range(docs)]
    kept = HashingLSA(full_dim=64).featurize(texts)
    a, va = HashingLSA(full_dim=64).fit_transform_features(kept)
    assert len(kept) == docs  # not consumed unless asked
    announced: list[int] = []
    done: list[int] = []

    def progress(total: int):
        announced.append(total)
        return done.append

    given = HashingLSA(full_dim=64).featurize(texts)
    b, vb = HashingLSA(full_dim=64).fit_transform_features(given, consume=True, progress=progress)
    # one document keeps its features: its vectors are the query path's, made after the fit
    assert given == [] if docs > 1 else len(given) == 1
    np.testing.assert_array_equal(a.codes, b.codes)
    np.testing.assert_array_equal(va, vb)
    # the steps told are the steps announced: the fit's products and the vectors'
    assert len(announced) == 1 and sum(done) == announced[0] >= 2


def test_the_steps_of_a_fit_on_power_iterations_are_counted() -> None:
    rng = np.random.default_rng(2)
    _, indptr, indices, data = _random_csr(rng, 500, 6000, 30)
    done: list[int] = []
    _truncated_svd(indptr, indices, data, 6000, 64, 8, 2, 1, 1, done.append)
    assert sum(done) == lsa_module.svd_products(500, 6000, len(data), 64, 8, 2) == 3 + 2 * 2
    assert lsa_module.svd_products(40, 300, 1000, 64, 8, 2) == 1  # decomposed densely


def _documents(texts: list[str], prefix: str = "d") -> pa.Table:
    rows = [
        {
            "doc_idx": i,
            "doc_id": f"{prefix}{i}",
            "kind": "symbol",
            "path": f"src/m{i}.py",
            "symbol_id": None,
            "qualname": None,
            "sha": None,
            "title": f"t{i}",
            "body": t,
            "time": datetime.fromtimestamp(0, UTC),
            "intent": None,
            "language": None,
            "start_line": None,
            "end_line": None,
            "content_hash": str(hash(t)),
            "symbols": [],
            "paths": [],
        }
        for i, t in enumerate(texts)
    ]
    return pa.Table.from_pylist(rows, schema=DOCUMENTS)


def test_refit_rule() -> None:
    cfg = EmbeddingConfig()
    first = embed_documents(_documents(CORPUS), cfg)
    assert first.refit and first.new_fraction == 1.0
    again = embed_documents(_documents(CORPUS), cfg, first.embedder)
    assert not again.refit and again.new_fraction == 0.0
    assert again.i8.equals(first.i8) and again.bits.equals(first.bits)
    assert first.i8.num_rows == first.bits.num_rows == len(CORPUS)
    # 3 of 10 changed: 30 % is not more than 30 %, transform only
    changed = CORPUS[:7] + ["brand new text one", "brand new text two", "brand new text three"]
    some = embed_documents(_documents(changed), cfg, first.embedder)
    assert not some.refit and some.new_fraction == pytest.approx(0.3)
    assert some.embedder is first.embedder
    more = embed_documents(_documents(CORPUS[:6] + changed[6:] + ["another"]), cfg, first.embedder)
    assert more.refit and more.new_fraction == pytest.approx(4 / 11)
    other_cfg = EmbeddingConfig(seed=99)
    assert embed_documents(_documents(CORPUS), other_cfg, first.embedder).refit


def _rows(result) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(int8 codes, scales, SimHash lanes) of an embed result's served tables."""
    codes = vectors_matrix(result.i8, "codes", dtype=None)
    scales = result.i8.column("scale").to_numpy()
    bits = np.stack([result.bits.column(f"lane{j}").to_numpy() for j in range(4)], axis=1)
    return codes, scales, bits


@pytest.mark.parametrize("float_vectors", [False, True])
def test_unchanged_documents_keep_their_rows_and_only_new_ones_are_transformed(
    float_vectors: bool,
) -> None:
    def documents(named: list[tuple[str, str]]) -> pa.Table:
        # id, title and path follow the document, not its row, as in the documents stage
        table = _documents([text for _, text in named])
        for column, values in (
            ("doc_id", [name for name, _ in named]),
            ("title", [f"title of {name}" for name, _ in named]),
            ("path", [f"src/{name}.py" for name, _ in named]),
        ):
            at = table.schema.get_field_index(column)
            table = table.set_column(at, column, pa.array(values, pa.string()))
        return table

    cfg = EmbeddingConfig(float_vectors=float_vectors)
    named = [(f"doc{i}", t) for i, t in enumerate(CORPUS)]
    first_docs = documents(named)
    first = embed_documents(first_docs, cfg)
    # a new document in the middle shifts every later row; the last one changes
    new = ("new", "def brand_new(x): a new helper")
    changed = ("doc9", "changed text")
    now = [*named[:3], new, *named[3:9], changed]
    texts = [t for _, t in now]
    docs = documents(now)
    seen: list[int] = []
    previous = Reuse(first_docs, first.i8, first.bits, first.vectors)
    reused = embed_documents(docs, cfg, first.embedder, reuse=previous, advance=seen.append)
    fresh = embed_documents(docs, cfg, first.embedder)
    assert not reused.refit and reused.reused == 9 and fresh.reused == 0
    assert sum(seen) == len(texts)
    kept = [0, 1, 2, 4, 5, 6, 7, 8, 9]
    # unchanged documents keep the previous run's rows bit for bit
    for got, old in zip(_rows(reused), _rows(first), strict=True):
        np.testing.assert_array_equal(got[kept], old[:9])
    # the others are what a transform gives (a code may round the other way, as a transform of
    # another row batch may differ in float32's last digit)
    got_codes, got_scales, _ = _rows(reused)
    fresh_codes, fresh_scales, _ = _rows(fresh)
    assert np.abs(got_codes.astype(int) - fresh_codes).max() <= 1
    np.testing.assert_allclose(got_scales, fresh_scales, rtol=1e-5)
    if float_vectors:
        got, old = vectors_matrix(reused.vectors), vectors_matrix(first.vectors)
        np.testing.assert_array_equal(got[kept], old[:9])
        np.testing.assert_allclose(got, vectors_matrix(fresh.vectors), rtol=0, atol=1e-6)
        assert reused.vectors.column("doc_id").to_pylist() == docs.column("doc_id").to_pylist()
        # a previous run that kept no float vectors gives none to carry: all are made again
        none = Reuse(first_docs, first.i8, first.bits, first.vectors.slice(0, 0))
        assert embed_documents(docs, cfg, first.embedder, reuse=none).reused == 0
    else:
        assert reused.vectors.num_rows == 0
    # rows that do not line up with their documents are never reused
    wrong = Reuse(first_docs.slice(1), first.i8, first.bits, first.vectors)
    assert embed_documents(docs, cfg, first.embedder, reuse=wrong).reused == 0


def test_the_served_codes_are_those_of_the_float_vectors() -> None:
    """What the embed stage serves is what quantizing its float vectors gives, bit for bit, and
    keeping the float vectors changes nothing served."""
    docs = _documents(CORPUS * 3)
    kept = embed_documents(docs, EmbeddingConfig(float_vectors=True))
    bits, i8 = quantize(kept.vectors, kept.embedder.rotation, mrl_dim=kept.embedder.mrl_dim)
    assert bits.equals(kept.bits) and i8.equals(kept.i8)
    lean = embed_documents(docs, EmbeddingConfig())
    assert lean.vectors.num_rows == 0
    assert lean.bits.equals(kept.bits) and lean.i8.equals(kept.i8)


def test_empty_corpus() -> None:
    result = embed_documents(_documents([]), EmbeddingConfig())
    assert result.vectors.num_rows == result.i8.num_rows == result.bits.num_rows == 0
    assert result.embedder.embed_query("anything").shape == (256,)


def test_numba_spmm_equals_numpy_path() -> None:
    import numpy as np

    from gitstrata.store import lsa
    from gitstrata.store.sparse import spmm

    rng = np.random.default_rng(3)
    n, m, ell = 57, 1000, 19
    indptr = np.concatenate([[0], np.cumsum(rng.integers(0, 40, n))]).astype(np.int64)
    indices = rng.integers(0, m, indptr[-1]).astype(np.int64)
    data = rng.standard_normal(indptr[-1]).astype(np.float32)
    dense = rng.standard_normal((m, ell)).astype(np.float32)
    ref = np.zeros((n, ell), np.float64)
    for i in range(n):
        for j in range(indptr[i], indptr[i + 1]):
            ref[i] += data[j] * dense[indices[j]]
    assert np.allclose(spmm(indptr, indices, data, dense), ref, atol=1e-4)
    assert np.allclose(lsa._spmm(indptr, indices, data, dense), ref, atol=1e-4)


def test_a_product_goes_to_numba_only_when_numpy_would_cost_more() -> None:
    from gitstrata.store.lsa import by_numba

    assert not by_numba(100, 1000, 5_000, 272)  # little work: numpy
    # a small corpus dense enough for BLAS on the expanded matrix (561 x 5438, 4 % non-zeros)
    assert not by_numba(561, 5438, 126_416, 272)
    assert by_numba(4222, 18774, 940_864, 272)  # 1.2 % non-zeros: BLAS would expand zeros
    assert by_numba(20_000, 50_000, 30_000_000, 272)  # dense but large: numba
    # the transposed product (m x n, the same non-zeros) goes the same way
    for n, m, nnz in ((561, 5438, 126_416), (4222, 18774, 940_864)):
        assert by_numba(n, m, nnz, 272) == by_numba(m, n, nnz, 272)


def test_a_numpy_fit_matches_the_numba_fit(monkeypatch) -> None:
    rng = np.random.default_rng(4)
    # 600 x 4000 (past the dense SVD's size), about 4 % non-zeros, each row's columns distinct
    # as featurization makes them (the numpy path writes an expanded block cell by cell)
    counts = rng.integers(0, 320, 600)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    indices = np.concatenate([np.sort(rng.choice(4000, c, replace=False)) for c in counts])
    data = rng.standard_normal(indptr[-1]).astype(np.float32)
    assert lsa_module.DENSE_SVD_MAX < 600 * 4000
    # the range finder's products both ways (few documents this dense go to the Gram matrix)
    monkeypatch.setattr(lsa_module, "GRAM_MAX_ROWS", 0)
    monkeypatch.setattr(lsa_module, "NUMBA_MIN_WORK", 10**15)
    numpy_fit = _truncated_svd(indptr, indices, data, 4000, 24, 8, 2, 1)
    monkeypatch.setattr(lsa_module, "NUMBA_MIN_WORK", 0)
    monkeypatch.setattr(lsa_module, "BLAS_MAX_WORK", 0)
    numba_fit = _truncated_svd(indptr, indices, data, 4000, 24, 8, 2, 1)
    np.testing.assert_allclose(numpy_fit[1], numba_fit[1], rtol=1e-4)
    np.testing.assert_allclose(np.abs(numpy_fit[0]), np.abs(numba_fit[0]), atol=1e-3)


def _random_rows(rng: np.random.Generator, n: int, m: int, most: int):
    counts = rng.integers(0, most, n)
    counts[::5] = 0  # empty rows too
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    indices = rng.integers(0, m, indptr[-1]).astype(np.int64)
    data = rng.standard_normal(indptr[-1]).astype(np.float32)
    return indptr, indices, data


def test_spmm_on_threads_is_the_same_bit_for_bit() -> None:
    from gitstrata.store.sparse import row_ranges, spmm

    rng = np.random.default_rng(5)
    indptr, indices, data = _random_rows(rng, 301, 800, 50)
    dense = rng.standard_normal((800, 23)).astype(np.float32)
    one = spmm(indptr, indices, data, dense)
    for threads in (2, 3, 7, 400):
        np.testing.assert_array_equal(spmm(indptr, indices, data, dense, threads), one)
        ranges = row_ranges(indptr, threads)
        assert ranges[0][0] == 0 and ranges[-1][1] == 301 and len(ranges) <= threads
        assert all(a < b for a, b in ranges)
        assert all(ranges[k][1] == ranges[k + 1][0] for k in range(len(ranges) - 1))
    assert row_ranges(np.zeros(4, np.int64), 3) == [(0, 3)]  # no work: one range


def test_a_fit_on_threads_is_the_same_bit_for_bit(monkeypatch) -> None:
    monkeypatch.setattr(lsa_module, "NUMBA_MIN_WORK", 0)  # the numba product at any size
    monkeypatch.setattr(lsa_module, "BLAS_MAX_WORK", 0)  # and density
    rng = np.random.default_rng(2)
    indptr, indices, data = _random_rows(rng, 900, 3000, 80)
    one = _truncated_svd(indptr, indices, data, 3000, 24, 8, 2, 1)
    two = _truncated_svd(indptr, indices, data, 3000, 24, 8, 2, 1, 2)
    np.testing.assert_array_equal(one[0], two[0])
    np.testing.assert_array_equal(one[1], two[1])
    feats = HashingLSA(full_dim=64).featurize(
        [f"{CORPUS[i % len(CORPUS)]} part{i} step_{i % 9}" for i in range(300)]
    )
    a, va = HashingLSA(full_dim=64).fit_transform_features(feats)
    b, vb = HashingLSA(full_dim=64).fit_transform_features(feats, threads=3)
    np.testing.assert_array_equal(a.codes, b.codes)
    np.testing.assert_array_equal(va, vb)


def _field_terms(docs: pa.Table, hashes: list[str] | None = None) -> pa.Table:
    """The documents stage's terms cache of `docs` (title and body fields)."""
    from gitstrata.store.fulltext import terms_text

    cols = docs.select(["content_hash", "title", "body"]).to_pydict()
    return pa.table(
        {
            "content_hash": hashes or cols["content_hash"],
            "title": [terms_text(t) for t in cols["title"]],
            "body": [terms_text(b) for b in cols["body"]],
        }
    )


def test_a_fit_from_the_documents_terms_equals_the_fit_from_the_texts() -> None:
    from gitstrata.stages.documents import EMBED_CHARS

    texts = [
        f"{CORPUS[i % len(CORPUS)]} see src/pay/charge_{i}.py, INC-{i} and #{i} (deadbeef{i:02d})"
        for i in range(60)
    ]
    texts[7] = "charge_with_retry(order) " * (EMBED_CHARS // 10)  # longer than what is embedded
    docs = _documents(texts)
    cfg = EmbeddingConfig(float_vectors=True)
    plain = embed_documents(docs, cfg)
    from_terms = embed_documents(docs, cfg, terms=lambda: _field_terms(docs))
    np.testing.assert_array_equal(vectors_matrix(from_terms.vectors), vectors_matrix(plain.vectors))
    np.testing.assert_array_equal(from_terms.embedder.backend.codes, plain.embedder.backend.codes)
    # the terms are what is read: other terms give other vectors, terms of other rows are not used
    other = _field_terms(docs).set_column(2, "body", pa.array(["zz"] * 60))
    changed = vectors_matrix(embed_documents(docs, cfg, terms=lambda: other).vectors)
    assert not np.array_equal(changed, vectors_matrix(plain.vectors))
    stale = _field_terms(docs.slice(1), None)
    np.testing.assert_array_equal(
        vectors_matrix(embed_documents(docs, cfg, terms=lambda: stale).vectors),
        vectors_matrix(plain.vectors),
    )


@pytest.mark.parametrize("n_features", [1 << 18, 64])
def test_a_block_of_texts_is_featurized_as_each_text_alone(n_features: int) -> None:
    """The numpy block path against the one-text reference, bit for bit: repeated terms, terms
    too short or not alphanumeric for 3-grams, empty texts, texts given as terms, and (with 64
    features) most terms and 3-grams hashed onto a feature another term or 3-gram also has."""
    texts: list[str | list[str]] = [
        f"{CORPUS[i % len(CORPUS)]} retry_{i % 5} retry retry x{i} ab a-b {'loop ' * (i % 4)}"
        for i in range(40)
    ]
    texts[3] = ""
    texts[9] = "=== ... !!!"
    texts[11] = ["charge", "charge", "retry_with_backoff", "pk", "é", "charge"]
    texts[12] = []
    for grams, weight in ((True, 0.3), (False, 0.3), (True, 0.0)):
        one = lsa_module._Hasher(5, n_features)
        block = lsa_module._Hasher(5, n_features)
        want = [lsa_module._doc_features(t, one, grams, weight) for t in texts]
        got = lsa_module._block_features(texts, block, grams, weight)
        assert len(got) == len(want)
        for (ids, w), (ref_ids, ref_w) in zip(got, want, strict=True):
            assert ids.dtype == ref_ids.dtype and w.dtype == ref_w.dtype
            np.testing.assert_array_equal(ids, ref_ids)
            np.testing.assert_array_equal(w, ref_w)
    assert lsa_module._block_features([], lsa_module._Hasher(5, n_features), True, 0.3) == []
    # what `featurize` gives is the same whichever path a batch takes
    lsa = HashingLSA(full_dim=8, n_features=n_features)
    small = texts[: lsa_module.BLOCK_MIN - 1]
    for (a, wa), (b, wb) in zip(lsa.featurize(small), lsa.featurize(texts), strict=False):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(wa, wb)


def test_a_fit_featurized_on_a_process_pool_equals_the_one_in_process() -> None:
    from gitstrata.pipeline.executor import LocalExecutor
    from gitstrata.stages.embed import BATCH

    texts = [f"{CORPUS[i % len(CORPUS)]} variant{i} step_{i % 7}" for i in range(2 * BATCH + 40)]
    docs = _documents(texts)
    cfg = EmbeddingConfig(float_vectors=True)
    pool = LocalExecutor(2)
    try:
        seen: list[int] = []
        pooled = embed_documents(docs, cfg, mapper=pool.map_units, advance=seen.append)
    finally:
        pool.close()
    serial = embed_documents(docs, cfg)
    assert seen == [BATCH, BATCH, 40]
    np.testing.assert_array_equal(vectors_matrix(pooled.vectors), vectors_matrix(serial.vectors))


# ---------------------------------------------------------------- wordllama and the fused backend

PARAPHRASE_DOCS = [
    "def allow_login(client, window): count the login attempts of a client in the current minute",
    "def render_page(template, title): format the html page",
    "def parse_order(raw): parse the JSON order payload",
    "class TTLCache: expire cached entries after a time to live",
    "def migrate(db): apply schema migrations in order",
]


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


@needs_wordllama
def test_wordllama_is_the_packages_own_model() -> None:
    # the package's loader, offline, in another process: importing it configures logging
    code = (
        "import json; from wordllama import WordLlama; "
        "from gitstrata.store.wordllama import package_dir; "
        "m = WordLlama.load(cache_dir=package_dir(), disable_download=True); "
        f"print(json.dumps(m.embed({PARAPHRASE_DOCS!r}).tolist()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    reference = np.array(json.loads(out), dtype=np.float32)
    ours = WordLlamaBackend().transform(PARAPHRASE_DOCS)
    np.testing.assert_allclose(ours, reference, rtol=1e-4, atol=1e-5)


@needs_wordllama
def test_wordllama_tokenizes_a_long_text_from_its_head_as_it_would_whole() -> None:
    from gitstrata.store.wordllama import _load_model

    backend = WordLlamaBackend(max_tokens=32)
    tokenizer, table = _load_model(backend.model, backend.dim)
    long_texts = [
        " ".join(CORPUS) * 20,  # many tokens past the cut
        "x" * 300 + " retry",  # one long word: the head alone would be cut inside it
        "(" * 260 + " charge",  # one character a token: the head has too few to be sure
    ]
    for text in long_texts:
        whole = tokenizer.encode(text, add_special_tokens=False).ids[:32]
        expected = table[whole].astype(np.float32).mean(axis=0)
        np.testing.assert_allclose(backend.transform([text])[0], expected, rtol=1e-5, atol=1e-6)


@needs_wordllama
def test_wordllama_relates_a_paraphrase_that_shares_no_word() -> None:
    backend = WordLlamaBackend()
    docs = _unit(backend.transform(PARAPHRASE_DOCS))
    q = _unit(backend.transform(["too many password guesses sent just before the clock ticked"]))
    assert int(np.argmax(docs @ q[0])) == 0


@needs_wordllama
def test_the_fused_cosine_is_the_weighted_sum_of_both() -> None:
    fused = LsaWordLlama(lsa={"full_dim": 384, "seed": 3}, weight=0.3).fit(CORPUS)
    a, b = fused.transform(["retry the payment charge", "charge retries on timeout"])
    lsa = _unit(fused.lsa.transform(["retry the payment charge", "charge retries on timeout"]))
    lsa = _unit(lsa[:, :256])
    wl = _unit(fused.wordllama.transform(["retry the payment charge", "charge retries on timeout"]))
    assert a.shape == (512,)
    np.testing.assert_allclose(np.linalg.norm([a, b], axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(a @ b, 0.7 * lsa[0] @ lsa[1] + 0.3 * wl[0] @ wl[1], atol=1e-5)


@needs_wordllama
def test_a_state_made_with_another_wordllama_version_is_refused(tmp_path: Path) -> None:
    result = embed_documents(
        _documents(CORPUS[:4]), EmbeddingConfig(backend="hashing-lsa+wordllama")
    )
    result.embedder.save(tmp_path / "emb")
    meta_file = tmp_path / "emb" / "meta.json"
    meta = json.loads(meta_file.read_text())
    meta["params"]["wordllama"]["version"] = "0.0.1"
    meta_file.write_text(json.dumps(meta))
    with pytest.raises(IndexCorrupt, match=r"wordllama 0\.0\.1"):
        Embedder.load(tmp_path / "emb")


def test_a_state_another_version_of_gitstrata_wrote_is_refused_from_its_meta(
    tmp_path: Path,
) -> None:
    _embedder(CORPUS[:4]).save(tmp_path / "emb")
    assert read_meta(tmp_path / "emb")["backend"] == "hashing-lsa"
    meta_file = tmp_path / "emb" / "meta.json"
    meta = json.loads(meta_file.read_text())
    for key, value in (("tokenizer_version", 0), ("format", 99)):
        meta_file.write_text(json.dumps({**meta, key: value}))
        for read in (read_meta, Embedder.load):
            with pytest.raises(IndexCorrupt, match="built by another version of gitstrata") as got:
                read(tmp_path / "emb")
            assert got.value.hint == "run `gitstrata index --rebuild`"
    for broken in ({**meta, "backend": ["lsa"]}, {**meta, "backend": "nope"}, ["not", "a", "dict"]):
        meta_file.write_text(json.dumps(broken))
        with pytest.raises(IndexCorrupt, match="unknown embedder backend|unreadable"):
            read_meta(tmp_path / "emb")


@pytest.mark.parametrize(
    ("backend", "full", "served"),
    [
        pytest.param("wordllama", 256, 256, marks=needs_wordllama),
        pytest.param("hashing-lsa+wordllama", 512, 512, marks=needs_wordllama),
        ("hashing-lsa", 256, 256),  # the default: the served prefix alone
        ("hashing-lsa", 384, 256),  # wider components than served (`full_dim`)
    ],
)
def test_embed_stage_widths_and_refit_rule_per_backend(
    tmp_path: Path, backend: str, full: int, served: int
) -> None:
    cfg = EmbeddingConfig(
        backend=backend,
        float_vectors=True,
        **({"full_dim": full} if backend == "hashing-lsa" else {}),
    )
    docs = _documents(CORPUS)
    first = embed_documents(docs, cfg)
    assert first.refit and first.vectors.schema.field("vector").type.list_size == full
    assert first.i8.schema.field("codes").type.list_size == served
    assert first.embedder.full_dim == full and first.embedder.mrl_dim == served
    assert first.embedder.rotation.shape == (256, served)
    first.embedder.save(tmp_path / "emb")
    loaded = Embedder.load(tmp_path / "emb")
    again = embed_documents(docs, cfg, loaded)
    assert not again.refit
    np.testing.assert_array_equal(vectors_matrix(again.vectors), vectors_matrix(first.vectors))
    np.testing.assert_array_equal(
        loaded.embed_query("retry the charge"), first.embedder.embed_query("retry the charge")
    )
    other = {"wordllama": {"wordllama_max_tokens": 64}, "hashing-lsa": {"seed": 5}}.get(
        backend, {"wordllama_weight": 0.9}
    )
    assert embed_documents(docs, EmbeddingConfig(backend=backend, **other), loaded).refit


def test_the_served_prefix_must_be_kept() -> None:
    # the default keeps the served width, and no wider prefix can be asked for than is kept
    assert EmbeddingConfig().full_dim == EmbeddingConfig().mrl_dim == 256
    with pytest.raises(ConfigError, match=r"mrl_dim \(300\) is wider than full_dim \(256\)"):
        Config.from_dict({"embedding": {"mrl_dim": 300}})
    assert (
        Config.from_dict({"embedding": {"mrl_dim": 300, "full_dim": 384}}).embedding.mrl_dim == 300
    )
