"""Preflight: everything an agent should know before editing one function or file.

Built from lookups on a `ServeIndex` (no scans): the AST context of the target, blame ownership
and the load-bearing share, the symbol's causal history, the coupled files and symbols.
Search-backed sections (related memory, failed attempts) and invariants are filled in by the
engine. An unknown file or symbol is an answer that says so and offers the nearest matches (a
file history had says where it went: renamed, with its name at HEAD first, or deleted)
(nothing else: no whole-file sections under a name that was not found); a
name that matches several symbols equally well raises `AmbiguousSymbol` listing them (a name
picks one by its qualifier, `Foo::new` / `Class.method`, or by a line, `new@42`).

Invariants: load-bearing counts only code lines of fix commits, and lists a fix only above
`retrieval.load_bearing_min_lines` or `_min_share` (a whole file is summarised, not listed);
the history shows at most `retrieval.history_limit` of `history_total` commits, the most useful
ones (the newest, then fixes and reverts, then the rest newest first; bulk commits last), newest
first, each with its body's reason, and `history_more` says how to list them all.
"""

from __future__ import annotations

import difflib
import functools
import posixpath
from typing import Any

from ..store.attempts import changed_lines, without_respacing
from ..store.config import RetrievalConfig
from ..store.errors import AmbiguousSymbol
from ..store.ids import MODULE_SYMBOL
from ..store.schemas import WEAK_BELOW
from ..store.vocabulary import LOAD_BEARING
from .index import ServeIndex, SymbolRow, iso_date
from .models import (
    CommitRef,
    Coupling,
    HistoryEntry,
    Hit,
    Ownership,
    PreflightReport,
    SymbolContext,
)
from .targets import match_symbols, parse_symbol_name


def commit_ref(index: ServeIndex, sha: str, fallback_time=None, reason_chars: int = 0) -> CommitRef:
    c = index.commits.get(sha)
    if c is None:
        return CommitRef(
            sha=sha, short=sha[:10], date=iso_date(fallback_time), intent="unknown", subject=""
        )
    return CommitRef(
        sha=sha,
        short=sha[:10],
        date=iso_date(c["commit_time"]),
        intent=c["intent"],
        subject=c["subject"] or "",
        reason=index.reason(sha, reason_chars) if reason_chars else "",
    )


def attach_reasons(index: ServeIndex, hits: list[Hit], reason_chars: int) -> None:
    """Fill the body's reason (and the author) of commit hits, and the reason of the commits
    attached to symbol hits."""
    for hit in hits:
        if hit.kind == "commit" and hit.key:
            if hit.author is None:
                hit.author = index.commits.get(hit.key, {}).get("author_name")
            if reason_chars and not hit.reason:
                hit.reason = index.reason(hit.key, reason_chars)
        for ref in hit.why if reason_chars else ():
            if not ref.reason:
                ref.reason = index.reason(ref.sha, reason_chars)


def nearest_paths(index: ServeIndex, path: str, n: int = 5) -> list[str]:
    """Files at HEAD an unknown `path` may mean, best first: those sharing the most leading
    folders with it (the files of its deepest folder that still exists: a deleted
    `lib/router/index.js` offers `lib/`'s files before `examples/*/index.js`), then those of
    its file name, then the closest spellings."""
    paths = index.paths
    base = posixpath.basename(path)
    folders = path.split("/")[:-1]

    def shared(p: str) -> int:
        k = 0
        for a, b in zip(folders, p.split("/")[:-1], strict=False):
            if a != b:
                break
            k += 1
        return k

    close = difflib.get_close_matches(path, paths, n=n, cutoff=0.5)
    candidates = dict.fromkeys([p for p in paths if posixpath.basename(p) == base] + close)
    for depth in range(len(folders), 0, -1):  # the deepest folder of `path` at HEAD
        prefix = "/".join(folders[:depth]) + "/"
        under = [p for p in paths if p.startswith(prefix)]
        if under:
            candidates.update(dict.fromkeys(under[:200]))
            break

    def rank(p: str) -> tuple[int, bool, float]:
        ratio = difflib.SequenceMatcher(None, path, p).ratio()
        return (-shared(p), posixpath.basename(p) != base, -ratio)

    return sorted(candidates, key=lambda p: (*rank(p), p))[:n]


