import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_math.attention import exponentiate_then_normalise
from attn_math.scaling import (MAX_D_K, MAX_KEYS, MIN_KEYS, ScalingDemo, scaled_score_deviation, scaling_demo,
                               score_cloud, score_deviation, score_samples, standard_deviation)


def entropy_bits(p):
    return -sum(x * math.log2(x) for x in p if x > 0)


@pytest.mark.parametrize("d_k", [1, 4, 16, 64, 256, 512])
def test_score_deviation_is_about_sqrt_d_k(d_k):
    assert score_deviation(d_k) == pytest.approx(math.sqrt(d_k), rel=0.04)


@pytest.mark.parametrize("d_k", [2, 64, 512])
def test_the_scaled_deviation_is_about_1_and_is_the_deviation_over_sqrt_d_k(d_k):
    """std(q · k / sqrt(d_k)): the same draws, written out again here."""
    rng = np.random.default_rng(5)
    draws = rng.standard_normal((4000, 2, d_k))
    assert np.std((draws[:, 0] * draws[:, 1]).sum(axis=1) / math.sqrt(d_k)) == pytest.approx(1.0, rel=0.05)
    assert scaled_score_deviation(d_k, seed=5) == pytest.approx(score_deviation(d_k, seed=5) / math.sqrt(d_k))
    assert scaled_score_deviation(d_k, seed=5) == pytest.approx(1.0, rel=0.04)


def test_score_deviation_is_reproducible_and_depends_on_the_seed():
    assert score_deviation(32, seed=3) == score_deviation(32, seed=3)
    assert score_deviation(32, seed=3) != score_deviation(32, seed=4)


def test_numpy_fills_standard_normal_row_by_row_so_draws_nest_across_sizes():
    for seed in range(5):
        for n_keys in (MIN_KEYS, 8, MAX_KEYS):
            big = np.random.default_rng(seed).standard_normal((512, 1 + n_keys))
            for d_k in (1, 2, 8, 64):
                small = np.random.default_rng(seed).standard_normal((d_k, 1 + n_keys))
                assert np.array_equal(small, big[:d_k])


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_demo_vectors_are_nested_and_scores_are_partial_sums(seed):
    large = scaling_demo(512, seed=seed)
    for d_k in (2, 8, 64):
        small = scaling_demo(d_k, seed=seed)
        assert np.array_equal(small.query, large.query[:d_k])
        assert np.array_equal(small.keys, large.keys[:, :d_k])
        partial_sums = [sum(q * k for q, k in zip(large.query[:d_k], key[:d_k])) for key in large.keys]
        np.testing.assert_allclose(small.scores, partial_sums, rtol=0, atol=1e-12)


def test_scores_are_key_dot_query_and_scaled_by_sqrt_d_k():
    demo = scaling_demo(64, n_keys=5, seed=2)
    assert demo.query.shape == (64,) and demo.keys.shape == (5, 64)
    np.testing.assert_allclose(demo.scores, [np.dot(key, demo.query) for key in demo.keys], atol=1e-12)
    np.testing.assert_allclose(demo.scaled_scores, demo.scores / 8.0, atol=1e-15)


def test_unscaled_softmax_collapses_at_large_d_k_but_scaled_does_not():
    demos = [scaling_demo(512, seed=seed) for seed in range(20)]
    assert np.median([demo.weights_unscaled.max() for demo in demos]) > 0.99
    assert np.median([demo.entropy_unscaled for demo in demos]) < 0.1
    assert all(demo.entropy_scaled > 1 for demo in demos)


def test_unscaled_entropy_falls_as_d_k_grows():
    median_entropy = [np.median([scaling_demo(d_k, seed=seed).entropy_unscaled for seed in range(20)])
                      for d_k in (2, 8, 64, 512)]
    assert median_entropy == sorted(median_entropy, reverse=True)


