"""attn_math.lab against a literal, plain-Python re-implementation of the AI Visual Lab."""

import math
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_math.attention import self_attention
from attn_math.lab import (
    LAB_D,
    LAB_SENTENCES,
    MAX_TOKENS,
    LabWeights,
    lab_attention,
    lab_embedding,
    lab_hash,
    lab_positional,
    lab_tokens,
    lab_weights,
    park_miller,
)

MODULUS = 2147483647


def literal_weights():
    seed = 42

    def random():
        nonlocal seed
        seed = seed * 16807 % MODULUS
        return (seed - 1) / 2147483646

    return [[[(random() - 0.5) * math.sqrt(2 / 8) for _ in range(8)] for _ in range(8)] for _ in range(3)]


def utf16_code_units(word):
    units = []
    for character in word:
        code = ord(character)
        if code > 0xFFFF:
            code -= 0x10000
            units += [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]
        else:
            units.append(code)
    return units


def literal_hash(word):
    h = 0
    for unit in utf16_code_units(word):
        h = (h * 31 + unit) & 0xFFFF
    return h


def literal_embedding(word, pos):
    h = literal_hash(word)
    x = [0.8 * math.sin(0.127 * h + 2.3 * d) for d in range(8)]
    for d in range(8):
        if d % 2 == 0:
            x[d] += 0.3 * math.sin(pos / 100 ** (d / 8))
        else:
            x[d] += 0.3 * math.cos(pos / 100 ** ((d - 1) / 8))
    return x


def literal_lab(sentence, temperature, causal):
    W_Q, W_K, W_V = literal_weights()
    tokens = unicodedata.normalize("NFC", sentence).split()
    xs = [literal_embedding(word, pos) for pos, word in enumerate(tokens)]

    def project(W, x):
        return [sum(W[i][j] * x[j] for j in range(8)) for i in range(8)]

    qs, ks, vs = ([project(W, x) for x in xs] for W in (W_Q, W_K, W_V))
    n = len(tokens)
    weights, outputs, entropies = [], [], []
    for i in range(n):
        row = []
        for j in range(n):
            score = sum(qs[i][d] * ks[j][d] for d in range(8)) / (math.sqrt(8) * temperature)
            row.append(-1e9 if causal and j > i else score)
        peak = max(row)
        exponentials = [math.exp(score - peak) for score in row]
        total = sum(exponentials)
        alpha = [e / total for e in exponentials]
        weights.append(alpha)
        outputs.append([sum(alpha[j] * vs[j][d] for j in range(n)) for d in range(8)])
        entropies.append(-sum(a * math.log2(a) for a in alpha if a > 0))
    return {"tokens": tokens, "X": xs, "Q": qs, "K": ks, "V": vs, "weights": weights, "output": outputs,
            "entropies": entropies, "max_weights": [max(row) for row in weights]}


def test_park_miller_from_seed_42_by_hand():
    assert 42 * 16807 == 705894
    second = 705894 * 16807 % MODULUS
    third = second * 16807 % MODULUS
    assert park_miller(42, 3).tolist() == [705894, second, third]


def test_park_miller_minimal_standard_check_value():
    # Park & Miller (1988): from seed 1 the 10000th state is 1043618065.
    assert park_miller(1, 10000)[-1] == 1043618065


def test_weights_are_one_park_miller_stream_filled_row_by_row():
    weights = lab_weights()
    for W, expected in zip((weights.W_Q, weights.W_K, weights.W_V), literal_weights()):
        assert W.shape == (LAB_D, LAB_D)
        np.testing.assert_array_equal(W, expected)
        assert not W.flags.writeable
    first = (705894 - 1) / 2147483646
    assert weights.W_Q[0, 0] == (first - 0.5) * 0.5


@pytest.mark.parametrize("key", sorted(LAB_SENTENCES))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("temperature", [0.2, 1.0, 3.0])
def test_lab_attention_matches_the_literal_lab(key, causal, temperature):
    result = lab_attention(LAB_SENTENCES[key], temperature=temperature, causal=causal)
    expected = literal_lab(LAB_SENTENCES[key], temperature, causal)
    assert list(result.tokens) == expected["tokens"]
    for name in ("X", "Q", "K", "V"):
        np.testing.assert_allclose(getattr(result.steps, name), expected[name], rtol=0, atol=1e-12)
    for name in ("weights", "output", "entropies", "max_weights"):
        np.testing.assert_allclose(getattr(result, name), expected[name], rtol=0, atol=1e-12)


@pytest.mark.parametrize("key", sorted(LAB_SENTENCES))
def test_causal_mask_zeroes_the_future_exactly(key):
    result = lab_attention(LAB_SENTENCES[key], temperature=0.2, causal=True)
    n = len(result.tokens)
    assert np.all(result.weights[np.triu_indices(n, k=1)] == 0.0)
    assert result.weights[0].tolist() == [1.0] + [0.0] * (n - 1)
    assert result.entropies[0] == 0.0 and result.max_weights[0] == 1.0


@given(temperature=st.floats(0.1, 5.0), causal=st.booleans(), key=st.sampled_from(sorted(LAB_SENTENCES)))
@settings(max_examples=40, deadline=None)
def test_rows_are_distributions_for_any_slider_temperature(temperature, causal, key):
    result = lab_attention(LAB_SENTENCES[key], temperature=temperature, causal=causal)
    np.testing.assert_allclose(result.weights.sum(axis=1), 1.0, atol=1e-12)
    assert np.all((0 <= result.entropies) & (result.entropies <= np.log2(len(result.tokens)) + 1e-12))
    np.testing.assert_array_equal(result.max_weights, result.weights.max(axis=1))


