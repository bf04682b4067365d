"""The two-stage 1-bit + int8 search at any served width: 256, wider (512) and odd (97)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from gitstrata.serve.vectors import VectorIndex
from gitstrata.stages.embed import vectors_table
from gitstrata.stages.quantize import quantize
from gitstrata.store.embedder import haar_rotation, simhash_rotation
from gitstrata.store.errors import IndexCorrupt
from gitstrata.store.generations import Store
from gitstrata.store.vecstore import CODE_BITS, mrl_truncate, open_mapped


def _clustered(n: int, dim: int, topics: int = 40, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((topics, dim))
    weights = rng.dirichlet(np.full(topics, 0.1), size=n)
    return mrl_truncate(weights @ centers + 0.05 * rng.standard_normal((n, dim)), dim)


def _generation(tmp_path: Path, vectors: np.ndarray, rotation: np.ndarray) -> Path:
    dim = vectors.shape[1]
    table = vectors_table([f"d{i}" for i in range(len(vectors))], vectors)
    bits, i8 = quantize(table, rotation, mrl_dim=dim)
    writer = Store(tmp_path / "store").begin()
    writer.write_table("vectors_f32", table)
    writer.write_table("vectors_bits", bits)
    writer.write_table("vectors_i8", i8)
    return writer.tmp


@pytest.mark.parametrize("dim", [256, 512, 97])
def test_rotation_shapes(dim: int) -> None:
    r = simhash_rotation(dim, 5)
    assert r.shape == (CODE_BITS, dim) and r.dtype == np.float32
    np.testing.assert_array_equal(r, simhash_rotation(dim, 5))
    np.testing.assert_allclose(np.linalg.norm(r, axis=1), 1.0, atol=1e-5)
    if dim >= CODE_BITS:  # orthonormal hyperplanes
        np.testing.assert_allclose(r @ r.T, np.eye(CODE_BITS), atol=1e-5)
    if dim == CODE_BITS:
        np.testing.assert_array_equal(r, haar_rotation(CODE_BITS, 5))


@pytest.mark.parametrize("dim", [256, 512, 97])
def test_two_stage_search_at_any_width(tmp_path: Path, dim: int) -> None:
    vectors = _clustered(3000, dim, seed=dim)
    rotation = simhash_rotation(dim, 9)
    gen = _generation(tmp_path, vectors, rotation)
    mapped = open_mapped(gen, dim)
    assert mapped.codes.shape == (3000, dim) and mapped.n == 3000
    index = VectorIndex(mapped, rotation)
    # near neighbours of documents, so every query has a neighbourhood to find
    noise = np.random.default_rng(dim).standard_normal((20, dim)) / np.sqrt(dim)
    queries = mrl_truncate(vectors[:20] + 0.5 * noise, dim)
    stage1, final = [], []
    numpy_results = []
    for q in queries:
        exact = set(np.argsort(-(vectors @ q), kind="stable")[:10].tolist())
        candidates, _ = index.candidates(q, 400)
        stage1.append(len(exact & set(candidates.tolist())) / 10)
        rows, scores = index.search(q, top_k=10, candidates=400)
        numpy_results.append((rows, scores))
        final.append(len(exact & set(rows.tolist())) / 10)
        # stage 2 is the cosine of the int8 codes: within the quantisation error of the exact one
        np.testing.assert_allclose(scores, vectors[rows] @ q, atol=0.02)
    # the 1-bit codes keep the true neighbours among the candidates at every width (256 bits
    # estimate the angle less finely as the width grows); the int8 cosine orders them
    assert np.mean(stage1) >= 0.9, np.mean(stage1)
    assert np.mean(final) >= 0.85, np.mean(final)
    index.warm()  # the numba kernels give the same rows and scores as the numpy path
    for q, (rows, scores) in zip(queries, numpy_results, strict=True):
        jit_rows, jit_scores = index.search(q, top_k=10, candidates=400)
        np.testing.assert_array_equal(jit_rows, rows)
        np.testing.assert_allclose(jit_scores, scores, rtol=1e-5, atol=1e-6)


def test_codes_of_another_width_than_the_embedders_are_refused(tmp_path: Path) -> None:
    vectors = _clustered(50, 97)
    gen = _generation(tmp_path, vectors, simhash_rotation(97, 1))
    with pytest.raises(IndexCorrupt, match="97 dims, the embedder 256"):
        open_mapped(gen, 256)
    with pytest.raises(IndexCorrupt, match="hyperplanes"):
        VectorIndex(open_mapped(gen), simhash_rotation(96, 1))


def test_a_written_vectors_table_keeps_its_width(tmp_path: Path) -> None:
    vectors = _clustered(10, 97)
    gen = _generation(tmp_path, vectors, simhash_rotation(97, 1))
    table = pa.ipc.open_file(pa.memory_map(str(gen / "vectors_i8.arrow"))).read_all()
    assert table.schema.field("codes").type.list_size == 97
    with pytest.raises(ValueError, match="rotation must be"):
        quantize(vectors_table(["a"], vectors[:1]), haar_rotation(CODE_BITS, 0), mrl_dim=97)
