"""Python through the standard library's `ast`: exact symbols and imports.

Invariants: only `def`, `async def` and `class` statements become symbols, wherever they are
nested (inside `if`, `try`, `with`, `match` blocks too); a symbol starts at its first decorator
and ends at its last statement. Only statement bodies are walked (never expressions), which is
what keeps this fast. `parse` returns None when `ast` rejects the text, so the caller can fall
back to the structural chunker.
"""

from __future__ import annotations

import ast
import re
import threading
import warnings

from .model import Candidate, ParsedFile, assemble
from .source import Source

_LONE_CR = re.compile(r"\r(?!\n)")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# statements whose bodies may hold definitions or imports; simple statements never do
_COMPOUND = frozenset(
    getattr(ast, name)
    for name in (
        [
            "If",
            "For",
            "AsyncFor",
            "While",
            "With",
            "AsyncWith",
            "Try",
            "TryStar",
            "Match",
            "ExceptHandler",
            "match_case",
        ]
    )
    if hasattr(ast, name)
)
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


# CPython 3.11 keeps the depth counter of `ast.parse`'s tree building in one place for the
# whole process; two threads parsing at once (stages run side by side) corrupt it and one gets a
# SystemError ("AST constructor recursion depth mismatch"). Every parse in the package takes
# this lock.
_PARSE_LOCK = threading.Lock()


def parse_module(text: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, one thread at a time, silent about the repository's own code: an invalid
    escape such as `"\\d"` in a string (common in older code) makes the compiler warn, which
    Python 3.12 and later print (`<unknown>:12: SyntaxWarning: ...`), once per parse of every
    version of such a file."""
    with _PARSE_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(text, filename=filename)


def _python_text(src: Source) -> str:
    # ast counts a lone "\r" as a line break, git does not: blank it so line numbers agree
    return _LONE_CR.sub(" ", src.text) if "\r" in src.text else src.text


def parse(src: Source, *, bare: bool = False) -> ParsedFile | None:
    """`bare`: no signatures or docstrings (`assemble`'s), for callers that only need where
    symbols are."""
    try:
        tree = parse_module(_python_text(src))
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return None
    candidates: list[Candidate] = []
    imports: list[tuple[int, int, list[str]]] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for field in _BODIES:
            children = getattr(node, field, None)
            if not isinstance(children, list):
                continue
            for child in children:
                kind = type(child)
                if kind in _DEFS:
                    candidates.append(_candidate(child, bare))
                elif kind is ast.Import or kind is ast.ImportFrom:
                    imports.append((child.lineno, child.col_offset, _specifiers(child)))
                    continue
                elif kind not in _COMPOUND:
                    continue
                stack.append(child)
    imports.sort(key=lambda t: (t[0], t[1]))
    names = [n for _, _, group in imports for n in group if n]
    if bare:
        return assemble(src, "ast", candidates, names, bare=True)
    return assemble(src, "ast", candidates, names, ast.get_docstring(tree) or "")


def _candidate(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, bare: bool = False
) -> Candidate:
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    end = node.end_lineno or node.lineno
    return Candidate(
        name=node.name,
        kind="class" if isinstance(node, ast.ClassDef) else "function",
        start_line=first - 1,
        end_line=end - 1,
        sig_line=node.lineno - 1,
        span=((first, 0), (end, node.end_col_offset or 0)),
        docstring="" if bare else ast.get_docstring(node) or "",
    )


def _specifiers(node: ast.Import | ast.ImportFrom) -> list[str]:
    """`import a.b` -> "a.b"; `from m import x` -> "m.x"; `from . import x` -> ".x";
    `from .m import *` -> ".m"."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = "." * (node.level or 0) + (node.module or "")
    out = []
    for a in node.names:
        if a.name == "*":
            out.append(base)
        elif base.endswith(".") or not base:
            out.append(base + a.name)
        else:
            out.append(f"{base}.{a.name}")
    return out
