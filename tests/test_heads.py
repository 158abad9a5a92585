"""attn_math.heads: plain-numpy recomputation, and the three relations read off a hand-parsed sentence."""

import math
import unicodedata

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from attn_math.heads import (DEFAULT_SENTENCE, FEATURE_NAMES, HEAD_NAMES, MAX_TOKENS,
                             multi_head_attention, token_features, tokenize)

PREVIOUS, SUBJECT_VERB, PRONOUN = range(3)

# The default sentence, parsed by hand:
#   0 el  1 perro  2 de  3 María  4 ladró  5 y  6 ella  7 lo  8 calmó
# "ladró" has subject "perro" (not the nearer "María", inside "de María"); "calmó" has subject
# "ella" (not the object "lo"); "ella" is María, and "lo" is "perro" (masculine), not the
# nearer noun "María".
DEFAULT_WORDS = ["el", "perro", "de", "María", "ladró", "y", "ella", "lo", "calmó"]
VERB_TO_SUBJECT = {4: 1, 8: 6}
SUBJECT_TO_VERB = {1: 4, 6: 8}
PRONOUN_TO_ANTECEDENT = {6: 3, 7: 1}

word = st.text(alphabet="abcdefghijklmnñopqrstuvwxyzáéíóúü,.", min_size=1, max_size=8)


def plain_softmax(scores):
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def argmax_rows(weights):
    return [int(j) for j in np.argmax(weights, axis=1)]


@pytest.fixture(scope="module")
def default():
    return multi_head_attention()


def test_default_sentence_fits_a_row_of_words_and_matches_the_hand_parse(default):
    assert DEFAULT_SENTENCE.split() == DEFAULT_WORDS
    assert default.tokens == tuple(DEFAULT_WORDS)
    assert len(default.tokens) <= 9


@pytest.mark.parametrize("head", range(3))
def test_each_head_is_softmax_of_scaled_q_k_from_the_exposed_matrices(default, head):
    X, W_Q, W_K, W_V = default.X, default.W_Q[head], default.W_K[head], default.W_V[head]
    scores = (X @ W_Q) @ (X @ W_K).T / math.sqrt(default.d_head)
    weights = plain_softmax(scores)
    np.testing.assert_allclose(default.heads[head].weights, weights, atol=1e-12)
    np.testing.assert_allclose(default.heads[head].output, weights @ (X @ W_V), atol=1e-9)
    np.testing.assert_array_equal(default.heads[head].X, X)


def test_rows_of_every_head_and_of_the_sum_add_to_one(default):
    for head in default.heads:
        np.testing.assert_allclose(head.weights.sum(axis=1), 1.0)
        assert np.all(head.weights >= 0)
    np.testing.assert_allclose(default.mean_weights.sum(axis=1), 1.0)


def test_previous_token_head_puts_most_weight_on_the_token_before(default):
    weights = default.heads[PREVIOUS].weights
    for i in range(1, len(DEFAULT_WORDS)):
        assert np.argmax(weights[i]) == i - 1
        assert weights[i, i - 1] >= 0.6
    assert np.argmax(weights[0]) == 0  # nothing before the first token: it keeps itself


def test_subject_verb_head_links_each_verb_to_its_subject_and_each_subject_to_its_verb(default):
    rows = argmax_rows(default.heads[SUBJECT_VERB].weights)
    for query, attended in {**VERB_TO_SUBJECT, **SUBJECT_TO_VERB}.items():
        assert rows[query] == attended, DEFAULT_WORDS[query]
    others = [i for i in range(len(DEFAULT_WORDS)) if i not in VERB_TO_SUBJECT and i not in SUBJECT_TO_VERB]
    assert [rows[i] for i in others] == others  # nothing to look for: each token attends to itself


def test_pronoun_head_links_each_pronoun_to_the_agreeing_noun(default):
    rows = argmax_rows(default.heads[PRONOUN].weights)
    for pronoun, antecedent in PRONOUN_TO_ANTECEDENT.items():
        assert rows[pronoun] == antecedent, DEFAULT_WORDS[pronoun]
    others = [i for i in range(len(DEFAULT_WORDS)) if i not in PRONOUN_TO_ANTECEDENT]
    assert [rows[i] for i in others] == others