def _cite(index: ServeIndex, row: dict[str, Any]) -> str:
    sha = row["sha"]
    subject = (index.commits.get(sha) or {}).get("subject") or ""
    return f"{sha[:8]} ({iso_date(row['commit_time'])}{': ' + subject if subject else ''})"


def departure(index: ServeIndex, path: str, depth: int = 0) -> tuple[str, list[str]] | None:
    """Why `path`, not a file of the index at HEAD, is not: its newest rename away (with the
    name it has at HEAD, which is offered first) or deletion, from the touches. None when the
    history never had it."""
    row = index.departed(path)
    if row is not None and row["status"] == "R":
        now = row["head_path"] or row["path"]
        said = f"{path} was renamed to {row['path']} in {_cite(index, row)}"
        if index.at_head(now):
            return said + ("" if now == row["path"] else f"; it is {now} at HEAD"), [now]
        gone = departure(index, now, depth + 1) if now != path and depth < 3 else None
        return said + (f"; then {gone[0]}" if gone else ""), []
    if row is not None:
        return f"{path} was deleted in {_cite(index, row)}", []
    rows = index.path_changes(path)
    if rows:
        commits = len({r["sha"] for r in rows})
        return f"{path} changed in {commits} commits but is not a file of the index at HEAD", []
    return None


def unknown_path(index: ServeIndex, path: str) -> tuple[str, list[str]]:
    """What to say of `path`, not a file of the index at HEAD, and the files to offer instead:
    where history says it went (`departure`), or that it is a folder, or the nearest names."""
    nearest = nearest_paths(index, path)
    gone = departure(index, path)
    if gone is not None:
        message, now = gone
        return message, list(dict.fromkeys(now + nearest))[:5]
    folder = path.rstrip("/") + "/"
    under = [p for p in index.paths if p.startswith(folder)]
    if under:
        return f"{path} is a folder of {len(under)} indexed files, not a file", under[:5]
    return f"{path} is not in the index (generation {index.name})", nearest


def resolve_symbol(
    path: str, rows: list[SymbolRow], symbol: str
) -> tuple[SymbolRow | None, list[str]]:
    """The row `symbol` names in `path` (see `targets.match_symbols`), else None and the
    nearest names; several equally good matches raise `AmbiguousSymbol`."""
    qualnames = [r.qualname for r in rows]
    hits = match_symbols(qualnames, [(r.start_line, r.end_line) for r in rows], symbol)
    if len(hits) == 1:
        return rows[hits[0]], []
    if hits:
        raise AmbiguousSymbol(
            path,
            symbol.strip(),
            [(rows[i].qualname, rows[i].start_line, rows[i].end_line) for i in hits],
        )
    wanted, line = parse_symbol_name(symbol)
    names = [r.qualname for r in rows if r.qualname != MODULE_SYMBOL]
    if line is not None and wanted:
        # the name exists elsewhere in the file: its places are the nearest matches
        same = match_symbols(qualnames, None, wanted)
        if same:
            return None, [f"{rows[i].qualname}@{rows[i].start_line}" for i in same][:5]
    if not wanted:
        return None, []
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
        if path in index.coupling_files:
            # a file at HEAD that is not parsed (binary, too large): its partners are known
            report.found = True
            report.message = f"{path} is not parsed (binary or too large): co-change only"
            _coupling_of_file(index, path, report, limit=cfg.coupling_limit)
            return report, None
        report.message, report.nearest = unknown_path(index, path)
        return report, None
    target: SymbolRow | None
    if symbol:
        target, nearest = resolve_symbol(path, rows, symbol)
        if target is None:
            name, line = parse_symbol_name(symbol)
            at = f" at line {line}" if line is not None else ""
            what = f"symbol {name!r}" if name else "named symbol"
            report.message = f"{path} has no {what}{at}"
            report.nearest = [f"{path}::{n}" for n in nearest]
            # the candidates are the answer: a whole-file report under a name the agent did not
            # ask for is pages of text about something else (the file's invariants still apply)
            return report, None
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
    _ownership(index, target, report, cfg)
    _history(index, target, report, whole_file=not symbol, cfg=cfg)
    _coupling(index, target, report, limit=cfg.coupling_limit)
    return report, target


