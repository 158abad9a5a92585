"""attn_math.lab against a literal, plain-Python re-implementation of the AI Visual Lab."""

import math
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_math import heads
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
    lab_sentence_name,
    lab_weights,
    park_miller,
)
from attn_math.sharp import (FEATURE_NAMES, article_and_noun, preset_attention, preset_weights, sharp_attention,
                             sharp_features, sharp_weights, word_roles)
from lesson.locale import languages, load_locale

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


# The "sharp" preset: designed weights on named features ------------------------------------------
GATO_ROLES = ("det", "sust", "pron", "verbo", "otra", "det", "sust")  # el gato se sienta en la mesa


def sharp_score_by_hand(roles, i, j):
    """q_i . k_j from the module docstring's closed form: -(window centre - j)^2 + centre^2 + 2 per det-noun pair."""
    shift = {"det": 1, "sust": -1}.get(roles[i], 0)
    centre = i + shift
    bonus = 2 * ((roles[i], roles[j]) in (("det", "sust"), ("sust", "det")))
    return -(centre - j) ** 2 + centre ** 2 + bonus


def softmax_by_hand(row):
    peak = max(row)
    exponentials = [math.exp(x - peak) for x in row]
    return [e / sum(exponentials) for e in exponentials]


def test_sharp_features_are_roles_position_and_one():
    names = ("det", "sust", "verbo", "pron", "otra")
    expected = [[float(role == name) for name in names] + [i / 10, (i / 10) ** 2, 1.0]
                for i, role in enumerate(GATO_ROLES)]
    np.testing.assert_allclose(sharp_features(LAB_SENTENCES["gato"].split()), expected)


def test_sharp_scores_and_weights_follow_the_closed_form():
    roles, n = GATO_ROLES, len(GATO_ROLES)
    for temperature in (0.2, 1.0, 3.0):
        run = sharp_attention(LAB_SENTENCES["gato"], temperature)
        scores = [[sharp_score_by_hand(roles, i, j) for j in range(n)] for i in range(n)]
        np.testing.assert_allclose(run.steps.scores, scores, atol=1e-9)
        weights = [softmax_by_hand([s / (2 * temperature) for s in row]) for row in scores]  # sqrt(d_k) = 2
        np.testing.assert_allclose(run.weights, weights, atol=1e-12)


def test_sharp_articles_attend_to_their_noun_and_the_query_row_is_peaked():
    run = sharp_attention(LAB_SENTENCES["gato"], 1.0)
    assert run.weights[0].argmax() == 1 and run.weights[5].argmax() == 6  # el -> gato, la -> mesa
    assert run.max_weights[1] >= 0.5  # "gato", the default query, at T = 1
    lab = lab_attention(LAB_SENTENCES["gato"], 1.0)
    assert lab.max_weights[1] < 0.2 < 0.5  # the lab's seeded weights: almost uniform over 7 tokens
    red = sharp_attention(LAB_SENTENCES["red"], 1.0)
    assert red.weights[0].argmax() == 1  # la -> red


def test_sharp_weights_are_short_numbers():
    weights = sharp_weights()
    for matrix in (weights.W_Q, weights.W_K, weights.W_V):
        assert matrix.shape[1] == LAB_D
        np.testing.assert_array_equal(matrix, np.round(matrix, 1))
        assert np.abs(matrix).max() <= 20


@pytest.mark.parametrize("sentence", [*LAB_SENTENCES.values(), "ella lo vio y los perros ladraron a la luna llena"])
def test_roles_read_word_by_word_equal_heads_reading_the_whole_sentence(sentence):
    tokens = sentence.split()
    whole = heads.token_features(tokens)[:, [heads.DETERMINER, heads.NOUN, heads.VERB, heads.PRONOUN]]
    np.testing.assert_array_equal(word_roles(tokens)[:, :4], whole)
    np.testing.assert_array_equal(word_roles(tokens).sum(axis=1), 1.0)


def test_sharp_reads_the_longest_sentence():
    run = sharp_attention(" ".join(["la", "mesa"] * (MAX_TOKENS // 2)), 1.0)
    partners = np.arange(MAX_TOKENS) ^ 1  # 0 <-> 1, 2 <-> 3, ...: each article with its noun
    np.testing.assert_array_equal(run.weights.argmax(axis=1), partners)


def test_presets_name_their_attention():
    lab = preset_attention("lab", LAB_SENTENCES["gato"], 0.5, True)
    np.testing.assert_array_equal(lab.weights, lab_attention(LAB_SENTENCES["gato"], 0.5, True).weights)
    np.testing.assert_array_equal(preset_weights("sharp").W_Q, sharp_weights().W_Q)
    with pytest.raises(ValueError, match="preset"):
        preset_attention("flat", LAB_SENTENCES["gato"])


def test_the_labs_sentences_are_named():
    assert {name: lab_sentence_name(text) for name, text in LAB_SENTENCES.items()} == {
        "gato": "gato", "red": "red", "atencion": "atencion"}
    assert lab_sentence_name("el perro duerme") is None


@pytest.mark.parametrize("sentence, pair", [(LAB_SENTENCES["gato"], (0, 1)), (LAB_SENTENCES["red"], (0, 1)),
                                            (LAB_SENTENCES["atencion"], None), ("ella lo vio y la luna", (4, 5))])
def test_exercise_one_finds_the_first_article_before_a_noun(sentence, pair):
    assert article_and_noun(sentence) == pair


@pytest.mark.parametrize("lang", languages())
def test_every_locale_names_each_designed_feature(lang):
    """The designed embedding's columns, one name each in every language (the pipeline writes them by its bars)."""
    names = load_locale(lang)["pipeline"]["labels"]["features_sharp"]
    assert len(names) == len(FEATURE_NAMES) == sharp_features(("el", "gato"), "es").shape[1]
