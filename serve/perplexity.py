"""The firewall's third check on served text: spans far less predictable than the repository.

The model is the `firewall_lm` artifact of the generation (trained on the repository's own code
and commit messages). Spans are flagged, not removed, and reported with where they were found,
so an agent sees that a snippet may carry an adversarial suffix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from ..store.charlm import TrigramModel
from ..store.errors import IndexCorrupt
from ..store.generations import Generation

MAX_SHOWN = 60


def load_model(gen: Generation) -> TrigramModel | None:
    """The generation's model, or None when the index has none or it is inactive."""
    if not gen.has("firewall_lm"):
        return None
    folder = gen.file("firewall_lm")
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        arrays = {n: np.load(folder / f"{n}.npy", allow_pickle=False) for n in ("tri", "bi", "uni")}
    except (OSError, ValueError) as exc:
        raise IndexCorrupt(
            f"{folder}: unreadable firewall model ({exc})", hint="run `gitstrata index --rebuild`"
        ) from None
    model = TrigramModel.from_state(arrays, meta)
    return model if model.active else None


class PerplexityCheck:
    def __init__(self, model: TrigramModel) -> None:
        self.model = model
        self._flag = lru_cache(maxsize=8192)(self._flag_uncached)

    def _flag_uncached(self, text: str) -> tuple[tuple[int, int, float], ...]:
        return tuple(self.model.flag(text))

    def notes(self, items: Iterable[tuple[str, str]]) -> list[str]:
        """One line per flagged span: where, the span (escaped, shortened), how far over."""
        out = []
        for where, text in items:
            if not text or len(text) < self.model.window:
                continue
            for start, end, ratio in self._flag(text):
                span = text[start:end].encode("unicode_escape").decode("ascii")
                if len(span) > MAX_SHOWN:
                    span = span[: MAX_SHOWN - 1] + "…"
                out.append(
                    f"{where}: high-perplexity span {span!r} ({ratio:.1f}x this repository's threshold; "
                    "adversarial suffixes look like this; flagged, not removed)"
                )
        return out
