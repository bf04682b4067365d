"""The query router: a deterministic classifier over surface features of the query.

It never looks at the corpus and costs microseconds. Precedence is first match wins, in this
order: behavioral, causal, coupled, change, exact, symptom, general. `coupled` ("what else must
change with X") is this project's addition to the seed's six classes: its answer lives in other
files than the one the query names, so the co-change graph leads and the named file steps back.
Each class sets the path weights of the fusion, the reranker's preference and the number of
commit capsules allowed in the top 5.

Work is linear in the query: the features are read from its first `MAX_ROUTE_CHARS` characters,
and `_IDENT` and `_PATH` (whose patterns retry from every position of a word, so a word of n
letters costs n^2 steps) run on one word at a time, skipping words over `MAX_WORD_CHARS`: no
identifier or path is that long. The other patterns scan each position once or stop at the next
quote or the end of the bounded text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..store.config import COMMIT_SLOTS


@dataclass(frozen=True)
class Route:
    query_class: str
    w_bm25: float
    w_vec: float
    w_graph: float
    prefer: str  # "neutral" | "commits" | "code" | "verbatim" | "fixes" | "auto"
    commit_slots: int
    pin: bool  # pin a symbol the query names exactly to rank 1
    named: tuple[str, ...] = ()  # identifiers the query names

    @property
    def weights(self) -> dict[str, float]:
        return {"bm25": self.w_bm25, "vec": self.w_vec, "graph": self.w_graph}


# path weights (bm25, vec, graph), reranker preference, default commit slots
CLASSES: dict[str, tuple[float, float, float, str]] = {
    "behavioral": (1.2, 1.0, 0.3, "neutral"),
    "causal": (1.0, 1.0, 0.5, "commits"),
    "coupled": (0.8, 0.8, 2.5, "code"),
    "change": (1.0, 1.0, 1.3, "code"),
    "exact": (2.0, 0.4, 0.2, "verbatim"),
    "symptom": (1.2, 1.0, 0.0, "fixes"),
    "general": (1.0, 1.0, 1.0, "auto"),
}

_WHY = re.compile(r"\b(why|reason|reasons|purpose|rationale|explain|explains|motivation)\b", re.I)
_HISTORY_CUE = re.compile(
    r"\b(was|were|did|changed|change[sd]?|introduced|added|removed|reverted|revert|rolled back|"
    r"commit|commits|history|originally|fix|fixed|incident|regression|ago|used to)\b",
    re.I,
)
_WHY_DOES = re.compile(
    r"\bwhy\s+(does|is|do|are|would|should|must|can't|cannot|doesn't|isn't)\b", re.I
)
_COUPLED = re.compile(
    r"\b(what else|which (other )?(files|code|modules)|change[sd]? (together|with (it|them))|"
    r"changes? along|alongside|usually change|co-?change|coupled|depends? on (that|this|it)|"
    r"(touch|update|change) (as well|too)|what (needs|has) to change|other side)\b",
    re.I,
)
_CHANGE = re.compile(
    r"^\s*(please\s+)?(also\s+)?(let|show|display|escape|handle|use|prevent|keep|stop|add|change|rename|tune|raise|lower|increase|decrease|reduce|bump|remove|"
    r"delete|drop|make|support|replace|switch|move|extract|refactor|update|extend|implement|allow|"
    r"introduce|enable|disable|set|limit|cap|expose|split|merge|convert|migrate)\b",
    re.I,
)
_HEX = re.compile(r"\b[0-9a-f]{7,40}\b")
_CODE_TOKEN = re.compile(
    r"\b(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|E\d{3,5}|[A-Z][A-Z0-9]{1,9}-\d+|[A-Z][A-Za-z0-9]*(?:Error|Exception))\b|#\d+\b"
)
_QUOTED = re.compile(r"[\"'`][^\"'`]{2,}[\"'`]")
_PATH = re.compile(r"\b[\w.-]+/[\w./-]+\b|\b\w+\.(?:py|ts|tsx|js|go|rs|java|sql|ya?ml|html|conf)\b")
_SYMPTOM = re.compile(
    r"\b(twice|double[- ]?(charged|billed|counted)|duplicate[sd]?|silently|dropped|drops|lost|"
    r"stale|outdated|kept|keeps|stopped|stops|ended up|never|hangs?|hung|freez\w*|crash\w*|"
    r"sometimes|intermittent\w*|randomly|after (a|the|an)|customers?|users? (report|see|get)|"
    r"wrong|missing|broke|broken|fails? to|timed? ?out|logged out|empty|blank|slow(er)?)\b",
    re.I,
)
_PAST_NARRATIVE = re.compile(r"\b\w{3,}ed\b.*\b(and|but|then|after|when)\b", re.I)

MAX_ROUTE_CHARS = 2000  # a question; anything longer is classified by its beginning
MAX_WORD_CHARS = 128  # the longest run of identifier characters read for identifiers
# the characters `_IDENT` can consume: a match never crosses a character outside these
_WORD = re.compile(r"[\w.`]+")
_PATH_WORD = re.compile(r"[\w./-]+")  # the same for `_PATH`

# identifiers: snake_case, camelCase / PascalCase with an inner capital, dotted, or followed by ()
_IDENT = re.compile(
    r"`?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|"
    r"_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Za-z_]\w*(?=\())`?"
)


def per_word(
    pattern: re.Pattern[str], words: re.Pattern[str], text: str
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)` one word of `words` at a time: the same matches when no match of
    `pattern` consumes a character outside `words` (lookbehind, `\\b` and the lookahead still
    see the characters around the word), words over `MAX_WORD_CHARS` skipped."""
    for word in words.finditer(text):
        start, end = word.span()
        if end - start <= MAX_WORD_CHARS:
            yield from pattern.finditer(text, start, min(end + 1, len(text)))


