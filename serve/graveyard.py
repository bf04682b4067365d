"""When a failed attempt is relevant: the graveyard's matching rules, as pure functions.

A warning needs evidence that the attempt *resembles* what the agent is about to do or asks
about (the same approach, change or symptom); a structural anchor (the same file or symbol, a
retrieved chunk) only adds to that evidence and never fires alone, so a warning is not raised
merely because a file or symbol was once part of a failed attempt.

**A recorded attempt in a search** (`match_search`, `resemblance`): a calibrated resemblance,
the probability of a logistic model over ten measurements, that warns at `WARN_PROBABILITY`, or
at the stricter `LOOKUP_WARN_PROBABILITY` when the query states no intended change (a lookup, a
what / why / how question: an attempt in the area it asks about resembles it without being it);
a bare lookup of a name or code warns only for an attempt whose record names it.
What the query shares with the attempt's own record (the cosine of their vectors; the
IDF-weighted share of its terms in the record, any form of the word), with the fix the attempt
would undo (the messages of the commits that put in the lines it changed: their cosine and the
share of the query's terms in them), and how far each cosine leads the best of the other
recorded attempts (attempts in one area share their words; the question is about the one it is
closest to). The results count as evidence too: a top-`context_top` commit whose added lines the
attempt changed, its own function among the top results, another chunk of its files among
them; so do the incident ids, error codes and constants the query names when the record or the
undone fix names every one (`codes`, `_named_codes`). The query's terms that only name the
attempt's files and symbols are not resemblance: the place is what retrieved its code. Nothing
has to be retrieved: a question that resembles an attempt's record and its fix closely enough
warns whatever the results are; one that shares nothing with the attempt does not, whatever
they are. A question that names a file ("what else changes with X") names a place, not a change.
The weights were fitted on the fixture's question splits and the threshold checked on each
split left out (README, Benchmarks).

**A reverted commit mined from git in a search, and any attempt in a preflight**: evidence and
anchors. Evidence (0..1) is the strongest of: the embedding cosine of the intended change (or
query) and the attempt; the IDF-weighted share of the intent's terms found in the attempt's text;
the share of the identifiers the intent names (`snake_case`, `camelCase`, `a.b`) found in the
attempt's changed lines (halved when only one is shared); resembling the fix it would undo at
`WHY_EVIDENCE` of that, only for the attempts whose fix the intent resembles at least
`WHY_RELATIVE` x the closest fix of all; plus `named_symbol_evidence` when there is some and the
intent also names a symbol the attempt changed (naming the symbol alone is the anchor again).
A reverted commit is held to a stricter bar than a failure an agent recorded: its text is only
what its commits say (subjects, the revert's reason, the body), not the diff's words, and its
floor is `revert_min_evidence` instead of `min_evidence`, and it warns only when anchored: in a
preflight on its file or symbol (or through a retrieved commit), in a search when the results
anchor it, and when the query names functions among its code results, only results on those
functions do, unless the revert resembles the query at least `DEEP_TRIGGER_EVIDENCE`.

It fires when the evidence reaches its floor and structural + textual >= `semantic_threshold`,
where structural is the strongest anchor of the failure to the code at hand: preflight on its own
symbol 0.75, on its file 0.5 (also when either side names no symbol), on another function of its
file 0.25; a failure targeting a code hit retrieved in the top `context_top` (3) 0.3; in a
search, another chunk of the attempt's file among those `SAME_FILE_WEIGHT` (0.2), only when the
query resembles the attempt's own record at least `search_min_evidence`; a *direct trigger* 0.40:
a retrieved bugfix / security / revert commit ranked #1 or scoring above `commit_trigger_score`
anchors every function it modified; any other retrieved commit anchors its functions at 0.3 only
through the *commit-relevance gate*: its score is at least 0.9 x the best score in the top 3, it
is not bulk (more than 8 symbols), and the failure's function is also among the top-5 code hits;
textual = 0.6 x the evidence.

An attempt is anchored by its targets and by the other symbols whose lines its diff changed (an
attempt recorded on an encoder that also edits its decoder). Anchoring is symbol-level: a target
with a qualname is only anchored by that exact symbol (or, in preflight, one nested in it or
enclosing it). A target without one (a change outside any named symbol) falls back to file-level
matching: any hit or touched symbol in its file anchors it.

Every warning carries human-readable reasons: which anchor and how much text matched. Nothing
here reads files or indexes; callers pass retrieved items and failure views.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..store.attempts import Target, target_label
from ..store.config import GraveyardConfig
from ..store.tokenizer import split_identifier
from .router import is_exact, states_change

# in a search, a revert resembling the query this much is what it is about, whichever function the
# query names, and a fix below the first `context_top` results anchors it
DEEP_TRIGGER_EVIDENCE = 0.6
# a code the query names that only stands next to the attempt's changed lines
NEARBY_CODE_EVIDENCE = 0.5
# resembling the fix an attempt would undo counts this much of resembling the attempt itself
WHY_EVIDENCE = 0.6
WHY_RELATIVE = 0.8
# another retrieved chunk of the attempt's file (its own chunk, the function's class, a sibling)
# says the search is near the attempt, not on it: a weaker anchor, which more evidence must back
SAME_FILE_WEIGHT = 0.2
CODE_KINDS = frozenset({"symbol", "file", "code", "module"})
_EPS = 1e-9


@dataclass(frozen=True)
class RetrievedItem:
    """One result of a search: a code hit or a commit (other kinds are ignored)."""

    kind: str  # "symbol" | "file" | "commit" | ...
    rank: int  # 1-based
    score: float
    path: str | None = None
    qualname: str | None = None
    intent: str | None = None  # commits: bugfix, security, revert, feature, ...
    symbols_touched: tuple[Target, ...] = ()  # commits: what they modified
    bulk: bool = False
    id: str | None = None  # commit sha or document id, for reasons
    added: frozenset[tuple[str, str]] = frozenset()  # commits: (path, stripped line) they added
    sha: str | None = None  # commits: the whole object name (`id` may be a prefix of it)


REVERT = "revert"
_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*")


def _code_like(name: str) -> bool:
    return len(name) >= 3 and ("_" in name.strip("_") or len(split_identifier(name)) > 1)


def identifiers(text: str) -> frozenset[str]:
    """The code identifiers `text` names, lowercased: names with `_` or a case change inside
    (`open_url`, `TTLCache`) and dotted names (`res.send`, with those of its parts that are
    identifiers themselves); plain words are left out, so prose does not pass for code."""
    out: set[str] = set()
    for m in _IDENT.finditer(text):
        comps = re.split(r"\.|::|->", m.group())
        if len(comps) > 1:
            out.add(".".join(comps).lower())
        out.update(c.lower() for c in comps if _code_like(c))
    return frozenset(out)


_CODE = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]*(?:[-_][A-Z0-9]+)+(?![\w-])")


def codes(text: str) -> frozenset[str]:
    """The incident and ticket ids, error codes and constants `text` names, lowercased:
    upper-case names joined by `-` or `_` (`INC-2566`, `ERR_TOKEN_REUSED`, `RECORD_TTL`)."""
    return frozenset(m.group().lower() for m in _CODE.finditer(text))


def symbol_names(targets: Iterable[Target]) -> frozenset[str]:
    """The names a target's symbols go by: `Class.method` -> `class.method`, `method`."""
    out: set[str] = set()
    for _, qualname in targets:
        if qualname and not qualname.startswith("<"):
            out.add(qualname.lower())
            out.add(qualname.rsplit(".", 1)[-1].lower())
    return frozenset(out)


