import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_math.attention import self_attention
from attn_math.positional import (
    MAX_D_MODEL,
    first_rise,
    MAX_POSITIONS,
    WORD_EMBEDDINGS,
    contiguous_tokens_example,
    separate_readings,
    permutation_demo,
    similarity_by_distance,
    sinusoidal_encoding,
    smooth_width,
)


def literal_pe(pos, dim, d_model, base=10000.0):
    pair = dim - dim % 2
    angle = pos / base ** (pair / d_model)
    return math.sin(angle) if dim % 2 == 0 else math.cos(angle)


@pytest.mark.parametrize("n_positions, d_model, base", [(1, 2, 10000.0), (7, 4, 10000.0), (20, 6, 100.0),
                                                        (50, 9, 10000.0), (12, 16, 2.5)])
def test_encoding_matches_the_formula_element_by_element(n_positions, d_model, base):
    PE = sinusoidal_encoding(n_positions, d_model, base)
    assert PE.shape == (n_positions, d_model)
    expected = [[literal_pe(pos, dim, d_model, base) for dim in range(d_model)] for pos in range(n_positions)]
    np.testing.assert_allclose(PE, expected, rtol=0, atol=1e-12)


def test_odd_d_model_ends_with_a_sin_column():
    PE = sinusoidal_encoding(10, 5)
    np.testing.assert_allclose(PE[:, 4], np.sin(np.arange(10) / 10000.0 ** (4 / 5)), atol=1e-15)


def test_position_zero_is_zero_sin_and_one_cos():
    np.testing.assert_array_equal(sinusoidal_encoding(1, 6)[0], [0, 1, 0, 1, 0, 1])


@given(n_positions=st.integers(1, 64), half_d=st.integers(1, 32), base=st.floats(1.5, 1e5))
@settings(max_examples=50, deadline=None)
def test_each_sin_cos_pair_lies_on_the_unit_circle(n_positions, half_d, base):
    PE = sinusoidal_encoding(n_positions, 2 * half_d, base)
    np.testing.assert_allclose(PE[:, 0::2] ** 2 + PE[:, 1::2] ** 2, 1.0, atol=1e-12)
    np.testing.assert_allclose(np.sum(PE**2, axis=1), half_d, atol=1e-10)


def closed_form_similarity(delta, d_model, base=10000.0):
    return sum(math.cos(delta / base ** (2 * i / d_model)) for i in range(d_model // 2))


@pytest.mark.parametrize("d_model", [2, 4, 16, 64])
@pytest.mark.parametrize("start", [0, 13])
def test_similarity_is_the_closed_form_in_delta(d_model, start):
    similarities = similarity_by_distance(40, d_model, start)
    assert similarities.shape == (40 - start,)
    expected = [closed_form_similarity(delta, d_model) for delta in range(40 - start)]
    np.testing.assert_allclose(similarities, expected, rtol=0, atol=1e-10)


@given(d_model=st.integers(1, 64).map(lambda half: 2 * half), first=st.integers(0, 30), second=st.integers(0, 30),
       base=st.floats(2.0, 1e4))
@settings(max_examples=50, deadline=None)
def test_similarity_depends_only_on_distance(d_model, first, second, base):
    length = 32
    a = similarity_by_distance(first + length, d_model, first, base)
    b = similarity_by_distance(second + length, d_model, second, base)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)


def test_similarity_starts_at_d_over_two_and_stays_below():
    similarities = similarity_by_distance(100, 16, 5)
    assert similarities[0] == pytest.approx(8.0)
    assert np.all(similarities[1:] < 8.0)


def test_contiguous_tokens_example():
    example = contiguous_tokens_example()
    assert example.tokens == ("el", "perro", "mordió")
    np.testing.assert_array_equal(example.positions, [0, 1, 2])
    assert example.x.shape == example.pe.shape == example.x_plus_pe.shape == (3, 4)
    np.testing.assert_array_equal(example.x, [WORD_EMBEDDINGS[token] for token in example.tokens])
    expected_pe = [[literal_pe(pos, dim, 4) for dim in range(4)] for pos in example.positions]
    np.testing.assert_allclose(example.pe, expected_pe, atol=1e-15)
    np.testing.assert_array_equal(example.x_plus_pe, example.x + example.pe)
    np.testing.assert_array_equal(example.x, np.round(example.x, 1))  # short decimals on screen
    with pytest.raises(ValueError):
        example.x[0, 0] = 1.0


def test_every_demo_embedding_is_at_least_as_long_as_a_pe_row():
    """|PE(pos)| = sqrt(d/2) for every pos (sin² + cos² = 1 per pair): a word shorter than that is swamped."""
    pe_length = math.sqrt(4 / 2)
    for vector in WORD_EMBEDDINGS.values():
        assert len(vector) == 4
        assert pe_length <= np.linalg.norm(vector) <= 3 * pe_length
        assert all(round(value, 1) == value for value in vector)


def numpy_attention(X, W_Q, W_K, W_V):
    """softmax(X W_Q (X W_K)^T / sqrt(d_k)) X W_V, written out again for the test."""
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    scores = Q @ K.T / math.sqrt(Q.shape[1])
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True) @ V


