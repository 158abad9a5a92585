"""Scaled dot-product self-attention, step by step.

    Attention(Q, K, V) = softmax(Q K^T / (sqrt(d_k) T)) V,   Q = X W_Q, K = X W_K, V = X W_V
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_math.validation import as_matrix, as_positive, frozen


def softmax(x, axis: int = -1) -> np.ndarray:
    """softmax(x)_j = exp(x_j - max x) / sum_l exp(x_l - max x); -inf gives exactly 0."""
    x = np.asarray(x, dtype=float)
    if np.any(np.isnan(x)) or np.any(np.isposinf(x)):
        raise ValueError("x: expected finite numbers or -inf, found NaN or +inf")
    peak = np.max(x, axis=axis, keepdims=True)
    if np.any(np.isneginf(peak)):
        raise ValueError("x: every slice along the softmax axis needs at least one entry that is not -inf")
    exponentials = np.exp(x - peak)
    return exponentials / np.sum(exponentials, axis=axis, keepdims=True)


@dataclass(frozen=True)
class SoftmaxParts:
    """softmax(x)_j = e^{x_j} / sum_l e^{x_l} as two moves on a scale where the largest e^{x_j} is 1:
    first e^{x_j} / e^{max x}, then that divided by its sum."""

    scores: np.ndarray  # (n,) x, -inf where masked
    largest: float  # max x: each e^{x_j} is shown as e^{x_j} / e^{max x}
    exponentials: np.ndarray  # (n,) e^{x_j - max x}, in [0, 1], 1 at the largest score, 0 where masked
    total: float  # sum_j e^{x_j - max x}, at least 1
    weights: np.ndarray  # (n,) exponentials / total = softmax(x), sums to 1


def exponentiate_then_normalise(x) -> SoftmaxParts:
    """e^{x_j} / e^{max x}, then divided by sum_l e^{x_l} / e^{max x}: softmax(x) for one row x of shape (n,)."""
    x = np.array(x, dtype=float)  # a copy: it is frozen below, the caller's array is not
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"x: expected one non-empty row of scores, got shape {x.shape}")
    weights = softmax(x)  # validates x: finite or -inf, at least one finite entry
    largest = float(np.max(x))
    exponentials = np.exp(x - largest)
    total = float(np.sum(exponentials))
    frozen(x, exponentials, weights)
    return SoftmaxParts(scores=x, largest=largest, exponentials=exponentials, total=total, weights=weights)


def entropy(p, base: float = 2.0) -> np.ndarray:
    """H(p) = -sum_j p_j log_base p_j over the last axis, with 0 log 0 = 0."""
    p = np.asarray(p, dtype=float)
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("p: expected finite probabilities >= 0")
    base = as_positive("base", base)
    positive = np.where(p > 0, p, 1.0)
    return -np.sum(np.where(p > 0, p * np.log(positive), 0.0), axis=-1) / np.log(base)


def softmax_slope(weights) -> float:
    """The largest entry of the softmax's Jacobian over the rows of ``weights``: max_j p_j (1 - p_j).

    d p_j / d s_k = p_j (delta_jk - p_k); off the diagonal |p_j p_k| <= p_j (1 - p_j), so the diagonal holds
    the largest. It says how much the weights still move when a score does: 0 for a one-hot row, where the
    gradient through the softmax vanishes, 1/4 at most (two keys at 1/2).
    """
    p = np.asarray(weights, dtype=float)
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        raise ValueError("weights: expected probabilities between 0 and 1")
    return float(np.max(p * (1.0 - p)))


ONE_HOT = 0.99  # a softmax row whose largest weight is above this puts (nearly) all of it on one key


def instructive_row(weights, mask) -> int:
    """The first row i with more than one unmasked key and max_j A[i, j] < ONE_HOT: a softmax that has a choice
    and does not make it all or nothing; else the first row with a choice; else row 0 (indices from 0)."""
    weights, mask = np.asarray(weights, dtype=float), np.asarray(mask, dtype=bool)
    choosing = (~mask).sum(axis=1) > 1
    spread = choosing & (weights.max(axis=1) < ONE_HOT)
    for rows in (spread, choosing):
        if rows.any():
            return int(np.argmax(rows))
    return 0


def causal_mask(n: int) -> np.ndarray:
    """Boolean (n, n) matrix, True where key j lies in the future of query i (j > i)."""
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n: expected a whole number >= 1, got {n!r}")
    return np.triu(np.ones((int(n), int(n)), dtype=bool), k=1)


@dataclass(frozen=True)
class AttentionSteps:
    """Every intermediate of one self-attention pass (n tokens, d_k key size, d_v value size)."""

    X: np.ndarray  # (n, d) input embeddings
    Q: np.ndarray  # (n, d_k) queries
    K: np.ndarray  # (n, d_k) keys
    V: np.ndarray  # (n, d_v) values
    scores: np.ndarray  # (n, n) raw Q K^T
    scaled: np.ndarray  # (n, n) scores / (sqrt(d_k) T), masked entries -inf
    weights: np.ndarray  # (n, n) softmax rows, each sums to 1, masked entries exactly 0
    output: np.ndarray  # (n, d_v) Z = weights @ V
    mask: np.ndarray  # (n, n) True where a score was masked
    d_k: int
    scale: bool
    temperature: float

    @property
    def divisor(self) -> float:
        """What the raw scores are divided by: sqrt(d_k) * T (or T alone without scaling)."""
        return (np.sqrt(self.d_k) if self.scale else 1.0) * self.temperature

    @property
    def entropies(self) -> np.ndarray:
        """(n,) entropy in bits of each query's attention row."""
        return entropy(self.weights)


