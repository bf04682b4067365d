"""The read side's view of one generation: memory-mapped tables and the lookups preflight needs.

Opening costs milliseconds: the manifest is read and nothing else. Each lookup structure (symbols
by path, history by symbol, blame by symbol, coupling by source) is built on first use from only
the columns it needs, and `warm()` builds them all up front for a long-running server. An
instance is immutable once built; a reload makes a new one and swaps the reference.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..store.errors import IndexCorrupt
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
    def paths(self) -> list[str]:
        return sorted(self.symbols_by_path)

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
    def messages(self) -> dict[str, str]:
        """sha -> full commit message (read on first use: only history entries need it)."""
        if not self.has("commits"):
            return {}
        t = self.table("commits", columns=["sha", "message"])
        return {
            sha: msg or ""
            for sha, msg in zip(t["sha"].to_pylist(), t["message"].to_pylist(), strict=True)
        }

    def reason(self, sha: str, limit: int = 200) -> str:
        """Why the commit was made, from its body (see `commit_reason`); "" when it has none."""
        return commit_reason(self.messages.get(sha), limit)

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
            "code_lines",
            "symbol_code_lines",
            "intent",
            "load_bearing",
            "load_bearing_share",
            "author_time",
        ]
        try:
            t = self.table("blame", columns=cols)
            data = _columns(t, cols)
        except IndexCorrupt:  # built before code lines were counted: every line counts
            old = [c for c in cols if c not in ("code_lines", "symbol_code_lines")]
            t = self.table("blame", columns=old)
            data = _columns(t, old)
            data["code_lines"], data["symbol_code_lines"] = data["lines"], data["symbol_lines"]
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
            "paths",
            "commits",
            "touches_by_symbol",
            "touches_by_path",
            "touches_by_sha",
            "blame_by_symbol",
            "messages",
            "coupling_files",
            "coupling_symbols",
        ):
            getattr(self, attr)