def test_with_pe_the_word_still_matters_beside_its_position():
    """Where the two sentences hold different words at the same position (1 and 4), their output rows differ
    by at least 0.1, as much as a tenth of a unit the screen's two decimals show, and so does the same word at
    two positions: neither the word nor the position swamps the other (at unit size, 0.01 at position 4)."""
    demo = permutation_demo()
    pe = np.array([[literal_pe(pos, dim, 4) for dim in range(4)] for pos in range(5)])
    outputs = [numpy_attention(np.array([WORD_EMBEDDINGS[word] for word in sentence]) + pe,
                               demo.W_Q, demo.W_K, demo.W_V) for sentence in (demo.tokens_a, demo.tokens_b)]
    for position in (1, 4):
        assert demo.tokens_a[position] != demo.tokens_b[position]
        assert np.abs(outputs[0][position] - outputs[1][position]).max() >= 0.1, position
    for word in ("perro", "hombre"):
        a, b = demo.tokens_a.index(word), demo.tokens_b.index(word)
        assert np.abs(outputs[0][a] - outputs[1][b]).max() >= 0.1, word


def test_permutation_maps_sentence_a_onto_sentence_b():
    demo = permutation_demo()
    assert demo.tokens_a == ("el", "perro", "mordió", "al", "hombre")
    assert demo.tokens_b == ("el", "hombre", "mordió", "al", "perro")
    assert [demo.tokens_a[j] for j in demo.permutation] == list(demo.tokens_b)
    assert sorted(demo.permutation) == list(range(5))


def test_without_pe_every_word_gets_the_same_output_in_both_sentences():
    demo = permutation_demo()
    for i, j in enumerate(demo.permutation):  # word i of B is word j of A
        np.testing.assert_allclose(demo.output_b[i], demo.output_a[j], rtol=0, atol=1e-12)
    np.testing.assert_allclose(demo.steps_b.weights, demo.steps_a.weights[np.ix_(demo.permutation, demo.permutation)],
                               rtol=0, atol=1e-12)


def test_with_pe_the_outputs_differ():
    demo = permutation_demo()
    differences = {demo.tokens_b[i]: np.abs(demo.output_b_pe[i] - demo.output_a_pe[j]).max()
                   for i, j in enumerate(demo.permutation)}
    assert differences["perro"] > 0.1 and differences["hombre"] > 0.1
    assert all(difference > 0.01 for difference in differences.values())


def test_permutation_demo_uses_the_shown_matrices_and_pe():
    demo = permutation_demo()
    X_a = np.array([WORD_EMBEDDINGS[token] for token in demo.tokens_a])
    expected = self_attention(X_a + sinusoidal_encoding(5, 4), demo.W_Q, demo.W_K, demo.W_V)
    np.testing.assert_array_equal(demo.steps_a_pe.output, expected.output)
    np.testing.assert_array_equal(demo.steps_a.X, X_a)
    for W in (demo.W_Q, demo.W_K, demo.W_V):
        assert W.shape == (4, 4) and not W.flags.writeable
        np.testing.assert_array_equal(W, np.round(W, 1))


