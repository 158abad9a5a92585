"""How much a head behaves like a previous-token head or an induction head, measured on its attention patterns.

    previous-token score = mean over queries i >= 1 of A[i, i - 1]
    induction score      = mean over queries t whose token occurred before, at s, of A[t, s + 1]

Both are per head, averaged over every sequence given: 1 for a head that does exactly that, about 1 / (number of
keys) for one that spreads its attention evenly.
"""

from __future__ import annotations

import numpy as np

from attn_math.induction_task import previous_occurrence


def checked_patterns(patterns) -> np.ndarray:
    """``patterns`` as a float array (..., H, T, T): one per head (any leading axes: sequences)."""
    patterns = np.asarray(patterns, dtype=float)
    if patterns.ndim < 3 or patterns.shape[-1] != patterns.shape[-2] or patterns.shape[-1] < 2:
        raise ValueError(f"patterns: expected shape (..., heads, T, T) with T >= 2, got {patterns.shape}")
    return patterns


def previous_token_score(patterns) -> np.ndarray:
    """(H,) mean of A[i, i - 1] over i >= 1 and over the leading axes of ``patterns`` (..., H, T, T)."""
    patterns = checked_patterns(patterns)
    T = patterns.shape[-1]
    below_diagonal = patterns[..., np.arange(1, T), np.arange(T - 1)]  # (..., H, T - 1)
    return below_diagonal.reshape(-1, patterns.shape[-3], T - 1).mean(axis=(0, 2))


def induction_score(patterns, tokens) -> np.ndarray:
    """(H,) mean of A[t, s + 1] over the queries t whose token occurred before at s (``previous_occurrence``),
    over every sequence: ``patterns`` (B, H, T, T) with ``tokens`` (B, T), or (H, T, T) with (T,)."""
    patterns = checked_patterns(patterns)
    tokens = np.asarray(tokens)
    if tokens.shape != patterns.shape[:-3] + patterns.shape[-1:] or tokens.ndim not in (1, 2):
        raise ValueError(f"tokens: expected shape {patterns.shape[:-3] + patterns.shape[-1:]} to match patterns "
                         f"{patterns.shape}, got {tokens.shape}")
    patterns = patterns.reshape(-1, *patterns.shape[-3:])
    earlier = previous_occurrence(tokens).reshape(len(patterns), -1)  # (B, T)
    sequence, query = np.nonzero(earlier >= 0)
    if not len(query):
        raise ValueError("tokens: no token occurs twice, so there is nothing to induce")
    chosen = patterns[sequence, :, query, earlier[sequence, query] + 1]  # (repeats, H)
    return chosen.mean(axis=0)