MATRICES = ("X", "W_Q", "W_K", "W_V")


def plural(count: int, noun: str) -> str:
    """``1 row``, ``3 rows``: counts in messages."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def check_shapes(shapes: dict[str, tuple[int, int]], given=MATRICES, source: str = "") -> None:
    """X W_Q, X W_K, X W_V and Q K^T must be defined: else one ValueError naming both matrices of the product
    and the shape each needs. The blame falls on a matrix in ``given`` (the ones the caller chose); the
    others are named with ``source`` after them, e.g. " (the preset's)"."""
    def label(name: str) -> str:
        return name if name in given else f"{name}{source}"

    def text(name: str) -> str:
        return "x".join(map(str, shapes[name]))

    (n, d), (_, d_k) = shapes["X"], shapes["W_Q"]
    for name, columns in (("W_Q", "d_k"), ("W_K", "d_k"), ("W_V", "d_v")):
        rows = shapes[name][0]
        if rows != d and ("X" not in given or name in given):
            raise ValueError(f"{name}: {label('X')} is {n}x{d}, so {name} needs {plural(d, 'row')} "
                             f"({d} x {columns}), got {text(name)}")
        if rows != d:
            raise ValueError(f"X: {label(name)} is {text(name)}, so X needs {plural(rows, 'column')} "
                             f"(n x {rows}), got {text('X')}")
    if shapes["W_K"][1] != d_k:
        wrong, right = ("W_Q", "W_K") if "W_Q" in given and "W_K" not in given else ("W_K", "W_Q")
        raise ValueError(f"{wrong}: {label(right)} is {text(right)}, so {wrong} needs "
                         f"{plural(shapes[right][1], 'column')} (Q K^T needs the same d_k), got {text(wrong)}")


def self_attention(X, W_Q, W_K, W_V, *, scale: bool = True, temperature: float = 1.0,
                   causal: bool = False) -> AttentionSteps:
    """Z = softmax(mask(X W_Q (X W_K)^T / (sqrt(d_k) T))) X W_V, with every step kept."""
    X, W_Q, W_K, W_V = (as_matrix(name, value) for name, value in zip(MATRICES, (X, W_Q, W_K, W_V)))
    check_shapes({"X": X.shape, "W_Q": W_Q.shape, "W_K": W_K.shape, "W_V": W_V.shape})
    n = X.shape[0]
    temperature = as_positive("temperature", temperature)
    d_k = W_Q.shape[1]

    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    scores = Q @ K.T
    mask = causal_mask(n) if causal else np.zeros((n, n), dtype=bool)
    scaled = np.where(mask, -np.inf, scores / ((np.sqrt(d_k) if scale else 1.0) * temperature))
    weights = softmax(scaled)
    output = weights @ V
    frozen(X, Q, K, V, scores, scaled, weights, output, mask)
    return AttentionSteps(X=X, Q=Q, K=K, V=V, scores=scores, scaled=scaled, weights=weights,
                          output=output, mask=mask, d_k=d_k, scale=bool(scale), temperature=temperature)
