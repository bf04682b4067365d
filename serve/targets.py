"""Which HEAD symbols a failed attempt's diff changed: its targets.

Targets come from the *changed* lines of the diff (removed lines at their old-side number, an
insertion at the old-side position it lands on), never from context lines, mapped onto the HEAD
`symbols` rows; the diff is against HEAD, so old-side numbers are HEAD numbers. A file where no
named symbol was touched becomes a file-level target (`qualname` None).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..store.attempts import Target
from ..store.ids import MODULE_SYMBOL
from ..store.unidiff import parse_diff

__all__ = ["find_symbol", "map_changed_lines", "resolve_symbol_name"]


def find_symbol(qualnames: Sequence[str], symbol: str) -> int | None:
    """The position in `qualnames` of the symbol a user means by `symbol`: the exact qualname,
    then case-insensitive, then by its last component (`should_strip_auth` ->
    `SessionRedirectMixin.should_strip_auth`); None when nothing matches. Preflight and a
    recorded failure resolve names by this one rule."""
    wanted = symbol.strip().removesuffix("()")
    names = [q.rsplit(".", 1)[-1] for q in qualnames]
    for match in (
        lambda q, n: q == wanted,
        lambda q, n: q.lower() == wanted.lower(),
        lambda q, n: n == wanted or q.endswith("." + wanted),
        lambda q, n: n.lower() == wanted.lower().rsplit(".", 1)[-1],
    ):
        for i, (q, n) in enumerate(zip(qualnames, names, strict=True)):
            if match(q, n):
                return i
    return None


def resolve_symbol_name(path: str, symbol: str, symbols_rows: Any) -> str:
    """`symbol` as HEAD's qualname in `path` (see `find_symbol`), or as given when the index
    does not know it (a new function, or no index yet)."""
    qualnames = [r["qualname"] for r in _rows(symbols_rows, {path}) if r["path"] == path]
    found = find_symbol(qualnames, symbol)
    return qualnames[found] if found is not None else symbol


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