@given(d_k=st.integers(1, 1024), n_keys=st.integers(MIN_KEYS, MAX_KEYS), seed=st.integers(0, 2**32))
@settings(max_examples=60, deadline=None)
def test_weights_sum_to_one_and_entropies_match_the_formula(d_k, n_keys, seed):
    demo = scaling_demo(d_k, n_keys=n_keys, seed=seed)
    assert demo.d_k == d_k
    for weights, entropy in ((demo.weights_unscaled, demo.entropy_unscaled),
                             (demo.weights_scaled, demo.entropy_scaled)):
        assert weights.shape == (n_keys,) and np.all(weights >= 0)
        assert math.fsum(weights) == pytest.approx(1.0, abs=1e-12)
        assert entropy == pytest.approx(entropy_bits(weights), abs=1e-9)
        assert 0 <= entropy <= math.log2(n_keys) + 1e-9
    exponentials = [math.exp(s - max(demo.scaled_scores)) for s in demo.scaled_scores]
    np.testing.assert_allclose(demo.weights_scaled, [e / sum(exponentials) for e in exponentials], atol=1e-12)


def test_demo_is_frozen():
    demo = scaling_demo(8)
    assert isinstance(demo, ScalingDemo)
    for array in (demo.query, demo.keys, demo.scores, demo.scaled_scores, demo.weights_unscaled, demo.weights_scaled):
        with pytest.raises(ValueError):
            array[0] = 0.0
    with pytest.raises(AttributeError):
        demo.d_k = 3


@pytest.mark.parametrize("kwargs, name", [
    ({"d_k": 0}, "d_k"), ({"d_k": MAX_D_K + 1}, "d_k"), ({"d_k": 2.5}, "d_k"), ({"d_k": True}, "d_k"),
    ({"d_k": 8, "n_keys": MIN_KEYS - 1}, "n_keys"), ({"d_k": 8, "n_keys": MAX_KEYS + 1}, "n_keys"),
    ({"d_k": 8, "seed": -1}, "seed"),
])
def test_scaling_demo_rejects_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        scaling_demo(**kwargs)


@pytest.mark.parametrize("kwargs, name", [
    ({"d_k": 0}, "d_k"), ({"d_k": MAX_D_K + 1}, "d_k"), ({"d_k": 8, "n_samples": 1}, "n_samples"),
    ({"d_k": 8, "seed": -2}, "seed"),
])
def test_score_deviation_rejects_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        score_deviation(**kwargs)


def test_limits_are_inclusive():
    assert scaling_demo(1, n_keys=MIN_KEYS).scores.shape == (MIN_KEYS,)
    assert scaling_demo(MAX_D_K, n_keys=MAX_KEYS).keys.shape == (MAX_KEYS, MAX_D_K)


def test_score_samples_are_dot_products_of_the_pairs_drawn_one_after_the_other():
    """Blocks of pairs or one draw, the stream is the same: the first samples do not depend on how many follow."""
    pairs = np.random.default_rng(7).standard_normal((50, 2, 600))
    expected = [math.fsum(q * k for q, k in zip(pair[0], pair[1])) for pair in pairs]
    assert score_samples(600, 50, seed=7) == pytest.approx(expected)
    assert score_samples(600, 5000, seed=7)[:50] == pytest.approx(expected)  # 5000 pairs: three blocks


def test_standard_deviation_is_the_root_mean_square_about_the_mean():
    assert standard_deviation([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]) == 2.0
    with pytest.raises(ValueError, match="^x:"):
        standard_deviation([1.0])


def test_score_cloud_divides_by_root_d_k_and_its_spread_follows():
    cloud = score_cloud(256, 400, seed=3)
    assert cloud.scores == pytest.approx(score_samples(256, 400, seed=3))
    assert cloud.scaled_scores == pytest.approx(cloud.scores / 16)
    assert cloud.deviation == pytest.approx(16, rel=0.1)
    assert cloud.scaled_deviation == pytest.approx(cloud.deviation / 16)


@pytest.mark.parametrize("scores", [[1.0, 2.0, 3.0], [1e6, 0.0, -1e6], [0.5, -np.inf, 0.5]])
def test_exponentiate_then_normalise_is_the_softmax_in_two_moves(scores):
    moves = exponentiate_then_normalise(scores)
    finite = [score for score in scores if score > -np.inf]
    largest = max(finite)
    exponentials = [math.exp(score - largest) if score > -np.inf else 0.0 for score in scores]
    assert moves.largest == largest
    assert moves.exponentials == pytest.approx(exponentials)
    assert max(moves.exponentials) == 1.0
    assert moves.total == pytest.approx(math.fsum(exponentials))
    assert moves.weights == pytest.approx([value / math.fsum(exponentials) for value in exponentials])
    assert math.fsum(moves.weights) == pytest.approx(1.0)