def _ownership(
    index: ServeIndex, target: SymbolRow, report: PreflightReport, cfg: RetrievalConfig
) -> None:
    rows = index.blame_by_symbol.get(target.symbol_id, [])
    total = rows[0]["symbol_lines"] if rows else max(0, target.end_line - target.start_line + 1)
    code_total = rows[0]["symbol_code_lines"] if rows else total
    report.total_lines = total
    report.code_lines = code_total
    bearing: list[Ownership] = []
    for r in rows:
        lb = bool(r["load_bearing"])
        owner = Ownership(
            commit=commit_ref(index, r["sha"], r["author_time"]),
            lines=r["lines"],
            share=round(r["lines"] / total, 4) if total else 0.0,
            load_bearing=lb,
            code_lines=r["code_lines"],
            code_share=round(r["code_lines"] / code_total, 4) if code_total else 0.0,
        )
        report.ownership.append(owner)
        if lb:
            report.load_bearing_lines += owner.code_lines
            bearing.append(owner)
    report.load_bearing_commits = len(bearing)
    report.load_bearing_share = (
        round(report.load_bearing_lines / code_total, 4) if code_total else 0.0
    )
    if target.qualname == MODULE_SYMBOL:
        return  # a whole file is summarised: dozens of small fixes are noise, not a warning
    shown = [
        o
        for o in bearing
        if o.code_lines >= cfg.load_bearing_min_lines or o.code_share >= cfg.load_bearing_min_share
    ]
    shown.sort(key=lambda o: (-o.code_lines, o.commit.sha))
    report.load_bearing = shown[: cfg.load_bearing_limit]
    for o in report.load_bearing:  # only the listed fixes say why (a reason costs a lookup)
        o.commit.reason = index.reason(o.commit.sha, cfg.reason_chars)


def _history(
    index: ServeIndex,
    target: SymbolRow,
    report: PreflightReport,
    *,
    whole_file: bool,
    cfg: RetrievalConfig,
) -> None:
    limit, recent = cfg.history_limit, cfg.history_recent
    key = ("history", target.path if whole_file else target.symbol_id, whole_file, limit, recent)
    total, plan = index.memo(key, lambda: _history_plan(index, target, whole_file, limit, recent))
    report.history_total = total
    for sha, when, added, removed, files, excerpt in plan:
        report.history.append(
            HistoryEntry(
                commit=commit_ref(index, sha, when, cfg.reason_chars),
                added=added,
                removed=removed,
                excerpt=list(excerpt),
                files=files,
            )
        )
    if report.history_total > len(report.history):
        report.history_more = history_query(target, whole_file=whole_file)


HistoryPlan = tuple[int, tuple[tuple[str, Any, int, int, int, tuple[str, ...]], ...]]


def _history_plan(
    index: ServeIndex, target: SymbolRow, whole_file: bool, limit: int, recent: int
) -> HistoryPlan:
    """(commits touching the target, then per shown commit: sha, its time, lines added and
    removed, touched rows, excerpt lines): the same for every request of a generation, and a
    hot symbol's touches run into the hundreds."""
    touches = (
        index.touches_by_path.get(target.path, [])
        if whole_file
        else index.touches_by_symbol.get(target.symbol_id, [])
    )
    by_sha: dict[str, list[dict]] = {}
    for t in touches:  # newest first
        by_sha.setdefault(t["sha"], []).append(t)
    newest = list(by_sha)
    plan = []
    for sha in useful_commits(index, newest, limit, recent):
        rows = by_sha[sha]
        lines: list[str] = []
        added = removed = 0
        for t in rows:
            added += t["added"] or 0
            removed += t["removed"] or 0
            if t["excerpt"] and len(lines) < 32:
                lines.extend(excerpt_lines(t["excerpt"]))
        # changed code tells more than reworded comments: it goes first, in diff order
        lines.sort(key=_is_comment)
        plan.append((sha, rows[0]["commit_time"], added, removed, len(rows), tuple(lines[:8])))
    return len(newest), tuple(plan)


def useful_commits(index: ServeIndex, newest: list[str], limit: int, recent: int) -> list[str]:
    """At most `limit` of `newest` (shas, newest first), newest first: the `recent` newest
    non-bulk commits, then fixes / security / reverts, then the rest; bulk commits (mass
    formatting, renames) only when nothing else is left."""
    field = index.commit_field
    tiers: tuple[list[int], list[int], list[int], list[int]] = ([], [], [], [])
    latest, fixes, rest, bulk = tiers
    for i, sha in enumerate(newest):
        if field(sha, "bulk"):
            bulk.append(i)
        elif len(latest) < recent:
            latest.append(i)
        elif field(sha, "intent") in LOAD_BEARING:
            fixes.append(i)
            if len(latest) + len(fixes) >= limit:
                break  # nothing older can make the cut
        else:
            rest.append(i)
    picked = (latest + fixes + rest + bulk)[:limit]
    return [newest[i] for i in sorted(picked)]


