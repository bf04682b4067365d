"""Stage `embed`: fit (or reuse) the embedder and embed every document.

Refit rule: the backend is fitted again when there is no previous state, when the previous state
was made with other parameters, or when more than `refit_fraction` of the current documents are
new since that fit (a document whose content changed counts as new); otherwise the previous state
only transforms, so vectors of unchanged documents stay bit-identical across runs and the query
side keeps matching them. Without a refit, a document whose id and content hash are those of a
document of the previous run keeps that run's vector (`reuse`): the same state would compute
the same row, so only new and changed documents are featurized.

Output `vectors_f32`: row i is document i, unit-length vectors of `full_dim` components, stored as
float16 (the artifact keeps its name; readers widen it to float32).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ..store.config import EmbeddingConfig
from ..store.embedder import BACKENDS, Embedder, doc_key, haar_rotation, make_backend
from ..store.lsa import HashingLSA, featurize_with
from ..store.schemas import VECTORS_F32
from ..store.vecstore import CODE_BITS, mrl_truncate
from .documents import embed_text


@dataclass(frozen=True)
class EmbedResult:
    embedder: Embedder
    vectors: pa.Table
    refit: bool
    new_fraction: float  # share of documents new since the previous fit (1.0 without one)
    reused: int = 0  # vectors carried from the previous run without a transform


def backend_params(config: EmbeddingConfig) -> dict:
    if config.backend not in BACKENDS:
        raise ValueError(
            f"unknown embedding backend {config.backend!r}; known: {', '.join(BACKENDS)}"
        )
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


def compatible(previous: Embedder, config: EmbeddingConfig) -> bool:
    """Whether `previous` was made with the parameters `config` asks for."""
    return (
        previous.backend.name == config.backend
        and previous.backend.params() == backend_params(config)
        and previous.mrl_dim == config.mrl_dim
        and np.array_equal(previous.rotation, haar_rotation(CODE_BITS, config.seed))
    )


def document_texts(documents: pa.Table) -> list[str]:
    cols = documents.select(["title", "path", "body"]).to_pydict()
    return [
        embed_text(t, p, b)
        for t, p, b in zip(cols["title"], cols["path"], cols["body"], strict=True)
    ]


def document_keys(documents: pa.Table) -> np.ndarray:
    ids = documents.column("doc_id").to_pylist()
    hashes = documents.column("content_hash").to_pylist()
    return np.fromiter(
        (doc_key(i, h) for i, h in zip(ids, hashes, strict=True)), np.uint64, len(ids)
    )


def vectors_table(doc_ids: list[str], vectors: np.ndarray) -> pa.Table:
    n, d = vectors.shape
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float16).reshape(-1))
    return pa.table(
        {
            "doc_id": pa.array(doc_ids, pa.string()),
            "vector": pa.FixedSizeListArray.from_arrays(flat, d),
        },
        schema=VECTORS_F32,
    )


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
    reuse: tuple[pa.Table, pa.Table] | None = None,
    advance: Callable[[int], None] | None = None,
    mapper: Callable[[Callable[[Any], Any], Iterable[Any]], Iterator[Any]] | None = None,
) -> EmbedResult:
    """Fit or reuse the embedder and embed `documents`. `reuse` is the previous run's
    (documents, vectors_f32), made with `previous`; `advance(n)` is told of every n documents
    embedded; `mapper(fn, items)` (results in order) may run a fit's featurization elsewhere,
    e.g. on a process pool."""
    keys = document_keys(documents)
    fraction = previous.new_fraction(keys) if previous is not None else 1.0
    refit = previous is None or not compatible(previous, config) or fraction > config.refit_fraction
    if refit:
        texts = document_texts(documents)
        backend = make_backend(config.backend, **backend_params(config))
        if isinstance(backend, HashingLSA):
            # featurized once: the fit and the vectors share the features
            feats: list = []
            if mapper is not None:
                one = functools.partial(featurize_with, tuple(sorted(backend.params().items())))
                for f in mapper(one, texts):
                    feats.append(f)
                    if advance is not None and len(feats) % BATCH == 0:
                        advance(BATCH)
                if advance is not None and len(feats) % BATCH:
                    advance(len(feats) % BATCH)
            else:
                for start in range(0, len(texts), BATCH):
                    feats += backend.featurize(texts[start : start + BATCH])
                    if advance is not None:
                        advance(min(BATCH, len(texts) - start))
            backend = backend.fit_features(feats)
            raw = backend.transform_features(feats)
        else:
            fit_transform = getattr(backend, "fit_transform", None)
            if fit_transform is not None:
                backend, raw = fit_transform(texts)
            else:
                backend = backend.fit(texts)
                raw = backend.transform(texts)
            if advance is not None:
                advance(len(texts))
        embedder = Embedder(
            backend,
            mrl_dim=config.mrl_dim,
            rotation=haar_rotation(CODE_BITS, config.seed),
            fit_keys=keys,
        )
        vectors = mrl_truncate(raw, embedder.full_dim)
        reused = 0
    else:
        assert previous is not None
        embedder = previous
        vectors, reused = _transform_new(documents, keys, embedder, reuse, advance)
    return EmbedResult(
        embedder,
        vectors_table(documents.column("doc_id").to_pylist(), vectors),
        refit,
        fraction,
        reused,
    )


def _transform_new(
    documents: pa.Table,
    keys: np.ndarray,
    embedder: Embedder,
    reuse: tuple[pa.Table, pa.Table] | None,
    advance: Callable[[int], None] | None,
) -> tuple[np.ndarray, int]:
    """Vectors of `documents` under an unchanged embedder: the previous run's row for every
    document it already embedded, a transform for the others."""
    n, dim = documents.num_rows, embedder.full_dim
    source = np.full(n, -1, np.int64)  # row of the previous vectors, or -1
    old_vectors = None
    if reuse is not None:
        old_docs, old_vecs = reuse
        if (
            old_docs.num_rows == old_vecs.num_rows
            and old_vecs.num_rows
            and old_docs.column("doc_id").equals(old_vecs.column("doc_id"))
        ):
            row_of = {int(k): i for i, k in enumerate(document_keys(old_docs))}
            source = np.fromiter((row_of.get(int(k), -1) for k in keys), np.int64, n)
            flat = old_vecs.column("vector").combine_chunks().flatten()
            old_vectors = flat.to_numpy(zero_copy_only=False).reshape(-1, dim)
    out = np.zeros((n, dim), np.float32)
    hit = source >= 0
    if old_vectors is not None and hit.any():
        out[hit] = old_vectors[source[hit]]
        if advance is not None:
            advance(int(hit.sum()))
    todo = np.flatnonzero(~hit)
    if len(todo):
        texts = document_texts(documents.take(pa.array(todo)))
        raw = _in_batches(embedder.backend.transform, texts, dim, advance)
        out[todo] = mrl_truncate(raw, dim)
    return out, int(hit.sum())
