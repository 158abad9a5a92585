"""The capital section's questions and answers, filled in from the pass the section shows for the lecturer's country
(its identity, from -1 Italia to +1 Francia).

Every number is computed by ``attn_math.capital``, the walk-through the scene draws, and written as the screen writes
it; the words are the locale's ``capital.words``. Where a claim holds only for some identities (a country to attend
to, a prediction that can be right), the field ``answer_variant`` names the ``answer_<variant>`` that holds.
"""

from __future__ import annotations

import math

import numpy as np

from attn_math.capital import (COUNTRY_IDENTITY, COUNTRY_POSITION, VOCAB, W_V, CapitalWalkthrough,
                               capital_walkthrough)
from lesson.numbers import format_number, parse_number

COUNTRY_DIMENSION = 2  # the embedding dimension that carries the identity
PARIS, ROMA = VOCAB.index("paris"), VOCAB.index("rome")


def signed(value: float) -> str:
    """An identity as the lesson writes it: +0.90 for Francia's side, −0.90 for Italia's."""
    return ("+" if value > 0 else "") + format_number(value)


def is_tie(walk: CapitalWalkthrough) -> bool:
    """At identity 0 every logit is exactly 0: all words share the same probability, nothing wins."""
    return bool(np.all(walk.probs == walk.probs[0]))


def question_fields(walk: CapitalWalkthrough, words: dict[str, str], mirror: float,
                    decimals: int) -> dict[str, dict]:
    """Fields for each step's question and answer: ``walk`` is the section's pass, ``words`` the locale's
    ``capital.words``, ``mirror`` the identity the mirror steps compare with its opposite and ``decimals`` those
    of a probability of the next word."""
    other = capital_walkthrough(-1.0 if walk.identity > 0 else 1.0)
    plus, minus = capital_walkthrough(mirror), capital_walkthrough(-mirror)
    return {"embeddings": {"identity": signed(walk.identity),
                           "answer_variant": None if walk.identity in COUNTRY_IDENTITY.values() else "own"},
            "scores": _best_keys(walk, words), "context": _country_share(walk, words),
            "distribution": _loss(walk, words, decimals),
            "other_country": {"value": format_number(walk.context[COUNTRY_DIMENSION]),
                              "other": format_number(other.context[COUNTRY_DIMENSION])},
            "mirror": {"plus": signed(plus.identity), "minus": signed(minus.identity),
                       "paris": format_number(plus.probs[PARIS], decimals),
                       "roma": format_number(minus.probs[ROMA], decimals)},
            "asymmetry": {"plus": signed(plus.identity), "minus": signed(minus.identity),
                          "spread_plus": format_number(plus.residual_spread),
                          "spread_minus": format_number(minus.residual_spread)}}


def _best_keys(walk: CapitalWalkthrough, words: dict[str, str]) -> dict:
    """The two keys «es» scores highest, and how much place each announces (its key's first dimension)."""
    best, second = np.argsort(walk.scores)[::-1][:2]
    return {"top": words[walk.tokens[best]], "top_place": format_number(walk.K[best, 0]),
            "second": words[walk.tokens[second]], "second_place": format_number(walk.K[second, 0])}


def _country_share(walk: CapitalWalkthrough, words: dict[str, str]) -> dict:
    """The context's country dimension, and the weight of the country in it: Σ_j α_j v_j splits into what the words
    bring (only the country's has a third dimension) and what the positions do (V = (E + PE) W_V); the country's
    part outweighs the positions', or there is no country, or it is too faint to."""
    from_words, from_positions = (walk.attention_row @ (part @ W_V)[:, COUNTRY_DIMENSION]
                                  for part in (walk.embeddings, walk.positional))
    variant = ("blank" if walk.identity == 0 else None if abs(from_words) > abs(from_positions) else "faint")
    return {"country": words[walk.tokens[COUNTRY_POSITION]], "identity": signed(walk.identity),
            "weight": format_number(walk.attention_row[COUNTRY_POSITION]),
            "value": format_number(walk.context[COUNTRY_DIMENSION]), "answer_variant": variant}


def _loss(walk: CapitalWalkthrough, words: dict[str, str], decimals: int) -> dict:
    """−ln p of the prediction, p as the readout writes it; "=" only when −ln of that p gives the loss written."""
    probability = format_number(walk.probability, decimals)
    loss = format_number(walk.loss)
    again = format_number(-math.log(parse_number(probability)))
    return {"prediction": words[walk.prediction], "probability": probability, "loss": loss,
            "relation": "=" if again == loss else "≈", "answer_variant": "tie" if is_tie(walk) else None}
