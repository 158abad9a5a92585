"""attn_math.capital against a hand-written forward pass and the properties the lesson states."""

import math
import statistics

import numpy as np
import pytest

from attn_math import capital
from attn_math.capital import (BLANK, EMBEDDINGS, VOCAB, W_K, W_Q, W_V, W_out, b_out, capital_walkthrough,
                               country_identity)
from lesson.locale import languages, load_locale

GRID = np.linspace(-1.0, 1.0, 201)
PARIS, ROMA = VOCAB.index("paris"), VOCAB.index("rome")


def hand_forward(identity, normalize=True):
    """The eight steps with plain Python lists and math, from the module's exposed matrices only."""
    words = [EMBEDDINGS["the"], EMBEDDINGS["capital"], EMBEDDINGS["of"], None, EMBEDDINGS["is"]]
    rows = [list(w) if w is not None else [2.0, 0.0, identity] for w in words]
    pe = [[math.sin(p / 10000 ** (c / 3)) if c % 2 == 0 else math.cos(p / 10000 ** ((c - 1) / 3))
           for c in range(3)] for p in range(5)]
    X = [[rows[p][c] + pe[p][c] for c in range(3)] for p in range(5)]
    project = lambda x, W: [sum(x[a] * W[a][b] for a in range(3)) for b in range(3)]
    q = project(X[4], W_Q)
    keys = [project(x, W_K) for x in X]
    values = [project(x, W_V) for x in X]
    scaled = [sum(a * b for a, b in zip(q, k)) / math.sqrt(3) for k in keys]
    exponentials = [math.exp(s - max(scaled)) for s in scaled]
    weights = [e / sum(exponentials) for e in exponentials]
    context = [sum(w * v[c] for w, v in zip(weights, values)) for c in range(3)]
    residual = [context[c] + X[4][c] for c in range(3)]
    mean = statistics.fmean(residual)
    spread = statistics.pstdev(residual) if normalize else 1.0
    normalized = [(r - mean) / spread for r in residual]
    return {"pe": pe, "X": X, "weights": weights, "residual": residual, "normalized": normalized,
            "raw_logits": [sum(n * w for n, w in zip(normalized, column)) for column in W_out.T]}


def hand_probs(identity, normalize=True):
    """softmax(n(identity) W_out - n(0) W_out): the documented role of b_out, recomputed."""
    raw, blank = hand_forward(identity, normalize)["raw_logits"], hand_forward(0.0, normalize)["raw_logits"]
    exponentials = [math.exp(r - b) for r, b in zip(raw, blank)]
    return [e / sum(exponentials) for e in exponentials]


@pytest.mark.parametrize("identity", [-1.0, -0.9, -0.37, 0.0, 0.25, 0.9, 1.0])
def test_every_step_matches_the_hand_computation(identity):
    walk = capital_walkthrough(identity)
    hand = hand_forward(identity)
    np.testing.assert_allclose(walk.positional, hand["pe"], atol=1e-15)
    np.testing.assert_allclose(walk.X, hand["X"], atol=1e-14)
    np.testing.assert_allclose(walk.attention_row, hand["weights"], atol=1e-14)
    np.testing.assert_allclose(walk.residual, hand["residual"], atol=1e-13)
    np.testing.assert_allclose(walk.normalized, hand["normalized"], atol=1e-13)
    np.testing.assert_allclose(walk.probs, hand_probs(identity), atol=1e-13)


def test_intermediates_are_consistent_with_each_other():
    walk = capital_walkthrough(0.6)
    np.testing.assert_allclose(walk.Q, walk.X @ W_Q)
    np.testing.assert_allclose(walk.K, walk.X @ W_K)
    np.testing.assert_allclose(walk.V, walk.X @ W_V)
    np.testing.assert_allclose(walk.scores, walk.K @ walk.Q[-1])
    np.testing.assert_allclose(walk.scaled, walk.scores / math.sqrt(3))
    np.testing.assert_allclose(walk.context, walk.attention_row @ walk.V)
    np.testing.assert_allclose(walk.residual, walk.context + walk.X[-1])
    np.testing.assert_allclose(walk.logits, walk.normalized @ walk.W_out + walk.b_out)
    assert walk.W_out.shape == (3, len(VOCAB))  # row vectors, as Q = X W_Q: LN(r) (1, 3) times W_out (3, 8)
    assert walk.normalized.mean() == pytest.approx(0.0, abs=1e-15)
    assert walk.normalized.std() == pytest.approx(1.0)


def test_positional_encoding_column_two_is_the_slow_sine():
    pe = capital_walkthrough().positional
    np.testing.assert_allclose(pe[:, 2], np.sin(np.arange(5) / 10000 ** (2 / 3)))
    np.testing.assert_allclose(pe[:, :2], np.column_stack([np.sin(np.arange(5)), np.cos(np.arange(5))]))


@pytest.mark.parametrize("identity", GRID)
def test_rows_sum_to_one(identity):
    walk = capital_walkthrough(identity)
    assert walk.attention_row.sum() == pytest.approx(1.0)
    assert walk.probs.sum() == pytest.approx(1.0)


def test_attention_row_is_identical_for_every_identity():
    reference = capital_walkthrough(1.0)
    for identity in GRID:
        walk = capital_walkthrough(identity)
        for name in ("Q", "K", "scores", "scaled", "attention_row"):
            assert np.array_equal(getattr(walk, name), getattr(reference, name)), (name, identity)
    assert not np.array_equal(capital_walkthrough(-1.0).context, reference.context)


