"""Symbols, parsed files, and the one place where backend output becomes symbols.

Every backend (ast, tree-sitter, structural) only finds declarations (`Candidate`: a name, a
kind, a line range, a nesting span). `assemble` turns them into `Symbol`s with the same rules for
all of them, which is what keeps the backends' qualnames identical:

- nesting comes from span containment; the parent is the innermost containing candidate;
- qualname = parent's member prefix + "." + name (the member prefix of a Rust `impl Foo` block
  is "Foo"); an explicit `owner` (Go receiver, C++ `Foo::bar`) gives "Owner.name" instead;
- a function whose parent is a class-like symbol is a "method";
- start lines come from the backend (decorators included), end lines drop trailing blank and
  comment-only lines, both are clamped to 1..n_lines;
- symbols are sorted by (start_line, -end_line, depth) and `<module>` is always first.

Overload stubs (Python `@overload` / `@typing.overload`, TS bodiless overload signatures) are
folded into the implementation that follows them with the same qualname: one symbol with the
implementation's lines and signature, the stubs' signatures listed at the end of its docstring
under "Overloads:" (the first stub's docstring stands in when the implementation has none). Python stubs without an implementation (stub files, protocols) stay symbols;
TS overload signatures without one are dropped like every other bodiless declaration.

Other repeated qualnames (property setters, conditional definitions) stay as the source has them.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...store.ids import MODULE_SYMBOL
from ...store.vocabulary import CLASS_LIKE
from .source import Source

MODULE = MODULE_SYMBOL
_PY_OVERLOAD = re.compile(r"^\s*@\s*(?:[\w.]+\.)?overload\s*$")
OVERLOADS = "Overloads:"


@dataclass(frozen=True, slots=True)
class Symbol:
    qualname: str
    name: str
    kind: str
    parent: str | None
    start_line: int
    end_line: int
    signature: str
    docstring: str


@dataclass(frozen=True)
class ParsedFile:
    language: str | None
    parser: str
    symbols: tuple[Symbol, ...]
    imports: tuple[str, ...]


@dataclass(slots=True)
class Candidate:
    """A declaration as a backend found it (lines 0-based, `span` comparable within a backend)."""

    name: str
    kind: str
    start_line: int
    end_line: int
    sig_line: int
    span: tuple[Any, Any]
    owner: str | None = None
    member_prefix: str | None = None
    docstring: str | None = None
    # a signature without a body that only declares one form of the implementation after it
    overload: bool = False
    # the head when it is not the text from `sig_line` (a function passed to a helper call)
    signature: str | None = None
    # filled by assemble
    qualname: str = ""
    parent: Candidate | None = None
    depth: int = 0


def module_symbol(n_lines: int, docstring: str = "") -> Symbol:
    return Symbol(MODULE, MODULE, "module", None, 1, max(1, n_lines), "", docstring)


def assemble(
    src: Source,
    parser: str,
    candidates: list[Candidate],
    imports: Sequence[str],
    module_doc: str | None = None,
    *,
    bare: bool = False,
) -> ParsedFile:
    """Nest, name and sort a backend's candidates into a `ParsedFile`.

    `bare`: every signature and docstring left empty (names, kinds, nesting and lines are the
    same), for callers that only need where symbols are, at a fraction of the cost."""
    python = src.language == "python"
    if bare:
        module_doc = ""
    elif module_doc is None:
        module_doc = src.python_docstring(0) if python else src.module_comment()
    # outer spans first at equal starts, so a parent is always on the stack before its children
    ordered = sorted(candidates, key=lambda c: c.span[1], reverse=True)
    ordered.sort(key=lambda c: c.span[0])
    stack: list[Candidate] = []
    symbols: list[tuple[int, int, int, int, Symbol]] = []
    stubs: set[int] = set()
    for i, c in enumerate(ordered):
        while stack and not (c.span[1] <= stack[-1].span[1]):
            stack.pop()
        parent = stack[-1] if stack else None
        c.parent = parent
        c.depth = parent.depth + 1 if parent else 0
        if c.owner:
            c.qualname = f"{c.owner}.{c.name}"
        elif parent is None:
            c.qualname = c.name
        else:
            c.qualname = f"{parent.member_prefix or parent.qualname}.{c.name}"
        kind = c.kind
        if kind == "function" and parent is not None and parent.kind in CLASS_LIKE:
            kind = c.kind = "method"
        stub = c.overload or (python and _python_overload(src, c.start_line, c.sig_line))
        if stub:
            stubs.add(i)
        else:  # a stub has no body: nothing nests in it, even when broken text says so
            stack.append(c)
        start = min(max(c.start_line, 0), src.n_lines - 1)
        end = src.trim_end(start, max(c.end_line, start))
        doc = "" if bare else c.docstring
        if doc is None:
            if python:
                colon = src.header_end(src.line_starts[min(c.sig_line, src.n_lines - 1)])
                doc = src.python_docstring(colon + 1)
            else:
                doc = src.leading_comment(start)
        sym = Symbol(
            qualname=c.qualname,
            name=c.name,
            kind=kind,
            parent=parent.qualname if parent else None,
            start_line=start + 1,
            end_line=end + 1,
            signature=""
            if bare
            else c.signature
            if c.signature is not None
            else src.signature(min(c.sig_line, src.n_lines - 1), end if kind == "type" else None),
            docstring=doc,
        )
        symbols.append((sym.start_line, -sym.end_line, c.depth, i, sym))
    symbols.sort(key=lambda t: t[:4])
    if stubs:
        symbols = _fold_overloads(symbols, stubs, keep_lone=python)
    out = (module_symbol(src.n_lines, module_doc), *(t[4] for t in symbols))
    return ParsedFile(src.language, parser, out, tuple(dict.fromkeys(imports)))


def _python_overload(src: Source, start: int, sig_line: int) -> bool:
    start = max(start, 0)
    return any(_PY_OVERLOAD.match(src.masked_line(k)) for k in range(start, sig_line))


def _fold_overloads(
    symbols: list[tuple[int, int, int, int, Symbol]], stubs: set[int], keep_lone: bool
) -> list[tuple[int, int, int, int, Symbol]]:
    """Stubs folded into the next symbol of the same qualname and parent (sorted input)."""
    out: list[tuple[int, int, int, int, Symbol]] = []
    pending: dict[tuple[str, str | None], list[tuple[int, int, int, int, Symbol]]] = {}
    for row in symbols:
        sym = row[4]
        key = (sym.qualname, sym.parent)
        if row[3] in stubs:
            pending.setdefault(key, []).append(row)
            continue
        group = pending.pop(key, None)
        if group:
            listed = "\n".join(s[4].signature for s in group)
            # a comment above the first overload documents them all
            own = sym.docstring or next((s[4].docstring for s in group if s[4].docstring), "")
            doc = f"{own}\n\n{OVERLOADS}\n{listed}" if own else f"{OVERLOADS}\n{listed}"
            row = (*row[:4], dataclasses.replace(sym, docstring=doc))
        out.append(row)
    if keep_lone and pending:
        out.extend(r for group in pending.values() for r in group)
        out.sort(key=lambda t: t[:4])
    return out


class SymbolIndex:
    """Innermost-symbol lookup by line in O(log n).

    The lines are cut into elementary segments at every symbol start and end; each segment is
    labelled once with its most specific symbol (smallest line span; on a tie the one that
    sorts later by (start_line, -end_line), i.e. the nested one). A lookup is one bisect.
    """

    __slots__ = ("_starts", "_symbols", "module")

    def __init__(self, symbols: Sequence[Symbol]) -> None:
        module = next((s for s in symbols if s.qualname == MODULE), None)
        self.module = module or module_symbol(max((s.end_line for s in symbols), default=1))
        ordered = sorted(
            (s for s in symbols if s.qualname != MODULE and s.end_line >= s.start_line),
            key=lambda s: (s.start_line, -s.end_line),
        )
        cuts = sorted({s.start_line for s in ordered} | {s.end_line + 1 for s in ordered})
        starts: list[int] = [-(2**62)]
        labels: list[Symbol] = [self.module]
        heap: list[tuple[int, int, int, Symbol]] = []
        k = 0
        for cut in cuts:
            while k < len(ordered) and ordered[k].start_line <= cut:
                s = ordered[k]
                heapq.heappush(heap, (s.end_line - s.start_line, -k, s.end_line, s))
                k += 1
            while heap and heap[0][2] < cut:
                heapq.heappop(heap)
            best = heap[0][3] if heap else self.module
            if best is not labels[-1]:
                starts.append(cut)
                labels.append(best)
        self._starts = starts
        self._symbols = labels

    def innermost(self, line: int) -> Symbol:
        return self._symbols[bisect.bisect_right(self._starts, line) - 1]


def module_remainder(source_text: str, symbols: Sequence[Symbol]) -> str:
    """The lines outside every top-level symbol, in order: the `<module>` document's code.

    Runs of blank lines collapse to one and the result has no leading or trailing blank lines.
    """
    lines = source_text.split("\n")
    if source_text.endswith("\n"):
        lines.pop()
    covered = bytearray(len(lines) + 2)
    for s in symbols:
        if s.parent is None and s.qualname != MODULE:
            lo = max(s.start_line, 1)
            hi = min(s.end_line, len(lines))
            if hi >= lo:
                covered[lo : hi + 1] = b"\x01" * (hi - lo + 1)
    out: list[str] = []
    for i, text in enumerate(lines, 1):
        if covered[i]:
            continue
        text = text.rstrip("\r")
        if not text.strip():
            if out and out[-1]:
                out.append("")
            continue
        out.append(text)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)
