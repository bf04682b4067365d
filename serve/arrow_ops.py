"""The Arrow compute kernels the read side calls, without importing `pyarrow.compute`.

Importing `pyarrow.compute` writes a Python wrapper (signature and docstring) for each of
Arrow's several hundred kernels: about 200 M instructions, some 45 ms of a one-shot `preflight`
or `query` whose own table work is a few lookups. The kernels and their options live in
`pyarrow._compute`, a tenth of that cost; each function here is the `pyarrow.compute` one of
the same name (the arguments the read side passes, the same kernel and options, the same
result). Table and array methods that run a kernel (`filter`, `take`, `cast`, `sort_by`,
`unique`, `fill_null`) import `pyarrow.compute` themselves, so modules on a one-shot path call
these functions instead.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

try:  # the module `pyarrow.compute` re-exports these from
    from pyarrow._compute import (
        CastOptions,
        SetLookupOptions,
        SortOptions,
        TakeOptions,
        call_function,
    )
except ImportError:  # pragma: no cover (a pyarrow that moved them)
    from pyarrow.compute import (
        CastOptions,
        SetLookupOptions,
        SortOptions,
        TakeOptions,
        call_function,
    )

__all__ = [
    "and_",
    "any",
    "cast",
    "dictionary_encode",
    "equal",
    "fill_null",
    "filter",
    "is_in",
    "is_valid",
    "less_equal",
    "not_equal",
    "or_",
    "sort_indices",
    "take",
    "unique",
    "utf8_length",
]


def equal(x: Any, y: Any) -> Any:
    return call_function("equal", [x, y])


def not_equal(x: Any, y: Any) -> Any:
    return call_function("not_equal", [x, y])


def less_equal(x: Any, y: Any) -> Any:
    return call_function("less_equal", [x, y])


def and_(x: Any, y: Any) -> Any:
    return call_function("and", [x, y])


def or_(x: Any, y: Any) -> Any:
    return call_function("or", [x, y])


def is_valid(values: Any) -> Any:
    return call_function("is_valid", [values])


def is_in(values: Any, value_set: pa.Array) -> Any:
    """Whether each value is one of `value_set` (a null is in it when the set has a null)."""
    return call_function("is_in", [values], SetLookupOptions(value_set))


def any(values: Any) -> pa.BooleanScalar:  # noqa: A001 (pyarrow.compute's name)
    return call_function("any", [values])


def utf8_length(strings: Any) -> Any:
    return call_function("utf8_length", [strings])


def unique(values: Any) -> pa.Array:
    return call_function("unique", [values])


def dictionary_encode(values: Any) -> Any:
    return call_function("dictionary_encode", [values])


def cast(values: Any, target_type: pa.DataType) -> Any:
    """`values` as `target_type`, checked (an overflow or a lossy cast raises)."""
    return call_function("cast", [values], CastOptions.safe(target_type))


def fill_null(values: Any, fill_value: Any) -> Any:
    if not isinstance(fill_value, pa.Array | pa.ChunkedArray | pa.Scalar):
        fill_value = pa.scalar(fill_value, type=values.type)
    elif values.type != fill_value.type:
        fill_value = pa.scalar(fill_value.as_py(), type=values.type)
    return call_function("coalesce", [values, fill_value])


def filter(data: Any, mask: Any) -> Any:  # noqa: A001 (pyarrow.compute's name)
    """The rows of `data` (a table or an array) where `mask` is true (a null drops the row)."""
    return call_function("filter", [data, mask])


def take(data: Any, indices: Any) -> Any:
    return call_function("take", [data, indices], TakeOptions(boundscheck=True))


def sort_indices(data: Any, sort_keys: list[tuple[str, str]]) -> pa.Array:
    """A stable sort of a table's rows by (column, "ascending" | "descending") keys, nulls
    last."""
    return call_function("sort_indices", [data], SortOptions(sort_keys))
