"""Input checks shared by every module: one clear ``ValueError`` per problem."""

from __future__ import annotations

import unicodedata

import numpy as np


def as_matrix(name: str, value, rows: int | None = None, cols: int | None = None) -> np.ndarray:
    """Return ``value`` as a finite float matrix of shape (rows, cols), or raise ValueError naming ``name``."""
    expected = f"({'n' if rows is None else rows}, {'d' if cols is None else cols})"
    try:
        matrix = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a matrix of numbers with shape {expected} and equal-length rows") from None
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"{name}: expected a non-empty matrix of shape {expected}, got shape {matrix.shape}")
    if (rows is not None and matrix.shape[0] != rows) or (cols is not None and matrix.shape[1] != cols):
        raise ValueError(f"{name}: expected shape {expected}, got {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"{name}: expected finite numbers, found NaN or infinity")
    return matrix


def as_positive(name: str, value: float) -> float:
    """Return ``value`` as a finite float > 0, or raise ValueError naming ``name``."""
    number = float(value)
    if not np.isfinite(number) or number <= 0:
        raise ValueError(f"{name}: expected a finite number > 0, got {value!r}")
    return number


def as_count(name: str, value: int, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int in [minimum, maximum], or raise ValueError naming ``name``."""
    expected = f"a whole number >= {minimum}" if maximum is None else f"a whole number in {minimum}..{maximum}"
    try:
        whole = not isinstance(value, bool) and int(value) == value
    except (TypeError, ValueError, OverflowError):
        whole = False
    if not whole or value < minimum or (maximum is not None and value > maximum):
        raise ValueError(f"{name}: expected {expected}, got {value!r}")
    return int(value)


def as_words(name: str, sentence: str, max_words: int) -> tuple[str, ...]:
    """The sentence in Unicode NFC split on whitespace: 1..max_words words, or ValueError naming ``name``."""
    if not isinstance(sentence, str):
        raise ValueError(f"{name}: expected a string of words, got {type(sentence).__name__}")
    words = tuple(unicodedata.normalize("NFC", sentence).split())
    if not words:
        raise ValueError(f"{name}: expected at least one word, got an empty or blank sentence")
    if len(words) > max_words:
        raise ValueError(f"{name}: expected at most {max_words} words (MAX_TOKENS), got {len(words)}")
    return words


def frozen(*arrays: np.ndarray) -> None:
    """Make arrays read-only so a result dataclass cannot be changed through them."""
    for array in arrays:
        array.setflags(write=False)
