"""The one sentence check of every section, as the config applies it."""

from __future__ import annotations

from attn_math.validation import as_words, describe_character
from lesson.glyphs import undrawable


def check_sentence(value: str, max_tokens: int) -> str:
    """``attn_math.validation.as_words`` (NFC, visible characters, punctuation split off, 1..max_tokens words of
    bounded length), and every character drawable by some installed font (``lesson.glyphs``)."""
    as_words("sentence", value, max_tokens)
    missing = undrawable(value)
    if missing:
        raise ValueError(f"no installed font can draw {', '.join(map(describe_character, missing))}; "
                         "remove it or install a font that has it")
    return value
