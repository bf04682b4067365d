"""Human-readable output of the commands agents run most, without Rich: a one-shot query prints
one table, and importing and laying out Rich cost about 30 ms of its half second; `gitstrata
index`, run after every commit, prints its report (Rich took 60-80 ms of a one-second refresh).

Columns are as wide as their widest cell and never wrapped: a long result stays whole on its
line (the terminal wraps it), so nothing is cut to fit a width. Everything from the repository
is printed as text with its control characters shown as `?` (an escape sequence in a commit
subject must not reach the terminal); bold and red are used only on a terminal that wants
colour (not with `NO_COLOR` or `TERM=dumb`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .store.vocabulary import tagged

if TYPE_CHECKING:
    from pathlib import Path

    from .pipeline.runner import IndexReport
    from .serve.models import SearchResponse

# C0 and C1 control characters, DEL; tab and newline too: a cell or a line is one line
_CONTROL = {c: "?" for c in (*range(0x20), *range(0x7F, 0xA0))}
COLUMNS = ("#", "kind", "result", "bm25", "ham", "cos", "graph", "rrf", "rec", "rerank")
_LEFT = frozenset({"kind", "result"})


def plain(text: str) -> str:
    """`text` with its control characters (escape sequences, line breaks) shown as `?`."""
    return text.translate(_CONTROL)


def wants_style() -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _style(text: str, code: str, on: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if on else text


def table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    bold: bool = False,
    left: frozenset[str] = _LEFT,
) -> str:
    """Rows under a header, columns two spaces apart, left-aligned for the names in `left`,
    right otherwise; trailing spaces removed."""
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        out = [
            c.ljust(w) if name in left else c.rjust(w)
            for c, w, name in zip(cells, widths, header, strict=True)
        ]
        return "  ".join(out).rstrip()

    head = line(header)
    return "\n".join([_style(head, "1", bold) if bold else head, *(line(r) for r in rows)])


def _row(h) -> list[str]:
    e = h.evidence
    if h.kind == "symbol":
        name = f"{h.path}::{h.symbol}"
    elif h.kind == "memory":  # the title names the memory's kind
        name = f"{h.key} {h.title}"
    else:
        name = f"{h.key[:10]} {tagged(h.intent, h.title)}"
    return [
        str(h.rank) + ("*" if h.pinned else ""),
        plain(h.kind),
        plain(name[:90]),
        "" if e.bm25_rank is None else f"{e.bm25_rank}:{e.bm25_score:.1f}",
        "" if e.hamming is None else str(e.hamming),
        "" if e.int8_cos is None else f"{e.int8_cos:.2f}",
        "" if e.graph_activation is None else f"{e.graph_activation:.3f}",
        f"{e.rrf:.4f}",
        f"{e.recency:.2f}",
        "" if e.rerank is None else f"{e.rerank:.3f}",
    ]


def search_text(resp: SearchResponse, *, styled: bool = False) -> str:
    """The query's class and weights, the hits with each path's evidence, the reasons, the
    warnings, the memories and the latency per stage."""
    w = ", ".join(f"{k} {v:g}" for k, v in resp.fusion_weights.items())
    total = resp.latency_ms.get("total", 0)
    lines = [
        f"class {_style(plain(resp.query_class), '1', styled)} (weights: {plain(w)}); "
        f"{total:.2f} ms",
        table(COLUMNS, [_row(h) for h in resp.hits], bold=styled),
    ]
    for h in resp.hits:
        if h.reason:
            lines.append(plain(f"  {h.rank}. why: {h.reason}"))
        for ref in h.why[:2]:
            reason = f": {ref.reason}" if ref.reason else ""
            lines.append(
                plain(
                    f"  {h.rank}. why: {ref.date} {ref.short} "
                    f"{tagged(ref.intent, ref.subject[:80])}{reason}"
                )
            )
    for warn in resp.warnings:
        lines.append(
            _style(f"! failed attempt #{plain(str(warn.failure_id))}", "31", styled)
            + plain(f": {warn.tried[:100]} ({'; '.join(warn.reasons)})")
        )
    if resp.memories:
        lines.append("memories:")
    for m in resp.memories:
        where = f" [{', '.join(m.anchors[:3])}]" if m.anchors else ""
        status = "" if m.status == "active" else f" ({m.status})"
        text = " ".join(m.text.split())
        text = text if len(text) <= 160 else text[:159] + "…"  # cut: said so
        lines.append(plain(f"  {m.kind} {m.id}{status}{where}: {text}"))
        lines.extend(plain(f"    {note}") for note in m.stale[:2])
    stages = ", ".join(f"{k} {v:.2f}" for k, v in resp.latency_ms.items() if k != "total")
    lines.append(f"latency ms: {stages}")
    return "\n".join(lines) + "\n"


def print_search(resp: SearchResponse) -> None:
    sys.stdout.write(search_text(resp, styled=wants_style()))


def frame_text(
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    numeric: frozenset[str],
    *,
    total: int,
    styled: bool = False,
) -> str:
    """A query result (`gitstrata sql`, `inspect`) as a table whose cells are never wrapped or
    folded to a width: a script or an agent reading the output gets each row on one line, each
    value whole. Numbers are right-aligned; `total` rows were found, `len(rows)` are shown."""
    header = [plain(c) for c in columns]
    cells = [[plain("" if v is None else str(v)) for v in row] for row in rows]
    left = frozenset(h for h, c in zip(header, columns, strict=True) if c not in numeric)
    more = f" (showing {len(rows)})" if total > len(rows) else ""
    return table(header, cells, bold=styled, left=left) + f"\n{total} rows{more}\n"


def _language(name: str) -> str:
    # files without a parser (plain text, configs) carry no language; the stats key them "None"
    return "other" if name in ("None", "") else name


def index_report_text(report: IndexReport, *, repo: Path, styled: bool = False) -> str:
    """What `gitstrata index` prints: the generation, the files and symbols, the rows of each
    stage, a table of the stages and where the index is. Summary lines are not wrapped: the
    terminal wraps them if need be, and the output is the same at any width (the README shows
    it)."""
    import os

    lines: list[str] = []
    if report.up_to_date:
        lines.append(
            f"index is up to date: {plain(report.generation)} (HEAD {plain(report.head[:10])})"
        )
    else:
        lines.append(
            f"indexed {plain(repo.name)} at {plain(report.head[:10])} "
            f"into {plain(report.generation)}"
        )
    lines.extend(plain(note) for note in report.notes)
    lines.extend(f"{_style('warning:', '33', styled)} {plain(w)}" for w in report.warnings)
    if report.published:
        lines.append(f"published to {plain(str(report.published))}")
    chunk = report.stage("chunk")
    if chunk is not None and chunk.stats:
        s = chunk.stats
        skipped = ", ".join(f"{k} {v}" for k, v in s.get("skipped", {}).items()) or "none"
        lines.append(
            plain(
                f"  files {s.get('files', 0)} (indexed {s.get('indexed', 0)}; skipped: {skipped})"
            )
        )
        by_language = sorted(
            ((_language(k), v) for k, v in s.get("symbols_by_language", {}).items()),
            key=lambda kv: (kv[0] == "other", kv[0]),
        )
        langs = ", ".join(f"{k} {v}" for k, v in by_language)
        lines.append(plain(f"  symbols {s.get('symbols', 0)} ({langs})"))
    for st in report.stages:
        if st.name == "chunk":
            continue
        rows = ", ".join(f"{k} {v}" for k, v in st.rows.items() if v is not None)
        if rows:
            lines.append(plain(f"  {st.name}: {rows}"))
    stages = [
        [plain(st.name), "skipped (unchanged)" if st.skipped else "ran", f"{st.seconds:.2f}"]
        for st in report.stages
    ]
    lines.append(
        table(
            ("stage", "status", "seconds"), stages, bold=styled, left=frozenset({"stage", "status"})
        )
    )
    try:
        where = os.path.relpath(report.path, os.getcwd())
    except ValueError:  # another drive than the working folder's
        where = str(report.path)
    lines.append(f"  total {report.seconds:.2f}s; index at {plain(where)}")
    return "\n".join(lines) + "\n"


def print_index_report(report: IndexReport, *, repo: Path) -> None:
    sys.stdout.write(index_report_text(report, repo=repo, styled=wants_style()))
