"""The AI Visual Lab's visual vocabulary: tokens as columns, vectors as bars, the lab's side panel.

* ``TokenLabels``: a sentence's tokens centred on their columns, always horizontal: on two or three
  staggered lines when they do not fit side by side; ``readable`` says whether they are still large enough to read.
* ``VectorStage``: tokens on top and, under them, one row of vectors per matrix (X, Q, K, ...):
  each vector a column of bars, to the right in the full colour when positive, to the left and
  dimmed when negative; the first row's bars may be named (the embedding's features) left of it.
* ``TokenHeatmap``: an n x n matrix of a sentence with its query tokens as row labels and its key
  tokens as column labels, masked cells grey; it holds a LabelledMatrix, or a ``ColourHeatmap``
  (``scenes.heatmap.Heatmap`` dressed as a LabelledMatrix) when the cells are too small for numbers.
* ``WeightedLines``: straight attention lines whose thickness is the weight.
* ``token_bar_chart``: a ``BarChart`` of one row of weights with ``TokenLabels`` under its bars.
* ``RowBars``: one row of weights as horizontal bars, a token a line, each with its name and its value.
* ``SidePanel``: the lab's equation, its sentence selector (the chosen one of its three sentences),
  its step dots (inactive, active, completed), its metrics and its status bar with the query ("Q: gato").
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
import regex
from manim import (DOWN, LEFT, ORIGIN, RIGHT, UP, Circle, Line, ManimColor, MathTex, Rectangle,
                   RoundedRectangle, SurroundingRectangle, Text, VGroup, interpolate_color)

from scenes import style
from scenes.bar_chart import BarChart
from scenes.heatmap import Heatmap
from scenes.visuals import (CELL_HEIGHT, LabelledMatrix, baseline, bracket, fit, label_text, number_text,
                            probability_decimals, sit_on)

MIN_FONT_SIZE = 16  # smallest label that still reads in a 720p frame: a capital 14.5 px tall
NEGATIVE_DIMMING = 0.55  # how far a negative bar's colour moves towards the background
COLUMN_ROOM = 0.9  # share of a column's width a label may take
MATRIX_LETTERS = 10  # longest token a matrix's rows and columns are named by in full
WIDEST_LINE = 16.0  # stroke width of an attention line of weight 1
ROLE_COLOURS = {"Q": style.QUERY, "K": style.KEY, "V": style.VALUE}
EQUATION = (r"\text{Attention}(Q,K,V) =", r"\text{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V")  # the lab's


def sign_colours(colour: ManimColor) -> tuple[ManimColor, ManimColor]:
    """(positive, negative): the role's colour, and the same hue dimmed, so a vector keeps its role."""
    return colour, interpolate_color(colour, style.BACKGROUND, NEGATIVE_DIMMING)


# Tokens and vectors ------------------------------------------------------------------------------
def token_text(token: str, is_query: bool = False, font_size: float = style.CAPTION_SIZE):
    """A token as every lab piece writes it: the query token in bold QUERY blue."""
    return label_text(token, style.QUERY if is_query else style.TEXT, font_size,
                      weight="BOLD" if is_query else "NORMAL")


@cache
def smallest_line_height() -> float:
    """Height of a line of text (ascender to descender) at MIN_FONT_SIZE."""
    return label_text("Ag", font_size=MIN_FONT_SIZE).height


