"""The interaction reranker: a deterministic cross-scorer over (query, document) pairs.

For the top N of the fusion it combines features no single retrieval path sees at once:

    s = w_rrf * rrf_norm + w_cov * idf_coverage + w_title * title_coverage + w_bigram * bigrams
        + w_verbatim * verbatim_hits + w_cos * int8_cosine + w_intent * intent_agreement
        + w_graph * graph_activation_norm

`idf_coverage` = sum of idf over query terms present in the document / sum of idf over all query
terms; `bigrams` = share of adjacent query term pairs found adjacent in the document;
`verbatim_hits` = share of the query's code tokens (error codes, ticket ids, identifiers) found
character for character; `intent_agreement` follows the router's preference (commits for causal
questions, bugfix commits for symptoms, code for change requests). When code is preferred, a
file's own chunk (titled by its path) keeps `PATH_TITLE_SHARE` of its title coverage. Weights live
in `WEIGHTS` and were set on the dev split only; the search scales `w_graph` by how much the
route trusts the graph path (`serve/search.py::rerank_weights`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..store.vocabulary import LOAD_BEARING
from .router import per_word

WEIGHTS = {
    "rrf": 1.0,
    "cov": 0.8,
    "title": 0.5,
    "bigram": 0.3,
    "verbatim": 0.6,
    "cos": 0.4,
    "intent": 0.35,
    "graph": 0.2,
}

# the share of title coverage kept, for code answers, by a document titled by its file's path
PATH_TITLE_SHARE = 0.5
# intent agreement, for code answers, of a test's code (the search leaves co-change questions'
# tests at full agreement: a file's tests are among its partners)
CODE_TEST_SHARE = 0.0
# intent agreement, for a change request, of a load-bearing commit (a fix or a revert)
EDIT_FIX_SHARE = 1.0

_VERBATIM = re.compile(
    r"[A-Z][A-Z0-9]*_[A-Z0-9_]+|\bE\d{3,5}\b|\b[A-Z][A-Z0-9]{1,9}-\d+\b|#\d+\b|"
    r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b"
)


# the characters a `_VERBATIM` token is made of: it is matched one such word at a time
_VERBATIM_WORD = re.compile(r"[\w#-]+")


def verbatim_tokens(query: str) -> list[str]:
    # word by word, as the router reads identifiers: the first alternative has no anchor, so on
    # one long word it would be tried from every position (the square of the word's length)
    found = (m.group(0) for m in per_word(_VERBATIM, _VERBATIM_WORD, query))
    return list(dict.fromkeys(found))


@dataclass
class Candidate:
    row: int
    rrf: float
    cos: float | None
    graph: float
    kind: str
    intent: str | None
    rerank: float = 0.0
    test: bool = False  # a test's code: where a change is checked, not where it goes


def intent_agreement(prefer: str, kind: str, intent: str | None, test: bool = False) -> float:
    """How well a candidate's kind agrees with what the route prefers, in [0, 1]. Code answers
    ("code", and "edit" for a change request) are product code: a test's code gets
    `CODE_TEST_SHARE`. A change request also credits the fix or revert that once changed the
    place (`EDIT_FIX_SHARE`): what the edit must not undo."""
    if prefer == "commits":
        return 1.0 if kind in ("commit", "failure") else 0.0
    if prefer == "fixes":
        if kind == "commit":
            return 1.0 if intent in LOAD_BEARING else 0.3
        return 0.2 if kind == "symbol" else 0.0
    if prefer in ("code", "edit"):
        if kind == "symbol":
            return CODE_TEST_SHARE if test else 1.0
        if prefer == "edit" and kind == "commit" and intent in LOAD_BEARING:
            return EDIT_FIX_SHARE
        return 0.0
    return 0.0


def rerank(
    candidates: Sequence[Candidate],
    query: str,
    query_terms: Sequence[str],
    idf: Callable[[str], float],
    doc_terms: Callable[[int], tuple[str, str]],
    doc_text: Callable[[int], str],
    prefer: str,
    weights: dict[str, float] | None = None,
) -> list[Candidate]:
    """Score `candidates` in place and return them best first (ties by row). `doc_terms(row)`
    gives a document's terms and its title's, each joined by single spaces between spaces
    (`serve/docs.py::DocTable.terms`): a term is looked up as `" term "`, a bigram as
    `" a b "`, so a document costs a few substring tests, not a set of all its terms."""
    w = weights or WEIGHTS
    terms = list(dict.fromkeys(query_terms))
    idfs = [max(0.0, idf(t)) for t in terms]
    total_idf = sum(idfs) or 1.0
    spaced = [f" {t} " for t in terms]
    bigrams = [f" {a} {b} " for a, b in zip(terms, terms[1:], strict=False)]
    verbatim = verbatim_tokens(query)
    top_rrf = max((c.rrf for c in candidates), default=0.0) or 1.0
    top_graph = max((c.graph for c in candidates), default=0.0) or 1.0
    for c in candidates:
        seq, title = doc_terms(c.row)
        cov = sum(i for t, i in zip(spaced, idfs, strict=True) if t in seq) / total_idf
        tcov = sum(i for t, i in zip(spaced, idfs, strict=True) if t in title) / total_idf
        if prefer in ("code", "edit") and "/" in title:
            # a file's own chunk is titled by its path: a request's place words ("the mobile
            # order screen") name that file, while the edit goes into one of its functions
            tcov *= PATH_TITLE_SHARE
        if bigrams:
            big = sum(1 for b in bigrams if b in seq) / len(bigrams)
        else:
            big = 0.0
        if verbatim:
            text = doc_text(c.row)
            verb = sum(1 for v in verbatim if v in text) / len(verbatim)
        else:
            verb = 0.0
        c.rerank = (
            w["rrf"] * c.rrf / top_rrf
            + w["cov"] * cov
            + w["title"] * tcov
            + w["bigram"] * big
            + w["verbatim"] * verb
            + w["cos"] * max(0.0, c.cos or 0.0)
            + w["intent"] * intent_agreement(prefer, c.kind, c.intent, c.test)
            + w["graph"] * c.graph / top_graph
        )
    return sorted(candidates, key=lambda c: (-c.rerank, c.row))
