"""Illustrative cross-attention weights for the heads section's closing card: a decoder writing a translation, each of
its tokens looking at the encoder's words it translates. Not measured, not trained: scores written by hand (the word
a decoder token translates scores MAIN_SCORE, a word it also draws on SECOND_SCORE, the rest 0) and put through the
softmax, so each row is a distribution that looks selectively at the input, as a trained translator's often does."""

from __future__ import annotations

import numpy as np

from attn_math.attention import softmax

# The lectures' sentences (the Spanish one, the English locale's), each translated into the other language, three
# of its tokens («el perro junto a María ladró»): [decoder token, the word it translates, another word it draws on].
TRANSLATIONS = {"el perro de María ladró y ella lo calmó": (("Maria's", "María", "de"), ("dog", "perro", "el"),
                                                           ("barked", "ladró")),
                "the dog near Mary barked and she calmed it": (("perro", "dog", "the"), ("María", "Mary", "near"),
                                                               ("ladró", "barked"))}
MAIN_SCORE = 3.0  # the encoder word a decoder token translates
SECOND_SCORE = 1.5  # another word it draws on («de» for «Maria's»)


def illustrative_cross_weights(sentence: str, encoder: list[str]) -> tuple[list[str], np.ndarray] | None:
    """(decoder tokens, weights) for ``sentence``, whose tokens are ``encoder``: one row per entry of its translation
    (TRANSLATIONS), one column per encoder token. None for a sentence without a written translation."""
    alignment = TRANSLATIONS.get(" ".join(sentence.split()))
    if alignment is None:
        return None
    rows, tokens = [], []
    for token, *words in alignment:
        if not words or any(word not in encoder for word in words):
            return None
        scores = np.zeros(len(encoder))
        for rank, word in enumerate(words):
            scores[encoder.index(word)] = MAIN_SCORE if rank == 0 else SECOND_SCORE
        rows.append(softmax(scores))
        tokens.append(token)
    return tokens, np.array(rows)