class TokenLabels(VGroup):
    """Tokens centred on the x positions ``centres``, sitting on y = 0; the query in bold QUERY.

    Side by side when they fit ``spacing``, shrunk by at most SHRINK if needed; else token j drops to
    line j % lines of two staggered lines, or of MOST_LINES when two would leave them unreadable, each token
    then having ``lines`` columns of room, shrunk as needed. With ``turned``, tokens that do not fit side by
    side are turned a quarter to read upwards instead, still one row (staggered lines above a matrix's columns
    or under a chart's bars read as a second sentence): their starts on y = 0, or their ends when ``hanging``
    (under a chart); unless the longest is over LONGEST_TURNED, which would take a long word's height from
    what they label. ``font_size`` is the size they ended up at, ``readable`` whether it still reads.
    """

    LINE_GAP = 0.08
    SHRINK = 0.85
    MOST_LINES = 3
    LONGEST_TURNED = 1.4  # frame units: the lab's longest word, «necesitas», turns; a 10-letter one does not

    def __init__(self, tokens: Sequence[str], centres: Sequence[float], spacing: float, query: int | None = None,
                 font_size: float = style.CAPTION_SIZE, turned: bool = False, hanging: bool = False):
        super().__init__()
        labels = [token_text(token, index == query, font_size) for index, token in enumerate(tokens)]
        widest = max(label.width for label in labels)
        room = spacing * COLUMN_ROOM / widest  # the scale one line allows
        most = min(self.MOST_LINES, len(tokens))
        self.lines = (1 if room >= self.SHRINK or most == 1 else
                      2 if font_size * 2 * room >= MIN_FONT_SIZE or most == 2 else most)
        turned_room = spacing * COLUMN_ROOM / (smallest_line_height() * font_size / MIN_FONT_SIZE)
        self.turned = turned and self.lines > 1 and widest * min(1.0, turned_room) <= self.LONGEST_TURNED
        if self.turned:
            self.lines, room = 1, turned_room
        scale = min(1.0, room * self.lines)
        self.font_size = font_size * scale
        self.readable = self.font_size >= MIN_FONT_SIZE
        if not self.readable:  # too small to read even on MOST_LINES lines: build nothing
            return
        if self.turned:
            self._turn(labels, centres, scale, hanging)
            return
        line_height = smallest_line_height() * self.font_size / MIN_FONT_SIZE + self.LINE_GAP
        for index, (label, x) in enumerate(zip(labels, centres)):
            label.scale(scale).move_to([x, 0, 0])
            sit_on(label, -line_height * (index % self.lines))
        self.add(*labels)

    def _turn(self, labels, centres, scale: float, hanging: bool) -> None:
        """Each label turned to read upwards, its baseline a vertical line just right of its column's centre so
        that its small letters are centred on it, whatever its ascenders and descenders; all start on y = 0,
        or all end there when ``hanging``."""
        letter = token_text("x", font_size=self.font_size).height
        for label, x in zip(labels, centres):
            label.scale(scale)
            sit_on(label, 0.0)
            label.shift(LEFT * label.get_left()[0])
            label.rotate(np.pi / 2, about_point=ORIGIN).shift(RIGHT * (x + letter / 2))
            if hanging:
                label.shift(DOWN * label.get_top()[1])
        self.add(*labels)


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


# Matrices of a sentence --------------------------------------------------------------------------
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


def abbreviated(token: str, letters: int = MATRIX_LETTERS) -> str:
    """``token`` as a matrix names its rows and columns: its first ``letters`` - 1 letters and "…" when longer
    (letters are grapheme clusters, so an accent stays on its letter)."""
    clusters = regex.findall(r"\X", token)
    return token if len(clusters) <= letters else "".join(clusters[:letters - 1]) + "…"


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


# Attention -----------------------------------------------------------------------------------------
class WeightedLines(VGroup):
    """Straight lines from ``starts[j]`` to ``ends[j]``, as thick as weight j (none for weight 0)."""

    def __init__(self, starts, ends, weights: Sequence[float], colour: ManimColor = style.ATTENTION):
        super().__init__()
        self.weights = []
        for start, end, weight in zip(starts, ends, weights):
            if weight > 0:
                self.add(Line(start, end, color=colour, stroke_width=max(0.75, WIDEST_LINE * weight),
                              stroke_opacity=0.35 + 0.65 * weight))
                self.weights.append(float(weight))


def token_bar_chart(values: Sequence[float], tokens: Sequence[str], width: float, height: float,
                    query: int | None = None, show_values: bool = True, max_value: float = 1.0,
                    name: str = "bars") -> BarChart:
    """A BarChart built ``width`` wide whose labels are TokenLabels (turned to read upwards if crowded, dropped if
    unreadable); the values above the bars, with the decimals that make them sum to 1, only when they fit without
    shrinking into their neighbours."""
    step = width / len(values)
    decimals = probability_decimals(values)
    readable_values = number_text(0.0, font_size=style.CAPTION_SIZE, decimals=decimals).width < step * 0.75
    chart = BarChart(values, [""] * len(values), style.ATTENTION, height=height, bar_width=0.62 * step,
                     gap=0.38 * step, max_value=max_value, show_values=show_values and readable_values,
                     decimals=decimals, name=name)
    chart.remove(chart.labels)
    labels = TokenLabels(tokens, [bar.get_x() for bar in chart.bars], step, query, turned=True, hanging=True)
    labels.shift(DOWN * (labels.get_top()[1] - chart.baseline.get_y() + 0.12))
    chart.labels = labels if labels.readable else VGroup()
    chart.add(chart.labels)
    return chart


