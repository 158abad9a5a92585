"""Sinusoidal positional encodings, and why self-attention needs them.

    PE[pos, 2i] = sin(pos / base^(2i/d)),   PE[pos, 2i+1] = cos(pos / base^(2i/d))

Self-attention alone is permutation-equivariant: reorder the tokens and every token's output
is the same, only reordered. Adding PE(pos) to each embedding is what lets word order matter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_math.attention import AttentionSteps, self_attention
from attn_math.validation import as_count, as_matrix, frozen

MAX_POSITIONS = 512
MIN_D_MODEL, MAX_D_MODEL = 2, 512
DEFAULT_BASE = 10000.0
VISIBLE_RISE = 0.05  # of the peak: a climb this large shows on a plot of the similarity (0.4 of d = 16's 8)

# Designed d = 4 embeddings, dims read roughly as (determiner, noun, verb, person). They are about twice
# as long as a PE row (|PE(pos)| = sqrt(d/2) = 1.41), as the Transformer multiplies its embeddings by
# sqrt(d_model) = 2 before adding PE: at unit size the position swamps the word ("hombre" and "perro" at
# position 4 came out within 0.01 of each other), at this size both are read. "perro" and "hombre" differ
# most in the person dimension, so the same position holds visibly different words.
WORD_EMBEDDINGS = {
    "el": (1.8, -0.2, 0.0, 0.0),
    "perro": (0.2, 1.8, -0.4, -2.0),
    "mordió": (-0.2, 0.4, 2.0, 0.0),
    "al": (1.6, 0.0, 0.6, 0.0),
    "hombre": (-0.4, 1.6, 0.2, 2.0),
}
# Queries: a determiner looks for a noun, a noun for the verb, the verb for nouns. Keys are
# close to the identity (a word announces what it is), so the weights follow those roles.
DEMO_W_Q = ((0.0, 1.5, 0.0, 0.2), (0.0, 0.0, 1.5, 0.0), (0.0, 1.2, 0.0, 0.8), (0.3, 0.0, 0.0, 0.0))
DEMO_W_K = ((1.0, 0.0, 0.0, 0.2), (0.0, 1.0, 0.0, 0.0), (0.2, 0.0, 1.0, 0.0), (0.0, 0.3, 0.0, 1.0))
DEMO_W_V = ((0.6, 0.0, 0.2, -0.1), (0.1, 0.5, -0.2, 0.3), (-0.3, 0.2, 0.4, 0.1), (0.0, -0.1, 0.3, 0.6))



def _as_base(base: float) -> float:
    number = float(base)
    if not np.isfinite(number) or number <= 1:
        raise ValueError(f"base: expected a finite number > 1, got {base!r}")
    return number


def angular_frequencies(d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """omega_j = 1 / base^(2i/d) for column j in {2i, 2i + 1}: the rate each column turns at, shape (d_model,)."""
    d_model = as_count("d_model", d_model, MIN_D_MODEL, MAX_D_MODEL)
    dims = np.arange(d_model)
    omega = 1.0 / _as_base(base) ** ((dims - dims % 2) / d_model)
    frozen(omega)
    return omega


def sinusoidal_encoding(n_positions: int, d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos / base^(2i/d)); shape (n_positions, d_model).

    An odd d_model is allowed: its last column is a sin without its cos partner.
    """
    n_positions = as_count("n_positions", n_positions, 1, MAX_POSITIONS)
    d_model = as_count("d_model", d_model, MIN_D_MODEL, MAX_D_MODEL)
    base = _as_base(base)
    dims = np.arange(d_model)
    pair_start = dims - dims % 2  # 2i for both column 2i and column 2i + 1
    angles = np.arange(n_positions)[:, None] / base ** (pair_start / d_model)  # (n_positions, d_model)
    PE = np.where(dims % 2 == 0, np.sin(angles), np.cos(angles))
    frozen(PE)
    return PE


