"""The firewall's learned screen: a linear model over hashed character and word n-grams.

The rules know orders by words and shapes someone wrote down; this model knows them by the
n-grams that orders share across wordings: "previous instr", "you are now", "send the", the
Cyrillic or German word for "instructions". It reads the same folded view as the rules (NFKC,
look-alike letters folded; `firewall_views.fold_view`), lower-cased, with every space written
as one space and every digit as 0, and scores each segment (a line, or a sentence within one)
on its own: character 2- to 5-grams and word 1- and 2-grams (a word is a run of letters, digits
or non-ASCII characters), hashed into `2**BITS` weights; a segment's score is the bias plus the
sum of its n-grams' weights over the square root of their count (a logistic model's logit).

Invariants:
- No download, no network: the weights ship in the package (`firewall_model.npz`) and are a
  pure function of the training texts (`train`; `benchmarks/firewall.py --train-model` writes
  them from the corpus, and a test checks the shipped file equals a fresh run).
- A segment is flagged only above `threshold`: the highest score of a benign look-alike of the
  corpus given by a model trained without that text's split (`choose_threshold`), so on text
  like the corpus's it should flag next to no honest text.
- The hashing is fixed arithmetic on code points (no Python `hash`, which is salted per
  process): the same text gives the same score in every process.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..store.adam import Adam
from .firewall_views import fold_view

BITS = 18
CHAR_ORDERS = (2, 3, 4, 5)
WORD_ORDERS = (1, 2)
WEIGHTS = Path(__file__).with_name("firewall_model.npz")
NAME = "learned_screen"  # `firewall_rules.LEARNED`

_MASK64 = (1 << 64) - 1
_P = 0x100000001B3  # odd, so it has an inverse modulo 2**64
_PINV = pow(_P, -1, 1 << 64)
_MIX = 0x9E3779B97F4A7C15
_WINDOW = 2048  # characters hashed at a time; a longer text is screened window by window

# a segment ends after a sentence's end followed by a space, at a blank line, or at a line
# break before a list item, a heading or a comment (hard-wrapped prose stays whole)
_SEGMENT_END = re.compile(
    r"(?<=[.!?;\u3002\uff01\uff1f\uff1b])(?=\s)|[\u3002\uff01\uff1f]|\n(?=[ \t]*(?:\n|[-*+#>|/<]"
    r"|\d+[.)]\s))"
)
# a segment's sum is divided by the square root of its n-gram count, at least this: a few
# words are too little evidence to flag
MIN_NORM = 100


def _powers(base: int, n: int) -> np.ndarray:
    out = np.empty(n, dtype=np.uint64)
    x = 1
    for i in range(n):
        out[i] = x
        x = (x * base) & _MASK64
    return out


_POW = _powers(_P, _WINDOW + 2)
_PINV_POW = _powers(_PINV, _WINDOW + 2)
_SALT = {
    (kind, n): np.uint64((0x632BE59BD9B4E019 * (3 * n + kind + 1)) & _MASK64)
    for kind in (0, 1)
    for n in range(1, 8)
}
_SHIFT = np.uint64(64 - BITS)
_MIXU = np.uint64(_MIX)
# the model reads every space as one space and every digit as 0
_TABLE = {ord(c): " " for c in " \t\r\n\f\v"} | {ord(c): "0" for c in "0123456789"}
# word characters: ASCII letters, digits and _, and everything beyond ASCII (index 128)
_WORDISH = np.zeros(129, dtype=bool)
for _c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_":
    _WORDISH[ord(_c)] = True
_WORDISH[128] = True


def _lowered(view: str) -> str:
    low = view.lower()
    if len(low) != len(view):  # a few characters change length when lowered
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in view)
    return low


@functools.lru_cache(maxsize=256)
def _char_grams(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(start, end, P**order, salt) of every character n-gram of a text of length `n`."""
    orders = [k for k in CHAR_ORDERS if k <= n]
    starts = np.concatenate([np.arange(n - k + 1) for k in orders] or [np.zeros(0, np.int64)])
    ends = np.concatenate([np.arange(k, n + 1) for k in orders] or [np.zeros(0, np.int64)])
    powers = np.concatenate([np.full(n - k + 1, _POW[k]) for k in orders] or [_POW[:0]])
    salts = np.concatenate(
        [np.full(n - k + 1, _SALT[0, k]) for k in orders] or [np.zeros(0, np.uint64)]
    )
    return starts, ends, powers.astype(np.uint64), salts.astype(np.uint64)


