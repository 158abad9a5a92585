"""Section 4, "La capital de ___ es ...": the eight steps, run for real with d_model = 3.

Five tokens ("La capital de Francia es") and a vocabulary of eight words. The embedding
dimensions read as (place, function word, which country); the country token carries a scalar
identity in the third one: +1 Francia, -1 Italia, anything in between when the user drags it.

Words are named here by their role ("the", "france", "paris", …; "blank" for the country left out):
what a lecture writes for each is the locale's ``[capital.words]``, so the model is the same in every
language.

1. embeddings, one row per token (5, 3)
2. X = embeddings + PE, the sinusoidal positional encoding with d = 3
3. Q = X W_Q, K = X W_K, V = X W_V
4. scores = q_es K^T, the last token ("es") against all five
5. attention_row = softmax(scores / sqrt(3))
6. context = attention_row V
7. residual = context + x_es, normalized = (residual - mean) / std over the 3 dimensions
8. logits = normalized W_out + b_out (a row times W_out (3, 8), as Q = X W_Q), probs = softmax(logits),
   loss = -ln p(prediction)

W_Q and W_K have a zero third row, so queries and keys never see the identity: the attention
row is the same for every country, only the value that travels changes. Only París and Roma
have an output column, (0, 0, 3.1) and its opposite; the six other words share the null column.
Positional encoding leaks sin 4 and cos 4 into the residual of "es", so no short weights can
make a blank country land exactly between the two capitals; b_out = -normalized(0) W_out is
set so that at identity 0 every logit is exactly 0: all eight words tie at 1/8 (the reported
prediction is then the first of them, París).

Why p(París) at +0.90 is 0.38 but p(Roma) at -0.90 only 0.34: the normalisation. Before the
country speaks, the residual of "es" is (1.18, -0.65, 0.01): its identity coordinate sits below
the mean of the three. Francia raises that coordinate toward the mean and Italia lowers it
further away, so after the same push the residual's spread stays at 0.76 for Francia but grows
to 0.83 for Italia. Layer normalisation divides by that spread, so the same push moves the
normalised vector further for Francia: p(París) = 0.38 at +0.90, p(Roma) = 0.34 at -0.90.
Subtract the mean without dividing by the spread and the two countries would be mirror images.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attn_math.attention import self_attention, softmax
from attn_math.positional import sinusoidal_encoding
from attn_math.validation import frozen

D_MODEL = 3
COUNTRY_POSITION = 3
VOCAB = ("paris", "rome", "the", "capital", "of", "is", "france", "italy")
BLANK = "blank"  # the country's token at identity 0
COUNTRY_IDENTITY = {"france": 1.0, "italy": -1.0}

# Dimensions: (place, function word, which country). Each country is the other's mirror.
EMBEDDINGS = {
    "the": np.array([0.0, 1.0, 0.0]),
    "capital": np.array([1.0, 0.0, 0.0]),
    "of": np.array([0.0, 0.5, 0.0]),
    "france": np.array([2.0, 0.0, 1.0]),
    "italy": np.array([2.0, 0.0, -1.0]),
    "is": np.array([0.0, 2.0, 0.0]),
}
# A function word asks for a place; every token announces how much of a place it is.
W_Q = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
W_K = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
# The values carry the identity through unchanged in the third dimension.
W_V = np.array([[1.0, -1.0, 0.0], [-0.2, 0.4, 0.0], [0.0, 0.0, 1.0]])
# Columns follow VOCAB: paris reads the identity, rome its opposite, the rest nothing.
W_out = np.array([[0.0, 0.0, 3.1], [0.0, 0.0, -3.1]] + [[0.0, 0.0, 0.0]] * 6).T


POSITIONAL = sinusoidal_encoding(5, D_MODEL)


def country_identity(name: str) -> float:
    """The identity a country carries: "france" -> +1.0, "italy" -> -1.0."""
    if name not in COUNTRY_IDENTITY:
        raise ValueError(f"name: expected 'france' or 'italy', got {name!r}")
    return COUNTRY_IDENTITY[name]


def _as_identity(value) -> float:
    """Return ``value`` as a float in [-1, 1], or raise ValueError naming ``identity``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not -1.0 <= number <= 1.0:
        raise ValueError(f"identity: expected a finite number in [-1, 1] (+1 france, -1 italy), got {value!r}")
    return number


