"""The views of a text the firewall's rules are matched on, each mapped back to the text.

A view is a string plus, per view character, the range of source characters it stands for, so a
rule that matches in a view removes exactly the source characters behind the match (a decoded
base64 word stands for the whole base64 run). Views are for matching only: what is served is
always the source text with spans replaced by markers, never a view.

- `fold_view`: NFKC, then Cyrillic and Greek letters that look like Latin ones folded to Latin
  in Latin text (everywhere when Latin letters are the majority, else only inside words that
  mix scripts), so `іgnоrе` matches `ignore` while Russian prose stays Russian; Latin letters in
  another shape (small capitals `ɪɢɴᴏʀᴇ`, IPA) are folded in any text.
- `derived_views`: what an agent could be told to decode or join. Base64 (URL-safe too), base32,
  hex (a run, `\\x` escapes, or bytes one by one: `69 67 6e`, `0x69,0x67`), `\\u` / `\\u{..}`
  escapes, HTML character references and percent-encoded runs that decode to readable text;
  concatenated quoted pieces (`'ign' + 'ore'`) joined; text rotated by 13, read backwards or
  written in leetspeak, when the words of an order appear in it so transformed (no hint needed);
  and words glued or spaced out (`IgnoreAllPrevious`, `i g n o r e`, `ignore_all_previous`)
  split back into words. A view is built only when its cheap pre-check finds something to
  decode, so ordinary text costs a few linear scans.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
import unicodedata
from collections.abc import Callable, Iterator
from urllib.parse import unquote_plus

from . import firewall_confusables as confusables
from .firewall_lexicon import LazyPattern, any_of, lazy

# (view text, per-character source start, per-character source end); None maps: identity
View = tuple[str, list[int] | None, list[int] | None]

_NON_ASCII = lazy(r"[^\x00-\x7f]")

# letters rendered like Latin ones: Unicode's confusables (`firewall_confusables`, letters of
# Cherokee, Lisu, Armenian, Coptic, Canadian syllabics and 20 more scripts), then the ones
# injection kits use that Unicode does not list (Cyrillic к м н т); NFKC already folds
# full-width and mathematical alphanumerics
_CONFUSABLE = {
    **dict(zip(confusables.SOURCE, confusables.LATIN, strict=True)),
    **dict(
        zip(
            "аеорсухіјѕԁһӏԛԝвкмнтАВЕКМНОРСТХІЈЅҮ",
            "aeopcyxijsdhlqwbkmhtABEKMHOPCTXIJSY",
            strict=True,
        )
    ),
    **dict(zip("αοιρνκυτΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "aoipvkutABEZHIKMNOPTYX", strict=True)),
    "ı": "i",
    "ɡ": "g",
    "օ": "o",
    "ս": "u",
    "ց": "g",
}
# scripts whose letters are folded only where the text is mostly Latin or the word mixes
# scripts, because they write languages a repository's text may be in (Russian, Greek,
# Armenian...); look-alikes of the other scripts (Cherokee, Lisu, Canadian syllabics, Coptic,
# Warang Citi...) are folded in any text, the way Latin letters in another shape are: a
# repository's honest text has next to none, and an order written in them is meant to be read
# as Latin
_WRITTEN = frozenset(
    {"LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "GEORGIAN", "ETHIOPIC", "MALAYALAM", "MYANMAR",
     "ORIYA"}
)  # fmt: skip
_ANYWHERE = {
    c: latin
    for c, latin in _CONFUSABLE.items()
    if unicodedata.name(c, "?").split(" ", 1)[0] not in _WRITTEN
}
# Latin letters in another shape (small capitals, IPA): Latin script already, so folded in any
# text, not only in a Latin majority; NFKC leaves them as they are. Turned letters (ɐ ɔ ʌ) are
# left for the upside-down view, where they stand for other letters.
_LATIN_SHAPES = dict(
    zip(
        "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢɑɛɩʊʋ",
        "abcdefghijklmnoprstuvwyzaeiuv",
        strict=True,
    )
)
# Latin letters in a frame or as a symbol (`⒤`, `🅘`, `🇮`): read as the letter in any text
_FRAMED = dict(zip(confusables.FRAMED, confusables.LETTER, strict=True))
# letters that render blank (Hangul fillers, the Braille blank): spaces that split no word
# for a reader, so `ignoreㅤall` reads as two words
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# every character a fold reads as another: a text holding none is not folded (a set, not a
# character class: the class's search took 1.8 ms over a 5,000-character answer, this 0.06)
_FOLDED = frozenset((*_CONFUSABLE, *_LATIN_SHAPES, *_FRAMED, *_BLANKS))
_WORD = lazy(r"\w+")
# a combining mark right after an ASCII letter (NFKC composes accents, so what is left is drawn
# through or under the letter: s̶t̶r̶i̶k̶e̶, u̲n̲d̲e̲r̲)
_MARK_ON_ASCII = lazy("[!-~][\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff]")


def _latin_majority(text: str) -> bool:
    latin = other = 0
    for ch in text:
        if ch.isalpha():
            if ch.isascii() or ch in _ANYWHERE or ch in _FRAMED:
                latin += 1
            elif ch in _CONFUSABLE or "\u0370" <= ch <= "\u04ff":
                other += 1
    return latin >= other


def _script(ch: str) -> str:
    """The script a letter's name starts with ("CYRILLIC", "CHEROKEE"); ASCII is "LATIN"."""
    return "LATIN" if ch.isascii() else unicodedata.name(ch, "?").split(" ", 1)[0]


