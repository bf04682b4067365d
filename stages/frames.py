"""Arrow tables as Polars frames, typed as frames.

`pl.from_arrow` is declared to return a frame or a series because it also takes arrays; a table
always gives a frame, and `frame` says so once instead of every caller narrowing the union.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa


def frame(table: pa.Table) -> pl.DataFrame:
    """The table as a frame, zero-copy where the column types allow."""
    df = pl.from_arrow(table)
    if not isinstance(df, pl.DataFrame):
        raise TypeError(f"expected an Arrow table, got {type(table).__name__}")
    return df
