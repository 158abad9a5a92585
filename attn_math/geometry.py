"""The geometry behind two formulas of section 1, for vectors of at most two components (row vectors, as in
the package docstring), drawn as arrows in the plane:

    q . k = |q| |k| cos(theta)                      the score: q's shadow on k's line, times |k|
    z_i = sum_j A[i, j] v_j,   sum_j A[i, j] = 1    the output: a weighted average, inside the values' hull

A vector of one component lies on the first axis (``in_plane`` gives it a second component 0); one of three or
more has no faithful picture in the plane, and ``in_plane`` refuses it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_math.validation import as_matrix, frozen

PLANE_DIMENSIONS = 2  # components an arrow in the plane has


def in_plane(vectors, name: str = "vectors") -> np.ndarray:
    """(n, d) rows with d <= 2 as (n, 2) points of the plane: a 1-component row (x) is (x, 0)."""
    vectors = as_matrix(name, vectors)
    if vectors.shape[1] > PLANE_DIMENSIONS:
        raise ValueError(f"{name}: expected rows of at most {PLANE_DIMENSIONS} components to draw in the plane, "
                         f"got {vectors.shape[1]}")
    return np.pad(vectors, ((0, 0), (0, PLANE_DIMENSIONS - vectors.shape[1])))


def length(v) -> float:
    """|v| = sqrt(v . v)."""
    return float(np.sqrt(np.dot(v, v)))


def projection_length(q, k) -> float:
    """q . k / |k|: the signed length of q's shadow on the line of k (negative when it falls behind the
    origin); 0 for k = 0, which has no line to fall on (and scores 0 with every q)."""
    norm = length(k)
    return float(np.dot(q, k) / norm) if norm else 0.0


def angle_between(q, k) -> float:
    """theta = arccos(q . k / (|q| |k|)) in radians, in [0, pi]; NaN when q or k is 0 (no direction)."""
    norms = length(q) * length(k)
    if not norms:
        return float("nan")
    return float(np.arccos(np.clip(np.dot(q, k) / norms, -1.0, 1.0)))


@dataclass(frozen=True)
class Alignment:
    """Query ``query`` against every key: q . k_j = |q| |k_j| cos(theta_j) = |k_j| * (q's shadow on k_j)."""

    query: int  # which row of Q
    q: np.ndarray  # (2,) the query in the plane
    keys: np.ndarray  # (n, 2) the keys in the plane
    query_length: float  # |q|
    key_lengths: np.ndarray  # (n,) |k_j|
    angles: np.ndarray  # (n,) theta_j in radians (NaN where q or k_j is 0)
    projections: np.ndarray  # (n,) q . k_j / |k_j|: the shadow's signed length
    feet: np.ndarray  # (n, 2) where the shadow ends: (q . k_j / |k_j|^2) k_j
    scores: np.ndarray  # (n,) q . k_j
    aligned: tuple[int, ...]  # the keys seen with the largest score among them: those q points along most
    seen: tuple[int, ...]  # the keys the query sees (under a causal mask, k_1 ... k_query)

    @property
    def all_tied(self) -> bool:
        """Every key seen has the largest score (a zero query, say): none is more aligned than another."""
        return len(self.seen) > 1 and len(self.aligned) == len(self.seen)

    def degrees(self, j: int) -> float:
        """theta_j in degrees."""
        return float(np.degrees(self.angles[j]))


def alignment(Q, K, query: int = 0, causal: bool = False) -> Alignment:
    """Row ``query`` of Q (n, d_k) against each row of K (n, d_k), d_k <= 2: the score as lengths and an angle;
    the most aligned among the keys it sees (``causal``: k_j for j <= query only)."""
    Q, K = in_plane(Q, "Q"), in_plane(K, "K")
    if not 0 <= query < len(Q):
        raise ValueError(f"query: expected a row of Q from 0 to {len(Q) - 1}, got {query}")
    q = Q[query]
    key_lengths = np.array([length(k) for k in K])
    projections = np.array([projection_length(q, k) for k in K])
    feet = np.array([projection / norm * k if norm else np.zeros(PLANE_DIMENSIONS)
                     for k, norm, projection in zip(K, key_lengths, projections)])
    scores = K @ q
    seen = np.arange(query + 1 if causal else len(K))
    aligned = tuple(int(j) for j in seen if np.isclose(scores[j], scores[seen].max()))
    angles = np.array([angle_between(q, k) for k in K])
    frozen(q, K, key_lengths, angles, projections, feet, scores)
    return Alignment(query=query, q=q, keys=K, query_length=length(q), key_lengths=key_lengths, angles=angles,
                     projections=projections, feet=feet, scores=scores, aligned=aligned,
                     seen=tuple(int(j) for j in seen))


@dataclass(frozen=True)
class WeightedAverage:
    """z = sum_j w_j v_j with w >= 0 summing to 1: a point of the values' convex hull, nearest the heaviest."""

    weights: np.ndarray  # (n,) one row of A
    values: np.ndarray  # (n, 2) the rows of V in the plane
    terms: np.ndarray  # (n, 2) w_j v_j
    partial_sums: np.ndarray  # (n + 1, 2) 0, w_1 v_1, w_1 v_1 + w_2 v_2, ..., z: the terms laid tip to tail
    z: np.ndarray  # (2,) the output row


def weighted_average(weights, V) -> WeightedAverage:
    """z = weights @ V for one row of weights (n,) and V (n, d_v), d_v <= 2, with the terms w_j v_j."""
    V = in_plane(V, "V")
    weights = np.array(weights, dtype=float)  # a copy: freezing it must not freeze the caller's
    if weights.shape != (len(V),) or np.any(weights < 0) or not np.isclose(weights.sum(), 1.0):
        raise ValueError(f"weights: expected {len(V)} numbers >= 0 summing to 1 (one row of A)")
    terms = weights[:, None] * V
    partial_sums = np.vstack([np.zeros(PLANE_DIMENSIONS), np.cumsum(terms, axis=0)])
    z = weights @ V
    frozen(weights, V, terms, partial_sums, z)
    return WeightedAverage(weights=weights, values=V, terms=terms, partial_sums=partial_sums, z=z)
