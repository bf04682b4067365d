"""The embedder state and its query-time transform, shared by the `embed` stage and serving.

A query must be embedded exactly as the documents were, so the fitted state is an artifact (the
`embedder/` folder of a generation: `meta.json` plus `.npy` arrays, never pickles) and this module
loads it and applies it.

Backends are pluggable (`EmbeddingBackend`: `dim`, `fit`, `transform`, `save`, `load`), registered
by name in `BACKENDS`: hashing-LSA (`store/lsa.py`, fitted on the corpus), wordllama
(`store/wordllama.py`, a pretrained static model shipped in its wheel), both fused
(`store/combined.py`) and a local ONNX model (`store/onnx_embed.py`). The `Embedder` around a
backend adds what the vector store needs whatever the backend: the served width (`mrl_dim`, a
Matryoshka prefix for backends whose prefixes are sound, else the whole vector), the fixed random
rotation of the SimHash codes (`CODE_BITS` hyperplanes whatever the width), and the fingerprints
of the documents the backend was fitted on (for the refit rule).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar, Protocol

import numpy as np

from .combined import LsaWordLlama
from .errors import IndexCorrupt
from .lsa import HashingLSA, _load_npy, single_threaded_blas
from .onnx_embed import OnnxBackend
from .tokenizer import TOKENIZER_VERSION
from .vecstore import CODE_BITS, mrl_truncate
from .wordllama import WordLlamaBackend

STATE_FORMAT = 1
REBUILD = "gitstrata index --rebuild"
QUERY_CACHE = 256  # query vectors an embedder keeps (`Embedder.embed_query`)


class EmbeddingBackend(Protocol):
    """What an embedding model must offer to plug into the `embed` stage and the query side."""

    name: ClassVar[str]
    matryoshka: ClassVar[bool]  # whether every prefix of a vector is itself a sound embedding

    @property
    def dim(self) -> int: ...

    def fit(self, texts: Sequence[str]) -> EmbeddingBackend:
        """A fitted copy (a pretrained model returns itself)."""
        ...

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """float32[len(texts), dim], not necessarily normalised."""
        ...

    def save(self, directory: Path) -> None: ...

    @classmethod
    def load(cls, directory: Path, meta: dict) -> EmbeddingBackend: ...

    def params(self) -> dict: ...


BACKENDS: dict[str, type[EmbeddingBackend]] = {
    b.name: b for b in (HashingLSA, WordLlamaBackend, LsaWordLlama, OnnxBackend)
}


def served_dim(backend: EmbeddingBackend, mrl_dim: int) -> int:
    """The width of the served vectors: the `mrl_dim` prefix when the backend's prefixes are
    sound, else the backend's whole vector."""
    return min(mrl_dim, int(backend.dim)) if backend.matryoshka else int(backend.dim)


def haar_rotation(dim: int, seed: int) -> np.ndarray:
    """A fixed Haar-random orthogonal matrix: QR of a Gaussian with the signs of R's diagonal
    folded into Q (Mezzadri's correction, without which Q is not uniformly distributed)."""
    g = np.random.default_rng([seed, 0x5EED]).standard_normal((dim, dim))
    # one thread: on a busy machine OpenBLAS's threads made this 256 x 256 QR take over a
    # second instead of 20 ms, on every incremental run (`embed` compares the stored rotation)
    with single_threaded_blas():
        q, r = np.linalg.qr(g)
    q *= np.sign(np.diag(r))
    return q.astype(np.float32)


def simhash_rotation(dim: int, seed: int) -> np.ndarray:
    """float32[CODE_BITS, dim]: the hyperplanes of the 1-bit codes of `dim`-wide vectors.

    At `dim == CODE_BITS` the Haar-random rotation; wider, `CODE_BITS` orthonormal rows (the
    Q of a Gaussian's QR, sign-corrected like `haar_rotation`); narrower, where that many
    orthogonal hyperplanes do not exist, unit-length Gaussian rows (Charikar's SimHash). Either
    way the Hamming distance of two codes estimates the angle of their vectors."""
    if dim == CODE_BITS:
        return haar_rotation(dim, seed)
    g = np.random.default_rng([seed, 0x5EED, dim]).standard_normal((dim, CODE_BITS))
    if dim > CODE_BITS:
        with single_threaded_blas():
            q, r = np.linalg.qr(g)
        q *= np.sign(np.diag(r))
        return np.ascontiguousarray(q.T, dtype=np.float32)
    rows = g.T
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return np.ascontiguousarray(rows, dtype=np.float32)


def doc_key(doc_id: str, content_hash: str) -> int:
    """A document's fingerprint for the refit rule: changes when its id or content changes."""
    h = hashlib.blake2b(f"{doc_id}\0{content_hash}".encode(), digest_size=8)
    return int.from_bytes(h.digest(), "little")


