"""The read side's view of one generation: memory-mapped tables and the lookups preflight needs.

Opening costs milliseconds: the manifest is read and nothing else. Each lookup structure (symbols
by path, history by symbol, blame by symbol, coupling by source) is built on first use from only
the columns it needs, and `warm()` builds them all up front for a long-running server. An
instance is immutable once built; a reload makes a new one and swaps the reference.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..store.generations import Generation, Store


def iso_date(ts: Any) -> str:
    if ts is None:
        return ""
    if isinstance(ts, datetime):
        return ts.astimezone(UTC).strftime("%Y-%m-%d")
    return datetime.fromtimestamp(int(ts), UTC).strftime("%Y-%m-%d")


@dataclass(frozen=True, slots=True)
class SymbolRow:
    row: int
    symbol_id: str
    path: str
    qualname: str
    name: str
    kind: str
    parent: str | None
    start_line: int
    end_line: int
    signature: str
    docstring: str
    language: str | None


def _columns(table: pa.Table, names: list[str]) -> dict[str, list]:
    return {n: table.column(n).to_pylist() for n in names}


class ServeIndex:
    def __init__(self, gen: Generation) -> None:
        self.gen = gen
        self.name = gen.name
        self.manifest = gen.manifest

    @classmethod
    def open(cls, store_root: Path) -> ServeIndex:
        return cls(Store(store_root).require_live())

    def has(self, name: str) -> bool:
        return self.gen.has(name)

    def table(self, name: str, columns: list[str] | None = None) -> pa.Table:
        return self.gen.table(name, columns=columns)

    # ------------------------------------------------------------------ symbols

    @cached_property
    def symbols(self) -> list[SymbolRow]:
        cols = [
            "symbol_id",
            "path",
            "qualname",
            "name",
            "kind",
            "parent",
            "start_line",
            "end_line",
            "signature",
            "docstring",
            "language",
        ]
        data = _columns(self.table("symbols", columns=cols), cols)
        return [
            SymbolRow(i, *vals) for i, vals in enumerate(zip(*(data[c] for c in cols), strict=True))
        ]

    @cached_property
    def symbols_by_path(self) -> dict[str, list[SymbolRow]]:
        out: dict[str, list[SymbolRow]] = defaultdict(list)
        for s in self.symbols:
            out[s.path].append(s)
        return dict(out)

    @cached_property
    def symbol_by_id(self) -> dict[str, SymbolRow]:
        return {s.symbol_id: s for s in self.symbols}

    @cached_property
    def paths(self) -> list[str]:
        return sorted(self.symbols_by_path)

    @cached_property
    def file_imports(self) -> dict[str, set[str]]:
        if not self.has("files"):
            return {}
        t = self.table("files", columns=["path", "imports_resolved"])
        return {
            p: set(i or ())
            for p, i in zip(t["path"].to_pylist(), t["imports_resolved"].to_pylist(), strict=True)
        }

    # ------------------------------------------------------------------ history

    @cached_property
    def commits(self) -> dict[str, dict[str, Any]]:
        if not self.has("commits"):
            return {}
        cols = [
            "sha",
            "author_time",
            "subject",
            "intent",
            "files",
            "symbols",
            "bulk",
            "reverted_sha",
            "tickets",
        ]
        data = _columns(self.table("commits", columns=cols), cols)
        out = {}
        for i, sha in enumerate(data["sha"]):
            out[sha] = {c: data[c][i] for c in cols}
        return out

    @cached_property
    def touches_by_symbol(self) -> dict[str, list[dict[str, Any]]]:
        """symbol_id -> touches, newest first."""
        return self._touches_grouped("symbol_id")

    @cached_property
    def touches_by_path(self) -> dict[str, list[dict[str, Any]]]:
        """HEAD path -> touches (one row per touched symbol), newest first."""
        return self._touches_grouped("head_path")

    def _touches_grouped(self, key: str) -> dict[str, list[dict[str, Any]]]:
        if not self.has("touches"):
            return {}
        cols = [
            "sha",
            "commit_time",
            "head_path",
            "symbol_id",
            "qualname",
            "added",
            "removed",
            "excerpt",
        ]
        t = self.table("touches", columns=cols)
        data = _columns(t, cols)
        out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for i in range(t.num_rows):
            k = data[key][i]
            if k is None:
                continue
            out[k].append({c: data[c][i] for c in cols})
        for rows in out.values():
            rows.sort(key=lambda r: (r["commit_time"], r["sha"]), reverse=True)
        return dict(out)

    @cached_property
    def touches_by_sha(self) -> dict[str, list[dict[str, Any]]]:
        """commit sha -> the symbols it touched (head paths)."""
        return self._touches_grouped("sha")

    @cached_property
    def blame_by_symbol(self) -> dict[str, list[dict[str, Any]]]:
        if not self.has("blame"):
            return {}
        cols = [
            "symbol_id",
            "sha",
            "lines",
            "symbol_lines",
            "intent",
            "load_bearing",
            "load_bearing_share",
            "author_time",
        ]
        t = self.table("blame", columns=cols)
        data = _columns(t, cols)
        out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for i in range(t.num_rows):
            out[data["symbol_id"][i]].append({c: data[c][i] for c in cols})
        for rows in out.values():
            rows.sort(key=lambda r: (-r["lines"], r["sha"]))
        return dict(out)

    # ------------------------------------------------------------------ coupling

    def _coupling(self, name: str, extra: list[str]) -> dict[str, list[dict[str, Any]]]:
        if not self.has(name):
            return {}
        cols = [
            "src",
            "dst",
            "co_commits",
            "dst_commits",
            "weight",
            "confidence",
            "rank_score",
            "hidden",
            *extra,
        ]
        t = self.table(name, columns=cols)
        data = _columns(t, cols)
        out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for i in range(t.num_rows):
            out[data["src"][i]].append({c: data[c][i] for c in cols})
        for rows in out.values():
            # the one partner ranking (rank_score); partners with the same co-commits: the more
            # active file first
            rows.sort(
                key=lambda r: (-r["rank_score"], -r["co_commits"], -r["dst_commits"], r["dst"])
            )
        return dict(out)

    @cached_property
    def coupling_files(self) -> dict[str, list[dict[str, Any]]]:
        return self._coupling("cochange_files", [])

    @cached_property
    def coupling_symbols(self) -> dict[str, list[dict[str, Any]]]:
        return self._coupling("cochange_symbols", ["dst_path", "dst_qualname"])

    # ------------------------------------------------------------------ helpers

    def warm(self) -> None:
        """Build every lookup now (a server calls this once at start)."""
        for attr in (
            "symbols_by_path",
            "symbol_by_id",
            "paths",
            "file_imports",
            "commits",
            "touches_by_symbol",
            "touches_by_path",
            "touches_by_sha",
            "blame_by_symbol",
            "coupling_files",
            "coupling_symbols",
        ):
            getattr(self, attr)
