"""Preflight: everything an agent should know before editing one function or file.

Built from lookups on a `ServeIndex` (no scans): the AST context of the target, blame ownership
and the load-bearing share, the symbol's causal history newest first, the coupled files and
symbols. Search-backed sections (related memory, failed attempts) and invariants are filled in by
the engine. An unknown file or symbol is an answer that says so and offers the nearest matches.
"""

from __future__ import annotations

import difflib
import posixpath

from ..store.config import RetrievalConfig
from ..store.ids import MODULE_SYMBOL
from .index import ServeIndex, SymbolRow, iso_date
from .models import CommitRef, Coupling, HistoryEntry, Ownership, PreflightReport, SymbolContext
from .targets import find_symbol


def commit_ref(index: ServeIndex, sha: str, fallback_time=None) -> CommitRef:
    c = index.commits.get(sha)
    if c is None:
        return CommitRef(
            sha=sha, short=sha[:10], date=iso_date(fallback_time), intent="unknown", subject=""
        )
    return CommitRef(
        sha=sha,
        short=sha[:10],
        date=iso_date(c["author_time"]),
        intent=c["intent"],
        subject=c["subject"] or "",
    )


def nearest_paths(index: ServeIndex, path: str, n: int = 5) -> list[str]:
    paths = index.paths
    base = posixpath.basename(path)
    same_name = [p for p in paths if posixpath.basename(p) == base]
    close = difflib.get_close_matches(path, paths, n=n, cutoff=0.5)
    out: list[str] = []
    for p in same_name + close:
        if p not in out:
            out.append(p)
    return out[:n]


def resolve_symbol(rows: list[SymbolRow], symbol: str) -> tuple[SymbolRow | None, list[str]]:
    """Exact qualname, then case-insensitive, then by last component; else nearest names."""
    found = find_symbol([r.qualname for r in rows], symbol)
    if found is not None:
        return rows[found], []
    wanted = symbol.strip().removesuffix("()")
    names = [r.qualname for r in rows if r.qualname != MODULE_SYMBOL]
    return None, difflib.get_close_matches(wanted, names, n=5, cutoff=0.4) or names[:5]


def build_preflight(
    index: ServeIndex,
    path: str,
    symbol: str | None,
    intended_change: str | None,
    cfg: RetrievalConfig,
) -> tuple[PreflightReport, SymbolRow | None]:
    report = PreflightReport(file=path, symbol=symbol, intended_change=intended_change, found=False)
    rows = index.symbols_by_path.get(path)
    if rows is None:
        report.message = f"{path} is not in the index (generation {index.name})"
        report.nearest = nearest_paths(index, path)
        return report, None
    target: SymbolRow | None
    if symbol:
        target, nearest = resolve_symbol(rows, symbol)
        if target is None:
            report.message = f"{path} has no symbol {symbol!r}"
            report.nearest = [f"{path}::{n}" for n in nearest]
            # the file itself is still worth describing
            target = next((r for r in rows if r.qualname == MODULE_SYMBOL), None)
            report.found = False
        else:
            report.found = True
            report.symbol = target.qualname
    else:
        target = next((r for r in rows if r.qualname == MODULE_SYMBOL), rows[0])
        report.found = True
    if target is None:
        return report, None
    if target.qualname != MODULE_SYMBOL or not symbol:
        report.context = SymbolContext(
            path=target.path,
            qualname=target.qualname,
            kind=target.kind,
            start_line=target.start_line,
            end_line=target.end_line,
            signature=target.signature or "",
            docstring=target.docstring or "",
            language=target.language,
        )
    _ownership(index, target, report)
    _history(index, target, report, whole_file=not symbol, limit=cfg.history_limit)
    _coupling(index, target, report, limit=cfg.coupling_limit)
    return report, target


def _ownership(index: ServeIndex, target: SymbolRow, report: PreflightReport) -> None:
    rows = index.blame_by_symbol.get(target.symbol_id, [])
    total = rows[0]["symbol_lines"] if rows else max(0, target.end_line - target.start_line + 1)
    report.total_lines = total
    for r in rows:
        lb = bool(r["load_bearing"])
        report.ownership.append(
            Ownership(
                commit=commit_ref(index, r["sha"], r["author_time"]),
                lines=r["lines"],
                share=round(r["lines"] / total, 4) if total else 0.0,
                load_bearing=lb,
            )
        )
        if lb:
            report.load_bearing_lines += r["lines"]
    report.load_bearing_share = round(report.load_bearing_lines / total, 4) if total else 0.0


def _history(
    index: ServeIndex, target: SymbolRow, report: PreflightReport, *, whole_file: bool, limit: int
) -> None:
    touches = (
        index.touches_by_path.get(target.path, [])
        if whole_file
        else index.touches_by_symbol.get(target.symbol_id, [])
    )
    merged: dict[str, HistoryEntry] = {}
    order: list[str] = []
    for t in touches:
        sha = t["sha"]
        entry = merged.get(sha)
        if entry is None:
            if len(order) >= limit:
                continue
            entry = HistoryEntry(
                commit=commit_ref(index, sha, t["commit_time"]), added=0, removed=0
            )
            merged[sha] = entry
            order.append(sha)
        entry.added += t["added"] or 0
        entry.removed += t["removed"] or 0
        entry.files += 1
        if t["excerpt"]:
            entry.excerpt.extend(_excerpt_lines(t["excerpt"]))
    for sha in order:
        merged[sha].excerpt = merged[sha].excerpt[:8]
    report.history = [merged[s] for s in order]


def _excerpt_lines(text: str) -> list[str]:
    """The +/- lines of a stored excerpt, most telling first: changed code, not blank lines."""
    out = []
    for line in text.splitlines():
        if line[:1] in "+-" and line[1:].strip() and not line.startswith(("+++", "---")):
            out.append(line[0] + "     " + line[1:].rstrip())
    return out


def _coupling(index: ServeIndex, target: SymbolRow, report: PreflightReport, *, limit: int) -> None:
    for r in index.coupling_files.get(target.path, [])[:limit]:
        report.coupling.append(
            Coupling(
                path=r["dst"],
                weight=round(r["weight"], 4),
                confidence=round(r["confidence"], 4),
                co_commits=r["co_commits"],
                hidden=bool(r["hidden"]),
            )
        )
    if target.qualname == MODULE_SYMBOL:
        return
    for r in index.coupling_symbols.get(target.symbol_id, [])[: max(0, limit // 2)]:
        report.symbol_coupling.append(
            Coupling(
                path=r["dst_path"],
                symbol=r["dst_qualname"],
                weight=round(r["weight"], 4),
                confidence=round(r["confidence"], 4),
                co_commits=r["co_commits"],
                hidden=bool(r["hidden"]),
            )
        )