def test_lower_temperature_concentrates_attention():
    sentence = LAB_SENTENCES["gato"]
    entropies = [lab_attention(sentence, temperature=t).entropies.mean() for t in (0.2, 1.0, 3.0)]
    assert entropies == sorted(entropies)


def test_sentences_token_counts():
    # The guide says 7 tokens for "atencion es todo lo que necesitas"; split on whitespace it has 6.
    assert {key: len(lab_tokens(sentence)) for key, sentence in LAB_SENTENCES.items()} == \
        {"gato": 7, "red": 5, "atencion": 6}
    assert all(key.isascii() for key in LAB_SENTENCES)


def test_hash_of_an_accented_word_uses_one_code_unit_per_bmp_character():
    h = 0
    for code in (ord("r"), 0x00E1, ord("p"), ord("i"), ord("d"), ord("o")):
        h = (h * 31 + code) & 0xFFFF
    assert lab_hash("rápido") == h == literal_hash("rápido")
    assert lab_hash("ra\u0301pido") == h  # decomposed input is normalised to NFC first


def test_hash_of_an_emoji_uses_its_two_surrogates():
    assert utf16_code_units("🙂") == [0xD83D, 0xDE42]
    expected = ((0xD83D * 31) + 0xDE42) & 0xFFFF
    assert lab_hash("🙂") == expected
    assert lab_hash("gato🙂") == literal_hash("gato🙂")


@given(st.text(min_size=1, max_size=20).filter(lambda word: not any(c.isspace() for c in word)))
@settings(max_examples=200, deadline=None)
def test_hash_matches_the_surrogate_splitting_loop(word):
    assert lab_hash(word) == literal_hash(unicodedata.normalize("NFC", word))


@given(word=st.sampled_from(["el", "gato", "neuronal", "rápido", "🙂"]), position=st.integers(0, 40))
@settings(max_examples=40, deadline=None)
def test_embedding_is_word_vector_plus_positional_term(word, position):
    np.testing.assert_allclose(lab_embedding(word, position), literal_embedding(word, position), atol=1e-12)
    np.testing.assert_allclose(lab_embedding(word, position) - lab_embedding(word), lab_positional(position),
                               atol=1e-15)


def test_positional_term_at_zero():
    np.testing.assert_array_equal(lab_positional(0), [0.0, 0.3] * 4)
    np.testing.assert_allclose(lab_embedding("el"), [0.8 * math.sin(0.127 * literal_hash("el") + 2.3 * d)
                                                     for d in range(8)], atol=1e-15)


def test_custom_weights_replace_the_seeded_ones():
    rng = np.random.default_rng(5)
    custom = LabWeights(W_Q=rng.normal(size=(4, 8)), W_K=rng.normal(size=(4, 8)), W_V=rng.normal(size=(3, 8)))
    result = lab_attention("la red neuronal", weights=custom)
    X = np.array([lab_embedding(word, position) for position, word in enumerate(("la", "red", "neuronal"))])
    expected = self_attention(X, custom.W_Q.T, custom.W_K.T, custom.W_V.T)
    assert result.steps.d_k == 4 and result.output.shape == (3, 3)
    np.testing.assert_array_equal(result.output, expected.output)


@pytest.mark.parametrize("kwargs, name", [
    ({"W_Q": np.zeros((8, 7)), "W_K": np.zeros((8, 8)), "W_V": np.zeros((8, 8))}, "W_Q"),
    ({"W_Q": np.zeros((8, 8)), "W_K": np.zeros((4, 8)), "W_V": np.zeros((8, 8))}, "W_K"),
    ({"W_Q": np.zeros((8, 8)), "W_K": np.zeros((8, 8)), "W_V": np.zeros((8, 4))}, "W_V"),
])
def test_lab_weights_check_shapes(kwargs, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        LabWeights(**kwargs)


@pytest.mark.parametrize("temperature", [0.1, 5.0])
def test_slider_ends_are_allowed(temperature):
    assert lab_attention("el gato", temperature=temperature).steps.temperature == temperature


@pytest.mark.parametrize("temperature", [0.0, 0.099, 5.01, -1.0, float("nan"), float("inf"), "1", None, True])
def test_temperature_outside_the_slider_raises(temperature):
    with pytest.raises(ValueError, match=r"^temperature:.*\[0\.1, 5\.0\]"):
        lab_attention("el gato", temperature=temperature)


@pytest.mark.parametrize("sentence", ["", "   ", "\n\t", None])
def test_empty_sentence_raises(sentence):
    with pytest.raises(ValueError, match="^sentence:"):
        lab_attention(sentence)


def test_token_limit():
    assert len(lab_attention(" ".join(["gato"] * MAX_TOKENS)).tokens) == MAX_TOKENS
    with pytest.raises(ValueError, match=f"^sentence:.*{MAX_TOKENS}"):
        lab_attention(" ".join(["gato"] * (MAX_TOKENS + 1)))


@pytest.mark.parametrize("call, name", [
    (lambda: lab_attention("el gato", weights=np.eye(8)), "weights"),
    (lambda: lab_embedding(""), "word"),
    (lambda: lab_embedding("el gato"), "word"),
    (lambda: lab_positional(-1), "position"),
    (lambda: lab_positional(512), "position"),
    (lambda: park_miller(0, 3), "seed"),
    (lambda: park_miller(MODULUS, 3), "seed"),
    (lambda: park_miller(42, 0), "count"),
])
def test_other_bad_arguments_raise_naming_them(call, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        call()
