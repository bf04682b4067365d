"""How memories are compared and ranked: terms, subword vectors, BM25, polarity.

Memories are short prose, so the keyword path uses the project tokenizer (`store.tokenizer`, so
identifiers in a memory match as they do in code search) plus a light suffix stripper, and the
vector path hashes each word's character 3- to 5-grams: inflected forms and typos share most of
their grams. When the index has an embedder, its cosine is averaged in (`MemoryVectors`).
Invariants: every function here is deterministic and depends only on its inputs (the hash is
crc32, not Python's salted `hash`).
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from ..store.tokenizer import tokenize

# numpy is imported by the calls that build vectors: the MCP server imports this module (its
# memory tools) before it answers `initialize`, which must not wait for numpy
if TYPE_CHECKING:
    import numpy as np

DIM = 2048
_SUFFIXES = (
    "ational", "ization", "ations", "ation", "ments", "ment", "ness", "ings", "ing", "ions",
    "ion", "ies", "edly", "ed", "es", "ly", "al", "er", "s",
)  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "don't",
        "dont",
        "doesn't",
        "doesnt",
        "isn't",
        "shouldn't",
        "mustn't",
        "won't",
        "cannot",
        "can't",
        "without",
        "avoid",
        "avoids",
        "avoided",
        "stop",
        "stopped",
        "reject",
        "rejected",
        "rejects",
        "against",
        "disable",
        "disabled",
        "hate",
        "drop",
        "dropped",
        "ban",
        "banned",
        "forbid",
        "forbidden",
        "deprecate",
        "deprecated",
        "instead",
    ]
)
_POSITIVES = frozenset(
    [
        "prefer",
        "prefers",
        "preferred",
        "use",
        "uses",
        "always",
        "adopt",
        "adopted",
        "choose",
        "chose",
        "chosen",
        "keep",
        "enable",
        "enabled",
        "like",
        "love",
        "must",
        "should",
        "require",
        "requires",
        "required",
    ]
)


@lru_cache(maxsize=65536)
def stem(term: str) -> str:
    """A crude English stem: the longest listed suffix off a word of letters, then a final e
    (`deploys`, `deploying`, `deployed` -> `deploy`; `rotate`, `rotating` -> `rotat`)."""
    if len(term) < 5 or not term.isalpha():
        return term
    for suf in _SUFFIXES:
        if term.endswith(suf) and len(term) - len(suf) >= 4:
            term = term[: -len(suf)]
            break
    if term.endswith("e") and len(term) >= 5:
        term = term[:-1]
    return term


def terms(text: str) -> list[str]:
    """Keyword terms: the project tokenizer's terms, words stemmed."""
    return [stem(t) for t in tokenize(text)]


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text) if len(w) >= 2]


def subword_vector(text: str) -> np.ndarray:
    """float32[DIM], unit length: each word's character 3- to 5-grams (with boundary marks)
    hashed, plus the whole word; repeated words count sublinearly."""
    import numpy as np

    vec = np.zeros(DIM, dtype=np.float32)
    counts = Counter(_words(text))
    for word, n in counts.items():
        w = 1.0 + math.log(n)
        marked = f"<{word}>"
        vec[zlib.crc32(marked.encode()) % DIM] += 2.0 * w
        for size in (3, 4, 5):
            for i in range(len(marked) - size + 1):
                vec[zlib.crc32(marked[i : i + size].encode()) % DIM] += w
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm else vec


def similarity(a: str, b: str) -> float:
    """Text similarity in [0, 1] used for dedup, associations and consolidation."""
    import numpy as np

    return float(max(0.0, np.dot(subword_vector(a), subword_vector(b))))


def polarity(text: str) -> int:
    """-1 when the text rejects something (an odd number of negative cues), +1 when it
    endorses something, 0 when it states neither."""
    low = text.lower().replace("\u2019", "'")
    words = re.findall(r"[a-z']+", low)
    neg = sum(1 for w in words if w in _NEGATIONS or w.endswith("n't"))
    if neg % 2:
        return -1
    return 1 if any(w in _POSITIVES for w in words) or neg else 0