def _hashes(low: str) -> tuple[np.ndarray, np.ndarray]:
    """(bucket, start) of every n-gram of `low` (at most `_WINDOW` characters)."""
    cps = np.frombuffer(low.translate(_TABLE).encode("utf-32-le"), dtype=np.uint32)
    cps = cps.astype(np.uint64)
    n = len(cps)
    # prefix hashes h[i] of cps[:i], from one cumulative sum: h[i] = P**(i-1) * sum c[j] P**-j
    h = np.zeros(n + 1, dtype=np.uint64)
    h[1:] = np.cumsum(cps * _PINV_POW[:n]) * _POW[:n]
    starts, ends, powers, salts = _char_grams(n)
    grams = (h[ends] - h[starts] * powers) ^ salts
    word = np.zeros(n + 2, dtype=bool)
    word[1:-1] = _WORDISH[np.minimum(cps, 128)]
    bounds = np.flatnonzero(word[1:] != word[:-1])  # a word's start and end alternate
    ws, we = bounds[0::2], bounds[1::2]
    if len(ws):
        a = np.concatenate((ws, ws[:-1]))
        b = np.concatenate((we, we[1:]))
        salt = np.where(np.arange(len(a)) < len(ws), _SALT[1, 1], _SALT[1, 2])
        words = (h[b] - h[a] * _POW[b - a]) ^ salt
        grams = np.concatenate((grams, words))
        starts = np.concatenate((starts, a))
    mixed = (grams * _MIXU) >> _SHIFT
    return mixed.astype(np.int64), starts


def segments(low: str) -> list[tuple[int, int]]:
    """(start, end) of each segment of `low`: lines, and sentences within a line."""
    out = []
    pos = 0
    for m in _SEGMENT_END.finditer(low):
        end = m.end()
        if low[pos:end].strip():
            out.append((pos, end))
        pos = end
    if low[pos:].strip():
        out.append((pos, len(low)))
    return out


@dataclass(frozen=True)
class Featurised:
    """A text's n-grams, grouped by segment: `buckets[i]` belongs to segment `seg[i]`."""

    buckets: np.ndarray
    seg: np.ndarray
    spans: list[tuple[int, int]]  # each segment's span in the folded, lower-cased view


def featurise(low: str) -> Featurised:
    """The n-grams of `low` (the folded view, lower-cased) by segment."""
    spans = segments(low)
    parts_b, parts_s = [], []
    for w0 in range(0, max(len(low), 1), _WINDOW):
        b, s = _hashes(low[w0 : w0 + _WINDOW])
        parts_b.append(b)
        parts_s.append(s + w0)
    buckets = np.concatenate(parts_b)
    starts = np.concatenate(parts_s)
    ends = np.array([e for _, e in spans], dtype=np.int64)
    seg = np.searchsorted(ends, starts, side="right")
    keep = seg < len(spans)  # n-grams in trailing blank space belong to no segment
    return Featurised(buckets[keep], seg[keep], spans)


@dataclass(frozen=True)
class Model:
    weights: np.ndarray  # float32, 2**BITS
    bias: float
    threshold: float  # a segment is flagged when its logit is above it
    splits: tuple[str, ...] = ()  # the corpus splits it was trained on

    def scores(self, feats: Featurised) -> np.ndarray:
        """Each segment's logit."""
        k = len(feats.spans)
        if k == 1:
            total = float(self.weights[feats.buckets].sum())
            return np.array([total / np.sqrt(max(len(feats.buckets), MIN_NORM)) + self.bias])
        sums = np.bincount(feats.seg, weights=self.weights[feats.buckets], minlength=k)
        counts = np.bincount(feats.seg, minlength=k)
        return sums / np.sqrt(np.maximum(counts, MIN_NORM)) + self.bias


@functools.lru_cache(maxsize=1)
def shipped() -> Model | None:
    """The model shipped in the package, or None when the package has none."""
    if not WEIGHTS.exists():
        return None
    return load(WEIGHTS)


_USING: list[Model | None] = []  # a model evaluated in place of the shipped one (`using`)


@contextmanager
def using(model: Model | None) -> Iterator[None]:
    """Screen with `model` (None: no model) instead of the shipped one, within the block: how
    a benchmark evaluates a model trained without the split it tests."""
    _USING.append(model)
    try:
        yield
    finally:
        _USING.pop()


def active() -> Model | None:
    """The model screening served text now: the one `using` names, else the shipped one when
    `firewall_rules.LEARNED_SCREEN` is on, else none."""
    from .firewall_rules import LEARNED_SCREEN

    if _USING:
        return _USING[-1]
    return shipped() if LEARNED_SCREEN else None


def load(path: Path) -> Model:
    with np.load(path, allow_pickle=False) as data:
        return Model(
            data["weights"].astype(np.float32),
            float(data["bias"]),
            float(data["threshold"]),
            tuple(str(s) for s in data["splits"]) if "splits" in data else (),
        )


def save(model: Model, path: Path) -> None:
    np.savez_compressed(
        path,
        weights=model.weights.astype(np.float32),
        bias=np.float64(model.bias),
        threshold=np.float64(model.threshold),
        splits=np.array(model.splits, dtype=str),
    )


def view_of(text: str) -> tuple[str, list[int] | None, list[int] | None]:
    """The folded, lower-cased view the model reads, with its maps into `text`."""
    view, lo, hi = fold_view(text)
    return _lowered(view), lo, hi


