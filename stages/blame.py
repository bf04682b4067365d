"""The `blame` stage: who wrote each HEAD symbol's lines, and how much of it is load-bearing.

Pure: it receives `git blame --incremental` output per file (the adapter runs git) and the HEAD
`symbols` and `commits` tables. Invariants:

- `parse_incremental` assigns every final line of the file exactly the commit `git blame`
  reports for it (tests compare against git's own line-by-line output).
- A symbol owns every line of its span, nested symbols included; `<module>` covers the file.
- `load_bearing_share` = lines written by bugfix / security / revert commits / symbol lines;
  commits outside the indexed history have no intent and never count as load-bearing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from ..store import schemas
from ..store.vocabulary import LOAD_BEARING
from .frames import frame


class BlameFormatError(ValueError):
    """The blame output does not have the `--incremental` shape."""


@dataclass(frozen=True, slots=True)
class FileBlame:
    """Per-line owners of one file at HEAD: `line_commit[i]` indexes `shas` for line i + 1."""

    path: str
    blob: str
    shas: tuple[str, ...]
    author_times: tuple[int, ...]
    line_commit: np.ndarray  # int32


def parse_incremental(data: bytes, path: str = "", blob: str = "") -> FileBlame:
    """Parse `git blame --incremental` output (groups: `<sha> <orig> <final> <count>`, commit
    metadata the first time a commit appears, then a closing `filename` line)."""
    lines = data.split(b"\n")
    index: dict[bytes, int] = {}
    times: list[int] = []
    groups: list[tuple[int, int, int]] = []
    last = 0
    i, n = 0, len(lines)
    while i < n:
        head = lines[i]
        i += 1
        if not head:
            continue
        parts = head.split(b" ")
        if len(parts) != 4 or len(parts[0]) < 40:
            raise BlameFormatError(f"bad blame group header: {head[:80]!r}")
        sha = parts[0]
        final, count = int(parts[2]), int(parts[3])
        k = index.get(sha)
        if k is None:
            k = index[sha] = len(times)
            times.append(0)
        while i < n and not lines[i].startswith(b"filename "):
            if lines[i].startswith(b"author-time "):
                times[k] = int(lines[i][12:])
            i += 1
        if i >= n:
            raise BlameFormatError("blame group without a filename line")
        i += 1
        groups.append((final, count, k))
        last = max(last, final + count - 1)
    owner = np.full(last, -1, dtype=np.int32)
    for final, count, k in groups:
        owner[final - 1 : final - 1 + count] = k
    if (owner < 0).any():
        raise BlameFormatError(f"{path}: blame left lines without a commit")
    shas = tuple(s.decode("ascii") for s in index)
    return FileBlame(path, blob, shas, tuple(times), owner)


def symbol_rows(fb: FileBlame, symbols: pl.DataFrame) -> pl.DataFrame:
    """(symbol_id, qualname, sha, lines, symbol_lines, author_time) for one file's symbols
    (`symbols`: symbol_id, qualname, start_line, end_line)."""
    nlines = len(fb.line_commit)
    ncommits = len(fb.shas)
    out: dict[str, list] = {k: [] for k in ("symbol_id", "qualname", "k", "lines", "symbol_lines")}
    for sid, qual, start, end in symbols.select(
        "symbol_id", "qualname", "start_line", "end_line"
    ).iter_rows():
        lo, hi = max(start, 1) - 1, min(end, nlines)
        if hi <= lo:
            continue
        counts = np.bincount(fb.line_commit[lo:hi], minlength=ncommits)
        nz = np.flatnonzero(counts)
        out["symbol_id"] += [sid] * len(nz)
        out["qualname"] += [qual] * len(nz)
        out["k"] += nz.tolist()
        out["lines"] += counts[nz].tolist()
        out["symbol_lines"] += [hi - lo] * len(nz)
    df = pl.DataFrame(
        out,
        schema={
            "symbol_id": pl.String,
            "qualname": pl.String,
            "k": pl.Int64,
            "lines": pl.Int32,
            "symbol_lines": pl.Int32,
        },
    )
    shas = pl.DataFrame(
        {"k": list(range(ncommits)), "sha": list(fb.shas), "author_time": list(fb.author_times)},
        schema={"k": pl.Int64, "sha": pl.String, "author_time": pl.Int64},
    )
    return (
        df.join(shas, on="k", how="left", maintain_order="left")
        .drop("k")
        .with_columns(pl.lit(fb.path).alias("path"), pl.lit(fb.blob).alias("blob"))
    )


def build(
    blames: Iterable[FileBlame],
    symbols: pa.Table,
    commits: pa.Table,
    reused: pa.Table | None = None,
) -> pa.Table:
    """The `blame` table: new per-file results plus `reused` rows of unchanged files, joined
    with commit intent (recomputed for every row, since the indexed history may have grown)."""
    sdf = frame(symbols.select(["path", "symbol_id", "qualname", "start_line", "end_line"]))
    by_path = sdf.partition_by("path", as_dict=True, include_key=False)
    frames = []
    for fb in blames:
        syms = by_path.get((fb.path,))
        if syms is None or not len(fb.line_commit):
            continue
        frames.append(symbol_rows(fb, syms))
    cols = ["path", "blob", "symbol_id", "qualname", "sha", "lines", "symbol_lines", "author_time"]
    empty = {c: pl.String for c in cols[:5]} | {
        "lines": pl.Int32,
        "symbol_lines": pl.Int32,
        "author_time": pl.Int64,
    }
    df = pl.concat([f.select(cols) for f in frames]) if frames else pl.DataFrame(schema=empty)
    if reused is not None and reused.num_rows:
        old = frame(reused.select(cols)).with_columns(pl.col("author_time").dt.epoch("s"))
        df = pl.concat([df, old.cast(df.schema)])
    intents = frame(commits.select(["sha", "intent"]))
    df = df.join(intents, on="sha", how="left", maintain_order="left").with_columns(
        pl.col("intent").is_in(sorted(LOAD_BEARING)).fill_null(False).alias("load_bearing")
    )
    share = df.group_by("symbol_id").agg(
        (
            pl.when(pl.col("load_bearing")).then(pl.col("lines")).otherwise(0).sum()
            / pl.col("symbol_lines").first()
        )
        .cast(pl.Float32)
        .alias("load_bearing_share")
    )
    df = df.join(share, on="symbol_id", how="left").sort("path", "symbol_id", "sha")
    table = df.select(schemas.BLAME.names).to_arrow()
    table = table.set_column(
        table.schema.get_field_index("author_time"),
        "author_time",
        table["author_time"]
        .cast(pa.int64())
        .cast(pa.timestamp("s", tz="UTC"))
        .cast(schemas.BLAME.field("author_time").type),
    )
    return pa.table([table[f.name].cast(f.type) for f in schemas.BLAME], schema=schemas.BLAME)
