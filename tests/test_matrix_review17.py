"""Review s16 of section 01 matrix (graded 9): the exponent of «1 = e^{4.24}» over the exponentials (steps 9-10) was
15 px at 720p, the only digits of the section under 16 px. The label is the shared SoftmaxMoves piece's, as in
scaling's step 4."""

from __future__ import annotations

from manim import MathTex

from tests.scene_checks import recorded

PIXELS = 720 / 8  # pixels of the 720p lecture per frame unit
LEAST_PIXELS = 16


def test_the_exponent_of_the_line_of_one_is_16_px():
    """Every «1 = e^{max}» the matrix scene plays: its exponent's digits, measured glyph by glyph, 16 px or more."""
    scene, log = recorded("matrix")
    labels = {id(part): part for kind, play in log if kind == "play" for animated in play.animated
              for part in animated.get_family() if isinstance(part, MathTex) and part.tex_string.startswith("1 = e^")}
    assert labels
    for label in labels.values():
        digits = [glyph for glyph in label.family_members_with_points()][3:]  # 1, =, e, then the exponent
        assert min(glyph.height for glyph in digits if glyph.height > 0.05) * PIXELS >= LEAST_PIXELS, label.tex_string
