"""attn_math.attention against independent formulas and the properties the lesson states."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attn_math.attention import causal_mask, entropy, self_attention, softmax, softmax_slope

finite = st.floats(-50, 50, allow_nan=False)


def loop_attention(X, W_Q, W_K, W_V, temperature=1.0, causal=False):
    """Self-attention with plain Python loops: an implementation independent of the module."""
    n, d = len(X), len(X[0])
    project = lambda W: [[sum(X[i][a] * W[a][b] for a in range(d)) for b in range(len(W[0]))] for i in range(n)]
    Q, K, V = project(W_Q), project(W_K), project(W_V)
    d_k = len(W_Q[0])
    weights = []
    for i in range(n):
        visible = range(i + 1) if causal else range(n)
        e = {j: sum(q * k for q, k in zip(Q[i], K[j])) / (math.sqrt(d_k) * temperature) for j in visible}
        top = max(e.values())
        total = sum(math.exp(v - top) for v in e.values())
        weights.append([math.exp(e[j] - top) / total if j in e else 0.0 for j in range(n)])
    Z = [[sum(weights[i][j] * V[j][c] for j in range(n)) for c in range(len(V[0]))] for i in range(n)]
    return np.array(weights), np.array(Z)


@given(arrays(float, (4, 3), elements=finite), arrays(float, (3, 2), elements=finite),
       arrays(float, (3, 2), elements=finite), arrays(float, (3, 3), elements=finite),
       st.floats(0.1, 5.0), st.booleans())
@settings(max_examples=60, deadline=None)
def test_self_attention_matches_loop_implementation(X, W_Q, W_K, W_V, temperature, causal):
    steps = self_attention(X, W_Q, W_K, W_V, temperature=temperature, causal=causal)
    weights, Z = loop_attention(X.tolist(), W_Q.tolist(), W_K.tolist(), W_V.tolist(), temperature, causal)
    np.testing.assert_allclose(steps.weights, weights, atol=1e-9)
    np.testing.assert_allclose(steps.output, Z, atol=1e-6 * (1 + np.abs(Z).max()))
    np.testing.assert_allclose(steps.weights.sum(axis=1), 1.0)


@given(arrays(float, (5, 4), elements=finite))
@settings(max_examples=40, deadline=None)
def test_causal_weights_above_diagonal_are_exactly_zero(X):
    W = np.eye(4)
    steps = self_attention(X, W, W, W, causal=True)
    assert np.all(steps.weights[np.triu_indices(5, k=1)] == 0.0)
    assert steps.weights[0].tolist() == [1.0, 0, 0, 0, 0]
    assert np.all(np.isneginf(steps.scaled[steps.mask]))


def test_softmax_is_stable_for_huge_inputs():
    p = softmax(np.array([1e6, 1e6 - 1.0, -1e6]))
    np.testing.assert_allclose(p, [1 / (1 + math.exp(-1)), math.exp(-1) / (1 + math.exp(-1)), 0.0])
    assert np.all(np.isfinite(p))


def test_softmax_of_minus_infinity_is_exactly_zero():
    p = softmax(np.array([[0.0, -np.inf, 1.0]]))
    assert p[0, 1] == 0.0
    np.testing.assert_allclose(p.sum(), 1.0)


def test_softmax_ties_are_uniform():
    np.testing.assert_allclose(softmax(np.full(7, 3.3)), np.full(7, 1 / 7))


def test_softmax_along_another_axis():
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    np.testing.assert_allclose(softmax(x, axis=0).sum(axis=0), [1, 1])


@pytest.mark.parametrize("bad", [[np.nan, 1.0], [np.inf, 0.0], [-np.inf, -np.inf]])
def test_softmax_rejects_undefined_rows(bad):
    with pytest.raises(ValueError, match="x"):
        softmax(np.array(bad))


def test_entropy_known_values():
    assert entropy([1.0, 0.0, 0.0]) == 0.0
    np.testing.assert_allclose(entropy(np.full(8, 1 / 8)), 3.0)
    np.testing.assert_allclose(entropy([0.5, 0.5], base=math.e), math.log(2))
    np.testing.assert_allclose(entropy([[0.25] * 4, [1, 0, 0, 0]]), [2.0, 0.0])


def test_entropy_rejects_negative_probabilities():
    with pytest.raises(ValueError, match="p"):
        entropy([1.5, -0.5])


def test_causal_mask_is_strict_upper_triangle():
    mask = causal_mask(4)
    assert mask.dtype == bool
    assert [[bool(j > i) for j in range(4)] for i in range(4)] == mask.tolist()
    with pytest.raises(ValueError, match="n"):
        causal_mask(0)


def test_temperature_to_zero_is_one_hot_and_to_infinity_uniform():
    X = np.array([[1.0, 0.2], [0.3, 1.0], [0.8, 0.9]])  # no ties in any row of the scores
    W = np.array([[2.0, 0.0], [0.0, 1.0]])
    cold = self_attention(X, W, W, W, temperature=1e-5)
    hot = self_attention(X, W, W, W, temperature=1e4)
    np.testing.assert_allclose(cold.weights.max(axis=1), 1.0)
    np.testing.assert_allclose(hot.weights, 1 / 3, atol=1e-3)
    assert np.all(cold.entropies < hot.entropies)


def test_scaling_divides_by_sqrt_dk():
    X = np.arange(12.0).reshape(3, 4) / 10
    W = np.eye(4)
    scaled = self_attention(X, W, W, W, scale=True, temperature=2.0)
    raw = self_attention(X, W, W, W, scale=False)
    np.testing.assert_allclose(scaled.scaled, raw.scores / (2.0 * 2.0))
    assert scaled.divisor == 4.0


@pytest.mark.parametrize("arguments, name", [
    (dict(X=[[1, 2], [3]]), "X"),
    (dict(X=[[1, np.nan], [0, 1]]), "X"),
    (dict(X=[]), "X"),
    (dict(W_Q=np.ones((3, 2))), "W_Q"),
    (dict(W_K=np.ones((2, 3))), "W_K"),
    (dict(W_V=np.full((2, 2), np.inf)), "W_V"),
    (dict(temperature=0.0), "temperature"),
    (dict(temperature=-1.0), "temperature"),
])
def test_bad_input_names_the_argument(arguments, name):
    good = dict(X=np.eye(2), W_Q=np.eye(2), W_K=np.eye(2), W_V=np.eye(2))
    good.update(arguments)
    temperature = good.pop("temperature", 1.0)
    with pytest.raises(ValueError, match=rf"^{name}:"):
        self_attention(**good, temperature=temperature)


def test_results_are_read_only():
    steps = self_attention(np.eye(2), np.eye(2), np.eye(2), np.eye(2))
    with pytest.raises(ValueError):
        steps.weights[0, 0] = 0.5


def jacobian_largest(weights):
    """max |d p_j / d s_k| over rows, from the softmax's Jacobian diag(p) - p p^T written out."""
    return max(np.abs(np.diag(p) - np.outer(p, p)).max() for p in np.atleast_2d(weights))


@given(arrays(np.float64, (3, 4), elements=st.floats(-30, 30)))
def test_softmax_slope_is_the_largest_entry_of_the_jacobian(scores):
    weights = softmax(scores)
    assert softmax_slope(weights) == pytest.approx(jacobian_largest(weights), abs=1e-12)


def test_softmax_slope_vanishes_for_one_hot_rows_and_peaks_at_a_quarter():
    assert softmax_slope([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]) == 0.0
    assert softmax_slope([0.5, 0.5]) == 0.25
    assert softmax_slope(softmax([[0.0, 54.0, 27.0]])) < 1e-11


@pytest.mark.parametrize("bad", [[0.5, np.nan], [-0.1, 1.1], [0.2, 1.5]])
def test_softmax_slope_rejects_what_is_not_a_probability(bad):
    with pytest.raises(ValueError, match="^weights: "):
        softmax_slope(bad)
