"""The learned section's model (attn_math.tiny_transformer, attn_math.learned): the forward pass against a
plain loop over heads written here, the gradients against central finite differences on every parameter array,
the tasks' sequences, determinism, and the trained default: a previous-token head in layer 1, an induction head in
layer 2 and a repeated half far below the first half, none of which the untrained checkpoint has."""

import math

import numpy as np
import pytest

from attn_math import learned
from attn_math.induction_task import repeated_sequences, training_sequences
from attn_math.tiny_transformer import (LearnedShape, attention_patterns, forward, half_losses, initial_parameters,
                                        loss_and_gradients)
from learned_training import default_training

TINY = LearnedShape(vocabulary=7, half=3, d_model=4, heads=2)


@pytest.fixture(scope="module")
def training():
    return default_training()


def plain_forward(params, tokens):
    """Logits and patterns of one sequence, one head at a time, as the module docstring writes them."""
    T = len(tokens)
    X = params["W_E"][tokens] + params["W_pos"][:T]
    layers, heads = params["W_Q"].shape[:2]
    patterns = np.zeros((layers, heads, T, T))
    for layer in range(layers):
        added = np.zeros_like(X)
        for head in range(heads):
            Q, K, V = (X @ params[name][layer, head] for name in ("W_Q", "W_K", "W_V"))
            for i in range(T):
                scores = np.array([Q[i] @ K[j] / math.sqrt(Q.shape[1]) for j in range(i + 1)])
                weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
                patterns[layer, head, i, :i + 1] = weights
                added[i] += (weights @ V[:i + 1]) @ params["W_O"][layer, head]
        X = X + added
    return X @ params["W_U"], patterns


def cross_entropy(logits, target):
    return math.log(np.exp(logits - logits.max()).sum()) + logits.max() - logits[target]


def test_the_forward_pass_is_the_loop_over_heads():
    rng = np.random.default_rng(1)
    params = initial_parameters(rng, TINY)
    tokens = repeated_sequences(rng, 3, TINY.vocabulary, TINY.half)
    result = forward(params, tokens)
    for b, sequence in enumerate(tokens):
        logits, patterns = plain_forward(params, sequence)
        assert np.allclose(result.logits[b], logits, atol=1e-12)
        assert np.allclose(result.patterns[:, b], patterns, atol=1e-12)
    assert np.allclose(result.patterns.sum(axis=-1), 1.0)
    assert np.all(np.triu(result.patterns, k=1) == 0.0)
    assert np.array_equal(attention_patterns(params, tokens[1]), result.patterns[:, 1])


def test_half_losses_are_the_cross_entropies_of_each_half_of_the_targets():
    rng = np.random.default_rng(2)
    params = initial_parameters(rng, TINY)
    tokens = repeated_sequences(rng, 4, TINY.vocabulary, TINY.half)
    half = TINY.half
    first, repeated = [], []
    for sequence in tokens:
        logits, _ = plain_forward(params, sequence)
        first += [cross_entropy(logits[t - 1], sequence[t]) for t in range(1, half)]
        repeated += [cross_entropy(logits[t - 1], sequence[t]) for t in range(half + 1, 2 * half)]
    assert half_losses(params, tokens) == pytest.approx((np.mean(first), np.mean(repeated)), abs=1e-12)
    loss, _ = loss_and_gradients(params, tokens)
    every = [cross_entropy(plain_forward(params, s)[0][t - 1], s[t]) for s in tokens for t in range(1, 2 * half)]
    assert loss == pytest.approx(np.mean(every), abs=1e-12)


def test_every_gradient_matches_central_finite_differences():
    rng = np.random.default_rng(3)
    params = initial_parameters(rng, TINY)
    tokens = training_sequences(rng, 3, TINY.vocabulary, TINY.half)  # the training's length: every W_pos row
    _, grads = loss_and_gradients(params, tokens)
    assert set(grads) == set(params)
    h = 1e-6
    for name, value in params.items():
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            shifted = {key: array.copy() for key, array in params.items()}
            shifted[name][index] += h
            up = loss_and_gradients(shifted, tokens)[0]
            shifted[name][index] -= 2 * h
            numeric[index] = (up - loss_and_gradients(shifted, tokens)[0]) / (2 * h)
        assert grads[name].shape == value.shape
        assert np.allclose(grads[name], numeric, atol=1e-8, rtol=1e-6), name
        assert np.abs(numeric).max() > 1e-4, name  # each parameter does change the loss


