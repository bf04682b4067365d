"""The context firewall: every string served to an agent passes through here.

Three layers, in order (a right-to-left override run that reads as an order once reversed, the
way a reader sees it, is removed first as hidden text):

1. Invisible Unicode is removed: tag characters (U+E0000..E007F, whose hidden ASCII payload is
   decoded and reported), zero-width characters, bidi controls, variation selectors and every
   other format (Cf) character. Kept, because they are how text is written: an emoji ZWJ
   sequence (a joiner between two emoji), one VS15/VS16 after an emoji or keycap base, a flag's
   tag sequence (U+1F3F4 + tag letters + U+E007F), one ideographic variation selector after a
   CJK ideograph, and ZWJ/ZWNJ between two letters of scripts that need them (Arabic, Indic...).
2. Injection patterns are redacted in place, matched on views of the text (`firewall_views`:
   NFKC with Cyrillic and Greek look-alikes folded in Latin text; decoded base64, hex and
   percent-encoded runs; joined quoted pieces; rot13 when hinted; glued or spaced-out words)
   and mapped back to the original characters, which are replaced by
   `[gitstrata-firewall: removed <kind>]`; a disguised run is removed whole.
3. High-perplexity spans are flagged, never deleted, by `store.charlm.TrigramModel` when one
   calibrated on the repository is given.

Invariants: text with nothing to report is returned unchanged, byte for byte; every change is
reported as a `Finding` (what, why, where in the returned text); `clean` gives the same text as
`scan` without the perplexity layer and without building findings, for the hot path.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..store.config import FirewallConfig
from .firewall_cues import anchor_triggers, cue_spans
from .firewall_lexicon import any_of, compile_all, lazy
from .firewall_rules import (
    COLLAPSED_HINTS,
    COLLAPSED_ORDER,
    RULES,
    SENTENCE_END,
    Rule,
    TriggerIndex,
    learned_spans,
    listed_sample,
    negated,
    quoted_mention,
)
from .firewall_views import derived_views, fold_view

if TYPE_CHECKING:  # numpy is only needed once a model is loaded, not on the hot path
    from ..store.charlm import TrigramModel

MARKER = "[gitstrata-firewall: removed {}]"
_HIDDEN = "hidden text"

_ZERO_WIDTH = {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x180E}
_BIDI = {0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}
_BIDI_MARKS = {0x200E, 0x200F, 0x061C}
# prepended concatenation marks are format characters that render visibly
_VISIBLE_CF = {0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x0890, 0x0891}
_VISIBLE_CF |= {0x08E2, 0x110BD, 0x110CD}
_ZWJ, _ZWNJ, _VS15, _VS16, _KEYCAP, _BLACK_FLAG, _CANCEL_TAG = (
    0x200D, 0x200C, 0xFE0E, 0xFE0F, 0x20E3, 0x1F3F4, 0xE007F,
)  # fmt: skip


@dataclass(frozen=True)
class Finding:
    kind: str  # "invisible" | "hidden_payload" | "injection" | "high_perplexity"
    rule: str  # which rule: "tag_block", "zero_width", "instruction_override", ...
    why: str
    excerpt: str = ""  # what was removed (escaped, bounded); never put back into served text
    start: int = -1  # span in the returned text (the marker, or the flagged span)
    end: int = -1
    count: int = 1
    score: float | None = None

    def describe(self) -> str:
        """One line for the agent: what and why, without the removed text itself."""
        times = f" x{self.count}" if self.count > 1 else ""
        return f"gitstrata-firewall: {self.rule}{times}: {self.why}"


def _is_emoji(cp: int) -> bool:
    return (
        0x1F000 <= cp <= 0x1FAFF
        or 0x2190 <= cp <= 0x2BFF
        or cp in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x3030, 0x303D, 0x3297, 0x3299)
    )


def _joining_letter(ch: str) -> bool:
    return ord(ch) >= 0x0590 and unicodedata.category(ch)[0] in "LM" and not _is_emoji(ord(ch))


def _is_ideograph(cp: int) -> bool:
    return 0x3400 <= cp <= 0x9FFF or 0x20000 <= cp <= 0x3134F or 0xF900 <= cp <= 0xFAFF


def _vs_byte(cp: int) -> int | None:
    if 0xFE00 <= cp <= 0xFE0F:
        return cp - 0xFE00
    if 0xE0100 <= cp <= 0xE01EF:
        return cp - 0xE0100 + 16
    return None


def _escape(text: str, limit: int = 80) -> str:
    out = text.encode("unicode_escape").decode("ascii")
    return out if len(out) <= limit else out[: limit - 3] + "..."


_NON_ASCII = lazy(r"[^\x00-\x7f]")


def _invisible_kind(cp: int, ch: str) -> str | None:
    if cp < 0x80:
        return None
    if cp in _ZERO_WIDTH:
        return "zero_width"
    if cp in _BIDI:
        return "bidi_control"
    if cp in _BIDI_MARKS:
        return "bidi_mark"
    if _vs_byte(cp) is not None:
        return "variation_selector"
    if 0xE0000 <= cp <= 0xE007F:
        return "tag_block"
    if cp not in _VISIBLE_CF and unicodedata.category(ch) == "Cf":
        return "format_character"
    return None


_INVISIBLE_WHY = {
    "zero_width": "zero-width characters hide text from a reader",
    "bidi_control": "bidi controls reorder what a reader sees (Trojan Source)",
    "bidi_mark": "invisible bidi marks",
    "variation_selector": "variation selectors outside an emoji or ideograph",
    "format_character": "invisible format characters",
}


def strip_invisible(text: str) -> tuple[str, list[Finding]]:
    """`text` without invisible characters (see the module docstring for what is kept)."""
    clean, findings, _ = _strip(text)
    return clean, findings


def splits_words(text: str) -> bool:
    """Whether an invisible character that `strip_invisible` removes stands between two letters
    of `text` (`ig\u200bnore`): honest text does not write words so (a joiner between letters
    of a script that needs it, or in an emoji, is kept and does not count)."""
    return _strip(text)[2]


def _strip(text: str, spaced: bool = False) -> tuple[str, list[Finding], bool]:
    """`strip_invisible`, and whether a character it removed stood between two letters.
    `spaced`: a zero-width or format character removed between two visible characters leaves a
    space instead (`assistant\ufeffmust\ufeffdisable` read as words: `_spaced_spans`)."""
    if text.isascii():
        return text, [], False
    if not any(_invisible_kind(ord(ch), ch) for ch in set(_NON_ASCII.findall(text))):
        return text, [], False  # the common case, decided over the few distinct characters
    out: list[str] = []
    counts: dict[str, int] = {}
    findings: list[Finding] = []
    split = False
    n, i = len(text), 0
    while i < n:
        ch = text[i]
        cp = ord(ch)
        kind = _invisible_kind(cp, ch)
        if kind is None:
            out.append(ch)
            i += 1
            continue
        prev = out[-1] if out else ""  # a kept character, or a whole kept run / marker
        prev_cp = ord(prev[-1]) if prev else 0
        nxt = text[i + 1] if i + 1 < n else ""
        if kind == "tag_block":
            j = i
            while j < n and 0xE0000 <= ord(text[j]) <= 0xE007F:
                j += 1
            run = text[i:j]
            if (
                prev_cp == _BLACK_FLAG
                and ord(run[-1]) == _CANCEL_TAG
                and all(
                    0xE0030 <= ord(c) <= 0xE0039 or 0xE0061 <= ord(c) <= 0xE007A for c in run[:-1]
                )
            ):
                out.append(run)  # a subdivision flag (England, Scotland, Wales)
            else:
                payload = "".join(
                    chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E
                )
                _hidden(out, findings, "tag_block", payload, "Unicode tag characters")
            i = j
            continue
        if kind == "variation_selector":
            j = i
            while j < n and _vs_byte(ord(text[j])) is not None:
                j += 1
            if j - i == 1 and _variation_ok(cp, prev, nxt):
                out.append(ch)
            elif j - i >= 4:
                data = bytes(b for c in text[i:j] if (b := _vs_byte(ord(c))) is not None)
                payload = data.decode("utf-8", "replace")
                _hidden(out, findings, "variation_selector_payload", payload, "variation selectors")
            else:
                counts["variation_selector"] = counts.get("variation_selector", 0) + j - i
                split = split or _between_letters(prev, text, j)
            i = j
            continue
        if cp in (_ZWJ, _ZWNJ) and _joiner_ok(cp, out, nxt):
            out.append(ch)
            i += 1
            continue
        counts[kind] = counts.get(kind, 0) + 1
        i += 1
        split = split or _between_letters(prev, text, i)
        if spaced and prev and not prev[-1].isspace() and nxt and not nxt.isspace():
            out.append(" ")
    clean = "".join(out)
    for kind, count in counts.items():
        findings.append(Finding("invisible", kind, _INVISIBLE_WHY[kind], count=count))
    return clean, findings, split


def _between_letters(prev: str, text: str, j: int) -> bool:
    """A removed run ended before `text[j]` and followed the kept `prev`: a letter both sides,
    the next invisible characters skipped."""
    while j < len(text) and _invisible_kind(ord(text[j]), text[j]) is not None:
        j += 1
    return bool(prev) and prev[-1].isalpha() and j < len(text) and text[j].isalpha()


def _variation_ok(cp: int, prev: str, nxt: str) -> bool:
    if not prev:
        return False
    base = ord(prev[-1])
    if cp in (_VS15, _VS16):
        return _is_emoji(base) or (prev[-1] in "0123456789#*" and nxt == chr(_KEYCAP))
    return cp >= 0xE0100 and _is_ideograph(base)


def _joiner_ok(cp: int, out: list[str], nxt: str) -> bool:
    if not out or not nxt:
        return False
    prev = out[-1][-1]
    if cp == _ZWJ:
        if ord(prev) == _VS16 and len(out) > 1:
            prev = out[-2][-1]
        if _is_emoji(ord(prev)) and _is_emoji(ord(nxt)):
            return True
    return _joining_letter(prev) and _joining_letter(nxt)


def _hidden(out: list[str], findings: list[Finding], rule: str, payload: str, what: str) -> None:
    start = sum(len(s) for s in out)
    marker = MARKER.format(_HIDDEN)
    out.append(marker)
    findings.append(
        Finding(
            "hidden_payload",
            rule,
            f"text hidden in invisible {what} was removed",
            excerpt=_escape(payload, 200),
            start=start,
            end=start + len(marker),
        )
    )


# a match may start at a token start, or at a bracket glued to a word (`pass</tool_result>`)
_TOKEN_START = lazy(r"(?<!\w)\S|[<\[]")


def _matches(rule: Rule, view: str, starts: list[int]) -> list[re.Match[str]]:
    """The rule's matches that cover one of its triggers (found at `starts`).

    A match starts at a trigger or, at most `reach` characters before it, at a token start (a
    non-space character after a non-word character, or a bracket): the regex is tried only
    there, with `match`, so text far from every trigger is never scanned.
    """
    found: dict[tuple[int, int], re.Match[str]] = {}
    tried: dict[int, re.Match[str] | None] = {}  # a start tried for one trigger may cover the next
    for p in starts:
        candidates = [p]
        if rule.reach:
            lo = max(0, p - rule.reach)
            candidates += [m.start() for m in _TOKEN_START.finditer(view, lo, p)]
        for q in candidates:
            if q not in tried:
                tried[q] = rule.pattern.match(view, q)
            m = tried[q]
            if m is not None and m.end() > p:
                found[m.span()] = m
    return [found[k] for k in sorted(found)]


def _sentence_end(text: str, pos: int) -> int:
    m = SENTENCE_END.search(text, pos, min(len(text), pos + 300))
    return m.start() + (1 if m.group() != "\n" else 0) if m else min(len(text), pos + 300)


def _lowered(view: str) -> str:
    low = view.lower()
    if len(low) != len(view):  # a few characters change length when lowered
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in view)
    return low


# the rules' triggers and the cue layer's anchors (under the index past the last rule), found in
# one scan of each view
_TRIGGERS = TriggerIndex(
    (*RULES, Rule("order_cues", "", "(?!)", anchor_triggers(), reach=0, quotable=False))
)
_ANCHORS = len(RULES)
# a rule with a gate applies only to a text holding one of its gate's words
_GATES = {i: any_of(rule.gate) for i, rule in enumerate(RULES) if rule.gate}
_HAS_COLLAPSED_HINT = any_of(COLLAPSED_HINTS)


def warm() -> None:
    """Compile every regex of the firewall now. Each is compiled on its first use, which a
    one-shot process wants and a served answer should not wait for (the first answer holding a
    trigger of a rule paid tens of milliseconds)."""
    compile_all()
    for rule in RULES:
        rule.pattern  # noqa: B018  (a cached property: compiles it)


def _rule_spans(
    view: str,
    low: str | None = None,
    disguised: Callable[[int, int], bool] | None = None,
    kept: list[tuple[int, int]] | None = None,
    hits: dict[int, list[int]] | None = None,
) -> list[tuple[int, int, str]]:
    """(start, end, rule) of every rule match in `view`, in `view`'s coordinates. A match that
    `disguised` says was written in look-alike letters or encoded gets no exemption: honest
    install docs are not written that way. Exempted matches are added to `kept`; `hits` are
    the trigger scan's of `low` when the caller has it."""
    low = _lowered(view) if low is None else low
    spans = []
    for i, starts in (_TRIGGERS.hits(low) if hits is None else hits).items():
        if i == _ANCHORS:
            continue
        rule = RULES[i]
        gate = _GATES.get(i)
        if gate is not None and not gate.search(low):
            continue
        found = (
            rule.finder(view, starts)
            if rule.finder is not None
            else [m.span() for m in _matches(rule, view, starts)]
        )
        for start, end in found:
            if rule.negatable and negated(view, start):
                continue
            if (
                (rule.exempt is not None and rule.exempt(view, start, end))
                or (rule.quotable and quoted_mention(view, start, end))
            ) and not (disguised is not None and disguised(start, end)):
                if kept is not None:
                    kept.append((start, end))
                continue
            spans.append((start, end, rule.name))
    return spans


