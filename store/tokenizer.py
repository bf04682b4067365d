"""The code-aware tokenizer shared by indexing and querying.

Documents and queries must be cut into terms by exactly this function (the full-text index stores
what it returns, the embedder hashes what it returns), so it lives in `store/` as part of the
artifact contract. Changing what it emits changes the index format: bump `TOKENIZER_VERSION`.

Rules, applied in one regex pass over the text:

- Every term is lowercased: queries are typed in any case, and code rarely relies on case alone.
- An identifier is kept whole *and* split into its parts on `_`, camelCase and letter/digit
  boundaries: `charge_with_retry` -> `charge_with_retry charge with retry`;
  `TTLCache` -> `ttlcache ttl cache`. Parts shorter than two characters are dropped.
- A dotted name is kept whole, then each component as an identifier:
  `TTLCache.set` -> `ttlcache.set ttlcache ttl cache set`. File names work the same way
  (`charge.py` -> `charge.py charge py`).
- A path (anything with `/` between word characters) is kept whole, then each segment as above:
  `src/pay/charge.py` -> `src/pay/charge.py src pay charge.py charge py`.
- A version (`3.5.1`, `v2.0`: three numbers or more, or two after a `v`) is one term, without
  its `v`: its digits alone would be dropped as too short, and "bump sphinx from 3.4.3 to
  3.5.1" is told from "bump sphinx from 3.3.1 to 3.4.1" by them. Two numbers alone (`0.5`) are
  more often a decimal number of code than a version, and stay out.
- Ticket ids (`INC-2407`, `#123`) and hex hashes (7 to 64 lowercase hex digits mixing letters and digits)
  are kept verbatim; a ticket also yields its parts (`inc-2407 inc 2407`).
- Error codes and exception names are identifiers, so they are kept whole as well
  (`ERR_PAYMENT_DUPLICATE` -> `err_payment_duplicate err payment duplicate`).
- English stopwords are dropped only when they stand alone as prose words; inside an identifier
  every part is kept (`with` in `charge_with_retry`).

Invariant: `tokenize` is deterministic and depends only on its input text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .regexcache import compile_pattern

TOKENIZER_VERSION = 2

MIN_LEN = 2
MAX_LEN = 128

# fmt: off
STOPWORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "been", "being", "but", "by", "can", "could",
    "did", "do", "does", "doing", "for", "from", "had", "has", "have", "having", "he", "her",
    "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
    "just", "me", "more", "most", "my", "no", "nor", "not", "of", "off", "on", "once", "only",
    "or", "other", "our", "ours", "out", "over", "own", "same", "she", "should", "so", "some",
    "such", "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they",
    "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we",
    "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "would",
    "you", "your", "yours", "also", "via", "about",
))
# fmt: on

# Alternatives are tried in order at each position; earlier ones are the more specific shapes.
# A version is read by `dotted`'s first two branches, which cost less time on code than a group
# of its own.
_TOKENS = r"""
    (?P<path>[\w.-]*(?:/[\w.-]+)+)
  | (?P<ticket>\#\d+|\b[A-Za-z][A-Za-z0-9]*-\d+\b)
  | (?P<hex>\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b)
  | (?P<dotted>\d+(?:\.\d+){2,}(?!\w)|[vV]\d+(?:\.\d+)+(?!\w)|[^\W\d]\w*(?:\.[^\W\d]\w*)+)
  | (?P<ident>\w+)
    """
_TOKEN_RE = compile_pattern(_TOKENS, re.VERBOSE)
# The same without paths, for a run of text with no `/`: there `path` cannot match, but trying
# it scans to the run's end from every token, which costs the square of a long run's length
# (`a-a-a-...`). No token consumes a character outside a run of `[\w./#-]`, so matching
# stretch by stretch (each with the character after it in view, for `\b`) finds exactly the
# tokens of the whole text.
_NO_PATH_RE = compile_pattern(
    _TOKENS.replace("(?P<path>[\\w.-]*(?:/[\\w.-]+)+)\n  | ", ""), re.VERBOSE
)
_RUN_CHAR = compile_pattern(r"[\w./#-]")  # a character of a run
_RUN_FROM = compile_pattern(r"[\w./#-]*")  # the rest of a run from a position in it

# Parts of an ASCII identifier: an acronym before a capitalised word, a (capitalised) lowercase
# run, an upper-case run, a digit run. Underscores separate. `_split_unicode` is the same rule
# written with str predicates for the rare non-ASCII identifier.
_PART_RE = compile_pattern(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

_SEGMENT_RE = compile_pattern(r"[^\W\d]\w*(?:\.[^\W\d]\w*)+|\w+")


def split_identifier(ident: str) -> list[str]:
    """The parts of an identifier in order, case preserved, underscores removed.

    `"".join(split_identifier(s)) == s.replace("_", "")` for every identifier `s`.
    """
    if ident.isascii():
        return _PART_RE.findall(ident)
    return _split_unicode(ident)


def _cls(c: str) -> str:
    if c == "_":
        return "_"
    if c.isdecimal():
        return "D"
    if c.isupper():
        return "U"
    if c.islower():
        return "L"
    return "O"  # letters without case (CJK, ...), marks, other digits


def _split_unicode(ident: str) -> list[str]:
    cls = [_cls(c) for c in ident]
    n = len(ident)
    parts: list[str] = []
    i = 0
    while i < n:
        c = cls[i]
        j = i + 1
        if c == "_":
            i = j
            continue
        if c == "U":
            while j < n and cls[j] == "U":
                j += 1
            if j < n and cls[j] == "L":
                if j - i > 1:
                    parts.append(ident[i : j - 1])
                i = j - 1
                j += 1
                while j < n and cls[j] == "L":
                    j += 1
        else:
            while j < n and cls[j] == c:
                j += 1
        parts.append(ident[i:j])
        i = j
    return parts


def _ident_terms(ident: str, prose: bool) -> tuple[str, ...]:
    whole = ident.lower()
    parts = split_identifier(ident)
    if len(parts) <= 1 and "_" not in ident:
        # a plain word: prose stopwords are dropped here and only here
        if (prose and whole in STOPWORDS) or not MIN_LEN <= len(whole) <= MAX_LEN:
            return ()
        return (whole,)
    out = [whole] if MIN_LEN <= len(whole) <= MAX_LEN else []
    for part in parts:
        low = part.lower()
        if len(low) >= MIN_LEN and low != whole:
            out.append(low)
    return tuple(out)


# Source code repeats its identifiers, so their terms are memoised, one table per reading
# (prose words drop stopwords, parts of names do not); bounded: cleared when full.
_PROSE: dict[str, tuple[str, ...]] = {}
_PARTS: dict[str, tuple[str, ...]] = {}
_CACHE_MAX = 200_000


def _memo(table: dict[str, tuple[str, ...]], ident: str, prose: bool) -> tuple[str, ...]:
    terms = table.get(ident)
    if terms is None:
        if len(table) >= _CACHE_MAX:
            table.clear()
        terms = table[ident] = _ident_terms(ident, prose)
    return terms


def _emit_ident(ident: str, out: list[str], *, prose: bool) -> None:
    out += _memo(_PROSE if prose else _PARTS, ident, prose)


def _emit_dotted(text: str, out: list[str]) -> None:
    whole = text.lower()
    if len(whole) <= MAX_LEN:
        out.append(whole)
    for comp in text.split("."):
        if comp:
            out += _memo(_PARTS, comp, False)


_VERSION = compile_pattern(r"\d+(?:\.\d+)+")


def _emit_dotted_or_version(tok: str, out: list[str]) -> None:
    """A `dotted` match: a version (`3.5.1`, `v2.0`) is one term without its `v`; a dotted
    name is kept whole and split."""
    if _VERSION.fullmatch(tok, 1 if tok[0] in "vV" else 0):
        if len(tok) <= MAX_LEN:
            out.append(tok.lstrip("vV"))
    else:
        _emit_dotted(tok, out)


def _emit_ticket(tok: str, out: list[str]) -> None:
    low = tok.lower()
    out.append(low)
    if not low.startswith("#"):
        for part in low.split("-"):
            if len(part) >= MIN_LEN:
                out.append(part)


def _emit_path(tok: str, out: list[str]) -> None:
    tok = tok.strip(".-")
    if "/" not in tok.strip("/"):
        # a stray slash around one word ("and/", "/x"): just the word
        for seg in _SEGMENT_RE.findall(tok):
            _emit_segment(seg, out)
        return
    if len(tok) <= MAX_LEN:
        out.append(tok.lower())
    for seg in tok.split("/"):
        for piece in _SEGMENT_RE.findall(seg):
            _emit_segment(piece, out)


def _emit_match(m: re.Match[str], out: list[str]) -> None:
    """The terms of one match of `_TOKEN_RE` (or `_NO_PATH_RE`), by the alternative it took."""
    kind, tok = m.lastgroup, m.group()
    if kind == "ident":
        _emit_ident(tok, out, prose=True)
    elif kind == "dotted":
        _emit_dotted_or_version(tok, out)
    elif kind == "path":
        _emit_path(tok, out)
    elif kind == "ticket":
        _emit_ticket(tok, out)
    else:  # hex
        out.append(tok.lower())


def _emit_found(found: list[tuple[str, str, str, str]], out: list[str]) -> None:
    """`_emit_match` over `_NO_PATH_RE.findall`'s tuples (ticket, hex, dotted, ident): the same
    terms without a match object per token, which is most of the cost of tokenizing code."""
    prose = _PROSE.get
    for ticket, hexa, dotted, ident in found:
        if ident:
            terms = prose(ident)
            out += terms if terms is not None else _memo(_PROSE, ident, True)
        elif dotted:
            _emit_dotted_or_version(dotted, out)
        elif ticket:
            _emit_ticket(ticket, out)
        else:
            out.append(hexa.lower())


def tokenize(text: str) -> list[str]:
    """Code-aware terms of `text`, in order, duplicates kept (term frequency matters).

    The terms of `_TOKEN_RE.finditer(text)` taken match by match: a stretch with no `/` is
    matched by `_NO_PATH_RE` in one `findall`; each run of path characters around a `/` goes
    through `_run_matches` (linear time); no token crosses from one to the other, since
    tokens consume only run characters (see `_NO_PATH_RE`)."""
    out: list[str] = []
    if "/" not in text:
        _emit_found(_NO_PATH_RE.findall(text), out)
        return out
    n, pos = len(text), 0
    slash = text.find("/")
    while slash >= 0:
        start = slash  # the run around this slash: walk back to its first character
        while start > pos and _RUN_CHAR.match(text, start - 1):
            start -= 1
        end = _RUN_FROM.match(text, slash).end()  # type: ignore[union-attr]
        if start > pos:
            _emit_found(_NO_PATH_RE.findall(text, pos, start), out)
        for m in _run_matches(text, start, end, min(end + 1, n)):
            _emit_match(m, out)
        pos = end
        slash = text.find("/", pos)
    if pos < n:
        _emit_found(_NO_PATH_RE.findall(text, pos), out)
    return out


_PATH_CHAR = compile_pattern(r"[\w.-]")
_SLASH = compile_pattern(r"/(?=[\w.-])")  # a slash a path segment follows


def _run_matches(text: str, start: int, end: int, stop: int) -> Iterator[re.Match[str]]:
    """`_TOKEN_RE.finditer(text, start, stop)` for a run holding a `/`, in linear time.

    Tried at a position where it cannot match, `path` scans the rest of the stretch first, so
    a long run such as `a-a-a-...-a/` costs the square of its length. `path` matches exactly
    from the stretch of path characters before a slash that a path character follows, and from
    that slash; elsewhere `_TOKEN_RE` matches what `_NO_PATH_RE` does. The earlier of the two
    positions wins, `path` on a tie (it is the first alternative). Each slash is found once and
    each stretch walked once.
    """
    pos = start
    other = _NO_PATH_RE.search(text, pos, stop)
    slash = first = -1  # the next usable slash and the start of the stretch before it
    while pos < end:
        if slash < pos:
            found = _SLASH.search(text, pos, end)
            if found is None:
                slash = end
            else:
                slash = first = found.start()
                while first > pos and _PATH_CHAR.match(text, first - 1):
                    first -= 1
        path_at = max(pos, first) if slash < end else None
        if other is not None and other.start() < pos:
            other = _NO_PATH_RE.search(text, pos, stop)
        if path_at is not None and (other is None or path_at <= other.start()):
            m = _TOKEN_RE.match(text, path_at, stop)
            assert m is not None and m.lastgroup == "path"
        elif other is not None:
            m = other
        else:
            return
        yield m
        pos = m.end()


def _emit_segment(seg: str, out: list[str]) -> None:
    if "." in seg:
        _emit_dotted(seg, out)
    else:
        _emit_ident(seg, out, prose=False)


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query, in first-seen order (BM25 weighs each term once)."""
    return list(dict.fromkeys(tokenize(text)))