class RowBars(VGroup):
    """One row of weights as horizontal bars, a token a line: its name left-aligned in one column, its bar from a
    shared left edge (``bar_length`` long at ``max_value``), and its value after the bar, tagged (``name``, (0, j)),
    with ``decimals`` (by default those that make the row, as written, sum to 1).

    Built with the first line on y = 0, ``line_height`` apart. Names and values (each left out when not wanted)
    shrink to their line if needed and are left out when that leaves them unreadable (MIN_FONT_SIZE): the bars
    alone still compare. ``font_size`` is the size they ended up at (CAPTION_SIZE when there are none)."""

    def __init__(self, values: Sequence[float], tokens: Sequence[str], bar_length: float, line_height: float,
                 query: int | None = None, max_value: float = 1.0, name: str = "bars", names: bool = True,
                 values_shown: bool = True, decimals: int | None = None):
        super().__init__()
        self.values = np.asarray(values, dtype=float)
        ys = [-line_height * j for j in range(len(self.values))]
        self.bars = VGroup(*[Rectangle(width=max(value / max_value, 0.01) * bar_length, height=0.6 * line_height,
                                       stroke_width=0, fill_color=style.ATTENTION, fill_opacity=0.9)
                             .move_to([0, y, 0], aligned_edge=LEFT) for value, y in zip(self.values, ys)])
        self.axis = Line([0, line_height / 2, 0], [0, ys[-1] - line_height / 2, 0], color=style.MUTED, stroke_width=2)
        labels = VGroup(*[token_text(token, j == query) for j, token in enumerate(tokens)] if names else [])
        decimals = probability_decimals(self.values) if decimals is None else decimals
        numbers = VGroup(*[number_text(value, font_size=style.CAPTION_SIZE, decimals=decimals)
                           for value in self.values] if values_shown else [])
        texts = [*labels, *numbers]
        scale = min([1.0] + [line_height * COLUMN_ROOM / text.height for text in texts])
        self.font_size = style.CAPTION_SIZE * scale
        if self.font_size < MIN_FONT_SIZE:
            labels, numbers, self.font_size = VGroup(), VGroup(), style.CAPTION_SIZE
        self.labels, self.value_texts = labels, numbers
        if len(labels):  # left-aligned, where the lines to the tokens end; small letters level with the bar
            left = -0.15 - scale * max(label.width for label in labels)
            letter = token_text("x").height * scale
            for label, y in zip(labels, ys):
                sit_on(label.scale(scale).align_to([left, 0, 0], LEFT), y - letter / 2)
        for j, (number, bar) in enumerate(zip(numbers, self.bars)):
            number.scale(scale).next_to(bar, RIGHT, buff=0.1).set_y(bar.get_y())
            number.tag = (name, (0, j))
        self.add(self.axis, self.bars, self.labels, self.value_texts)

    def line_starts(self, gap: float = 0.1) -> list[np.ndarray]:
        """Left of the names' column (of the axis when there are no names), level with each bar: where a line to
        that token ends."""
        x = (self.labels.get_left()[0] if len(self.labels) else self.axis.get_x()) - gap
        return [np.array([x, bar.get_y(), 0.0]) for bar in self.bars]


# A small plot --------------------------------------------------------------------------------------
# The side panel ------------------------------------------------------------------------------------
def lab_equation(font_size: float = 34) -> VGroup:
    """Attention(Q, K, V) = softmax(QK^T / (sqrt(d_k) T)) V on two lines, Q, K and V in their colours.

    The first line a size down: it has no scripts, and as wide as the second it would shrink d_k with it."""
    lines = VGroup()
    for line, size in zip(EQUATION, (0.85 * font_size, font_size)):
        tex = MathTex(line, substrings_to_isolate=list(ROLE_COLOURS), font_size=size, color=style.TEXT)
        for role, colour in ROLE_COLOURS.items():
            tex.set_color_by_tex(role, colour)
        lines.add(tex)
    return lines.arrange(DOWN, buff=0.15)


class StepDots(VGroup):
    """The lab's step indicator: one dot per step, inactive (outline), active (white), completed (filled)."""

    STYLES = {
        "inactive": dict(fill_color=style.PANEL, fill_opacity=0.0, stroke_color=style.MUTED, stroke_width=2),
        "active": dict(fill_color=style.HIGHLIGHT, fill_opacity=1.0, stroke_color=style.HIGHLIGHT, stroke_width=5),
        "completed": dict(fill_color=style.MUTED, fill_opacity=1.0, stroke_color=style.MUTED, stroke_width=2),
    }

    def __init__(self, count: int, step: int = 0, radius: float = 0.13, buff: float = 0.24):
        super().__init__(*[Circle(radius=radius) for _ in range(count)])
        self.arrange(RIGHT, buff=buff)
        self.states = self.states_at(step)
        for dot, state in zip(self, self.states):
            dot.set_style(**self.STYLES[state])

    def states_at(self, step: int) -> tuple[str, ...]:
        """Each dot's state while step ``step`` (1-based; 0 before the first) is on screen."""
        return tuple("completed" if k < step else "active" if k == step else "inactive"
                     for k in range(1, len(self) + 1))

    def go_to(self, step: int) -> list:
        """Animations that restyle the dots that change."""
        states = self.states_at(step)
        animations = [dot.animate.set_style(**self.STYLES[new]) for dot, old, new in zip(self, self.states, states)
                      if old != new]
        self.states = states
        return animations


