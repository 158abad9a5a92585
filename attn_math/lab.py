"""The AI Visual Lab's simulation, number for number.

The lab (d = 8) builds everything from closed formulas, so a scene can show the same numbers
a student sees in the browser:

* weights: the Park-Miller minimal standard generator, seed 42,
  s <- 16807 s mod (2^31 - 1), u = (s - 1) / (2^31 - 2), entry = (u - 0.5) sqrt(2 / 8),
  filled row by row into W_Q, then W_K, then W_V (one stream across the three 8x8 matrices).
  The lab computes 16807 s in JavaScript doubles; below 2^53 that is exact, like our ints.
* a word: h = (31 h + c) & 0xFFFF over its UTF-16 code units c (h = 0 at the start), then
  v[d] = 0.8 sin(0.127 h + 2.3 d); token i adds 0.3 PE(i) with base 100 (see lab_positional).
* the lab projects column vectors, q_i = W_Q x_i; in this package's row convention that is
  Q = X W_Q^T, so W^T is what goes to ``self_attention``.
* scaled = scores / (sqrt(d_k) T); the lab's causal mask writes -1e9 where we write -inf. In
  float64 exp(-1e9 - max) is exactly 0, as is exp(-inf), so the weights are the same.
* entropies are in bits.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from attn_math.attention import AttentionSteps, self_attention
from attn_math.positional import MAX_POSITIONS, sinusoidal_encoding
from attn_math.validation import as_count, as_matrix, as_words, frozen

LAB_D = 8
LAB_SEED = 42
MAX_TOKENS = 32
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.1, 5.0  # the lab's temperature slider
PARK_MILLER_MODULUS = 2**31 - 1
PARK_MILLER_MULTIPLIER = 16807

# The lab's three sentences. Split on whitespace they have 7, 5 and 6 tokens; the guide
# says 7 for "atencion es todo lo que necesitas", but it has 6 words.
LAB_SENTENCES = {
    "gato": "el gato se sienta en la mesa",
    "red": "la red neuronal aprende rapido",
    "atencion": "atencion es todo lo que necesitas",
}
GUIDE_TOKENS = {"gato": 7, "red": 5, "atencion": 7}  # the tokens the guide counts in each


# The lab types its sentences without accents, and lab_hash reads every letter: the numbers need the tokens
# as typed. Spanish writes two of their words with an accent; this is how a scene shows them.
SPELLING = {"atencion": "atención", "rapido": "rápido"}


def spelled(token: str) -> str:
    """A token of the lab's sentences as Spanish writes it ("atencion" -> "atención"); any other token as it is."""
    return SPELLING.get(token, token)


def lab_sentence_name(sentence: str) -> str | None:
    """The name of the lab's sentence ``sentence`` (its key in LAB_SENTENCES), None for any other sentence."""
    return next((name for name, text in LAB_SENTENCES.items() if text == sentence), None)


def park_miller(seed: int, count: int) -> np.ndarray:
    """s_t = 16807 s_{t-1} mod (2^31 - 1) for t = 1..count, s_0 = seed; shape (count,), integers."""
    state = as_count("seed", seed)
    if state >= PARK_MILLER_MODULUS:
        raise ValueError(f"seed: expected a whole number in 1..{PARK_MILLER_MODULUS - 1}, got {seed!r}")
    states = np.empty(as_count("count", count), dtype=np.int64)
    for t in range(len(states)):
        state = state * PARK_MILLER_MULTIPLIER % PARK_MILLER_MODULUS
        states[t] = state
    return states


@dataclass(frozen=True)
class LabWeights:
    """Projection matrices in the lab's column-vector orientation: q = W_Q x with x of size LAB_D.

    W_Q and W_K are (d_k, 8), W_V is (d_v, 8); in this package's row convention they act as
    W_Q.T, W_K.T, W_V.T (8 x d_k). Any d_k works; the embeddings are always 8-dimensional.
    """

    W_Q: np.ndarray  # (d_k, 8)
    W_K: np.ndarray  # (d_k, 8)
    W_V: np.ndarray  # (d_v, 8)

    def __post_init__(self):
        W_Q = as_matrix("W_Q", self.W_Q, cols=LAB_D)
        W_K = as_matrix("W_K", self.W_K, rows=W_Q.shape[0], cols=LAB_D)
        W_V = as_matrix("W_V", self.W_V, cols=LAB_D)
        frozen(W_Q, W_K, W_V)
        for name, matrix in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
            object.__setattr__(self, name, matrix)


def lab_weights() -> LabWeights:
    """W_Q, W_K, W_V (8, 8) each: entries (u - 0.5) sqrt(2/8) from one Park-Miller stream, seed 42, row by row."""
    states = park_miller(LAB_SEED, 3 * LAB_D * LAB_D)
    u = (states - 1) / (PARK_MILLER_MODULUS - 1)
    W_Q, W_K, W_V = ((u - 0.5) * np.sqrt(2 / LAB_D)).reshape(3, LAB_D, LAB_D)
    return LabWeights(W_Q=W_Q, W_K=W_K, W_V=W_V)


def _as_word(word: str) -> str:
    if not isinstance(word, str) or not word or any(character.isspace() for character in word):
        raise ValueError(f"word: expected one non-empty token without whitespace, got {word!r}")
    return unicodedata.normalize("NFC", word)


