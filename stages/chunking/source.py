"""One decoded source file plus the lexical facts every backend shares.

`Source.masked` is the text with the inside of every comment and string replaced by spaces (the
first character of a string and a closing quote are kept so a line holding only a string is not
blank). It has exactly the length and the line breaks of `Source.text`, so offsets and line
numbers are interchangeable between the two. Declaration regexes and bracket matching run on the
masked text and therefore never see a brace, quote or keyword inside a string or comment.

Line numbers are 0-based inside this module (1-based in `Symbol`). A line is a run of text ended
by "\\n" (the numbering git uses; a lone "\\r" is not a line break). Signatures, leading comments,
decorator extension and end trimming live here so that every backend computes them identically.
"""

from __future__ import annotations

import ast
import bisect
import inspect
import re
from itertools import accumulate
from typing import Any

from ...store.regexcache import compile_pattern

_PLUS_ONE = (1).__add__

_DQ_LINE = r'"(?:[^"\\\n]|\\[\s\S])*"?'
_DQ_MULTI = r'"(?:[^"\\]|\\[\s\S])*"?'
_SQ_LINE = r"'(?:[^'\\\n]|\\[\s\S])*'?"
_SQ_MULTI = r"'(?:[^'\\]|\\[\s\S])*'?"
_CHAR = r"'(?:[^'\\\n]|\\[^'\n]{1,10}|\\')'"
_TRIPLE = r'"""[\s\S]*?(?:"""|\Z)'
_TEMPLATE = r"`(?:[^`\\]|\\[\s\S])*`?"
_JS_REGEX = (
    r"(?:(?<=[=(,:!&|?;{}\[])|(?<=[=(,:!&|?;{}\[] )|(?<=\breturn ))/(?![/*])"
    r"(?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\]){1,300}/[a-z]*"
)
# a preprocessor line: `#` first on its line (approximated by: at the start or after whitespace)
_PREPROC = r"(?<!\S)#(?:[^\n\\]|\\[\s\S])*"


def _lexer(first: str, comments: list[str], strings: list[str]) -> re.Pattern[str]:
    # the lookahead on the first character lets the scan skip ordinary code quickly
    body = f"(?P<c>{'|'.join(comments)})|(?P<s>{'|'.join(strings)})"
    return compile_pattern(f"(?=[{first}])(?:{body})")