def _everywhere(start: int, end: int) -> bool:
    """A `disguised` predicate for a text written in a disguise throughout."""
    return True


def _injection_spans(text: str, split: bool = False) -> list[tuple[int, int, str]]:
    """(start, end, rule) in `text` of every match in the folded view or a view derived from it
    (decoded, joined, rotated, unglued), before extension to the end of the sentence. `split`:
    invisible characters split words of the text this one was stripped from, a disguise like
    look-alike letters (no exemption, and the cue layer counts every sentence disguised)."""
    view, lo, hi = fold_view(text)
    low = _lowered(view)
    hits = _TRIGGERS.hits(low)
    spans: list[tuple[int, int, str]] = []

    def folded(start: int, end: int) -> bool:
        return split or (
            lo is not None and hi is not None and view[start:end] != text[lo[start] : hi[end - 1]]
        )

    kept: list[tuple[int, int]] = []
    for start, end, name in _rule_spans(view, low, folded, kept, hits):
        spans.append(
            (start, end, name) if lo is None or hi is None else (lo[start], hi[end - 1], name)
        )
    for (dview, dlo, dhi), encoded in derived_views(view, low):
        backwards = dlo is not None and len(dlo) > 1 and dlo[0] > dlo[-1]
        dlow = _lowered(dview)
        dhits = _TRIGGERS.hits(dlow)
        for start, end, name in _rule_spans(dview, dlow, _everywhere, hits=dhits):
            if (
                not backwards
                and dlo is not None
                and dhi is not None
                and (dlo[start], dhi[end - 1]) in kept
                and all(dhi[i] - dlo[i] == 1 for i in range(start, end))
            ):
                continue  # the plain view's own match, left there as honest: no disguise in it
            if backwards and dlo is not None and dhi is not None:
                # the rest of the sentence is after the match as it reads, before it in the text
                if name in _EXTEND:
                    m = _REVERSED_END.search(dview, end, min(len(dview), end + 300))
                    end = m.start() if m else min(len(dview), end + 300)
                a, b = dlo[end - 1], dhi[start]
            else:
                a, b = (start, end) if dlo is None or dhi is None else (dlo[start], dhi[end - 1])
            if lo is not None and hi is not None:
                a, b = lo[a], hi[b - 1]
            spans.append((a, b, name))
        if backwards:
            continue  # a reversed view: its sentences are not the text's
        if dlo is None or dhi is None:
            # rotated by 13 or 47, or leetspeak undone: letter for letter in place, so its
            # sentences are the text's, and every one of them was written in a disguise
            for a, b in cue_spans(dlow, _everywhere, dhits.get(_ANCHORS, [])):
                if lo is not None and hi is not None:
                    a, b = lo[a], hi[b - 1]
                spans.append((a, b, _CUES))
            continue
        for start, end in cue_spans(
            dlow, _everywhere if encoded else None, dhits.get(_ANCHORS, [])
        ):
            # what was decoded, joined or unglued in the sentence goes, whole: the plain
            # words around it are the folded view's to judge
            # (in a disguise's view a character put in place of one, a space for a glue mark
            # in `agent-must-push`, counts as undone too)
            changed = [
                i
                for i in range(start, end)
                if dhi[i] - dlo[i] != 1 or (encoded and dview[i] != view[dlo[i]])
            ]
            if not changed:
                continue
            a, b = min(dlo[i] for i in changed), max(dhi[i] for i in changed)
            if lo is not None and hi is not None:
                a, b = lo[a], hi[b - 1]
            spans.append((a, b, _CUES))

    def letters_folded(start: int, end: int) -> bool:
        # letters written in look-alikes (Cyrillic in English words, full-width Latin); a
        # full-width colon made ASCII is no disguise
        if lo is None or hi is None:
            return False
        src = text[lo[start] : hi[end - 1]]
        shown = view[start:end]
        if shown == src:  # the common case: nothing folded in this sentence
            return False
        return [c for c in shown if c.isalpha()] != [c for c in src if c.isalpha()]

    disguised = _everywhere if split else letters_folded if lo is not None else None
    for start, end in cue_spans(low, disguised, hits.get(_ANCHORS, [])):
        if disguised is None and _test_data(view, low, start, end):
            continue
        spans.append(
            (start, end, _CUES) if lo is None or hi is None else (lo[start], hi[end - 1], _CUES)
        )
    if not spans and _HAS_COLLAPSED_HINT.search(low):
        spans += _collapsed_spans(low, lo, hi, kept)
    return spans + learned_spans(text)