def test_repeated_sequences_repeat_a_half_of_distinct_tokens():
    tokens = repeated_sequences(np.random.default_rng(4), 50, 12, 5)
    assert tokens.shape == (50, 10) and tokens.min() >= 0 and tokens.max() < 12
    assert np.array_equal(tokens[:, :5], tokens[:, 5:])
    assert all(len(set(row)) == 5 for row in tokens[:, :5].tolist())


def test_training_sequences_repeat_a_period_from_a_random_start():
    half = 6
    tokens = training_sequences(np.random.default_rng(5), 400, 20, half)
    assert tokens.shape == (400, 3 * half)
    found = set()
    for row in tokens.tolist():
        # the shortest period p that the row keeps from some position on, and the start m of its first copy
        fits = [(p, m) for p in range(3, 2 * half + 1) for m in range(0, 2 * half - p + 1)
                if all(row[j] == row[j - p] for j in range(m + p, 3 * half))
                and len(set(row[:m + p])) == m + p]
        assert fits, row
        found.add(min(fits))
    assert {p for p, _ in found} == set(range(3, 2 * half + 1))  # every period from half/2 to 2 half
    assert {m for _, m in found} == set(range(0, 2 * half - 3 + 1))  # and every start


def test_the_same_seed_gives_the_same_arrays_bit_for_bit():
    arguments = dict(seed=7, steps=120, vocabulary=10, sequence_length=8, heads=2)
    first, second = learned.train(**arguments).to_arrays(), learned.train(**arguments).to_arrays()
    assert first.keys() == second.keys()
    for name in first:
        assert first[name].tobytes() == second[name].tobytes(), name
    other = learned.train(**{**arguments, "seed": 8}).to_arrays()
    assert not np.array_equal(first["checkpoint_W_E"], other["checkpoint_W_E"])


def test_a_training_survives_its_arrays(training):
    arrays = training.to_arrays()
    assert all(array.dtype != object for array in arrays.values())
    again = learned.Training.from_arrays(arrays)
    assert np.array_equal(again.patterns(3), training.patterns(3))
    with pytest.raises(ValueError, match="steps"):
        learned.Training.from_arrays({**arrays, "steps": arrays["steps"][:-1]})


def test_the_checkpoints_span_the_run(training):
    steps = training.steps
    assert steps[0] == 0 and steps[-1] == learned.DEFAULTS["steps"] == len(training.losses)
    assert 30 <= len(steps) <= 60 and np.all(np.diff(steps) > 0)
    assert training.patterns(0).shape == (2, training.shape.heads, 2 * training.shape.half, 2 * training.shape.half)


def test_the_trained_model_has_a_previous_token_head_and_an_induction_head(training):
    assert training.previous_token_scores[-1].max() >= 0.8
    assert training.induction_scores[-1].max() >= 0.6
    assert learned.previous_token_head(training) == np.argmax(training.previous_token_scores[-1])
    assert learned.induction_head(training) == np.argmax(training.induction_scores[-1])


def test_the_untrained_model_has_neither(training):
    assert training.steps[0] == 0
    assert training.previous_token_scores[0].max() < 0.4
    assert training.induction_scores[0].max() < 0.3


def test_the_repeated_half_is_predicted_and_the_first_half_cannot_be(training):
    vocabulary, half = training.shape.vocabulary, training.shape.half
    # the first half's tokens are drawn without replacement: no predictor beats the entropy of a uniform draw
    # among the tokens not seen yet, and the trained one stays near a uniform guess over the whole vocabulary
    entropy = np.mean([math.log(vocabulary - t) for t in range(1, half)])
    first, repeated = training.first_half_losses[-1], training.repeated_half_losses[-1]
    assert entropy - 0.1 < first < math.log(vocabulary) + 0.4
    assert repeated < 0.1 * first
    untrained_first, untrained_repeated = training.first_half_losses[0], training.repeated_half_losses[0]
    assert abs(untrained_repeated - untrained_first) < 0.5 and untrained_repeated > math.log(vocabulary) - 0.5
