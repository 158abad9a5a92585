"""Where a line of text sits: its baseline, and moving a text onto another's, as words on one line are.

The baseline is found from the glyphs of the letters and digits that rest on it, so neither descenders
(g, p), raised signs (=, −, ·) nor subscripts move it: in "T =" the T alone decides, in "p =" the p
lifted by its measured descent.
"""

from __future__ import annotations

from functools import cache

from manim import UP, MarkupText

DESCENDERS = frozenset("gjpqyQ(),;")
BASELINE_TOLERANCE = 0.01  # frame units: glyph bottoms this close sit on one line (round letters overshoot it)
MEASURE_SIZE = 48


def baseline(label) -> float:
    """y of the line the letters of ``label`` (a text, a number or a formula) sit on."""
    glyphs = label.family_members_with_points()
    if not glyphs:
        return label.get_bottom()[1]
    characters = "".join(getattr(label, "shown_text", "").split())
    if len(characters) == len(glyphs):  # one glyph per character: the characters say which glyphs rest on the line
        resting = [glyph for glyph, character in zip(glyphs, characters)
                   if character.isalnum() and character not in DESCENDERS]
        if not resting and hasattr(label, "font"):
            return _descender_baseline(label, glyphs, characters)
        glyphs = resting or glyphs
    bottoms = [float(glyph.get_bottom()[1]) for glyph in glyphs]
    return max(bottoms, key=lambda bottom: (sum(abs(bottom - other) < BASELINE_TOLERANCE for other in bottoms), bottom))


def sit_on(label, y: float):
    """Move ``label`` vertically so its letters sit on y."""
    return label.shift(UP * (y - baseline(label)))


def _descender_baseline(label, glyphs, characters) -> float:
    """A line of descenders and signs only ("p ="): the first descender's bottom plus its depth."""
    glyph, character = next(((glyph, character) for glyph, character in zip(glyphs, characters)
                             if character in DESCENDERS), (glyphs[0], characters[0]))
    return float(glyph.get_bottom()[1]) + _depth_per_point(label.font, character) * label.font_size


@cache
def _depth_per_point(font: str, character: str) -> float:
    """How far ``character`` reaches under the baseline, per point of font size (measured beside an H)."""
    pair = MarkupText("H" + character, font=font, font_size=MEASURE_SIZE)
    return (pair[0].get_bottom()[1] - pair[1].get_bottom()[1]) / MEASURE_SIZE