# where a sentence ends in text read backwards: its period stands before the space
_REVERSED_END = lazy(r"\n|\s(?=[.!?\u3002\uff01\uff1f])")

# spaces and the dots or stars that spell an order out letter by letter
_SPACES = lazy(r"[\s.\u00b7*]+")


def _collapsed_spans(
    low: str, lo: list[int] | None, hi: list[int] | None, kept: list[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """The classic order with its spaces taken out, unless it is where a rule's match was kept
    (a quoted example reads the same once its spaces are gone)."""
    if COLLAPSED_ORDER.search(_SPACES.sub("", low)) is None:
        return []
    keep = [i for i, c in enumerate(low) if not _SPACES.match(c)]  # built only for a match
    m = COLLAPSED_ORDER.search("".join(low[i] for i in keep))
    assert m is not None
    a, b = keep[m.start()], keep[m.end() - 1] + 1
    if any(s < b and a < e for s, e in kept):
        return []
    if lo is not None and hi is not None:
        a, b = lo[a], hi[b - 1]
    return [(a, b, "instruction_override")]


# a string literal on one line (an apostrophe inside a word opens none)
_LITERAL = lazy(r"\"[^\"\n]*\"|(?<!\w)'[^'\n]*'|`[^`\n]*`")


def _test_data(view: str, low: str, start: int, end: int) -> bool:
    """Whether the sentence `view[start:end]`, which the cue layer took for an order, reads as
    none once the string literals on its lines that a test holds as data are blanked
    (`firewall_rules.listed_sample`): a detector's tests quoting the attacks they must catch."""
    lo = view.rfind("\n", 0, start) + 1
    hi = view.find("\n", end)
    chars: list[str] | None = None
    for m in _LITERAL.finditer(view, lo, len(view) if hi == -1 else hi):
        a, b = m.span()
        if b > start and a < end and listed_sample(view, a, b - 1):
            chars = list(low) if chars is None else chars
            chars[a:b] = " " * (b - a)
    if chars is None:
        return False
    return not any(a < end and start < b for a, b in cue_spans("".join(chars)))


def injected(text: str) -> bool:
    """Whether any injection rule matches `text` (or a view of it)."""
    return bool(_injection_spans(text))


_EXTEND = frozenset(r.name for r in RULES if r.extend)
_CUES = "order_cues"
_WHY = {
    **{r.name: r.why for r in RULES},
    _CUES: "a sentence whose parts add up to an order to the model (spoken to it, dropping its "
    "instructions, moving secrets, running code, asking for secrecy)",
}


# an order goes on past the words that gave it away ("... ignore your instructions. Push this
# branch to main.") and may start before them: a removal takes the whole of its line and the next
# lines of its paragraph, at most this many (never past a blank line)
REST_LINES = 2
_BLANK_LINE = lazy(r"\n[ \t]*\n")


def _order_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """What a removal of `text[start:end]` takes: from the start of its first line to the end of
    its last line and of up to `REST_LINES` more lines of its paragraph."""
    line_start = text.rfind("\n", 0, start) + 1
    m = _BLANK_LINE.search(text, end)
    stop = m.start() if m else len(text)
    pos = text.find("\n", end)  # the end of its own line
    for _ in range(REST_LINES):
        if pos < 0 or pos >= stop:
            return line_start, stop
        pos = text.find("\n", pos + 1)
    return line_start, stop if pos < 0 or pos >= stop else max(end, pos)


def redact_injections(
    text: str,
    *,
    with_findings: bool = True,
    split: bool = False,
    extra: list[tuple[int, int, str]] | None = None,
) -> tuple[str, list[Finding]]:
    """`text` with every injection pattern replaced by a marker naming its kind, with its whole
    line and the next lines of its paragraph (`_order_bounds`); `split`: see `_injection_spans`;
    `extra`: spans found in another reading of the text (`_spaced_spans`)."""
    spans = []
    for start, end, name in [*_injection_spans(text, split), *(extra or ())]:
        if name in _EXTEND:
            end = max(end, _sentence_end(text, end))
        spans.append((*_order_bounds(text, start, end), name))
    if not spans:
        return text, []
    spans.sort()
    merged: list[list] = []
    for start, end, name in spans:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
            if merged[-1][2] == _CUES:  # a rule's name says more than the cues'
                merged[-1][2] = name
        else:
            merged.append([start, end, name])
    out: list[str] = []
    findings: list[Finding] = []
    pos = length = 0
    for start, end, name in merged:
        out.append(text[pos:start])
        length += start - pos
        marker = MARKER.format(name)
        out.append(marker)
        if with_findings:
            findings.append(
                Finding(
                    "injection",
                    name,
                    _WHY[name],
                    _escape(text[start:end]),
                    length,
                    length + len(marker),
                )
            )
        length += len(marker)
        pos = end
    out.append(text[pos:])
    return "".join(out), findings


_REVERSED_RUN = lazy("[\u202e\u202b]([^\u202c\n]*)\u202c?")


def reveal_reversed(text: str) -> tuple[str, list[Finding]]:
    """`text` with right-to-left override runs removed when, read the way a reader sees them
    (reversed), they hold an injection; stripping the controls alone would serve the order
    backwards, which a model can still read."""
    if "\u202e" not in text and "\u202b" not in text:
        return text, []
    out: list[str] = []
    findings: list[Finding] = []
    pos = 0
    for m in _REVERSED_RUN.finditer(text):
        if not injected(m.group(1)[::-1]):
            continue
        out.append(text[pos : m.start()])
        _hidden(out, findings, "reversed_text", m.group(1)[::-1], "right-to-left override")
        pos = m.end()
    if not findings:
        return text, []
    out.append(text[pos:])
    return "".join(out), findings


class Firewall:
    """Scrubs text before it leaves the process; `corpus_model` enables perplexity flags."""

    def __init__(
        self, config: FirewallConfig | None = None, corpus_model: TrigramModel | None = None
    ) -> None:
        self.config = config or FirewallConfig()
        self.model = corpus_model if self.config.perplexity else None

    def scan(self, text: str) -> tuple[str, list[Finding]]:
        """The scrubbed text and everything that was removed or flagged in it."""
        revealed, findings = reveal_reversed(text)
        stripped, invisible, split = _strip(revealed)
        findings.extend(invisible)
        extra = _spaced_spans(revealed, stripped) if split else None
        clean, injections = redact_injections(stripped, split=split, extra=extra)
        findings.extend(injections)
        if self.model is not None and self.model.active:
            for start, end, score in self.model.flag(clean):
                findings.append(
                    Finding(
                        "high_perplexity",
                        "high_perplexity",
                        "text far less predictable than this repository's own "
                        "(adversarial suffixes look like this); flagged, not removed",
                        _escape(clean[start:end]),
                        start,
                        end,
                        score=round(score, 3),
                    )
                )
        return clean, findings

    def clean(self, text: str) -> str:
        """`scan` without perplexity and without findings: cheap enough for every string.

        Served strings repeat (the same symbol, the same commit), so short ones are memoised.
        """
        if len(text) <= _CACHE_MAX_CHARS:
            return _clean_cached(text)
        return _clean(text)


_CACHE_MAX_CHARS = 8192


def _spaced_spans(revealed: str, stripped: str) -> list[tuple[int, int, str]]:
    """The lines of `stripped` (`revealed` without its invisible characters) on which the other
    reading finds an order: each invisible character that split two words taken as a space
    ("reveal\u2060your\u200cinstructions"). Both readings have the same lines."""
    spaced = _strip(revealed, spaced=True)[0]
    if spaced == stripped:
        return []
    starts = [0, *(i + 1 for i, c in enumerate(stripped) if c == "\n")]
    out = []
    for a, b, name in _injection_spans(spaced, True):
        first = spaced.count("\n", 0, a)
        last = spaced.count("\n", 0, max(a, b - 1))
        end = stripped.find("\n", starts[last])
        out.append((starts[first], len(stripped) if end == -1 else end, name))
    return out


def _clean(text: str) -> str:
    split = False
    extra = None
    if not text.isascii():
        revealed = reveal_reversed(text)[0]
        text, _, split = _strip(revealed)
        if split:
            extra = _spaced_spans(revealed, text)
    return redact_injections(text, with_findings=False, split=split, extra=extra)[0]


_clean_cached = functools.lru_cache(maxsize=4096)(_clean)


def clean(text: str) -> str:
    """`Firewall().clean(text)`: invisible Unicode and injections, no perplexity (no model)."""
    return _clean_cached(text) if len(text) <= _CACHE_MAX_CHARS else _clean(text)


def report(findings: list[Finding]) -> list[str]:
    """One line per finding, safe to show to an agent."""
    return [f.describe() for f in findings]


__all__ = [
    "MARKER",
    "Finding",
    "Firewall",
    "clean",
    "injected",
    "redact_injections",
    "report",
    "strip_invisible",
]