def spans(text: str, model: Model | None = None) -> list[tuple[int, int, str]]:
    """(start, end, NAME) in `text` of every segment the model flags."""
    model = model if model is not None else active()
    if model is None or not text.strip():
        return []
    low, lo, hi = view_of(text)
    feats = featurise(low)
    if not feats.spans:
        return []
    scores = model.scores(feats)
    out = []
    for i in np.flatnonzero(scores > model.threshold):
        a, b = feats.spans[int(i)]
        while a < b and low[a].isspace():
            a += 1
        while b > a and low[b - 1].isspace():
            b -= 1
        if lo is not None and hi is not None:
            a, b = lo[a], hi[b - 1]
        out.append((a, b, NAME))
    return out


# ------------------------------------------------------------------ training


def _stack(feats: list[Featurised]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(bucket, row, value) of every n-gram of every segment, rows numbered across texts."""
    idx, rows, vals = [], [], []
    base = 0
    for f in feats:
        k = len(f.spans)
        counts = np.bincount(f.seg, minlength=k)
        idx.append(f.buckets)
        rows.append(f.seg + base)
        vals.append(1.0 / np.sqrt(np.maximum(counts, MIN_NORM))[f.seg])
        base += k
    return np.concatenate(idx), np.concatenate(rows), np.concatenate(vals), base


def train(
    units: list[tuple[Featurised, np.ndarray]],
    *,
    l2: float = 1e-4,
    steps: int = 300,
    rate: float = 0.1,
) -> tuple[np.ndarray, float]:
    """Logistic regression (weights, bias) by full-batch Adam from zero, in a fixed order.

    `units` pairs a text's features with one label per segment: 1 an order, 0 honest text,
    -1 left out. Both classes weigh the same in the loss."""
    kept = [(f, y) for f, y in units if len(f.spans)]
    idx, rows, vals, n_rows = _stack([f for f, _ in kept])
    y = np.concatenate([yy for _, yy in kept]).astype(np.float64)
    use = y >= 0
    pos, neg = float((y == 1).sum()), float((y == 0).sum())
    cw = np.where(y == 1, 0.5 / max(pos, 1.0), 0.5 / max(neg, 1.0)) * use
    dim = 1 << BITS
    w = np.zeros(dim)
    b = 0.0
    adam = Adam(rate, (dim,), ())
    for _ in range(steps):
        z = np.bincount(rows, weights=w[idx] * vals, minlength=n_rows) + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        r = (p - np.where(use, y, 0.0)) * cw
        g_w = np.bincount(idx, weights=r[rows] * vals, minlength=dim) + l2 * w
        g_b = float(r.sum())
        d_w, d_b = adam.step(g_w, g_b)
        w -= d_w
        b -= float(d_b)
    return w.astype(np.float32), b


def labelled(text: str, payload: tuple[str, ...] | None) -> tuple[Featurised, np.ndarray]:
    """A corpus text's features and segment labels: benign (`payload` None) gives 0 for every
    segment; an injection 1 for the segments its payload overlaps, -1 (left out) for the rest,
    or 1 for all when no payload is found as written."""
    low, lo, _ = view_of(text)
    feats = featurise(low)
    k = len(feats.spans)
    if payload is None:
        return feats, np.zeros(k, dtype=np.int8)
    where = []
    for p in payload:
        i = text.find(p)
        if i >= 0:
            where.append((i, i + len(p)))
    if not where:
        return feats, np.ones(k, dtype=np.int8)
    labels = np.full(k, -1, dtype=np.int8)
    for j, (a, b) in enumerate(feats.spans):
        sa, sb = (a, b) if lo is None else (lo[a], lo[b - 1] + 1)
        if any(sa < pb and pa < sb for pa, pb in where):
            labels[j] = 1
    if not (labels == 1).any():
        labels[:] = 1
    return feats, labels


def text_score(model_w: np.ndarray, bias: float, feats: Featurised) -> float:
    """A text's score: its highest segment's logit (-inf for a blank text)."""
    if not feats.spans:
        return float("-inf")
    return float(Model(model_w, bias, 0.0).scores(feats).max())


# the share of the corpus's benign look-alikes, scored by models that did not see them, the
# threshold may flag. At 1 % the shipped model changed about 2 % of real commit messages,
# comments and docs (ordinary prose addressed to "you"), which the corpus lacks; at 0 % about
# 0.01 %.
BENIGN_RATE = 0.0


def choose_threshold(benign_scores: list[float], rate: float = BENIGN_RATE) -> float:
    """The lowest threshold that flags at most `rate` of `benign_scores` (texts' highest
    segment logits from models that did not see them)."""
    s = np.sort(np.asarray(benign_scores, dtype=np.float64))[::-1]
    allowed = int(np.floor(rate * len(s)))
    return float(s[allowed]) if allowed < len(s) else float("-inf")


def describe(model: Model) -> dict[str, Any]:
    return {
        "buckets": int(model.weights.size),
        "nonzero": int(np.count_nonzero(model.weights)),
        "bias": model.bias,
        "threshold": model.threshold,
    }
