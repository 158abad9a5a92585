"""The palette, fonts and sizes every section shares: one colour means one thing everywhere.

Each colour that carries a meaning is listed in ``MEANINGS``. tests/test_palette.py holds every pair of them
apart for normal vision and simulated deuteranopia and protanopia (CAM02-UCS distance), keeps their hues
apart, and keeps text legible on the background; the values came from a search under those constraints.
"""

import numpy as np
from manim import ManimColor, config, interpolate_color

BACKGROUND = ManimColor("#11151C")
TEXT = ManimColor("#ECEFF4")
MUTED = ManimColor("#9AA3B2")
PANEL = ManimColor("#1C222C")

INPUT = TEXT  # X, embeddings: the given data, written like the text
WEIGHT_MATRIX = ManimColor("#F3258C")  # W_Q, W_K, W_V, W_O: learned parameters
QUERY = ManimColor("#638BB4")  # Q: what a token looks for
KEY = ManimColor("#EAAA42")  # K: what a token offers
VALUE = ManimColor("#48DEA7")  # V: what a token carries
SCORE_POSITIVE = ManimColor("#FC556A")  # raw and scaled scores > 0
SCORE_NEGATIVE = ManimColor("#AB4BFF")  # raw and scaled scores < 0
ATTENTION = ManimColor("#FAFF3F")  # softmax weights (also the heads' average), attention lines and arcs
OUTPUT = ManimColor("#11E3FE")  # Z, the mixed output, and what is computed from it
MASKED = ManimColor("#54524F")  # masked (future) positions
HIGHLIGHT = ManimColor("#FFFFFF")  # the frame round the row/column being used right now
# Attention heads 1, 2, 3: orchid, pink, green. Outside the hues of Q, K, V, A, Z and W, which every section shows, at
# three luminances (0.35, 0.55, 0.24) so that a red-green deficient viewer, or a grey projector, tells them apart by
# lightness alone (tests/test_palette.py), and each a colour at least 1.5:1 darker than the text, so no head's label
# reads as body text (review 14: the cream head 2 was 1.13:1; tests/test_palette_review14.py). A joint search of all
# three (sRGB grid, every test_palette constraint) found no triple that also keeps every meaning 12 apart for
# protanopes: the pink comes 10 from the secondary text and Z, the orchid 10.8 from negative scores for them (the
# floor test_palette allows these pairs). The green keeps 5:1 on the background, so its small text, which
# antialiasing renders darker than the colour, keeps 4.5:1 (the forest green #219333 had 4.6:1 and rendered at 3.7:1).
HEADS = (ManimColor("#DE72FC"), ManimColor("#ECB4D4"), ManimColor("#1E9C06"))
# Each head's colour for its text (labels, numbers), the arcs and cells keeping HEADS: a video's 4:2:0 chroma halves a
# thin stroke's colour, and the green rendered at 4.0:1 (review s14); its lighter tint of the same hue keeps 4.5:1 as
# rendered (tests/test_heads_review15.py). The orchid and the pink already do.
HEAD_TEXTS = (HEADS[0], HEADS[1], ManimColor("#3DBA26"))
# Each head's stroke pattern, a dash's length (0: solid): a second cue beside the lightness, for thin arcs.
HEAD_DASHES = (0.0, 0.2, 0.06)
# The learned section's induction head (its previous-token head is head 1's orchid: the designed head it matches). Not
# a green: the designed pronoun head's green is beside it in one frame, and a mint read as a second green (review s12).
# A peach, the colour the palette's distances leave free beside everything the learned section shows; under a red-green
# deficiency it comes 9 from V, which that section never shows (tests/test_palette.py).
INDUCTION = ManimColor("#FFAA88")

MEANINGS = {"text and X": TEXT, "secondary text": MUTED, "learned W": WEIGHT_MATRIX, "Q": QUERY, "K": KEY,
            "V": VALUE, "score > 0": SCORE_POSITIVE, "score < 0": SCORE_NEGATIVE, "attention": ATTENTION,
            "output Z": OUTPUT, "masked": MASKED, **{f"head {k + 1}": colour for k, colour in enumerate(HEADS)},
            "induction head": INDUCTION}

TEXT_FONT = "Inter"
NUMBER_FONT = "JetBrains Mono"

TITLE_SIZE = 36
BODY_SIZE = 26
CAPTION_SIZE = 22
CELL_SIZE = 24

SMALLEST_CAP_HEIGHT = 14 / 720 * 8  # frame units: 14 px of cap height at 720p, the least a student must read

MARGIN = 0.35
HEADER_HEIGHT = 1.0
FOOTER_HEIGHT = 0.75
SCORE_SATURATION = 0.85  # how far the largest score's cell goes from PANEL to its colour


def body_box() -> tuple[float, float, float, float]:
    """(left, right, bottom, top) of the area between the step header and the caption."""
    half_width, half_height = config.frame_width / 2, config.frame_height / 2
    return (-half_width + MARGIN, half_width - MARGIN,
            -half_height + FOOTER_HEIGHT + MARGIN / 2, half_height - HEADER_HEIGHT - MARGIN / 2)


def weight_colour(weight: float) -> ManimColor:
    """Sequential: background for 0, ATTENTION for 1."""
    return interpolate_color(PANEL, ATTENTION, max(0.0, min(1.0, float(weight))))


def score_colour(score: float, largest: float) -> ManimColor:
    """Diverging: SCORE_NEGATIVE below 0, SCORE_POSITIVE above, PANEL at 0; -inf (masked) in MASKED."""
    if np.isneginf(score):
        return MASKED
    if largest <= 0:
        return PANEL
    share = max(-1.0, min(1.0, float(score) / largest))
    return interpolate_color(PANEL, SCORE_POSITIVE if share > 0 else SCORE_NEGATIVE, abs(share) * SCORE_SATURATION)


def shared_largest(*compared) -> float:
    """max |value| over the finite entries of every array: the one scale for scores compared side by side.

    Give ``score_colour`` this for each of them (scores and scaled scores, unscaled and scaled), so equal values
    get equal colours and dividing by sqrt(d_k) visibly brings the cells towards neutral.
    """
    finite = [np.abs(values[np.isfinite(values)]) for values in map(np.asarray, compared)]
    return max((float(values.max()) for values in finite if values.size), default=0.0)
