"""Input checks shared by every module: one clear ``ValueError`` per problem."""

from __future__ import annotations

import unicodedata

import numpy as np
import regex

from attn_math.words import split_words

MAX_SENTENCE_CHARACTERS = 400  # 32 words of 12 letters with their spaces
MAX_WORD_LETTERS = 30  # longer than any Spanish word ("electroencefalografistas" has 24)
MAX_CLUSTER_CHARACTERS = 3  # a letter and two combining accents (Vietnamese needs two)


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
    """The sentence in Unicode NFC split into words (``attn_math.words.split_words``: on whitespace, edge
    punctuation off): 1..max_words words of visible characters, each of at most MAX_WORD_LETTERS letters
    (grapheme clusters) of at most MAX_CLUSTER_CHARACTERS code points, or ValueError naming ``name``. The
    limits bound what a render costs (a word with thousands of combining marks took gigabytes to typeset)
    and invisible characters never reach the screen."""
    if not isinstance(sentence, str):
        raise ValueError(f"{name}: expected a string of words, got {type(sentence).__name__}")
    text = unicodedata.normalize("NFC", sentence)
    if len(text) > MAX_SENTENCE_CHARACTERS:
        raise ValueError(f"{name}: expected at most {MAX_SENTENCE_CHARACTERS} characters, got {len(text)}")
    invisible = sorted({character for character in text
                        if unicodedata.category(character).startswith("C") and not character.isspace()})
    if invisible:
        raise ValueError(f"{name}: expected visible characters, found {', '.join(map(describe_character, invisible))}")
    words = split_words(text)
    if not words:
        got = "only punctuation" if text.strip() else "an empty or blank sentence"
        raise ValueError(f"{name}: expected at least one word, got {got}")
    if len(words) > max_words:
        raise ValueError(f"{name}: expected at most {max_words} words (MAX_TOKENS), got {len(words)}")
    for word in words:
        clusters = regex.findall(r"\X", word)
        if len(clusters) > MAX_WORD_LETTERS or max(map(len, clusters)) > MAX_CLUSTER_CHARACTERS:
            raise ValueError(f"{name}: expected words of at most {MAX_WORD_LETTERS} letters with at most "
                             f"{MAX_CLUSTER_CHARACTERS - 1} accents each, got {word[:MAX_WORD_LETTERS]!r}")
    return words


def describe_character(character: str) -> str:
    """``U+200B ZERO WIDTH SPACE``: how a character no one can see is named in an error."""
    return f"U+{ord(character):04X} {unicodedata.name(character, 'control character')}"


def frozen(*arrays: np.ndarray) -> None:
    """Make arrays read-only so a result dataclass cannot be changed through them."""
    for array in arrays:
        array.setflags(write=False)