def hand_frequencies(d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """omega_i = 1 / base^(2i/d) for i = 0 .. d//2 - 1: the rate of each (sin, cos) pair; shape (d_model // 2,).

    An odd d_model's last column is a sin without its cos partner: half a pair, no hand.
    """
    return angular_frequencies(d_model, base)[0:2 * (d_model // 2):2]


def hand_angles(pos: float, d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """theta_i(pos) = omega_i * pos; shape (d_model // 2,).

    (PE[pos, 2i], PE[pos, 2i + 1]) = (sin theta_i, cos theta_i) is a hand of length 1 at angle theta_i from
    12 o'clock, turning clockwise as pos grows: each pair is a clock hand, the fast ones in the first columns.
    """
    angles = hand_frequencies(d_model, base) * float(pos)
    frozen(angles)
    return angles


def hand_turns(delta: float, d_model: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """theta_i(pos + delta) - theta_i(pos) = omega_i * delta, whatever pos; shape (d_model // 2,).

    So PE(pos + delta) is PE(pos) with each pair rotated by its own fixed angle, and the pair's share of
    PE(pos) · PE(pos + delta), the cosine of the angle between its two hands, is cos(omega_i * delta).
    """
    turns = hand_frequencies(d_model, base) * float(delta)
    frozen(turns)
    return turns


def similarity_by_distance(n_positions: int, d_model: int, start: int, base: float = DEFAULT_BASE) -> np.ndarray:
    """PE[start] · PE[start + delta] for delta = 0 .. n_positions - 1 - start; shape (n_positions - start,).

    For even d_model it equals sum_i cos(delta / base^(2i/d)): it depends on the distance delta
    only, not on start. (An odd d_model adds a lone sin term that does depend on start.)
    """
    PE = sinusoidal_encoding(n_positions, d_model, base)
    start = as_count("start", start, 0, len(PE) - 1)
    similarities = PE[start:] @ PE[start]
    frozen(similarities)
    return similarities


def first_rise(similarities) -> int | None:
    """The first distance delta > 0 with similarities[delta] > similarities[delta - 1], or None when the
    curve never rises again (it only falls or stays level)."""
    similarities = np.asarray(similarities, dtype=float)
    rises = np.flatnonzero(np.diff(similarities) > 1e-12)
    return int(rises[0]) + 1 if len(rises) else None


def visible_rise(similarities, share: float = VISIBLE_RISE) -> tuple[int, int] | None:
    """(valley, top): the first climb of the curve by at least ``share`` of its value at delta = 0, from its
    lowest point so far (valley) to the top of that climb; None when it never climbs that much.

    d = 16's curve first grows at delta = 4, by 0.02 (5.54 -> 5.56): a plot cannot show that. It climbs
    visibly from delta = 3 (5.54) to delta = 6 (6.44).
    """
    similarities = np.asarray(similarities, dtype=float)
    valley = 0
    for delta in range(1, len(similarities)):
        if similarities[delta] < similarities[valley]:
            valley = delta
        elif similarities[delta] - similarities[valley] >= share * abs(similarities[0]):
            top = delta
            while top + 1 < len(similarities) and similarities[top + 1] > similarities[top]:
                top += 1
            return valley, top
    return None


def smooth_width(n_positions: int, d_model: int, base: float = DEFAULT_BASE) -> int | None:
    """The smallest power of two above ``d_model`` (up to MAX_D_MODEL) whose similarity curve falls without
    rising again over distances 0 .. n_positions - 1, or None when none does.

    The curve is a sum of d/2 cosines, one per frequency: with few of them, the fast ones come back
    into phase within a few positions and the sum rises again; more frequencies, down to slower ones,
    keep the sum falling for longer.
    """
    d_model = as_count("d_model", d_model, MIN_D_MODEL, MAX_D_MODEL)
    width = 2 ** int(np.floor(np.log2(d_model)) + 1)
    while width <= MAX_D_MODEL:
        if first_rise(similarity_by_distance(n_positions, width, 0, base)) is None:
            return width
        width *= 2
    return None


@dataclass(frozen=True)
class ContiguousTokens:
    """Three contiguous tokens with d = 4: word embedding x, its PE, and the sum the model sees."""

    tokens: tuple[str, ...]
    positions: np.ndarray  # (3,) token positions
    x: np.ndarray  # (3, 4) word embeddings
    pe: np.ndarray  # (3, 4) PE(pos)
    x_plus_pe: np.ndarray  # (3, 4) x + PE(pos)


def contiguous_tokens_example() -> ContiguousTokens:
    """x + PE(pos) for "el perro mordió" at positions 0, 1, 2 with d = 4; each array (3, 4).

    Positions 0, 1, 2 because they are where these words sit in "el perro mordió al hombre",
    and because with d = 4 they show both halves of the encoding at once: PE(0) = (0, 1, 0, 1)
    is not zero, dims 0-1 (frequency 1) change a lot from one token to the next, while dims
    2-3 (frequency 1/100) barely move.
    """
    tokens = ("el", "perro", "mordió")
    positions = np.arange(len(tokens))
    x = np.array([WORD_EMBEDDINGS[token] for token in tokens])
    pe = sinusoidal_encoding(len(tokens), x.shape[1])[positions].copy()
    x_plus_pe = x + pe
    frozen(positions, x, pe, x_plus_pe)
    return ContiguousTokens(tokens=tokens, positions=positions, x=x, pe=pe, x_plus_pe=x_plus_pe)


@dataclass(frozen=True)
class SeparateReadings:
    """Two linear read-outs of x + PE(pos), for every word of the example at every one of its positions:
    (x_w + PE(p)) · word_reader depends on the word alone, (x_w + PE(p)) · position_reader on the position alone."""

    word_reader: np.ndarray  # (4,) unit; PE(p) · word_reader the same for every p, so the sum reads x · word_reader + c
    position_reader: np.ndarray  # (4,) unit; x_w · position_reader = 0 for every word, so the sum reads PE(p) · it
    by_word: np.ndarray  # (words, positions) (x_w + PE(p)) · word_reader: each row one number
    by_position: np.ndarray  # (words, positions) (x_w + PE(p)) · position_reader: each column one number


def separate_readings(example: ContiguousTokens) -> SeparateReadings:
    """Why x + PE(pos) keeps the word and the position apart: one projection sees only the word, another only the
    position. position_reader spans the directions no word embedding has (the null space of x); word_reader is, among
    the directions every PE(p) shares a component along (orthogonal to PE(p) - PE(0)), the one the words spread most
    along. Each is a column a W_Q or W_K could hold."""
    x, pe = example.x, example.pe  # (words, 4), (positions, 4)
    position_reader = np.linalg.svd(x)[2][-1]  # x has rank 3 in 4 dimensions: one direction no word uses
    shared = np.linalg.svd(pe[1:] - pe[0])[2][len(pe) - 1:].T  # (4, 2): orthogonal to every change of PE
    words = (x - x.mean(axis=0)) @ shared
    word_reader = shared @ np.linalg.svd(words)[2][0]
    position_reader, word_reader = (v * np.sign(v[np.argmax(np.abs(v))]) for v in (position_reader, word_reader))
    sums = x[:, None, :] + pe[None, :, :]  # (words, positions, 4): every word at every position
    by_word, by_position = sums @ word_reader, sums @ position_reader
    frozen(word_reader, position_reader, by_word, by_position)
    return SeparateReadings(word_reader, position_reader, by_word, by_position)


@dataclass(frozen=True)
class PermutationDemo:
    """Self-attention on a sentence and on a reordering of it, without and with PE."""

    tokens_a: tuple[str, ...]
    tokens_b: tuple[str, ...]
    permutation: np.ndarray  # (n,) tokens_b[i] == tokens_a[permutation[i]]
    W_Q: np.ndarray  # (4, 4)
    W_K: np.ndarray  # (4, 4)
    W_V: np.ndarray  # (4, 4)
    steps_a: AttentionSteps  # X = word embeddings of sentence A
    steps_b: AttentionSteps
    steps_a_pe: AttentionSteps  # X = word embeddings + PE(pos)
    steps_b_pe: AttentionSteps

    @property
    def output_a(self) -> np.ndarray:
        """(n, 4) outputs of sentence A without PE."""
        return self.steps_a.output

    @property
    def output_b(self) -> np.ndarray:
        """(n, 4) outputs of sentence B without PE: output_a reordered, output_b[i] == output_a[permutation[i]]."""
        return self.steps_b.output

    @property
    def output_a_pe(self) -> np.ndarray:
        """(n, 4) outputs of sentence A with PE."""
        return self.steps_a_pe.output

    @property
    def output_b_pe(self) -> np.ndarray:
        """(n, 4) outputs of sentence B with PE: no longer a reordering of output_a_pe."""
        return self.steps_b_pe.output


def permutation_demo() -> PermutationDemo:
    """Z = Attention(X) for "el perro mordió al hombre" and "el hombre mordió al perro", with X and X + PE; d = 4.

    Without PE the two sentences give every word exactly the same output row (up to floating
    rounding): attention cannot tell who bit whom. With PE they differ.
    """
    tokens_a = ("el", "perro", "mordió", "al", "hombre")
    tokens_b = ("el", "hombre", "mordió", "al", "perro")
    permutation = np.array([tokens_a.index(token) for token in tokens_b])
    W_Q, W_K, W_V = (as_matrix(name, value, rows=4, cols=4)
                     for name, value in (("W_Q", DEMO_W_Q), ("W_K", DEMO_W_K), ("W_V", DEMO_W_V)))
    PE = sinusoidal_encoding(len(tokens_a), W_Q.shape[0])

    def attend(tokens, with_pe: bool) -> AttentionSteps:
        X = np.array([WORD_EMBEDDINGS[token] for token in tokens])
        return self_attention(X + PE if with_pe else X, W_Q, W_K, W_V)

    frozen(permutation, W_Q, W_K, W_V)
    return PermutationDemo(tokens_a=tokens_a, tokens_b=tokens_b, permutation=permutation,
                           W_Q=W_Q, W_K=W_K, W_V=W_V,
                           steps_a=attend(tokens_a, False), steps_b=attend(tokens_b, False),
                           steps_a_pe=attend(tokens_a, True), steps_b_pe=attend(tokens_b, True))
