"""The firewall's third check on served text: spans far less predictable than the repository.

The model is the `firewall_lm` artifact of the generation (trained on the repository's own code
and commit messages). Spans are flagged, not removed, and reported with where they were found,
so an agent sees that a snippet may carry an adversarial suffix.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from ..store.charlm import TrigramModel, load_state
from ..store.generations import Generation

MAX_SHOWN = 60


def load_model(gen: Generation) -> TrigramModel | None:
    """The generation's model, or None when the index has none or it is inactive."""
    if not gen.has("firewall_lm"):
        return None
    arrays, meta = load_state(gen.file("firewall_lm"))
    model = TrigramModel.from_state(arrays, meta)
    return model if model.active else None


class PerplexityCheck:
    """The check for one generation; the model is loaded the first time there is text to check,
    so opening an index (and a one-shot command without failed attempts) never pays for it."""

    def __init__(self, gen: Generation) -> None:
        self.gen = gen
        self._model: TrigramModel | None | bool = False  # False: not loaded yet
        self._flag = lru_cache(maxsize=8192)(self._flag_uncached)

    @property
    def model(self) -> TrigramModel | None:
        if self._model is False:
            self._model = load_model(self.gen)
        return self._model  # type: ignore[return-value]

    def _flag_uncached(self, text: str) -> tuple[tuple[int, int, float], ...]:
        assert self.model is not None
        return tuple(self.model.flag(text))

    def notes(self, items: Iterable[tuple[str, str]]) -> list[str]:
        """One line per flagged span: where, the span (escaped, shortened), how far over."""
        items = [(w, t) for w, t in items if t]
        if not items or self.model is None:
            return []
        out = []
        for where, text in items:
            if len(text) < self.model.window:
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
