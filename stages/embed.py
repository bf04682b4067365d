"""Stage `embed`: fit (or reuse) the embedder and embed every document.

Refit rule: the backend is fitted again when there is no previous state, when the previous state
was made with other parameters, or when more than `refit_fraction` of the current documents are
new since that fit (a document whose content changed counts as new); otherwise the previous state
only transforms, so vectors of unchanged documents stay bit-identical across runs and the query
side keeps matching them.

Output `vectors_f32`: row i is document i, unit-length float32 of `full_dim` components.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..store.config import EmbeddingConfig
from ..store.embedder import BACKENDS, Embedder, doc_key, haar_rotation, make_backend
from ..store.schemas import VECTORS_F32
from ..store.vecstore import CODE_BITS, mrl_truncate
from .documents import embed_text


@dataclass(frozen=True)
class EmbedResult:
    embedder: Embedder
    vectors: pa.Table
    refit: bool
    new_fraction: float  # share of documents new since the previous fit (1.0 without one)


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
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
    return pa.table(
        {
            "doc_id": pa.array(doc_ids, pa.string()),
            "vector": pa.FixedSizeListArray.from_arrays(flat, d),
        },
        schema=VECTORS_F32,
    )


def embed_documents(
    documents: pa.Table, config: EmbeddingConfig, previous: Embedder | None = None
) -> EmbedResult:
    texts = document_texts(documents)
    keys = document_keys(documents)
    fraction = previous.new_fraction(keys) if previous is not None else 1.0
    refit = previous is None or not compatible(previous, config) or fraction > config.refit_fraction
    if refit:
        backend = make_backend(config.backend, **backend_params(config))
        fit_transform = getattr(backend, "fit_transform", None)
        if fit_transform is not None:
            backend, raw = fit_transform(texts)
        else:
            backend = backend.fit(texts)
            raw = backend.transform(texts)
        embedder = Embedder(
            backend,
            mrl_dim=config.mrl_dim,
            rotation=haar_rotation(CODE_BITS, config.seed),
            fit_keys=keys,
        )
    else:
        assert previous is not None
        embedder = previous
        raw = embedder.backend.transform(texts)
    vectors = mrl_truncate(raw, embedder.full_dim)
    return EmbedResult(
        embedder, vectors_table(documents.column("doc_id").to_pylist(), vectors), refit, fraction
    )
