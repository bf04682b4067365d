"""Which HEAD symbols a failed attempt's diff changed: its targets.

Targets come from the *changed* lines of the diff (removed lines at their old-side number, an
insertion at the old-side position it lands on), never from context lines, mapped onto the HEAD
`symbols` rows; the diff is against HEAD, so old-side numbers are HEAD numbers. A file where no
named symbol was touched becomes a file-level target (`qualname` None).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..store.attempts import Target
from ..store.errors import InputError
from ..store.ids import MODULE_SYMBOL
from ..store.regexcache import compile_pattern
from ..store.unidiff import parse_diff

__all__ = [
    "LINE_PLACE",
    "map_changed_lines",
    "match_symbols",
    "parse_symbol_name",
    "resolve_symbol_name",
]


# a place as compilers, tracebacks and grep print it: `path:LINE` or `path:LINE:COLUMN` (a path
# holds no blank, quote, bracket or separator); `fullmatch` for a path alone, `finditer` in text
LINE_PLACE = compile_pattern(
    r"(?P<path>[^\s\"'`()\[\]<>,;|:]+):(?P<line>[1-9][0-9]{0,8})(?::[0-9]{1,9})?(?![\w:])"
)


def parse_symbol_name(symbol: str) -> tuple[str, int | None]:
    """`symbol` as (name, line): `Foo::new@12` -> ("Foo.new", 12), `run()` -> ("run", None).

    Qualifiers are written `.` or `::` (the symbol table joins them with `.` in every
    language); a trailing `@LINE` names the line the symbol spans (a bare `@LINE` names the
    innermost symbol there). A line that is not a positive number is an `InputError`."""
    text = symbol.strip()
    line: int | None = None
    name, at, tail = text.rpartition("@")
    if at:
        if not tail.strip().isdigit() or int(tail) < 1:
            raise InputError(
                f"{symbol!r}: the line after @ must be a positive number",
                hint="name a symbol as NAME or NAME@LINE, e.g. new@12",
            )
        text, line = name.strip(), int(tail)
    text = text.removesuffix("()").replace("::", ".").strip(".")
    return text, line


def _levels(wanted: str) -> tuple[Callable[[str, str], bool], ...]:
    """The match rules in precedence order: exact qualname, case-insensitive, by a dotted
    suffix or last component (`should_strip_auth` -> `SessionRedirectMixin.should_strip_auth`),
    by the last component case-insensitively."""
    low = wanted.lower()
    last = low.rsplit(".", 1)[-1]
    return (
        lambda q, n: q == wanted,
        lambda q, n: q.lower() == low,
        lambda q, n: n == wanted or q.endswith("." + wanted),
        lambda q, n: n.lower() == last,
    )


def match_symbols(
    qualnames: Sequence[str], spans: Sequence[tuple[int, int]] | None, symbol: str
) -> list[int]:
    """The positions in `qualnames` of the symbols a user means by `symbol`, best rule first.

    Without a line: every symbol matched by the first rule (see `_levels`) that matches any;
    more than one is an ambiguous name. With `NAME@LINE` (`spans`: each symbol's start and
    end line): the innermost symbol spanning LINE among those of the first rule that has one,
    so same-named symbols are told apart by where they are; a bare `@LINE` takes the innermost
    named symbol there. Empty when nothing matches. The `<module>` row is never matched."""
    wanted, line = parse_symbol_name(symbol)
    names = [q.rsplit(".", 1)[-1] for q in qualnames]
    rows = [i for i, q in enumerate(qualnames) if q != MODULE_SYMBOL]
    if line is not None and spans is None:
        raise InputError(f"{symbol!r}: no line numbers to match @{line} against")
    levels = _levels(wanted) if wanted else (lambda q, n: True,)
    for match in levels:
        hits = [i for i in rows if match(qualnames[i], names[i])]
        if line is None:
            if hits:
                return hits
            continue
        assert spans is not None
        inside = [i for i in hits if spans[i][0] <= line <= spans[i][1]]
        if inside:
            return [min(inside, key=lambda i: spans[i][1] - spans[i][0])]
    return []


def resolve_symbol_name(path: str, symbol: str, symbols_rows: Any) -> str:
    """`symbol` as HEAD's qualname in `path` (see `match_symbols`; the first of several), or as
    given when the index does not know it (a new function, or no index yet)."""
    rows = [r for r in _rows(symbols_rows, {path}) if r["path"] == path]
    qualnames = [r["qualname"] for r in rows]
    spans = [(int(r["start_line"]), int(r["end_line"])) for r in rows]
    try:
        found = match_symbols(qualnames, spans, symbol)
    except InputError:
        return symbol  # a record keeps the name as the caller wrote it
    return qualnames[found[0]] if found else symbol


def _rows(symbols_rows: Any, paths: set[str]) -> list[Mapping[str, Any]]:
    if not paths:
        return []
    if hasattr(symbols_rows, "filter") and hasattr(symbols_rows, "to_pylist"):
        import pyarrow as pa
        import pyarrow.compute as pc

        table = symbols_rows.filter(
            pc.is_in(symbols_rows["path"], pa.array(sorted(paths), pa.string()))
        )
        return table.select(["path", "qualname", "start_line", "end_line"]).to_pylist()
    return [r for r in (symbols_rows or ()) if r["path"] in paths]


def _innermost(spans: list[tuple[int, int, str]], *lines: int) -> str | None:
    best: tuple[int, int, str] | None = None
    for start, end, qualname in spans:
        if all(start <= n <= end for n in lines) and (
            best is None or end - start < best[1] - best[0]
        ):
            best = (start, end, qualname)
    return best[2] if best else None


def map_changed_lines(diff_text: str, symbols_rows: Any) -> list[Target]:
    """(path, qualname) of every HEAD symbol whose lines the diff changed, in diff order.

    `symbols_rows`: mappings (or an Arrow table) with path, qualname, start_line, end_line.
    An insertion belongs to the innermost symbol spanning both of its neighbour lines. A file
    where no named symbol was changed (no symbols, a new or binary file, only module-level
    lines) yields one file-level target `(path, None)`.
    """
    changes = parse_diff(diff_text)
    by_path: dict[str, list[tuple[int, int, str]]] = {}
    for row in _rows(symbols_rows, {c.path for c in changes}):
        if row["qualname"] != MODULE_SYMBOL:
            by_path.setdefault(row["path"], []).append(
                (int(row["start_line"]), int(row["end_line"]), row["qualname"])
            )
    out: dict[Target, None] = {}
    for change in changes:
        spans = by_path.get(change.path, []) if change.old_path else []
        hits: dict[str, None] = {}
        if not change.binary:
            for n in change.removed:
                if (q := _innermost(spans, n)) is not None:
                    hits[q] = None
            for k in change.inserted_after:
                if (q := _innermost(spans, k, k + 1)) is not None:
                    hits[q] = None
        if hits:
            out.update({(change.path, q): None for q in hits})
        else:
            out[(change.path, None)] = None
    return list(out)