class Embedder:
    """A backend plus the vector-store parameters: Matryoshka prefix, SimHash rotation, and the
    fingerprints of the documents the backend was fitted on."""

    def __init__(
        self, backend, *, mrl_dim: int, rotation: np.ndarray, fit_keys: np.ndarray
    ) -> None:
        if not 1 <= mrl_dim <= int(backend.dim):
            raise ValueError(f"mrl_dim must be in 1..{backend.dim}, got {mrl_dim}")
        if np.shape(rotation) != (CODE_BITS, mrl_dim):
            raise ValueError(
                f"rotation must be {CODE_BITS} x {mrl_dim}, got {' x '.join(map(str, np.shape(rotation)))}"
            )
        self.backend = backend
        self.mrl_dim = mrl_dim
        self.rotation = rotation
        self.fit_keys = np.asarray(fit_keys, dtype=np.uint64)
        self._queries: dict[str, np.ndarray] = {}  # recent `embed_query` answers

    @property
    def full_dim(self) -> int:
        return int(self.backend.dim)

    def embed_full(self, texts: Sequence[str]) -> np.ndarray:
        """float32[n, full_dim], each row unit length (zero rows stay zero)."""
        return mrl_truncate(self.backend.transform(texts), self.full_dim)

    def embed_query(self, text: str) -> np.ndarray:
        """float32[mrl_dim]: the query's served vector (truncated, re-normalised), read-only.
        A served generation has one embedder, and one request embeds the same text for several
        of its parts (search, the intended change, the memory book's recall): the vectors of
        the last `QUERY_CACHE` texts are kept."""
        cache = self._queries
        vec = cache.get(text)
        if vec is None:
            vec = mrl_truncate(self.backend.transform([text])[0], self.mrl_dim)
            vec.setflags(write=False)
            if len(cache) >= QUERY_CACHE:
                try:
                    del cache[next(iter(cache))]
                except (StopIteration, KeyError, RuntimeError):  # another thread took it
                    pass
            cache[text] = vec
        return vec

    def new_fraction(self, keys: np.ndarray) -> float:
        """Share of `keys` (current documents) not among the documents of the fit."""
        keys = np.asarray(keys, dtype=np.uint64)
        if len(keys) == 0:
            return 0.0
        return float(np.count_nonzero(~np.isin(keys, self.fit_keys)) / len(keys))

    def save(self, directory: Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": STATE_FORMAT,
            "backend": self.backend.name,
            "tokenizer_version": TOKENIZER_VERSION,
            "mrl_dim": self.mrl_dim,
            "full_dim": self.full_dim,
            "params": self.backend.params(),
            "n_fit_docs": len(self.fit_keys),
        }
        (directory / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        np.save(directory / "rotation.npy", self.rotation, allow_pickle=False)
        np.save(directory / "fit_keys.npy", np.sort(self.fit_keys), allow_pickle=False)
        self.backend.save(directory)

    @classmethod
    def load(cls, directory: Path) -> Embedder:
        directory = Path(directory)
        meta = read_meta(directory)
        backend = BACKENDS[meta["backend"]].load(directory, meta)
        try:
            return cls(
                backend,
                mrl_dim=int(meta["mrl_dim"]),
                rotation=_load_npy(directory / "rotation.npy"),
                fit_keys=_load_npy(directory / "fit_keys.npy"),
            )
        except (KeyError, ValueError) as exc:
            raise IndexCorrupt(
                f"{directory}: inconsistent embedder state ({exc})", hint=f"run `{REBUILD}`"
            ) from None


def read_meta(directory: Path) -> dict:
    """The embedder state's `meta.json`, checked before any array is read: `IndexCorrupt` when it
    is unreadable, or written by another version of gitstrata (another state format or
    tokenizer: the index must be rebuilt to be served), or names an unknown backend."""
    directory = Path(directory)
    try:
        meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexCorrupt(
            f"{directory}: unreadable embedder state ({exc})", hint=f"run `{REBUILD}`"
        ) from None
    if not isinstance(meta, dict):
        raise IndexCorrupt(f"{directory}: unreadable embedder state", hint=f"run `{REBUILD}`")
    made = (meta.get("format"), meta.get("tokenizer_version"))
    if made != (STATE_FORMAT, TOKENIZER_VERSION):
        raise IndexCorrupt(
            f"{directory}: the index was built by another version of gitstrata (embedder state "
            f"format {made[0]}, tokenizer {made[1]}; this version reads format {STATE_FORMAT}, "
            f"tokenizer {TOKENIZER_VERSION})",
            hint=f"run `{REBUILD}`",
        )
    backend = meta.get("backend")
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise IndexCorrupt(
            f"{directory}: unknown embedder backend {backend!r}",
            hint=f"run `{REBUILD}`",
        )
    return meta


def make_backend(name: str, **params) -> EmbeddingBackend:
    """A fresh (unfitted) backend by its registered name."""
    try:
        factory: Callable[..., EmbeddingBackend] = BACKENDS[name]
    except KeyError:
        raise ValueError(
            f"unknown embedding backend {name!r}; known: {', '.join(BACKENDS)}"
        ) from None
    return factory(**params)
