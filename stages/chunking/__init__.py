"""Source chunkers: one file's bytes -> symbols, imports and the module remainder.

`parse_source` never raises on any bytes: undecodable bytes are replaced, a file `ast` or
tree-sitter cannot handle falls back to the structural chunker, and at worst only the
`<module>` symbol is returned. Output is deterministic (same bytes, same result).

Line numbers are 1-based and count "\\n"-terminated lines as git does: a trailing newline does
not add a line, and an empty file has one (empty) line.
"""

from __future__ import annotations

from . import imports as _imports
from . import python_ast, python_structural, structural, treesitter
from .imports import (
    FACT_FILES,
    RESOLVED_LANGUAGES,
    GoNames,
    ProjectFacts,
    go_names,
    project_facts,
    resolve_imports,
)
from .languages import CODE, TREE_SITTER, detect_language
from .model import (
    Candidate,
    ParsedFile,
    Symbol,
    SymbolIndex,
    assemble,
    module_remainder,
    module_symbol,
)
from .source import Source

__all__ = [
    "BACKENDS",
    "CODE",
    "FACT_FILES",
    "GoNames",
    "RESOLVED_LANGUAGES",
    "ProjectFacts",
    "ParsedFile",
    "Symbol",
    "SymbolIndex",
    "detect_language",
    "go_names",
    "module_remainder",
    "parse_source",
    "project_facts",
    "resolve_imports",
    "structural_candidates",
]

BACKENDS = ("auto", "ast", "tree-sitter", "structural")


def parse_source(
    path: str, source: bytes, *, language: str | None = None, backend: str = "auto"
) -> ParsedFile:
    """Parse one file version into symbols and import specifiers.

    `backend` "auto" picks ast for Python, tree-sitter for the languages it has grammars for
    and the structural chunker for the other brace languages; "ast", "tree-sitter" and
    "structural" force one (falling back to structural when the forced one cannot parse).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown chunking backend {backend!r}; expected one of {BACKENDS}")
    lang = language if language is not None else detect_language(path)
    src = Source(source, lang if lang in CODE else None)
    if lang not in CODE:
        module = module_symbol(src.n_lines)
        return ParsedFile(lang, "none", (module,), ())
    if lang == "python" and backend in ("auto", "ast"):
        parsed = python_ast.parse(src)
        if parsed is not None:
            return parsed
    elif lang in TREE_SITTER and backend in ("auto", "tree-sitter", "ast"):
        result = treesitter.parse_tree(src)
        if result is not None:
            found, has_error = result
            if not (has_error and backend != "tree-sitter"):
                return assemble(src, "tree-sitter", found, _imports.extract(src))
            fallback = _structural(src)
            if len(fallback) > len(found):
                return assemble(src, "structural", fallback, _imports.extract(src))
            return assemble(src, "tree-sitter", found, _imports.extract(src))
    return assemble(src, "structural", _structural(src), _imports.extract(src))


def _structural(src: Source) -> list[Candidate]:
    """The structural chunker's candidates (the fallback when no parser can read `src`)."""
    if src.language == "python":
        return python_structural.candidates(src)
    return structural.candidates(src)


structural_candidates = _structural
