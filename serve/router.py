"""The query router: a deterministic classifier over what a question asks.

It never looks at the corpus and costs microseconds. A question is classified by its form (why,
how / what does, what else changes with, an imperative change request, a report of something
that went wrong), not by whether it contains a path or an identifier: "why does
`charge_with_retry` ..." is about code, "which manifest is kept in step with `main.go`" is about
co-change, and only a bare lookup ("ERR_QUOTA_EXCEEDED", a path, a SHA) is `exact`.

Each class has cue patterns that score it; the best score wins (ties by the order of
`PRECEDENCE`). A question with a second class scoring close to the first ("why does X ... and
where do I change it", "adding a job kind to runner.go: what else is edited with it") is mixed:
its path weights are blended from both classes, while the reranker's preference, the commit
slots and pinning follow the first. `coupled` is this project's addition to the seed's six
classes: its answer lives in other files than the one the query names, so the co-change graph
leads and the named file steps out of the answer.

Work is linear in the query: the features are read from its first `MAX_ROUTE_CHARS` characters,
and `_IDENT` and `_PATH` (whose patterns retry from every position of a word, so a word of n
letters costs n^2 steps) run on one word at a time, skipping words over `MAX_WORD_CHARS`: no
identifier or path is that long. The other patterns avoid nested quantifiers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from ..store.config import COMMIT_SLOTS
from ..store.regexcache import compile_pattern


@dataclass(frozen=True)
class Route:
    query_class: str
    w_bm25: float
    w_vec: float
    w_graph: float
    prefer: str  # "neutral" | "commits" | "code" | "edit" | "verbatim" | "fixes" | "auto"
    commit_slots: int
    pin: bool  # pin a symbol the query names exactly to rank 1
    named: tuple[str, ...] = ()  # identifiers the query names
    mixed: str | None = None  # the second class of a mixed question, blended into the weights
    paths: tuple[str, ...] = ()  # file paths or file names the query names

    @property
    def weights(self) -> dict[str, float]:
        return {"bm25": self.w_bm25, "vec": self.w_vec, "graph": self.w_graph}


# path weights (bm25, vec, graph), reranker preference, default commit slots
CLASSES: dict[str, tuple[float, float, float, str]] = {
    "behavioral": (1.2, 1.0, 0.3, "neutral"),
    "causal": (1.0, 1.0, 0.5, "commits"),
    "coupled": (0.8, 0.8, 2.5, "code"),
    "change": (1.0, 1.0, 0.8, "edit"),
    "exact": (2.0, 0.4, 0.2, "verbatim"),
    "symptom": (1.2, 1.0, 0.0, "fixes"),
    "general": (1.0, 1.0, 1.0, "auto"),
}
PRECEDENCE = ("coupled", "behavioral", "causal", "change", "symptom", "exact", "general")
# a second class scoring at least this share of the first makes the question mixed
MIXED_SHARE = 0.6
MIXED_WEIGHT = 0.35  # the second class's share of the blended path weights

_WHY = compile_pattern(
    r"\b(why|reason|reasons|purpose|rationale|explain|explains|motivation|motivated|"
    r"what made|what led|led us|led to|prompted)\b",
    re.I,
)
_HISTORY_CUE = compile_pattern(
    r"\b(was|were|did|changed|introduced|added|removed|reverted|revert|rolled back|"
    r"commit|commits|history|originally|fix|fixed|incident|regression|ago|used to|go from|"
    r"went from|move[sd]? from|switch(ed)? from|start(ed)?)\b",
    re.I,
)
# causal questions that do not say "why" ("how come ...", "what went wrong with ...", "the
# reasoning behind ...", "what would break if ..."), and the history words that come with them
_WHY_PHRASE = compile_pattern(
    r"\b(how come|(story|reasoning|thinking|idea|history|logic) behind|"
    r"(the|what'?s the) point (of|in)|what (went|goes|would go|could go|will go) wrong|"
    r"what (broke|would break|breaks)|backed out|"
    # the event or change behind the code, asked for by name
    r"(which|what) (incident|outage|bug|change|commit|fix|regression|report|event) "
    r"(made|led|brought|caused|prompted|forced|triggered|motivated)|"
    r"what happened\b[^?.]{0,80}\b(that|which) (led|made|caused|prompted|forced)|"
    r"what drove|reasoning for|what problem|(introduced|added|meant|designed) to solve|"
    r"deliberate (choice|decision)|on purpose)\b",
    re.I,
)
_HISTORY_PHRASE = compile_pattern(r"\b(backed out|went wrong|broke)\b", re.I)
_WHY_DOES = compile_pattern(
    r"\bwhy\s+(does|is|do|are|would|should|must|can't|cannot|doesn't|isn't)\b", re.I
)
# "which config file sets X", "which source files define X": a lookup by what a file does
_DOES = r"(?:sets?|defines?|declares?|holds?|contains?|controls?|configures?|handles?)\b"
_COUPLED = compile_pattern(
    r"\b(what else|which (other )?(files|code|modules|tests|manifests?|config|migrations?|"
    r"callers)(?!\s+files?\s+" + _DOES + r")|what other (files|code|modules|tests)|"
    r"(comes?|go|goes) along|"
    r"need (it|them|that|this) (too|as well)|"
    r"(hidden|implicit|indirect) dependenc(y|ies)|dependenc(y|ies) (of|on|between)|"
    r"depends? on(?=\W*$)|"
    r"(changed|edited|updated) the same way|"
    r"which [\w-]{1,30}( [\w-]{1,30}){0,3} (have|has|need|needs|must) to "
    r"(change|learn|follow|know|adapt|agree|match|move|be (changed|updated|edited))|"
    r"which \w+ (files|tests|code)(?!\s+" + _DOES + r")|in step|"
    r"change[sd]? (together|with (it|them))|"
    r"changes? along|along ?side|along with|together with|usually (change|changes|get|gets)|"
    r"co-?change[sd]?|coupled|depends? on (that|this|it)|"
    r"(touch|update|change) (as well|too)|what (needs|has) to change|other side|"
    r"same commits?|moved with|move with|tend to (change|be|land)|tends to (change|be|land)|"
    r"historically|"
    # what moves with a change in other words: files that follow it, travel or belong with it,
    # were committed or evolved with it, shared its commits
    r"(must|would|will|should|has to|have to|need to|needs to)( have to)? follow|follow along|"
    r"travel(s|led)? with|belongs? with|tied to (it|that|this)|lean(s)? on (it|that|this)|"
    r"evolved (with|alongside)|committed (with|alongside|together)|"
    r"shared (its |their |the same )?commits?|edited in the (same )?commit)\b",
    re.I,
)
_CHANGE_VERBS = (
    r"let|show|display|escape|handle|use|prevent|keep|stop|add|change|rename|tune|raise|lower|"
    r"increase|decrease|reduce|bump|remove|delete|drop|make|support|replace|switch|move|extract|"
    r"refactor|update|extend|implement|allow|introduce|enable|disable|set|limit|cap|expose|split|"
    r"merge|convert|migrate|give|return|have|put|mark|include|log|accept|reject|record|send|store|"
    r"cache|retry|skip|treat|count|cut|shorten|lengthen|require|validate|sort|emit|expire|"
    r"print|warn|fail|treat|quote|round|clear|reset|write|rewrite|generate|report|carry|forbid|"
    r"shrink|read|pass|parse|remember|pad|trim|strip|normali[sz]e|format|show|hide|block|ban|"
    r"permit|deny|enforce|guard|wrap|persist|save|load|fetch|check|verify|apply|honou?r|ignore|"
    r"tolerate|notify|attach|wire|hook|double|halve|widen|narrow|compute|calculate|translate|"
    r"purge|prune|archive|throttle|batch|queue|forward|propagate|default|rate-limit|paginate|"
    r"index|sign|encrypt|hash|mask|redact|truncate|dedupe|deduplicate|expand|collapse|group|"
    r"split|rewrite|localise|localize|schedule|debounce|bound|clamp|restrict|loosen|tighten"
)
_CHANGE = compile_pattern(
    r"^\W*(in [\w./-]+,? )?(please\s+)?(also\s+)?(" + _CHANGE_VERBS + r")\b", re.I
)
_CHANGE_ASK = compile_pattern(
    r"\b(i|we) (want|need|have|plan|would like|am going|are going) to\b|"
    r"\b(i'm|we're|i'd|we'd) (going|planning|like|about) to\b|"
    r"\bhow (do|can|should|would) (i|we)\b|\bwhere (do|should|would) (i|we)\b|"
    r"\b(i'm|i am|we're|we are) (adding|changing|editing|removing|renaming|making)\b|"
    r"^\W*(adding|changing|removing|renaming|making|letting|storing)\b",
    re.I,
)
_BEHAVIOR = compile_pattern(
    r"^\W*(in [\w./-]+,? )?(how|what|which|when|where|does|do|is|are|can|will|who)\b", re.I
)
_BEHAVIOR_STRONG = compile_pattern(
    r"^\W*(in [\w./-]+,? )?(how (does|do|is|are|much|many|long|often)|"
    r"what (does|do|happens|is done|number)|what \w+ does|what \w+ \w+ does|which \w+ does|"
    r"which \w+ \w+ does|what is \w+ for|when does|where does)\b",
    re.I,
)
# a question whose main clause follows a leading condition ("If the gateway replies 429, will
# ...", "With two codes in the basket, which ..."): the clause after the comma is what it asks
_BEHAVIOR_AFTER_CLAUSE = compile_pattern(
    r"^\W*(if|with|when|once|after|given)\b[^,?]{0,200},\s*"
    r"(how|what|which|when|where|does|do|is|are|can|will|would|who)\b",
    re.I,
)
HEX_WORD = compile_pattern(r"\b[0-9a-f]{7,40}\b")  # a commit hash, abbreviated or whole
_CODE_TOKEN = compile_pattern(
    r"\b(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|E\d{3,5}|[A-Z][A-Z0-9]{1,9}-\d+|[A-Z][A-Za-z0-9]*(?:Error|Exception))\b|#\d+\b"
)
_QUOTED = compile_pattern(r"[\"'`][^\"'`]{2,}[\"'`]")
_PATH = compile_pattern(
    r"\b[\w.-]+/[\w./-]+\b|\b\w+\.(?:py|ts|tsx|js|go|rs|java|sql|ya?ml|html|conf)\b"
)
_SYMPTOM = compile_pattern(
    r"\b(twice|double[- ]?(charged|billed|counted)|duplicate[sd]?|silently|dropped|drops|lost|"
    r"stale|outdated|kept|keeps|stopped|stops|ended up|never|hangs?|hung|freez\w*|crash\w*|"
    r"sometimes|intermittent\w*|randomly|after (a|the|an)|customers?|users? (report|see|get)|"
    r"wrong|missing|broke|broken|fails? to|timed? ?out|logged out|empty|blank|slow(er)?|"
    r"shoppers?|somebody|someone|people|complain\w*|reports?|reported|refused|rejected|"
    r"told|received?|got|saw|only (got|saw)|off by|instead of the|generic error)\b",
    re.I,
)
_PAST = compile_pattern(
    r"\b(\w{3,}ed|took|got|saw|ran|sent|went|came|gave|lost|broke|paid|hit|left|found|told|"
    r"said|began|became|did|made|showed|shown|fell|kept|spent|stood|won|wrote|thought|"
    r"bought|brought|chose|drew|grew|knew|rose|sold|stuck|swung|threw|woke|squeezed)\b",
    re.I,
)
_PAST_NARRATIVE = compile_pattern(
    r"\b\w{3,}ed\b.*\b(and|but|then|after|when|although|though|because|while|since)\b", re.I
)
_WORD = compile_pattern(r"[A-Za-z0-9_]+")
# a question asked without its question mark ("where is the request timeout implemented"): it
# opens with a word that opens only questions ("when" and "if" also open a report's clause:
# "when I pay twice, ...")
_ASKS = compile_pattern(
    r"^\W*(how|what|which|where|who|does|is|are|can|could|would|should|will)\b", re.I
)

MAX_ROUTE_CHARS = 2000  # a question; anything longer is classified by its beginning
MAX_WORD_CHARS = 128  # the longest run of identifier characters read for identifiers
# the characters `_IDENT` can consume: a match never crosses a character outside these
_IDENT_WORD = compile_pattern(r"[\w.`]+")
_PATH_WORD = compile_pattern(r"[\w./-]+")  # the same for `_PATH`

# identifiers: snake_case, camelCase / PascalCase with an inner capital, dotted, or followed by ()
_IDENT = compile_pattern(
    r"`?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|"
    r"_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Za-z_]\w*(?=\())`?"
)
_FILE_SUFFIXES = (".py", ".ts", ".tsx", ".js", ".go", ".rs", ".java")


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


@lru_cache(maxsize=256)  # classify, scores and is_exact each ask for the same query
def named_identifiers(query: str) -> tuple[str, ...]:
    """Identifier-looking tokens of the query (generic words never match)."""
    seen: list[str] = []
    for m in per_word(_IDENT, _IDENT_WORD, route_text(query)):
        token = m.group(1)
        if _CODE_TOKEN.fullmatch(token) or "/" in token:
            continue
        if token.lower().endswith(_FILE_SUFFIXES):
            continue
        if _PATH.fullmatch(token):
            continue
        if token not in seen:
            seen.append(token)
    return tuple(seen)


# the noun phrase a co-change question asks for: "which other web files", "which migration, test
# and checkout files", "what server-side auth modules"
_ASKED_FOR = compile_pattern(
    r"\b(?:which|what)\s+((?:[\w-]+,?\s+){0,6}?)(?:files?|modules?|code|have|has|had|"
    r"tend|tends|are|were|is|was|must|need|needs|would|will|should|get|gets|else|parts?)\b",
    re.I,
)
_AREA_SEP = compile_pattern(r"[\s,]+")
_NOT_AREAS = frozenset(("other", "others", "and", "the", "its", "their", "which", "what", "any",
                        "some", "more", "all", "one", "two", "also", "side", "server-side",
                        "app-side", "client-side"))  # fmt: skip


def asked_areas(query: str) -> tuple[str, ...]:
    """The words of the part of the repository a co-change question asks about ("web" in
    "which other web files ..."), lower case, three letters or more."""
    out: list[str] = []
    for m in _ASKED_FOR.finditer(route_text(query)):
        for word in _AREA_SEP.split(m.group(1).lower()):
            word = word.strip("-")
            if len(word) >= 3 and word not in _NOT_AREAS and word not in out:
                out.append(word)
    return tuple(out)


def named_paths(query: str) -> tuple[str, ...]:
    """Paths and file names the query spells out."""
    found = per_word(_PATH, _PATH_WORD, route_text(query))
    return tuple(dict.fromkeys(m.group(0).rstrip(".") for m in found))


@lru_cache(maxsize=256)  # the search's route and its warnings ask for the same query
def is_exact(query: str) -> bool:
    """A lookup: the query is a code token, identifier, path, SHA or quote with at most a couple
    of words around it."""
    query = route_text(query)
    paths = [m.span() for m in per_word(_PATH, _PATH_WORD, query)]
    looks = bool(
        _CODE_TOKEN.search(query)
        or HEX_WORD.search(query)
        or _QUOTED.search(query)
        or paths
        or named_identifiers(query)
    )
    if not looks:
        return False
    rest = query
    for start, end in reversed(paths):
        rest = rest[:start] + " " + rest[end:]
    for pattern in (_QUOTED, _CODE_TOKEN, HEX_WORD):
        rest = pattern.sub(" ", rest)
    words = [w for w in _WORD.findall(rest) if not _IDENT.fullmatch(w)]
    return len(words) <= 2


def scores(query: str, *, why_phrases: bool = True) -> dict[str, float]:
    """Each class's cue score for `query` (0 when nothing points at it). `why_phrases` reads
    the causal questions that do not say "why" (`_WHY_PHRASE`) as causal."""
    out = dict.fromkeys(CLASSES, 0.0)
    named = named_identifiers(query)
    question = query.rstrip().endswith("?") or bool(_ASKS.match(query))
    if is_exact(query):
        # a lookup, unless its few words ask something ("rename X to Y", "how does X")
        out["exact"] = 2.1
    history = bool(_HISTORY_CUE.search(query)) or (
        why_phrases and bool(_HISTORY_PHRASE.search(query))
    )
    if _WHY_DOES.search(query) and named and not history:
        out["behavioral"] = 2.5
        out["causal"] = 1.2
    elif _WHY.search(query) or (why_phrases and _WHY_PHRASE.search(query)):
        out["causal"] = 2.5
    if history_end(query) is not None:
        out["causal"] = max(out["causal"], 2.5)  # a commit is the answer
    if _COUPLED.search(query):
        out["coupled"] = 3.0
    if _CHANGE.search(query):
        out["change"] = max(out["change"], 2.6)
    elif _CHANGE_ASK.search(query):
        out["change"] = max(out["change"], 2.0)
    if _BEHAVIOR_STRONG.search(query):
        out["behavioral"] = max(out["behavioral"], 2.2)
    elif _BEHAVIOR.search(query) or (question and _BEHAVIOR_AFTER_CLAUSE.search(query)):
        out["behavioral"] = max(out["behavioral"], 1.5)
    symptom = 0.0
    if not question and not out["change"] and not out["causal"]:
        if _PAST_NARRATIVE.search(query):
            symptom += 1.5
        elif _PAST.search(query):
            symptom += 1.0
        if _SYMPTOM.search(query):
            symptom += 1.0
    elif _SYMPTOM.search(query) and _PAST.search(query):
        symptom += 0.8
    out["symptom"] = symptom
    if _CODE_TOKEN.search(query) or HEX_WORD.search(query) or _QUOTED.search(query):
        out["exact"] = max(out["exact"], 0.5)
    return out


# A question for one end of a thing's history: the commit that introduced it ("which commit
# introduced X", "when was X added", "who wrote X", "where did X come from") or the one that
# changed it last ("who last changed X", "when was X last modified", "the latest change to X").
# `what` is the thing asked about, as the question words it; "which commit added the retry to
# charge_with_retry" asks for a change inside X, not for X's first commit (`history_end`).
_OBJECT = r"(?P<what>[^?!,;:]{1,80}?)(?=\s*(?:[?!,;:]|\.(?:\s|$)|$))"
_INTRODUCE = r"(?:introduced|added|created|wrote|written|write|introduce|add|create)"
_CHANGED = r"(?:changed|modified|touched|edited|updated|change|modify|touch|edit|update)"
_FIRST = (
    compile_pattern(
        rf"\b(?:which|what) (?:commit|change|pr|pull request|patch)s? (?:first )?{_INTRODUCE} "
        + _OBJECT,
        re.I,
    ),
    compile_pattern(
        r"\bwhen (?:was|were|did) (?P<what>[^?!,;:]{1,80}?) (?:first )?"
        r"(?:introduced|added|created|written|appear(?:ed)?|introduce|add|create|come in)"
        r"(?=\s*(?:[?!,;:]|\.(?:\s|$)|$))",
        re.I,
    ),
    compile_pattern(rf"\bwho (?:first )?{_INTRODUCE} " + _OBJECT, re.I),
    compile_pattern(r"\bwhere did (?P<what>[^?!,;:]{1,80}?) come from\b", re.I),
    compile_pattern(
        r"\b(?:first|initial|original) (?:commit|version|implementation) of " + _OBJECT, re.I
    ),
)
_LAST = (
    compile_pattern(
        rf"\b(?:who|(?:which|what) (?:commit|change|pr|pull request|patch)) "
        rf"(?:last|most recently) {_CHANGED} " + _OBJECT,
        re.I,
    ),
    compile_pattern(
        rf"\bwhen (?:was|were|did) (?P<what>[^?!,;:]{{1,80}}?) (?:last|most recently) {_CHANGED}"
        r"(?=\s*(?:[?!,;:]|\.(?:\s|$)|$))",
        re.I,
    ),
    compile_pattern(
        r"\b(?:last|latest|most recent|newest) (?:change|commit|edit|modification|update) "
        r"(?:to|of|on|for|that touched) " + _OBJECT,
        re.I,
    ),
)
# the newest commits of a thing ("recent changes to X", "what changed in X", "the history of
# X"), of one intent when the question names it ("what bugs were fixed in X", "what was
# reverted in X")
_RECENT = (
    compile_pattern(
        r"\b(?:recent|latest|last|newest|most recent) (?:changes|commits|edits|modifications|"
        r"updates) (?:to|of|on|in|for|that touched) " + _OBJECT,
        re.I,
    ),
    compile_pattern(
        r"\bwhat (?:has |have )?changed (?:recently |lately )?(?:in|to|on|about) " + _OBJECT, re.I
    ),
    compile_pattern(r"\b(?:the )?(?:change |commit |git )?history of " + _OBJECT, re.I),
)
_FIXES = (
    compile_pattern(
        r"\b(?:what|which) (?:bugs?|fix(?:es)?|bug ?fixes|regressions?) (?:were |have been |"
        r"got |was |has been )?(?:fixed |made |found )?(?:in|to|for|on|inside) " + _OBJECT,
        re.I,
    ),
    compile_pattern(r"\b(?:bug ?fixes|fixes) (?:in|to|for|of|on) " + _OBJECT, re.I),
)
_REVERTS = (
    compile_pattern(
        r"\b(?:what|which \w+) (?:was|were|got|has been|have been) reverted (?:in|on|from) "
        + _OBJECT,
        re.I,
    ),
    compile_pattern(r"\breverts? (?:in|of|to|on) " + _OBJECT, re.I),
)
RECENT_COUNT = 3  # the newest commits a question for a thing's recent history is answered with
# words that make `what` a part of the thing rather than the thing ("the retry to X"); a word
# of a name (`with-page.ts`) is not one
_INSIDE = frozenset(
    ("to", "into", "in", "inside", "for", "on", "from", "within", "with", "of", "by")
)


class HistoryEnd(NamedTuple):
    end: str  # "first": the commit that introduced it; "last": the newest commits
    what: str  # the thing asked about, as the question words it
    whole: bool  # `what` names a thing, not a part of one ("the retry in charge_with_retry")
    limit: int = 1  # how many commits answer it: the first, the last, or the recent ones
    intent: str | None = None  # only commits of this intent ("what bugs were fixed in X")


_HISTORY_ASKS = (
    ("first", 1, None, _FIRST),
    ("last", 1, None, _LAST),
    ("last", RECENT_COUNT, "bugfix", _FIXES),
    ("last", RECENT_COUNT, "revert", _REVERTS),
    ("last", RECENT_COUNT, None, _RECENT),
)


@lru_cache(maxsize=256)
def history_end(query: str) -> HistoryEnd | None:
    """Which end of something's history `query` asks for, if it asks for the commit that
    introduced something, the one that changed it last, or its newest commits (of an intent)."""
    text = route_text(query)
    for end, limit, intent, patterns in _HISTORY_ASKS:
        for pattern in patterns:
            m = pattern.search(text)
            if m is not None:
                what = m.group("what").strip()
                whole = _INSIDE.isdisjoint(what.lower().split())
                return HistoryEnd(end, what, whole, limit, intent)
    return None


# a word the question calls a function, method, class ... ("the echo function", "class Foo")
_KIND_WORDS = (
    r"functions?|methods?|class(?:es)?|structs?|interfaces?|types?|traits?|enums?|constants?|"
    r"hooks?|components?|macros?|decorators?|properties|property|fields?|variables?"
)
# a name with its qualifiers, as code writes it (`Ky.#parseJson`, `$store.get`)
_NAME = r"[A-Za-z_$#][\w.#$]*"
_CALLED = compile_pattern(
    rf"(?<![\w.#$`])`?({_NAME})`?(?:\(\))? (?:{_KIND_WORDS})\b|\b(?:{_KIND_WORDS}) `?({_NAME})",
    re.I,
)
_ONE_NAME = compile_pattern(_NAME)
# a name in backticks, as people write code in prose ("when I change `redirect`")
_TICKED = compile_pattern(rf"(?<![\w`])`({_NAME})`(?![\w`])")
_ARTICLE = compile_pattern(r"^(?:the|a|an|this|that)\s+", re.I)


# words that never name the thing: pronouns and what `_CALLED` could read as a name
STOP_NAMES = frozenset(("it", "this", "that", "these", "those", "they", "them", "the", "a", "an",
                        "which", "what", "new", "old", "first", "last"))  # fmt: skip


def thing_names(what: str) -> tuple[str, ...]:
    """The names a phrase like `HistoryEnd.what` gives its thing: identifiers, words it calls a
    function, class ... ("the echo function"), names in backticks, or the phrase itself when
    it is one word."""
    names = list(named_identifiers(what))
    called = [(m.group(1) or m.group(2)) for m in _CALLED.finditer(what)]
    for word in (*called, *_TICKED.findall(what)):
        word = word.rstrip(".")
        if word.lower() not in STOP_NAMES and word not in names:
            names.append(word)
    bare = _ARTICLE.sub("", what.strip()).strip("`").removesuffix("()").rstrip(".")
    if bare and _ONE_NAME.fullmatch(bare) and bare.lower() not in STOP_NAMES and bare not in names:
        names.append(bare)
    return tuple(names)


# a question about something that went: where it is or went, why or when it was removed
_GONE_ASK = compile_pattern(
    r"\b(?:remov(?:e|ed|ing|al)|delet(?:e|ed|ing|ion)|drop(?:ped|ping)?|gone|go|went|"
    r"disappear(?:ed|s)?|happened to|renam(?:e|ed|ing)|mov(?:e|ed|ing)|where (?:is|are|did)|"
    r"no longer|still (?:exist|there|around)|exists?)\b",
    re.I,
)


def asks_where_it_went(query: str) -> bool:
    """Whether `query` asks where something is or went, or why or when it was removed: a
    question a name that history had and HEAD lacks is answered by the commit that took it."""
    return bool(_GONE_ASK.search(route_text(query)))


# a question about a change other than a removal: "why was X updated", "who fixed X"
_OTHER_CHANGE_ASK = compile_pattern(
    r"\b(?:updat(?:e|es|ed|ing)|chang(?:e|es|ed|ing)|fix(?:es|ed|ing)?|modif(?:y|ies|ied|ying)"
    r"|edit(?:s|ed|ing)?|add(?:s|ed|ing)?|bump(?:s|ed|ing)?|introduc(?:e|es|ed|ing)"
    r"|creat(?:e|es|ed|ing)|convert(?:s|ed|ing)?|refactor(?:s|ed|ing)?|rewr(?:ite|ites|ote|itten))\b",
    re.I,
)


def asks_about_removal(query: str) -> bool:
    """Whether a question naming something history had and HEAD lacks is about its going: it
    asks where it went (`asks_where_it_went`), or it asks about no other change of it ("what
    about lib/view.js", not "why was lib/view.js updated")."""
    return asks_where_it_went(query) or not _OTHER_CHANGE_ASK.search(route_text(query))


# a question about undoing a change: "why was X reverted", "why did we roll back X", "what
# backed out the cache"
_REVERT_ASK = compile_pattern(
    r"\b(?:revert(?:s|ed|ing)?|roll(?:s|ed|ing)?[\s-]+back|rollback|back(?:s|ed|ing)?\s+out"
    r"|undo(?:ne|ing)?|undid)\b",
    re.I,
)


def asks_about_revert(query: str) -> bool:
    """Whether `query` asks about a change being undone: its answer is the revert commit,
    whose message says why, more than the change it undid."""
    return bool(_REVERT_ASK.search(route_text(query)))


# a question for the tests of something: "which tests cover X", "what tests should I run after
# changing X", "where are the specs for X", "list the unit tests of X", "tests for X?", "where
# is X tested" (a bare "test" is often the verb: "what does X test for")
_TESTS_ASK = compile_pattern(
    r"\b(?:which|what|where|find|list|show|name)\b(?:[\s,]+[\w'./-]+){0,4}?[\s,]+"
    r"(?:(?:unit|integration|e2e|end-to-end|regression|failing|related)\s+)?"
    r"(?:tests|specs|test\s+(?:files?|cases?|functions?|modules?)"
    r"|test\s+(?=(?:covers|exercises|checks|hits|calls|touches|fails|breaks)\b))\b"
    r"|^\W*(?:the\s+)?(?:unit\s+)?(?:tests|specs)\s+(?:for|of|that|which|covering)\b"
    r"|\b(?:where|how)\s+(?:is|are|was|were)\s[^?!\n]{1,80}?\btested\b",
    re.I,
)


# what asks for more than tests: another kind of file beside them ("which migrations and tests",
# "which tests and callers", "which endpoint, migration and test files")
_ALONGSIDE = compile_pattern(r"\b(?:and|or)\b|[,&/]")
_MORE_AFTER = compile_pattern(r"\s*(?:,|&|/|(?:and|or)\s+(?!(?:which|that|what|where|how)\b))")


def asks_for_tests(query: str) -> bool:
    """Whether `query` asks which tests (test files, specs, test functions) there are for
    something, and nothing else: its answer is test code alone. A question for tests and
    another kind of file beside them is a co-change question (`asked_areas`)."""
    text = route_text(query)
    m = _TESTS_ASK.search(text)
    if m is None:
        return False
    return not (_ALONGSIDE.search(m.group()) or _MORE_AFTER.match(text, m.end()))


# a question for the code that calls something, and the thing ("what calls X", "which functions
# call X", "who uses X", "callers of X", "where is X called", "which files import F") or for what
# it calls ("what does X call", "which functions does X use", "what does F import", "callees of
# X"); the thing's words are group 1
_WHO = (
    r"\b(?:what|who|which)"
    r"(?:\s+(?:functions?|methods?|code|places?|symbols?|files?|modules?|packages?|else|other))?"
)
_THING = r"([^?!\n]{1,80}?)"
_LINK_ASKS = tuple(
    (kind, compile_pattern(pattern, re.I))
    for kind, pattern in (
        ("calls", r"\b(?:what|which)(?:\s+(?:functions?|methods?|code|symbols?|helpers?|files?"
         r"|modules?|packages?))?"
         rf"\s+(?:does|do)\s+{_THING}\s+(?:call|invoke|use|import|require|depend\s+on)"
         r"\s*(?:\?|$)"),
        ("calls", rf"\bwhat\s+calls\s+(?:does|do)\s+{_THING}\s+make\b"),
        ("calls", rf"\bcallees\s+(?:of|for)\s+{_THING}\s*(?:\?|$)"),
        ("called_by", rf"{_WHO}\s+(?:calls?|invokes?|uses?|references?|imports?|requires?"
         rf"|depends?\s+on)\s+{_THING}\s*(?:\?|$)"),
        ("called_by", r"\b(?:callers?|usages?|call\s*sites?|call\s*points?|users)\s+(?:of|for|to)"
         rf"\s+{_THING}\s*(?:\?|$)"),
        ("called_by", rf"\bwhere\s+(?:is|are|does|do)\s+{_THING}\s+(?:(?:being|get|gets)\s+)?"
         r"(?:called|used|invoked|referenced|imported|required)\b"),
    )
)  # fmt: skip


def asks_for_links(query: str) -> tuple[str, str] | None:
    """What a question asks about a function's code links: (`symbol_links.kind`, the words
    naming the function), "called_by" for its callers ("what calls X", "where is X used"),
    "calls" for what it calls ("what does X call"); None for any other question (a question
    for tests is one, `asks_for_tests`)."""
    text = route_text(query)
    for kind, pattern in _LINK_ASKS:
        m = pattern.search(text)
        if m is not None:
            if kind == "called_by" and asks_for_tests(text):
                return None
            return kind, m.group(1).strip()
    return None


def states_change(query: str) -> bool:
    """Whether `query` says what it intends to do ("raise the grace period to 90 s", "adding a
    field to X: what else changes?"): a change request, alone or as the mixed second class,
    rather than a lookup or a what / why / how question about the code as it is."""
    return "change" in _pick(route_text(query), why_phrases=False)


@lru_cache(maxsize=256)  # the search's route and its warnings (`states_change`) ask for the same
def _pick(query: str, *, why_phrases: bool = True) -> tuple[str, str | None]:
    sc = scores(query, why_phrases=why_phrases)
    order = sorted(PRECEDENCE, key=lambda c: (-sc[c], PRECEDENCE.index(c)))
    first = order[0]
    if sc[first] <= 0:
        return "general", None
    second = order[1]
    if sc[second] > 0 and sc[second] >= MIXED_SHARE * sc[first]:
        return first, second
    return first, None


# a text of this many words of prose or more is a sentence: when no cue pattern reads it, the
# learned reader may; a shorter one without a cue is a bag of keywords and stays `general`
SENTENCE_WORDS = 6
# words of prose: letters, not a piece of a name, a path, a version or a package spec
_PROSE_WORD = compile_pattern(r"(?<![\w.@/~-])[A-Za-z][a-z']+(?![\w.@/~-])")
# the reader's class is taken only when it gives it this probability or more; below it, the
# question stays `general`, whose plain-list fusion was chosen on real histories
READ_PROBABILITY = 0.7


def _read(
    query: str, reader: Callable[[str, bool], Sequence[tuple[str, float]]] | None = None
) -> tuple[str, str | None]:
    """The class of `query` and its mixed second class: the cue patterns' pick, or, for a
    sentence none of them reads, the class the learned reader (`router_model.read`, or another
    model's `reader`) is sure of. The reader and its weights load on the first such sentence."""
    cls, mixed = _pick(query)
    if cls == "general" and len(_PROSE_WORD.findall(query)) >= SENTENCE_WORDS:
        if reader is None:
            from .router_model import read

            reader = read
        first, p = reader(query, is_exact(query))[0]
        if p >= READ_PROBABILITY:
            return first, None
    return cls, mixed


def classify(
    query: str, commit_slots: dict[str, int] | None = None, *, adaptive: bool = True
) -> Route:
    query = route_text(query)
    named = named_identifiers(query)
    if adaptive:
        cls, mixed = _read(query)
    else:
        cls, mixed = "general", None
    w_bm25, w_vec, w_graph, prefer = CLASSES[cls]
    if mixed is not None:
        m_bm25, m_vec, m_graph, _ = CLASSES[mixed]
        keep = 1.0 - MIXED_WEIGHT
        w_bm25 = keep * w_bm25 + MIXED_WEIGHT * m_bm25
        w_vec = keep * w_vec + MIXED_WEIGHT * m_vec
        w_graph = keep * w_graph + MIXED_WEIGHT * m_graph
    if cls == "behavioral" and not named:
        # nothing to pin: what the code does today is answered by code before its history
        prefer = "code"
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
        mixed=mixed,
        paths=named_paths(query),
    )
