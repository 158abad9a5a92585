"""The one sentence check of every section, as the config applies it."""

from __future__ import annotations

import regex

from attn_math.validation import as_words, describe_character
from lesson.glyphs import undrawable

# The scenes draw a token's letters left to right as the font gives them, unshaped: Latin (with its accents), Greek and
# Cyrillic come out whole; Arabic and Hebrew lost letters and order (stills of 2026-12-05), and a script joined or
# reordered by shaping would too. Common and Inherited: digits, punctuation, symbols, combining accents.
OTHER_SCRIPTS = regex.compile(r"[^\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}\p{sc=Common}\p{sc=Inherited}]")


def check_sentence(value: str, max_tokens: int) -> str:
    """``attn_math.validation.as_words`` (NFC, visible characters, punctuation split off, 1..max_tokens words of
    bounded length), letters of the scripts the scenes draw (``OTHER_SCRIPTS``), and every character drawable by
    some installed font (``lesson.glyphs``)."""
    as_words("sentence", value, max_tokens)
    others = list(dict.fromkeys(OTHER_SCRIPTS.findall(value)))
    if others:
        more = f" and {len(others) - 1} more of other scripts" if len(others) > 1 else ""
        raise ValueError(f"expected Latin, Greek or Cyrillic letters (the scenes draw left to right, unshaped), "
                         f"found {describe_character(others[0])}{more}")
    missing = undrawable(value)
    if missing:
        raise ValueError(f"no installed font can draw {', '.join(map(describe_character, missing))}; "
                         "remove it or install a font that has it")
    return value
