"""Human-readable CLI output (rich). JSON output never goes through here.

Everything that comes from the repository (paths, symbols, commit subjects, SQL values, failure
notes, error lines) is text, never Rich markup: a subject such as `fix [/x]` or `list[int]` must
print as written, so it goes through `escape` or into a `Text`. Only the literal styling written
in this module is markup.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    import polars as pl

    from .store.attempts import FailedAttempt


def _console() -> Console:
    # no emoji codes either: `:warning:` in a commit subject stays as written
    return Console(highlight=False, emoji=False)


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def print_status(info: dict[str, Any]) -> None:
    console = _console()
    console.print(
        f"index {escape(info['generation'])} at {escape(info['store'])} "
        f"(built {escape(str(info['created_at']))})",
        soft_wrap=True,
    )
    line = f"  indexed HEAD {info['indexed_head'][:10]}"
    if info["stale"]:
        line += f"; repository HEAD moved to {info['repo_head'][:10]}: run `gitstrata index`"
    console.print(Text(line), soft_wrap=True)
    if info.get("problem"):
        console.print(Text(f"  cannot be served: {info['problem']}"), style="red", soft_wrap=True)
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("table")
    table.add_column("stage")
    table.add_column("rows", justify="right")
    table.add_column("size", justify="right")
    for name, t in info["tables"].items():
        table.add_row(
            Text(name),
            Text(t["stage"]),
            "" if t["rows"] is None else f"{t['rows']:,}",
            _size(t["bytes"]),
        )
    console.print(table)
    copies = info.get("bytes_mapped_copies") or 0
    more = f" (and {_size(copies)} of the tables' mapped copies)" if copies else ""
    console.print(f"  {_size(info['bytes_on_disk'])} on disk{more}", soft_wrap=True)
    red = info.get("redactions") or {}
    kinds = ", ".join(f"{k} {n}" for k, n in (red.get("by_kind") or {}).items())
    console.print(
        Text(f"  secrets redacted: {red.get('total', 0)}" + (f" ({kinds})" if kinds else "")),
        soft_wrap=True,
    )
    journal = info.get("journal") or {}
    if journal.get("error"):
        console.print(
            Text(f"  journal: cannot be read: {journal['error']}"), style="yellow", soft_wrap=True
        )
    elif journal.get("skipped"):
        lines = ", ".join(f"{s['file']}:{s['line']}" for s in journal["skipped_lines"][:5])
        more = ", ..." if journal["skipped"] > 5 else ""
        console.print(
            Text(
                f"  journal: {journal['records']} records; {journal['skipped']} unreadable "
                f"line(s) skipped ({lines}{more}), kept in the file: see `gitstrata doctor`"
            ),
            style="yellow",
            soft_wrap=True,
        )
    elif journal:
        console.print(f"  journal: {journal['records']} records")


def print_frame(frame: pl.DataFrame, *, limit: int = 50) -> None:
    """At most `limit` rows of `frame` (`render_plain.frame_text`: one line per row, nothing
    folded to the console's width)."""
    from .render_plain import frame_text, wants_style

    shown = frame.head(limit)
    numeric = frozenset(
        c for c, t in zip(shown.columns, shown.dtypes, strict=True) if t.is_numeric()
    )
    text = frame_text(
        shown.columns, list(shown.iter_rows()), numeric, total=frame.height, styled=wants_style()
    )
    sys.stdout.write(text)
    sys.stdout.flush()


def print_graveyard(failures: Sequence[FailedAttempt]) -> None:
    """One line per recorded attempt, whole (`render_plain.frame_text`), its text through the
    firewall like any served string."""
    from .render_plain import frame_text, wants_style
    from .serve.firewall_passed import clean  # recorded text came from outside: served like any

    if not failures:
        _console().print(
            Text("no failed attempts recorded (run tests through `gitstrata exec -- ...`)")
        )
        return
    columns = ("id", "last seen", "times", "exit", "targets", "what was tried / error")
    rows = []
    for f in failures:
        targets = clean(", ".join(f"{p}::{q}" if q else p for p, q in f.targets[:3]))
        what = clean(f.notes or (f.signature.errors[0] if f.signature.errors else ""))
        what = " ".join(what.split())
        what = what if len(what) <= 100 else what[:99] + "…"  # cut: said so
        rows.append((f.id, f.last_seen[:10], f.occurrences, f.exit_code, targets, what))
    numeric = frozenset({"id", "times", "exit"})
    sys.stdout.write(frame_text(columns, rows, numeric, total=len(rows), styled=wants_style()))
    sys.stdout.flush()


def print_failure(f: FailedAttempt) -> None:
    from rich.syntax import Syntax

    from .serve.firewall_passed import clean  # recorded text came from outside: served like any

    console = _console()
    console.print(
        f"[bold]failed attempt #{f.id}[/] (seen {f.occurrences}x, last {escape(f.last_seen)})"
    )
    lines = [f"  target: {p}::{q}" if q else f"  target: {p}" for p, q in f.targets]
    if f.command:
        lines.append(f"  command: {f.command} (exit {f.exit_code})")
    lines += [f"  tried: {n}" for n in f.all_notes()]  # each repeat's own notes too
    lines += [f"  error: {err}" for err in f.signature.errors[:5]]
    lines += [f"  failing: {t}" for t in f.signature.failing[:5]]
    for line in lines:
        console.print(Text(clean(line)), soft_wrap=True)
    if f.diff:
        console.print(Syntax(clean(f.diff), "diff", theme="ansi_dark", word_wrap=True))


def print_inspect(info: dict[str, Any]) -> None:
    import polars as pl

    console = _console()
    for key, title in (
        ("hotspots", "Coupling hotspots (code files with the most co-change partners)"),
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
    floats = (
        f" (the float vectors it keeps stay on disk: {_size(info['bytes_f32_vectors_on_disk'])})"
        if info.get("float_vectors_kept")
        else ""
    )
    console.print(
        f"index {escape(info['generation'])}: {_size(info['bytes_on_disk'])} on disk; the "
        f"server maps {_size(info['bytes_mapped_by_server'])}{floats}; the tables' mapped "
        f"copies take {_size(info.get('bytes_mapped_copies') or 0)}",
        soft_wrap=True,
    )
