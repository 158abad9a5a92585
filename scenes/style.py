"""The palette, fonts and sizes every section shares: one colour means one thing everywhere.

Colours are from the Okabe-Ito palette, distinguishable with the common colour-vision deficiencies.
"""

from manim import ManimColor, config, interpolate_color

BACKGROUND = ManimColor("#11151C")
TEXT = ManimColor("#ECEFF4")
MUTED = ManimColor("#9AA3B2")
PANEL = ManimColor("#1C222C")

INPUT = ManimColor("#ECEFF4")  # X, embeddings
WEIGHT_MATRIX = ManimColor("#CC79A7")  # W_Q, W_K, W_V, W_O: learned parameters
QUERY = ManimColor("#56B4E9")  # Q: what a token looks for
KEY = ManimColor("#E69F00")  # K: what a token offers
VALUE = ManimColor("#009E73")  # V: what a token carries
SCORE_POSITIVE = ManimColor("#D55E00")  # raw and scaled scores > 0
SCORE_NEGATIVE = ManimColor("#0072B2")  # raw and scaled scores < 0
ATTENTION = ManimColor("#F0E442")  # softmax weights, attention lines and arcs
OUTPUT = ManimColor("#F5F5F5")  # Z, the mixed output
MASKED = ManimColor("#5B616E")  # masked (future) positions
HIGHLIGHT = ManimColor("#FFFFFF")  # the row/column being used right now

TEXT_FONT = "Inter"
NUMBER_FONT = "JetBrains Mono"

TITLE_SIZE = 36
BODY_SIZE = 26
CAPTION_SIZE = 22
CELL_SIZE = 24

MARGIN = 0.35
HEADER_HEIGHT = 1.0
FOOTER_HEIGHT = 0.75


def body_box() -> tuple[float, float, float, float]:
    """(left, right, bottom, top) of the area between the step header and the caption."""
    half_width, half_height = config.frame_width / 2, config.frame_height / 2
    return (-half_width + MARGIN, half_width - MARGIN,
            -half_height + FOOTER_HEIGHT + MARGIN / 2, half_height - HEADER_HEIGHT - MARGIN / 2)


def weight_colour(weight: float) -> ManimColor:
    """Sequential: background for 0, ATTENTION for 1."""
    return interpolate_color(PANEL, ATTENTION, max(0.0, min(1.0, float(weight))))


def score_colour(score: float, largest: float) -> ManimColor:
    """Diverging: SCORE_NEGATIVE below 0, SCORE_POSITIVE above, PANEL at 0."""
    if largest <= 0:
        return PANEL
    share = max(-1.0, min(1.0, float(score) / largest))
    return interpolate_color(PANEL, SCORE_POSITIVE if share > 0 else SCORE_NEGATIVE, abs(share) * 0.85)

