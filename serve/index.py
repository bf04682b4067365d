"""The read side's view of one generation: memory-mapped tables and the lookups preflight needs.

Opening costs milliseconds: the manifest is read and nothing else. Each lookup structure (symbols
by path, history by symbol, blame by symbol, coupling by source) is built on first use from only
the columns it needs, and `warm()` builds them all up front for a long-running server. An
instance is immutable once built; a reload makes a new one and swaps the reference.

The large grouped tables (touches, blame, coupling) stay Arrow columns: a lookup turns only the
rows of its own key into Python objects. Before `warm()` a lookup is one vectorised comparison
over the key column (a one-shot process asks for a handful of keys); `warm()` sorts each table
once so that later lookups are a dict hit and a slice. Either way a key's rows come in the same
order (a stable sort by the table's ranking keys, rows of equal rank in table order).
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa

from ..store.errors import IndexCorrupt
from ..store.generations import Generation, Store
from ..store.ids import MODULE_SYMBOL
from ..store.vocabulary import LOAD_BEARING
from . import arrow_ops as pc


def _iso_date(ts: Any) -> str:
    if ts is None:
        return ""
    if isinstance(ts, datetime):
        return ts.astimezone(UTC).strftime("%Y-%m-%d")
    return datetime.fromtimestamp(int(ts), UTC).strftime("%Y-%m-%d")


# a preflight dates a few dozen commits, the same ones on every call: strftime is most of it
_iso_date_cached = lru_cache(maxsize=65536)(_iso_date)


def iso_date(ts: Any) -> str:
    try:
        return _iso_date_cached(ts)
    except TypeError:  # unhashable
        return _iso_date(ts)


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


# lines of a commit body that say nothing about why: trailers, revert boilerplate, bare issue
# references ("Closes #12"), bot lines of squashed pull requests, separators
_REF = r"(?:[\w.-]+/[\w.-]+)?#\d+|https?://\S+|GH-\d+"
_NOISE = re.compile(
    # Signed-off-by:, Co-authored-by:, Change-Id:, Reviewed-on:, Cc: ... (not "Note: ...")
    r"^(?:(?:[A-Z][\w-]*-(?:[Bb]y|[Ii]d|[Oo]n)|Cc|Bug|PR-URL|Link): .*"
    r"|This reverts commit [0-9a-f]{7,}.*|\(cherry picked from commit [0-9a-f]{7,}\)"
    r"|[-=*_~#]{3,}"
    rf"|(?i:(?:(?:closes|closed|close|fixes|fixed|fix|resolves|resolved|resolve|refs?|see|"
    rf"related(?: to)?|part of|for)\b:?\s*(?:{_REF})(?:[\s,]+(?:and\s+)?(?:{_REF}))*[\s,.;]*)+)"
    r"|[-*] ?\[pre-commit\.ci.*|.*\bpre-commit-ci\b.*|Merge (?:branch|pull request) .*)$"
)


def commit_reason(message: str | None, limit: int = 200) -> str:
    """The first paragraph of a commit body that explains something (trailers, "This reverts
    commit ..." and separators skipped), on one line, cut at a word near `limit` characters."""
    if not message or limit <= 0:
        return ""
    subject, _, body = message.strip().partition("\n")
    for para in re.split(r"\n[ \t]*\n", body):
        kept = [
            ln.strip() for ln in para.splitlines() if ln.strip() and not _NOISE.match(ln.strip())
        ]
        text = " ".join(" ".join(kept).split())
        if text and text != subject.strip():
            if len(text) <= limit:
                return text
            cut = text[: limit - 1]
            space = cut.rfind(" ")
            return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"
    return ""


def _columns(table: pa.Table, names: list[str]) -> dict[str, list]:
    return {n: _pylist(table.column(n)) for n in names}


_STEP = {
    "s": timedelta(seconds=1),
    "ms": timedelta(milliseconds=1),
    "us": timedelta(microseconds=1),
}


def _pylist(column: pa.ChunkedArray) -> list:
    """`column.to_pylist()`. A UTC timestamp column is made from its integers: Arrow makes each
    time zone aware datetime through the zone's rules (5 us a row, most of reading every
    commit), where the epoch plus a timedelta is the same datetime, with the same tzinfo."""
    kind = column.type
    if not pa.types.is_timestamp(kind) or kind.tz not in ("UTC", None) or kind.unit not in _STEP:
        return column.to_pylist()
    epoch = datetime(1970, 1, 1, tzinfo=ZoneInfo("UTC") if kind.tz else None)
    step = _STEP[kind.unit]
    # a timedelta is whole microseconds: `step * x` is exact
    return [
        None if x is None else epoch + step * x for x in pc.cast(column, pa.int64()).to_pylist()
    ]


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    """`table.to_pylist()`, column by column (`_pylist`): a hot symbol's hundreds of touches
    carry a commit time each."""
    names = table.column_names
    return [
        dict(zip(names, values, strict=True))
        for values in zip(*map(_pylist, table.columns), strict=True)
    ]


SortKeys = list[tuple[str, str]]  # (column, "ascending" | "descending"), as pyarrow takes them


class Grouped(Mapping[str, list[dict[str, Any]]]):
    """key -> the table's rows with that key (as dicts, ranked by `order`), read from Arrow
    columns on demand; rows with a null key belong to no group. A key's rows are built once and
    kept (up to `keep` keys), so a hot symbol costs a dict hit."""

    def __init__(self, table: pa.Table, key: str, order: SortKeys, keep: int = 4096) -> None:
        self._table = table
        self._key = key
        self._order = order
        self._keep = keep
        self._slices: dict[str, tuple[int, int]] | None = None
        self._sorted: pa.Table | None = None
        self._rows: dict[str, list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def build(self) -> None:
        """Sort once by (key, ranking) so that every later lookup is a slice."""
        if self._slices is not None:
            return
        t = pc.filter(self._table, pc.is_valid(self._table.column(self._key)))
        t = pc.take(t, pc.sort_indices(t, [(self._key, "ascending"), *self._order]))
        keys = t.column(self._key).combine_chunks()
        n = len(keys)
        starts = np.zeros(min(n, 1), np.int64)
        if n > 1:
            change = pc.not_equal(keys[1:], keys[:-1]).to_numpy(zero_copy_only=False)
            starts = np.concatenate((starts, np.flatnonzero(change) + 1))
        ends = np.append(starts[1:], n) if n else starts
        names = pc.take(keys, pa.array(starts)).to_pylist()
        self._sorted = t
        self._slices = dict(
            zip(names, zip(starts.tolist(), ends.tolist(), strict=True), strict=True)
        )

    def _key_rows(self, key: Any, names: list[str] | None = None) -> pa.Table | None:
        """The Arrow rows of `key` in `get`'s order (only the columns `names`, when given);
        None when it has none."""
        if self._slices is not None and self._sorted is not None:
            span = self._slices.get(key)
            if span is None:
                return None
            rows = self._sorted.slice(span[0], span[1] - span[0])
            return rows if names is None else rows.select(names)
        table = self._table
        if names is not None:
            # the key and the ranking columns are needed to find and order the rows
            table = table.select(
                list(dict.fromkeys([*names, self._key, *(c for c, _ in self._order)]))
            )
        col = table.column(self._key)
        if not isinstance(key, str) or not pa.types.is_string(col.type):
            hit = pc.equal(col, pa.scalar(key, col.type))
        else:
            hit = pc.equal(col, key)
        rows = pc.filter(table, hit)
        if rows.num_rows == 0:
            return None
        if self._order:
            rows = pc.take(rows, pc.sort_indices(rows, self._order))
        return rows if names is None else rows.select(names)

    def _lookup(self, key: str) -> list[dict[str, Any]] | None:
        rows = self._key_rows(key)
        return None if rows is None else _rows(rows)

    def columns(self, key: Any, names: list[str]) -> dict[str, list] | None:
        """The values of `names` in `key`'s rows, a list per column in `get`'s order; None when
        it has no rows. Only those columns are read: a caller that needs two columns of a hot
        symbol's touches makes no dict per touch with every column, its diff excerpt included.
        Not kept here: the callers keep what they derive from them."""
        got = self._rows.get(key)
        if got is not None:
            return {n: [r[n] for r in got] for n in names}
        if key is None:
            return None
        rows = self._key_rows(key, names)
        return None if rows is None else _columns(rows, names)

    def prefetch(self, keys: Iterable[Any]) -> None:
        """Read the rows of `keys` not read yet in one pass over the key column, for a caller
        about to ask for many keys (every revert of a history and the commit it undid): the
        same rows, in the same order, as one lookup per key would read."""
        if self._slices is not None:
            return
        want = sorted({k for k in keys if isinstance(k, str) and k not in self._rows})
        col = self._table.column(self._key)
        if len(want) < 2 or not pa.types.is_string(col.type):
            return
        rows = pc.filter(self._table, pc.is_in(col, value_set=pa.array(want, pa.string())))
        if self._order:
            rows = pc.take(rows, pc.sort_indices(rows, self._order))
        found: dict[str, list[dict[str, Any]]] = {}
        for row in _rows(rows):
            found.setdefault(row[self._key], []).append(row)
        with self._lock:
            for key, got in found.items():
                if len(self._rows) >= self._keep:
                    break
                self._rows.setdefault(key, got)

    def get(self, key: Any, default: Any = None) -> Any:  # type: ignore[override]
        rows = self._rows.get(key)
        if rows is not None:
            return rows
        if key is None:
            return default
        rows = self._lookup(key)
        if rows is None:
            return default
        with self._lock:
            if len(self._rows) >= self._keep:
                self._rows.pop(next(iter(self._rows)))
            self._rows[key] = rows
        return rows

    def __getitem__(self, key: str) -> list[dict[str, Any]]:
        rows = self.get(key)
        if rows is None:
            raise KeyError(key)
        return rows

    def __contains__(self, key: object) -> bool:
        if self._slices is not None:
            return key in self._slices
        return self.get(key) is not None

    def __iter__(self) -> Iterator[str]:
        self.build()
        assert self._slices is not None
        return iter(self._slices)

    def __len__(self) -> int:
        self.build()
        assert self._slices is not None
        return len(self._slices)


_V = TypeVar("_V")
_T = TypeVar("_T")
_MISSING = object()
# a symbol partner: (symbol_id, path, qualname, its co-change row or None, its code link or None)
Partner = tuple[str, str, str, dict[str, Any] | None, str | None]
# how a code link reads from the target's side (`symbol_links.kind` of the target's rows)
_LINK = {"called_by": "caller", "calls": "callee"}


class _GroupedView(Mapping[str, _V]):
    """A mapping derived per key from `Grouped` rows: the keys are the grouped ones."""

    def __init__(self, rows: Grouped) -> None:
        self._rows = rows

    def build(self) -> None:
        self._rows.build()

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


class _Symbols(_GroupedView[list[SymbolRow]]):
    """`Grouped` symbol rows as `SymbolRow`s (built once per path)."""

    def __init__(self, rows: Grouped) -> None:
        super().__init__(rows)
        self._built: dict[str, list[SymbolRow]] = {}

    def get(self, key: Any, default: Any = None) -> Any:  # type: ignore[override]
        got = self._built.get(key)
        if got is None:
            rows = self._rows.get(key)
            if rows is None:
                return default
            got = self._built[key] = [SymbolRow(**r) for r in rows]
        return got

    def __getitem__(self, key: str) -> list[SymbolRow]:
        got = self.get(key)
        if got is None:
            raise KeyError(key)
        return got


# a release commit's subject: the version, alone or after "Release", "Release version", "Version"
# or "v", then perhaps a PR number
_RELEASE_SUBJECT = re.compile(
    r"(?:(?:[Rr]elease(?: [Vv]ersion)?|[Vv]ersion)[: ]\s*)?v?"
    r"(?P<version>\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)"
    r"(?:\s*\(#\d+\))?"
)
# a commit's date is when it landed (its commit time): history is newest first by it, and a
# commit hit's date (`documents`) is the same
COMMIT_COLUMNS = (
    "sha",
    "commit_time",
    "author_name",
    "subject",
    "intent",
    "files",
    "symbols",
    "bulk",
    "reverted_sha",
    "tickets",
)


class _Commits(Mapping[str, dict[str, Any]]):
    """sha -> commit row, each row read from the Arrow columns when first asked for: an answer
    reads a few dozen commits, and turning every commit into a dict took 13 ms of a first
    answer on a 5,700-commit history. Iterating every row (`items`, `values`) reads them all
    at once, column by column."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table
        self._shas: list[str] | None = None
        self._at: dict[str, int] | None = None
        self._rows: dict[str, dict[str, Any]] = {}
        self._fields: dict[str, list[Any]] = {}
        self._all = False
        self._lock = threading.Lock()

    def field(self, sha: str, name: str) -> Any:
        """Column `name` of commit `sha` (None when it is not indexed): a loop over a hot
        symbol's hundreds of commits that reads one field of each reads that column once, not a
        row per commit (`get`)."""
        i = self._positions().get(sha)
        if i is None:
            return None
        values = self._fields.get(name)
        if values is None:
            values = self._fields[name] = _pylist(self._table.column(name))
        return values[i]

    def _positions(self) -> dict[str, int]:
        if self._at is None:
            shas = self._table.column("sha").to_pylist()
            at = {sha: i for i, sha in enumerate(shas)}
            self._shas, self._at = shas, at
        return self._at

    def get(self, key: Any, default: Any = None) -> Any:  # type: ignore[override]
        row = self._rows.get(key)
        if row is not None:
            return row
        i = self._positions().get(key)
        if i is None:
            return default
        row = _rows(self._table.slice(i, 1))[0]
        with self._lock:
            self._rows[key] = row
        return row

    def __getitem__(self, key: str) -> dict[str, Any]:
        row = self.get(key)
        if row is None:
            raise KeyError(key)
        return row

    def __contains__(self, key: object) -> bool:
        return key in self._positions()

    def __iter__(self) -> Iterator[str]:
        self._positions()
        assert self._shas is not None
        return iter(self._shas)

    def __len__(self) -> int:
        return self._table.num_rows

    def read_all(self) -> dict[str, dict[str, Any]]:
        if not self._all:
            rows = {r["sha"]: r for r in _rows(self._table)}
            with self._lock:
                rows.update(self._rows)  # rows already handed out stay the same objects
                self._rows = rows
                self._all = True
        return self._rows

    def items(self):  # type: ignore[override]
        return self.read_all().items()

    def values(self):  # type: ignore[override]
        return self.read_all().values()

    def reverts(self) -> list[tuple[str, dict[str, Any]]]:
        """(sha, row) of the commits classed as reverts that name the commit they revert, in
        the history's order."""
        t = self._table
        hit = pc.and_(pc.equal(t.column("intent"), "revert"), pc.is_valid(t.column("reverted_sha")))
        picked = pc.filter(t.column("sha"), pc.fill_null(hit, False)).to_pylist()
        return [(sha, self[sha]) for sha in picked]


class _Messages(_GroupedView[str]):
    """sha -> message over `Grouped` commit rows."""

    def get(self, key: Any, default: Any = None) -> Any:  # type: ignore[override]
        rows = self._rows.get(key)
        return default if rows is None else rows[0]["message"] or ""

    def __getitem__(self, key: str) -> str:
        rows = self._rows[key]
        return rows[0]["message"] or ""


class ServeIndex:
    def __init__(self, gen: Generation) -> None:
        # shared: the memory book's own opens of this generation read the same columns
        self.gen = gen.share()
        self.name = gen.name
        self.manifest = gen.manifest
        self._reasons: dict[tuple[str, int], str] = {}
        self._touched: dict[str, tuple[tuple[str, str], ...]] = {}
        self._memo: dict[Hashable, object] = {}

    @classmethod
    def open(cls, store_root: Path) -> ServeIndex:
        return cls(Store(store_root).require_live())

    def has(self, name: str) -> bool:
        return self.gen.has(name)

    def table(self, name: str, columns: list[str] | None = None) -> pa.Table:
        return self.gen.table(name, columns=columns)

    # ------------------------------------------------------------------ symbols

    _SYMBOL_COLUMNS = (
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
    )

    @cached_property
    def _symbols_table(self) -> pa.Table:
        t = self.table("symbols", columns=list(self._SYMBOL_COLUMNS))
        # from the buffer: `pa.array(ndarray)` imports numpy.ma, tens of ms in a one-shot process
        rows = np.arange(t.num_rows, dtype=np.int64)
        column = pa.Array.from_buffers(pa.int64(), t.num_rows, [None, pa.py_buffer(rows)])
        return t.add_column(0, "row", column)

    @cached_property
    def symbols(self) -> list[SymbolRow]:
        return [SymbolRow(**r) for r in self._symbols_table.to_pylist()]

    @cached_property
    def symbols_by_path(self) -> Mapping[str, list[SymbolRow]]:
        """path -> its symbols in table order (one file's rows are built when it is asked for)."""
        return _Symbols(Grouped(self._symbols_table, "path", []))

    @cached_property
    def paths(self) -> list[str]:
        found = pc.unique(self._symbols_table.column("path")).to_pylist()
        return sorted(p for p in found if p is not None)

    # ------------------------------------------------------------------ history

    @cached_property
    def commits(self) -> Mapping[str, dict[str, Any]]:
        """sha -> the commit's row (a dict of `COMMIT_COLUMNS`), built when asked for."""
        if not self.has("commits"):
            return {}
        return _Commits(self.table("commits", columns=list(COMMIT_COLUMNS)))

    def commit_field(self, sha: str, name: str) -> Any:
        """One field of an indexed commit (None when it is not indexed), read by its column."""
        commits = self.commits
        return commits.field(sha, name) if isinstance(commits, _Commits) else None

    def revert_commits(self) -> list[tuple[str, dict[str, Any]]]:
        """(sha, row) of the commits classed as reverts that name the commit they revert, in
        the history's order (read from the table's columns, not from every row)."""
        commits = self.commits
        return commits.reverts() if isinstance(commits, _Commits) else []

    @cached_property
    def messages(self) -> Mapping[str, str]:
        """sha -> full commit message (a message is read when its commit is asked for)."""
        if not self.has("commits"):
            return {}
        return _Messages(Grouped(self.table("commits", columns=["sha", "message"]), "sha", []))

    def reason(self, sha: str, limit: int = 200) -> str:
        """Why the commit was made, from its body (see `commit_reason`); "" when it has none."""
        key = (sha, limit)
        got = self._reasons.get(key)
        if got is None:  # a generation's messages never change; a request asks for the same few
            got = self._reasons[key] = commit_reason(self.messages.get(sha), limit)
        return got

    @cached_property
    def _touches(self) -> pa.Table | None:
        if not self.has("touches"):
            return None
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
        return self.table("touches", columns=cols)

    def _touches_grouped(self, key: str) -> Mapping[str, list[dict[str, Any]]]:
        t = self._touches
        if t is None:
            return {}
        # newest first; the rows of one commit in table order
        return Grouped(t, key, [("commit_time", "descending"), ("sha", "descending")])

    @cached_property
    def touches_by_symbol(self) -> Mapping[str, list[dict[str, Any]]]:
        """symbol_id -> touches, newest first."""
        return self._touches_grouped("symbol_id")

    @cached_property
    def touches_by_path(self) -> Mapping[str, list[dict[str, Any]]]:
        """HEAD path -> touches (one row per touched symbol), newest first."""
        return self._touches_grouped("head_path")

    @cached_property
    def touches_by_sha(self) -> Mapping[str, list[dict[str, Any]]]:
        """commit sha -> the symbols it touched (head paths)."""
        return self._touches_grouped("sha")

    def path_changes(self, path: str) -> list[dict[str, Any]]:
        """The file-level changes history holds for `path` under any of its names: one row per
        (commit, path, old path, status, HEAD path) where `path` is the file changed, its old
        name or its name at HEAD, newest first. Read from the columns on each call (a path
        that is not at HEAD is asked about rarely)."""
        if not self.has("touches"):
            return []
        cols = ["sha", "commit_time", "path", "old_path", "status", "head_path"]
        t = self.table("touches", columns=cols)
        mask = None
        for name in ("path", "old_path", "head_path"):
            hit = pc.fill_null(pc.equal(t.column(name), path), False)
            mask = hit if mask is None else pc.or_(mask, hit)
        if mask is None or not pc.any(mask).as_py():
            return []
        t = pc.filter(t, mask)
        t = pc.take(t, pc.sort_indices(t, [("commit_time", "descending"), ("sha", "descending")]))
        seen: set[tuple[Any, ...]] = set()
        out = []
        for row in _rows(t):
            key = tuple(row[c] for c in cols if c != "commit_time")
            if key not in seen:
                seen.add(key)
                out.append(row)
        return out

    def at_head(self, path: str) -> bool:
        """Whether `path` is a file of the index at HEAD (parsed, or known to co-change only)."""
        return path in self.symbols_by_path or path in self.coupling_files

    @cached_property
    def head_names(self) -> frozenset[str]:
        """The file names (last path parts) of the parsed files at HEAD."""
        return frozenset(p.rsplit("/", 1)[-1] for p in self.paths)

    @cached_property
    def history_paths(self) -> frozenset[str]:
        """Every path a file had in the indexed history (changed, or renamed from)."""
        if not self.has("touches"):
            return frozenset()
        t = self.table("touches", columns=["path", "old_path"])
        out: set[str] = set()
        for name in ("path", "old_path"):
            out.update(p for p in pc.unique(t.column(name)).to_pylist() if p)
        return frozenset(out)

    @cached_property
    def gone_symbols(self) -> dict[str, str]:
        """name -> the sha of the newest commit that touched a symbol of that name which HEAD
        has no symbol of (the commit that removed or renamed it, as far as a name tells), for
        each qualified name and, when one such symbol has it, each last part of one."""
        if not self.has("touches") or not self.has("symbols"):
            return {}
        at_head: set[str] = set()
        for q in self._symbols_table.column("qualname").to_pylist():
            at_head.update((q, q.rsplit(".", 1)[-1]))
        t = self.table("touches", columns=["sha", "commit_time", "qualname"])
        newest: dict[str, tuple[Any, str]] = {}
        for sha, when, q in zip(*(_pylist(t.column(c)) for c in t.column_names), strict=True):
            if not q or q == MODULE_SYMBOL or q in at_head or q.rsplit(".", 1)[-1] in at_head:
                continue
            if q not in newest or (when, sha) > newest[q]:
                newest[q] = (when, sha)
        out = {q: sha for q, (_, sha) in newest.items()}
        parts: dict[str, list[str]] = {}
        for q in newest:
            parts.setdefault(q.rsplit(".", 1)[-1], []).append(q)
        for part, names in parts.items():
            if len(names) == 1 and part not in out:
                out[part] = out[names[0]]
        return out

    @cached_property
    def releases(self) -> dict[str, list[str]]:
        """version -> shas of the commits whose subject is that version's release ("5.1.0",
        "v2.0.0", "Release: 5.2.0 (#6920)", "release version 8.4.1"), newest first (a release
        and the merge that brought it in)."""
        if not self.has("commits"):
            return {}
        t = self.table("commits", columns=["sha", "commit_time", "subject"])
        found: dict[str, list[tuple[Any, str]]] = {}
        for sha, when, subject in zip(*(_pylist(t.column(c)) for c in t.column_names), strict=True):
            m = _RELEASE_SUBJECT.fullmatch(subject or "")
            if m is not None:
                found.setdefault(m.group("version"), []).append((when, sha))
        return {v: [sha for _, sha in sorted(got, reverse=True)] for v, got in found.items()}

    @cached_property
    def sha_prefixes(self) -> ShaPrefixes:
        """The resolver of commit sha prefixes ("This reverts commit 1a2b3c4"), built once."""
        return ShaPrefixes(self.commits)

    def resolve_sha(self, prefix: str) -> str | None:
        """The indexed commit a sha or a sha prefix names (`ShaPrefixes.first`). A whole sha,
        as git's revert message and a commit hit give it, is looked up: a one-shot answer need
        not sort every sha of the history for it."""
        if len(prefix) in _WHOLE_SHA and prefix in self.commits:
            return prefix
        return self.sha_prefixes.first(prefix)

    @cached_property
    def reverted_by(self) -> dict[str, list[str]]:
        """sha of a reverted commit -> the shas of the revert commits that name it, in the
        history's order."""
        out: dict[str, list[str]] = {}
        first = self.resolve_sha
        for sha, c in self.revert_commits():
            full = first(c["reverted_sha"]) if c.get("intent") == "revert" else None
            if full is not None and full != sha:
                out.setdefault(full, []).append(sha)
        return out

    @cached_property
    def _parents(self) -> dict[str, list[str]]:
        """sha -> its parents' shas, read once when first asked for."""
        if not self.has("commits"):
            return {}
        t = self.table("commits", columns=["sha", "parents"])
        return dict(zip(_pylist(t.column("sha")), _pylist(t.column("parents")), strict=True))

    def _ancestors_in_second(self, sha: str) -> set[str]:
        """The ancestors of commit `sha` with its commit time, through parents of that time."""
        parents, when_of = self._parents, self.commit_field
        when = when_of(sha, "commit_time")
        todo, seen = list(parents.get(sha) or ()), set[str]()
        while todo and len(seen) < 10_000:
            p = todo.pop()
            if p not in seen and when_of(p, "commit_time") == when:
                seen.add(p)
                todo.extend(parents.get(p) or ())
        return seen

    def in_history_order(self, shas: list[str], n: int, *, oldest: bool = False) -> list[str]:
        """The `n` newest (`oldest`: oldest) of `shas`, commits of the index listed newest first
        by commit time, in that order. Commits of one second, as a rebased series has, are
        ordered by their parents, which the time cannot tell; ties keep the order given."""
        field = self.commit_field
        groups: list[list[str]] = []
        for sha in dict.fromkeys(shas):
            when = field(sha, "commit_time")
            if groups and field(groups[-1][0], "commit_time") == when:
                groups[-1].append(sha)
            else:
                groups.append([sha])
        out: list[str] = []
        for group in reversed(groups) if oldest else groups:
            out += self._one_second_in_order(group, oldest)[: n - len(out)]
            if len(out) >= n:
                break
        return out

    def _one_second_in_order(self, group: list[str], oldest: bool) -> list[str]:
        """`group` (commits of one commit time, newest first as listed) newest first by their
        parents, or oldest first: each pick is one no other left descends from (`oldest`: one
        that descends from none left)."""
        if len(group) < 2:
            return list(group)
        within = set(group)
        older = {sha: self._ancestors_in_second(sha) & within for sha in group}
        left, out = list(group), []
        while left:
            rest = set(left)
            if oldest:
                free = [sha for sha in left if not older[sha] & rest]
                pick = free[-1] if free else left[-1]
            else:
                covered = set().union(*(older[sha] for sha in left)) & rest
                free = [sha for sha in left if sha not in covered]
                pick = free[0] if free else left[0]
            out.append(pick)
            left.remove(pick)
        return out

    def departed(self, path: str) -> dict[str, Any] | None:
        """The change that took `path` away: the newest rename from it, or deletion of it,
        among `path_changes(path)` (a row of them); None when history has neither."""
        for row in self.path_changes(path):  # newest first
            if row["status"] == "R" and row["old_path"] == path:
                return row
            if row["status"] == "D" and row["path"] == path:
                return row
        return None

    def memo(self, key: Hashable, build: Callable[[], _T]) -> _T:
        """A value derived from this generation alone (a symbol's shown history), built on its
        first request and kept; a reload makes a new index, so nothing outlives its generation."""
        got = self._memo.get(key, _MISSING)
        if got is _MISSING:
            got = build()
            if len(self._memo) >= 16384:
                self._memo.clear()
            self._memo[key] = got
        return got  # type: ignore[return-value]

    def symbol_commit_orders(self) -> dict[str, list[str]]:
        """Every symbol's commits in the order its "why" attachments take them before a
        question has a say: the load-bearing ones (bugfix, security, revert) first, then the
        newest, ties by sha descending; from one sort of the touches, for a warm server, whose
        never-asked hits then find their orders made."""
        t = self._touches
        if t is None:
            return {}
        t = t.select(["symbol_id", "sha", "commit_time"])
        t = pc.filter(t, pc.is_valid(t.column("symbol_id")))
        fixes = pa.array([], pa.string())
        if self.has("commits"):
            c = self.table("commits", columns=["sha", "intent"])
            kinds = pa.array(sorted(LOAD_BEARING), pa.string())
            fixes = pc.filter(c.column("sha"), pc.is_in(c.column("intent"), kinds))
            fixes = fixes.combine_chunks() if isinstance(fixes, pa.ChunkedArray) else fixes
        t = t.append_column("_fix", pc.is_in(t.column("sha"), fixes))
        keys = [("symbol_id", "ascending"), ("_fix", "descending")]
        t = pc.take(
            t, pc.sort_indices(t, [*keys, ("commit_time", "descending"), ("sha", "descending")])
        )
        out: dict[str, list[str]] = {}
        order: list[str] = []
        last_symbol = last_sha = None
        shared: dict[str, str] = {}  # one string per commit, however many symbols it touched
        for symbol, sha in zip(
            t.column("symbol_id").to_pylist(), t.column("sha").to_pylist(), strict=True
        ):
            if symbol != last_symbol:
                order = out[symbol] = []
                last_symbol, last_sha = symbol, None
            if sha != last_sha:  # a commit's touches of one symbol sort side by side
                order.append(shared.setdefault(sha, sha))
                last_sha = sha
        return out

    @staticmethod
    def touch_columns(
        grouped: Mapping[str, list[dict[str, Any]]], key: str, names: list[str]
    ) -> dict[str, list]:
        """`Grouped.columns` of a `touches_by_*` mapping: empty lists for a key without touches
        (or an index without the table)."""
        got = grouped.columns(key, names) if isinstance(grouped, Grouped) else None
        return got if got is not None else {n: [] for n in names}

    def symbols_touched(self, sha: str) -> tuple[tuple[str, str], ...]:
        """(head path, qualname) of each symbol a commit touched, in table order, once: the
        graveyard matcher asks for the same retrieved commits query after query."""
        got = self._touched.get(sha)
        if got is None:
            cols = self.touch_columns(self.touches_by_sha, sha, ["head_path", "qualname"])
            got = tuple(
                dict.fromkeys(
                    (path, qualname)
                    for path, qualname in zip(cols["head_path"], cols["qualname"], strict=True)
                    if qualname
                )
            )
            if len(self._touched) >= 65536:
                self._touched.clear()
            self._touched[sha] = got
        return got

    @cached_property
    def blame_by_symbol(self) -> Mapping[str, list[dict[str, Any]]]:
        if not self.has("blame"):
            return {}
        cols = [
            "symbol_id",
            "sha",
            "lines",
            "symbol_lines",
            "code_lines",
            "symbol_code_lines",
            "intent",
            "load_bearing",
            "load_bearing_share",
            "author_time",
        ]
        try:
            t = self.table("blame", columns=cols)
        except IndexCorrupt:  # built before code lines were counted: every line counts
            old = [c for c in cols if c not in ("code_lines", "symbol_code_lines")]
            t = self.table("blame", columns=old)
            t = t.append_column("code_lines", t.column("lines"))
            t = t.append_column("symbol_code_lines", t.column("symbol_lines")).select(cols)
        return Grouped(t, "symbol_id", [("lines", "descending"), ("sha", "ascending")])

    # ------------------------------------------------------------------ coupling

    def _coupling(self, name: str, extra: list[str]) -> Mapping[str, list[dict[str, Any]]]:
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
        # the one partner ranking (rank_score); partners with the same co-commits: the more
        # active file first
        order = [
            ("rank_score", "descending"),
            ("co_commits", "descending"),
            ("dst_commits", "descending"),
            ("dst", "ascending"),
        ]
        return Grouped(t, "src", order)

    @cached_property
    def coupling_files(self) -> Mapping[str, list[dict[str, Any]]]:
        return self._coupling("cochange_files", [])

    @cached_property
    def coupling_symbols(self) -> Mapping[str, list[dict[str, Any]]]:
        return self._coupling("cochange_symbols", ["dst_path", "dst_qualname"])

    @cached_property
    def symbol_links(self) -> Mapping[str, list[dict[str, Any]]]:
        """symbol_id -> the symbols its code names and those naming it (`stages/links.py`), the
        most changed first; an index built before links were made has none."""
        if not self.has("symbol_links"):
            return {}
        t = self.table(
            "symbol_links",
            columns=["src", "dst", "kind", "dst_path", "dst_qualname", "dst_commits"],
        )
        order = [
            ("dst_commits", "descending"),
            ("dst_path", "ascending"),
            ("dst_qualname", "ascending"),
            ("kind", "ascending"),
        ]
        return Grouped(t, "src", order)

    @cached_property
    def imports(self) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """(path -> the files of the repository it imports, path -> the files importing it),
        each sorted, from `files.imports_resolved` (the chunk stage's resolution of each
        file's import statements)."""
        out: dict[str, list[str]] = {}
        into: dict[str, list[str]] = defaultdict(list)
        if not self.has("files"):
            return out, {}
        t = self.table("files", columns=["path", "imports_resolved"])
        for path, targets in zip(
            t.column("path").to_pylist(), t.column("imports_resolved").to_pylist(), strict=True
        ):
            if targets:
                out[path] = sorted(set(targets) - {path})
                for target in out[path]:
                    into[target].append(path)
        return out, {k: sorted(v) for k, v in into.items()}

    def symbol_partners(self, symbol_id: str, limit: int) -> tuple[Partner, ...]:
        """What else changes with a symbol, in the order preflight and search list it, at most
        `limit`: its co-change partners (`coupling_symbols`), then, while there is room, the
        symbols linked to it in the code (`symbol_links`: its callers and callees by name), the
        most changed first. On real histories the links held what later changed with a symbol
        more often than its co-change partners (benchmarks/real.py, item 11)."""
        return self.memo(("partners", symbol_id, limit), lambda: self._partners(symbol_id, limit))

    def _partners(self, symbol_id: str, limit: int) -> tuple[Partner, ...]:
        links: dict[str, tuple[str, str, str]] = {}  # dst -> (link, path, qualname)
        for r in self.symbol_links.get(symbol_id, []):
            if r["dst_qualname"] == MODULE_SYMBOL:  # a file's top-level code: not a partner
                continue
            link = _LINK[r["kind"]]
            seen = links.get(r["dst"])
            if seen is None:
                links[r["dst"]] = (link, r["dst_path"], r["dst_qualname"])
            elif seen[0] != link:
                links[r["dst"]] = ("caller and callee", seen[1], seen[2])
        out: list[Partner] = []
        for r in self.coupling_symbols.get(symbol_id, [])[: max(0, limit)]:
            linked = links.get(r["dst"])
            out.append(
                (r["dst"], r["dst_path"], r["dst_qualname"], r, linked[0] if linked else None)
            )
        listed = {p[0] for p in out}
        for dst, (kind, path, qualname) in links.items():
            if len(out) >= limit:
                break
            if dst not in listed:
                out.append((dst, path, qualname, None, kind))
        return tuple(out)

    # ------------------------------------------------------------------ helpers

    def warm(self) -> None:
        """Build every lookup now (a server calls this once at start)."""
        for attr in (
            "symbols_by_path",
            "paths",
            "commits",
            "touches_by_symbol",
            "touches_by_path",
            "touches_by_sha",
            "blame_by_symbol",
            "messages",
            "coupling_files",
            "coupling_symbols",
            "symbol_links",
        ):
            value = getattr(self, attr)
            if isinstance(value, Grouped | _Symbols | _Messages):
                value.build()
            elif isinstance(value, _Commits):
                value.read_all()


_WHOLE_SHA = (40, 64)  # SHA-1 and SHA-256 object names, in hex


class ShaPrefixes:
    """The indexed commits' shas sorted, so that a prefix resolves by bisection instead of a
    scan of every commit. On an ambiguous prefix the commit first in the index's order wins,
    as it would in that scan."""

    def __init__(self, shas: Iterable[str]) -> None:
        pairs = sorted((s, i) for i, s in enumerate(shas))
        self.shas = [s for s, _ in pairs]
        self.order = [i for _, i in pairs]

    def first(self, prefix: str) -> str | None:
        best: int | None = None
        i = bisect_left(self.shas, prefix)
        while i < len(self.shas) and self.shas[i].startswith(prefix):
            if best is None or self.order[i] < self.order[best]:
                best = i
            i += 1
        return self.shas[best] if best is not None else None
