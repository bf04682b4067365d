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


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.one_of(st.none(), instant), st.one_of(st.none(), st.text(max_size=8))),
        max_size=30,
    ),
    st.integers(0, 5),
)
def test_a_tables_rows_read_as_arrow_reads_them(rows, start) -> None:
    """`Grouped`'s rows: a slice of a table with a UTC commit time, strings and nulls."""
    import pyarrow as pa

    from gitstrata.serve.index import _rows

    times = [None if x is None else x[0] * 1_000_000 + x[1] for x, _ in rows]
    table = pa.table(
        {
            "sha": pa.array([s for _, s in rows], pa.string()),
            "commit_time": pa.array(times, pa.timestamp("us", tz="UTC")),
            "lines": pa.array(list(range(len(rows))), pa.int32()),
        }
    ).slice(min(start, len(rows)))
    expected = table.to_pylist()
    got = _rows(table)
    assert got == expected
    assert [list(r) for r in got] == [list(r) for r in expected]  # the same key order
    assert repr(got) == repr(expected)


# rows of a table grouped by "sha" (null keys included), ranked by "t", and keys to look up
keyed_rows = st.lists(
    st.tuples(
        st.one_of(st.none(), st.sampled_from("abcde")),
        st.integers(0, 3),
        st.sampled_from("xyz"),
    ),
    max_size=40,
)
lookup_keys = st.lists(st.one_of(st.none(), st.sampled_from("abcdef")), max_size=8)


def keyed_table(rows: list[tuple[str | None, int, str]]):
    import pyarrow as pa

    return pa.table(
        {
            "sha": pa.array([k for k, _, _ in rows], pa.string()),
            "t": pa.array([t for _, t, _ in rows], pa.int64()),
            "v": pa.array([v for _, _, v in rows], pa.string()),
        }
    )


@settings(max_examples=60, deadline=None)
@given(
    keyed_rows,
    lookup_keys,
    st.booleans(),
)
def test_prefetched_groups_are_the_rows_one_lookup_per_key_reads(rows, keys, ordered) -> None:
    from gitstrata.serve.index import Grouped

    table = keyed_table(rows)
    order = [("t", "descending")] if ordered else []
    one_by_one = Grouped(table, "sha", order)
    prefetched = Grouped(table, "sha", order)
    prefetched.prefetch(keys)
    for key in [*keys, "a", "f"]:
        assert prefetched.get(key) == one_by_one.get(key)
        assert (key in prefetched) == (key in one_by_one)


@settings(max_examples=60, deadline=None)
@given(
    keyed_rows,
    lookup_keys,
    st.booleans(),
    st.sampled_from(["lookup", "built", "kept"]),
)
def test_a_groups_columns_are_its_rows_values(rows, keys, ordered, state) -> None:
    """`Grouped.columns` gives the values of the rows `get` gives, in their order, whether the
    groups were built (a warm server), not (a one-shot process) or the key's rows are kept."""
    from gitstrata.serve.index import Grouped

    table = keyed_table(rows)
    order = [("t", "descending")] if ordered else []
    reference = Grouped(table, "sha", order)
    grouped = Grouped(table, "sha", order)
    if state == "built":
        grouped.build()
    for key in [*keys, "a", "f"]:
        if state == "kept":
            grouped.get(key)
        want = reference.get(key)
        for names in (["v"], ["t", "v"], ["sha", "v"]):
            got = grouped.columns(key, names)
            if want is None:
                assert got is None
            else:
                assert got == {n: [r[n] for r in want] for n in names}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), instant),
            st.one_of(st.none(), st.sampled_from(["bugfix", "feature", "revert"])),
            st.one_of(st.none(), st.booleans()),
        ),
        max_size=20,
    )
)
def test_a_commits_field_is_its_rows_value(rows) -> None:
    import pyarrow as pa

    from gitstrata.serve.index import _Commits

    shas = [f"{i:040x}" for i in range(len(rows))]
    times = [None if x is None else x[0] * 1_000_000 + x[1] for x, _, _ in rows]
    table = pa.table(
        {
            "sha": pa.array(shas, pa.string()),
            "commit_time": pa.array(times, pa.timestamp("us", tz="UTC")),
            "intent": pa.array([i for _, i, _ in rows], pa.string()),
            "bulk": pa.array([b for _, _, b in rows], pa.bool_()),
        }
    )
    by_field, by_row = _Commits(table), _Commits(table)
    for sha in [*shas, "f" * 40]:
        for name in ("commit_time", "intent", "bulk"):
            row = by_row.get(sha)
            assert by_field.field(sha, name) == (None if row is None else row[name])
            assert repr(by_field.field(sha, name)) == repr(None if row is None else row[name])