def test_concat_blocks_are_the_heads_outputs_and_output_goes_through_w_o(default):
    n = len(DEFAULT_WORDS)
    assert default.d_head * len(default.heads) == default.d_model == len(FEATURE_NAMES)
    assert default.concat.shape == (n, default.d_model)
    assert default.W_O.shape == (default.d_model, default.d_model)
    assert default.W_Q.shape == default.W_K.shape == default.W_V.shape == (3, default.d_model, default.d_head)
    for h, head in enumerate(default.heads):
        block = default.concat[:, h * default.d_head:(h + 1) * default.d_head]
        np.testing.assert_array_equal(block, head.output)
    np.testing.assert_allclose(default.output, default.concat @ default.W_O)


def test_mean_weights_are_the_mean_of_the_heads(default):
    total = default.heads[0].weights + default.heads[1].weights + default.heads[2].weights
    np.testing.assert_allclose(default.mean_weights, total / 3)


def test_head_names_and_results_are_read_only(default):
    assert default.head_names == HEAD_NAMES and len(HEAD_NAMES) == 3
    for array in (default.X, default.W_Q, default.W_O, default.concat, default.output,
                  default.mean_weights, default.heads[0].weights):
        with pytest.raises(ValueError):
            array[0, 0] = 1.0


def test_features_of_the_default_sentence_follow_the_hand_parse():
    X = token_features(DEFAULT_WORDS)
    column = {name: X[:, k] for k, name in enumerate(FEATURE_NAMES)}
    assert list(np.flatnonzero(column["verb"])) == [4, 8]
    assert list(np.flatnonzero(column["determiner"])) == [0]
    assert list(np.flatnonzero(column["noun"])) == [1, 3]
    assert list(np.flatnonzero(column["pronoun"])) == [6, 7]
    assert list(np.flatnonzero(column["subject"])) == [1, 6]
    # género: +1 femenino, -1 masculino; número: +1 plural, -1 singular
    assert (column["noun gender"][1], column["noun gender"][3]) == (-1, 1)
    assert (column["noun number"][1], column["noun number"][3]) == (-1, -1)
    assert list(column["pronoun gender"][6:8]) == [1, -1]
    assert list(column["pronoun number"][6:8]) == [-1, -1]
    np.testing.assert_array_equal(column["position"], np.arange(9))
    np.testing.assert_array_equal(column["position²"], np.arange(9) ** 2)
    np.testing.assert_array_equal(column["1"], np.ones(9))


def test_another_word_order_keeps_the_previous_token_pattern_and_finds_a_subject_after_the_verb():
    # 0 ayer  1 sonrió  2 la  3 niña  4 y  5 el  6 perro  7 ladró
    result = multi_head_attention("ayer sonrió la niña y el perro ladró")
    weights = result.heads[PREVIOUS].weights
    for i in range(1, 8):
        assert np.argmax(weights[i]) == i - 1 and weights[i, i - 1] >= 0.6
    rows = argmax_rows(result.heads[SUBJECT_VERB].weights)
    assert (rows[1], rows[7]) == (3, 6)


def test_custom_sentence_with_an_object_clitic_and_an_elided_subject():
    # 0 María  1 compró  2 un  3 libro  4 y  5 lo  6 leyó: "lo" is "libro"; María also reads it.
    result = multi_head_attention("María compró un libro y lo leyó")
    pronoun_rows = argmax_rows(result.heads[PRONOUN].weights)
    subject_rows = argmax_rows(result.heads[SUBJECT_VERB].weights)
    assert pronoun_rows[5] == 3
    assert (subject_rows[1], subject_rows[6]) == (0, 0)


def test_la_before_a_verb_is_a_pronoun_and_picks_the_nearest_agreeing_noun():
    # 0 María  1 vio  2 a  3 la  4 niña  5 y  6 la  7 saludó: the second "la" is "niña".
    result = multi_head_attention("María vio a la niña y la saludó")
    assert argmax_rows(result.heads[PRONOUN].weights)[6] == 4
    assert argmax_rows(result.heads[SUBJECT_VERB].weights)[7] == 0
    assert result.X[3, FEATURE_NAMES.index("determiner")] == 1
    assert result.X[6, FEATURE_NAMES.index("pronoun")] == 1


def test_pronoun_with_no_noun_to_refer_to_attends_to_itself():
    result = multi_head_attention("ella sonrió")
    assert argmax_rows(result.heads[PRONOUN].weights) == [0, 1]


