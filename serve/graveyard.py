"""When a failed attempt is relevant: the graveyard's matching rule, as a pure function.

A failure surfaces when it *resembles* what the agent is about to do (the evidence reaches a
floor) and structural + textual >= `semantic_threshold` (0.40). A structural anchor only boosts:
on its own it never fires, so a warning is not raised merely because a file or symbol was once
part of a failed attempt.

Evidence (0..1) is the strongest of: the embedding cosine of the intended change (or query) and
the attempt; the IDF-weighted share of the intent's terms found in the attempt's text; the share
of the identifiers the intent names (`snake_case`, `camelCase`, `a.b`) found in the attempt's
changed lines (halved when only one is shared); plus `named_symbol_evidence` when there is some
and the intent also names a symbol the attempt changed (naming the symbol alone is the anchor
again, not resemblance). A reverted commit mined from git is held to a stricter bar than a
failure an agent recorded: its text is only what its commits say (subjects, the revert's reason,
the body), not the diff's words, and its floor is `revert_min_evidence` instead of
`min_evidence`.

In a search the query names places as well as what it wants, and the places are what retrieved the
attempt's code: the query's terms that only name the attempt's files and symbols do not count as
resemblance, and its cosine loses `location_discount` x its similarity to those names alone, and
the evidence floor is `search_min_evidence`. A search warns only about attempts its results anchor
(text resembling an attempt that nothing retrieved fires no more than an anchor alone), and an
anchor is a boost there too, with one exception: a retrieved fix *vouches* for a recorded attempt,
which then needs only `min_evidence` (the bar of a preflight of its own function) instead of the
search floor, when the attempt changed lines that fix added (retrying it would take the fix back
out) and the query is about what the fix was about (its message and the names in the lines it
added cover at least `trigger_min_evidence` of the query's terms, place names left out). The fix
says where; only the attempt's own record can say what, so some resemblance is always needed. A
fix that only touched the same function says where the attempt was made, not what it did. A
revert is never vouched for. A triggering commit anchors only the recorded attempt on its
functions that most resembles the query (ties included); the other attempts on those functions need
an anchor of their own, so one fix that touched several functions does not raise every attempt ever
made on them. Results credit only the functions the search is about: when the query names functions
among its code results (`discount_for`, `TTLCache.get`), no result anchors an attempt on another
function, whatever commit touched both, unless the query resembles that attempt at least
`DEEP_TRIGGER_EVIDENCE` (then the attempt is what it is about, whichever name it uses); and a fix
found below the first `context_top` results is one of several things the query found, so it
triggers only for an attempt the query resembles that much.

A recorded attempt also knows the commits whose lines it changed (`why`: the fixes among them,
else the commit that put in most of those lines), what retrying it would undo. A search that names
incident ids, error codes or constants (`INC-2566`, `ERR_TOKEN_REUSED`: see `codes`) that the
attempt's record or those commits' messages all name has full evidence (such names are specific,
where common words are not), and then such a commit in the top `context_top` results anchors the
attempt (`context_weight`) as a code hit would. Questions and lookups rarely share the words of a failure's
notes, but they do name the incident or the error the fix was about. A code that only stands on
the unchanged lines around the attempt's changes (the error a changed branch raises) is half that
evidence (`NEARBY_CODE_EVIDENCE`): it says what the change affected, and an anchor must back it.

Those commits' messages are also what the attempt is *about*, in the words people use for it: a
question or change that resembles the fix an attempt would undo (the IDF-weighted share of its
terms in the messages, any form of the word, or the cosine of their vectors) resembles the attempt
at `WHY_EVIDENCE` of that, but only for the attempts whose fix it resembles at least `WHY_RELATIVE`
x the closest fix of all: fixes in one area share their words ("retry", "charge"), and the query
is about the one it is closest to. Reverts mined from git have no such fix (they are their own).

An attempt is anchored by its targets and by the other symbols whose lines its diff changed (an
attempt recorded on an encoder that also edits its decoder); anchors still only boost.

The score is structural + textual, where

- structural is the strongest anchor of the failure to the code at hand:
  preflight on its own symbol 0.75, on its file 0.5 (also when either side names no symbol),
  on another function of its file 0.25; a failure targeting a code hit retrieved in the top
  `context_top` (3) 0.3; in a search, another chunk of the attempt's file among those (the
  file's own chunk, the function's class, a sibling) `SAME_FILE_WEIGHT` (0.2), as the sibling
  anchor of a preflight, only when the query resembles the attempt's own record at least
  `search_min_evidence` (resembling the fix it would undo is not enough: a fix's words are shared
  by everything near it); a *direct trigger* 0.40: a retrieved bugfix / security / revert commit
  ranked #1 or scoring above 0.65 anchors every function it modified; any other retrieved commit
  anchors its functions at 0.3 only through the *commit-relevance gate*: its score is at least
  0.9 x the best score in the top 3, it is not bulk (more than 8 symbols), and the failure's
  function is also among the top-5 code hits;
- textual = 0.6 x the evidence.

Anchoring is symbol-level: a target with a qualname is only anchored by that exact symbol (or,
in preflight, one nested in it or enclosing it). A target without one (a change outside any
named symbol) falls back to file-level matching: any hit or touched symbol in its file anchors it.

Every warning carries human-readable reasons: which anchor and how much text matched. Nothing
here reads files or indexes; callers pass retrieved items and failure views.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import NamedTuple

import numpy as np

from ..store.attempts import Target, target_label
from ..store.config import GraveyardConfig
from ..store.tokenizer import split_identifier

# a fix below the first `context_top` results triggers only for an attempt resembling the query
# this much: there it is one of several things the query found, not what it is about
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
    about: frozenset[str] = frozenset()  # commits: the terms of their message


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
    # the commits whose lines it changed (sha[:10]): what retrying it would undo, and why
    why: frozenset[str] = frozenset()
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

    @classmethod
    def of(cls, text: str | None, terms: Sequence[str], vector: np.ndarray | None) -> Intent:
        text = text or ""
        words = frozenset(
            w
            for m in _IDENT.finditer(text)
            for w in (m.group().lower(), *re.split(r"\.|::|->", m.group().lower()))
        )
        return cls(terms, vector, identifiers(text), words, codes(text))

    def __bool__(self) -> bool:
        return bool(self.terms) or self.vector is not None

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
    return frozenset(stem(t) for t in terms)


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
    vouches: bool = False  # the attempt undoes the trigger and the query is about what it fixed
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
    fixed: Callable[[RetrievedItem], float] | None = None,
    focus: Callable[[Target], bool] | None = None,
    *,
    beside: bool = False,
) -> list[_Anchor]:
    """Anchors from a result list: retrieved code, triggering commits, gated commits.

    A triggering commit vouches for the attempt (the query found the fix the attempt would take
    back out) only when the attempt changed lines it added and the query resembles what the fix
    was about (`fixed`: how much of the query its message covers, at least
    `trigger_min_evidence`). Otherwise it marks where the attempt was made, a boost like the
    others. `beside`: another chunk of the attempt's file in the top `context_top` (its own
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
                undoes = failure.undoes(c)
                about = fixed(c) if fixed is not None and undoes else 0.0
                what = "added lines it changed in" if undoes else "modified"
                anchors.append(
                    _Anchor(
                        cfg.trigger_weight,
                        f"{name} (rank {c.rank}, score {c.score:.2f}) {what} "
                        f"{target_label(touched)}",
                        c.id or f"rank {c.rank}",
                        about >= cfg.trigger_min_evidence - _EPS,
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


def _why_anchor(
    failure: FailureView, retrieved: Sequence[RetrievedItem], cfg: GraveyardConfig
) -> list[_Anchor]:
    """A commit in the top `context_top` that put in lines the attempt changed: the query
    found what the attempt would undo."""
    for c in sorted(retrieved, key=lambda r: r.rank):
        if c.rank > cfg.context_top:
            break
        if c.kind == "commit" and c.id and c.id in failure.why:
            return [
                _Anchor(
                    cfg.context_weight,
                    f"{c.intent or 'commit'} commit {c.id} (rank {c.rank}) put in lines it changed",
                )
            ]
    return []


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
    *,
    query_anchored: bool = False,
    floor: float | None = None,
) -> Warning | None:
    """Fire when the evidence reaches its floor (`min_evidence` for a journal failure in a search
    that a retrieved fix vouches for: `query_anchored`) and structural + textual reaches the
    threshold."""
    amount, why = found
    if failure.strict:
        floor = cfg.revert_min_evidence
    elif query_anchored:
        # vouched for by a fix the results found, it needs the bar of a recorded attempt in a
        # preflight of its own function, not none: the fix says where, the attempt says what
        floor = cfg.min_evidence
    elif floor is None:
        floor = cfg.min_evidence
    if amount <= 0 or amount < floor - _EPS:
        return None
    structural, reason = max(anchors, key=lambda a: a[0]) if anchors else (0.0, None)
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


def match_search(
    query_terms: Sequence[str] | Intent,
    query_vec: np.ndarray | None,
    idf: Callable[[str], float],
    retrieved: Sequence[RetrievedItem],
    failures: Iterable[FailureView],
    cfg: GraveyardConfig | None = None,
) -> list[Warning]:
    """Failed attempts relevant to a search and its results, strongest first.

    A search warns only about attempts its results point at: text that resembles an attempt
    nobody retrieved is no warning (as an anchor without resemblance is none). A triggering
    commit vouches only for the attempt on its functions that most resembles the query; the
    other attempts on those functions need an anchor of their own."""
    cfg = cfg or GraveyardConfig()
    intent = _as_intent(query_terms, query_vec)

    def fixed_for(f: FailureView) -> Callable[[RetrievedItem], float]:
        # what the query says beyond naming the attempt's place, found in the fix's message
        terms = [t for t in intent.terms if t not in f.location]
        return lambda c: _coverage(terms, idf, c.about)

    focus = _focus(intent, retrieved, cfg)
    results = _Results(retrieved, cfg)
    failures = list(failures)
    fixes = [fix_resemblance(intent, idf, f, cfg, located=True) for f in failures]
    fix_best = max((x[0] for x in fixes), default=0.0)

    def resemblance(
        f: FailureView, fix: tuple[float, str | None]
    ) -> tuple[list[_Anchor], tuple[float, list[str]]]:
        found = _retrieval_anchors(f, results, cfg, fixed_for(f), beside=True)
        if not found and not _why_anchor(f, retrieved, cfg):
            # nothing retrieved points at it: no warning whatever it resembles, and it vouches
            # for no trigger, so its evidence is not needed
            return [], (0.0, [])
        own = evidence(intent, idf, f, cfg, located=True, fix_best=fix_best, fix=fix)
        named = _named_codes(intent, f)
        strong = max(own[0], named[0]) >= DEEP_TRIGGER_EVIDENCE - _EPS
        if not strong:
            # an attempt resembling the query this much is what it is about, whichever function
            # the query names; otherwise only the results on the named functions point at it
            found = _retrieval_anchors(f, results, cfg, fixed_for(f), focus, beside=True)
        anchors = [a for a in found if a.trigger is None or a.rank <= cfg.context_top or strong]
        if any(a.near for a in anchors) and not _resembles_itself(intent, idf, f, cfg):
            anchors = [a for a in anchors if not a.near]
        if named[0] <= own[0]:
            return anchors, own
        # the codes it names make the commits it would undo, when retrieved, point at it
        return anchors + _why_anchor(f, retrieved, cfg), named

    found = [(f, *resemblance(f, fix)) for f, fix in zip(failures, fixes, strict=True)]
    best: dict[str, float] = {}
    for f, anchors, (amount, _) in found:
        if f.strict:  # a revert is never vouched for by the results (see `_decide`)
            continue
        for a in anchors:
            if a.trigger is not None:
                best[a.trigger] = max(best.get(a.trigger, 0.0), amount)
    out = []
    for f, anchors, ev in found:
        kept = [
            a for a in anchors if a.trigger is None or f.strict or ev[0] >= best[a.trigger] - _EPS
        ]
        if kept:
            vouched = any(a.vouches for a in kept)
            pairs = [(a.weight, a.reason) for a in kept]
            out.append(
                _decide(f, pairs, ev, cfg, query_anchored=vouched, floor=cfg.search_min_evidence)
            )
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
) -> list[Warning]:
    """Failed attempts relevant to changing `path` (`qualname`) as intended, strongest first.

    Without an intended change nothing fires: the anchors alone are history, not a warning.
    Retrieved results anchor here too, but (unlike in a search) only as a boost: they were
    retrieved for the target as much as for the intent."""
    cfg = cfg or GraveyardConfig()
    intent = _as_intent(intended_change_terms, intended_vec)
    if not intent:
        return []
    failures = list(failures)
    fixes = [fix_resemblance(intent, idf, f, cfg) for f in failures]
    fix_best = max((x[0] for x in fixes), default=0.0)
    results = _Results(retrieved, cfg)
    out = []
    for f, fix in zip(failures, fixes, strict=True):
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
        found = evidence(intent, idf, f, cfg, fix_best=fix_best, fix=fix)
        out.append(_decide(f, anchors, found, cfg))
    return _ranked(out)
