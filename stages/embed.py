"""Stage `embed`: fit (or reuse) the embedder and embed every document.

Refit rule: the backend is fitted again when there is no previous state, when the previous state
was made with other parameters, or when more than `refit_fraction` of the current documents are
new since that fit (a document whose content changed counts as new); otherwise the previous state
only transforms, so vectors of unchanged documents stay bit-identical across runs and the query
side keeps matching them. Without a refit, a document whose id and content hash are those of a
document of the previous run keeps that run's vector (`reuse`): the same state would compute
the same row, so only new and changed documents are featurized.

A document's vector is fixed at float16: unit length, the backend's width (hashing-LSA:
`full_dim`; wordllama: 256; fused: both served parts). Outputs, row i = document i: its served
codes, `vectors_i8` and `vectors_bits` (`stages/quantize.served_codes`), and, with
`embedding.float_vectors`, the float16 vectors themselves in `vectors_f32` (else that table
has no rows). A reused document keeps its rows of the previous run's tables: each row depends
on the document's vector alone, so the tables equal a rebuild's with the same state.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ..store.combined import LsaWordLlama
from ..store.config import EmbeddingConfig
from ..store.embedder import (
    BACKENDS,
    Embedder,
    EmbeddingBackend,
    doc_key,
    served_dim,
    simhash_rotation,
)
from ..store.lsa import FitProgress, HashingLSA, featurize_with
from ..store.onnx_embed import OnnxBackend
from ..store.schemas import VECTORS_F32, sized_like
from ..store.tokenizer import tokenize
from ..store.vecstore import LANE_NAMES, mrl_truncate
from ..store.wordllama import WordLlamaBackend, installed_version
from .documents import EMBED_CHARS, embed_text
from .quantize import served_codes, served_tables, vectors_matrix


@dataclass(frozen=True)
class EmbedResult:
    embedder: Embedder
    bits: pa.Table  # vectors_bits
    i8: pa.Table  # vectors_i8
    vectors: pa.Table  # vectors_f32: float16 rows with `float_vectors`, else no rows
    refit: bool
    new_fraction: float  # share of documents new since the previous fit (1.0 without one)
    reused: int = 0  # documents whose rows were carried from the previous run


@dataclass(frozen=True)
class Reuse:
    """The previous run's tables, made with the previous embedder state: its `documents`
    (`doc_id`, `content_hash`), `vectors_i8`, `vectors_bits` and `vectors_f32` (None, or no
    rows, when it kept no float vectors)."""

    documents: pa.Table
    i8: pa.Table
    bits: pa.Table
    vectors: pa.Table | None = None


def lsa_params(config: EmbeddingConfig) -> dict:
    return {
        "full_dim": config.full_dim,
        "seed": config.seed,
        "n_features": config.n_features,
        "char_ngrams": config.char_ngrams,
        "ngram_weight": config.ngram_weight,
        "max_vocab": config.max_vocab,
        "oversample": config.oversample,
        "power_iters": config.power_iters,
    }


def new_backend(config: EmbeddingConfig) -> EmbeddingBackend:
    """A fresh (unfitted) backend as `config` asks for it."""
    if config.backend == HashingLSA.name:
        return HashingLSA(**lsa_params(config))
    if config.backend == WordLlamaBackend.name:
        return WordLlamaBackend(max_tokens=config.wordllama_max_tokens)
    if config.backend == LsaWordLlama.name:
        return LsaWordLlama(
            lsa=lsa_params(config),
            wordllama={"max_tokens": config.wordllama_max_tokens},
            part_dim=config.mrl_dim,
            weight=config.wordllama_weight,
        )
    if config.backend == OnnxBackend.name:
        return OnnxBackend.from_folder(config.onnx_model, max_tokens=config.onnx_max_tokens)
    raise ValueError(f"unknown embedding backend {config.backend!r}; known: {', '.join(BACKENDS)}")


def model_identity(config: EmbeddingConfig) -> str:
    """What identifies a pretrained model outside the config: the installed wordllama version,
    the ONNX files' digest (part of the stage's fingerprint, so a new model re-embeds)."""
    if config.backend in (WordLlamaBackend.name, LsaWordLlama.name):
        return f"wordllama {installed_version()}"
    if config.backend == OnnxBackend.name:
        return f"onnx {OnnxBackend.from_folder(config.onnx_model).sha256}"
    return ""


def backend_params(config: EmbeddingConfig) -> dict:
    """The parameters of the backend `config` asks for (what its state records)."""
    return new_backend(config).params()


def compatible(previous: Embedder, config: EmbeddingConfig) -> bool:
    """Whether `previous` was made with the parameters `config` asks for."""
    if previous.backend.name != config.backend:
        return False
    return (
        previous.backend.params() == backend_params(config)
        and previous.mrl_dim == served_dim(previous.backend, config.mrl_dim)
        and np.array_equal(previous.rotation, simhash_rotation(previous.mrl_dim, config.seed))
    )


def document_texts(documents: pa.Table) -> list[str]:
    cols = documents.select(["title", "path", "body"]).to_pydict()
    return [
        embed_text(t, p, b)
        for t, p, b in zip(cols["title"], cols["path"], cols["body"], strict=True)
    ]


# (title terms, path, body terms): a document whose embed text is made of parts whose terms
# are known (see `document_items`)
_Parts = tuple[str, str, str]


def document_items(documents: pa.Table, terms: pa.Table | None) -> list[str | _Parts]:
    """What each document is featurized from: its embed text, or, when `terms` (the documents
    stage's field terms, row for row: `content_hash`, `title`, `body`, each field's terms
    joined by spaces) holds its title and whole body, those terms and its path. The terms of
    `embed_text` are its parts' terms in order, as no term spans a line break, so both give the
    same features; the terms skip tokenizing again (most of a fit's featurizing). A body longer
    than the embedded part, or terms that are not those of these rows, fall back to the text."""
    cols = documents.select(["title", "path", "body"]).to_pydict()
    rows = zip(cols["title"], cols["path"], cols["body"], strict=True)
    if (
        terms is None
        or terms.num_rows != documents.num_rows
        or not terms.column("content_hash").equals(documents.column("content_hash"))
    ):
        return [embed_text(t, p, b) for t, p, b in rows]
    known = zip(terms.column("title").to_pylist(), terms.column("body").to_pylist(), strict=True)
    return [
        (tt, p or "", bt) if len(b) <= EMBED_CHARS else embed_text(t, p, b)
        for (t, p, b), (tt, bt) in zip(rows, known, strict=True)
    ]


def item_terms(item: str | _Parts) -> str | list[str]:
    """A `document_items` entry as `HashingLSA.featurize` reads it: the text, or its terms."""
    if isinstance(item, str):
        return item
    title, path, body = item
    return title.split() + tokenize(path) + body.split()


def _featurize_items(
    params: tuple, items: list[str | _Parts]
) -> list[tuple[np.ndarray, np.ndarray]]:
    return featurize_with(params, [item_terms(i) for i in items])


def document_keys(documents: pa.Table) -> np.ndarray:
    ids = documents.column("doc_id").to_pylist()
    hashes = documents.column("content_hash").to_pylist()
    return np.fromiter(
        (doc_key(i, h) for i, h in zip(ids, hashes, strict=True)), np.uint64, len(ids)
    )


def vectors_table(doc_ids: list[str] | pa.ChunkedArray, vectors: np.ndarray) -> pa.Table:
    n, d = vectors.shape
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float16).reshape(-1))
    ids = (
        doc_ids.cast(pa.string())
        if isinstance(doc_ids, pa.ChunkedArray)
        else pa.array(doc_ids, pa.string())
    )
    table = pa.table(
        {
            "doc_id": ids,
            "vector": pa.FixedSizeListArray.from_arrays(flat, d),
        }
    )
    return table.cast(sized_like(VECTORS_F32, table.schema))


# documents featurized per call, so progress advances while a large corpus is embedded
BATCH = 512


def _in_batches(
    transform: Callable[[list[str]], np.ndarray],
    texts: list[str],
    dim: int,
    advance: Callable[[int], None] | None,
) -> np.ndarray:
    out = np.zeros((len(texts), dim), np.float32)
    for start in range(0, len(texts), BATCH):
        part = texts[start : start + BATCH]
        out[start : start + len(part)] = transform(part)
        if advance is not None:
            advance(len(part))
    return out


def embed_documents(
    documents: pa.Table,
    config: EmbeddingConfig,
    previous: Embedder | None = None,
    reuse: Reuse | None = None,
    advance: Callable[[int], None] | None = None,
    mapper: Callable[[Callable[[Any], Any], Iterable[Any]], Iterator[Any]] | None = None,
    terms: Callable[[], pa.Table | None] | None = None,
    threads: int = 1,
    fit_progress: FitProgress | None = None,
) -> EmbedResult:
    """Fit or reuse the embedder and embed `documents`. `reuse` holds the previous run's
    tables, made with `previous`; `advance(n)` is told of every n documents embedded;
    `mapper(fn, blocks)` (results in order) may run a fit's featurization elsewhere, e.g. on a
    process pool, a block of `BATCH` documents per call; `terms()`, read only by a hashing-LSA
    fit, gives the documents stage's field terms of these documents (see `document_items`),
    which spare the fit from tokenizing them again; `threads` share a hashing-LSA fit's sparse
    products (the same vectors whatever their number); `fit_progress(total)`, called when a
    hashing-LSA fit starts, returns what is told of each of its `total` steps (the corpus's
    features are then done: the fit is the rest)."""
    keys = document_keys(documents)
    fraction = previous.new_fraction(keys) if previous is not None else 1.0
    refit = previous is None or not compatible(previous, config) or fraction > config.refit_fraction
    if not refit:
        assert previous is not None
        return _transform_new(documents, previous, reuse, advance, config.float_vectors, fraction)
    backend = new_backend(config)
    lsa = backend.lsa if isinstance(backend, LsaWordLlama) else backend
    texts: list[str] = []
    if isinstance(lsa, HashingLSA):
        # featurized once: the fit and the vectors share the features
        items = document_items(documents, terms() if terms is not None else None)
        feats: list = []
        parts = [items[start : start + BATCH] for start in range(0, len(items), BATCH)]
        del items
        # in this process with this backend's hash caches, or a block per `mapper` call
        blocks = (
            (lsa.featurize([item_terms(i) for i in part]) for part in parts)
            if mapper is None
            else mapper(
                functools.partial(_featurize_items, tuple(sorted(lsa.params().items()))), parts
            )
        )
        for done in blocks:
            feats += done
            if advance is not None:
                advance(len(done))
        del parts
        if isinstance(backend, LsaWordLlama):
            texts = document_texts(documents)  # the fused backend reads the texts again
        lsa, raw = lsa.fit_transform_features(
            feats, threads=threads, consume=True, progress=fit_progress
        )
        del feats
        if isinstance(backend, LsaWordLlama):
            backend = backend.with_lsa(lsa)
            fused = np.zeros((len(texts), backend.dim), np.float32)
            for start in range(0, len(texts), BATCH):
                stop = start + BATCH
                fused[start:stop] = backend.combine(raw[start:stop], texts[start:stop])
            raw = fused
        else:
            backend = lsa
    else:
        texts = document_texts(documents)
        backend = backend.fit(texts)
        raw = _in_batches(backend.transform, texts, backend.dim, advance)
    mrl = served_dim(backend, config.mrl_dim)
    embedder = Embedder(
        backend,
        mrl_dim=mrl,
        rotation=simhash_rotation(mrl, config.seed),
        fit_keys=keys,
    )
    vectors = mrl_truncate(raw, embedder.full_dim).astype(np.float16)
    del raw
    bits, i8 = served_tables(*served_codes(vectors, embedder.rotation, embedder.mrl_dim))
    kept = vectors if config.float_vectors else vectors[:0]
    ids = documents.column("doc_id").slice(0, len(kept))
    return EmbedResult(embedder, bits, i8, vectors_table(ids, kept), True, fraction)


def _transform_new(
    documents: pa.Table,
    embedder: Embedder,
    reuse: Reuse | None,
    advance: Callable[[int], None] | None,
    float_vectors: bool,
    fraction: float,
) -> EmbedResult:
    """The tables of `documents` under an unchanged embedder: the previous run's rows for every
    document it already embedded (same id and content hash; with `float_vectors`, only when
    that run kept its float vector), a transform for the others."""
    n, dim, mrl = documents.num_rows, embedder.full_dim, embedder.mrl_dim
    source = np.full(n, -1, np.int64)  # row of the previous tables, or -1
    old = _previous_rows(reuse, mrl, dim, float_vectors)
    if old is not None:
        assert reuse is not None
        # matched on (id, content hash) itself: what `doc_key` fingerprints, without hashing
        # every previous document again
        before = zip(
            reuse.documents.column("doc_id").to_pylist(),
            reuse.documents.column("content_hash").to_pylist(),
            strict=True,
        )
        row_of = {key: i for i, key in enumerate(before)}
        now = zip(
            documents.column("doc_id").to_pylist(),
            documents.column("content_hash").to_pylist(),
            strict=True,
        )
        source = np.fromiter((row_of.get(key, -1) for key in now), np.int64, n)
    bits = np.zeros((n, len(LANE_NAMES)), np.uint64)
    codes = np.zeros((n, mrl), np.int8)
    scales = np.zeros(n, np.float32)
    vectors = np.zeros((n if float_vectors else 0, dim), np.float16)
    hit = source >= 0
    if old is not None and hit.any():
        old_bits, old_codes, old_scales, old_vectors = old
        rows = source[hit]
        bits[hit], codes[hit], scales[hit] = old_bits[rows], old_codes[rows], old_scales[rows]
        if float_vectors:
            assert old_vectors is not None
            vectors[hit] = old_vectors[rows]
        if advance is not None:
            advance(int(hit.sum()))
    todo = np.flatnonzero(~hit)
    if len(todo):
        texts = document_texts(documents.take(pa.array(todo)))
        raw = _in_batches(embedder.backend.transform, texts, dim, advance)
        fresh = mrl_truncate(raw, dim).astype(np.float16)
        bits[todo], codes[todo], scales[todo] = served_codes(fresh, embedder.rotation, mrl)
        if float_vectors:
            vectors[todo] = fresh
    ids = documents.column("doc_id").slice(0, len(vectors))
    bits_t, i8_t = served_tables(bits, codes, scales)
    return EmbedResult(
        embedder, bits_t, i8_t, vectors_table(ids, vectors), False, fraction, int(hit.sum())
    )


def _previous_rows(
    reuse: Reuse | None, mrl: int, dim: int, float_vectors: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None] | None:
    """(SimHash codes, int8 codes, scales, float16 vectors or None) of the previous run, row for
    row with its documents; None when its tables do not fit these (another width, other row
    counts, or no float vectors where they are wanted): every vector is then computed again,
    never carried blindly."""
    if reuse is None:
        return None
    n = reuse.documents.num_rows
    if n == 0 or reuse.i8.num_rows != n or reuse.bits.num_rows != n:
        return None
    codes = vectors_matrix(reuse.i8, "codes", dtype=None)
    if codes.shape[1] != mrl:
        return None
    scales = reuse.i8.column("scale").to_numpy()
    bits = np.stack([reuse.bits.column(c).to_numpy() for c in LANE_NAMES], axis=1)
    vectors = None
    if float_vectors:
        old = reuse.vectors
        if (
            old is None
            or old.num_rows != n
            or not old.column("doc_id").equals(reuse.documents.column("doc_id"))
        ):
            return None
        vectors = vectors_matrix(old, dtype=None)
        if vectors.shape[1] != dim:
            return None
    return bits, codes, scales, vectors
