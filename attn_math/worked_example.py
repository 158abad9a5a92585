"""Section 1's worked example: three tokens, embeddings of dimension 2, small integers.

The lesson's own defaults come from notes we do not have, so these are ours, chosen so that
every intermediate can be checked by hand:

    X = [[1, 0], [0, 2], [1, 1]]      W_Q = [[3, 0], [-1, 2]]   W_K = [[0, 2], [1, 0]]   W_V = [[1, 1], [0, 1]]
    Q = [[3, 0], [-2, 4], [2, 2]]     K = [[0, 2], [2, 0], [1, 2]]   V = [[1, 1], [0, 2], [1, 2]]
    QK^T = [[0, 6, 3], [8, -4, 6], [4, 4, 6]]

The three tokens carry the words of "el gato duerme" (``TOKENS``; the locale's ``matrix.words`` translates
them): «el» attends mostly to «gato», «gato» to «el», «duerme» to itself. The presets change one thing each:

* ``large_scores``: X tripled, so every score is nine times larger; without the division by
  sqrt(d_k) every softmax row collapses to a one-hot.
* ``shared_projection``: W_K = W_Q, so each score is q_i . q_j and the diagonal (a token with
  itself) dominates: the reason learned projections keep W_K and W_Q apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_math.validation import frozen


@dataclass(frozen=True)
class MatrixPreset:
    """The editable inputs of section 1: X (n, d), W_Q and W_K (d, d_k), W_V (d, d_v)."""

    X: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray


def _preset(X, W_Q, W_K, W_V) -> MatrixPreset:
    arrays = [np.array(matrix, dtype=float) for matrix in (X, W_Q, W_K, W_V)]
    frozen(*arrays)
    return MatrixPreset(*arrays)


default = _preset(X=[[1, 0], [0, 2], [1, 1]], W_Q=[[3, 0], [-1, 2]],
                  W_K=[[0, 2], [1, 0]], W_V=[[1, 1], [0, 1]])
large_scores = _preset(3 * default.X, default.W_Q, default.W_K, default.W_V)
shared_projection = _preset(default.X, default.W_Q, default.W_Q, default.W_V)

TOKENS = ("el", "gato", "duerme")  # the words of X's rows, in the lecture's language (Spanish)

X, W_Q, W_K, W_V = default.X, default.W_Q, default.W_K, default.W_V

PRESETS = {"default": default, "large_scores": large_scores, "shared_projection": shared_projection}