@dataclass
class FailureView:
    """What matching needs of a failed attempt.

    `text_terms` and `vector` describe what was attempted; `identifiers` are the code names in
    its changed lines (see `identifiers`). A `source` of "revert" is a reverted
    commit, held to the stricter evidence floor."""

    id: int | str
    targets: tuple[Target, ...]
    text_terms: Collection[str] = field(default_factory=frozenset)  # a set or a Counter
    vector: np.ndarray | None = None
    source: str = "journal"
    identifiers: frozenset[str] = frozenset()
    touched: frozenset[str] = frozenset()  # the lines it changed (see `touched_lines`)
    location: frozenset[str] = frozenset()  # the terms of its files' paths and symbols' names
    place: np.ndarray | None = None  # the vector of those names
    # the messages of the commits whose lines it changed: what retrying it would undo, and why
    why_terms: Collection[str] = field(default_factory=frozenset)  # their messages' terms
    why_vector: np.ndarray | None = None  # the vector of those messages
    # the other symbols whose lines its diff changed: an attempt recorded on one function often
    # edits its neighbour too (an encoder and its decoder), and results on either point at it
    changed: tuple[Target, ...] = ()
    # the codes (`codes`) on the unchanged lines around its changes: the error a changed branch
    # raises, the constant a changed condition tests; what it affected, not what it names
    nearby_codes: frozenset[str] = frozenset()

    @property
    def strict(self) -> bool:
        return self.source == REVERT

    @cached_property
    def why_stems(self) -> frozenset[str]:
        return stems(self.why_terms)

    @cached_property
    def text_stems(self) -> frozenset[str]:
        return stems(self.text_terms)

    @cached_property
    def paths(self) -> frozenset[str]:
        """The files of its anchors."""
        return frozenset(path for path, _ in self.anchors)

    @cached_property
    def homes(self) -> frozenset[str]:
        """The files of its targets (where `undoes` looks)."""
        return frozenset(path for path, _ in self.targets)

    # each attempt is compared with every query: its vectors are normalised once
    @cached_property
    def unit_vector(self) -> np.ndarray | None:
        return _unit(self.vector)

    @cached_property
    def unit_place(self) -> np.ndarray | None:
        return _unit(self.place)

    @cached_property
    def unit_why(self) -> np.ndarray | None:
        return _unit(self.why_vector)

    @property
    def anchors(self) -> tuple[Target, ...]:
        """Where results and preflights anchor it: its targets and the symbols it changed."""
        return tuple(dict.fromkeys((*self.targets, *self.changed)))

    def undoes(self, commit: RetrievedItem) -> bool:
        """Whether this attempt changed lines `commit` added in the attempt's files: retrying it
        would take that commit's change back out."""
        paths = {path for path, _ in self.targets}
        return any(path in paths and line in self.touched for path, line in commit.added)


class _Features:
    """A lazily computed feature of a `LazyFailureView` (a non-data descriptor: once computed,
    the value sits in the instance's dict and is read as a plain attribute)."""

    def __init__(self, at: int) -> None:
        self.at = at

    def __get__(self, view: LazyFailureView | None, owner: type) -> Any:
        if view is None:
            return self
        made = view.make()
        names = ("text_terms", "vector", "identifiers")
        view.__dict__.update(zip(names, made, strict=True))
        return made[self.at]


class LazyFailureView(FailureView):
    """A `FailureView` whose text terms, vector and identifiers are made by `make` when
    matching first reads one of them. A history's reverted commits are many, and a question's
    results point at few of them: only those are compared with the question, so the others'
    text is never tokenized nor embedded."""

    text_terms = _Features(0)  # type: ignore[assignment]
    vector = _Features(1)  # type: ignore[assignment]
    identifiers = _Features(2)  # type: ignore[assignment]

    def __init__(
        self,
        id: int | str,  # noqa: A002 (the field's name)
        targets: tuple[Target, ...],
        make: Callable[[], tuple[Collection[str], np.ndarray | None, frozenset[str]]],
        source: str = REVERT,
    ) -> None:
        super().__init__(id=id, targets=targets, source=source)
        for name in ("text_terms", "vector", "identifiers"):
            self.__dict__.pop(name, None)
        self.make = make


