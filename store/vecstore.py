"""The vector store format: how vectors are truncated, quantized, packed, and mapped back.

Both sides use these functions: `stages/quantize` to write the codes, `serve/vectors` to encode
a query the same way and to map the files. Invariants:

- Row i of `vectors_bits.arrow`, `vectors_i8.arrow`, `docmeta.arrow` and `documents.parquet`
  is document `doc_idx == i`.
- Matryoshka: the served vector is the first `mrl_dim` components of the full embedding,
  re-normalised to unit length (a zero vector stays zero). Its width is the embedder's
  (`store/embedder.py`), any number of components; the int8 codes have that width.
- int8: per-vector symmetric, q = round(v / s) with s = max|v| / 127, so |v - s q| <= s / 2
  componentwise. `s` is stored next to the codes.
- 1-bit: bit b of a code is [ (R v)_b >= 0 ] for the fixed `CODE_BITS` x width hyperplane
  matrix R of the embedder state (a rotation when the width is `CODE_BITS`), so a code is
  256 bits whatever the width;
  bit b lives in lane b // 64 at bit position b % 64 (least significant first). Each lane is
  its own uint64 column, so a scan over n codes reads four contiguous n * 8 byte arrays.
- Arrow files are written as one record batch, so every column is one contiguous buffer that
  `open_mapped` returns as a numpy view into the memory map (no copy into the heap).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

from .errors import IndexCorrupt

CODE_BITS = 256
LANES = CODE_BITS // 64
LANE_NAMES = tuple(f"lane{j}" for j in range(LANES))
REBUILD = "gitstrata index --rebuild"


def mrl_truncate(vectors: np.ndarray, dim: int) -> np.ndarray:
    """The first `dim` components, re-normalised to unit length (float32, rows or one vector)."""
    v = np.asarray(vectors, dtype=np.float32)[..., :dim]
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)


def int8_quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-vector symmetric int8: (codes int8[n, d], scales float32[n])."""
    v = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    peak = np.abs(v).max(axis=1) if v.shape[1] else np.zeros(v.shape[0], np.float32)
    scales = (peak / 127.0).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0).astype(np.float32)
    steps = v / safe[:, None]  # rounded and clipped in place: one temporary, not three
    np.rint(steps, out=steps)
    np.clip(steps, -127, 127, out=steps)
    return steps.astype(np.int8), scales


def sign_codes(vectors: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """1-bit SimHash codes of the rotated vectors, packed: uint64[n, 4] (lane per column)."""
    v = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    bits = (v @ np.asarray(rotation, dtype=np.float32).T) >= 0
    packed = np.packbits(bits, axis=1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8").astype(np.uint64, copy=False)


def bits_table(codes: np.ndarray) -> pa.Table:
    """uint64[n, 4] codes as the bit-sliced `vectors_bits` table: one column per lane."""
    return pa.table(
        {name: pa.array(np.ascontiguousarray(codes[:, j])) for j, name in enumerate(LANE_NAMES)}
    )


def i8_table(codes: np.ndarray, scales: np.ndarray) -> pa.Table:
    n, d = codes.shape
    flat = pa.array(np.ascontiguousarray(codes).reshape(-1))
    return pa.table(
        {
            "codes": pa.FixedSizeListArray.from_arrays(flat, d),
            "scale": pa.array(np.asarray(scales, dtype=np.float32)),
        }
    )


def _column_view(arr: pa.Array, path: Path, dtype) -> np.ndarray:
    if arr.null_count:
        raise IndexCorrupt(f"{path}: column has nulls", hint=f"run `{REBUILD}`")
    if len(arr) == 0:
        return np.empty(0, dtype=dtype)
    buf = arr.buffers()[1]
    width = np.dtype(dtype).itemsize
    return np.frombuffer(buf, dtype=dtype, count=len(arr), offset=arr.offset * width)


def _read_mapped(path: Path) -> tuple[pa.Table, pa.MemoryMappedFile]:
    if not path.exists():
        raise IndexCorrupt(f"{path}: missing artifact file", hint=f"run `{REBUILD}`")
    try:
        mm = pa.memory_map(str(path), "r")
        table = ipc.open_file(mm).read_all()
    except (OSError, pa.ArrowInvalid) as exc:
        raise IndexCorrupt(f"{path}: unreadable ({exc})", hint=f"run `{REBUILD}`") from None
    return table, mm


def _single_chunk(table: pa.Table, name: str, path: Path) -> pa.Array:
    col = table.column(name)
    if col.num_chunks == 1:
        return col.chunk(0)
    if col.num_chunks == 0 or len(col) == 0:
        return pa.concat_arrays(col.chunks) if col.num_chunks else pa.array([], col.type)
    raise IndexCorrupt(f"{path}: {name} is split into record batches", hint=f"run `{REBUILD}`")


@dataclass
class MappedVectors:
    """Zero-copy numpy views of `vectors_bits.arrow` and `vectors_i8.arrow`.

    The memory maps stay referenced here; views are valid as long as this object lives.
    """

    lanes: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    codes: np.ndarray  # int8[n, width]
    scales: np.ndarray  # float32[n]
    maps: tuple[pa.MemoryMappedFile, ...]
    tables: tuple[pa.Table, ...]

    @property
    def n(self) -> int:
        return int(self.lanes[0].shape[0])


def open_mapped(gen_dir: Path, dim: int | None = None) -> MappedVectors:
    """Map the two served vector files of a generation folder; `dim`, when given, is the width
    the codes must have (the embedder's)."""
    gen_dir = Path(gen_dir)
    bits_path = gen_dir / "vectors_bits.arrow"
    i8_path = gen_dir / "vectors_i8.arrow"
    bits, bmm = _read_mapped(bits_path)
    i8, imm = _read_mapped(i8_path)
    missing = [c for c in LANE_NAMES if c not in bits.column_names]
    if missing or "codes" not in i8.column_names or "scale" not in i8.column_names:
        raise IndexCorrupt(
            f"{gen_dir}: vector files lack expected columns", hint=f"run `{REBUILD}`"
        )
    l0, l1, l2, l3 = (
        _column_view(_single_chunk(bits, c, bits_path), bits_path, np.uint64) for c in LANE_NAMES
    )
    lanes = (l0, l1, l2, l3)
    codes_arr = _single_chunk(i8, "codes", i8_path)
    width = codes_arr.type.list_size
    if dim is not None and width != dim:
        raise IndexCorrupt(
            f"{i8_path}: codes have {width} dims, the embedder {dim}", hint=f"run `{REBUILD}`"
        )
    values = codes_arr.values
    if len(codes_arr) == 0:
        codes = np.empty((0, width), np.int8)
    else:
        codes = np.frombuffer(
            values.buffers()[1],
            dtype=np.int8,
            count=len(codes_arr) * width,
            offset=(values.offset + codes_arr.offset * width),
        ).reshape(len(codes_arr), width)
    scales = _column_view(_single_chunk(i8, "scale", i8_path), i8_path, np.float32)
    if len({len(lanes[0]), len(codes), len(scales)}) != 1:
        raise IndexCorrupt(
            f"{gen_dir}: vector files disagree on the row count", hint=f"run `{REBUILD}`"
        )
    return MappedVectors(lanes, codes, scales, (bmm, imm), (bits, i8))


def open_docmeta(gen_dir: Path) -> pa.Table:
    """Map `docmeta.arrow` (zero-copy Arrow columns; `.to_numpy()` on a numeric column is a view)."""
    table, _mm = _read_mapped(Path(gen_dir) / "docmeta.arrow")
    return table
