"""Why the scores are divided by sqrt(d_k).

If q and k have independent components with mean 0 and variance 1,

    Var(q · k) = sum_{i=1}^{d_k} Var(q_i k_i) = d_k,

so raw scores spread like sqrt(d_k). Unscaled, large scores push the softmax towards a
one-hot whose gradient is almost zero; dividing by sqrt(d_k) brings the spread back to 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_math.attention import entropy, softmax
from attn_math.validation import as_count, frozen

MAX_D_K = 4096
MIN_KEYS, MAX_KEYS = 2, 16
DEVIATION_PAIRS = 20000  # pairs q, k a measured deviation of q · k is taken over
_NORMALS_PER_BLOCK = 1 << 21  # bounds the memory of score_deviation at large d_k (16 MB per block)



def score_samples(d_k: int, n_samples: int = DEVIATION_PAIRS, seed: int = 0) -> np.ndarray:
    """q · k for n_samples pairs q, k ~ N(0, I_{d_k}) drawn with the given seed, pair after pair: (n_samples,).

    The draws are sequential, so the first m samples are the same whatever n_samples >= m is asked for.
    """
    d_k = as_count("d_k", d_k, 1, MAX_D_K)
    n_samples = as_count("n_samples", n_samples, minimum=2)
    rng = np.random.default_rng(as_count("seed", seed, minimum=0))
    scores = np.empty(n_samples)  # (n_samples,) one q · k per pair
    pairs_per_block = max(1, _NORMALS_PER_BLOCK // (2 * d_k))
    for start in range(0, n_samples, pairs_per_block):
        q_and_k = rng.standard_normal((min(pairs_per_block, n_samples - start), 2, d_k))
        scores[start:start + len(q_and_k)] = np.einsum("nd,nd->n", q_and_k[:, 0], q_and_k[:, 1])
    return scores


def standard_deviation(x) -> float:
    """sigma = sqrt((1/n) sum_i (x_i - mean x)^2): how wide a cloud of n values is."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size < 2 or not np.all(np.isfinite(x)):
        raise ValueError(f"x: expected at least two finite values in one row, got shape {x.shape}")
    return float(np.sqrt(np.mean((x - np.mean(x)) ** 2)))


def score_deviation(d_k: int, n_samples: int = DEVIATION_PAIRS, seed: int = 0) -> float:
    """std(q · k) over n_samples pairs q, k ~ N(0, I_{d_k}) drawn with the given seed: about sqrt(d_k)."""
    return standard_deviation(score_samples(d_k, n_samples, seed))


def scaled_score_deviation(d_k: int, n_samples: int = DEVIATION_PAIRS, seed: int = 0) -> float:
    """std(q · k / sqrt(d_k)) = std(q · k) / sqrt(d_k) over score_deviation's draws: about 1 for every d_k."""
    return score_deviation(d_k, n_samples, seed) / float(np.sqrt(d_k))


@dataclass(frozen=True)
class ScoreCloud:
    """The first n_points scores q · k of score_deviation's draws, raw and divided by sqrt(d_k)."""

    d_k: int
    scores: np.ndarray  # (n_points,) q · k, spread about sqrt(d_k)
    scaled_scores: np.ndarray  # (n_points,) q · k / sqrt(d_k), spread about 1
    deviation: float  # standard_deviation(scores)
    scaled_deviation: float  # standard_deviation(scaled_scores) = deviation / sqrt(d_k)


def score_cloud(d_k: int, n_points: int = 400, seed: int = 0) -> ScoreCloud:
    """scores = q · k for the first n_points pairs, and scores / sqrt(d_k), with their standard deviations."""
    scores = score_samples(d_k, n_points, seed)
    scaled_scores = scores / np.sqrt(d_k)
    frozen(scores, scaled_scores)
    return ScoreCloud(d_k=d_k, scores=scores, scaled_scores=scaled_scores, deviation=standard_deviation(scores),
                      scaled_deviation=standard_deviation(scaled_scores))


