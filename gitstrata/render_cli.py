"""Human-readable CLI output (rich). JSON output never goes through here."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console
from rich.table import Table


def _rel(path: Path, base: Path) -> str:
    try:
        return os.path.relpath(path, Path.cwd())
    except ValueError:
        return str(path)


def print_index_report(report, *, repo: Path) -> None:
    console = Console(highlight=False)
    chunk = report.stage("chunk")
    if report.up_to_date:
        console.print(f"index is up to date: {report.generation} (HEAD {report.head[:10]})")
    else:
        console.print(f"indexed {repo.name} at {report.head[:10]} into {report.generation}")
    for w in report.warnings:
        console.print(f"[yellow]warning:[/] {w}")
    if chunk is not None and chunk.stats:
        s = chunk.stats
        skipped = ", ".join(f"{k} {v}" for k, v in s.get("skipped", {}).items()) or "none"
        console.print(
            f"  files {s.get('files', 0)} (indexed {s.get('indexed', 0)}; skipped: {skipped})"
        )
        langs = ", ".join(f"{k} {v}" for k, v in s.get("symbols_by_language", {}).items())
        console.print(f"  symbols {s.get('symbols', 0)} ({langs})")
    for st in report.stages:
        if st.name == "chunk":
            continue
        rows = ", ".join(f"{k} {v}" for k, v in st.rows.items() if v is not None)
        if rows:
            console.print(f"  {st.name}: {rows}")
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("stage")
    table.add_column("status")
    table.add_column("seconds", justify="right")
    for st in report.stages:
        table.add_row(st.name, "skipped (unchanged)" if st.skipped else "ran", f"{st.seconds:.2f}")
    console.print(table)
    console.print(f"  total {report.seconds:.2f}s; index at {_rel(report.path, repo)}")


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def print_status(info: dict) -> None:
    console = Console(highlight=False)
    console.print(f"index {info['generation']} at {info['store']} (built {info['created_at']})")
    line = f"  indexed HEAD {info['indexed_head'][:10]}"
    if info["stale"]:
        line += f"; repository HEAD moved to {info['repo_head'][:10]}: run `gitstrata index`"
    console.print(line)
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("table")
    table.add_column("stage")
    table.add_column("rows", justify="right")
    table.add_column("size", justify="right")
    for name, t in info["tables"].items():
        table.add_row(
            name, t["stage"], "" if t["rows"] is None else f"{t['rows']:,}", _size(t["bytes"])
        )
    console.print(table)
    console.print(f"  {_size(info['bytes_on_disk'])} on disk")


def print_frame(frame, *, limit: int = 50) -> None:
    console = Console(highlight=False)
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in frame.columns:
        table.add_column(col, overflow="fold")
    for row in frame.head(limit).iter_rows():
        table.add_row(*("" if v is None else str(v) for v in row))
    console.print(table)
    more = f" (showing {limit})" if frame.height > limit else ""
    console.print(f"{frame.height} rows{more}")


def print_search(resp) -> None:
    console = Console(highlight=False)
    w = ", ".join(f"{k} {v:g}" for k, v in resp.fusion_weights.items())
    console.print(
        f"class [bold]{resp.query_class}[/] (weights: {w}); {resp.latency_ms.get('total', 0):.2f} ms"
    )
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("#", "kind", "result", "bm25", "ham", "cos", "graph", "rrf", "rec", "rerank"):
        table.add_column(col, justify="right" if col not in ("kind", "result") else "left")
    for h in resp.hits:
        e = h.evidence
        name = (
            f"{h.path}::{h.symbol}"
            if h.kind == "symbol"
            else f"{h.key[:10]} [{h.intent}] {h.title}"
        )
        table.add_row(
            str(h.rank) + ("*" if h.pinned else ""),
            h.kind,
            name[:90],
            "" if e.bm25_rank is None else f"{e.bm25_rank}:{e.bm25_score:.1f}",
            "" if e.hamming is None else str(e.hamming),
            "" if e.int8_cos is None else f"{e.int8_cos:.2f}",
            "" if e.graph_activation is None else f"{e.graph_activation:.3f}",
            f"{e.rrf:.4f}",
            f"{e.recency:.2f}",
            "" if e.rerank is None else f"{e.rerank:.3f}",
        )
    console.print(table)
    for h in resp.hits:
        if h.reason:
            console.print(f"  {h.rank}. why: {h.reason}", markup=False)
        for ref in h.why[:2]:
            console.print(
                f"  {h.rank}. why: {ref.date} {ref.short} [{ref.intent}] {ref.subject[:80]}"
                + (f": {ref.reason}" if ref.reason else "")
            )
    for warn in resp.warnings:
        console.print(
            f"[red]! failed attempt #{warn.failure_id}[/]: {warn.tried[:100]} ({'; '.join(warn.reasons)})"
        )
    stages = ", ".join(f"{k} {v:.2f}" for k, v in resp.latency_ms.items() if k != "total")
    console.print(f"latency ms: {stages}")


def print_graveyard(failures) -> None:
    console = Console(highlight=False)
    if not failures:
        console.print("no failed attempts recorded (run tests through `gitstrata exec -- ...`)")
        return
    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("id", "last seen", "times", "exit", "targets", "what was tried / error"):
        table.add_column(col, overflow="fold")
    for f in failures:
        targets = ", ".join(f"{p}::{q}" if q else p for p, q in f.targets[:3])
        what = f.notes or (f.signature.errors[0] if f.signature.errors else "")
        table.add_row(
            str(f.id),
            f.last_seen[:10],
            str(f.occurrences),
            "" if f.exit_code is None else str(f.exit_code),
            targets,
            what[:100],
        )
    console.print(table)


def print_failure(f) -> None:
    from rich.syntax import Syntax

    console = Console(highlight=False)
    console.print(f"[bold]failed attempt #{f.id}[/] (seen {f.occurrences}x, last {f.last_seen})")
    for p, q in f.targets:
        console.print(f"  target: {p}::{q}" if q else f"  target: {p}")
    if f.command:
        console.print(f"  command: {f.command} (exit {f.exit_code})")
    if f.notes:
        console.print(f"  tried: {f.notes}")
    for err in f.signature.errors[:5]:
        console.print(f"  error: {err}")
    for t in f.signature.failing[:5]:
        console.print(f"  failing: {t}")
    if f.diff:
        console.print(Syntax(f.diff, "diff", theme="ansi_dark", word_wrap=True))


def print_inspect(info: dict) -> None:
    import polars as pl

    console = Console(highlight=False)
    for key, title in (
        ("hotspots", "Coupling hotspots (files with the most co-change partners)"),
        ("hidden_couplings", "Hidden couplings (change together, no import between them)"),
        (
            "load_bearing_files",
            "Load-bearing files (lines still written by bugfix / security / revert commits)",
        ),
    ):
        rows = info.get(key)
        if rows is None:
            continue
        console.print(f"[bold]{title}[/]")
        if rows:
            print_frame(pl.DataFrame(rows), limit=len(rows))
        else:
            console.print("  none")
        console.print()
    console.print(
        f"index {info['generation']}: {_size(info['bytes_on_disk'])} on disk; the server maps "
        f"{_size(info['bytes_mapped_by_server'])} (float32 vectors stay on disk: "
        f"{_size(info['bytes_f32_vectors_on_disk'])})"
    )
