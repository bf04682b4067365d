"""When a -U0 hunk cannot move a symbol boundary: the per-language rules `spans.derive` uses.

A hunk replaces lines X by lines Y inside one container (a symbol, or the module). It is *inert*
when the spans of the other side follow from shifting line numbers, which holds when:

- lexical state cannot change: every changed line's strings close on the line, and no line opens
  or closes a block comment, a multi-line string (Python triple quotes, a template literal or raw
  string left open) or continues with a backslash;
- the bracket structure outside the hunk is unchanged: X and Y reduce (matched pairs removed,
  string and comment contents ignored) to the same unmatched brackets, e.g. `} else {` for both;
- no changed line can declare a symbol the chunkers capture in that container (the keywords
  below, per language), or attach to one (a decorator or attribute line);
- the container cannot gain members without a keyword (class bodies of JS / TS / Java can:
  `m() {}` is a method), so those containers are refused.

The rules are conservative: a line they cannot read (an unterminated quote, a regex literal) is
refused, and the caller parses. Valid syntax is assumed on both sides, as in every commit a
project builds; a change that breaks the syntax is the one case where a parse could differ.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ..store.regexcache import compile_pattern

_DQ = rb'"(?:[^"\\\n]|\\.)*"'
_SQ = rb"'(?:[^'\\\n]|\\.)*'"
_RUNE = rb"'(?:[^'\\\n]|\\[^'\n]{1,10})'"
_BLOCK_COMMENT = rb"/\*[\s\S]*?\*/"
_TRIPLES = rb'"""[\s\S]*?"""|' + rb"'''[\s\S]*?'''"
# strings and comments of a whole block of changed lines (a comment or a string may span them)
_SCRUB = {
    "python": compile_pattern(
        rb"[rRbBuUfF]{0,2}(?:" + _TRIPLES + b"|" + _DQ + b"|" + _SQ + rb")|#[^\n]*"
    ),
    "js": compile_pattern(_BLOCK_COMMENT + b"|" + _DQ + b"|" + _SQ + rb"|`[^`]*`|//[^\n]*"),
    "go": compile_pattern(_BLOCK_COMMENT + b"|" + _DQ + b"|" + _RUNE + rb"|`[^`]*`|//[^\n]*"),
    "rust": compile_pattern(_BLOCK_COMMENT + rb"|b?" + _DQ + rb"|b?" + _RUNE + rb"|//[^\n]*"),
    "java": compile_pattern(
        _BLOCK_COMMENT + rb'|"""[\s\S]*?"""|' + _DQ + b"|" + _RUNE + rb"|//[^\n]*"
    ),
}
_FAMILY = {
    "python": "python",
    "javascript": "js",
    "typescript": "js",
    "tsx": "js",
    "go": "go",
    "rust": "rust",
    "java": "java",
}
# what is left of a string or comment the block does not close
_OPEN_LEX = {
    "python": compile_pattern(rb"[\"']|\\[ \t]*$"),
    "js": compile_pattern(rb"[\"'`]|/\*|\*/"),
    "go": compile_pattern(rb"[\"'`]|/\*|\*/"),
    "rust": compile_pattern(rb"\"|/\*|\*/"),
    "java": compile_pattern(rb"[\"']|/\*|\*/"),
}
_RUST_RAW = compile_pattern(rb'r#+"')
# declarations anywhere in a container
_DECLARE = {
    "python": compile_pattern(rb"^\s*(?:@|(?:async\s+)?def\b|class\b)"),
    "js": compile_pattern(
        rb"\b(?:class|interface|enum|namespace|declare|abstract)\b|^\s*@"
        rb"|(?:^|[;{]|\bexport\s)\s*type\s+[A-Za-z_$][\w$]*\s*[=<]"
    ),
    "go": compile_pattern(rb"\btype\b"),
    "rust": compile_pattern(rb"\b(?:fn|struct|enum|union|trait|impl|type|mod|macro_rules)\b|#!?\["),
    "java": compile_pattern(rb"\b(?:class|interface|enum|record)\b|^\s*@"),
}
# declarations at module level only (Go closures and JS callbacks inside bodies are no symbols)
_DECLARE_TOP = {
    "js": compile_pattern(rb"\bexports\b"),
    # `func`, and what may be a type spec inside a `type (...)` group (`Name T`, `Name = T`)
    "go": compile_pattern(
        rb"\bfunc\b|^\s*(?!(?:var|const|import|package)\b)[A-Za-z_]\w*(?:\[[^\]]*\])?\s*(?:=\s*)?"
        rb"(?<=[\s=\]])[A-Za-z_*\[(]"
    ),
}
# JS: a function value is a symbol when a declaration or an assignment holds it
# (`const f = () => 1`), or, at module level, when it is the third argument of a call
# (`defineGetter(obj, 'name', function () {})`); never as another argument (`it('x', () => {})`)
_JS_TOKENS = compile_pattern(rb"[(\[{]|[)\]}]|,|\bfunction\b|=>")
# JS at module level: `name(...) {` is a method of an object literal (`module.exports = {...}`)
_JS_SHORTHAND = compile_pattern(
    rb"([A-Za-z_$][\w$]*)\s*\((?:[^()]|\([^()]*\))*\)\s*(?::[^{}=;]*)?\{"
)
_NOT_METHODS = frozenset(
    {b"function", b"if", b"for", b"while", b"switch", b"catch", b"with", b"return", b"await"}
)
_JS_REGEX = compile_pattern(rb"(?:^|[=(,:!&|?;{}\[]|\breturn)\s*/(?![/*])")
_BRACKETS = compile_pattern(rb"[()\[\]{}]")
_PAIRS = {b")": b"(", b"]": b"[", b"}": b"{"}
# container kinds whose body cannot gain a symbol without one of the keywords above
_CONTAINERS = {
    "python": None,  # Python has its own indentation rules in `spans`
    "js": frozenset({"module", "function", "method", "interface", "type", "enum"}),
    "go": frozenset({"module", "function", "method", "struct", "interface", "type"}),
    # Rust's module level also, when `separated` holds (an attribute attaches across blanks)
    "rust": frozenset({"function", "method", "struct", "enum", "type", "impl", "trait", "module"}),
    "java": frozenset({"module", "function", "method"}),
}
# the structural-only languages keep the first, strictest rule: only inside functions, and no
# line with a brace, a declaration word or a string delimiter that can span lines
_GENERIC = compile_pattern(
    rb"[{}`]|/\*|\*/|\"\"\"|=>|\\[ \t]*$|\b(?:def|end|do|begin|function|func|fn|class|struct|enum"
    rb"|trait|impl|interface|type|module|namespace|macro_rules|record|package|import|export)\b",
    re.M,
)
_GENERIC_CONTAINERS = frozenset({"function", "method"})


# a statement that goes on across the hunk's edge: `a.b =` then `a.c = function`, or a line
# that continues the statement before it (`.bind(x)`, and in JS `(`, `[` and a template)
_ENDS_OPEN = compile_pattern(
    rb"(?:[=,.+\-*/%&|^!?:<>~]|\b(?:return|new|typeof|in|of|instanceof|await|yield|export"
    rb"|default|extends|async|var|let|const))\s*$"
)
_ENDS_DECLARING = compile_pattern(
    rb"(?:=|\b(?:return|new|export|default|extends|async|var|let|const|await|yield))\s*$"
)
_STARTS_OPEN = {
    "js": compile_pattern(rb"^\s*(?:[.?:,+\-*/%&|^<>=!~(\[`]|(?:in|of|instanceof)\b)"),
    "go": compile_pattern(rb"^\s*[.?:,+\-*/%&|^<>=!~]"),
    "java": compile_pattern(rb"^\s*[.?:,+\-*/%&|^<>=!~]"),
}


_CLOSES_VALUE = compile_pattern(rb"\}[\s);,]*$")


def family(language: str | None) -> str | None:
    return _FAMILY.get(language or "")


def container_ok(language: str | None, kind: str) -> bool:
    """Whether a hunk inside a symbol of `kind` (or "module") may be derived at all."""
    fam = family(language)
    if fam is None:
        return kind in _GENERIC_CONTAINERS
    allowed = _CONTAINERS[fam]
    return allowed is None or kind in allowed


def shape(
    lines: list[bytes],
    language: str | None,
    top: bool,
    follows_symbol: bool = True,
    plain_before: bool = False,
) -> bytes | None:
    """The unmatched brackets of a block of changed lines, or None when a line might change the
    symbol structure (`top`: the lines sit at module level; `follows_symbol`: a symbol inside
    the same container ends before them, so a line that continues a statement may extend it;
    `plain_before`: the statement before the lines is known to hold no symbol and to become
    none when continued or cut, see `plain_statement`)."""
    fam = family(language)
    block = b"\n".join(lines)
    if fam is None:
        if _GENERIC.search(block):
            return None
        return _reduce(_BRACKETS.findall(block))
    if fam == "rust" and _RUST_RAW.search(block):
        return None
    code = _SCRUB[fam].sub(_blank, block)
    open_lex, declare = _OPEN_LEX[fam], _DECLARE[fam]
    top_declare = _DECLARE_TOP.get(fam) if top else None
    code_lines = code.split(b"\n")
    if fam == "js" or (top and fam in _STARTS_OPEN):
        filled = [line for line in code_lines if line.strip()]
        # inside a body only a declaration can be made by what follows (`const f =`), and
        # only a symbol before the hunk can be extended
        ends_open = _ENDS_OPEN if top else _ENDS_DECLARING
        if filled and (
            ends_open.search(filled[-1])
            or ((top or follows_symbol) and not plain_before and _STARTS_OPEN[fam].match(filled[0]))
        ):
            return None
        if fam == "js":
            # a line continuing a function value that closes inside the block (`})` then
            # `.call(x)`): whether that value is a symbol changes with it
            for before, line in zip(filled, filled[1:], strict=False):
                if _STARTS_OPEN[fam].match(line) and _CLOSES_VALUE.search(before):
                    return None
    for line in code_lines:
        if open_lex.search(line) or declare.search(line):
            return None
        if top_declare is not None and top_declare.search(line):
            return None
        if fam == "js" and (_JS_REGEX.search(line) or _js_function(line, top)):
            return None
    brackets = _reduce(_BRACKETS.findall(code))
    if brackets is None or fam != "python":
        return brackets
    # Python: the compound-statement headers (`if x:`) and their indentation, which decide
    # the block the lines after the hunk belong to
    heads = [b"%d" % _indent(line) for line in code.split(b"\n") if line.rstrip().endswith(b":")]
    return brackets + b"|" + b",".join(heads)


def needs_separation(language: str | None, kind: str) -> bool:
    """Whether a hunk in a container of `kind` is derived only when `separated` holds: at
    Rust's module level, an attribute left without its item (or a line removed from between an
    attribute and an item) joins the next symbol across blank and comment lines."""
    return kind == "module" and family(language) == "rust"


def _comment_or_blank(line: bytes) -> bool | None:
    """True for a blank or `//` line, False for code, None when a block comment may be open."""
    text = line.strip()
    if b"/*" in text or b"*/" in text:
        return None
    return not text or text.startswith(b"//")


def _last_code(lines: list[bytes]) -> tuple[bytes | None, bool]:
    """(the last line of code among `lines` or None, whether that is certain: no block comment
    on the way)."""
    for line in reversed(lines):
        kind = _comment_or_blank(line)
        if kind is None:
            return None, False
        if not kind:
            return line, True
    return None, True


_RUST_HEADER = compile_pattern(rb"\b(?:fn|struct|enum|union|trait|impl|type)\b")


def needs_header(language: str | None, kind: str) -> bool:
    """Whether a hunk in a Rust symbol must be checked to lie below its header: a symbol starts
    at its attributes, and a line put between them and the header splits them off."""
    return kind != "module" and family(language) == "rust"


def below_header(known: list[bytes] | None, start: int, upto: int) -> bool:
    """Whether one of the known side's lines start..upto (1-based) holds the symbol's header
    (a declaration keyword outside strings and comments), i.e. the hunk after `upto` is not
    among the attributes above it."""
    if known is None:
        return False
    for k in range(start, min(upto, len(known)) + 1):
        code = _SCRUB["rust"].sub(_blank, known[k - 1])
        if not code.lstrip().startswith(b"#") and _RUST_HEADER.search(code):
            return True
    return False


def separated(
    known: list[bytes] | None,
    x_lines: list[bytes],
    y_lines: list[bytes],
    above: int,
    below: int,
    symbol_start: int | None,
) -> bool:
    """Whether the next symbol's first line (after its attributes) is the same on both sides of
    a Rust module-level hunk: the attributes above a symbol are found by walking up over blank
    and comment lines to the first code line, which belongs to them only when it closes a `]`.
    `known` is the known side's text (1-based lines; the hunk replaced `x_lines` by `y_lines`
    between its lines `above` and `below`), `symbol_start` the first line of the next symbol
    (None: none follows). A block comment on the way, or no text, gives False."""
    if symbol_start is None:
        return True
    if known is None:
        return False
    for k in range(below, min(symbol_start, len(known) + 1)):
        kind = _comment_or_blank(known[k - 1])
        if kind is None:
            return False
        if not kind:
            return True  # a statement between the hunk and the symbol stops every walk
    above_line, above_clear = _last_code(known[: max(0, above)])
    for side in (x_lines, y_lines):
        stop, clear = _last_code(side)
        if stop is None and clear:
            stop, clear = above_line, above_clear
        if not clear or (stop is not None and b"]" in stop):
            return False
    return True


def continues_across(language: str | None, top: bool) -> bool:
    """Whether `plain_statement` can lift the refusal of a line that continues the statement
    before it (JS and TS at module level: chained calls in test suites)."""
    return top and family(language) == "js"


def plain_statement(
    known: list[bytes] | None, above: int, symbol_ends_on: Callable[[int], Any]
) -> bool:
    """Whether the statement ending on the known side's last code line at or above line `above`
    (1-based) holds no symbol now (no symbol ends on that line: `symbol_ends_on(line)` is true,
    or an array with a true element, when one does) and becomes none when a line
    continuing it (`.then(...)`) is added or removed: a function value held by a declaration,
    an assignment or a call ends with `}` (then `)`, `;` or `,` at most), unless it is an arrow
    with an expression body, which is a symbol already and so ends there."""
    if known is None:
        return False
    for k in range(min(above, len(known)), 0, -1):
        kind = _comment_or_blank(known[k - 1])
        if kind is None:
            return False
        if not kind:
            break
    else:
        return False  # nothing above: no statement to continue (the caller refuses as before)
    line = known[k - 1]
    if bool(np.any(symbol_ends_on(k))) or b"`" in line:
        return False
    for code in (line, line.split(b"//", 1)[0]):
        if code.rstrip().rstrip(b");,").rstrip().endswith(b"}"):
            return False
    return True


def compatible(x_shape: bytes | None, y_shape: bytes | None) -> bool:
    """Whether replacing lines of shape X by lines of shape Y leaves the structure around them
    as it was: the same unmatched brackets, and (Python) the same block headers, or headers only
    added (lines after the hunk cannot leave a symbol for a new block: `spans` checks that
    added lines stay inside their symbol)."""
    if x_shape is None or y_shape is None:
        return False
    if x_shape == y_shape:
        return True
    x_br, _, x_heads = x_shape.rpartition(b"|")
    y_br, _, y_heads = y_shape.rpartition(b"|")
    return x_br.count(b"|") == 1 and x_br == y_br and not x_heads


def _indent(line: bytes) -> int:
    stripped = line.lstrip(b" \t")
    head = line[: len(line) - len(stripped)]
    return len(head.expandtabs(8)) if b"\t" in head else len(head)


def names(lines: list[bytes], qualname: str) -> bool:
    """Whether the lines name the symbol (its header, or a line as good as one)."""
    name = qualname.rsplit(".", 1)[-1].encode("utf-8", "replace")
    if not lines or name not in b"".join(lines):
        return False
    return (
        re.search(rb"(?<![\w$])" + re.escape(name) + rb"(?![\w$])", b"\n".join(lines)) is not None
    )


def _blank(m: re.Match[bytes]) -> bytes:
    return b" " + b"\n" * m.group().count(b"\n")


def _js_function(code: bytes, top: bool) -> bool:
    """Whether a line may hold a JS function that is a symbol (see `_JS_TOKENS`)."""
    if top:
        for m in _JS_SHORTHAND.finditer(code):
            if m.group(1) not in _NOT_METHODS:
                return True
    if b"=>" not in code and b"function" not in code:
        return False
    commas: list[int] = []
    for m in _JS_TOKENS.finditer(code):
        t = m.group()
        if t in (b"(", b"[", b"{"):
            commas.append(0)
        elif t in (b")", b"]", b"}"):
            if commas:
                commas.pop()
        elif t == b",":
            if commas:
                commas[-1] += 1
        elif not commas or (top and len(commas) == 1 and commas[0] >= 2):
            return True
    return False


def _reduce(brackets: list[bytes]) -> bytes | None:
    """Matched pairs removed: the closers left (in order), then the openers left; None when a
    closer meets another kind of opener (the text is not code these rules can read)."""
    closers: list[bytes] = []
    stack: list[bytes] = []
    for b in brackets:
        want = _PAIRS.get(b)
        if want is None:
            stack.append(b)
        elif stack:
            if stack.pop() != want:
                return None
        else:
            closers.append(b)
    return b"".join(closers) + b"|" + b"".join(stack)
