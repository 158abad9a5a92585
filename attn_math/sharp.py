"""Designed weights for the pipeline: one head whose attention does something a reader can name.

The lab's seeded weights are random and untrained, so its attention is almost uniform (2.80 of a
possible 2.81 bits on "el gato se sienta en la mesa"). Here, as in ``attn_math.heads``, the inputs
are features with names and the weights are written by hand in short numbers.

X (n, 8), d = 8 like the lab, one row per word:

    0 determiner, 1 noun, 2 verb, 3 pronoun, 4 other          role one-hot (heads.word_roles, in
                                                                  the lexicon of the lecture's language)
    5 u = position / 10,  6 u²,  7 the constant 1

In the lab's layout (q = W_Q x, d_k = 4):

    q = (10 u + det - sust, 10, 2 det, 2 sust)        k = (20 u, -10 u², sust, det)

so q_i · k_j = -100 (c_i - u_j)² + 100 c_i² + 2 (det_i sust_j + sust_i det_j), with the centre
c_i = u_i + (det_i - sust_i) / 10. In positions: a window centred one word to the right of a
determiner, one word to the left of a noun, on the word itself for the rest, losing 1 per squared
step; a determiner gains 2 on every noun and a noun on every determiner. The 100 c_i² is the same
along a row and cancels in the softmax. An article attends to the noun after it, a noun to the
article before it. The values are the five role columns (d_v = 5): a token's output says which
roles it gathered. Illustrative, like heads: trained weights rarely read this cleanly.
"""

from __future__ import annotations

import numpy as np

from attn_math import heads
from attn_math.lab import (LAB_SENTENCES, LabAttention, LabWeights, attention_on, lab_attention, lab_tokens,
                           lab_weights)
from attn_math.lexicon import DEFAULT_LANGUAGE
from attn_math.validation import frozen

FEATURE_NAMES = ("determiner", "noun", "verb", "pronoun", "other", "position/10", "(position/10)²", "1")  # shown: the locale's
ROLES = (("det",), ("noun", "name"), ("verb",), ("subject pronoun", "object pronoun"))  # heads.word_roles, per column
POSITION_UNIT = 10  # u = position / 10 keeps u and u² near the one-hot features' size in a short sentence
LAB_LANGUAGE = "es"  # the AI Visual Lab's sentences are Spanish, whatever the lecture's language

SHARP_W_Q = ((1, -1, 0, 0, 0, 10, 0, 0),
             (0, 0, 0, 0, 0, 0, 0, 10),
             (2, 0, 0, 0, 0, 0, 0, 0),
             (0, 2, 0, 0, 0, 0, 0, 0))
SHARP_W_K = ((0, 0, 0, 0, 0, 20, 0, 0),
             (0, 0, 0, 0, 0, 0, -10, 0),
             (0, 1, 0, 0, 0, 0, 0, 0),
             (1, 0, 0, 0, 0, 0, 0, 0))
SHARP_W_V = tuple(tuple(float(i == j) for j in range(8)) for i in range(5))  # the role columns

PRESETS = ("lab", "sharp")


def sharp_weights() -> LabWeights:
    """The designed W_Q, W_K (4, 8) and W_V (5, 8), in the lab's column-vector layout."""
    return LabWeights(W_Q=np.array(SHARP_W_Q, dtype=float), W_K=np.array(SHARP_W_K, dtype=float),
                      W_V=np.array(SHARP_W_V, dtype=float))


def word_roles(tokens, lang: str = DEFAULT_LANGUAGE) -> np.ndarray:
    """(n, 5) one-hot determiner, noun, verb, pronoun, other, from heads.word_roles in ``lang``."""
    found = heads.word_roles(tuple(tokens), lang)
    roles = np.array([[float(role in kinds) for kinds in ROLES] for role in found]).reshape(len(found), len(ROLES))
    return np.hstack([roles, 1.0 - roles.sum(axis=1, keepdims=True)])


def roles_language(sentence: str, lang: str) -> str:
    """The lexicon a sentence's roles are read in: Spanish for the lab's own sentences, in any lecture."""
    return LAB_LANGUAGE if sentence in LAB_SENTENCES.values() else lang


def articles_and_nouns(sentence: str, lang: str = DEFAULT_LANGUAGE) -> list[tuple[int, int]]:
    """(i, i + 1) for every determiner of the sentence followed by a noun: «el → gato» and «la → mesa»."""
    roles = word_roles(lab_tokens(sentence), roles_language(sentence, lang))
    return [(i, i + 1) for i in range(len(roles) - 1) if roles[i, 0] and roles[i + 1, 1]]


def article_and_noun(sentence: str, lang: str = DEFAULT_LANGUAGE) -> tuple[int, int] | None:
    """The sentence's first determiner followed by a noun (the guide's exercise 1: does the article attend to its
    noun?), None when it has none."""
    return next(iter(articles_and_nouns(sentence, lang)), None)


def sharp_features(tokens, lang: str = DEFAULT_LANGUAGE) -> np.ndarray:
    """(n, 8) rows (roles, u, u², 1) with u = position / 10; see the module docstring."""
    u = np.arange(len(tokens))[:, None] / POSITION_UNIT
    X = np.hstack([word_roles(tokens, lang), u, u ** 2, np.ones_like(u)])
    frozen(X)
    return X


def sharp_attention(sentence: str, temperature: float = 1.0, causal: bool = False,
                    weights: LabWeights | None = None, lang: str = DEFAULT_LANGUAGE) -> LabAttention:
    """The lab's pass on sharp_features (roles read in ``lang``; the lab's own sentences are Spanish in any
    lecture) with sharp_weights() (or ``weights``): Z = softmax(QK^T / (2 T)) V."""
    tokens = lab_tokens(sentence)
    return attention_on(tokens, sharp_features(tokens, roles_language(sentence, lang)), sharp_weights() if weights is None else weights,
                        temperature, causal)


def preset_weights(preset: str) -> LabWeights:
    """The weights a preset starts from: the lab's seeded ones or the designed ones."""
    return {"lab": lab_weights, "sharp": sharp_weights}[_as_preset(preset)]()


def preset_attention(preset: str, sentence: str, temperature: float = 1.0, causal: bool = False,
                     weights: LabWeights | None = None, lang: str = DEFAULT_LANGUAGE) -> LabAttention:
    """lab_attention for "lab" (the browser's numbers, whatever the language), sharp_attention for "sharp"
    (its roles read in ``lang``)."""
    if _as_preset(preset) == "lab":
        return lab_attention(sentence, temperature, causal, weights)
    return sharp_attention(sentence, temperature, causal, weights, lang)


def _as_preset(preset: str) -> str:
    if preset not in PRESETS:
        raise ValueError(f"preset: expected one of {', '.join(PRESETS)}, got {preset!r}")
    return preset
