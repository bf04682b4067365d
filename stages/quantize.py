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
    mrl_truncate,
    sign_codes,
)


def vectors_matrix(vectors_f32: pa.Table, column: str = "vector") -> np.ndarray:
    """The FixedSizeList<float32> column as a float32[n, d] array."""
    col = vectors_f32.column(column).combine_chunks()
    d = col.type.list_size
    if len(col) == 0:
        return np.zeros((0, d), np.float32)
    return np.asarray(col.values.to_numpy(zero_copy_only=False), dtype=np.float32).reshape(
        len(col), d
    )


def quantize(
    vectors_f32: pa.Table, rotation: np.ndarray, *, mrl_dim: int = CODE_BITS
) -> tuple[pa.Table, pa.Table]:
    """(vectors_bits, vectors_i8) for the vectors in row order."""
    full = vectors_matrix(vectors_f32)
    if full.shape[1] < mrl_dim:
        raise ValueError(f"vectors have {full.shape[1]} dims, fewer than mrl_dim={mrl_dim}")
    if np.shape(rotation) != (CODE_BITS, mrl_dim):
        raise ValueError(f"rotation must be {CODE_BITS} x {mrl_dim}, got {np.shape(rotation)}")
    prefix = mrl_truncate(full, mrl_dim)
    codes, scales = int8_quantize(prefix)
    bits = sign_codes(prefix, rotation) if len(prefix) else np.zeros((0, LANES), np.uint64)
    if len(prefix) == 0:
        codes = np.zeros((0, mrl_dim), np.int8)
    return bits_table(bits).combine_chunks(), i8_table(codes, scales).combine_chunks()
