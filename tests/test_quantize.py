"""Quantization: the int8 error bound, the SimHash angle property, the bit layout, the stage."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gitstrata.stages.quantize import quantize
from gitstrata.store.embedder import haar_rotation
from gitstrata.store.vecstore import int8_quantize, mrl_truncate, sign_codes


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.float32,
        (5, 256),
        elements=st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, width=32),
    )
)
def test_int8_reconstruction_within_half_a_step(v: np.ndarray) -> None:
    codes, scales = int8_quantize(v)
    assert codes.dtype == np.int8 and scales.dtype == np.float32
    err = np.abs(
        v.astype(np.float64) - codes.astype(np.float64) * scales[:, None].astype(np.float64)
    )
    bound = scales[:, None].astype(np.float64) / 2 * (1 + 1e-5) + 1e-30
    assert (err <= bound).all()
    assert (np.abs(codes) <= 127).all()


def test_int8_cosine_close_for_unit_vectors() -> None:
    rng = np.random.default_rng(0)
    v = mrl_truncate(rng.standard_normal((200, 256)), 256)
    codes, _ = int8_quantize(v)
    c = codes.astype(np.float64)
    cos = (c * v).sum(1) / np.linalg.norm(c, axis=1)
    assert cos.min() > 0.999


def test_rotation_is_orthogonal_and_fixed() -> None:
    r = haar_rotation(256, 42)
    np.testing.assert_allclose(r @ r.T, np.eye(256), atol=1e-5)
    np.testing.assert_array_equal(r, haar_rotation(256, 42))
    assert not np.array_equal(r, haar_rotation(256, 43))


def test_simhash_hamming_estimates_angle() -> None:
    """E[d_H] / d = theta / pi over random rotations: the mean over many independent rotations
    of the normalised Hamming distance equals the angle over pi."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(256)
    for target in (0.2, 0.8, 1.6, 2.6):
        # y at angle `target` from x
        u = rng.standard_normal(256)
        u -= u.dot(x) / x.dot(x) * x
        y = np.cos(target) * x / np.linalg.norm(x) + np.sin(target) * u / np.linalg.norm(u)
        fractions = []
        for seed in range(60):
            r = haar_rotation(256, seed)
            cx, cy = sign_codes(x, r), sign_codes(y, r)
            bits = np.unpackbits((cx ^ cy).view(np.uint8))
            fractions.append(bits.sum() / 256)
        assert abs(np.mean(fractions) - target / np.pi) < 0.01


def test_sign_codes_bit_layout() -> None:
    """Bit b of the rotated vector is bit b % 64 (LSB first) of lane b // 64."""
    rng = np.random.default_rng(3)
    v = rng.standard_normal((9, 256)).astype(np.float32)
    r = haar_rotation(256, 1)
    codes = sign_codes(v, r)
    assert codes.shape == (9, 4) and codes.dtype == np.uint64
    expected = (v @ r.T) >= 0
    for b in (0, 1, 63, 64, 100, 255):
        got = (codes[:, b // 64] >> np.uint64(b % 64)) & np.uint64(1)
        np.testing.assert_array_equal(got.astype(bool), expected[:, b])


def _f32_table(v: np.ndarray) -> pa.Table:
    flat = pa.array(v.astype(np.float32).reshape(-1))
    return pa.table({"vector": pa.FixedSizeListArray.from_arrays(flat, v.shape[1])})


def test_quantize_stage_tables() -> None:
    rng = np.random.default_rng(9)
    full = mrl_truncate(rng.standard_normal((70, 384)), 384)
    full[5] = 0.0
    r = haar_rotation(256, 7)
    bits, i8 = quantize(_f32_table(full), r)
    assert bits.column_names == ["lane0", "lane1", "lane2", "lane3"]
    assert bits.num_rows == i8.num_rows == 70
    assert all(bits.column(c).num_chunks == 1 for c in bits.column_names)
    assert i8.schema.field("codes").type == pa.list_(pa.int8(), 256)
    prefix = mrl_truncate(full, 256)
    lanes = np.stack([bits.column(f"lane{j}").to_numpy() for j in range(4)], axis=1)
    np.testing.assert_array_equal(lanes, sign_codes(prefix, r))
    codes = i8.column("codes").combine_chunks().values.to_numpy().reshape(70, 256)
    scales = i8.column("scale").to_numpy()
    assert scales[5] == 0.0 and not codes[5].any()
    ok = np.arange(70) != 5
    err = np.abs(prefix[ok] - codes[ok] * scales[ok, None])
    assert (err <= scales[ok, None] / 2 + 1e-7).all()


def test_quantize_empty() -> None:
    bits, i8 = quantize(_f32_table(np.zeros((0, 384), np.float32)), haar_rotation(256, 0))
    assert bits.num_rows == 0 and i8.num_rows == 0


def test_stored_float16_vectors_give_the_codes_of_their_float32_values() -> None:
    """The artifact keeps float16 rows; the stage widens only the served prefix, and the codes
    are those of the rows widened whole first (a zero row and a non-finite one give zeros)."""
    rng = np.random.default_rng(4)
    full = mrl_truncate(rng.standard_normal((50, 384)), 384).astype(np.float16)
    full[3] = 0.0
    full[7, :10] = np.nan
    flat = pa.array(full.reshape(-1))
    table = pa.table({"vector": pa.FixedSizeListArray.from_arrays(flat, 384)})
    r = haar_rotation(256, 3)
    bits, i8 = quantize(table, r)
    with np.errstate(invalid="ignore"):
        prefix = mrl_truncate(full.astype(np.float32), 256)
    codes, scales = int8_quantize(prefix)
    got = i8.column("codes").combine_chunks().values.to_numpy().reshape(50, 256)
    np.testing.assert_array_equal(got, codes)
    np.testing.assert_array_equal(i8.column("scale").to_numpy(), scales)
    lanes = np.stack([bits.column(f"lane{j}").to_numpy() for j in range(4)], axis=1)
    np.testing.assert_array_equal(lanes, sign_codes(prefix, r))
    assert not got[3].any() and not got[7].any()