def _mixes_scripts(word: str) -> bool:
    """A word with Latin letters and look-alikes, or look-alikes of two scripts: no language
    writes one word so (`іgnоrе`, Cherokee and Greek capitals spelling IGNORE)."""
    if any(c.isascii() and c.isalpha() for c in word):
        return True
    looks = [c for c in word if c in _CONFUSABLE or unicodedata.normalize("NFKC", c) in _CONFUSABLE]
    return len(looks) >= 2 and len({_script(c) for c in looks}) >= 2


def fold_view(text: str) -> View:
    """NFKC and homoglyph folding, with the source index of every view character."""
    confusable = not text.isascii() and not _FOLDED.isdisjoint(text)
    if text.isascii() or (
        not confusable
        and unicodedata.is_normalized("NFKC", text)
        and _MARK_ON_ASCII.search(text) is None
    ):
        return text, None, None
    fold_all = confusable and _latin_majority(text)
    mixed: set[int] = set()
    if confusable and not fold_all:
        for m in _WORD.finditer(text):
            if _mixes_scripts(m.group()):
                mixed.update(range(m.start(), m.end()))
    chars: list[str] = []
    index: list[int] = []
    last = 0
    for m in _NON_ASCII.finditer(text):  # ASCII runs map to themselves: copied whole
        i = m.start()
        chars.append(text[last:i])
        index.extend(range(last, i))
        ch = text[i]
        norm = _FRAMED.get(ch) or unicodedata.normalize("NFKC", ch)
        if ch in _BLANKS or norm in _BLANKS:
            norm = " "
        elif unicodedata.category(ch) == "Mn" and i and text[i - 1].isascii():
            norm = ""  # a mark drawn over an ASCII letter (strike-through, underline): noise
        elif (fold_all or i in mixed) and norm in _CONFUSABLE:
            norm = _CONFUSABLE[norm]
        elif norm in _LATIN_SHAPES:
            norm = _LATIN_SHAPES[norm]
        elif norm in _ANYWHERE:
            norm = _ANYWHERE[norm]
        chars.append(norm)
        index.extend([i] * len(norm))
        last = i + 1
    chars.append(text[last:])
    index.extend(range(last, len(text)))
    return "".join(chars), index, [i + 1 for i in index]


# ------------------------------------------------------------------ derived views

