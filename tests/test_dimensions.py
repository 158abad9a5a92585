"""The sizes the closing cards quote, against the guide's answers worked by hand."""

import numpy as np
import pytest

from attn_math.dimensions import (GUIDE_D_MODEL, GUIDE_HEADS, LAB_D_K, head_dimension, scale_factor,
                                  score_multiplications, score_variances)


def test_exercise_6_d_model_512_with_8_heads_gives_64_and_with_16_gives_32():
    assert head_dimension(GUIDE_D_MODEL, GUIDE_HEADS) == 64
    assert head_dimension(512, 16) == 32
    assert head_dimension(3, 1) == 3


def test_heads_must_divide_the_model_dimension():
    with pytest.raises(ValueError, match="heads"):
        head_dimension(512, 7)
    with pytest.raises(ValueError, match="d_model"):
        head_dimension(0, 8)


def test_exercise_5_the_factor_is_one_eighth_at_64_and_its_divisor_grows_by_root_8_from_the_lab():
    assert scale_factor(64) == 0.125
    assert scale_factor(1) == 1.0
    assert scale_factor(LAB_D_K) / scale_factor(64) == pytest.approx(2 * 2 ** 0.5)  # sqrt(64 / 8)
    with pytest.raises(ValueError, match="d_k"):
        scale_factor(0)


def test_the_score_matrix_costs_n_squared_times_d_k_multiplications():
    Q, K = np.ones((5, 3)), np.ones((5, 3))
    by_hand = sum(1 for i in range(5) for j in range(5) for _ in range(3))  # one product per term
    assert score_multiplications(5, 3) == by_hand == Q.shape[0] * K.shape[0] * Q.shape[1]
    assert score_multiplications(1000, 64) == 64_000_000


def test_dividing_by_root_d_k_divides_the_variance_by_d_k():
    scores = np.array([[0.0, 6, 3], [8, -4, 6], [4, 4, 6]])
    before, after = score_variances(scores, 2)
    assert before == pytest.approx(np.mean((scores - scores.mean()) ** 2)) == pytest.approx(12.0)
    assert after == pytest.approx(np.var(scores / np.sqrt(2))) == pytest.approx(6.0)
    masked = np.array([[1.0, -np.inf], [3.0, 5.0]])
    assert score_variances(masked, 4) == pytest.approx((np.var([1.0, 3.0, 5.0]), np.var([1.0, 3.0, 5.0]) / 4))
