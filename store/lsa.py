"""The hashing-LSA embedding backend: feature hashing, sublinear TF-IDF, randomized SVD.

Code-aware terms of `store/tokenizer.py` plus down-weighted character 3-grams of each word are
hashed (keyed blake2b, stable across processes and machines) into a space of `n_features`;
sublinear TF-IDF, L2-normalised rows; a truncated SVD keeps `full_dim` components ordered by
singular value: randomized (fixed seed) on a large corpus, exact on a small one (dense, or
through the documents' Gram matrix, `svd_path`). By Eckart-Young every prefix of the embedding
is then the best approximation of its rank, which is what makes the Matryoshka truncation sound. Components
are sign-fixed (largest entry positive), so the same corpus gives the same vectors. A corpus of
rank below `full_dim` is zero-padded. The state is five `.npy` arrays. The components, the
index's largest file, are stored as int8 codes (`components.npy`) with one float32 scale per
feature (`component_scales.npy`, the row's largest magnitude over 127), rounded so at fit time,
so fit and reload agree; the codes are memory-mapped on load and a query dequantises only the
rows of its own features. A state of the earlier format (float16 components, no scales) still
loads, as exactly the matrix it stored.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain
from pathlib import Path
from typing import ClassVar

import numpy as np

from .errors import IndexCorrupt
from .heap import release_free_heap
from .tokenizer import tokenize

REBUILD = "gitstrata index --rebuild"
# fitting multiplies the whole corpus (numba, compiled once and cached); a query is one row
NUMBA_MIN_WORK = 20_000_000
# ... unless the corpus matrix is dense enough for the numpy path to expand it (`_spmm`: 2 % of
# its cells) and small enough for BLAS to multiply that in a few tens of milliseconds: then
# numpy costs less than importing numba and loading its kernels (about 0.5 s a process)
BLAS_MAX_WORK = 2_000_000_000
DENSE_SHARE = 0.02
# `progress(total)` -> `advance(n)`: a fit tells how many steps it takes, then each as it ends
FitProgress = Callable[[int], Callable[[int], None]]


# ---------------------------------------------------------------- BLAS threads


@functools.lru_cache(maxsize=1)
def _openblas() -> tuple[Callable[..., int], Callable[..., None]] | None:
    """(get, set) of the thread count of the OpenBLAS numpy loaded, or None (another BLAS, or
    a platform without /proc)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            paths = {line.split()[-1] for line in fh if "openblas" in line.lower()}
    except OSError:
        return None
    for path in sorted(p for p in paths if p.startswith("/")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get, set_ in (
            ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
            ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
            ("openblas_get_num_threads", "openblas_set_num_threads"),
        ):
            if hasattr(lib, get) and hasattr(lib, set_):
                return getattr(lib, get), getattr(lib, set_)
    return None


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the fit's BLAS and LAPACK calls on one thread. Its matrices are small (the range
    finder's ell x ell Gram matrices): on a busy machine OpenBLAS's spinning threads made each
    400 x 400 eigendecomposition take seconds instead of 0.06 s, and one thread also makes the
    fit's floating-point sums the same whatever the number of cores."""
    lib = _openblas()
    if lib is None:
        yield
        return
    get, set_ = lib
    before = int(get())
    set_(ctypes.c_int(1))
    try:
        yield
    finally:
        set_(ctypes.c_int(before))


# ---------------------------------------------------------------- sparse helpers (numpy only)


def quantize_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 codes, float32 scale per row): each row divided by its largest magnitude over 127
    and rounded to the nearest integer; a zero row has scale 0 and zero codes. `dequantize_rows`
    of the result is within half a scale of every entry."""
    m = len(matrix)
    codes = np.zeros(matrix.shape, np.int8)
    scales = np.zeros(m, np.float32)
    step = 8192  # rows per block: the float32 temporaries stay ~8 MB at 256 columns
    for start in range(0, m, step):
        block = np.asarray(matrix[start : start + step], dtype=np.float32)
        peak = np.abs(block).max(axis=1) if block.shape[1] else np.zeros(len(block), np.float32)
        scale = (peak / np.float32(127.0)).astype(np.float32)
        safe = np.where(scale > 0, scale, np.float32(1.0))
        codes[start : start + step] = np.clip(np.rint(block / safe[:, None]), -127, 127)
        scales[start : start + step] = scale
    return codes, scales


def dequantize_rows(
    codes: np.ndarray, scales: np.ndarray, rows: np.ndarray | None = None
) -> np.ndarray:
    """float32 `codes[rows] * scales[rows]` per row (every row when `rows` is None)."""
    out = (codes if rows is None else codes[rows]).astype(np.float32)
    out *= scales[:, None] if rows is None else scales[rows, None]
    return out


def _spmm(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    dense: np.ndarray,
    scales: np.ndarray | None = None,
    expanded: np.ndarray | None = None,
    threads: int = 1,
) -> np.ndarray:
    """CSR (rows x m) times dense (m x l), in row blocks of bounded memory. A block dense enough
    (>= 2 % non-zeros) is expanded and multiplied by BLAS; a sparser one gathers the rows it
    needs. With `scales`, `dense` holds int8 codes of `quantize_rows` and is dequantised:
    whole where the whole matrix is read anyway, row by row where a few documents gather only
    their own rows (`expanded`, when given, is that whole dequantised matrix, already made).
    Which way a product goes depends only on the matrix's shape and the CSR rows, so a state
    gives the same vectors bit for bit whether it was just fitted or loaded."""
    n = len(indptr) - 1
    m, ell = dense.shape

    def whole() -> np.ndarray:
        if expanded is not None:
            return expanded
        if scales is not None:
            return dequantize_rows(dense, scales)
        return np.asarray(dense, dtype=np.float32)

    def gather(rows: np.ndarray) -> np.ndarray:
        if scales is not None:
            return dequantize_rows(dense, scales, rows)
        return dense[rows].astype(np.float32)

    if by_numba(n, m, len(data), ell):
        from .sparse import spmm

        return spmm(indptr, indices, data, whole(), threads)
    out = np.zeros((n, ell), dtype=np.float32)
    full: np.ndarray | None = None
    # codes are expanded whole for BLAS only when the product reads more rows than the matrix
    # has: a few new documents (an incremental run) gather their own rows instead
    expand = scales is None or len(data) >= m
    budget = max(1, (32 << 20) // (4 * max(1, ell)))  # ~32 MB of gathered rows
    rows_per_block = max(1, (16 << 20) // (4 * max(1, m)))  # ~16 MB of expanded block
    start = 0
    while start < n:
        stop = int(np.searchsorted(indptr, indptr[start] + budget, side="right")) - 1
        stop = min(n, max(stop, start + 1), start + rows_per_block)
        lo, hi = indptr[start], indptr[stop]
        if hi > lo:
            if expand and (hi - lo) >= DENSE_SHARE * (stop - start) * m:
                block = np.zeros((stop - start, m), np.float32)
                local = np.repeat(np.arange(stop - start), np.diff(indptr[start : stop + 1]))
                block[local, indices[lo:hi]] = data[lo:hi]
                if full is None:
                    full = whole()
                # one thread, as the fit's other products: beside the other stages' threads
                # OpenBLAS's spinning workers made this 561 x 5438 x 256 product take 0.09-0.43 s
                # instead of 0.02 s, and one thread gives the same sums on every machine
                with single_threaded_blas():
                    out[start:stop] = block @ full
            else:
                prod = data[lo:hi, None] * gather(indices[lo:hi])
                seg = indptr[start:stop] - lo
                nonempty = indptr[start + 1 : stop + 1] > indptr[start:stop]
                out[start:stop][nonempty] = np.add.reduceat(prod, seg[nonempty], axis=0)
        start = stop
    return out


def _document_frequencies(raw, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """(sorted feature ids present, number of documents holding each): `np.unique` over all
    documents' ids (unique within a document), counted in bounded blocks rather than over one
    concatenation of every id of the corpus."""
    counts = np.zeros(n_features, np.int64)
    step = 4096
    for start in range(0, len(raw), step):
        ids = [i for i, _ in raw[start : start + step]]
        if ids:
            counts += np.bincount(np.concatenate(ids), minlength=n_features)
    uniq = np.flatnonzero(counts)
    return uniq.astype(np.int64), counts[uniq]


def by_numba(n: int, m: int, nnz: int, ell: int) -> bool:
    """Whether the product of an n x m CSR matrix of `nnz` non-zeros by an m x `ell` matrix
    goes to the numba kernels (`NUMBA_MIN_WORK`, `BLAS_MAX_WORK`). It depends on the shapes
    alone, so the same product goes the same way, and gives the same bits, every time."""
    if nnz * ell < NUMBA_MIN_WORK:
        return False
    return not (nnz >= DENSE_SHARE * n * m and n * m * ell <= BLAS_MAX_WORK)


def _transpose(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, m: int, ell: int):
    """The CSR matrix's transpose (`sparse.transpose`'s result). A product of `ell` columns
    that goes to the numba kernels (`by_numba`) transposes by their counting sort, with no
    memory beyond the result; another by a stable sort here (numba not imported)."""
    if by_numba(len(indptr) - 1, m, len(data), ell):
        from .sparse import transpose

        return transpose(indptr, indices, data, m)
    order = np.argsort(indices, kind="stable")
    rows = np.repeat(np.arange(len(indptr) - 1, dtype=np.int32), np.diff(indptr))
    t_indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(indices, minlength=m), out=t_indptr[1:])
    return t_indptr, rows[order], data[order]


class _Hasher:
    """token -> feature id in [0, n_features), keyed blake2b (Python's hash() is salted)."""

    def __init__(self, seed: int, n_features: int) -> None:
        self.key = seed.to_bytes(8, "little")
        self.mask = n_features - 1 if n_features & (n_features - 1) == 0 else None
        self.n = n_features
        self.cache: dict[str, int] = {}
        self.gram_cache: dict[str, tuple[int, ...]] = {}

    def __call__(self, token: str) -> int:
        fid = self.cache.get(token)
        if fid is None:
            h = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8, key=self.key)
            v = int.from_bytes(h.digest(), "little")
            fid = v & self.mask if self.mask is not None else v % self.n
            if len(self.cache) > 1_000_000:
                self.cache.clear()
            self.cache[token] = fid
        return fid

    def grams(self, token: str) -> tuple[int, ...]:
        """Feature ids of the character 3-grams of `<token>` (words of 3+ letters or digits)."""
        ids = self.gram_cache.get(token)
        if ids is None:
            ids = ()
            if len(token) >= 3 and token.isalnum():
                padded = f"<{token}>"
                ids = tuple(self("\x01" + padded[i : i + 3]) for i in range(len(padded) - 2))
            if len(self.gram_cache) > 500_000:
                self.gram_cache.clear()
            self.gram_cache[token] = ids
        return ids