# encoded prose mixes cases; a long snake_case or lower-case identifier is not worth decoding
# maximal runs (a run that starts later would have matched from its start): the regexes have
# no look-behind, so the engine skips ahead to a possible first character
_B64 = lazy(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_B64_EDGE = frozenset("+/-_")  # before a run: it continues a longer token (`=` is `key=`)
_HEX_RUN = frozenset("0123456789abcdefABCDEF")
_HEX_ESCAPES = lazy(r"(?:\\x[0-9a-fA-F]{2}){6,}")
# bytes written one by one, parted by spaces, commas or colons, with or without `0x`
_HEX_BYTES = lazy(
    # one way to read each separator (`[ \t]*(?:[,:][ \t]*)?`): no backtracking between two
    # runs of spaces when a long run fails at its end
    r"(?<![\w-])(?:0[xX])?[0-9a-fA-F]{2}(?:[ \t]*(?:[,:][ \t]*)?(?:0[xX])?[0-9a-fA-F]{2}(?![\w-])){7,}"
)
# an order written byte by byte has spaces in it: the space's byte, 20, parted from its
# neighbours, is what a substring search finds cheaply
_HEX_SPACE = (" 20 ", ",20,", ", 20,", "0x20", ":20:", "\t20\t")
_HAS_HEX_SPACE = any_of(_HEX_SPACE)
_U_ESCAPES = lazy(r"(?:\\u[0-9a-fA-F]{4}|\\u\{[0-9a-fA-F]{1,6}\}|\\U[0-9a-fA-F]{8}){4,}")
_U_ESCAPE = lazy(r"\\(?:u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))")
_OCTAL = lazy(r"(?:\\[0-3][0-7]{2}){4,}")
_BINARY = lazy(r"(?<![\w])[01]{8}(?:[ \t,]?[01]{8}(?![\w])){3,}")
_ENTITIES = lazy(r"(?:&#(?:[0-9]{1,7}|[xX][0-9a-fA-F]{1,6});){4,}")
_B32_DIGITS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
_QP = lazy(r"(?:=[0-9A-Fa-f]{2}){6,}")
_PCT_ESCAPE = lazy(r"%[0-9a-fA-F]{2}")
_PCT = lazy(r"(?:[^\s%<>\"'()]*%[0-9a-fA-F]{2}){3,}[^\s%<>\"'()]*")
_CONCAT = lazy(r"(?:([\"'])[^\"'\n]{0,80}\1\s*\+\s*)+([\"'])[^\"'\n]{0,80}\2")
_CONCAT_HINT = ("' +", '" +', "'+", '"+')
_HAS_CONCAT_HINT = any_of(_CONCAT_HINT)
_EMPTY_INTERPOLATION = lazy(r"\$\{\s*(?:''|\"\"|``)?\s*\}")
# quoted pieces in a list that a `join` puts together (`''.join(['ign', 'ore prev'])`)
_JOINED_LIST = lazy(
    r"\.join\(\s*[\[(]\s*(?:([\"'])[^\"'\n]{0,80}\1\s*,\s*)+([\"'])[^\"'\n]{0,80}\2\s*,?\s*[\])]"
)
_PIECE = lazy(r"([\"'])([^\"'\n]{0,80})\1")
_ROT13_HINT = lazy(r"\brot[\s_-]?13\b|\bcaesar\b", re.I)
# three letters or more ("a l l"): only looked for once a spelled-out verb was seen
_SPACED = lazy(r"(?<![^\W_])(?:[^\W_][ ._\-\u00b7]){2,}[^\W_](?![^\W_])")
_SPELLED = lazy(r"[^\W_][._\-\u00b7][^\W_][._\-\u00b7][^\W_]")
_LINE_HYPHEN = lazy(r"(?<=[^\W\d_])-[ \t]*\n[ \t]*(?=[^\W\d_])")
_GLUE = lazy(r"(?<=[A-Za-z])[ \t]*[_.\-+/]+[ \t]*(?=[A-Za-z])|(?<=[a-z])(?=[A-Z])")
_VERBS = ("ignor", "disregard", "forget", "overrid", "bypass")
_HAS_VERB = any_of(_VERBS)
# the model named inside a glued token: read as words when the token is a sentence, not a name
# (`AgentOutputParser`, `runtime_env_agent_stdout_filepath`, `ray.llm.utils.upload_model`):
# five words or more, one of them a word that names seldom hold (`agent-must-skip-tests-and-
# deploy`), and no ban among them (`agentCannotMergeWithoutReview`, a test's name)
_ADDRESSEES = ("agent", "assistant", "copilot", "claude", "chatgpt", "llm")
_HAS_ADDRESSEE = any_of(_ADDRESSEES)
_SENTENCE_WORDS = 5
_SENTENCE_MARKS = frozenset(
    [
        "must",
        "should",
        "shall",
        "please",
        "and",
        "then",
        "the",
        "your",
        "you",
        "now",
        "always",
        "immediately",
        "directly",
    ]
)
_BANS = frozenset(
    [
        "not",
        "no",
        "never",
        "cannot",
        "cant",
        "dont",
        "doesnt",
        "shouldnt",
        "mustnt",
        "wont",
        "isnt",
        "refuse",
        "refuses",
    ]
)
# words joined by punctuation (`ignore_all`, `ignore.all`, `ignore + all`) or case: each text
# position is read once, a regex that looked for the verb inside every word would read it again
_TOKEN = lazy(r"[A-Za-z]+(?:[ \t]*[_.\-+/]+[ \t]*[A-Za-z]+)*")
_GLUE_MARK = lazy(r"[_.\-+/]|[a-z][A-Z]")
# an order stacked a word or two a line, each line perhaps a comment ("// ignore\n// every\n
# // earlier..."): four lines or more; what parts them is read as a space
_LINE_LEAD = r"[ \t]*(?:(?://+|#+|--|;+|\*|>)[ \t]*)?"
_STACKED = lazy(
    r"^" + _LINE_LEAD + r"[^\W\d_]+(?:[ \t]+[^\W\d_]+)?[ \t]*"
    r"(?:\n" + _LINE_LEAD + r"[^\W\d_]+(?:[ \t]+[^\W\d_]+)?[ \t]*){3,}$",
    re.M,
)
_STACK_BREAK = lazy(r"[ \t]*\n" + _LINE_LEAD)


def _glued_tokens(
    view: str, low: str, words: tuple[str, ...] = _VERBS, least: int = 2
) -> Iterator[re.Match[str]]:
    """Tokens of at least `least` words glued by case or punctuation that hold one of `words`
    (an order's verb): read only on the lines (at most 200 characters either side) around
    each of them."""
    done = -1  # tokens end before this were read already
    for p in sorted(p for v in words for p in _find_all(low, v)):
        if p < done:
            continue
        lo = max(view.rfind("\n", 0, p) + 1, p - 200, done)
        hi = view.find("\n", p)
        hi = min(len(view) if hi == -1 else hi, p + 200)
        for m in _TOKEN.finditer(view, lo, hi):
            done = m.end()
            if m.end() > p:
                if (
                    _GLUE_MARK.search(view, m.start(), m.end())
                    and (least <= 2 or _count(_GLUE.finditer(view, m.start(), m.end()), least - 1))
                    and not _identifier(view, m)
                ):
                    yield m
                break


def _count(found: Iterator[object], n: int) -> bool:
    """Whether `found` yields at least `n` items (reading no more than that)."""
    return sum(1 for _ in zip(range(n), found, strict=False)) == n


def _identifier(view: str, token: re.Match[str]) -> bool:
    """The glued token is a name shown as code, in an inline code span on its line
    (`override_system_prompt=True`): an identifier, not an order written without spaces."""
    line_start = view.rfind("\n", 0, token.start()) + 1
    line_end = view.find("\n", token.end())
    line_end = len(view) if line_end == -1 else line_end
    return (
        view.count("`", line_start, token.start()) % 2 == 1 and "`" in view[token.end() : line_end]
    )


def _find_all(text: str, word: str) -> Iterator[int]:
    pos = text.find(word)
    while pos != -1:
        yield pos
        pos = text.find(word, pos + 1)


def _readable(raw: bytes) -> str | None:
    """`raw` as text when it is readable prose or a command: UTF-8, printable, with a space."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 4 or (
        (len(text) < 8 or " " not in text.strip()) and sum(ord(c) >= 0x2E80 for c in text) < 4
    ):
        return None  # prose has spaces; Chinese and Japanese have none
    printable = sum(1 for c in text if c.isprintable() or c in "\n\t")
    return text if printable >= 0.95 * len(text) else None


def _decode_b64(run: str) -> str | None:
    body = run.rstrip("=")
    # encoded prose mixes cases; a snake_case or lower-case identifier is not worth decoding
    if body.islower() or body.isupper() or body.isdigit():
        return None
    pad = "=" * (-len(body) % 4)
    try:
        if "-" in body or "_" in body:
            raw = base64.urlsafe_b64decode(body + pad)
        else:
            raw = base64.b64decode(body + pad, validate=True)
    except (binascii.Error, ValueError):
        return None
    return _readable(raw)


def _decode_hex(run: str) -> str | None:
    digits = run.replace("\\x", "")
    if len(digits) % 2:
        return None
    try:
        return _readable(bytes.fromhex(digits))
    except ValueError:
        return None


def _decode_u(run: str) -> str | None:
    """`\\u0049\\u0067...`, `\\u{49}`, `\\U00000049` (JSON, JavaScript, Python escapes) as
    the letters they stand for; a word is enough, the words around it are in the view already."""
    try:
        text = "".join(
            chr(int(next(g for g in m.groups() if g), 16)) for m in _U_ESCAPE.finditer(run)
        )
    except (ValueError, OverflowError):
        return None
    return text if all(c.isprintable() for c in text) else None


def _decode_hex_bytes(run: str) -> str | None:
    return _decode_hex(re.sub(r"0[xX]|[\s,:]", "", run))


def _decode_octal(run: str) -> str | None:
    """`\\111\\147...` (C, Python, shell escapes): like `\\u` escapes, a word is enough."""
    text = bytes(int(run[i + 1 : i + 4], 8) for i in range(0, len(run), 4)).decode("latin-1")
    return text if text.isprintable() else None


def _decode_binary(run: str) -> str | None:
    digits = re.sub(r"[^01]", "", run)
    return _readable(bytes(int(digits[i : i + 8], 2) for i in range(0, len(digits) - 7, 8)))


def _decode_entities(run: str) -> str | None:
    text = html.unescape(run)
    return text if text != run and all(c.isprintable() for c in text) else None


def _decode_b32(run: str) -> str | None:
    body = run.rstrip("=")
    try:
        raw = base64.b32decode(body + "=" * (-len(body) % 8))
    except (binascii.Error, ValueError):
        return None
    return _readable(raw)


def _decode_pct(run: str) -> str | None:
    text = unquote_plus(run)  # for matching only: a `+` in a query string is a space
    for _ in range(2):  # encoded twice (`%2569` is `%69` is `i`): decoded until it holds still
        again = unquote_plus(text)
        if again == text:
            break
        text = again
    return text if text != run else None


def _decode_qp(run: str) -> str | None:
    """Quoted-printable (`=69=67=6E`), the encoding of mail bodies."""
    return _readable(bytes(int(run[i + 1 : i + 3], 16) for i in range(0, len(run), 3)))


def _concat(run: str) -> str | None:
    return "".join(m.group(2) for m in _PIECE.finditer(run))


def _substitute(view: str, subs: list[tuple[int, int, str]]) -> View:
    """`view` with the ranges in `subs` replaced; replaced characters map to their whole range."""
    chars: list[str] = []
    lo: list[int] = []
    hi: list[int] = []
    pos = 0
    for start, end, repl in sorted(subs):
        if start < pos:
            continue  # overlapping candidates: the first wins
        chars.append(view[pos:start])
        lo.extend(range(pos, start))
        hi.extend(range(pos + 1, start + 1))
        chars.append(repl)
        lo.extend([start] * len(repl))
        hi.extend([end] * len(repl))
        pos = end
    chars.append(view[pos:])
    lo.extend(range(pos, len(view)))
    hi.extend(range(pos + 1, len(view) + 1))
    return "".join(chars), lo, hi


# letters spelled in signs: Morse code, the NATO alphabet, Braille cells, numbers 1-26 (A1Z26);
# a word break is a slash, a bar or a wide space in Morse, a slash or a bar elsewhere
_MORSE_SIGNS = (
    ".-", "-...", "-.-.", "-..", ".", "..-.", "--.", "....", "..", ".---", "-.-", ".-..", "--",
    "-.", "---", ".--.", "--.-", ".-.", "...", "-", "..-", "...-", ".--", "-..-", "-.--", "--..",
    "-----", ".----", "..---", "...--", "....-", ".....", "-....", "--...", "---..", "----.",
)  # fmt: skip
_MORSE = dict(zip(_MORSE_SIGNS, "abcdefghijklmnopqrstuvwxyz0123456789", strict=True))
_NATO = (
    "alfa", "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
    "juliet", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
    "sierra", "tango", "uniform", "victor", "whiskey", "whisky", "x-ray", "xray", "yankee", "zulu",
)  # fmt: skip
_MORSE_RUN = lazy(r"(?:[.\-\u2022\u00b7\u2013\u2014_]{1,5}(?:[ \t]{1,3}|[ \t]*[/|][ \t]*)){7,}"
                  r"[.\-\u2022\u00b7\u2013\u2014_]{1,5}")  # fmt: skip
_NATO_RUN = lazy(
    r"\b(?:" + "|".join(_NATO) + r")(?:[\s,.;/|-]{1,4}(?:" + "|".join(_NATO) + r")){5,}\b",
    re.I,
)
# Braille cells of the letters a-z (dots 1-6 as bits 0-5 of the cell's code point offset)
_BRAILLE = dict(
    zip(
        (chr(0x2800 + b) for b in (1, 3, 9, 25, 17, 11, 27, 19, 10, 26, 5, 7, 13, 29, 21, 15, 31,
                                   23, 14, 30, 37, 39, 58, 45, 61, 53)),
        "abcdefghijklmnopqrstuvwxyz",
        strict=True,
    )
)  # fmt: skip
_BRAILLE_RUN = lazy("[\u2800-\u28ff](?:[\u2800-\u28ff ]){7,}")
_A1Z26_RUN = lazy(
    r"(?<![\w.])(?:(?:[1-9]|1\d|2[0-6])(?:[-.,][ ]?|[ ]?[/|][ ]?)){7,}(?:[1-9]|1\d|2[0-6])(?![\w.])"
)
_ASCII_DIGIT = lazy(r"[0-9]")
_A85_RUN = lazy(r"<~[!-u\s]{10,}~>")


def _words_of(letters: list[str]) -> str | None:
    """Decoded letters and word breaks (" ") as text, when it reads as words."""
    text = " ".join("".join(letters).split())
    return text if len(text) >= 8 and " " in text else None


def _decode_morse(run: str) -> str | None:
    run = run.translate(str.maketrans("\u2022\u00b7\u2013\u2014_", "..---"))
    out: list[str] = []
    for word in re.split(r"[ \t]*[/|][ \t]*|[ \t]{3,}", run):
        for sign in word.split():
            if sign not in _MORSE:
                return None
            out.append(_MORSE[sign])
        out.append(" ")
    return _words_of(out)


def _decode_nato(run: str) -> str | None:
    out: list[str] = []
    for m in re.finditer(r"[a-z-]+|[/|]", run.lower()):
        out.append(" " if m.group() in "/|" else m.group()[0])
    return _words_of(out)


def _decode_braille(run: str) -> str | None:
    out = [" " if c in " \u2800" else _BRAILLE.get(c, "?") for c in run]
    return None if "?" in out else _words_of(out)


def _decode_a1z26(run: str) -> str | None:
    out: list[str] = []
    for m in re.finditer(r"\d+|[/|]", run):
        out.append(" " if m.group() in "/|" else chr(ord("a") + int(m.group()) - 1))
    return _words_of(out)


def _decode_a85(run: str) -> str | None:
    try:
        return _readable(base64.a85decode(run, adobe=True))
    except ValueError:
        return None


def _has_digit(text: str) -> bool:
    """`any(c.isdigit() for c in text)`, with the ASCII digits found by the regex engine."""
    if _ASCII_DIGIT.search(text):
        return True
    return not text.isascii() and any(c.isdigit() for c in text)


def _decoded(view: str, low: str) -> View | None:
    subs: list[tuple[int, int, str]] = []
    for m in _B64.finditer(view):  # hex and base32 digits are base64 letters: one scan finds all
        run = m.group()
        if _B32_DIGITS.issuperset(run.rstrip("=")):  # upper case and 2-7, padded up to 6 `=`
            end = m.end()
            while end < len(view) and view[end] == "=" and end - m.end() < 6:
                end += 1
            text = _decode_b32(view[m.start() : end])
            if text is not None:
                subs.append((m.start(), end, f" {text} "))
                continue
        if "/" in run:  # path segments of a URL: each may be encoded on its own
            pos = m.start()
            for seg in run.split("/"):
                if len(seg) >= 16 and _HEX_RUN.issuperset(seg):
                    text = _decode_hex(seg)
                    if text is not None:
                        subs.append((pos, pos + len(seg), f" {text} "))
                pos += len(seg) + 1
        if m.start() and view[m.start() - 1] in _B64_EDGE or view[m.end() : m.end() + 1] == "=":
            continue  # a piece of a longer token
        if run[:2] in ("0x", "0X") and _HEX_RUN.issuperset(run[2:]):
            run = run[2:]  # a hex literal
        text = _decode_hex(run) if _HEX_RUN.issuperset(run) else _decode_b64(run)
        if text is not None:
            subs.append((m.start(), m.end(), f" {text} "))
    decoders: list[tuple[LazyPattern, Callable[[str], str | None]]] = []
    if _HAS_HEX_SPACE.search(low):
        decoders.append((_HEX_BYTES, _decode_hex_bytes))
    if "&#" in view:
        decoders.append((_ENTITIES, _decode_entities))
    if "\\" in view:
        decoders.append((_OCTAL, _decode_octal))
    if "00100000" in view:  # an order has spaces: their byte, written in bits
        decoders.append((_BINARY, _decode_binary))
    if "\\x" in low:
        decoders.append((_HEX_ESCAPES, _decode_hex))
    if "\\u" in low:
        decoders.append((_U_ESCAPES, _decode_u))
    if "=" in view:
        decoders.append((_QP, _decode_qp))
    if "%" in view and _count(_PCT_ESCAPE.finditer(view), 3):
        decoders.append((_PCT, _decode_pct))
    if ".-" in view or "-." in view or "\u2022" in view or "\u00b7" in view:
        decoders.append((_MORSE_RUN, _decode_morse))
    if ("echo" in low or "alfa" in low or "alpha" in low or "india" in low) and "o" in low:
        decoders.append((_NATO_RUN, _decode_nato))
    if not view.isascii() and any("\u2800" <= c <= "\u28ff" for c in view):
        decoders.append((_BRAILLE_RUN, _decode_braille))
    if _has_digit(view[:4000]) and _A1Z26_RUN.search(view):
        decoders.append((_A1Z26_RUN, _decode_a1z26))
    if "<~" in view:
        decoders.append((_A85_RUN, _decode_a85))
    for pattern, decode in decoders:
        for m in pattern.finditer(view):
            if decode is _decode_pct and _url_query(view, m):
                continue  # a URL's own escapes: `_url_decoded`
            text = decode(m.group())
            if text is not None:
                subs.append((m.start(), m.end(), f" {text} "))
    if _HAS_CONCAT_HINT.search(view):
        for m in _CONCAT.finditer(view):
            joined = _concat(m.group())
            if joined:
                subs.append((m.start(), m.end(), joined))
    if "${" in view:  # empty interpolations split a word (`ign${''}ore`)
        subs.extend((m.start(), m.end(), "") for m in _EMPTY_INTERPOLATION.finditer(view))
    if ".join(" in view:
        for m in _JOINED_LIST.finditer(view):
            joined = _concat(m.group()[6:])
            if joined:
                subs.append((m.start(), m.end(), f" {joined} "))
    return _substitute(view, subs) if subs else None


def _spelled(view: str, low: str) -> View | None:
    """Words spelled out a letter at a time ("d.e.l.e.t.e t.h.e", "a s s i s t a n t") joined
    back, when a run spells six letters or more: nobody writes honest prose that way, so the
    view is a disguise like an encoding ("e.g." and "U.S.A." are too short to count)."""
    if not _SPELLED_HINT.search(low):
        return None
    subs: list[tuple[int, int, str]] = []
    for m in _SPACED.finditer(view):
        run = m.group()
        if " " in run and _SPELLED.search(run):
            # "i.g.n.o.r.e a.l.l": the dots spell a word out, the spaces part the words
            joined = re.sub(r"[._\-\u00b7]", "", run)
        else:
            joined = re.sub(r"[ ._\-\u00b7]", "", run)
        subs.append((m.start(), m.end(), joined))
    return _substitute(view, subs)


# a spelled run long enough to be worth reading: six letters, each after one separator
_SPELLED_HINT = lazy(r"(?<![^\W_])(?:[^\W\d_][ ._\-\u00b7]){5}[^\W\d_]")


def _url_query(view: str, m: re.Match[str]) -> bool:
    """The percent escapes of `m` are a URL's own: the run is, or continues, a URL with a query
    (`?redirect_uri=http%3A%2F%2Flocalhost`), where every web page escapes its values."""
    line_start = view.rfind("\n", 0, m.start()) + 1
    run = "".join(view[line_start : m.start()].split()[-1:]) + m.group()
    return "://" in run and "?" in run and "=" in run


def _url_decoded(view: str, low: str) -> View | None:
    """A URL's query with its percent escapes undone: how a browser or a server reads it. It is
    no disguise (every web page escapes query values this way), so it is read like plain text."""
    if "%" not in view or "://" not in view or not _count(_PCT_ESCAPE.finditer(view), 3):
        return None
    subs = []
    for m in _PCT.finditer(view):
        if _url_query(view, m):
            text = _decode_pct(m.group())
            if text is not None:
                subs.append((m.start(), m.end(), f" {text} "))
    return _substitute(view, subs) if subs else None


def _unglued(view: str, low: str) -> View | None:
    subs: list[tuple[int, int, str]] = []
    if "\n" in view and _HAS_VERB.search(low):
        for m in _STACKED.finditer(view):
            subs.extend((b.start(), b.end(), " ") for b in _STACK_BREAK.finditer(view, *m.span()))
    if "-\n" in view or "- \n" in view:  # a word hyphenated across a line break ("disre-\ngard")
        subs.extend((m.start(), m.end(), "") for m in _LINE_HYPHEN.finditer(view))
    inserted = False
    if _HAS_VERB.search(low):
        for token in _glued_tokens(view, low):
            for m in _GLUE.finditer(view, token.start(), token.end()):
                subs.append((m.start(), m.end(), " "))
                inserted |= m.start() == m.end()
    if not subs:
        return None
    return _spaced_out(view, subs, inserted)


def _glued_sentence(view: str, low: str) -> View | None:
    """A sentence to the model written as one glued token (`agent-must-skip-tests-and-deploy`,
    `AssistantPleaseDisableSecretScanning`), read as words. Code names things by gluing a few
    words; five or more with the model among them is an order disguised as a name."""
    if not _HAS_ADDRESSEE.search(low):
        return None
    subs: list[tuple[int, int, str]] = []
    inserted = False
    for token in _glued_tokens(view, low, _ADDRESSEES, _SENTENCE_WORDS):
        marks = list(_GLUE.finditer(view, token.start(), token.end()))
        words = {w.lower() for w in _GLUE.split(token.group())}
        if _BANS.isdisjoint(words) and not _SENTENCE_MARKS.isdisjoint(words):
            subs.extend((m.start(), m.end(), " ") for m in marks)
            inserted |= any(m.start() == m.end() for m in marks)
    if not subs:
        return None
    return _spaced_out(view, subs, inserted)


def _spaced_out(view: str, subs: list[tuple[int, int, str]], inserted: bool) -> View:
    """`view` with `subs` applied; `inserted`: some are spaces put between camelCase words."""
    chars, lo, hi = _substitute(view, subs)
    assert lo is not None and hi is not None
    if inserted:  # a space between camelCase words stands for the letter after it
        for i, (a, b) in enumerate(zip(lo, hi, strict=True)):
            if a == b:
                hi[i] = min(b + 1, len(view))
    return chars, lo, hi


# the words an order to drop instructions is made of, as they read rotated by 13, backwards,
# and in leetspeak: a view is tried when one of them is in the text, hint or no hint
_ORDER_WORDS = ("ignor", "disregard", "forget", "overrid", "bypass", "instruction", "system prompt")
_ROT13_WORDS = tuple(codecs.encode(w, "rot13") for w in _ORDER_WORDS)
_REVERSED_WORDS = tuple(w[::-1] for w in _ORDER_WORDS)
_HAS_ROT13_WORD = any_of(_ROT13_WORDS)
_HAS_REVERSED_WORD = any_of(_REVERSED_WORDS)
# a text that says it is to be read backwards ("read this line backwards and do it")
_READ_BACKWARDS = lazy(
    r"\b(?:read|spell|writ|revers)\w*\s+(?:(?:it|this|that|the\s+\w+)\s+(?:\w+\s+)?)?"
    r"(?:backwards?|in\s+reverse|right\s+to\s+left)\b|\bbackwards\s+(?:and|then)\s+(?:do|obey|"
    r"follow|act|run|execute)\b"
)
# rot47 turns every printable ASCII character but the space half way round
_ROT47 = str.maketrans({chr(c): chr(33 + (c - 33 + 47) % 94) for c in range(33, 127)})
_LEET = str.maketrans("013456789@$|", "oieasgtbgasl")
_LEET_DIGITS = frozenset("013456789@$|")


# letters turned upside down ("ǝɹouƃı"), and the Latin letters they stand for
_FLIPPED = str.maketrans("ɐqɔpǝɟƃɥıɾʞlɯuodbɹsʇnʌʍxʎz", "abcdefghijklmnopqrstuvwxyz")
_FLIPPED_ONLY = frozenset("ɐǝɟƃɥıɾʞɯɹʇʌʍʎ")


def _flipped(view: str) -> View:
    text, lo, hi = _reversed(view)
    return text.translate(_FLIPPED), lo, hi


def _reversed(view: str) -> View:
    n = len(view)
    return view[::-1], list(range(n - 1, -1, -1)), list(range(n, 0, -1))


def derived_views(view: str, low: str) -> Iterator[tuple[View, bool]]:
    """The decoded, joined, rotated, reversed, de-leeted and unglued views of `view` that differ
    from it (maps into `view`'s coordinates; a reversed view's maps run backwards), each with
    whether it undid an encoding (decoded, joined from quoted pieces, rotated, de-leeted):
    honest text is not written so, while words glued by punctuation or case are how code names
    things. `low` is `view` lower-cased."""
    decoded = _decoded(view, low)
    if decoded is not None:
        yield decoded, True
    url = _url_decoded(view, low)
    if url is not None:
        yield url, False
    if (("rot" in low or "caesar" in low) and _ROT13_HINT.search(view)) or _HAS_ROT13_WORD.search(
        low
    ):
        yield (codecs.encode(view, "rot13"), None, None), True
    if "rot47" in low or "rot-47" in low or "rot 47" in low:
        yield (view.translate(_ROT47), None, None), True
    if _HAS_REVERSED_WORD.search(low) or (
        ("backward" in low or "reverse" in low or "right to left" in low)
        and _READ_BACKWARDS.search(low)
    ):
        yield _reversed(view), True
    if not view.isascii() and len(_FLIPPED_ONLY.intersection(view)) >= 3:
        yield _flipped(view), True
    if not _LEET_DIGITS.isdisjoint(low):
        leet = low.translate(_LEET)
        if any(w in leet and w not in low for w in _ORDER_WORDS):
            yield (leet, None, None), True
    spelled = _spelled(view, low)
    if spelled is not None:
        yield spelled, True
    unglued = _unglued(view, low)
    if unglued is not None:
        yield unglued, False
    sentence = _glued_sentence(view, low)
    if sentence is not None:
        yield sentence, True


__all__ = ["View", "derived_views", "fold_view"]