@dataclass(frozen=True)
class Warning:
    failure_id: int | str
    score: float
    reasons: tuple[str, ...]
    structural: float = 0.0
    textual: float = 0.0
    evidence: float = 0.0


@dataclass(frozen=True)
class Intent:
    """What the agent is about to do, as matching sees it: terms, identifiers and a vector."""

    terms: Sequence[str] = ()
    vector: np.ndarray | None = None
    identifiers: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()  # every lowercased word-like token, to spot symbol names
    codes: frozenset[str] = frozenset()  # incident ids, error codes, constants (`codes`)
    text: str = ""  # what the agent wrote, when known (`Intent.of`)

    @classmethod
    def of(cls, text: str | None, terms: Sequence[str], vector: np.ndarray | None) -> Intent:
        text = text or ""
        words = frozenset(
            w
            for m in _IDENT.finditer(text)
            for w in (m.group().lower(), *re.split(r"\.|::|->", m.group().lower()))
        )
        return cls(terms, vector, identifiers(text), words, codes(text), text)

    def __bool__(self) -> bool:
        return bool(self.terms) or self.vector is not None

    # read by a search's warnings only, from the router's cache of the route just taken
    @cached_property
    def changes(self) -> bool:
        """The text says what it intends to do (`router.states_change`; true when there is no
        text); a lookup or a what / why / how question does not, and a recorded attempt must
        resemble it more to warn."""
        return not self.text or states_change(self.text)

    @cached_property
    def lookup(self) -> bool:
        """A bare lookup of a name, code or path (`router.is_exact`): no prose to resemble, so
        only an attempt whose record names what it looks up is what it is about."""
        return bool(self.text) and is_exact(self.text)

    @cached_property
    def unit(self) -> np.ndarray | None:
        return _unit(self.vector)


def _covered(target: Target, symbols: Iterable[Target]) -> Target | None:
    """The symbol of `symbols` that anchors `target` (file-level targets match any in the file)."""
    path, qualname = target
    for sym in symbols:
        if sym[0] == path and (qualname is None or sym[1] == qualname):
            return sym
    return None


def _beside(chunk: Target, target: Target) -> bool:
    """Whether `chunk` is another chunk of the file of the function `target`."""
    return chunk[0] == target[0] and bool(target[1]) and chunk[1] != target[1]


def _unit(v: np.ndarray | None) -> np.ndarray | None:
    """`v` scaled to length 1 (float64), or None for a missing or zero vector."""
    if v is None:
        return None
    x = np.asarray(v, dtype=np.float64)
    n = float(np.sqrt(x @ x))
    return x / n if n > 0 else None


def _dot(x: np.ndarray | None, y: np.ndarray | None) -> float:
    """The cosine of two unit vectors (0 when either is missing), clipped at 0."""
    return 0.0 if x is None or y is None else max(0.0, float(x @ y))


