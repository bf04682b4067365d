"""The router's learned reader: a linear model over a question's words that says which of the
six classes it asks.

The cue patterns of `router` know the wordings someone wrote down; asked in words of their own
(the later held-out splits of the benchmark), they picked the class of 62-77 % of the questions.
This model reads what those wordings share instead: a question's words, its word pairs and its
opening words, with every identifier, path and number written as a placeholder (a name says what
the question is about, not what it asks), and a few marks of shape (a question mark, a lookup
`router.is_exact` recognises). A class's score is its bias plus the sum of the features'
weights over the square root of their count: a softmax regression's logits.

Invariants:
- No download, no network: the weights ship in the package (`router_model.npz`) and are a pure
  function of the training questions (`train`); `python -m gitstrata.benchmarks.router_model
  --write` writes them from the benchmark's retired splits, and a test checks the shipped file
  equals a fresh run. The splits trained on are stored with the weights; a held-out split
  written after them is not among them.
- Reading a question costs a few microseconds: a tokenizer pass and a dictionary lookup per
  feature; the answer is cached per text.
- Deterministic: the same question gives the same class in every process (no salted hashing;
  training in a fixed order from zero).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..store.adam import Adam
from ..store.regexcache import compile_pattern
from .router import route_text

CLASSES: tuple[str, ...] = ("causal", "behavioral", "symptom", "coupled", "exact", "change")
WEIGHTS = Path(__file__).with_name("router_model.npz")
MIN_COUNT = 2  # a feature seen in fewer training questions is left out

# a word of a question: letters, digits and the characters names and paths are made of
_TOKEN = compile_pattern(r"[A-Za-z0-9_][A-Za-z0-9_'./:-]*")
_PATHLIKE = compile_pattern(r"[\w.-]*/[\w./-]*|[\w-]+\.(?:py|ts|tsx|js|go|rs|java|json|ya?ml|toml|md|"
                       r"conf|sql|txt|cfg|ini|sh|html|css)\b", re.I)  # fmt: skip
_IDENTLIKE = compile_pattern(
    r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|_\w+|[a-z]+[A-Z]\w*|"
    r"[A-Z][a-z0-9]+[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+"
)
_NUMBER = compile_pattern(r"\d[\d.,:]*\w*")


def words(query: str) -> list[str]:
    """The question's words, lower case, names and numbers as placeholders."""
    out: list[str] = []
    for m in _TOKEN.finditer(route_text(query)):
        token = m.group(0).rstrip(".:'-")
        if not token:
            continue
        if _PATHLIKE.fullmatch(token):
            out.append("<path>")
        elif _NUMBER.fullmatch(token):
            out.append("<num>")
        elif _IDENTLIKE.fullmatch(token):
            out.append("<name>")
        else:
            out.append(token.lower())
    return out


def features(query: str, *, lookup: bool = False) -> list[str]:
    """The features of `query`, each once: words, word pairs, the first two words, and marks of
    shape. `lookup`: `router.is_exact` holds (a bare code token, path or name)."""
    ws = words(query)
    feats = [f"w {w}" for w in ws]
    feats += [f"p {a} {b}" for a, b in zip(ws, ws[1:], strict=False)]
    if ws:
        feats.append(f"s {' '.join(ws[:2])}")
    if query.rstrip().endswith("?"):
        feats.append("m question")
    if lookup:
        feats.append("m lookup")
    if len(ws) <= 3:
        feats.append("m short")
    return list(dict.fromkeys(feats))


@dataclass(frozen=True)
class Model:
    terms: dict[str, int]  # feature -> row of `weights`
    weights: np.ndarray  # (features, classes) float32
    bias: np.ndarray  # (classes,) float32
    splits: tuple[str, ...] = ()  # what it was trained on

    def logits(self, feats: Sequence[str]) -> np.ndarray:
        rows = [self.terms[f] for f in feats if f in self.terms]
        z = self.bias.astype(np.float64)
        if rows:
            z = z + self.weights[rows].sum(axis=0) / np.sqrt(len(feats))
        return z

    def probabilities(self, feats: Sequence[str]) -> np.ndarray:
        z = self.logits(feats)
        e = np.exp(z - z.max())
        return e / e.sum()