def _doc_features(text: str | list[str], hasher: _Hasher, char_ngrams: bool, ngram_weight: float):
    """(feature ids, weights) of one text, or of its terms (`tokenize(text)`, e.g. kept by an
    earlier stage): sublinear tf of terms and of weighted 3-grams."""
    counts = Counter(tokenize(text) if isinstance(text, str) else text)
    feats: dict[int, float] = {}
    for tok, c in counts.items():
        f = hasher(tok)
        feats[f] = feats.get(f, 0.0) + 1.0 + math.log(c)
    if char_ngrams and ngram_weight > 0:
        grams: Counter[int] = Counter()
        for tok, c in counts.items():
            for g in hasher.grams(tok):
                grams[g] += c
        for f, c in grams.items():
            feats[f] = feats.get(f, 0.0) + ngram_weight * (1.0 + math.log(c))
    if not feats:
        return np.empty(0, np.int64), np.empty(0, np.float32)
    ids = np.fromiter(feats.keys(), dtype=np.int64, count=len(feats))
    w = np.fromiter(feats.values(), dtype=np.float32, count=len(feats))
    order = np.argsort(ids)
    return ids[order], w[order]


# texts featurized one by one below this many (a query), as one block from it (a corpus)
BLOCK_MIN = 8


def _block_features(
    texts: Sequence[str | list[str]], hasher: _Hasher, char_ngrams: bool, ngram_weight: float
) -> list[tuple[np.ndarray, np.ndarray]]:
    """`_doc_features` of every text, the same arrays bit for bit, with numpy over the whole
    block: each distinct term is hashed once; a feature's weight is summed in the order
    `_doc_features` adds to it (its terms in first-seen order, then its 3-gram weight, from 0.0)
    by a stable sort and `np.bincount`, which adds in input order; the logarithms are Python's
    `math.log`, tabulated per count."""
    counts = [Counter(tokenize(t) if isinstance(t, str) else t) for t in texts]
    n = len(counts)
    if n == 0:
        return []
    per_doc = np.fromiter(map(len, counts), np.int64, n)
    total = int(per_doc.sum())
    keys = list(chain.from_iterable(counts))
    tf = np.fromiter(chain.from_iterable(c.values() for c in counts), np.int64, total)
    index = {t: i for i, t in enumerate(dict.fromkeys(keys))}
    distinct = list(index)
    tok = np.fromiter(map(index.__getitem__, keys), np.int64, total)
    del keys, index
    doc = np.repeat(np.arange(n, dtype=np.int64), per_doc)
    width = np.int64(hasher.n)
    top = int(tf.max()) if total else 0
    logs = [1.0 + math.log(c) if c else 0.0 for c in range(top + 1)]
    fid = np.fromiter(map(hasher, distinct), np.int64, len(distinct))
    key_parts = [doc * width + fid[tok]]
    weight_parts = [np.asarray(logs, np.float64)[tf]]
    if char_ngrams and ngram_weight > 0 and total:
        grams = [hasher.grams(t) for t in distinct]
        length = np.fromiter(map(len, grams), np.int64, len(grams))
        gram_ids = np.fromiter(chain.from_iterable(grams), np.int64, int(length.sum()))
        first = np.concatenate(([0], np.cumsum(length)[:-1]))
        each = length[tok]  # 3-grams of each (document, term)
        if each.sum():
            at = np.repeat(first[tok] - np.concatenate(([0], np.cumsum(each)[:-1])), each)
            at += np.arange(int(each.sum()), dtype=np.int64)
            gram_keys = np.repeat(doc, each) * width + gram_ids[at]
            # a 3-gram's count in its document: a sum of integers, exact in any order
            ukeys, inverse = np.unique(gram_keys, return_inverse=True)
            summed = np.bincount(inverse, weights=np.repeat(tf, each)).astype(np.int64)
            top = int(summed.max())
            scaled = [ngram_weight * (1.0 + math.log(c)) if c else 0.0 for c in range(top + 1)]
            key_parts.append(ukeys)
            weight_parts.append(np.asarray(scaled, np.float64)[summed])
    all_keys = np.concatenate(key_parts)
    order = np.argsort(all_keys, kind="stable")
    sorted_keys = all_keys[order]
    new = np.empty(len(sorted_keys), bool)
    new[:1] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=new[1:])
    features = sorted_keys[new]
    sums = np.bincount(np.cumsum(new) - 1, weights=np.concatenate(weight_parts)[order])
    ids = features % width
    weights = sums.astype(np.float32)
    bounds = np.cumsum(np.bincount(features // width, minlength=n))[:-1]
    return list(zip(np.split(ids, bounds), np.split(weights, bounds), strict=True))


class HashingLSA:
    """Feature hashing -> sublinear TF-IDF -> randomized truncated SVD (see the module doc)."""

    name: ClassVar[str] = "hashing-lsa"
    matryoshka: ClassVar[bool] = True  # components ordered by singular value (Eckart-Young)

    def __init__(
        self,
        *,
        full_dim: int = 256,
        seed: int = 0,
        n_features: int = 1 << 18,
        char_ngrams: bool = True,
        ngram_weight: float = 0.3,
        max_vocab: int = 65_536,
        oversample: int = 16,
        power_iters: int = 4,
    ) -> None:
        self.full_dim = full_dim
        self.seed = seed
        self.n_features = n_features
        self.char_ngrams = char_ngrams
        self.ngram_weight = ngram_weight
        self.max_vocab = max_vocab
        self.oversample = oversample
        self.power_iters = power_iters
        self.features = np.empty(0, np.int64)  # sorted kept feature ids
        self.idf = np.empty(0, np.float32)
        # the components (len(features) x full_dim) as `quantize_rows` codes and scales
        self.codes: np.ndarray = np.zeros((0, full_dim), np.int8)
        self.scales = np.empty(0, np.float32)
        self._components: np.ndarray | None = None
        self.singular_values = np.zeros(full_dim, np.float32)
        self._hasher = _Hasher(seed, n_features)

    @property
    def dim(self) -> int:
        return self.full_dim

    @property
    def components(self) -> np.ndarray:
        """The whole dequantised components matrix, float32 (len(features) x full_dim); a
        query and a few documents read only their own rows of the codes."""
        if self._components is None:
            self._components = dequantize_rows(self.codes, self.scales)
        return self._components

    def params(self) -> dict:
        return {
            "full_dim": self.full_dim,
            "seed": self.seed,
            "n_features": self.n_features,
            "char_ngrams": self.char_ngrams,
            "ngram_weight": self.ngram_weight,
            "max_vocab": self.max_vocab,
            "oversample": self.oversample,
            "power_iters": self.power_iters,
        }

    def _raw(self, texts: Sequence[str | list[str]]):
        if len(texts) >= BLOCK_MIN:
            return _block_features(texts, self._hasher, self.char_ngrams, self.ngram_weight)
        return [_doc_features(t, self._hasher, self.char_ngrams, self.ngram_weight) for t in texts]

    def _csr(self, raw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows restricted to the kept features, tf-idf weighted, L2-normalised."""
        indptr = np.zeros(len(raw) + 1, dtype=np.int64)
        # written in place into arrays sized for every feature (those kept are fewer): no list
        # of per-row pieces and no concatenation beside them; column numbers are int32 while
        # they fit (half of int64's memory in the fit's largest arrays)
        room = sum(len(ids) for ids, _ in raw)
        indices = np.empty(room, np.int32 if len(self.features) < 2**31 else np.int64)
        data = np.empty(room, np.float32)
        at = 0
        for i, (ids, w) in enumerate(raw):
            pos = np.searchsorted(self.features, ids)
            pos = np.minimum(pos, max(len(self.features) - 1, 0))
            keep = (self.features[pos] == ids) if len(self.features) else np.zeros(len(ids), bool)
            c = pos[keep]
            v = w[keep] * self.idf[c]
            norm = float(np.sqrt(np.dot(v, v)))
            if norm > 0:
                v = v / norm
            indices[at : at + len(c)] = c
            data[at : at + len(c)] = v
            at += len(c)
            indptr[i + 1] = at
        return indptr, indices[:at], data[:at]

    def fit(self, texts: Sequence[str]) -> HashingLSA:
        return self.fit_transform(texts)[0]

    def fit_transform(self, texts: Sequence[str]) -> tuple[HashingLSA, np.ndarray]:
        """The fitted copy and the embeddings of `texts` (each text featurized once)."""
        return self.fit_transform_features(self.featurize(texts), consume=True)

    def featurize(self, texts: Sequence[str | list[str]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """(sorted feature ids, sublinear tf weights) per text: what fit and transform read,
        computable in parts (a fit over the parts' concatenation is the fit over all). A text
        may be given as its terms (`tokenize(text)`): the same features, without tokenizing."""
        return self._raw(texts)

    def fit_features(self, raw: list[tuple[np.ndarray, np.ndarray]]) -> HashingLSA:
        """A fitted copy, from `featurize`'s output over the whole corpus."""
        fitted = HashingLSA(**self.params())
        fitted._fit_raw(raw)
        return fitted

    def transform_features(self, raw: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        return self._transform_raw(raw)

    def fit_transform_features(
        self,
        raw: list[tuple[np.ndarray, np.ndarray]],
        *,
        threads: int = 1,
        consume: bool = False,
        progress: FitProgress | None = None,
    ) -> tuple[HashingLSA, np.ndarray]:
        """`fit_features(raw)` and that fit's `transform_features(raw)`, the weighted matrix
        built once: the fit's matrix is the one the transform would build again. `consume`:
        `raw` is emptied once that matrix is built, so its memory serves the fit's own (a large
        corpus's features are a third of the fit's peak). `progress(total)` is called once the
        work is known, with its number of sparse products (the fit's and the vectors'), and
        returns what is called after each."""
        fitted = HashingLSA(**self.params())
        n = len(raw)
        ticks: list[Callable[[int], None]] = []

        def counted(total: int) -> Callable[[int], None]:
            assert progress is not None
            ticks.append(progress(total + 1))  # + the vectors' product
            return ticks[0]

        csr = fitted._fit_raw(
            raw, threads, consume=consume and n > 1, progress=counted if progress else None
        )
        if csr is None or n == 1 or len(fitted.features) == 0:
            out = fitted._transform_raw(raw)  # the transform's own special cases
        else:
            out = _spmm(*csr, fitted.codes, fitted.scales, fitted._components, threads=threads)
        for tick in ticks:
            tick(1)
        return fitted, out

    def _fit_raw(
        self,
        raw,
        threads: int = 1,
        *,
        consume: bool = False,
        progress: FitProgress | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Fit on `raw`; returns the weighted CSR matrix it was fitted on (None when empty).
        `threads` share the sparse products (the same result whatever their number);
        `consume`: `raw` is emptied once the matrix is built, unless no feature was kept;
        `progress`: as `fit_transform_features`'s, for the fit's products alone."""
        n = len(raw)
        if n == 0:
            return None
        uniq, df = _document_frequencies(raw, self.n_features)
        min_df = 2 if n >= 50 else 1
        keep = df >= min_df
        uniq, df = uniq[keep], df[keep]
        if len(uniq) > self.max_vocab:
            # most frequent first; ties by feature id so the choice is deterministic
            top = np.lexsort((uniq, -df))[: self.max_vocab]
            top.sort()
            uniq, df = uniq[top], df[top]
        self.features = uniq.astype(np.int64)
        self.idf = (np.log((1.0 + n) / (1.0 + df)) + 1.0).astype(np.float32)
        indptr, indices, data = self._csr(raw)
        if consume and len(self.features):
            raw.clear()
            release_free_heap()  # its many small arrays: their pages back to the system
        tick = None
        if progress is not None:
            tick = progress(
                svd_products(
                    n, len(uniq), len(data), self.full_dim, self.oversample, self.power_iters
                )
            )
        with single_threaded_blas():
            components, self.singular_values = _truncated_svd(
                indptr,
                indices,
                data,
                len(uniq),
                self.full_dim,
                self.oversample,
                self.power_iters,
                self.seed,
                threads,
                tick,
            )
        # stored as int8 codes (`save`): rounded now so the fit's own vectors are those a
        # reload gives
        self.codes, self.scales = quantize_rows(components)
        del components
        self._components = dequantize_rows(self.codes, self.scales)
        return indptr, indices, data

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        return self._transform_raw(self._raw(texts))

    def _transform_raw(self, raw) -> np.ndarray:
        if len(self.features) == 0:
            return np.zeros((len(raw), self.full_dim), np.float32)
        if len(raw) == 1:  # the query path: skip the blocked product
            ids, w = raw[0]
            pos = np.minimum(np.searchsorted(self.features, ids), len(self.features) - 1)
            c = pos[self.features[pos] == ids]
            if len(c) == 0:
                return np.zeros((1, self.full_dim), np.float32)
            v = w[self.features[pos] == ids] * self.idf[c]
            v /= np.float32(np.sqrt(np.dot(v, v)))
            # the scales folded into the weights: one pass over the query's rows, not two
            rows = self.codes[c].astype(np.float32)
            return ((v * self.scales[c]) @ rows)[None, :].astype(np.float32)
        indptr, indices, data = self._csr(raw)
        return _spmm(indptr, indices, data, self.codes, self.scales, self._components)

    def save(self, directory: Path) -> None:
        for name in ("features", "idf", "singular_values"):
            np.save(directory / f"{name}.npy", getattr(self, name), allow_pickle=False)
        # int8 codes halve the largest file of the index against float16; the rounding (half
        # a row's scale) is below the LSA's own noise
        np.save(directory / "components.npy", self.codes, allow_pickle=False)
        np.save(directory / "component_scales.npy", self.scales, allow_pickle=False)

    @classmethod
    def load(cls, directory: Path, meta: dict) -> HashingLSA:
        obj = cls(**meta["params"])
        obj.features = _load_npy(directory / "features.npy")
        obj.idf = _load_npy(directory / "idf.npy")
        # memory-mapped: a query touches only the rows of its own features. The same mapped
        # pages as a plain array: np.memmap's fancy indexing pays for a subclass round trip on
        # every query (milliseconds at real-repository vocabularies)
        codes = _load_npy(directory / "components.npy", mmap=True)
        obj.codes = codes.view(np.ndarray)
        if codes.dtype == np.int8:
            obj.scales = _load_npy(directory / "component_scales.npy")
        else:
            # the earlier format: float16 components, read as they are (scale 1)
            obj.scales = np.ones(len(codes), np.float32)
        obj.singular_values = _load_npy(directory / "singular_values.npy")
        if obj.codes.shape != (len(obj.features), obj.full_dim) or obj.scales.shape != (
            len(obj.features),
        ):
            raise IndexCorrupt(
                f"{directory}: components do not match the features", hint=f"run `{REBUILD}`"
            )
        return obj


# per process: a pool worker featurizes many texts with one backend and its hash caches
_WORKER_BACKENDS: dict[tuple, HashingLSA] = {}


def featurize_with(
    params: tuple, texts: Sequence[str | list[str]]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """`HashingLSA(**dict(params)).featurize(texts)`, for a process pool (module level,
    picklable with `functools.partial`; a worker keeps one backend and its hash caches)."""
    backend = _WORKER_BACKENDS.get(params)
    if backend is None:
        backend = _WORKER_BACKENDS[params] = HashingLSA(**dict(params))
    return backend.featurize(texts)


ORTH_BLOCK_ROWS = 8192  # rows of y widened to float64 at a time (~17 MB at 272 columns)


def _orth(y: np.ndarray) -> np.ndarray:
    """An orthonormal basis (float32) of the columns of y, by the eigendecomposition of the
    small Gram matrix y^T y; directions with a negligible eigenvalue are dropped. y is widened
    to float64 a block of rows at a time: no float64 copy of the whole (n x ell) matrix."""
    n, ell = y.shape
    gram = np.zeros((ell, ell))
    for start in range(0, n, ORTH_BLOCK_ROWS):
        block = y[start : start + ORTH_BLOCK_ROWS].astype(np.float64)
        gram += block.T @ block
    d, vecs = np.linalg.eigh(gram)
    keep = d > (d.max() if len(d) else 0.0) * 1e-12
    if not keep.any():
        return np.zeros((n, 1), np.float32)
    basis = vecs[:, keep] / np.sqrt(d[keep])
    out = np.empty((n, basis.shape[1]), np.float32)
    for start in range(0, n, ORTH_BLOCK_ROWS):
        out[start : start + ORTH_BLOCK_ROWS] = y[start : start + ORTH_BLOCK_ROWS] @ basis
    return out


def _truncated_svd(
    indptr,
    indices,
    data,
    m: int,
    k: int,
    oversample: int,
    power_iters: int,
    seed: int,
    threads: int = 1,
    tick: Callable[[int], None] | None = None,
):
    """Right singular vectors (m x k, zero-padded past the rank) and singular values of the CSR
    matrix, by Halko et al.'s randomized range finder with power iterations (exact when the rank
    is at most k + oversample), by the eigendecomposition of the documents' Gram matrix when
    there are few documents and the range finder would multiply the expanded matrix
    (`svd_path`), or by a dense SVD when the matrix is tiny. `tick(1)` is called after each of
    its `svd_products` steps."""
    n = len(indptr) - 1
    components = np.zeros((m, k), np.float32)
    svals = np.zeros(k, np.float32)
    step = tick if tick is not None else _no_tick
    path = svd_path(n, m, len(data), k, oversample)
    if path == "empty":
        return components, svals
    rank = min(n, m)
    rng = np.random.default_rng(seed)
    keep = min(k, rank)
    if path == "dense":
        dense = np.zeros((n, m), np.float64)
        rows = np.repeat(np.arange(n), np.diff(indptr))
        dense[rows, indices] = data
        _, s, vt = np.linalg.svd(dense, full_matrices=False)
        keep = min(keep, vt.shape[0])
        blocks: Iterator[np.ndarray] = iter([vt[:keep].T])
    elif path == "gram":
        s, blocks = _gram_svd(indptr, indices, data, m, keep, step)
    else:
        # with ell >= rank the range of Y is the whole range of X, so the result is exact and
        # power iterations would add nothing
        ell = min(k + oversample, rank)
        t_indptr, t_indices, t_data = _transpose(indptr, indices, data, m, ell)
        # the n x ell and m x ell matrices are the fit's memory peak: at most two are alive at
        # a time, each freed as soon as the next is made from it
        y = _spmm(indptr, indices, data, _gaussian(rng, m, ell), threads=threads)
        step(1)
        for _ in range(power_iters if ell < rank else 0):
            q = _orth(y)
            del y
            xt_q = _spmm(t_indptr, t_indices, t_data, q, threads=threads)
            del q
            y = _spmm(indptr, indices, data, xt_q, threads=threads)
            del xt_q
            step(2)
        q = _orth(y)
        del y
        q = _orth(q)
        release_free_heap()
        bt = _spmm(t_indptr, t_indices, t_data, q, threads=threads).astype(np.float64)  # X^T Q
        del q, t_indptr, t_indices, t_data
        step(1)
        # SVD of B = Q^T X through the small Gram matrix B B^T (BLAS-3 only, no m-side QR)
        s, u, live = _spectrum(bt.T @ bt)
        # only the `keep` leading right singular vectors are kept: m x keep, not m x ell
        keep = min(keep, len(s))
        blocks = _right_vectors(bt, u, s, np.flatnonzero(live[:keep]), keep)
    _signed_into(components, blocks, keep)
    svals[:keep] = s[:keep].astype(np.float32)
    step(1)
    return components, svals


DENSE_SVD_MAX = 2_000_000  # a matrix of at most this many cells is decomposed densely
# Documents up to which the fit decomposes their Gram matrix X X^T (n x n) instead of running the
# range finder, when the range finder would multiply the expanded matrix by BLAS (a small corpus
# dense enough, `by_numba`'s other side). Its (3 + 2 * power_iters) products of n x m by m x ell
# cost more than the Gram matrix's n x m by m x n and an n x n eigendecomposition while n is
# below about (3 + 2 * power_iters) * ell / 2; 1,024 keeps the eigendecomposition near 0.2 s.
# The result is the exact truncated SVD, as the dense one is.
GRAM_MAX_ROWS = 1024
GRAM_BLOCK_BYTES = 16 << 20  # float64 columns of the expanded matrix made at a time


def svd_path(n: int, m: int, nnz: int, k: int, oversample: int) -> str:
    """How `_truncated_svd` decomposes an n x m matrix of `nnz` non-zeros: "empty", "dense"
    (a tiny matrix), "gram" (few documents, dense enough for BLAS) or "randomized". It depends on
    the shapes alone, so a corpus is decomposed the same way every time."""
    if n == 0 or m == 0:
        return "empty"
    if n * m <= DENSE_SVD_MAX:
        return "dense"
    ell = min(k + oversample, n, m)
    if n <= GRAM_MAX_ROWS and nnz >= DENSE_SHARE * n * m and not by_numba(n, m, nnz, ell):
        return "gram"
    return "randomized"


def svd_products(n: int, m: int, nnz: int, k: int, oversample: int, power_iters: int) -> int:
    """How many steps `_truncated_svd` reports for an n x m matrix of `nnz` non-zeros: the range
    finder's first product, two per power iteration, B's product and the singular vectors (a
    dense SVD: one; the Gram matrix's path: two)."""
    path = svd_path(n, m, nnz, k, oversample)
    if path == "empty":
        return 0
    if path == "dense":
        return 1
    if path == "gram":
        return 2
    rank = min(n, m)
    ell = min(k + oversample, rank)
    return 3 + 2 * (power_iters if ell < rank else 0)


def _gram_svd(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    m: int,
    keep: int,
    step: Callable[[int], None],
) -> tuple[np.ndarray, Iterator[np.ndarray]]:
    """(singular values, row blocks of V) of the CSR matrix X (n x m) from the eigendecomposition
    of G = X X^T = U S^2 U^T: V = X^T U / S, each block the float64 rows of one block of
    columns of X, expanded once for G and once for V (no m x n matrix is ever whole). The same
    live rule as the range finder: a singular value below 1e-6 of the largest is dropped."""
    n = len(indptr) - 1
    t_indptr, t_rows, t_data = _transpose(indptr, indices, data, m, 1)
    width = max(1, GRAM_BLOCK_BYTES // (8 * n))

    def columns(start: int) -> np.ndarray:
        """Columns [start, start + width) of X, dense float64 (n x width)."""
        stop = min(m, start + width)
        lo, hi = t_indptr[start], t_indptr[stop]
        block = np.zeros((n, stop - start))
        local = np.repeat(np.arange(stop - start), np.diff(t_indptr[start : stop + 1]))
        block[t_rows[lo:hi], local] = t_data[lo:hi]
        return block

    gram = np.zeros((n, n))
    for start in range(0, m, width):
        block = columns(start)
        gram += block @ block.T
    step(1)
    s, u, live = _spectrum(gram)
    del gram
    cols = np.flatnonzero(live[:keep])
    scaled = u[:, cols] / s[cols]
    blocks = (columns(start).T @ scaled for start in range(0, m, width))
    return s, (_padded(v, cols, keep) for v in blocks)


def _spectrum(gram: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(singular values, left singular vectors, live) of a matrix from its Gram matrix, largest
    first; a singular value below 1e-6 of the largest is not live and is set to 0."""
    evals, u = np.linalg.eigh(gram)
    order = np.argsort(-evals, kind="stable")
    evals, u = evals[order], u[:, order]
    s = np.sqrt(np.clip(evals, 0.0, None))
    live = s > s[0] * 1e-6 if len(s) and s[0] > 0 else np.zeros(len(s), bool)
    return np.where(live, s, 0.0), u, live


def _padded(found: np.ndarray, cols: np.ndarray, keep: int) -> np.ndarray:
    """Rows of V with the `cols` of `keep` columns found: the others (no live singular value)
    are zeros."""
    if len(cols) == keep:
        return found
    v = np.zeros((len(found), keep))
    v[:, cols] = found
    return v


def _no_tick(n: int) -> None:
    pass


SVD_BLOCK_ROWS = 4096  # rows of the float64 right singular vectors made at a time (~12 MB)


def _right_vectors(
    bt: np.ndarray, u: np.ndarray, s: np.ndarray, cols: np.ndarray, keep: int
) -> Iterator[np.ndarray]:
    """Row blocks of V = B^T U / s (m x keep float64, zero columns where no singular value
    lives): each row is its own product with U, so blocks are the rows of the whole product,
    without the m x keep matrix beside B^T."""
    uc = u[:, cols]
    for start in range(0, len(bt), SVD_BLOCK_ROWS):
        found = bt[start : start + SVD_BLOCK_ROWS] @ uc
        found /= s[cols]
        yield _padded(found, cols, keep)


def _signed_into(components: np.ndarray, blocks: Iterator[np.ndarray], keep: int) -> None:
    """Write the row blocks of V (float64, m x keep) into `components[:, :keep]` (float32) with
    the sign convention: the largest-magnitude entry of each component is positive (the first
    such entry). The column maxima and minima are tracked across blocks (a later block replaces
    them only when strictly beyond, which is where `argmax` over the whole column lands), and
    the sign is flipped once the float32 rows are written: negating is exact either side of
    the cast."""
    at = np.arange(keep)
    hi = np.zeros(keep, np.int64)
    lo = np.zeros(keep, np.int64)
    hi_val = np.full(keep, -np.inf)
    lo_val = np.full(keep, np.inf)
    start = 0
    for v in blocks:
        if len(v):
            bh, bl = v.argmax(axis=0), v.argmin(axis=0)
            vh, vl = v[bh, at], v[bl, at]
            up, down = vh > hi_val, vl < lo_val
            hi[up], hi_val[up] = bh[up] + start, vh[up]
            lo[down], lo_val[down] = bl[down] + start, vl[down]
            components[start : start + len(v), :keep] = v
        start += len(v)
    if start == 0:
        return
    big, small = np.abs(hi_val), np.abs(lo_val)
    top_val = np.where(
        big > small, hi_val, np.where(small > big, lo_val, np.where(hi <= lo, hi_val, lo_val))
    )
    flip = np.sign(top_val)
    flip[flip == 0] = 1.0
    components[:, :keep] *= flip.astype(np.float32)


def _gaussian(rng: np.random.Generator, m: int, ell: int) -> np.ndarray:
    """float32 `rng.standard_normal((m, ell))`, drawn in row blocks: the same numbers as one
    draw, without the float64 matrix."""
    out = np.empty((m, ell), np.float32)
    step = max(1, (8 << 20) // (8 * max(1, ell)))
    for start in range(0, m, step):
        stop = min(m, start + step)
        out[start:stop] = rng.standard_normal((stop - start, ell))
    return out


def _load_npy(path: Path, *, mmap: bool = False) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False, mmap_mode="r" if mmap else None)
    except (OSError, ValueError) as exc:
        raise IndexCorrupt(f"{path}: unreadable ({exc})", hint=f"run `{REBUILD}`") from None