def opposite(a: str, b: str) -> bool:
    return (polarity(a) < 0) != (polarity(b) < 0)


class BM25:
    """Okapi BM25 over a small set of documents given as term lists (k1 1.2, b 0.75)."""

    def __init__(self, docs: Sequence[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tf = [Counter(d) for d in docs]
        self.len = [len(d) for d in docs]
        self.avg = (sum(self.len) / len(docs)) if docs else 0.0
        df: Counter[str] = Counter()
        for c in self.tf:
            df.update(c.keys())
        n = len(docs)
        self.idf = {t: math.log(1.0 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: list[str]) -> list[float]:
        q = list(dict.fromkeys(query))
        out = []
        for tf, dl in zip(self.tf, self.len, strict=True):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * dl / self.avg) if self.avg else self.k1
            for t in q:
                f = tf.get(t)
                if f:
                    s += self.idf[t] * f * (self.k1 + 1) / (f + norm)
            out.append(s)
        return out


class MemoryVectors:
    """Vectors of memory texts: subword vectors, averaged with the index embedder's when one
    is given (`embed`: text -> unit float32 vector)."""

    def __init__(
        self,
        embed: Callable[[str], np.ndarray] | None = None,
        loader: Callable[[], Callable[[str], np.ndarray] | None] | None = None,
    ) -> None:
        self.embed = embed
        # `loader` gives the embedder on first use: a book that never ranks never loads it
        self._loader = loader
        self._cache: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
        self._terms: dict[str, list[str]] = {}
        self._subwords: dict[str, np.ndarray] = {}  # texts whose dense vector is not needed

    def terms(self, text: str) -> list[str]:
        got = self._terms.get(text)
        if got is None:
            if len(self._terms) > 50_000:
                self._terms.clear()
            got = self._terms[text] = terms(text)
        return got

    def of(self, text: str) -> tuple[np.ndarray, np.ndarray | None]:
        got = self._cache.get(text)
        if got is None:
            import numpy as np

            dense = None
            if self.embed is not None:
                v = np.asarray(self.embed(text), dtype=np.float32)
                n = float(np.linalg.norm(v))
                dense = v / n if n else v
            got = (subword_vector(text), dense)
            if len(self._cache) > 50_000:
                self._cache.clear()
            self._cache[text] = got
        return got

    def similarity(self, a: str, b: str) -> float:
        """Subword similarity only: what dedup, links and consolidation compare, so a write
        decides the same way with or without an index."""
        import numpy as np

        return max(0.0, float(np.dot(self.of(a)[0], self.of(b)[0])))

    def subword(self, text: str) -> np.ndarray:
        got = self._cache.get(text)
        if got is not None:
            return got[0]
        vec = self._subwords.get(text)
        if vec is None:
            if len(self._subwords) > 50_000:
                self._subwords.clear()
            vec = self._subwords[text] = subword_vector(text)
        return vec

    def _load(self) -> None:
        if self._loader is not None:
            self.embed, self._loader = self._loader(), None
            self._cache.clear()

    def dense(self, text: str) -> np.ndarray | None:
        """The embedder's unit vector of `text`, or None without an embedder."""
        self._load()
        return self.of(text)[1]

    def cosine(self, a: str, b: str, dense: float | None = None) -> float:
        """Subword cosine averaged with the embedder's; `dense` gives the embedder's cosine
        when it is known already (a memory's vector read from the index)."""
        import numpy as np

        self._load()
        sa, da = self.of(a)
        if dense is not None:
            return max(0.0, 0.5 * float(np.dot(sa, self.subword(b))) + 0.5 * dense)
        sb, db = self.of(b)
        sub = float(np.dot(sa, sb))
        if da is None or db is None:
            return max(0.0, sub)
        return max(0.0, 0.5 * sub + 0.5 * float(np.dot(da, db)))
