"""Stage `quantize`: the served forms of the document vectors.

Input: `vectors_f32` (row i = document i, full-dimension unit vectors) and the embedder's
rotation. Output, row-aligned with the input:

- `vectors_i8`: the served vector (the first `mrl_dim` components, re-normalised; any width)
  as per-vector symmetric int8 codes plus the float32 scale;
- `vectors_bits`: the SimHash code of that vector under the embedder's fixed 256 x `mrl_dim`
  hyperplanes, 256 bits as four uint64 lanes, one column per lane (bit-sliced, column-major).

The formats are defined in `store/vecstore.py`; the query side encodes with the same functions.
Both tables are returned as one record batch so the server maps each column as one buffer.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..store.vecstore import (
    CODE_BITS,
    LANES,
    bits_table,
    i8_table,
    int8_quantize,
    sign_codes,
)


def vectors_matrix(
    vectors_f32: pa.Table, column: str = "vector", dtype: type | None = np.float32
) -> np.ndarray:
    """The FixedSizeList column as an [n, d] array: of `dtype`, or, with `dtype=None`, a
    zero-copy view in the column's own element type (float16 as the artifact stores it)."""
    col = vectors_f32.column(column).combine_chunks()
    d = col.type.list_size
    if len(col) == 0:
        return np.zeros((0, d), dtype or np.float32)
    raw = col.flatten().to_numpy(zero_copy_only=False).reshape(len(col), d)
    return raw if dtype is None else raw.astype(dtype, copy=False)


def _served(full: np.ndarray, mrl_dim: int) -> np.ndarray:
    """`mrl_truncate(full, mrl_dim)` of stored (float16) rows, widening only the served prefix
    and dividing in place: the same float32 values, one matrix allocated instead of four (on
    a refresh this stage re-encodes every vector, and fresh memory is most of its cost)."""
    prefix = np.asarray(full[:, :mrl_dim], dtype=np.float32)
    if not prefix.flags.owndata:  # float32 rows come as a view of the table
        prefix = prefix.copy()
    norms = np.linalg.norm(prefix, axis=-1, keepdims=True)
    np.divide(prefix, norms, out=prefix, where=norms > 0)
    prefix[~(norms[:, 0] > 0)] = 0.0  # as `mrl_truncate`: a zero (or NaN) norm gives zeros
    return prefix


def quantize(
    vectors_f32: pa.Table, rotation: np.ndarray, *, mrl_dim: int = CODE_BITS
) -> tuple[pa.Table, pa.Table]:
    """(vectors_bits, vectors_i8) for the vectors in row order."""
    full = vectors_matrix(vectors_f32, dtype=None)
    if full.shape[1] < mrl_dim:
        raise ValueError(f"vectors have {full.shape[1]} dims, fewer than mrl_dim={mrl_dim}")
    if np.shape(rotation) != (CODE_BITS, mrl_dim):
        raise ValueError(f"rotation must be {CODE_BITS} x {mrl_dim}, got {np.shape(rotation)}")
    prefix = _served(full, mrl_dim)
    codes, scales = int8_quantize(prefix)
    bits = sign_codes(prefix, rotation) if len(prefix) else np.zeros((0, LANES), np.uint64)
    if len(prefix) == 0:
        codes = np.zeros((0, mrl_dim), np.int8)
    return bits_table(bits).combine_chunks(), i8_table(codes, scales).combine_chunks()
