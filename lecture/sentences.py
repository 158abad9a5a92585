"""The one sentence check of every section, as the config applies it."""

from __future__ import annotations

from attn_math.validation import as_words


def check_sentence(value: str, max_tokens: int) -> str:
    """``attn_math.validation.as_words``: NFC, visible characters, 1..max_tokens words of bounded length."""
    as_words("sentence", value, max_tokens)
    return value
