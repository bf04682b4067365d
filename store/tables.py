"""Analytics over a generation: its tables registered by name for Polars SQL.

Parquet artifacts are scanned lazily (only the columns a query needs are read); Arrow IPC ones
are memory-mapped. Unknown table names and SQL errors become one-line `InputError`s.
"""

from __future__ import annotations

import re
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


# what may stand before a statement's first word: blanks, comments, opening parentheses
_LEAD = re.compile(r"(?:\s+|--[^\n]*|/\*.*?\*/|\()*", re.S)
_WORD = re.compile(r"[A-Za-z]+")
# statements that would write: Polars runs some on its own registrations of the tables, in
# memory (`DELETE FROM commits` printed an empty `commits`, as if its rows were gone), and
# refuses the others with a dump of the parsed statement
_WRITES = frozenset(
    ("ALTER", "COPY", "CREATE", "DELETE", "DROP", "GRANT", "INSERT", "MERGE", "REPLACE")
    + ("TRUNCATE", "UPDATE", "UPSERT")
)
_DESCRIBE = re.compile(r'(?:DESCRIBE|DESC)\s+(?:TABLE\s+)?"?(\w+)"?\s*;?\s*', re.I)
_ASK = "ask with SELECT or WITH; SHOW TABLES lists the tables, DESCRIBE <table> its columns"


def run_sql(gen: Generation, query: str) -> pl.DataFrame:
    """`query` over the tables of `gen`. The index is read-only: a statement that would write
    is refused in one line. `DESCRIBE <table>` (which Polars does not run) gives the table's
    columns and their types."""
    import polars as pl

    start = _LEAD.match(query)
    rest = query[start.end() if start else 0 :]
    word = _WORD.match(rest)
    keyword = word.group().upper() if word else ""
    if keyword in _WRITES:
        raise InputError(f"{keyword}: the index is read-only, `sql` runs queries", hint=_ASK)
    ctx = sql_context(gen)
    if keyword in ("DESCRIBE", "DESC"):
        return _describe(gen, ctx, rest)
    try:
        return ctx.execute(query).collect()
    except (pl.exceptions.PolarsError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if first.endswith(":"):  # Polars goes on with a dump of the parsed statement
            raise InputError(f"SQL error: {first[:-1]}", hint=_ASK) from None
        raise InputError(
            f"SQL error: {first}", hint=f"tables: {', '.join(table_names(gen))}"
        ) from None


def _describe(gen: Generation, ctx: pl.SQLContext[pl.LazyFrame], statement: str) -> pl.DataFrame:
    """The columns of the table `statement` (`DESCRIBE name`) names, with their types."""
    import polars as pl

    names = table_names(gen)
    m = _DESCRIBE.fullmatch(statement.strip())
    table = m.group(1).lower() if m else None
    if table not in names:
        raise InputError(
            "SQL error: DESCRIBE names one table, as in `DESCRIBE commits`",
            hint=f"tables: {', '.join(names)}",
        )
    schema = ctx.execute(f'SELECT * FROM "{table}"').collect_schema()
    return pl.DataFrame({"column": schema.names(), "type": [str(t) for t in schema.dtypes()]})