_LINE_C = [r"//[^\n]*", r"/\*[\s\S]*?(?:\*/|\Z)"]
_LEXERS: dict[str, re.Pattern[str]] = {
    "python": _lexer(
        "#'\"rbufRBUF",
        [r"#[^\n]*"],
        [
            r"(?<!\w)(?i:[rbuf]{0,2})(?:'''[\s\S]*?(?:'''|\Z)|\"\"\"[\s\S]*?(?:\"\"\"|\Z)|"
            + _SQ_LINE
            + "|"
            + _DQ_LINE
            + ")"
        ],
    ),
    "js": _lexer("/\"'`", _LINE_C, [_DQ_LINE, _SQ_LINE, _TEMPLATE, _JS_REGEX]),
    "go": _lexer("/\"'`", _LINE_C, [_DQ_LINE, r"`[^`]*`?", _CHAR]),
    "rust": _lexer(
        "/\"'br",
        _LINE_C,
        [r"b?r(?P<h>#*)\"[\s\S]*?(?:\"(?P=h)|\Z)", r"b?" + _DQ_MULTI, r"b?" + _CHAR],
    ),
    "java": _lexer("/\"'", _LINE_C, [_TRIPLE, _DQ_LINE, _CHAR]),
    "c": _lexer(
        "/\"'R#",
        [*_LINE_C, _PREPROC],
        [r'R"(?P<d>[^(\s"]{0,16})\([\s\S]*?\)(?P=d)"', _DQ_LINE, _CHAR],
    ),
    "csharp": _lexer(
        "/\"'@$#", [*_LINE_C, _PREPROC], [r'\$?@\$?"(?:[^"]|"")*"?', _TRIPLE, _DQ_LINE, _CHAR]
    ),
    "kotlin": _lexer("/\"'", _LINE_C, [_TRIPLE, _DQ_LINE, _CHAR]),
    "php": _lexer("/\"'#", [*_LINE_C, r"#(?!\[)[^\n]*"], [_DQ_MULTI, _SQ_MULTI]),
    "ruby": _lexer(
        "#\"'=",
        [r"#[^\n]*", r"(?m:^=begin\b[\s\S]*?(?:^=end\b[^\n]*|\Z))"],
        [_DQ_MULTI, _SQ_MULTI],
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
    "c": "c",
    "cpp": "c",
    "csharp": "csharp",
    "kotlin": "kotlin",
    "swift": "kotlin",
    "scala": "kotlin",
    "php": "php",
    "ruby": "ruby",
}
_QUOTE_END = frozenset("\"'`\n")

# what a line must look like to be part of a leading doc comment, per comment style
_LINE_COMMENT = compile_pattern(r"^\s*(?://+!?|#+)\s?")
_HASH_LANGS = frozenset({"python", "ruby", "php"})
# a comment line that speaks to a tool, not to a reader (a linter, formatter, type checker,
# coverage counter or compiler): not part of a symbol's doc
_DIRECTIVE = compile_pattern(
    r"(?:eslint-(?:disable|enable|env)|prettier-ignore|@ts-(?:ignore|expect-error|nocheck|check)"
    r"|(?:istanbul|c8|v8) ignore|biome-ignore|deno-(?:lint|fmt)-ignore|tslint:|jshint |jscs:"
    r"|nolint\b|NOLINT|go:[a-z]+\b|\+build |noinspection |#(?:end)?region\b|cspell:"
    r"|spell-checker:|@jsx(?:Runtime|ImportSource|Frag)?\b|@flow\b|type: ?ignore\b|noqa\b"
    r"|pylint: ?(?:disable|enable)|fmt: ?(?:off|on|skip)\b|rubocop:(?:disable|enable|todo)"
    r"|phpcs:|@phpstan-|@psalm-)"
)
_ANNOTATIONS = compile_pattern(r"^(?:@[\w.$]+(?:\s*\((?:[^()]|\([^()]*\))*\))?\s*)+")
_SPACE_AFTER_OPEN = compile_pattern(r"([(\[]) ")
_SPACE_BEFORE_CLOSE = compile_pattern(r" ([)\]])")
_TRAILING_COMMA = compile_pattern(r",\)")
_HEADER_PY = compile_pattern(r"[()\[\]{}:\n\\]")
_HEADER_BRACE = compile_pattern(r"[()\[\]{};\n<>]")
_BRACKETS = compile_pattern(r"[()\[\]]")
_DECORATOR_LINE = compile_pattern(r"@[\w.$]+(?:\s+@[\w.$]+)*")
SIGNATURE_MAX = 300


def _blank(s: str) -> str:
    if "\n" not in s:
        return " " * len(s)
    return "\n".join(" " * len(part) for part in s.split("\n"))


def decode(source: bytes) -> tuple[str, bytes]:
    """Text (UTF-8, invalid bytes replaced, BOM dropped) and the bytes a parser should see."""
    try:
        text = source.decode("utf-8")
        raw = source
    except UnicodeDecodeError:
        text = source.decode("utf-8", "replace")
        raw = b""
    if text.startswith("\ufeff"):
        text = text[1:]
        raw = b""
    return text, raw or text.encode("utf-8")


def covered_lines(text: str, language: str | None) -> list[tuple[int, int]]:
    """(first, last) 1-based lines of each comment or string of `text` that runs over more than
    one line, in order: lines 2 to last of such a token start inside it (the lexer `Source`
    masks with; none for a language without one)."""
    lexer = _LEXERS.get(_FAMILY.get(language or "", ""))
    if lexer is None or "\n" not in text:
        return []
    out = []
    line, at = 1, 0
    for m in lexer.finditer(text):
        start, end = m.span()
        inner = text.count("\n", start, end)
        if inner:
            line += text.count("\n", at, start)
            out.append((line, line + inner))
            line += inner
            at = end
    return out


class Source:
    """A decoded file, its masked twin, line table and string-literal spans."""

    __slots__ = ("text", "raw", "language", "masked", "strings", "line_starts", "n_lines")

    def __init__(self, source: bytes, language: str | None) -> None:
        self.text, self.raw = decode(source)
        self.language = language
        text = self.text
        # 0, then one past each "\n": running sums of the line lengths plus their newline
        self.line_starts = list(
            accumulate(map(_PLUS_ONE, map(len, text.split("\n")[:-1])), initial=0)
        )
        n = len(self.line_starts)
        if text.endswith("\n"):
            n -= 1
        self.n_lines = max(1, n)
        self.strings: dict[int, int] = {}
        lexer = _LEXERS.get(_FAMILY.get(language or "", ""))
        self.masked = text if lexer is None else lexer.sub(self._mask, text)

    def _mask(self, m: re.Match[str]) -> str:
        # called once per comment and string of the file: the one-line case is inlined
        tok = m.group()
        if m.group("c") is not None:
            return " " * len(tok) if "\n" not in tok else _blank(tok)
        self.strings[m.start()] = m.end()
        if len(tok) < 2:
            return tok
        last = tok[-1] if tok[-1] in _QUOTE_END else " "
        if "\n" not in tok:
            return tok[0] + " " * (len(tok) - 2) + last
        return tok[0] + _blank(tok[1:-1]) + last

    # ------------------------------------------------------------------ lines

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self.line_starts, pos) - 1

    def line_span(self, line: int) -> tuple[int, int]:
        start = self.line_starts[line]
        end = self.line_starts[line + 1] - 1 if line + 1 < len(self.line_starts) else len(self.text)
        return start, end

    def line(self, line: int) -> str:
        a, b = self.line_span(line)
        return self.text[a:b]

    def masked_line(self, line: int) -> str:
        a, b = self.line_span(line)
        return self.masked[a:b]

    def trim_end(self, start: int, end: int) -> int:
        """Last line in [start, end] with code on it (drops trailing blank and comment lines)."""
        end = min(end, self.n_lines - 1)
        while end > start and not self.masked_line(end).strip():
            end -= 1
        return max(start, end)

    # ------------------------------------------------------------------ signatures

    def header_end(self, pos: int) -> int:
        """Where a declaration head starting at `pos` ends (exclusive): before the body opener
        (`:` for Python, `{` or `;` elsewhere) or at a line break outside brackets (generic
        `<...>` included, except in Python)."""
        masked = self.masked
        limit = min(len(masked), pos + 4 * SIGNATURE_MAX)
        python = self.language == "python"
        depth = angle = 0
        pattern = _HEADER_PY if python else _HEADER_BRACE
        for m in pattern.finditer(masked, pos, limit):
            c = m.group()
            if c in "([" or (python and c == "{"):
                depth += 1
            elif c in ")]" or (python and c == "}"):
                if depth == 0:
                    return m.start()
                depth -= 1
            elif depth:
                continue
            elif c == "<":
                angle += 1
            elif c == ">":
                if angle and masked[m.start() - 1] not in "=-":
                    angle -= 1
            elif angle == 0 or c == "\n":
                if c == "\\":
                    continue
                if c == "\n" and python and masked[m.start() - 1 : m.start()] == "\\":
                    continue
                return m.start()
        return limit

    def signature(self, line: int, through: int | None = None) -> str:
        """The declaration head on `line`, one line, whitespace collapsed, <= 300 chars.

        With `through` (type aliases), the whole declaration up to that line instead."""
        a, b = self.line_span(line)
        ml = self.masked[a:b]
        start = a + len(ml) - len(ml.lstrip())
        if through is not None:
            stop = self.line_span(max(line, through))[1]
            text = self.text[start : min(stop, start + 4 * SIGNATURE_MAX)].rstrip().rstrip(";")
        else:
            text = self.text[start : self.header_end(start)]
        text = " ".join(text.split())
        if text.startswith("@"):
            text = _ANNOTATIONS.sub("", text)
        if "( " in text or "[ " in text:
            text = _SPACE_AFTER_OPEN.sub(r"\1", text)
        if " )" in text or " ]" in text:
            text = _SPACE_BEFORE_CLOSE.sub(r"\1", text)
        if ",)" in text:
            text = _TRAILING_COMMA.sub(")", text)
        return text[:SIGNATURE_MAX]

    # ------------------------------------------------------------------ decorators and comments

    def _match_back(self, close: int) -> int | None:
        """The opening bracket of the one at `close`, at most 8000 characters back. A short
        window is tried first: scanning back from `close`, the first bracket that balances it
        is the same whatever the window, so only a miss needs the long one."""
        masked = self.masked
        floor = max(0, close - 8000)
        lo = max(floor, close - 256)
        while True:
            depth = 0
            for m in reversed(list(_BRACKETS.finditer(masked, lo, close + 1))):
                if m.group() in ")]":
                    depth += 1
                else:
                    depth -= 1
                    if depth == 0:
                        return m.start()
            if lo == floor:
                return None
            lo = floor

    def extend_decorators(self, line: int) -> int:
        """First line of the decorators / annotations / attributes stacked right above `line`."""
        masked = self.masked
        rust_like = self.language in ("rust", "php", "csharp")
        csharp = self.language == "csharp"
        while line > 0:
            end = self.line_starts[line]
            lo = max(0, end - 4000)
            p = lo + len(masked[lo:end].rstrip()) - 1
            if p < lo:
                break
            c = masked[p]
            if c in ")]":
                o = self._match_back(p)
                if o is None:
                    break
                o_line = self.line_of(o)
                prefix = masked[self.line_starts[o_line] : o].strip()
                if c == ")" and prefix.startswith("@"):
                    line = o_line
                    continue
                if c == "]" and rust_like and (prefix in ("#", "#!") or csharp and not prefix):
                    line = o_line
                    continue
                break
            p_line = self.line_of(p)
            if _DECORATOR_LINE.fullmatch(self.masked_line(p_line).strip()):
                line = p_line
                continue
            break
        return line

    def leading_comment(self, line: int) -> str:
        """The contiguous comment block right above `line`, comment markers stripped."""
        hash_ok = self.language in _HASH_LANGS
        out: list[str] = []
        i = line - 1
        while i >= 0 and len(out) < 400:
            s = self.line(i).strip()
            if s.startswith("//") or (hash_ok and s.startswith("#") and not s.startswith("#[")):
                out.append(_LINE_COMMENT.sub("", s).rstrip())
                i -= 1
                continue
            if s.endswith("*/"):
                block: list[str] = []
                j = i
                while j >= 0 and "/*" not in self.line(j) and i - j < 400:
                    block.append(self.line(j))
                    j -= 1
                if j < 0 or not self.line(j).strip().startswith("/*"):
                    break
                block.append(self.line(j))
                out.extend(_strip_block(list(reversed(block)))[::-1])
                i = j - 1
                continue
            break
        return "\n".join(line for line in reversed(out) if not _DIRECTIVE.match(line)).strip()

    def module_comment(self) -> str:
        """Non-Python module doc: the file's leading comment block, when it stands apart from
        the first declaration (followed by a blank line, `package`, or made of `//!` lines)."""
        i = 0
        if self.n_lines and self.line(0).startswith("#!"):
            i = 1
        while i < self.n_lines and not self.line(i).strip():
            i += 1
        j = i
        hash_ok = self.language in _HASH_LANGS
        if j < self.n_lines and self.line(j).strip().startswith("/*"):
            while j < self.n_lines and "*/" not in self.line(j):
                j += 1
            j += 1
        else:
            while j < self.n_lines:
                s = self.line(j).strip()
                if not (s.startswith("//") or (hash_ok and s.startswith("#"))):
                    break
                j += 1
        if j == i or j > self.n_lines:
            return ""
        after = self.line(j).strip() if j < self.n_lines else ""
        inner = self.line(i).strip().startswith("//!")
        if after and not after.startswith("package ") and not inner:
            return ""
        return self.leading_comment(j)

    def python_docstring(self, pos: int) -> str:
        """Docstring of the Python body (or module) whose first statement starts after `pos`."""
        masked = self.masked
        rest = masked[pos : pos + 2000]
        q = pos + len(rest) - len(rest.lstrip())
        end = self.strings.get(q)
        if end is None:
            return ""
        tail_end = masked.find("\n", end)
        tail = masked[end : tail_end if tail_end >= 0 else len(masked)].strip()
        if tail not in ("", ";"):
            return ""
        try:
            value = ast.literal_eval(self.text[q:end])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return ""
        return inspect.cleandoc(value) if isinstance(value, str) else ""


def _strip_block(lines: list[str]) -> list[str]:
    out = []
    last = len(lines) - 1
    for k, raw in enumerate(lines):
        s = raw.strip()
        if k == 0:
            s = re.sub(r"^/\*+!?", "", s)
        if k == last:
            s = re.sub(r"\*+/$", "", s)
        if k > 0:
            s = re.sub(r"^\*(?!/)", "", s)
        out.append(s.strip() if s.strip() else "")
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def node_text(src: Source, node: Any) -> str:
    """The text of a tree-sitter node of `src`."""
    return src.raw[node.start_byte : node.end_byte].decode("utf-8", "replace")


def node_end_row(node: Any) -> int:
    """The last row a tree-sitter node covers; a node ending at column 0 ends on the row above."""
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row