def test_the_last_token_attends_most_to_the_country():
    assert int(np.argmax(capital_walkthrough().attention_row)) == capital.COUNTRY_POSITION


def test_the_six_other_words_have_a_null_output_column_and_logit_exactly_zero():
    others = [i for i in range(8) if i not in (PARIS, ROMA)]
    assert np.all(W_out[:, others] == 0.0) and np.all(b_out[others] == 0.0)
    for identity in GRID:
        assert np.all(capital_walkthrough(identity).logits[others] == 0.0)


def test_at_identity_zero_paris_and_roma_tie_exactly():
    walk = capital_walkthrough(0.0)
    assert walk.probs[PARIS] == walk.probs[ROMA]
    assert walk.logits[PARIS] - walk.logits[ROMA] == 0.0
    assert walk.tokens[3] == BLANK


def test_full_identity_predicts_the_right_capital():
    paris, roma = capital_walkthrough(1.0), capital_walkthrough(-1.0)
    assert (paris.prediction, roma.prediction) == ("paris", "rome")
    assert paris.probability == paris.probs.max() == paris.probs[PARIS]
    assert roma.loss == pytest.approx(-math.log(roma.probs[ROMA]))


def test_the_asymmetry_between_the_two_countries():
    assert capital_walkthrough(-0.9).probs[ROMA] == pytest.approx(0.34, abs=0.005)
    assert capital_walkthrough(0.9).probs[PARIS] == pytest.approx(0.38, abs=0.005)


def test_the_asymmetry_comes_from_dividing_by_the_spread():
    centered_only_paris = hand_probs(0.9, normalize=False)[PARIS]
    centered_only_roma = hand_probs(-0.9, normalize=False)[ROMA]
    assert centered_only_paris == pytest.approx(centered_only_roma, abs=1e-12)
    blank, francia, italia = (statistics.pstdev(hand_forward(x)["residual"]) for x in (0.0, 0.9, -0.9))
    assert francia < blank < italia


def test_the_numbers_the_docstring_reads_aloud():
    residual = hand_forward(0.0)["residual"]
    np.testing.assert_allclose(residual, [1.18, -0.65, 0.01], atol=0.005)
    assert residual[2] < statistics.fmean(residual)
    assert statistics.pstdev(hand_forward(0.9)["residual"]) == pytest.approx(0.76, abs=0.005)
    assert statistics.pstdev(hand_forward(-0.9)["residual"]) == pytest.approx(0.83, abs=0.005)


def test_paris_grows_and_roma_shrinks_monotonically():
    probs = np.array([capital_walkthrough(identity).probs for identity in GRID])
    assert np.all(np.diff(probs[:, PARIS]) > 0)
    assert np.all(np.diff(probs[:, ROMA]) < 0)


def test_tokens_vocab_and_country_identity():
    assert capital_walkthrough(0.4).tokens == ("the", "capital", "of", "france", "is")
    assert capital_walkthrough(-0.4).tokens[3] == "italy"
    assert VOCAB[:2] == ("paris", "rome") and len(set(VOCAB)) == 8
    assert set(VOCAB[2:]) == {"the", "capital", "of", "is", "france", "italy"}
    assert (country_identity("france"), country_identity("italy")) == (1.0, -1.0)
    assert capital_walkthrough(country_identity("italy")).embeddings[3].tolist() == list(EMBEDDINGS["italy"])


@pytest.mark.parametrize("lang", languages())
def test_every_language_writes_every_word_of_the_model(lang):
    """The model names its words by role; a lecture shows each as its locale writes it, so every locale writes
    all of them (the Spanish one as the lesson does: «La capital de Francia es …»)."""
    words = load_locale(lang)["capital"]["words"]
    assert set(words) == {*VOCAB, BLANK}
    assert all(isinstance(text, str) and text.strip() for text in words.values())
    if lang == "es":
        assert [words[token] for token in capital_walkthrough(1.0).tokens] == ["La", "capital", "de", "Francia", "es"]
        assert (words["paris"], words["rome"], words["italy"]) == ("París", "Roma", "Italia")


@pytest.mark.parametrize("name", ["España", "Francia", "France"])
def test_country_identity_rejects_other_names(name):
    with pytest.raises(ValueError, match="name"):
        country_identity(name)


@pytest.mark.parametrize("bad", [2, -1.5, float("nan"), float("inf"), -float("inf"), "Francia", None, True])
def test_invalid_identity_raises(bad):
    with pytest.raises(ValueError, match=r"identity.*\[-1, 1\]"):
        capital_walkthrough(bad)


def test_arrays_are_read_only():
    walk = capital_walkthrough(0.3)
    arrays = [value for value in vars(walk).values() if isinstance(value, np.ndarray)]
    arrays += [W_Q, W_K, W_V, W_out, b_out, *EMBEDDINGS.values()]
    assert len(arrays) > 20
    for array in arrays:
        with pytest.raises(ValueError):
            array[0] = 1.0


def test_residual_mean_and_spread_are_what_the_layer_norm_uses():
    walk = capital_walkthrough(-0.9)
    r = [float(value) for value in walk.residual]
    mean = sum(r) / 3
    spread = (sum((value - mean) ** 2 for value in r) / 3) ** 0.5
    assert walk.residual_mean == pytest.approx(mean) and walk.residual_spread == pytest.approx(spread)
    assert [(value - mean) / spread for value in r] == pytest.approx(list(walk.normalized))
