"""A hashed character-trigram language model of a repository's own text.

The context firewall uses it to flag spans far less predictable than the repository's dialect
(adversarial suffixes such as GCG strings). It lives in `store/` because the index builds and
stores it and the server loads it: the state is three integer count arrays and a few numbers
(`state()` / `from_state()`), no pickles. On disk (`save_state` / `load_state`) each array is
kept sparse, its non-zero buckets' ids and counts: a repository fills a few percent of the
trigram buckets, and the dense tables were a fixed megabyte and more of every index. Loading
scatters them back into the dense tables the model scores with (well under a millisecond).

Model: characters are folded (every digit to `0`, every whitespace to a space); trigram, bigram
and unigram counts go into hashed buckets; a character's probability is the trigram estimate
smoothed towards the bigram one, smoothed towards the unigram one (Dirichlet priors of weight
`PRIOR`). A window's perplexity is exp(-mean log p) over `window` characters.

Calibration: the threshold is `calibration` x the `percentile`-th window perplexity of the
corpus itself, scored leave-one-out (each position's own counts removed) so the corpus is not
judged by a model that memorised it. Invariants:

- `train` returns a model whose `active` is False when the corpus is under `min_corpus_chars`:
  a threshold from too little text would flag ordinary code.
- Only windows mostly made of ASCII are scored: the model never saw other scripts, and the
  firewall's other layers handle non-ASCII tricks.
- Deterministic: the same corpus and config give the same arrays and threshold.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .config import FirewallConfig
from .errors import IndexCorrupt

VERSION = 1
# the files of a saved state: `meta.json` (with `LAYOUT` and the arrays' lengths) and per array
# `<name>.ids.npy` (uint32, ascending) and `<name>.counts.npy` (int32, non-zero)
ARRAYS = ("tri", "bi", "uni")
LAYOUT = "sparse-1"
PRIOR = 2.0
UNIGRAM_BUCKETS = 1 << 12
_M1, _M2, _M3 = (
    np.uint64(0x9E3779B97F4A7C15),
    np.uint64(0xC2B2AE3D27D4EB4F),
    np.uint64(0x165667B19E3779F9),
)
_ASCII_SHARE = 0.9
_SAMPLE_WINDOWS = 200_000
_COUNT_BATCH = 1 << 20  # characters per batch: its hash arrays stay near 50 MB


# hashes, base64 blobs and other random tokens are data, not dialect: fold them to zeros
_RANDOM_TOKEN = re.compile(
    r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b"
    r"|(?<![\w+/=-])(?=[\w+/=-]*\d)(?=[\w+/=-]*[A-Z])(?=[\w+/=-]*[a-z])[\w+/=-]{16,}"
)


def _fold_random(match: re.Match[str]) -> str:
    return "0" * len(match.group())


def _codes(text: str) -> np.ndarray:
    text = _RANDOM_TOKEN.sub(_fold_random, text)
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.uint64)
    cps[(cps >= 0x30) & (cps <= 0x39)] = 0x30
    cps[(cps == 0x09) | (cps == 0x0A) | (cps == 0x0D) | (cps == 0x0B) | (cps == 0x0C)] = 0x20
    return np.concatenate([np.full(2, 0x20, dtype=np.uint64), cps])


def _bucket(h: np.ndarray, n: int) -> np.ndarray:
    if n & (n - 1) == 0:  # a power of two (the default sizes): a mask, the same as the modulo
        return (h & np.uint64(n - 1)).view(np.int64)
    return (h % np.uint64(n)).astype(np.int64)


def _hashes(c: np.ndarray, b3: int, b2: int) -> tuple[np.ndarray, ...]:
    """Bucket ids per scored position i (predicting c[i+2] from c[i], c[i+1])."""
    a, b, x = c[:-2], c[1:-1], c[2:]
    shift = np.uint64(20)
    with np.errstate(over="ignore"):
        ctx = (a * _M1) ^ (b * _M2)
        x3 = x * _M3
        h3 = (ctx ^ x3) >> shift
        h2ctx = ctx >> shift
        h2 = ((b * _M1) ^ (x * _M2)) >> shift
        h1ctx = (b * _M3) >> shift
        h1 = x3 >> shift
    return (
        _bucket(h3, b3),
        _bucket(h2ctx, b2),
        _bucket(h2, b2),
        _bucket(h1ctx, UNIGRAM_BUCKETS),
        _bucket(h1, UNIGRAM_BUCKETS),
    )


def _parts(texts: list[str], size: int) -> Iterator[list[str]]:
    """Consecutive runs of texts of about `size` characters each."""
    part: list[str] = []
    chars = 0
    for t in texts:
        part.append(t)
        chars += len(t) + 2
        if chars >= size:
            yield part
            part, chars = [], 0
    if part:
        yield part


def _batch_codes(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes, starts, lengths): the texts' `_codes` laid end to end (uint32), where text i's
    codes are codes[starts[i] : starts[i] + lengths[i] + 2]. Folding the joined text is folding
    each text: no random token crosses the newline that joins two."""
    joined = _RANDOM_TOKEN.sub(_fold_random, "\n".join(texts))
    cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4").copy()
    cps[(cps >= 0x30) & (cps <= 0x39)] = 0x30
    cps[(cps == 0x09) | (cps == 0x0A) | (cps == 0x0D) | (cps == 0x0B) | (cps == 0x0C)] = 0x20
    lens = np.fromiter((len(t) for t in texts), np.int64, len(texts))
    # each joining newline (now a space) plus one more space is the next text's prefix
    seps = np.cumsum(lens[:-1] + 1) - 1
    codes = np.concatenate([np.full(2, 0x20, np.uint32), np.insert(cps, seps, np.uint32(0x20))])
    starts = np.concatenate([[0], np.cumsum(lens[:-1] + 2)]).astype(np.int64)
    return codes, starts, lens


