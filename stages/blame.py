"""The `blame` stage: who wrote each HEAD symbol's lines, and how much of it is load-bearing.

Pure: it receives `git blame --porcelain` output per file (the adapter runs git, with the
repository's ignore-revs list) and the HEAD `symbols` and `commits` tables. Invariants:

- `parse_porcelain` assigns every final line of the file exactly the commit `git blame`
  reports for it (tests compare against git's own line-by-line output).
- A symbol owns every line of its span, nested symbols included; `<module>` covers the file.
- `code_lines` counts only lines with code on them: blank, whitespace-only and comment-only
  lines (and the inside of multi-line strings, docstrings included: the chunker's lexer masks
  them) are ownership but never load-bearing; prose files (Markdown, a changelog, plain-text
  docs: `filekind.is_prose`) have none, so a fix's changelog entry is not load-bearing code.
- `load_bearing_share` = code lines written by bugfix / security / revert commits / the
  symbol's code lines; commits outside the indexed history have no intent and never count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from ..store import filekind, schemas
from ..store.vocabulary import LOAD_BEARING
from .chunking.source import Source
from .frames import frame


class BlameFormatError(ValueError):
    """The blame output does not have the `--porcelain` shape."""


@dataclass(frozen=True, slots=True)
class FileBlame:
    """Per-line owners of one file at HEAD: `line_commit[i]` indexes `shas` for line i + 1;
    `code[i]` is False for a blank or comment-only line (None: every line counts as code)."""

    path: str
    blob: str
    shas: tuple[str, ...]
    author_times: tuple[int, ...]
    line_commit: np.ndarray  # int32
    code: np.ndarray | None = None  # bool


# text languages whose comments start with `#` (the chunker's lexer covers the code languages)
_HASH_COMMENTS = frozenset({"yaml", "toml", "shell", "dockerfile", "nginx", "make"})
_HASH_LINE = re.compile(r"^[ \t]*(?:#.*)?$")


def code_mask(lines: list[bytes], language: str | None) -> np.ndarray:
    """True for each line holding code: not blank, not whitespace-only, not comment-only."""
    if language in _HASH_COMMENTS:
        return np.array(
            [not _HASH_LINE.match(x.decode("utf-8", "replace")) for x in lines], dtype=bool
        )
    src = Source(b"\n".join(lines), language)
    # the masked text keeps every line break, so its split lines are `Source.masked_line`
    masked = src.masked.split("\n")[: src.n_lines]
    out = np.zeros(len(lines), dtype=bool)
    n = min(len(masked), len(lines))
    out[:n] = [bool(x.strip()) for x in masked[:n]]
    return out


def parse_porcelain(
    data: bytes, path: str = "", blob: str = "", language: str | None = None
) -> FileBlame:
    """Parse `git blame --porcelain` output: per final line a header `<sha> <orig> <final>
    [<count>]`, the commit's metadata the first time it appears, then the line's text after a
    tab. The texts give the code mask (`code_mask`, with the chunker's `language` facts)."""
    lines = data.split(b"\n")
    index: dict[bytes, int] = {}
    times: list[int] = []
    owners: list[tuple[int, int]] = []
    texts: list[bytes] = []
    i, n = 0, len(lines)
    while i < n:
        head = lines[i]
        i += 1
        if not head:
            continue
        parts = head.split(b" ")
        if len(parts) not in (3, 4) or len(parts[0]) < 40:
            raise BlameFormatError(f"bad blame line header: {head[:80]!r}")
        sha = parts[0]
        try:
            final = int(parts[2])
        except ValueError:
            raise BlameFormatError(f"bad blame line header: {head[:80]!r}") from None
        k = index.get(sha)
        if k is None:
            k = index[sha] = len(times)
            times.append(0)
        while i < n and not lines[i].startswith(b"\t"):
            if lines[i].startswith(b"author-time "):
                times[k] = int(lines[i][12:])
            i += 1
        if i >= n:
            raise BlameFormatError("blame line header without the line's text")
        texts.append(lines[i][1:])
        i += 1
        owners.append((final, k))
    owner = np.full(len(owners), -1, dtype=np.int32)
    for final, k in owners:
        if not 1 <= final <= len(owners):
            raise BlameFormatError(f"{path}: blame line {final} out of range")
        owner[final - 1] = k
    if (owner < 0).any():
        raise BlameFormatError(f"{path}: blame left lines without a commit")
    shas = tuple(s.decode("ascii") for s in index)
    ordered = [b""] * len(owners)
    for (final, _), text in zip(owners, texts, strict=True):
        ordered[final - 1] = text
    code = (
        np.zeros(len(ordered), dtype=bool)
        if filekind.is_prose(path)
        else code_mask(ordered, language)
    )
    return FileBlame(path, blob, shas, tuple(times), owner, code)


def symbol_rows(fb: FileBlame, symbols: pl.DataFrame) -> pl.DataFrame:
    """(symbol_id, qualname, sha, lines, symbol_lines, code_lines, symbol_code_lines,
    author_time) for one file's symbols (`symbols`: symbol_id, qualname, start_line, end_line)."""
    nlines = len(fb.line_commit)
    ncommits = len(fb.shas)
    code = fb.code if fb.code is not None else np.ones(nlines, dtype=bool)
    names = ("symbol_id", "qualname", "k", "lines", "symbol_lines", "code_lines", "symbol_code")
    out: dict[str, list] = {k: [] for k in names}
    for sid, qual, start, end in symbols.select(
        "symbol_id", "qualname", "start_line", "end_line"
    ).iter_rows():
        lo, hi = max(start, 1) - 1, min(end, nlines)
        if hi <= lo:
            continue
        owners = fb.line_commit[lo:hi]
        counts = np.bincount(owners, minlength=ncommits)
        code_counts = np.bincount(owners[code[lo:hi]], minlength=ncommits)
        nz = np.flatnonzero(counts)
        out["symbol_id"] += [sid] * len(nz)
        out["qualname"] += [qual] * len(nz)
        out["k"] += nz.tolist()
        out["lines"] += counts[nz].tolist()
        out["symbol_lines"] += [hi - lo] * len(nz)
        out["code_lines"] += code_counts[nz].tolist()
        out["symbol_code"] += [int(code_counts.sum())] * len(nz)
    df = pl.DataFrame(
        out,
        schema={
            "symbol_id": pl.String,
            "qualname": pl.String,
            "k": pl.Int64,
            "lines": pl.Int32,
            "symbol_lines": pl.Int32,
            "code_lines": pl.Int32,
            "symbol_code": pl.Int32,
        },
    ).rename({"symbol_code": "symbol_code_lines"})
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
    cols = [
        "path",
        "blob",
        "symbol_id",
        "qualname",
        "sha",
        "lines",
        "symbol_lines",
        "code_lines",
        "symbol_code_lines",
        "author_time",
    ]
    empty: dict[str, type[pl.DataType]] = {c: pl.String for c in cols[:5]}
    empty |= {c: pl.Int32 for c in cols[5:9]} | {"author_time": pl.Int64}
    df = pl.concat([f.select(cols) for f in frames]) if frames else pl.DataFrame(schema=empty)
    if reused is not None and reused.num_rows:
        old = frame(reused.select(cols)).with_columns(pl.col("author_time").dt.epoch("s"))
        df = pl.concat([df, old.cast(df.schema)])
    intents = frame(commits.select(["sha", "intent"]))
    # a fix that only touched blank or comment lines of a symbol does not make it load-bearing
    df = df.join(intents, on="sha", how="left", maintain_order="left").with_columns(
        (
            pl.col("intent").is_in(sorted(LOAD_BEARING)).fill_null(False)
            & (pl.col("code_lines") > 0)
        ).alias("load_bearing")
    )
    share = df.group_by("symbol_id").agg(
        (
            pl.when(pl.col("load_bearing")).then(pl.col("code_lines")).otherwise(0).sum()
            / pl.col("symbol_code_lines").first().clip(lower_bound=1)
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