def _tokens(identity: float) -> tuple[str, ...]:
    """The sentence, with the country the identity leans to (BLANK when it leans to neither)."""
    country = "france" if identity > 0 else "italy" if identity < 0 else BLANK
    return ("the", "capital", "of", country, "is")


def _embeddings(identity: float) -> np.ndarray:
    """(5, 3) rows of EMBEDDINGS; the country row is (2, 0, identity), between Italia and Francia."""
    country = np.array([*EMBEDDINGS["france"][:2], identity])
    return np.array([EMBEDDINGS["the"], EMBEDDINGS["capital"], EMBEDDINGS["of"], country, EMBEDDINGS["is"]])


def _layer_norm(r: np.ndarray) -> np.ndarray:
    """LN(r) = (r - mean(r)) / std(r) over the d_model dimensions, no learned gain or shift."""
    centered = r - r.mean()
    return centered / np.sqrt(np.mean(centered**2))


def _forward(identity: float):
    """Steps 1-7: embeddings, X = embeddings + PE, attention, residual = context + x_es, LN."""
    embeddings = _embeddings(identity)
    X = embeddings + POSITIONAL
    steps = self_attention(X, W_Q, W_K, W_V)
    residual = steps.output[-1] + X[-1]
    return embeddings, X, steps, residual, _layer_norm(residual)


# 0.0 - x rather than -x, so the six null rows get 0.0 and not -0.0.
b_out = 0.0 - _forward(0.0)[-1] @ W_out
frozen(*EMBEDDINGS.values(), W_Q, W_K, W_V, W_out, POSITIONAL, b_out)


@dataclass(frozen=True)
class CapitalWalkthrough:
    """Every intermediate of the eight steps, for one value of the country identity."""

    tokens: tuple[str, ...]  # the 5 input tokens
    identity: float  # +1 Francia, -1 Italia
    embeddings: np.ndarray  # (5, 3)
    positional: np.ndarray  # (5, 3) sinusoidal PE
    X: np.ndarray  # (5, 3) embeddings + positional
    Q: np.ndarray  # (5, 3) X W_Q
    K: np.ndarray  # (5, 3) X W_K
    V: np.ndarray  # (5, 3) X W_V
    scores: np.ndarray  # (5,) q_es K^T
    scaled: np.ndarray  # (5,) scores / sqrt(3)
    attention_row: np.ndarray  # (5,) softmax(scaled), sums to 1
    context: np.ndarray  # (3,) attention_row V
    residual: np.ndarray  # (3,) context + x_es
    normalized: np.ndarray  # (3,) (residual - mean) / std
    W_out: np.ndarray  # (3, 8) unembedding, columns follow vocab
    b_out: np.ndarray  # (8,) output bias
    vocab: tuple[str, ...]  # the 8 words
    logits: np.ndarray  # (8,) normalized W_out + b_out
    probs: np.ndarray  # (8,) softmax(logits)
    prediction: str  # the most probable word, the first in vocab order on a tie
    probability: float  # p(prediction)
    loss: float  # -ln p(prediction)

    @property
    def residual_mean(self) -> float:
        """mean(r): what the layer norm subtracts."""
        return float(self.residual.mean())

    @property
    def residual_spread(self) -> float:
        """std(r) = sqrt(mean((r - mean r)^2)): what it divides by, the source of the ±0.90 asymmetry."""
        return float(np.sqrt(np.mean((self.residual - self.residual.mean()) ** 2)))


def capital_walkthrough(identity: float = 1.0) -> CapitalWalkthrough:
    """logits = LN(softmax(q_es K^T / sqrt(3)) V + x_es) W_out + b_out, with every step kept."""
    identity = _as_identity(identity)
    embeddings, X, steps, residual, normalized = _forward(identity)
    logits = normalized @ W_out + b_out
    probs = softmax(logits)
    best = int(np.argmax(probs))
    frozen(embeddings, X, residual, normalized, logits, probs)
    return CapitalWalkthrough(
        tokens=_tokens(identity), identity=identity, embeddings=embeddings, positional=POSITIONAL, X=X,
        Q=steps.Q, K=steps.K, V=steps.V, scores=steps.scores[-1], scaled=steps.scaled[-1],
        attention_row=steps.weights[-1], context=steps.output[-1], residual=residual, normalized=normalized,
        W_out=W_out, b_out=b_out, vocab=VOCAB, logits=logits, probs=probs, prediction=VOCAB[best],
        probability=float(probs[best]), loss=-math.log(probs[best]))
