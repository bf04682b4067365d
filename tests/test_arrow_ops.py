"""`serve.arrow_ops` gives what `pyarrow.compute` gives, on the kinds of columns the read side
passes it (chunked, with nulls, timestamps, dictionaries, tables sorted on several keys)."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from gitstrata.serve import arrow_ops as ops

STRINGS = pa.chunked_array([["b", None, "a"], [], ["a", "c", None, "b"]], pa.string())
TIMES = pa.chunked_array(
    [[datetime(2024, 1, 2, tzinfo=UTC), None], [datetime(1999, 12, 31, 23, 59, tzinfo=UTC)]],
    pa.timestamp("ms", "UTC"),
)
TABLE = pa.table(
    {
        "key": ["x", "y", None, "x", "y", "x"],
        "when": [3, 1, 2, 3, None, 5],
        "score": [0.5, float("nan"), 1.0, None, 0.5, 0.5],
        "sha": ["c", "a", "b", "a", "d", "b"],
    }
)


def test_comparisons_and_sets_match_pyarrow_compute() -> None:
    assert ops.equal(STRINGS, "a").equals(pc.equal(STRINGS, "a"))
    assert ops.not_equal(STRINGS, "a").equals(pc.not_equal(STRINGS, "a"))
    lengths = ops.utf8_length(STRINGS)
    assert lengths.equals(pc.utf8_length(STRINGS))
    assert ops.less_equal(lengths, 0).equals(pc.less_equal(lengths, 0))
    both = ops.and_(ops.is_valid(STRINGS), ops.equal(STRINGS, "b"))
    assert both.equals(pc.and_(pc.is_valid(STRINGS), pc.equal(STRINGS, "b")))
    wanted = pa.array(["a", "c"], pa.string())
    assert ops.is_in(STRINGS, value_set=wanted).equals(pc.is_in(STRINGS, value_set=wanted))
    assert ops.any(ops.equal(STRINGS, "c")).as_py() is True
    assert ops.any(ops.equal(STRINGS, "zz")).as_py() is False
    assert ops.unique(STRINGS).equals(pc.unique(STRINGS))


def test_casts_fills_and_encodings_match_pyarrow_compute() -> None:
    assert ops.cast(TIMES, pa.int64()).equals(pc.cast(TIMES, pa.int64()))
    filled = ops.fill_null(ops.cast(TIMES, pa.int64()), 0)
    assert filled.to_pylist() == [1704153600000, 0, 946684740000]
    assert ops.fill_null(STRINGS, "-").equals(pc.fill_null(STRINGS, "-"))
    encoded = ops.dictionary_encode(STRINGS.combine_chunks())
    assert encoded.equals(pc.dictionary_encode(STRINGS.combine_chunks()))
    assert ops.cast(encoded, pa.string()).equals(STRINGS.combine_chunks())
    with pytest.raises(pa.ArrowInvalid):  # a checked cast, as `pc.cast` is by default
        ops.cast(pa.array([300]), pa.int8())


def test_table_selection_and_stable_sort_match_pyarrow_compute() -> None:
    keys = [("when", "descending"), ("score", "descending"), ("sha", "ascending")]
    order = ops.sort_indices(TABLE, keys)
    assert order.equals(pc.sort_indices(TABLE, keys))
    # repr: a NaN is equal to nothing, its text is
    assert repr(ops.take(TABLE, order).to_pydict()) == repr(TABLE.take(order).to_pydict())
    mask = ops.equal(TABLE.column("key"), "x")
    got = ops.filter(TABLE, mask).to_pydict()  # a null key drops the row
    assert repr(got) == repr(TABLE.filter(mask).to_pydict())
    assert ops.filter(TABLE.column("sha"), mask).equals(pc.filter(TABLE.column("sha"), mask))


def test_importing_it_leaves_pyarrow_compute_unloaded() -> None:
    code = (
        "import sys\n"
        "import pyarrow as pa\n"
        "from gitstrata.serve import arrow_ops as ops\n"
        "t = pa.table({'k': ['a', 'b', 'a']})\n"
        "assert ops.filter(t, ops.equal(t.column('k'), 'a')).num_rows == 2\n"
        "print('pyarrow.compute' in sys.modules)\n"
    )
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == "False"
