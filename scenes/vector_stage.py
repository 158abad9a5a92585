"""Vectors as bars (the AI Visual Lab's picture): ``VectorStage``, tokens on top and, under them, one row of
vectors per matrix (X, Q, K, ...): each vector a column of bars, to the right in the full colour when positive, to
the left and dimmed when negative; the first row's bars may be named (the embedding's features) left of it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Line, ManimColor, MathTex, Rectangle, VGroup, interpolate_color

from scenes import style
from scenes.token_labels import COLUMN_ROOM, TokenLabels
from scenes.visuals import label_text

NEGATIVE_DIMMING = 0.55  # how far a negative bar's colour moves towards the background


def sign_colours(colour: ManimColor) -> tuple[ManimColor, ManimColor]:
    """(positive, negative): the role's colour, and the same hue dimmed, so a vector keeps its role."""
    return colour, interpolate_color(colour, style.BACKGROUND, NEGATIVE_DIMMING)


class VectorBars(VGroup):
    """One vector as a column of horizontal bars around a vertical axis; ``largest`` fills half the width."""

    def __init__(self, values: Sequence[float], colour: ManimColor, width: float, height: float, largest: float):
        super().__init__()
        positive, negative = sign_colours(colour)
        slot = height / len(values)
        self.axis = Line([0, height / 2, 0], [0, -height / 2, 0], color=style.MUTED, stroke_width=1.5)
        self.bars = VGroup()
        for index, value in enumerate(values):
            length = max(abs(value) / largest, 0.02) * width / 2
            bar = Rectangle(width=length, height=slot * 0.72, stroke_width=0, fill_opacity=1.0,
                            fill_color=positive if value >= 0 else negative)
            bar.move_to([0, height / 2 - (index + 0.5) * slot, 0], aligned_edge=LEFT if value >= 0 else RIGHT)
            self.bars.add(bar)
        self.add(self.axis, self.bars)


class VectorRow(VGroup):
    """One row of vectors (a matrix, a token per row of it) on the token columns, with its MathTex name."""

    def __init__(self, matrix: np.ndarray, colour: ManimColor, centres: Sequence[float], spacing: float,
                 height: float, name: str):
        super().__init__()
        matrix = np.asarray(matrix, dtype=float)
        largest = float(np.abs(matrix).max()) or 1.0
        self.vectors = VGroup(*[VectorBars(vector, colour, spacing * 0.8, height, largest).move_to([x, 0, 0])
                                for vector, x in zip(matrix, centres)])
        self.name = MathTex(name, color=colour, font_size=style.BODY_SIZE + 6)
        self.name.next_to(self.vectors, LEFT, buff=0.35)
        self.add(self.vectors, self.name)


class VectorStage(VGroup):
    """Tokens as columns: their labels on top, then one ``VectorRow`` per (matrix, colour, name).

    Built to fit ``width`` x ``height`` with its top-left corner at the origin; ``gaps[k]`` is the
    space above row k (default ``gap``), e.g. room for lines between two rows. ``features`` names the
    first row's bars, one name per bar, in a column left of its first vector (``feature_labels``);
    a row is then as tall as its names need, up to FEATURE_ROW.
    """

    NAME_WIDTH = 1.1  # room left of the first column for the row names
    WIDEST_COLUMN = 1.6
    TALLEST_ROW = 1.7
    FEATURE_ROW = 3.4  # a row of named bars: a name per bar, each a readable line apart
    FEATURE_GAP = 0.25

    def __init__(self, tokens: Sequence[str], rows: Sequence[tuple[np.ndarray, ManimColor, str]], width: float,
                 height: float, query: int | None = None, gap: float = 0.3, gaps: Sequence[float] | None = None,
                 features: Sequence[str] | None = None):
        super().__init__()
        gaps = list(gaps) if gaps is not None else [gap] * len(rows)
        names = VGroup(*[label_text(name, style.MUTED, style.CAPTION_SIZE) for name in features or ()])
        names_width = names.width + self.FEATURE_GAP if features else 0.0
        spacing = min(self.WIDEST_COLUMN, (width - self.NAME_WIDTH - names_width) / len(tokens))
        centres = [self.NAME_WIDTH + names_width + spacing * (j + 0.5) for j in range(len(tokens))]
        self.tokens = TokenLabels(tokens, centres, spacing, query)
        self.tokens.shift(DOWN * self.tokens.get_top()[1])
        tallest = self.FEATURE_ROW if features else self.TALLEST_ROW
        row_height = min(tallest, (height - self.tokens.height - sum(gaps)) / len(rows))
        top = self.tokens.get_bottom()[1]
        self.rows = []
        for (matrix, colour, name), space in zip(rows, gaps):
            row = VectorRow(matrix, colour, centres, spacing, row_height, name)
            row.shift(UP * (top - space - row.vectors.get_top()[1]))
            top = row.vectors.get_bottom()[1]
            self.rows.append(row)
        self.features = self.feature_labels(names, self.rows[0]) if features else VGroup()
        self.add(self.tokens, *self.rows, self.features)

    def feature_labels(self, names: VGroup, row: "VectorRow") -> VGroup:
        """Each name right-aligned left of the first vector, level with its bar, shrunk to the bar's slot;
        the row's own name (X) moves left of them."""
        first = row.vectors[0]
        slot = first.axis.height / len(first.bars)
        scale = min(1.0, slot * COLUMN_ROOM / max(name.height for name in names))
        for name, bar in zip(names, first.bars):
            name.scale(scale).set_y(bar.get_y()).align_to(first.get_left() + LEFT * self.FEATURE_GAP, RIGHT)
        row.name.next_to(names, LEFT, buff=0.3)
        return names