def route_text(query: str) -> str:
    """The part of the query the router reads."""
    return query[:MAX_ROUTE_CHARS]


def named_identifiers(query: str) -> tuple[str, ...]:
    """Identifier-looking tokens of the query (generic words never match)."""
    seen: list[str] = []
    for m in per_word(_IDENT, _WORD, route_text(query)):
        token = m.group(1)
        if _CODE_TOKEN.fullmatch(token) or "/" in token:
            continue
        if token.lower().endswith((".py", ".ts", ".tsx", ".js", ".go", ".rs", ".java")):
            continue
        if token not in seen:
            seen.append(token)
    return tuple(seen)


def is_exact(query: str) -> bool:
    query = route_text(query)
    return bool(
        _CODE_TOKEN.search(query)
        or _HEX.search(query)
        or _QUOTED.search(query)
        or next(per_word(_PATH, _PATH_WORD, query), None) is not None
    )


def classify(
    query: str, commit_slots: dict[str, int] | None = None, *, adaptive: bool = True
) -> Route:
    query = route_text(query)
    named = named_identifiers(query)
    if not adaptive:
        cls = "general"
    elif _WHY_DOES.search(query) and named and not _HISTORY_CUE.search(query):
        cls = "behavioral"
    elif _WHY.search(query):
        cls = "causal"
    elif _COUPLED.search(query):
        cls = "coupled"
    elif _CHANGE.search(query):
        cls = "change"
    elif is_exact(query):
        cls = "exact"
    elif _SYMPTOM.search(query) or _PAST_NARRATIVE.search(query):
        cls = "symptom"
    else:
        cls = "general"
    w_bm25, w_vec, w_graph, prefer = CLASSES[cls]
    slots = (commit_slots or COMMIT_SLOTS).get(cls, 2)
    return Route(
        query_class=cls,
        w_bm25=w_bm25,
        w_vec=w_vec,
        w_graph=w_graph,
        prefer=prefer,
        commit_slots=slots,
        pin=cls in ("behavioral", "exact", "change"),
        named=named,
    )