_SUFFIXES = (("ies", "y"), ("ing", ""), ("ed", ""), ("s", ""))


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A light English stem of a prose word (`records` `record`, `keeps` `keep`, `expired`
    `expire`, `running` `run`), so that a question and a note that say the same thing in another
    form still share it. Identifiers, numbers and short words are left as they are."""
    if len(word) <= 3 or not word.isalpha() or not word.isascii():
        return word
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                break
            word = word[: -len(suffix)] + repl
            if suffix in ("ing", "ed") and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def stems(terms: Iterable[str]) -> frozenset[str]:
    return frozenset(map(stem, terms))


def prime_units(views: Sequence[FailureView]) -> None:
    """Normalise the vectors of `views` that matching reads (`unit_vector`, `unit_why`) in one
    pass where they are not normalised yet: the numbers `_unit` gives each view (the same
    product of each row with itself, the same division), without numpy's cost per call twice
    over every attempt of a journal (2,400 calls for 1,200 attempts, in each one-shot command).
    Views made lazily (reverted commits) are left to make their vectors when first read."""
    for attr, unit in (("vector", "unit_vector"), ("why_vector", "unit_why")):
        todo = [
            (v, vec)
            for v in views
            if type(v) is FailureView
            and unit not in v.__dict__
            and (vec := getattr(v, attr)) is not None
        ]
        if len(todo) < 2 or len({vec.shape for _, vec in todo}) != 1:
            continue  # `_unit` on first read
        rows = np.array([vec for _, vec in todo], dtype=np.float64)
        norms = np.array([float(np.sqrt(r @ r)) for r in rows])
        live = norms > 0
        rows[live] /= norms[live, None]
        for (v, _), row, ok in zip(todo, rows, live, strict=True):
            v.__dict__[unit] = row if ok else None  # where `cached_property` keeps it


def _coverage(
    terms: Sequence[str],
    idf: Callable[[str], float],
    found: Collection[str],
    found_stems: Collection[str] = frozenset(),
) -> float:
    """The IDF-weighted share of `terms` (distinct) that `found` holds, or its `found_stems`
    in another form of the word."""
    terms = list(dict.fromkeys(terms))
    weights = [max(float(idf(t)), 0.0) for t in terms]
    total = sum(weights)
    if total <= 0:
        return 0.0
    return (
        sum(
            w
            for t, w in zip(terms, weights, strict=True)
            if t in found or (found_stems and stem(t) in found_stems)
        )
        / total
    )


def textual_score(
    query_terms: Sequence[str],
    query_vec: np.ndarray | None,
    idf: Callable[[str], float],
    failure: FailureView,
    cfg: GraveyardConfig,
    *,
    located: bool = False,
) -> tuple[float, str | None]:
    """textual_weight x max(cosine, IDF coverage), and the reason it is not zero.

    `located`: the query names places as well as what it wants (a search). Its terms that only
    name where the attempt was made (the attempt's paths and symbols) are then the anchor that
    retrieved the attempt's code, not resemblance: coverage leaves them out, and the cosine
    loses `location_discount` x the query's similarity to those names alone."""
    return _textual(query_terms, _unit(query_vec), idf, failure, cfg, located=located)


def _textual(
    query_terms: Sequence[str],
    query: np.ndarray | None,
    idf: Callable[[str], float],
    failure: FailureView,
    cfg: GraveyardConfig,
    *,
    located: bool,
) -> tuple[float, str | None]:
    """`textual_score` with the query's unit vector (an intent's is normalised once, not once
    per attempt compared with it)."""
    terms = list(query_terms)
    if located:
        terms = [t for t in terms if t not in failure.location]
    coverage = _coverage(terms, idf, failure.text_terms)
    cosine = _dot(query, failure.unit_vector)
    if located and failure.place is not None:
        cosine = max(0.0, cosine - cfg.location_discount * _dot(query, failure.unit_place))
    best = max(coverage, cosine)
    if best <= 0:
        return 0.0, None
    reason = (
        f"term overlap {coverage:.0%}"
        if coverage >= cosine
        else f"semantic similarity {cosine:.2f}"
    )
    return cfg.textual_weight * best, reason


def fix_resemblance(
    intent: Intent,
    idf: Callable[[str], float],
    failure: FailureView,
    cfg: GraveyardConfig,
    *,
    located: bool = False,
) -> tuple[float, str | None]:
    """How much `intent` resembles the fix `failure` would undo (0..1: the larger of the
    IDF-weighted share of its terms in the fix's messages, any form of the word, and the cosine
    of their vectors), and why. The terms naming the attempt's files and symbols never count:
    a fix's message names its place as much as the intent does, and the place is the anchor.
    `located`: the cosine is discounted as in `textual_score`. A revert mined from git has no
    such fix: 0."""
    if failure.strict or not failure.why_terms:
        return 0.0, None
    terms = [t for t in intent.terms if t not in failure.location]
    cover = _coverage(terms, idf, failure.why_terms, failure.why_stems)
    cosine = _dot(intent.unit, failure.unit_why)
    if located and failure.place is not None:
        cosine = max(0.0, cosine - cfg.location_discount * _dot(intent.unit, failure.unit_place))
    best = max(cover, cosine)
    if best <= 0:
        return 0.0, None
    said = f"{cover:.0%} of its terms" if cover >= cosine else f"similarity {cosine:.2f}"
    return best, f"resembles the fix it would undo ({said})"


def evidence(
    intent: Intent,
    idf: Callable[[str], float],
    failure: FailureView,
    cfg: GraveyardConfig,
    *,
    located: bool = False,
    fix_best: float = 0.0,
    fix: tuple[float, str | None] | None = None,
) -> tuple[float, list[str]]:
    """How much `failure` resembles `intent` (0..1), and the reasons it is not zero
    (`located`: see `textual_score`). Resembling the fix the attempt would undo counts
    `WHY_EVIDENCE` of resembling the attempt, and only for the attempts whose fix the intent
    resembles at least `WHY_RELATIVE` x the best of all (`fix_best`): fixes in one area share
    their words, and the question is about the one it is closest to. `fix`: that resemblance,
    when the caller already has it."""
    text, reason = _textual(
        intent.terms, intent.unit, idf, failure, cfg, located=located and not failure.strict
    )
    best = text / cfg.textual_weight if cfg.textual_weight > 0 else 0.0
    reasons = [reason] if reason else []
    like, fix_reason = fix or fix_resemblance(intent, idf, failure, cfg, located=located)
    if like >= WHY_RELATIVE * fix_best - _EPS and WHY_EVIDENCE * like > best:
        best = WHY_EVIDENCE * like
        reasons = [fix_reason] if fix_reason else []
    symbols = symbol_names(failure.targets)
    # naming the symbol being changed is the anchor again, not resemblance: it only adds a
    # little; the other identifiers the intent names must appear in the attempt's changed lines
    named = sorted(symbols & intent.words)
    wanted = intent.identifiers - symbols
    if wanted:
        shared = sorted(wanted & failure.identifiers)
        # one shared name is a hint (at most 0.5), two make a match
        share = len(shared) / len(wanted) * min(1.0, len(shared) / 2)
        if shared and share > best:
            best = share
            reasons.insert(0, f"names {', '.join(shared[:3])}, which it changed")
    if named and best > 0:
        best += cfg.named_symbol_evidence
        reasons.append(f"the change names {named[0]}, a symbol it changed")
    return min(best, 1.0), reasons


class _Anchor(NamedTuple):
    weight: float
    reason: str
    trigger: str | None = None  # the triggering commit, if one anchored it
    rank: int = 0  # the triggering commit's rank
    near: bool = False  # another chunk of the attempt's file: needs its own resemblance


class _Results:
    """What `_retrieval_anchors` asks of a result list, indexed once per request: every
    attempt is checked against the same results. Each lookup gives what `_covered` finds: the
    first match in the list's order."""

    def __init__(self, retrieved: Sequence[RetrievedItem], cfg: GraveyardConfig) -> None:
        self.retrieved = retrieved
        code = sorted(
            (r for r in retrieved if r.kind in CODE_KINDS and r.path), key=lambda r: r.rank
        )
        self.top = [r for r in code if r.rank <= cfg.context_top]
        self.top_by_path: dict[str, RetrievedItem] = {}
        self.top_by_symbol: dict[Target, RetrievedItem] = {}
        for r in self.top:
            self.top_by_path.setdefault(r.path or "", r)
            self.top_by_symbol.setdefault((r.path or "", r.qualname), r)
        gate = [(r.path or "", r.qualname) for r in code if r.rank <= cfg.gate_code_hits]
        self.gate_paths = frozenset(p for p, _ in gate)
        self.gate_symbols = frozenset(gate)
        head = [r.score for r in retrieved if r.rank <= cfg.context_top]
        self.best_head = max(head) if head else 0.0
        self._by_path: dict[str, list[tuple[RetrievedItem, Target]]] | None = None
        self._by_symbol: dict[Target, list[RetrievedItem]] = {}

    def _index_commits(self) -> dict[str, list[tuple[RetrievedItem, Target]]]:
        """The commits touching each file (with the first symbol each touched there) and each
        symbol, in the list's order; built when an attempt first asks (a bulk commit touches
        hundreds of symbols, and most requests have no attempt to check)."""
        by_path: dict[str, list[tuple[RetrievedItem, Target]]] = {}
        for c in self.retrieved:
            if c.kind != "commit":
                continue
            paths: set[str] = set()
            symbols: set[Target] = set()
            for sym in c.symbols_touched:
                if sym[0] not in paths:
                    paths.add(sym[0])
                    by_path.setdefault(sym[0], []).append((c, sym))
                if sym not in symbols:
                    symbols.add(sym)
                    self._by_symbol.setdefault(sym, []).append(c)
        self._by_path = by_path
        return by_path

    def top_hit(self, target: Target) -> RetrievedItem | None:
        path, qualname = target
        if qualname is None:
            return self.top_by_path.get(path)
        return self.top_by_symbol.get(target)

    def commits_touching(self, target: Target) -> list[tuple[RetrievedItem, Target]]:
        """(commit, the symbol it touched there) for each retrieved commit that touched
        `target` (any symbol of its file for a file-level target), in the list's order."""
        by_path = self._by_path if self._by_path is not None else self._index_commits()
        if target[1] is None:
            return by_path.get(target[0], [])
        return [(c, target) for c in self._by_symbol.get(target, ())]

    def gated(self, target: Target) -> bool:
        path, qualname = target
        return path in self.gate_paths if qualname is None else target in self.gate_symbols


def _retrieval_anchors(
    failure: FailureView,
    results: _Results,
    cfg: GraveyardConfig,
    focus: Callable[[Target], bool] | None = None,
    *,
    beside: bool = False,
) -> list[_Anchor]:
    """Anchors from a result list: retrieved code, triggering commits, gated commits. A
    triggering commit marks where the attempt was made, a boost like the others. `beside`:
    another chunk of the attempt's file in the top `context_top` (its own
    chunk, the function's class, a sibling) is a weaker anchor (`near`), `SAME_FILE_WEIGHT`."""
    best_head = results.best_head
    anchors: list[_Anchor] = []
    for target in failure.anchors:
        if focus is not None and not focus(target):
            continue  # results point at the attempt's function only when the query is about it
        r = results.top_hit(target)
        if beside:
            # a chunk beside the attempt ranked above the first chunk covering it
            for n in results.top:
                if n is r:
                    break
                if _beside((n.path or "", n.qualname), target):
                    anchors.append(
                        _Anchor(
                            SAME_FILE_WEIGHT,
                            f"{target_label((n.path or '', n.qualname))}, in the file of "
                            f"{target_label(target)}, retrieved at rank {n.rank}",
                            near=True,
                        )
                    )
                    break
        if r is not None:
            anchors.append(
                _Anchor(
                    cfg.context_weight,
                    f"targets {target_label(target)}, retrieved at rank {r.rank}",
                )
            )
        for c, touched in results.commits_touching(target):
            name = f"{c.intent or 'commit'} commit {c.id or '?'}"
            triggers = c.intent in cfg.trigger_intents and (
                (cfg.commit_trigger_rank1 and c.rank == 1) or c.score > cfg.commit_trigger_score
            )
            if triggers:
                what = "added lines it changed in" if failure.undoes(c) else "modified"
                anchors.append(
                    _Anchor(
                        cfg.trigger_weight,
                        f"{name} (rank {c.rank}, score {c.score:.2f}) {what} "
                        f"{target_label(touched)}",
                        c.id or f"rank {c.rank}",
                        c.rank,
                    )
                )
            elif not cfg.commit_gating:
                if c.rank <= cfg.context_top:
                    anchors.append(
                        _Anchor(
                            cfg.context_weight,
                            f"{name} at rank {c.rank} modified {target_label(touched)}",
                        )
                    )
            elif (
                c.score >= cfg.commit_gate * best_head - _EPS
                and not (c.bulk or len(c.symbols_touched) > cfg.bulk_symbols)
                and results.gated(target)
            ):
                anchors.append(
                    _Anchor(
                        cfg.context_weight,
                        f"{name} (rank {c.rank}) passed the relevance gate and modified "
                        f"{target_label(touched)}, a top-{cfg.gate_code_hits} code hit",
                    )
                )
    return anchors


def _resembles_itself(
    intent: Intent, idf: Callable[[str], float], failure: FailureView, cfg: GraveyardConfig
) -> bool:
    """Whether the query resembles the attempt's own record (its text or vector, place words
    left out) at least `search_min_evidence`, not only the fix it would undo: a fix's words are
    shared by everything near it, so they cannot back an anchor as weak as a chunk beside it."""
    text, _ = _textual(intent.terms, intent.unit, idf, failure, cfg, located=True)
    return text >= cfg.textual_weight * cfg.search_min_evidence - _EPS


def _focus(
    intent: Intent, retrieved: Sequence[RetrievedItem], cfg: GraveyardConfig
) -> Callable[[Target], bool]:
    """The functions a search is about: those of its code results it names (`TTLCache.get`,
    `discount_for`), else its top `context_top` code results. A retrieved commit that also
    touched other functions says nothing about them."""
    code = [r for r in retrieved if r.kind in CODE_KINDS and r.path]
    named = [
        (r.path or "", r.qualname)
        for r in code
        if r.qualname and symbol_names([(r.path or "", r.qualname)]) & intent.identifiers
    ]
    if not named:
        return lambda target: True
    return lambda target: _covered(target, named) is not None


def _named_codes(intent: Intent, failure: FailureView) -> tuple[float, list[str]]:
    """Full evidence when the query names incident ids, error codes or constants
    (`INC-2566`, `ERR_TOKEN_REUSED`) and the attempt's record or the messages of the commits it
    would undo name every one of them: such names are specific, unlike common words."""
    if failure.strict or not intent.codes:
        return 0.0, []
    known = (failure.text_terms, failure.identifiers, failure.why_terms)
    named = ", ".join(sorted(intent.codes)[:3])
    if all(any(c in k for k in known) for c in intent.codes):
        return 1.0, [f"names {named}, as its record or the fix it undoes"]
    if all(c in failure.nearby_codes or any(c in k for k in known) for c in intent.codes):
        # next to what it changed, not what it changed: a hint, which an anchor must back
        return NEARBY_CODE_EVIDENCE, [f"names {named}, next to the lines it changed"]
    return 0.0, []


def _decide(
    failure: FailureView,
    anchors: list[tuple[float, str]],
    found: tuple[float, list[str]],
    cfg: GraveyardConfig,
) -> Warning | None:
    """Fire when the evidence reaches its floor (`revert_min_evidence` for a reverted commit,
    `min_evidence` for a recorded attempt) and structural + textual reaches the threshold."""
    amount, why = found
    floor = cfg.revert_min_evidence if failure.strict else cfg.min_evidence
    if amount <= 0 or amount < floor - _EPS:
        return None
    structural, reason = max(anchors, key=lambda a: a[0]) if anchors else (0.0, None)
    if failure.strict and structural <= 0:
        return None  # a reverted commit's words alone: another file's revert is not this change
    textual = cfg.textual_weight * amount
    score = structural + textual
    if score < cfg.semantic_threshold - _EPS:
        return None
    reasons = tuple(r for r in (reason, *why) if r)
    return Warning(
        failure.id, round(score, 6), reasons, structural, round(textual, 6), round(amount, 6)
    )


def _ranked(warnings: Iterable[Warning | None], cap: int | None = None) -> list[Warning]:
    found = sorted(
        (w for w in warnings if w is not None), key=lambda w: (-w.score, str(w.failure_id))
    )
    return found[:cap] if cap is not None else found


def _as_intent(terms: Sequence[str] | Intent, vec: np.ndarray | None) -> Intent:
    return terms if isinstance(terms, Intent) else Intent(terms, vec)


# A recorded attempt's resemblance to a search, calibrated: a logistic model over what the query
# shares with the attempt's record and with the fix it would undo, how much more it shares with
# this attempt than with any other recorded one, and where the results point (see `resemblance`).
# Fitted on the fixture's question splits (dev and the retired held-out ones), each split's
# threshold chosen on the others. It warns at `WARN_PROBABILITY`.
RESEMBLANCE_BIAS = -5.945
RESEMBLANCE_WEIGHTS: dict[str, float] = {
    "cosine": 4.496,  # the query's vector against the attempt's record (notes, errors, diff)
    "coverage": 1.222,  # the IDF-weighted share of the query's terms in that record
    "fix_coverage": 2.196,  # ... in the messages of the commits it would undo
    "fix_cosine": 5.064,  # the query's vector against those messages
    "fix_lead": 1.998,  # fix_cosine minus the best of the other recorded attempts
    "cosine_lead": 1.097,  # cosine minus the best of the other recorded attempts
    "undoes_top": 0.849,  # a top result is a commit whose added lines it changed
    "file_top": 0.695,  # a top result is a chunk of one of its files
    "code_top": 0.652,  # a top result is its own function
    "codes": 0.927,  # the codes the query names (see `_named_codes`)
}
WARN_PROBABILITY = 0.40
# a question that states no intended change (a lookup, a what / why / how question) asks about
# the code as it is: an attempt in the same area resembles it without being what it is about, so
# it warns only from this probability (chosen with each split left out, like the weights)
LOOKUP_WARN_PROBABILITY = 0.45
# a clear match warns whatever the model says, when the results point at the attempt (its code,
# a chunk of its files or a commit it would undo among the top results): its record holds this
# much of the question's terms, or it names the codes the question names (`_named_codes`)
CLEAR_COVERAGE = 0.6


@dataclass(frozen=True)
class Resemblance:
    """What `resemblance` weighs for one recorded attempt and one search (its features), with
    the results that point at it."""

    cosine: float
    coverage: float
    fix_coverage: float
    fix_cosine: float
    codes: float
    undoes: RetrievedItem | None  # a top commit whose added lines it changed
    code: RetrievedItem | None  # its own function among the top results
    file: RetrievedItem | None  # another chunk of its files among them
    codes_reason: str | None = None

    @property
    def named(self) -> bool:
        """Its record holds what a bare lookup names (`CLEAR_COVERAGE` of the terms), or it or
        the fix it undoes names the lookup's codes."""
        return self.coverage >= CLEAR_COVERAGE - _EPS or self.codes >= NEARBY_CODE_EVIDENCE - _EPS

    @property
    def clear(self) -> bool:
        """A clear match that the results point at (see `CLEAR_COVERAGE`)."""
        pointed = self.undoes is not None or self.code is not None or self.file is not None
        return pointed and self.named

    def features(self, cosine_lead: float, fix_lead: float) -> dict[str, float]:
        return {
            "cosine": self.cosine,
            "coverage": self.coverage,
            "fix_coverage": self.fix_coverage,
            "fix_cosine": self.fix_cosine,
            "fix_lead": fix_lead,
            "cosine_lead": cosine_lead,
            "undoes_top": float(self.undoes is not None),
            "file_top": float(self.file is not None),
            "code_top": float(self.code is not None),
            "codes": self.codes,
        }


class _QueryTerms:
    """A query's distinct terms with their IDF weights and stems, computed once per request:
    `coverage` is `_coverage` for every attempt compared with it."""

    def __init__(self, terms: Sequence[str], idf: Callable[[str], float]) -> None:
        self.items = [(t, max(float(idf(t)), 0.0), stem(t)) for t in dict.fromkeys(terms)]

    def coverage(
        self, skip: Collection[str], found: Collection[str], found_stems: Collection[str]
    ) -> float:
        total = held = 0.0
        for term, weight, st in self.items:
            if term in skip:
                continue
            total += weight
            if term in found or st in found_stems:
                held += weight
        return held / total if total > 0 else 0.0


def _measure(
    intent: Intent,
    terms: _QueryTerms,
    failure: FailureView,
    results: _Results,
    added: Sequence[tuple[RetrievedItem, dict[str, set[str]]]],
) -> Resemblance:
    codes_found, codes_why = _named_codes(intent, failure)
    code = next((r for t in failure.anchors if (r := results.top_hit(t)) is not None), None)
    undoes = next(
        (
            c
            for c, by_path in added
            if any(not by_path.get(p, _NONE).isdisjoint(failure.touched) for p in failure.homes)
        ),
        None,
    )
    # the query's words that only name the attempt's place are the anchor, not resemblance
    return Resemblance(
        cosine=_dot(intent.unit, failure.unit_vector),
        coverage=terms.coverage(failure.location, failure.text_terms, failure.text_stems),
        fix_coverage=terms.coverage(failure.location, failure.why_terms, failure.why_stems)
        if failure.why_terms
        else 0.0,
        fix_cosine=_dot(intent.unit, failure.unit_why),
        codes=codes_found,
        undoes=undoes,
        code=code,
        file=next((r for r in results.top if r.path in failure.paths), None),
        codes_reason=codes_why[0] if codes_why else None,
    )


_NONE: frozenset[str] = frozenset()


def _leads(values: Sequence[float]) -> list[float]:
    """Each value minus the best of the others (the value itself when it has no others)."""
    if not values:
        return []
    best = max(range(len(values)), key=values.__getitem__)
    second = max((v for j, v in enumerate(values) if j != best), default=0.0)
    return [v - (second if i == best else values[best]) for i, v in enumerate(values)]


def resemblance(
    intent: Intent,
    idf: Callable[[str], float],
    retrieved: Sequence[RetrievedItem],
    failures: Sequence[FailureView],
    cfg: GraveyardConfig,
) -> list[tuple[float, Resemblance]]:
    """The probability that each recorded attempt is what the search is about (the calibrated
    model above), with what it was computed from, in `failures`' order."""
    results = _Results(retrieved, cfg)
    added: list[tuple[RetrievedItem, dict[str, set[str]]]] = []
    for c in retrieved:
        if c.kind == "commit" and c.rank <= cfg.context_top:
            by_path: dict[str, set[str]] = {}
            for path, line in c.added:
                by_path.setdefault(path, set()).add(line)
            added.append((c, by_path))
    terms = _QueryTerms(intent.terms, idf)
    prime_units(failures)
    measured = [_measure(intent, terms, f, results, added) for f in failures]
    cosine_leads = _leads([m.cosine for m in measured])
    fix_leads = _leads([m.fix_cosine for m in measured])
    out = []
    for m, cosine_lead, fix_lead in zip(measured, cosine_leads, fix_leads, strict=True):
        x = m.features(cosine_lead, fix_lead)
        z = RESEMBLANCE_BIAS + sum(RESEMBLANCE_WEIGHTS[k] * v for k, v in x.items())
        out.append((1.0 / (1.0 + math.exp(-z)), m))
    return out


def _resemblance_reasons(m: Resemblance) -> tuple[str, ...]:
    said = []
    if m.code is not None:
        said.append(
            f"targets {target_label((m.code.path or '', m.code.qualname))}, retrieved at "
            f"rank {m.code.rank}"
        )
    elif m.file is not None:
        said.append(
            f"{target_label((m.file.path or '', m.file.qualname))}, in its file, "
            f"retrieved at rank {m.file.rank}"
        )
    if m.undoes is not None:
        said.append(
            f"{m.undoes.intent or 'commit'} commit {m.undoes.id or '?'} (rank "
            f"{m.undoes.rank}) added lines it changed"
        )
    if m.codes_reason:
        said.append(m.codes_reason)
    said.append(f"resembles its record (similarity {m.cosine:.2f}, {m.coverage:.0%} of the terms)")
    if m.fix_cosine > 0 or m.fix_coverage > 0:
        said.append(
            f"resembles the fix it would undo (similarity {m.fix_cosine:.2f}, "
            f"{m.fix_coverage:.0%} of the terms)"
        )
    return tuple(said)


def _recorded_matches(
    intent: Intent,
    idf: Callable[[str], float],
    retrieved: Sequence[RetrievedItem],
    failures: Sequence[FailureView],
    cfg: GraveyardConfig,
) -> list[Warning]:
    bar = WARN_PROBABILITY if intent.changes else LOOKUP_WARN_PROBABILITY
    out = []
    for f, (p, m) in zip(failures, resemblance(intent, idf, retrieved, failures, cfg), strict=True):
        if intent.lookup and not m.named:
            continue  # a lookup of a name the attempt's record does not hold is not about it
        if p >= bar - _EPS or m.clear:
            out.append(Warning(f.id, round(p, 6), _resemblance_reasons(m), evidence=round(p, 6)))
    return out


def match_search(
    query_terms: Sequence[str] | Intent,
    query_vec: np.ndarray | None,
    idf: Callable[[str], float],
    retrieved: Sequence[RetrievedItem],
    failures: Iterable[FailureView],
    cfg: GraveyardConfig | None = None,
) -> list[Warning]:
    """Failed attempts relevant to a search and its results, strongest first.

    A recorded attempt warns when its calibrated resemblance to the search (`resemblance`)
    reaches `WARN_PROBABILITY` (`LOOKUP_WARN_PROBABILITY` when the query states no intended
    change), or on a clear match; on a bare lookup (`Intent.lookup`) only when its record holds
    what the lookup names (`Resemblance.named`) (`Resemblance.clear`). A reverted commit mined from git warns only when the results
    point at it (text that resembles a revert nobody retrieved is no warning, as an anchor
    without resemblance is none) and it resembles the query at least `revert_min_evidence`."""
    cfg = cfg or GraveyardConfig()
    intent = _as_intent(query_terms, query_vec)
    failures = list(failures)
    out = _recorded_matches(intent, idf, retrieved, [f for f in failures if not f.strict], cfg)
    reverts = [f for f in failures if f.strict]
    if not reverts:
        return _ranked(out)
    focus = _focus(intent, retrieved, cfg)
    results = _Results(retrieved, cfg)
    for f in reverts:
        found = _retrieval_anchors(f, results, cfg, beside=True)
        if not found:
            continue  # nothing retrieved points at it: no warning whatever it resembles
        own = evidence(intent, idf, f, cfg, located=True)
        if own[0] < DEEP_TRIGGER_EVIDENCE - _EPS:
            # a revert resembling the query this much is what it is about, whichever function
            # the query names; otherwise only the results on the named functions point at it
            found = _retrieval_anchors(f, results, cfg, focus, beside=True)
            found = [a for a in found if a.trigger is None or a.rank <= cfg.context_top]
        if any(a.near for a in found) and not _resembles_itself(intent, idf, f, cfg):
            found = [a for a in found if not a.near]
        if found and (w := _decide(f, [(a.weight, a.reason) for a in found], own, cfg)):
            out.append(w)
    return _ranked(out)


def _nested(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def match_preflight(
    path: str,
    qualname: str | None,
    intended_change_terms: Sequence[str] | Intent,
    intended_vec: np.ndarray | None,
    idf: Callable[[str], float],
    failures: Iterable[FailureView],
    cfg: GraveyardConfig | None = None,
    retrieved: Sequence[RetrievedItem] = (),
    kept: dict[int, _Matched] | None = None,
) -> list[Warning]:
    """Failed attempts relevant to changing `path` (`qualname`) as intended, strongest first.

    Without an intended change nothing fires: the anchors alone are history, not a warning.
    Retrieved results anchor here too, but (unlike in a search) only as a boost: they were
    retrieved for the target as much as for the intent.

    `kept`: what earlier calls with the same question (every argument but `failures`) found
    per failure, by the failure's identity; the same failures are then not matched again (a
    journal of 1,200 failures, one of them new), and the entries of failures gone are dropped."""
    cfg = cfg or GraveyardConfig()
    intent = _as_intent(intended_change_terms, intended_vec)
    if not intent:
        return []
    before = kept if kept is not None else {}
    now: dict[int, _Matched] = {}
    matched = []
    failures = list(failures)
    prime_units(failures)
    for f in failures:
        got = now.get(id(f)) or before.get(id(f))
        if got is None or got.failure is not f:
            got = _Matched(f, fix_resemblance(intent, idf, f, cfg))
        now[id(f)] = got
        matched.append(got)
    fix_best = max((m.fix[0] for m in matched), default=0.0)
    results = _Results(retrieved, cfg)
    out = []
    for m in matched:
        f = m.failure
        if m.anchors is None:
            m.anchors = _preflight_anchors(f, path, qualname, results, cfg)
        if m.fix_best != fix_best:  # the evidence counts the fix against the best of all
            if f.strict and max((w for w, _ in m.anchors), default=0.0) <= 0:
                # `_decide` never warns of a revert nothing anchors: its text is not read
                m.fix_best, m.warning = fix_best, None
            else:
                found = evidence(intent, idf, f, cfg, fix_best=fix_best, fix=m.fix)
                m.fix_best, m.warning = fix_best, _decide(f, m.anchors, found, cfg)
        out.append(m.warning)
    if kept is not None:
        kept.clear()
        kept.update(now)
    return _ranked(out)


@dataclass(eq=False)
class _Matched:
    """One failure against one preflight question (see `match_preflight`'s `kept`)."""

    failure: FailureView
    fix: tuple[float, str | None]
    anchors: list[tuple[float, str]] | None = None
    fix_best: float | None = None  # what `warning` was decided with
    warning: Warning | None = None


def _preflight_anchors(
    f: FailureView, path: str, qualname: str | None, results: _Results, cfg: GraveyardConfig
) -> list[tuple[float, str]]:
    anchors: list[tuple[float, str]] = []
    for target in f.anchors:
        t_path, t_qual = target
        if t_path != path:
            continue
        if qualname is None or t_qual is None:
            anchors.append((cfg.same_file, f"same file {path}"))
        elif _nested(t_qual, qualname):
            anchors.append((cfg.same_symbol, f"same symbol {target_label(target)}"))
        else:
            anchors.append(
                (
                    cfg.sibling_weight,
                    f"sibling {target_label(target)} in the same file as {qualname}",
                )
            )
    anchors += [(a.weight, a.reason) for a in _retrieval_anchors(f, results, cfg)]
    return anchors