def train(
    questions: Sequence[tuple[str, bool]],
    labels: Sequence[str],
    *,
    splits: Sequence[str] = (),
    l2: float = 1e-4,
    steps: int = 300,
    rate: float = 0.05,
) -> Model:
    """Softmax regression by full-batch Adam (`store.adam`) from zero, in a fixed order. `questions` pairs each
    text with whether it is a lookup (`router.is_exact`); `labels` are their classes."""
    feats = [features(q, lookup=exact) for q, exact in questions]
    counts: dict[str, int] = {}
    for fs in feats:
        for f in fs:
            counts[f] = counts.get(f, 0) + 1
    terms = {f: i for i, f in enumerate(sorted(f for f, c in counts.items() if c >= MIN_COUNT))}
    idx_l, row_l, val_l = [], [], []
    for row, fs in enumerate(feats):
        kept = [terms[f] for f in fs if f in terms]
        idx_l += kept
        row_l += [row] * len(kept)
        val_l += [1.0 / np.sqrt(max(1, len(fs)))] * len(kept)
    idx = np.array(idx_l, dtype=np.int64)
    rows = np.array(row_l, dtype=np.int64)
    vals = np.array(val_l, dtype=np.float64)
    n, dim, k = len(feats), len(terms), len(CLASSES)
    y = np.zeros((n, k))
    y[np.arange(n), [CLASSES.index(c) for c in labels]] = 1.0
    w, b = np.zeros((dim, k)), np.zeros(k)
    adam = Adam(rate, w.shape, b.shape)
    for _ in range(steps):
        z = np.zeros((n, k))
        np.add.at(z, rows, w[idx] * vals[:, None])
        z += b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        r = (p - y) / n
        g_w = np.zeros_like(w)
        np.add.at(g_w, idx, r[rows] * vals[:, None])
        g_w += l2 * w
        g_b = r.sum(axis=0)
        d_w, d_b = adam.step(g_w, g_b)
        w -= d_w
        b -= d_b
    return Model(terms, w.astype(np.float32), b.astype(np.float32), tuple(splits))


def save(model: Model, path: Path) -> None:
    order = sorted(model.terms, key=model.terms.__getitem__)
    with open(path, "wb") as fh:
        np.savez(
            fh,
            terms=np.frombuffer("\n".join(order).encode("utf-8"), dtype=np.uint8),
            weights=model.weights,
            bias=model.bias,
            classes=np.frombuffer("\n".join(CLASSES).encode(), dtype=np.uint8),
            splits=np.frombuffer("\n".join(model.splits).encode(), dtype=np.uint8),
        )


def load(path: Path) -> Model:
    with np.load(path, allow_pickle=False) as data:
        text = bytes(data["terms"]).decode("utf-8")
        classes = tuple(bytes(data["classes"]).decode().split("\n"))
        if classes != CLASSES:
            raise ValueError(f"{path.name}: classes {classes} are not {CLASSES}")
        splits = tuple(s for s in bytes(data["splits"]).decode().split("\n") if s)
        terms = {t: i for i, t in enumerate(text.split("\n"))} if text else {}
        return Model(terms, data["weights"], data["bias"], splits)


@functools.cache
def shipped() -> Model:
    return load(WEIGHTS)


def ranked(model: Model, query: str, lookup: bool) -> tuple[tuple[str, float], ...]:
    """The classes `model` gives `query`, most likely first, with their probabilities."""
    p = model.probabilities(features(query, lookup=lookup))
    order = np.argsort(-p, kind="stable")
    return tuple((CLASSES[i], float(p[i])) for i in order)


@functools.lru_cache(maxsize=256)
def read(query: str, lookup: bool) -> tuple[tuple[str, float], ...]:
    """`ranked` by the shipped model."""
    return ranked(shipped(), query, lookup)