def lab_hash(word: str) -> int:
    """h = (31 h + c) & 0xFFFF over the UTF-16 code units c of the word (NFC), starting from h = 0."""
    code_units = np.frombuffer(_as_word(word).encode("utf-16-le"), dtype="<u2")
    h = 0
    for code in code_units.tolist():
        h = (h * 31 + code) & 0xFFFF
    return h


def lab_positional(position: int) -> np.ndarray:
    """0.3 sin(pos / 100^(d/8)) at even d, 0.3 cos(pos / 100^((d-1)/8)) at odd d: 0.3 PE(pos) with base 100; (8,)."""
    position = as_count("position", position, minimum=0)
    if position >= MAX_POSITIONS:
        raise ValueError(f"position: expected a whole number in 0..{MAX_POSITIONS - 1}, got {position!r}")
    term = 0.3 * sinusoidal_encoding(position + 1, LAB_D, base=100.0)[position]
    frozen(term)
    return term


def lab_embedding(word: str, position: int | None = None) -> np.ndarray:
    """x[d] = 0.8 sin(0.127 h + 2.3 d) for d = 0..7, plus lab_positional(position) when a position is given; (8,)."""
    h = lab_hash(word)
    x = 0.8 * np.sin(0.127 * h + 2.3 * np.arange(LAB_D))
    if position is not None:
        x = x + lab_positional(position)
    frozen(x)
    return x


def lab_tokens(sentence: str) -> tuple[str, ...]:
    """The sentence's words (``attn_math.validation.as_words``: NFC, punctuation split off), 1..MAX_TOKENS tokens.
    The lab's own sentences have no punctuation: their tokens, and so their numbers, are the browser's."""
    return as_words("sentence", sentence, MAX_TOKENS)


def _as_slider_temperature(temperature) -> float:
    is_number = isinstance(temperature, (int, float, np.number)) and not isinstance(temperature, bool)
    if not is_number or not MIN_TEMPERATURE <= temperature <= MAX_TEMPERATURE:  # the comparison rejects NaN
        raise ValueError(f"temperature: expected a number in [{MIN_TEMPERATURE}, {MAX_TEMPERATURE}] "
                         f"(the lab's slider), got {temperature!r}")
    return float(temperature)


@dataclass(frozen=True)
class LabAttention:
    """One self-attention pass of the lab on a sentence, with the lab's side-panel metrics."""

    tokens: tuple[str, ...]
    steps: AttentionSteps  # X (n, 8) holds word vector + positional term of each token
    entropies: np.ndarray  # (n,) bits per query row
    max_weights: np.ndarray  # (n,) largest weight per query row

    @property
    def weights(self) -> np.ndarray:
        """(n, n) attention weights, each row sums to 1."""
        return self.steps.weights

    @property
    def output(self) -> np.ndarray:
        """(n, d_v) Z = weights @ V."""
        return self.steps.output


def lab_attention(sentence: str, temperature: float = 1.0, causal: bool = False,
                  weights: LabWeights | None = None) -> LabAttention:
    """Z = softmax(mask(Q K^T / (sqrt(d_k) T))) V with x_i = lab_embedding(token_i, i), q_i = W_Q x_i.

    ``weights=None`` uses lab_weights() (seed 42, d_k = 8); a custom LabWeights replaces them,
    and its d_k sets the sqrt(d_k) divisor.
    The temperature must lie on the lab's slider, 0.1..5.0.
    """
    tokens = lab_tokens(sentence)
    X = np.array([lab_embedding(token, position) for position, token in enumerate(tokens)])  # (n, 8)
    return attention_on(tokens, X, lab_weights() if weights is None else weights, temperature, causal)


def output_spread(steps: AttentionSteps) -> float:
    """max_i |Z_i - mean Z| / max_j |V_j - mean V|: how far apart the outputs are, for values as far apart as V's.

    0 when every token gets the same output (uniform weights), 1 when some output is as far from the
    mean as the farthest value (weights that pick single tokens).
    """
    Z, V = steps.output, steps.V
    values_spread = np.linalg.norm(V - V.mean(axis=0), axis=1).max()
    if values_spread == 0:
        return 0.0
    return float(np.linalg.norm(Z - Z.mean(axis=0), axis=1).max() / values_spread)


def attention_on(tokens: tuple[str, ...], X: np.ndarray, weights: LabWeights, temperature: float,
                 causal: bool) -> LabAttention:
    """The lab's pass on given inputs X (n, 8): Q = X W_Q^T with W_Q in the lab's (d_k, 8) layout, and so on."""
    temperature = _as_slider_temperature(temperature)
    if not isinstance(weights, LabWeights):
        raise ValueError(f"weights: expected a LabWeights or None, got {type(weights).__name__}")
    steps = self_attention(X, weights.W_Q.T, weights.W_K.T, weights.W_V.T,
                           temperature=temperature, causal=bool(causal))
    entropies, max_weights = steps.entropies, steps.weights.max(axis=1)
    frozen(entropies, max_weights)
    return LabAttention(tokens=tokens, steps=steps, entropies=entropies, max_weights=max_weights)
