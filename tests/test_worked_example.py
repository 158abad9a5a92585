"""Section 1's worked example, checked against numbers worked out by hand."""

import numpy as np
import pytest

from attn_math import worked_example
from attn_math.attention import self_attention


def hand_softmax(row):
    exps = [np.exp(value) for value in row]
    return [value / sum(exps) for value in exps]


@pytest.fixture
def steps():
    return self_attention(worked_example.X, worked_example.W_Q, worked_example.W_K, worked_example.W_V)


def test_projections_match_hand_computation(steps):
    # Q = X W_Q row by row: [1,0]W_Q = [3,0]; [0,2]W_Q = 2*[-1,2]; [1,1]W_Q = [3,0]+[-1,2].
    assert steps.Q.tolist() == [[3, 0], [-2, 4], [2, 2]]
    assert steps.K.tolist() == [[0, 2], [2, 0], [1, 2]]
    assert steps.V.tolist() == [[1, 1], [0, 2], [1, 2]]


def test_scores_and_scaling_match_hand_computation(steps):
    assert steps.scores.tolist() == [[0, 6, 3], [8, -4, 6], [4, 4, 6]]
    assert steps.d_k == 2
    # sqrt(2) = 1.41421: 6 / 1.41421 = 4.2426, 3 / 1.41421 = 2.1213, 8 / 1.41421 = 5.6569.
    np.testing.assert_allclose(steps.scaled[0], [0, 4.2426, 2.1213], atol=1e-4)
    np.testing.assert_allclose(steps.scaled[1], [5.6569, -2.8284, 4.2426], atol=1e-4)


def test_weights_to_three_decimals(steps):
    # Row 0: exp(0) = 1, exp(4.2426) = 69.59, exp(2.1213) = 8.342; sum 78.93.
    # Row 2: exp(2.8284) = 16.92 twice and exp(4.2426) = 69.59; sum 103.43.
    np.testing.assert_allclose(steps.weights[0], [0.013, 0.882, 0.106], atol=1e-3)
    np.testing.assert_allclose(steps.weights[2], [0.164, 0.164, 0.673], atol=1e-3)
    np.testing.assert_allclose(steps.weights[1], [0.804, 0.000, 0.196], atol=1e-3)


def test_output_is_weighted_sum_of_values(steps):
    # Z row 0 = 0.013*[1,1] + 0.882*[0,2] + 0.106*[1,2] = [0.118, 1.988] to 3 decimals.
    np.testing.assert_allclose(steps.output[0], [0.118, 1.988], atol=2e-3)
    for row, weights in zip(steps.output, steps.weights):
        np.testing.assert_allclose(row, sum(w * v for w, v in zip(weights, steps.V)), atol=1e-12)


def test_causal_mask_first_row_is_exactly_one_hot():
    steps = self_attention(worked_example.X, worked_example.W_Q, worked_example.W_K,
                           worked_example.W_V, causal=True)
    assert steps.weights[0].tolist() == [1.0, 0.0, 0.0]
    assert steps.weights[1, 2] == 0.0
    np.testing.assert_allclose(steps.weights[1, :2], hand_softmax([8 / np.sqrt(2), -4 / np.sqrt(2)]))


def test_large_scores_collapse_without_scaling():
    preset = worked_example.large_scores
    unscaled = self_attention(preset.X, preset.W_Q, preset.W_K, preset.W_V, scale=False)
    np.testing.assert_array_equal(unscaled.scores, 9 * np.array([[0, 6, 3], [8, -4, 6], [4, 4, 6]]))
    assert np.all(unscaled.weights.max(axis=1) > 0.99)
    scaled = self_attention(preset.X, preset.W_Q, preset.W_K, preset.W_V, scale=True)
    assert np.all(scaled.weights.max(axis=1) < unscaled.weights.max(axis=1))


def test_shared_projection_makes_the_diagonal_dominate():
    preset = worked_example.shared_projection
    np.testing.assert_array_equal(preset.W_K, preset.W_Q)
    steps = self_attention(preset.X, preset.W_Q, preset.W_K, preset.W_V)
    assert steps.weights.argmax(axis=1).tolist() == [0, 1, 2]
    # Q = [[3,0],[-2,4],[2,2]], so Q Q^T by hand:
    assert steps.scores.tolist() == [[9, -6, 6], [-6, 20, 4], [6, 4, 8]]


def test_presets_are_read_only():
    with pytest.raises(ValueError):
        worked_example.X[0, 0] = 5


def test_the_tokens_are_one_word_per_row_of_x_and_the_attention_their_words_suggest(steps):
    """«el gato duerme»: the article attends mostly to its noun, «duerme» mostly to itself."""
    assert len(worked_example.TOKENS) == len(worked_example.X) == 3
    assert worked_example.TOKENS == ("el", "gato", "duerme")
    assert steps.weights.argmax(axis=1).tolist() == [1, 0, 2]