def test_the_demo_attention_is_not_uniform():
    weights = permutation_demo().steps_a.weights
    assert np.all(weights.max(axis=1) > 0.25)


@pytest.mark.parametrize("call, name", [
    (lambda: sinusoidal_encoding(0, 4), "n_positions"),
    (lambda: sinusoidal_encoding(MAX_POSITIONS + 1, 4), "n_positions"),
    (lambda: sinusoidal_encoding(3.5, 4), "n_positions"),
    (lambda: sinusoidal_encoding(4, 1), "d_model"),
    (lambda: sinusoidal_encoding(4, MAX_D_MODEL + 1), "d_model"),
    (lambda: sinusoidal_encoding(4, 4, base=1.0), "base"),
    (lambda: sinusoidal_encoding(4, 4, base=float("nan")), "base"),
    (lambda: similarity_by_distance(10, 4, 10), "start"),
    (lambda: similarity_by_distance(10, 4, -1), "start"),
])
def test_bad_arguments_raise_naming_them(call, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        call()


def test_limits_are_inclusive():
    assert sinusoidal_encoding(MAX_POSITIONS, MAX_D_MODEL).shape == (MAX_POSITIONS, MAX_D_MODEL)
    assert similarity_by_distance(1, 2, 0).shape == (1,)


def test_angular_frequencies_are_the_columns_rates():
    from attn_math.positional import angular_frequencies

    omega = angular_frequencies(6, 100.0)
    assert omega.tolist() == pytest.approx([1, 1, 100 ** (-2 / 6), 100 ** (-2 / 6), 100 ** (-4 / 6), 100 ** (-4 / 6)])
    PE = sinusoidal_encoding(3, 6, 100.0)
    assert PE[2, 0::2] == pytest.approx(np.sin(2 * omega[0::2]))


def cosine_sum(n_positions, d_model, base):
    """sum_i cos(Δ / base^(2i/d)) for Δ = 0 .. n - 1: PE(0) · PE(Δ) for an even d, written out again."""
    return [sum(math.cos(delta / base ** (2 * i / d_model)) for i in range(d_model // 2)) for delta in range(n_positions)]


def only_falls(curve) -> bool:
    return all(later <= earlier + 1e-12 for earlier, later in zip(curve, curve[1:]))


@pytest.mark.parametrize("n_positions, d_model, base", [(32, 16, 10000.0), (4, 16, 10000.0), (16, 16, 1e9),
                                                        (32, 16, 1.0001), (64, 64, 1e9)])
def test_smooth_width_is_the_smallest_larger_power_of_two_whose_curve_only_falls(n_positions, d_model, base):
    widths = [2 ** k for k in range(1, 10) if 2 ** k > d_model]
    expected = next((width for width in widths if only_falls(cosine_sum(n_positions, width, base))), None)
    assert smooth_width(n_positions, d_model, base) == expected
    assert smooth_width(32, 16, 10000.0) == 512  # the original Transformer's d_model


@pytest.mark.parametrize("curve, expected", [([3, 2, 1], None), ([3, 3, 1], None), ([3, 1, 2, 0], 2), ([1, 2], 1),
                                             ([5.0], None)])
def test_first_rise_is_the_first_distance_where_the_curve_grows(curve, expected):
    assert first_rise(curve) == expected


def test_the_two_readers_see_only_the_word_or_only_the_position():
    """separate_readings: no word embedding has a component along the position reader, and every PE(pos) has the
    same component along the word reader, so the readings of x + PE split into word and position (numpy here)."""
    example = contiguous_tokens_example()
    readings = separate_readings(example)
    assert np.allclose(example.x @ readings.position_reader, 0, atol=1e-12)
    assert np.allclose(example.pe @ readings.word_reader, example.pe[0] @ readings.word_reader, atol=1e-12)
    assert np.linalg.norm(readings.word_reader) == pytest.approx(1) == np.linalg.norm(readings.position_reader)
    assert np.ptp(example.x @ readings.word_reader) > 1 and np.ptp(example.pe @ readings.position_reader) > 0.5