def history_query(target: SymbolRow, *, whole_file: bool) -> str:
    """The `gitstrata sql` command that lists every commit touching the target."""
    if whole_file:
        where = f"t.head_path = {_sql_text(target.path)}"
    else:
        where = f"t.symbol_id = {_sql_text(target.symbol_id)}"
    return (
        'gitstrata sql "SELECT DISTINCT c.commit_time, c.sha, c.intent, c.subject '
        f"FROM touches t JOIN commits c ON t.sha = c.sha WHERE {where} "
        'ORDER BY c.commit_time DESC"'
    )


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


_COMMENT_STARTS = ("#", "//", "/*", "* ", "*/", '"""', "'''", "--")


@functools.lru_cache(maxsize=16384)  # the diff lines of hot symbols, in answer after answer
def _is_comment(line: str) -> bool:
    """A diff line (`+     text`) whose text looks like a comment or docstring, in any of
    the usual syntaxes (an ordering hint only: nothing is dropped for it)."""
    text = line[1:].strip()
    return text.startswith(_COMMENT_STARTS) or text == "*"


@functools.lru_cache(maxsize=4096)  # a generation's excerpts never change; hot ones repeat
def excerpt_lines(text: str) -> tuple[str, ...]:
    """The +/- lines of a stored excerpt, most telling first: changed code, not blank lines, not
    lines that only lost or gained trailing blanks (`without_respacing`)."""
    return tuple(
        line[0] + "     " + line[1:].rstrip() for line in without_respacing(changed_lines(text))
    )


def _coupling(index: ServeIndex, target: SymbolRow, report: PreflightReport, *, limit: int) -> None:
    """Partners in `rank_score` order (see `ServeIndex._coupling`), with the counts an agent
    needs to judge them; a partner seen in one commit only is marked weak. Symbol partners
    are the co-change partners, then, while there is room, the symbols linked to the target
    in the code (its callers and callees by name, the most changed first): on real
    histories those held what changed with a symbol more often than its co-change partners
    (benchmarks/real.py, item 11)."""
    _coupling_of_file(index, target.path, report, limit=limit)
    if target.qualname == MODULE_SYMBOL:
        return
    nested = _nesting(index, target)
    for _, path, qualname, row, link in index.symbol_partners(target.symbol_id, limit // 2):
        if link is not None and path == target.path:
            # a class names its methods where it declares them: not a call either way
            link = nested.get(qualname, link)
        if row is not None:
            report.symbol_coupling.append(_partner(row, path, qualname, link))
        else:  # linked in the code only
            report.symbol_coupling.append(
                Coupling(
                    path=path,
                    symbol=qualname,
                    weight=0.0,
                    confidence=0.0,
                    co_commits=0,
                    hidden=None,
                    link=link,
                )
            )


def _nesting(index: ServeIndex, target: SymbolRow) -> dict[str, str]:
    """The symbols of the target's file it is declared in ("container": its class, its `impl`
    block, the function around a closure) and those declared in it ("member"), by qualname."""
    rows = index.symbols_by_path.get(target.path, [])
    parent_of = {r.qualname: r.parent for r in rows}
    out: dict[str, str] = {}
    up = target.parent
    while up and up not in out and up != target.qualname:
        out[up] = "container"
        up = parent_of.get(up)
    for r in rows:
        up, seen = r.parent, set()
        while up and up not in seen:
            if up == target.qualname:
                out.setdefault(r.qualname, "member")
                break
            seen.add(up)
            up = parent_of.get(up)
    return out


def _coupling_of_file(index: ServeIndex, path: str, report: PreflightReport, *, limit: int) -> None:
    for r in index.coupling_files.get(path, [])[:limit]:
        report.coupling.append(_partner(r, r["dst"], None))


def _partner(r: dict, path: str, symbol: str | None, link: str | None = None) -> Coupling:
    return Coupling(
        path=path,
        symbol=symbol,
        score=round(r["rank_score"], 4),
        weight=round(r["weight"], 4),
        confidence=round(r["confidence"], 4),
        co_commits=r["co_commits"],
        hidden=r["hidden"],
        weak=r["co_commits"] < WEAK_BELOW,
        link=link,
    )
