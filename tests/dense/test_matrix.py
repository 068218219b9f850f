"""The quantised vectors: a round trip through a blob, rankings that agree with float, scopes."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from reverie.memory.recall.dense.matrix import VectorMatrix, dots, from_blob, quantise, to_blob

DIM = 64


def _unit(rows: int, seed: int) -> npt.NDArray[np.float32]:
    out = np.random.default_rng(seed).standard_normal((rows, DIM)).astype(np.float32)
    unit: npt.NDArray[np.float32] = out / np.linalg.norm(out, axis=1, keepdims=True)
    return unit


def test_a_vector_survives_its_blob_within_a_quantisation_step() -> None:
    vectors = _unit(8, 1)
    codes, scales = quantise(vectors)
    for n in range(8):
        back, scale = from_blob(to_blob(codes[n], float(scales[n])), DIM)
        assert len(to_blob(codes[n], float(scales[n]))) == DIM + 4
        assert np.abs(back.astype(np.float32) * scale - vectors[n]).max() <= scales[n] / 2 + 1e-7


def test_a_float16_blob_of_an_older_store_is_read_and_a_wrong_size_is_refused() -> None:
    vector = _unit(1, 2)[0]
    codes, scale = from_blob(vector.astype(np.float16).tobytes(), DIM)
    assert np.abs(codes.astype(np.float32) * scale - vector).max() < 0.01
    with pytest.raises(ValueError, match="7 bytes"):
        from_blob(b"1234567", DIM)


def test_the_quantised_ranking_agrees_with_the_float_one() -> None:
    stored, queries = _unit(2_000, 3), _unit(20, 4)
    matrix = VectorMatrix(DIM)
    codes, scales = quantise(stored)
    for n in range(len(stored)):
        matrix.put(f"#h{n + 1}", f"s{n % 4}", b"h" * 12, codes[n], float(scales[n]))
    overlap = []
    for query in queries:
        truth = {f"#h{n + 1}" for n in np.argsort(-(stored @ query))[:20]}
        found = matrix.nearest(query, limit=20, session_key=None)
        overlap.append(len(truth & {ref for ref, _ in found}) / 20)
        scores = [score for _, score in found]
        assert scores == sorted(scores, reverse=True)
    assert float(np.mean(overlap)) >= 0.9


def test_a_scope_holds_only_its_session_and_a_text_change_is_seen() -> None:
    matrix = VectorMatrix(DIM)
    vectors = _unit(3, 5)
    codes, scales = quantise(vectors)
    for n, key in enumerate(("a", "b", "a")):
        matrix.put(f"#m{n}@{key}", key, bytes([n]) * 12, codes[n], float(scales[n]))

    assert {ref for ref, _ in matrix.nearest(vectors[1], limit=5, session_key="a")} == {
        "#m0@a",
        "#m2@a",
    }
    assert matrix.nearest(vectors[1], limit=5, session_key="nobody") == []
    assert matrix.nearest(vectors[1], limit=1, session_key=None)[0][0] == "#m1@b"
    assert matrix.has("#m1@b", bytes([1]) * 12)
    matrix.put("#m1@b", "b", b"x" * 12, codes[0], float(scales[0]))
    assert not matrix.has("#m1@b", bytes([1]) * 12)
    assert len(matrix) == 3


@pytest.mark.parametrize("dim", [1, 7, 64, 384, 1000])
def test_the_integer_products_are_exact_at_the_extremes_of_the_codes(dim: int) -> None:
    rng = np.random.default_rng(dim)
    block = rng.integers(-127, 128, (300, dim), dtype=np.int8)
    block[0], block[1] = 127, -127  # the largest sums either way
    query = np.full((1, dim), 127, dtype=np.int8)
    query[0, ::3] = -127
    truth = block.astype(np.int64) @ query[0].astype(np.int64)
    got = dots(block, query)
    assert got.shape == (300,)
    assert np.array_equal(got, truth.astype(np.float64))
    assert np.array_equal(dots(block[[5, 2, 5]], query), truth[[5, 2, 5]].astype(np.float64))
    assert dots(block[:0], query).shape == (0,)