@dataclass(frozen=True)
class ScalingDemo:
    """One query against n_keys keys with N(0, 1) components, softmaxed without and with 1/sqrt(d_k)."""

    d_k: int
    query: np.ndarray  # (d_k,) q
    keys: np.ndarray  # (n_keys, d_k) one key k_j per row
    scores: np.ndarray  # (n_keys,) k_j · q, spread about sqrt(d_k)
    scaled_scores: np.ndarray  # (n_keys,) scores / sqrt(d_k), spread about 1
    weights_unscaled: np.ndarray  # (n_keys,) softmax(scores)
    weights_scaled: np.ndarray  # (n_keys,) softmax(scaled_scores)
    entropy_unscaled: float  # bits
    entropy_scaled: float  # bits


def softmax_slopes(weights) -> np.ndarray:
    """p_j (1 − p_j) = ∂p_j/∂s_j, (n_keys,): how far key j's weight moves as its own score moves, the diagonal of
    the softmax's Jacobian diag(p) − p pᵀ. Near 0 for a weight near 0 or near 1: a one-hot row passes almost no
    gradient back to any score; their sum, 1 − Σ p_j², is 0 for a one-hot row and 1 − 1/n for a uniform one."""
    weights = np.asarray(weights, dtype=float)
    return weights * (1.0 - weights)


def scaling_demo(d_k: int, n_keys: int = 8, seed: int = 0) -> ScalingDemo:
    """scores = K q with K (n_keys, d_k), q (d_k,) ~ N(0, 1); softmax(scores) vs softmax(scores / sqrt(d_k)).

    The components are drawn as one (d_k, 1 + n_keys) array, query in column 0. numpy fills
    it row by row, i.e. one component of every vector at a time, so for a fixed seed and n_keys
    the draws are nested across d_k: the vectors at d_k = 8 are the first 8 components of
    those at d_k = 512, and their scores are partial sums of the larger ones. A scene stepping
    through d_k = 2, 8, 64, 512 thus shows the same keys' scores growing.
    """
    d_k = as_count("d_k", d_k, 1, MAX_D_K)
    n_keys = as_count("n_keys", n_keys, MIN_KEYS, MAX_KEYS)
    components = np.random.default_rng(as_count("seed", seed, minimum=0)).standard_normal((d_k, 1 + n_keys))
    query, keys = components[:, 0].copy(), components[:, 1:].T.copy()
    scores = keys @ query
    scaled_scores = scores / np.sqrt(d_k)
    weights_unscaled, weights_scaled = softmax(scores), softmax(scaled_scores)
    frozen(query, keys, scores, scaled_scores, weights_unscaled, weights_scaled)
    return ScalingDemo(d_k=d_k, query=query, keys=keys, scores=scores, scaled_scores=scaled_scores,
                       weights_unscaled=weights_unscaled, weights_scaled=weights_scaled,
                       entropy_unscaled=float(entropy(weights_unscaled)),
                       entropy_scaled=float(entropy(weights_scaled)))


MEAN_ROWS = 1000  # rows of random keys the divided softmax's mean entropy and slope are taken over


@dataclass(frozen=True)
class ScaledMeans:
    """Over many rows of random q and keys at one d_k, the divided softmax's mean entropy (bits) and mean Σ p(1 − p)."""

    entropy: float
    slope: float


def scaled_means(d_k: int, n_keys: int = 8, rows: int = MEAN_ROWS, seed: int = 0) -> ScaledMeans:
    """Mean over ``rows`` independent rows (q and ``n_keys`` keys, components ~ N(0, 1)) of H(softmax(K q / √d_k)) and
    of Σ_j p_j(1 − p_j): a single row (``scaling_demo``) is one draw of these, spread by about 0.3-0.4 bits; their
    means barely move with d_k, since q·k/√d_k has variance 1 whatever d_k."""
    d_k = as_count("d_k", d_k, 1, MAX_D_K)
    n_keys = as_count("n_keys", n_keys, MIN_KEYS, MAX_KEYS)
    rows = as_count("rows", rows, 1)
    components = np.random.default_rng(as_count("seed", seed, minimum=0)).standard_normal((rows, d_k, 1 + n_keys))
    scores = np.einsum("rd,rdk->rk", components[:, :, 0], components[:, :, 1:]) / np.sqrt(d_k)
    weights = softmax(scores)
    return ScaledMeans(entropy=float(entropy(weights).mean()), slope=float(softmax_slopes(weights).sum(axis=-1).mean()))
