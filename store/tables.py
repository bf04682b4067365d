"""Analytics over a generation: its tables registered by name for Polars SQL.

Parquet artifacts are scanned lazily (only the columns a query needs are read); Arrow IPC ones
are memory-mapped. Unknown table names and SQL errors become one-line `InputError`s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import InputError
from .schemas import ARTIFACTS

if TYPE_CHECKING:
    import polars as pl

    from .generations import Generation


def table_names(gen: Generation) -> list[str]:
    return sorted(
        name for name, spec in ARTIFACTS.items() if spec.format != "dir" and gen.has(name)
    )


def sql_context(gen: Generation) -> pl.SQLContext[pl.LazyFrame]:
    import polars as pl

    frames: dict[str, pl.LazyFrame] = {}
    for name in table_names(gen):
        spec = ARTIFACTS[name]
        path = gen.file(name)
        if spec.format == "parquet":
            frames[name] = pl.scan_parquet(path)
        else:
            frames[name] = pl.scan_ipc(path)
    return pl.SQLContext(frames=frames, eager=False)


def run_sql(gen: Generation, query: str) -> pl.DataFrame:
    import polars as pl

    ctx = sql_context(gen)
    try:
        return ctx.execute(query).collect()
    except (pl.exceptions.PolarsError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            f"SQL error: {first}", hint=f"tables: {', '.join(table_names(gen))}"
        ) from None
