"""An n x n matrix of a sentence: ``TokenHeatmap`` with its query tokens as row labels and its key tokens as column
labels, masked cells grey; it holds a LabelledMatrix (``sentence_matrix``), or a ``ColourHeatmap``
(``scenes.heatmap.Heatmap`` dressed as a LabelledMatrix) when the cells are too small for numbers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import LEFT, RIGHT, UP, ManimColor, MathTex, SurroundingRectangle, VGroup

from scenes import style
from scenes.heatmap import Heatmap
from scenes.token_labels import COLUMN_ROOM, MIN_FONT_SIZE, TokenLabels, abbreviated, smallest_line_height, token_text
from scenes.visuals import CELL_HEIGHT, LabelledMatrix, bracket, sit_on


class ColourHeatmap(VGroup):
    """Colour only: a ``scenes.heatmap.Heatmap`` in a LabelledMatrix's brackets and label, with the same
    ``values``, ``cell_grid``, ``entries`` (empty), ``frame``, ``label`` and ``row_box``, so the two
    can replace each other wherever the cells are too small for numbers. Cells where ``mask`` is
    True are MASKED, whatever their value."""

    def __init__(self, values, label: str, colour: ManimColor, name: str, fill, cell_size: float = CELL_HEIGHT,
                 mask: np.ndarray | None = None):
        super().__init__()
        self.values, self.name = np.asarray(values, dtype=float), name
        shown = self.values if mask is None else np.where(mask, -np.inf, self.values)
        self.heatmap = Heatmap(shown, lambda value: style.MASKED if np.isneginf(value) else fill(value), name=name,
                               cell_size=cell_size, numbers=False)
        self.cell_grid = self.heatmap.grid
        self.entries = [[] for _ in self.values]
        height = self.cell_grid.height + 0.1
        self.brackets = VGroup(bracket(height, -1, colour).next_to(self.cell_grid, LEFT, buff=0.06),
                               bracket(height, +1, colour).next_to(self.cell_grid, RIGHT, buff=0.06))
        self.label = MathTex(label, color=colour, font_size=style.BODY_SIZE + 6)
        self.label.next_to(self.cell_grid, UP, buff=0.22)
        self.add(self.heatmap, self.brackets, self.label)

    @property
    def frame(self) -> VGroup:
        return VGroup(self.cell_grid, self.brackets, self.label)

    def row_box(self, i: int) -> SurroundingRectangle:
        return self.heatmap.row_box(i)


def sentence_matrix(values, label: str, colour: ManimColor, name: str, fill, numbers: bool,
                    mask: np.ndarray | None = None, cell_width: float | None = None, cell_size: float = CELL_HEIGHT,
                    text_colour=None):
    """A LabelledMatrix when its numbers are to be shown, else a ColourHeatmap of ``cell_size`` cells;
    cells where ``mask`` is True are MASKED in both (their numbers stay readable on the grey)."""
    if not numbers:
        return ColourHeatmap(values, label, colour, name, fill, cell_size, mask)
    matrix = LabelledMatrix(values, label, colour, name, fill=fill, text_colour=text_colour, cell_width=cell_width)
    if mask is not None:
        for i, j in zip(*np.nonzero(mask)):
            matrix.cells[i][j].set_fill(style.MASKED, opacity=1.0)
            matrix.entries[i][j].set_color(style.TEXT)
    return matrix


def cell_size_of(matrix) -> tuple[float, float]:
    """(width, height) of one cell of a LabelledMatrix or ColourHeatmap as it stands now."""
    rows, cols = matrix.values.shape
    return matrix.cell_grid.width / cols, matrix.cell_grid.height / rows


def cell_centres(matrix) -> np.ndarray:
    """(rows, cols, 3) centres of every cell, measured from the grid's extent wherever the matrix has moved."""
    rows, cols = matrix.values.shape
    width, height = cell_size_of(matrix)
    i, j = np.mgrid[0:rows, 0:cols]
    offsets = np.stack([(j + 0.5) * width, -(i + 0.5) * height, np.zeros(i.shape)], axis=-1)
    return matrix.cell_grid.get_corner(UP + LEFT) + offsets


class TokenHeatmap(VGroup):
    """An n x n matrix of a sentence (a LabelledMatrix or a ColourHeatmap) with its tokens around it.

    Query tokens label the rows on the left, key tokens the columns on top (both dropped when too
    small to read), each cut to MATRIX_LETTERS (``abbreviated``): eight 20-letter words would leave no room
    for the numbers. Masked cells are MASKED grey in the matrix itself, with no stroke across their numbers.
    """

    def __init__(self, matrix, tokens: Sequence[str], query: int | None = None, font_size: float = style.CAPTION_SIZE):
        super().__init__()
        tokens = [abbreviated(token) for token in tokens]
        self.matrix = matrix
        spacing_x, spacing_y = cell_size_of(matrix)
        self.column_labels = TokenLabels(tokens, cell_centres(matrix)[0, :, 0], spacing_x, font_size=font_size,
                                         turned=True)
        self.column_labels.shift(UP * (matrix.cell_grid.get_top()[1] + 0.12 - self.column_labels.get_bottom()[1]))
        self.row_labels = self._row_labels(tokens, query, spacing_y, font_size)
        self.labelled = self.column_labels.readable and bool(self.row_labels)
        if not self.labelled:
            self.column_labels, self.row_labels = VGroup(), VGroup()
        matrix.label.next_to(VGroup(matrix.cell_grid, self.column_labels), UP, buff=0.2)
        self.add(matrix, self.row_labels, self.column_labels)

    def _row_labels(self, tokens, query, spacing_y, font_size: float) -> VGroup:
        """Right-aligned left of the matrix, one per row, shrunk to the row height; empty when unreadable."""
        if spacing_y * COLUMN_ROOM < smallest_line_height():
            return VGroup()
        labels = VGroup(*[token_text(token, index == query, font_size) for index, token in enumerate(tokens)])
        scale = min(1.0, spacing_y * COLUMN_ROOM / max(label.height for label in labels))
        if font_size * scale < MIN_FONT_SIZE:
            return VGroup()
        letter_height = token_text("x", font_size=font_size).height * scale
        for label, centre in zip(labels, cell_centres(self.matrix)[:, 0]):
            label.scale(scale).next_to(self.matrix.brackets[0], LEFT, buff=0.15)
            sit_on(label, centre[1] - letter_height / 2)
        return labels
