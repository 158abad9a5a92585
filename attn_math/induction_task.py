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


def training_shape(half: int) -> tuple[int, int, int]:
    """(length, shortest period, longest period) of ``training_sequences``' rows: 3 half, half/2 rounded up, 2 half."""
    half = as_count("half", half, 2)
    return 3 * half, (half + 1) // 2, 2 * half


def training_sequences(rng: np.random.Generator, count: int, vocabulary: int, half: int) -> np.ndarray:
    """(count, 3 half) ints, the training data: per row a period p from half/2..2 half and a start m from
    0..2 half - p; distinct random tokens up to position m + p, then the last p tokens again and again to the end
    (x_j = x_{j-p} for j >= m + p). The copy's distance and place vary, so no head can find the earlier copy by
    position alone; and every position 1..2 half - 1 may be one the copy is read from, so the heads learn to work
    at each position of a repeated sequence (``repeated_sequences``: p = half, m = 0, the first 2 half tokens)."""
    count = as_count("count", count)
    length, shortest, longest = training_shape(half)
    vocabulary = as_count("vocabulary", vocabulary, 2 * half, MAX_VOCABULARY)
    fresh = np.argsort(rng.random((count, vocabulary)), axis=1, kind="stable")[:, :2 * half]
    periods = rng.integers(shortest, longest, endpoint=True, size=(count, 1))  # p
    starts = np.floor(rng.random((count, 1)) * (2 * half - periods + 1)).astype(int)  # m
    positions = np.arange(length)
    repeated = positions >= starts + periods
    return np.take_along_axis(fresh, np.where(repeated, starts + (positions - starts) % periods, positions), axis=1)


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