class SentenceSelector(VGroup):
    """The lab's sentence selector: its title, then one chip per sentence name, the chosen one lit (none for
    a sentence of one's own, which the title then says)."""

    def __init__(self, title: str, names: Sequence[str], chosen: int | None, width: float):
        super().__init__()
        self.title = label_text(title, style.MUTED, style.CAPTION_SIZE)
        self.chips = VGroup()
        for index, name in enumerate(names):
            lit = index == chosen
            text = label_text(name, style.BACKGROUND if lit else style.MUTED, style.CAPTION_SIZE,
                              weight="BOLD" if lit else "NORMAL")
            chip = RoundedRectangle(width=text.width + 0.24, height=smallest_line_height() * 1.25 + 0.1,
                                    corner_radius=0.08, stroke_color=style.MUTED, stroke_width=1.5,
                                    fill_color=style.HIGHLIGHT, fill_opacity=1.0 if lit else 0.0)
            self.chips.add(VGroup(chip, text.move_to(chip)))
        self.chips.arrange(RIGHT, buff=0.12)
        self.add(self.title, self.chips)
        self.arrange(DOWN, buff=0.15)
        fit(self, width, 1.2)


class SidePanel(VGroup):
    """The lab's side panel, built to ``width`` x ``height``: equation, sentence selector, step dots, metrics,
    status bar.

    ``metrics`` is a list of (name, value) with value a tagged number or a text; ``status`` the
    status bar's text (the query), a Text in the lab's monospaced font, so step records list it. ``metric_values[k]`` is the k-th value, which a scene may show
    only once computed.
    """

    MARGIN = 0.2  # above the content and between it and the status bar

    def __init__(self, width: float, height: float, metrics: Sequence[tuple[str, VGroup]], status: str,
                 selector: SentenceSelector, steps: int = 7, step: int = 1):
        super().__init__()
        self.background = RoundedRectangle(width=width, height=height, corner_radius=0.15, stroke_width=0,
                                           fill_color=style.PANEL, fill_opacity=1.0)
        self.equation = fit(lab_equation(), width - 0.4, 1.3)
        self.selector = selector
        self.dots = fit(StepDots(steps, step), width - 0.5, 1.0)
        self.metrics = self._metrics(metrics, width - 0.6)
        self.metric_values = list(self.metrics[1])
        self.status_width = width - 0.4
        self.status = self.status_text(status)
        self.status_strip = RoundedRectangle(width=width - 0.3, height=self.status.height + 0.25, corner_radius=0.08,
                                             stroke_width=0, fill_color=style.BACKGROUND, fill_opacity=1.0)
        self.status_strip.align_to(self.background, DOWN).shift(UP * 0.15)
        self.status.move_to(self.status_strip)
        content = VGroup(self.equation, self.selector, self.dots, self.metrics).arrange(DOWN, buff=0.22)
        room = self.background.get_top()[1] - self.status_strip.get_top()[1] - 2 * self.MARGIN
        fit(content, width - 0.3, room)  # a short panel shrinks its content rather than run it under the status bar
        content.move_to(self.background).align_to(self.background, UP).shift(DOWN * self.MARGIN)
        self.add(self.background, content, self.status_strip, self.status)

    def status_text(self, status: str) -> Text:
        text = Text(status, font=style.NUMBER_FONT, font_size=style.CAPTION_SIZE - 2, color=style.TEXT,
                    line_spacing=0.8)
        text.shown_text = status
        return fit(text, self.status_width, 2.0)

    @staticmethod
    def _metrics(metrics, width: float) -> VGroup:
        """Two columns: names (muted) left-aligned, values left-aligned after the widest name, on one baseline."""
        names = VGroup(*[label_text(name, style.MUTED, style.CAPTION_SIZE) for name, _ in metrics])
        names.arrange(DOWN, aligned_edge=LEFT, buff=0.22)
        values = VGroup(*[value for _, value in metrics])
        for name, value in zip(names, values):
            sit_on(value.align_to(names.get_right() + RIGHT * 0.3, LEFT), baseline(name))
        return fit(VGroup(names, values), width, 10.0)

    def go_to(self, step: int) -> list:
        """Animations that light dot ``step``."""
        return self.dots.go_to(step)
