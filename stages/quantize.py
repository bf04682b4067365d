"""The served forms of the document vectors, made by the `embed` stage as it embeds.

Input: full-dimension unit vectors, row i = document i, as float16 (the precision a document's
vector is fixed at, whether it is kept or not) and the embedder's hyperplanes. Output,
row-aligned with the input:

- `vectors_i8`: the served vector (the first `mrl_dim` components, re-normalised; any width)
  as per-vector symmetric int8 codes plus the float32 scale;
- `vectors_bits`: the SimHash code of that vector under the embedder's fixed 256 x `mrl_dim`
  hyperplanes, 256 bits as four uint64 lanes, one column per lane (bit-sliced, column-major).

Each row depends on its own vector only, so rows made in different runs (a document's row
carried from the previous index) equal the rows a rebuild makes. The formats are defined in
`store/vecstore.py`; the query side encodes with the same functions. Both tables are returned as
one record batch so the server maps each column as one buffer.
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
    """`mrl_truncate(full, mrl_dim)` of float16 rows, widening only the served prefix and
    dividing in place: the same float32 values, one matrix allocated instead of four (on a
    large corpus fresh memory is most of this step's cost)."""
    prefix = np.asarray(full[:, :mrl_dim], dtype=np.float32)
    if not prefix.flags.owndata:  # float32 rows come as a view of the table
        prefix = prefix.copy()
    norms = np.linalg.norm(prefix, axis=-1, keepdims=True)
    np.divide(prefix, norms, out=prefix, where=norms > 0)
    prefix[~(norms[:, 0] > 0)] = 0.0  # as `mrl_truncate`: a zero (or NaN) norm gives zeros
    return prefix


def served_codes(
    full: np.ndarray, rotation: np.ndarray, mrl_dim: int = CODE_BITS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(SimHash codes uint64[n, 4], int8 codes [n, mrl_dim], scales float32[n]) of the rows of
    `full` (float16 as the vectors are fixed at, or float32)."""
    if full.shape[1] < mrl_dim:
        raise ValueError(f"vectors have {full.shape[1]} dims, fewer than mrl_dim={mrl_dim}")
    if np.shape(rotation) != (CODE_BITS, mrl_dim):
        raise ValueError(f"rotation must be {CODE_BITS} x {mrl_dim}, got {np.shape(rotation)}")
    if len(full) == 0:
        empty = np.zeros((0, LANES), np.uint64)
        return empty, np.zeros((0, mrl_dim), np.int8), np.zeros(0, np.float32)
    prefix = _served(full, mrl_dim)
    codes, scales = int8_quantize(prefix)
    return sign_codes(prefix, rotation), codes, scales


def served_tables(
    bits: np.ndarray, codes: np.ndarray, scales: np.ndarray
) -> tuple[pa.Table, pa.Table]:
    """(vectors_bits, vectors_i8) of the codes, each one record batch."""
    return bits_table(bits).combine_chunks(), i8_table(codes, scales).combine_chunks()


def quantize(
    vectors_f32: pa.Table, rotation: np.ndarray, *, mrl_dim: int = CODE_BITS
) -> tuple[pa.Table, pa.Table]:
    """(vectors_bits, vectors_i8) for the vectors of a `vectors_f32` table, in row order."""
    return served_tables(*served_codes(vectors_matrix(vectors_f32, dtype=None), rotation, mrl_dim))
