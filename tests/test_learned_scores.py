"""The head scores (attn_math.head_scores) on attention patterns built by hand, and on the default training's
checkpoints recomputed here position by position; the drop and its moments on the trained curve."""

import numpy as np
import pytest

from attn_math import learned
from attn_math.head_scores import induction_score, previous_token_score
from attn_math.induction_task import previous_occurrence, repeated_sequences
from attn_math.tiny_transformer import forward
from learned_training import default_training

TOKENS = np.array([5, 2, 7, 1, 5, 2, 7, 1])  # half = 4, repeated
T = len(TOKENS)


def shifted_identity(T: int) -> np.ndarray:
    """Each position attends only to the one before it (position 0 to itself)."""
    pattern = np.eye(T, k=-1)
    pattern[0, 0] = 1.0
    return pattern


def induction_pattern(tokens: np.ndarray) -> np.ndarray:
    """Each position whose token occurred before attends to the token after that occurrence; others to themselves."""
    pattern = np.eye(len(tokens))
    for t in range(len(tokens)):
        earlier = [s for s in range(t) if tokens[s] == tokens[t]]
        if earlier:
            pattern[t] = 0.0
            pattern[t, earlier[-1] + 1] = 1.0
    return pattern


def uniform_causal(T: int) -> np.ndarray:
    """Row i spreads evenly over keys 0..i."""
    return np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]


@pytest.fixture(scope="module")
def training():
    return default_training()


def test_a_shifted_identity_is_a_perfect_previous_token_head_and_no_induction_head():
    patterns = np.stack([shifted_identity(T), np.eye(T)])  # (heads, T, T)
    assert previous_token_score(patterns) == pytest.approx([1.0, 0.0])
    # the token after the previous occurrence (s + 1 = t - 3) is never the previous position (t - 1) here
    assert induction_score(patterns, TOKENS) == pytest.approx([0.0, 0.0])


def test_an_induction_pattern_scores_one_and_uniform_attention_its_mean_weight():
    patterns = np.stack([induction_pattern(TOKENS), uniform_causal(T)])
    assert induction_score(patterns, TOKENS) == pytest.approx([1.0, np.mean([1 / (t + 1) for t in range(4, 8)])])
    assert previous_token_score(patterns)[1] == pytest.approx(np.mean([1 / (i + 1) for i in range(1, T)]))


def test_scores_average_over_sequences_and_only_over_repeated_tokens():
    other = np.array([3, 4, 3, 6, 0, 9, 8, 6])  # 3 repeats at 2 (after 0), 6 at 7 (after 3)
    half_pattern = induction_pattern(other) * 0.5 + np.eye(T) * 0.5
    patterns = np.stack([induction_pattern(TOKENS)[None], half_pattern[None]])  # (2 sequences, 1 head, T, T)
    # 4 repeated queries with weight 1, then 2 with weight 0.5: the mean is over the 6 queries
    assert induction_score(patterns, np.stack([TOKENS, other])) == pytest.approx([(4 + 2 * 0.5) / 6])


def test_previous_occurrence_is_the_last_earlier_position_of_the_same_token():
    tokens = np.array([[4, 1, 4, 4, 2, 1], [0, 1, 2, 3, 4, 5]])
    assert previous_occurrence(tokens).tolist() == [[-1, -1, 0, 2, -1, 1], [-1] * 6]


def test_scores_refuse_patterns_and_tokens_that_do_not_match():
    with pytest.raises(ValueError, match="patterns"):
        previous_token_score(np.ones((3, 3)))
    with pytest.raises(ValueError, match="tokens"):
        induction_score(np.ones((1, 4, 4)), np.arange(5))
    with pytest.raises(ValueError, match="nothing to induce"):
        induction_score(np.ones((1, 4, 4)), np.arange(4))


def test_the_scores_recorded_at_every_checkpoint_are_the_patterns_read_position_by_position(training):
    evaluation, half = training.evaluation, training.shape.half
    for index in range(0, len(training.steps), 7):
        patterns = forward(training.checkpoints[index], evaluation).patterns  # (L, E, H, T, T)
        previous = [np.mean([patterns[0, b, h, i, i - 1] for b in range(len(evaluation)) for i in range(1, 2 * half)])
                    for h in range(training.shape.heads)]
        induction = [np.mean([patterns[1, b, h, t, t - half + 1] for b in range(len(evaluation))
                              for t in range(half, 2 * half)]) for h in range(training.shape.heads)]
        assert training.previous_token_scores[index] == pytest.approx(previous, abs=1e-12)
        assert training.induction_scores[index] == pytest.approx(induction, abs=1e-12)


def test_the_evaluation_batch_and_example_are_repeated_sequences(training):
    half = training.shape.half
    evaluation = training.evaluation
    assert np.array_equal(evaluation[:, :half], evaluation[:, half:])
    assert all(len(set(row[:half])) == half for row in evaluation.tolist())
    assert np.array_equal(training.example, evaluation[0])
    again = repeated_sequences(np.random.default_rng([learned.DEFAULTS["seed"], 2]), len(evaluation),
                               training.shape.vocabulary, half)
    assert np.array_equal(again, evaluation)


def test_the_drop_falls_between_the_moments_where_the_heads_are_not_yet_and_already_formed(training):
    before, during, after = learned.moments(training)
    assert before < during < after
    drop = learned.drop_step(training)
    assert training.steps[before] <= drop <= training.steps[after]
    head = learned.induction_head(training)
    assert training.induction_scores[before, head] < 0.3 < 0.6 < training.induction_scores[after, head]
    gains = training.first_half_losses - training.repeated_half_losses
    assert gains[before] < 0.1 * gains.max() and after == len(training.steps) - 1  # after: the trained model
    formed = training.steps[np.argmax(gains >= 0.9 * gains.max())]
    assert drop <= formed
    # the loss curve, in windows of a hundredth of the run, falls faster around the drop than anywhere after the gain
    # reached nine tenths of its largest
    width = len(training.losses) // 100
    means = np.convolve(training.losses, np.ones(width) / width, mode="valid")
    falls = means[width:] - means[:-width]
    assert falls[drop - width] <= falls[formed:].min()
