"""The task the learned section's model is trained on: random tokens whose second half repeats the first.

    tokens = [a_0, a_1, ..., a_{half-1}, a_0, a_1, ..., a_{half-1}]    a_i distinct, drawn from 0..vocabulary-1

The first half cannot be predicted (only "not a token already seen"); each token of the second half after its
first is predicted exactly by copying what followed the current token the last time it occurred: the induction
circuit (Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits"; Olsson et al. 2022,
"In-context Learning and Induction Heads").
"""

from __future__ import annotations

import numpy as np

from attn_math.validation import as_count

MAX_VOCABULARY = 256


def repeated_sequences(rng: np.random.Generator, count: int, vocabulary: int, half: int) -> np.ndarray:
    """(count, 2 half) ints: per row, ``half`` distinct tokens of 0..vocabulary-1 (without replacement, so every
    token's previous occurrence is unique), then the same ``half`` tokens again in the same order."""
    count = as_count("count", count)
    vocabulary = as_count("vocabulary", vocabulary, 2, MAX_VOCABULARY)
    half = as_count("half", half, 2, vocabulary)
    first = np.argsort(rng.random((count, vocabulary)), axis=1, kind="stable")[:, :half]
    return np.concatenate([first, first], axis=1)


def periodic_sequences(rng: np.random.Generator, count: int, vocabulary: int, length: int,
                       shortest_period: int) -> np.ndarray:
    """(count, length) ints: per row a period p drawn uniformly from shortest_period..length/2, p distinct tokens,
    repeated until the row is full (x_t = x_{t - p}). The training data: with one fixed period a head could find
    the earlier copy by its position alone, without reading tokens; ``repeated_sequences`` is the case p = length/2."""
    count = as_count("count", count)
    vocabulary = as_count("vocabulary", vocabulary, 2, MAX_VOCABULARY)
    half = as_count("length", length, 4) // 2
    shortest_period = as_count("shortest_period", shortest_period, 1, half)
    first = np.argsort(rng.random((count, vocabulary)), axis=1, kind="stable")[:, :half]
    periods = rng.integers(shortest_period, half, endpoint=True, size=(count, 1))
    return np.take_along_axis(first, np.arange(length) % periods, axis=1)


def previous_occurrence(tokens) -> np.ndarray:
    """Same shape as ``tokens`` (one sequence (T,) or a batch (B, T)): the last position s < t with
    tokens[s] == tokens[t], -1 where the token has not occurred before."""
    tokens = np.asarray(tokens)
    if tokens.ndim not in (1, 2) or tokens.shape[-1] == 0 or not np.issubdtype(tokens.dtype, np.integer):
        raise ValueError(f"tokens: expected integers of shape (T,) or (B, T), got {tokens.dtype} {tokens.shape}")
    rows = np.atleast_2d(tokens)
    T = rows.shape[1]
    same = rows[:, :, None] == rows[:, None, :]  # (B, t, s)
    earlier = same & np.tril(np.ones((T, T), dtype=bool), k=-1)
    last = T - 1 - np.argmax(earlier[:, :, ::-1], axis=2)
    found = np.where(earlier.any(axis=2), last, -1)
    return found.reshape(tokens.shape)
