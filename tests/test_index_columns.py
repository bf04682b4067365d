"""The serving index reads Arrow columns into Python values exactly as Arrow does, by faster
routes where Arrow's own is slow (time zone aware timestamps)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

FACTOR = {"s": 1, "ms": 1000, "us": 1_000_000}
# seconds from 1906 to 2920 (within datetime's years), and a part of a second
instant = st.tuples(st.integers(-(2 * 10**9), 3 * 10**10), st.integers(0, 999_999))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.one_of(st.none(), instant), max_size=40),
    st.sampled_from(["s", "ms", "us"]),
    st.sampled_from(["UTC", None, "Europe/Paris"]),
)
def test_a_timestamp_column_reads_as_arrow_reads_it(instants, unit, tz) -> None:
    import pyarrow as pa

    from gitstrata.serve.index import _pylist

    factor = FACTOR[unit]
    values = [None if x is None else x[0] * factor + x[1] % factor for x in instants]
    column = pa.chunked_array([pa.array(values, pa.timestamp(unit, tz=tz))])
    expected = column.to_pylist()
    got = _pylist(column)
    assert got == expected
    assert [repr(x) for x in got] == [repr(x) for x in expected]
    assert [getattr(x, "tzinfo", None) for x in got] == [
        getattr(x, "tzinfo", None) for x in expected
    ]