def test_plural_agreement_picks_the_plural_noun():
    # 0 las  1 niñas  2 vieron  3 a  4 la  5 gata  6 y  7 ellas  8 rieron
    result = multi_head_attention("las niñas vieron a la gata y ellas rieron")
    rows = argmax_rows(result.heads[PRONOUN].weights)
    assert rows[7] == 1  # "gata" is nearer and feminine too, but singular


def test_punctuation_is_split_off_the_tokens_and_kept_in_the_sentence():
    plain = multi_head_attention("la niña vio al perro y ella sonrió")
    punctuated = multi_head_attention("La niña vio al perro, y ella sonrió.")
    assert punctuated.tokens == ("La", "niña", "vio", "al", "perro", "y", "ella", "sonrió")
    assert punctuated.sentence == "La niña vio al perro, y ella sonrió."
    np.testing.assert_array_equal(punctuated.X, plain.X)


def test_tokens_are_nfc_normalised():
    decomposed = "el perro de Mari\u0301a ladro\u0301 y ella lo calmo\u0301"
    assert decomposed != DEFAULT_SENTENCE
    result = multi_head_attention(decomposed)
    assert result.tokens == tuple(unicodedata.normalize("NFC", w) for w in DEFAULT_WORDS)
    np.testing.assert_array_equal(result.X, token_features(DEFAULT_WORDS))


@given(st.lists(word, min_size=1, max_size=MAX_TOKENS))
@settings(max_examples=60, deadline=None)
def test_any_sentence_gives_a_previous_token_head_and_stochastic_rows(words):
    assume(any(character.isalpha() for character in "".join(words)))  # a sentence of only punctuation is refused
    result = multi_head_attention(" ".join(words))
    n = len(result.tokens)
    assert result.tokens == tuple(word.strip(",.") for word in words if word.strip(",."))
    weights = result.heads[PREVIOUS].weights
    for i in range(1, n):
        assert np.argmax(weights[i]) == i - 1 and weights[i, i - 1] >= 0.6
    for head in result.heads:
        np.testing.assert_allclose(head.weights.sum(axis=1), 1.0)
    np.testing.assert_allclose(result.mean_weights.sum(axis=1), 1.0)
    assert result.output.shape == (n, result.d_model)


@pytest.mark.parametrize("sentence", ["", "   ", "\n\t"])
def test_empty_sentence_is_rejected(sentence):
    with pytest.raises(ValueError, match="sentence"):
        multi_head_attention(sentence)


def test_too_many_words_is_rejected_naming_the_limit():
    multi_head_attention(" ".join(["perro"] * MAX_TOKENS))
    with pytest.raises(ValueError, match=rf"sentence.*{MAX_TOKENS}"):
        multi_head_attention(" ".join(["perro"] * (MAX_TOKENS + 1)))


@pytest.mark.parametrize("sentence", [None, 42, ["el", "perro"]])
def test_sentence_that_is_not_a_string_is_rejected(sentence):
    with pytest.raises(ValueError, match="sentence"):
        tokenize(sentence)


@pytest.mark.parametrize("n_heads", [0, 1, 2, 4, -3, 3.0, True, "3", None])
def test_other_head_counts_are_rejected(n_heads):
    with pytest.raises(ValueError, match="n_heads"):
        multi_head_attention(DEFAULT_SENTENCE, n_heads=n_heads)


@pytest.mark.parametrize("tokens", ["el perro", [], ["el", 3]])
def test_token_features_rejects_what_is_not_a_list_of_words(tokens):
    with pytest.raises(ValueError, match="tokens"):
        token_features(tokens)


def test_relations_win_over_the_longest_distance_a_sentence_allows():
    # MAX_TOKENS words with the two ends related and adverbs ("muy": no role) in between.
    filler = ["muy"] * (MAX_TOKENS - 2)
    last = MAX_TOKENS - 1
    pronoun = multi_head_attention(" ".join(["María", *filler, "ella"]))
    assert argmax_rows(pronoun.heads[PRONOUN].weights)[last] == 0
    subject_before = multi_head_attention(" ".join(["María", *filler, "sonrió"]))
    assert argmax_rows(subject_before.heads[SUBJECT_VERB].weights)[last] == 0
    assert argmax_rows(subject_before.heads[SUBJECT_VERB].weights)[0] == last  # and the subject its verb
    subject_after = multi_head_attention(" ".join(["sonrió", *filler, "María"]))
    assert argmax_rows(subject_after.heads[SUBJECT_VERB].weights)[0] == last
    assert argmax_rows(subject_after.heads[SUBJECT_VERB].weights)[last] == 0
