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
        console.print(f"  files {s.get('files', 0)} (indexed {s.get('indexed', 0)}; skipped: {skipped})")
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
        table.add_row(name, t["stage"], "" if t["rows"] is None else f"{t['rows']:,}", _size(t["bytes"]))
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
