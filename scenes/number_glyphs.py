"""Numbers put together from glyphs typeset once per font size.

A manim ``Text`` runs Pango and parses an SVG for every new string: 40 ms a number, most of a
section's build time when bars and readouts tick through hundreds of values. The number font is
monospaced, so in any string character k starts k advances right of character 0: a number is copies
of cached glyphs shifted to k * advance, the same points ``Text`` would produce (tests compare them).

One glyph differs on purpose: JetBrains Mono draws U+2212 MINUS SIGN exactly like the hyphen, a dash
two thirds as wide as its "+", so "−2" read as "-2". Our minus is the hyphen stretched to the width
of the plus's bar: a true minus, level with the plus and as thick as the hyphen.
"""

from __future__ import annotations

from functools import cache

from manim import RIGHT, ManimColor, Text, VGroup

from lesson.numbers import MINUS

GLYPHS = f"0123456789.,{MINUS}e∞"  # all format_number writes, with either decimal separator
PLUS = len(GLYPHS)  # index of the "+" typeset after GLYPHS: the minus is drawn as wide as its bar


class NumberText(VGroup):
    """A number on screen, one glyph per character; ``shown_text`` holds the string."""

    def __init__(self, glyphs, shown: str):
        super().__init__(*glyphs)
        self.shown_text = shown


@cache
def _typeset(font: str, font_size: float) -> tuple[VGroup, float]:
    """Every glyph once, then a "+" and a second "0" whose offset from the first gives the advance."""
    reference = Text(GLYPHS + "+0", font=font, font_size=font_size)
    advance = (reference[-1].get_left()[0] - reference[0].get_left()[0]) / (len(GLYPHS) + 1)
    minus = GLYPHS.index(MINUS)
    reference[minus].stretch_to_fit_width(reference[PLUS].width)
    reference[minus].set_x(reference[PLUS].get_x() - (PLUS - minus) * advance)
    return reference, advance


def composed_number(shown: str, font: str, font_size: float, colour: ManimColor) -> NumberText | None:
    """``shown`` as shifted copies of cached glyphs, centred like Text; None if a character has no glyph
    (format_number writes none such: the fallback is for strings from elsewhere)."""
    if not shown or any(character not in GLYPHS for character in shown):
        return None
    reference, advance = _typeset(font, font_size)
    glyphs = []
    for k, character in enumerate(shown):
        r = GLYPHS.index(character)
        glyphs.append(reference[r].copy().shift((k - r) * advance * RIGHT))
    return NumberText(glyphs, shown).set_fill(colour, opacity=1.0).center()