def _positions(n: int, starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Mask of the scored positions (of `n`) that lie inside one text, not across two."""
    edge = np.zeros(n + 1, np.int64)
    np.add.at(edge, starts, 1)
    np.add.at(edge, np.minimum(starts + lens, n), -1)
    return np.cumsum(edge)[:-1] > 0


def _count(batches, b3: int, b2: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    tri = np.zeros(b3, dtype=np.int64)
    bi = np.zeros(b2, dtype=np.int64)
    uni = np.zeros(UNIGRAM_BUCKETS, dtype=np.int64)
    for c, starts, lens in batches:
        h3, _h2ctx, h2, _h1ctx, h1 = _hashes(c.astype(np.uint64), b3, b2)
        valid = _positions(len(h3), starts, lens)
        tri += np.bincount(h3[valid], minlength=b3)
        bi += np.bincount(h2[valid], minlength=b2)
        uni += np.bincount(h1[valid], minlength=UNIGRAM_BUCKETS)
    return tri, bi, uni


def count_texts(texts: list[str], buckets: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """int64 (tri, bi, uni) counts of `texts`, as `train` counts them: each text is counted on
    its own, so the counts of a corpus are the sum of its texts' counts."""
    b2 = max(UNIGRAM_BUCKETS, buckets // 4)
    return _count([_batch_codes(part) for part in _parts(texts, _COUNT_BATCH)], buckets, b2)


class TrigramModel:
    def __init__(
        self,
        tri: np.ndarray,
        bi: np.ndarray,
        uni: np.ndarray,
        *,
        window: int,
        threshold: float,
        corpus_chars: int,
        active: bool,
    ) -> None:
        self.tri, self.bi, self.uni = tri, bi, uni
        self.window = window
        self.threshold = threshold
        self.corpus_chars = corpus_chars
        self.active = active
        self.total = float(uni.sum())

    # -------------------------------------------------------------- training

    @classmethod
    def train(cls, corpus: str | Iterable[str], cfg: FirewallConfig | None = None) -> TrigramModel:
        cfg = cfg or FirewallConfig()
        texts = [corpus] if isinstance(corpus, str) else list(corpus)
        kept: list[str] = []
        size = 0
        for t in texts:
            if size >= cfg.max_corpus_chars:
                break
            t = t[: cfg.max_corpus_chars - size]
            kept.append(t)
            size += len(t)
        b3 = cfg.buckets
        b2 = max(UNIGRAM_BUCKETS, b3 // 4)
        # texts go end to end in batches: per-text numpy calls and a bincount per text (which
        # sweeps every bucket) cost more than the counting itself on many short texts
        batches = [_batch_codes(part) for part in _parts(kept, _COUNT_BATCH)]
        tri, bi, uni = _count(batches, b3, b2)
        model = cls(
            tri.astype(np.int32),
            bi.astype(np.int32),
            uni.astype(np.int32),
            window=cfg.window,
            threshold=float("inf"),
            corpus_chars=size,
            active=False,
        )
        if size < cfg.min_corpus_chars:
            return model
        scores = []
        for c32, starts, lens in batches:
            c = c32.astype(np.uint64)
            logp = model._logp(_hashes(c, b3, b2), leave_one_out=True)
            for s0, n in zip(starts.tolist(), lens.tolist(), strict=True):
                scores.append(model._windows(c[s0 : s0 + n + 2], logp[s0 : s0 + n])[1])
        pooled = np.concatenate([s for s in scores if len(s)]) if scores else np.empty(0)
        if len(pooled) == 0:
            return model
        if len(pooled) > _SAMPLE_WINDOWS:
            pooled = pooled[:: len(pooled) // _SAMPLE_WINDOWS + 1]
        model.threshold = float(cfg.calibration * np.percentile(pooled, cfg.percentile))
        model.active = True
        return model

    # -------------------------------------------------------------- scoring

    def _logp(self, hs: tuple[np.ndarray, ...], leave_one_out: bool) -> np.ndarray:
        h3, h2ctx, h2, h1ctx, h1 = hs
        d = 1.0 if leave_one_out else 0.0
        n3 = np.maximum(self.tri[h3] - d, 0.0)
        n2 = np.maximum(self.bi[h2] - d, 0.0)
        n1 = np.maximum(self.uni[h1] - d, 0.0)
        ctx2 = np.maximum(self.bi[h2ctx] - d, 0.0)
        ctx1 = np.maximum(self.uni[h1ctx] - d, 0.0)
        p1 = (n1 + 1.0) / (max(self.total - d, 0.0) + UNIGRAM_BUCKETS)
        p2 = (n2 + PRIOR * p1) / (ctx1 + PRIOR)
        p3 = (n3 + PRIOR * p2) / (ctx2 + PRIOR)
        return np.log(p3)

    def _window_ppl(
        self, c: np.ndarray, hs: tuple[np.ndarray, ...], *, leave_one_out: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """(window start offsets, window perplexities) over scorable windows, stride window/4."""
        return self._windows(c, self._logp(hs, leave_one_out))

    def _windows(self, c: np.ndarray, logp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = self.window
        n = len(logp)
        if n < w:
            return np.empty(0, dtype=np.int64), np.empty(0)
        csum = np.concatenate([[0.0], np.cumsum(logp)])
        ascii_ = np.concatenate([[0], np.cumsum(c[2:] < 0x80)])
        starts = np.arange(0, n - w + 1, max(1, w // 4))
        if starts[-1] != n - w:
            starts = np.append(starts, n - w)
        share = (ascii_[starts + w] - ascii_[starts]) / w
        starts = starts[share >= _ASCII_SHARE]
        ppl = np.exp(-(csum[starts + w] - csum[starts]) / w)
        return starts, ppl

    def perplexity(self, text: str) -> float:
        """Perplexity of the whole text (for diagnostics and tests)."""
        c = _codes(text)
        logp = self._logp(_hashes(c, len(self.tri), len(self.bi)), False)
        return float(np.exp(-logp.mean())) if len(logp) else 1.0

    def flag(self, text: str) -> list[tuple[int, int, float]]:
        """Spans (start, end, worst perplexity / threshold) above the threshold."""
        if not self.active or len(text) < self.window:
            return []
        c = _codes(text)
        starts, ppl = self._window_ppl(c, _hashes(c, len(self.tri), len(self.bi)))
        spans: list[list[float]] = []
        for s, p in zip(starts.tolist(), ppl.tolist(), strict=True):
            if p <= self.threshold:
                continue
            e = s + self.window
            if spans and s <= spans[-1][1]:
                spans[-1][1] = e
                spans[-1][2] = max(spans[-1][2], p / self.threshold)
            else:
                spans.append([s, e, p / self.threshold])
        return [(int(s), int(e), float(r)) for s, e, r in spans]

    # -------------------------------------------------------------- state

    def state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Arrays and JSON-able metadata that `from_state` turns back into this model."""
        meta = {
            "version": VERSION,
            "window": self.window,
            "threshold": self.threshold if self.active else None,
            "corpus_chars": self.corpus_chars,
            "active": self.active,
        }
        return {"tri": self.tri, "bi": self.bi, "uni": self.uni}, meta

    @classmethod
    def from_state(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> TrigramModel:
        if meta.get("version") != VERSION:
            raise IndexCorrupt(f"character model version {meta.get('version')!r} is not {VERSION}")
        return cls(
            np.asarray(arrays["tri"], dtype=np.int32),
            np.asarray(arrays["bi"], dtype=np.int32),
            np.asarray(arrays["uni"], dtype=np.int32),
            window=int(meta["window"]),
            threshold=float(meta["threshold"])
            if meta.get("threshold") is not None
            else float("inf"),
            corpus_chars=int(meta["corpus_chars"]),
            active=bool(meta["active"]),
        )


# ---------------------------------------------------------------- storage


def save_state(directory: Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """Write a state (`TrigramModel.state()` or a stage's refreshed one) into `directory`."""
    sizes = {}
    for name in ARRAYS:
        dense = np.asarray(arrays[name])
        ids = np.flatnonzero(dense)
        np.save(directory / f"{name}.ids.npy", ids.astype(np.uint32), allow_pickle=False)
        np.save(directory / f"{name}.counts.npy", dense[ids].astype(np.int32), allow_pickle=False)
        sizes[name] = len(dense)
    stored = {**meta, "layout": LAYOUT, "sizes": sizes}
    (directory / "meta.json").write_text(
        json.dumps(stored, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


def load_state(directory: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The dense int32 arrays and the metadata `save_state` wrote; raises `IndexCorrupt` for an
    unreadable state. A state saved before the sparse layout (dense `<name>.npy` tables, no
    `layout`) still loads as it is; the next `gitstrata index` re-runs the stage (its code
    changed) and writes it sparse."""
    try:
        meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("meta.json is not an object")
        arrays = {}
        for name in ARRAYS:
            if "layout" not in meta:
                arrays[name] = np.load(directory / f"{name}.npy", allow_pickle=False)
                continue
            if meta["layout"] != LAYOUT:
                raise ValueError(f"layout {meta['layout']!r} is not {LAYOUT!r}")
            ids = np.load(directory / f"{name}.ids.npy", allow_pickle=False, mmap_mode="r")
            counts = np.load(directory / f"{name}.counts.npy", allow_pickle=False, mmap_mode="r")
            size = int(meta["sizes"][name])
            if ids.shape != counts.shape or (len(ids) and int(ids[-1]) >= size):
                raise ValueError(f"{name}: bucket ids do not fit {size} buckets")
            dense = np.zeros(size, np.int32)
            dense[ids] = counts
            arrays[name] = dense
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IndexCorrupt(
            f"{directory}: unreadable firewall model ({exc})",
            hint="run `gitstrata index --rebuild`",
        ) from None
    meta = {k: v for k, v in meta.items() if k not in ("layout", "sizes")}
    return arrays, meta
