"""Indentation-based structural chunker for Python (used when `ast` rejects a file).

Invariants: it looks only at logical line starts (not inside a string, not inside brackets, not
after a backslash continuation), so a `def` inside a docstring or a call never counts. A block
ends before the next logical line indented at or left of its header, and its end line is the
last line with code on it, which is what `ast` reports for valid code.
"""

from __future__ import annotations

import re

from .model import Candidate
from .source import Source

_DECL = re.compile(r"[ \t]*(?:async[ \t]+)?(def|class)[ \t]+([^\W\d]\w*)")


def _continuation_lines(src: Source) -> bytearray:
    """1 for every line that continues a logical line (strings, brackets, backslashes)."""
    cont = bytearray(src.n_lines + 1)
    masked = src.masked
    for start, end in src.strings.items():
        if masked.find("\n", start, end) != -1:
            a, b = src.line_of(start), src.line_of(end - 1)
            cont[a + 1 : b + 1] = b"\x01" * (b - a)
    depth = 0
    for i, line in enumerate(masked.split("\n")[: src.n_lines]):
        if depth > 0:
            cont[i] = 1
        depth += line.count("(") + line.count("[") + line.count("{")
        depth -= line.count(")") + line.count("]") + line.count("}")
        depth = max(depth, 0)
        if line.endswith("\\") and i + 1 < len(cont):
            cont[i + 1] = 1
    return cont


def candidates(src: Source) -> list[Candidate]:
    cont = _continuation_lines(src)
    masked_lines = src.masked.split("\n")[: src.n_lines]
    found: list[Candidate] = []
    open_: list[tuple[int, Candidate]] = []  # (indent, candidate) of blocks still open

    def close(upto: int, before_line: int) -> None:
        while open_ and open_[-1][0] >= upto:
            _, c = open_.pop()
            c.end_line = src.trim_end(c.sig_line, before_line)
            c.span = (c.start_line, c.end_line)

    for i, line in enumerate(masked_lines):
        if cont[i]:
            continue
        stripped = line.lstrip()
        if not stripped:
            continue
        indent = len(line[: len(line) - len(stripped)].expandtabs(8))
        close(indent, i - 1)
        m = _DECL.match(line)
        if m is None:
            continue
        c = Candidate(
            name=m.group(2),
            kind="class" if m.group(1) == "class" else "function",
            start_line=src.extend_decorators(i),
            end_line=i,
            sig_line=i,
            span=(i, i),
        )
        found.append(c)
        open_.append((indent, c))
    close(-1, src.n_lines - 1)
    return found
