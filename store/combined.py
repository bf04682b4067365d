"""The `hashing-lsa+wordllama` backend: both embeddings side by side, fused by their weights.

A vector is `[sqrt(1 - w) * lsa, sqrt(w) * wl]`, each part the unit-length Matryoshka prefix of
`part_dim` components of its backend. For two such vectors the dot product is
`(1 - w) cos_lsa + w cos_wl`: the concatenation is a score fusion of the two cosines that the
1-bit and int8 codes carry as they carry any vector, so the served path needs nothing of its own.
When one part of a text is zero (no term of it was seen at fit time) the other part alone
decides, after the usual re-normalisation.

The LSA part is fitted on the corpus and stored as `store/lsa.py` stores it; the wordllama part
is the installed package's model (its version is checked on load, `store/wordllama.py`).
Prefixes of the concatenation are not meaningful, so the whole vector is served.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np

from .lsa import HashingLSA
from .vecstore import mrl_truncate
from .wordllama import WordLlamaBackend


class LsaWordLlama:
    """Hashing-LSA and wordllama vectors concatenated with fusion weights (see the module doc)."""

    name: ClassVar[str] = "hashing-lsa+wordllama"
    matryoshka: ClassVar[bool] = False

    def __init__(
        self,
        *,
        lsa: dict | None = None,
        wordllama: dict | None = None,
        part_dim: int = 256,
        weight: float = 0.5,
    ) -> None:
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"weight must be in 0..1, got {weight}")
        self.lsa = HashingLSA(**(lsa or {}))
        self.wordllama = WordLlamaBackend(**(wordllama or {}))
        self.part_dim = part_dim
        self.weight = weight

    @property
    def parts(self) -> tuple[int, int]:
        return min(self.part_dim, self.lsa.dim), min(self.part_dim, self.wordllama.dim)

    @property
    def dim(self) -> int:
        return sum(self.parts)

    def params(self) -> dict:
        return {
            "lsa": self.lsa.params(),
            "wordllama": self.wordllama.params(),
            "part_dim": self.part_dim,
            "weight": self.weight,
        }

    def with_lsa(self, fitted: HashingLSA) -> LsaWordLlama:
        """A copy around an already fitted LSA part (the `embed` stage fits it from features
        it computed on a process pool)."""
        out = LsaWordLlama(**self.params())
        out.lsa = fitted
        out.wordllama = self.wordllama
        return out

    def combine(self, lsa_vectors: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        """The fused vectors of `texts`, given their LSA part."""
        a, b = self.parts
        left = mrl_truncate(lsa_vectors, a) * np.float32(np.sqrt(1.0 - self.weight))
        right = mrl_truncate(self.wordllama.transform(texts), b) * np.float32(np.sqrt(self.weight))
        return np.concatenate([np.atleast_2d(left), np.atleast_2d(right)], axis=1)

    def fit(self, texts: Sequence[str]) -> LsaWordLlama:
        return self.fit_transform(texts)[0]

    def fit_transform(self, texts: Sequence[str]) -> tuple[LsaWordLlama, np.ndarray]:
        lsa, lsa_vectors = self.lsa.fit_transform(texts)
        fitted = self.with_lsa(lsa)
        return fitted, fitted.combine(lsa_vectors, texts)

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        return self.combine(self.lsa.transform(texts), texts)

    def save(self, directory: Path) -> None:
        self.lsa.save(directory)

    @classmethod
    def load(cls, directory: Path, meta: dict) -> LsaWordLlama:
        params = meta["params"]
        out = cls(**params)
        out.wordllama = WordLlamaBackend.load(directory, {"params": params["wordllama"]})
        out.lsa = HashingLSA.load(directory, {"params": params["lsa"]})
        return out
