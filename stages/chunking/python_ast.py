"""Python through the standard library's `ast`: exact symbols and imports.

Invariants: only `def`, `async def` and `class` statements become symbols, wherever they are
nested (inside `if`, `try`, `with` blocks too); a symbol starts at its first decorator and ends at
its last statement. `parse` returns None when `ast` rejects the text, so the caller can fall back.
"""

from __future__ import annotations

import ast
import re

from .model import Candidate, ParsedFile, assemble
from .source import Source

_LONE_CR = re.compile(r"\r(?!\n)")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# nodes whose bodies may hold definitions (expressions never do, except lambdas: not symbols)
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def _python_text(src: Source) -> str:
    # ast counts a lone "\r" as a line break, git does not: blank it so line numbers agree
    return _LONE_CR.sub(" ", src.text) if "\r" in src.text else src.text


def parse(src: Source) -> ParsedFile | None:
    try:
        tree = ast.parse(_python_text(src), type_comments=False)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return None
    candidates: list[Candidate] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFS):
                first = min([d.lineno for d in child.decorator_list] + [child.lineno])
                kind = "class" if isinstance(child, ast.ClassDef) else "function"
                end = child.end_lineno or child.lineno
                candidates.append(
                    Candidate(
                        name=child.name,
                        kind=kind,
                        start_line=first - 1,
                        end_line=end - 1,
                        sig_line=child.lineno - 1,
                        span=((first, 0), (end, child.end_col_offset or 0)),
                        docstring=ast.get_docstring(child) or "",
                    )
                )
                stack.append(child)
            elif isinstance(child, _BLOCKS):
                stack.append(child)
    imports = imports_from_tree(tree)
    module_doc = ast.get_docstring(tree) or ""
    return assemble(src, "ast", candidates, imports, module_doc)


def imports_from_tree(tree: ast.AST) -> list[str]:
    """Import specifiers in source order: `import a.b` -> "a.b"; `from m import x` -> "m.x";
    `from . import x` -> ".x"; `from .m import *` -> ".m"."""
    found: list[tuple[int, int, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.append((node.lineno, node.col_offset, [a.name for a in node.names]))
        elif isinstance(node, ast.ImportFrom):
            base = "." * (node.level or 0) + (node.module or "")
            names = []
            for a in node.names:
                if a.name == "*":
                    names.append(base)
                elif base.endswith("."):
                    names.append(base + a.name)
                else:
                    names.append(f"{base}.{a.name}")
            found.append((node.lineno, node.col_offset, names))
    found.sort(key=lambda t: (t[0], t[1]))
    return [name for _, _, names in found for name in names if name]
