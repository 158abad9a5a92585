"""Sizes the lesson mentions but no section computes: cost, per-head dimension, the scaling factor.

The guide's exercises 5 and 6: a Transformer with d_model = 512 and h = 8 heads has
d_k = d_model / h = 64 per head and scales its scores by 1 / sqrt(64) = 1/8; the lab uses d_k = 8.
"""

from __future__ import annotations

import math

import numpy as np

from attn_math.attention import entropy, softmax
from attn_math.validation import as_count

GUIDE_D_MODEL = 512  # the original Transformer's model dimension (guide, exercise 6)
GUIDE_HEADS = 8
LAB_D_K = 8  # the AI Visual Lab's key dimension (guide, exercise 5)


def head_dimension(d_model: int, heads: int) -> int:
    """d_k = d_model / h: each head gets an equal slice of the model dimension."""
    d_model, heads = as_count("d_model", d_model), as_count("heads", heads)
    if d_model % heads:
        raise ValueError(f"heads: expected a divisor of d_model = {d_model}, got {heads}")
    return d_model // heads


def scale_factor(d_k: int) -> float:
    """1 / sqrt(d_k), what the scores are multiplied by."""
    return 1.0 / math.sqrt(as_count("d_k", d_k))


def score_multiplications(n: int, d_k: int) -> int:
    """n² · d_k: QKᵀ has n × n cells, each a sum of d_k products (the O(n²·d) cost)."""
    return as_count("n", n) ** 2 * as_count("d_k", d_k)


def score_variances(scores, d_k: int) -> tuple[float, float]:
    """(Var(scores), Var(scores / sqrt(d_k))) over all cells: dividing by sqrt(d_k) divides the variance by d_k."""
    scores = np.asarray(scores, dtype=float)
    before = float(np.var(scores[np.isfinite(scores)]))
    return before, before / as_count("d_k", d_k)


def mean_row_entropy(d_k: int, divisor: float, n_keys: int, rows: int = 4000, seed: int = 0) -> float:
    """The mean, over ``rows`` queries q, of H(softmax(K q / divisor)) in bits, with q and the n_keys keys of K
    ~ N(0, I_{d_k}): how sharp attention is when dot products of d_k components are divided by ``divisor``.
    Divided by sqrt(d_k), the scores spread about 1 whatever d_k is, so this mean barely moves with d_k (guide,
    exercise 5: the real head's larger divisor keeps the lab's sharpness)."""
    d_k, n_keys, rows = as_count("d_k", d_k), as_count("n_keys", n_keys, minimum=2), as_count("rows", rows)
    components = np.random.default_rng(as_count("seed", seed, minimum=0)).standard_normal((rows, 1 + n_keys, d_k))
    queries, keys = components[:, 0], components[:, 1:]  # (rows, d_k), (rows, n_keys, d_k)
    scores = np.einsum("rkd,rd->rk", keys, queries) / float(divisor)  # (rows, n_keys)
    return float(np.mean(entropy(softmax(scores))))
