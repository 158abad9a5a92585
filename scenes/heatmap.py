"""A heatmap for matrices too big for a number in every cell: coloured squares, a few axis ticks,
numbers inside the cells only when they are big enough to read, and a colour legend.

Rows go down and columns go right, as in a matrix. Any colour function works; ``signed_colour``
gives the palette's diverging map (``style.score_colour``) and ``style.weight_colour`` the
sequential one; ``score_legend`` is the bar of one diverging scale shared by compared matrices.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UL, UP, ManimColor, Rectangle, SurroundingRectangle, VGroup, VMobject

from lesson.numbers import decimals_for, format_number
from scenes import style
from scenes.visuals import label_text, number_text

TICK_SIZE = style.CAPTION_SIZE
TICK_GAP = 0.12
TITLE_GAP = 0.15
GAP_SHARE = 0.06  # dark seam between cells, as a share of the cell, so neighbours stay distinguishable
MIN_NUMBER_SCALE = 0.7  # a cell's number shrunk further than this is unreadable at 720p: colour only
COLOUR_STEPS = 64  # levels a channel: cells closer in colour than 1/64 share one shape
TICK_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)  # between ticked indices
SCALE_STEPS = (1, 2, 2.5, 5)  # a colour scale's round values: one of these times a power of ten


def signed_colour(largest: float) -> Callable[[float], ManimColor]:
    """The diverging map for signed values in [-largest, largest]: blue below 0, orange above."""
    return lambda value: style.score_colour(value, largest)


def score_legend(largest: float, label: str, height: float = 1.6, name: str = "score_legend") -> "ColourLegend":
    """The colour bar of ``signed_colour(largest)``, ticked at 0 and at ± the roundest value within the scale.

    Matrices or rows that are compared share one ``largest`` (``style.shared_largest``) and show this bar once.
    """
    mark = round_value(largest)
    ticks = [-mark, 0.0, mark] if mark else [0.0]
    return ColourLegend(signed_colour(largest), -largest, largest, height=height, ticks=ticks, label=label, name=name)


def round_value(largest: float, steps: tuple[float, ...] = SCALE_STEPS) -> float:
    """The largest of ``steps`` (1, 2, 2.5, 5) times a power of ten not over ``largest`` (0 for 0)."""
    if largest <= 0:
        return 0.0
    power = 10.0 ** np.floor(np.log10(largest))
    return float(max(step * power for step in steps if step * power <= largest * (1 + 1e-9)))


def covering_value(largest: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten at or above ``largest`` (0 for 0): a colour scale's end
    that every value fits under and that ``score_legend`` ticks at (``round_value`` of it is itself)."""
    if largest <= 0:
        return 0.0
    power = 10.0 ** np.floor(np.log10(largest))
    return float(min(step * power * scale for scale in (1, 10) for step in SCALE_STEPS
                     if step * power * scale >= largest * (1 - 1e-9)))


def round_ticks(count: int, most: int = 5) -> list[int]:
    """At most ``most`` indices 0, step, 2 step, ... below ``count``, with a round step (1, 2, 5, 10...)."""
    step = next((step for step in TICK_STEPS if -(-count // step) <= most), TICK_STEPS[-1])
    return list(range(0, count, step))


def relative_luminance(colour: ManimColor) -> float:
    """WCAG 2: 0.2126 R + 0.7152 G + 0.0722 B of the linearised sRGB channels."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour.to_rgb()]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def readable_text_colour(fill: ManimColor) -> ManimColor:
    """The text colour (dark BACKGROUND or light TEXT) with the higher contrast ratio on ``fill``."""
    ground = relative_luminance(fill) + 0.05
    dark, light = relative_luminance(style.BACKGROUND) + 0.05, relative_luminance(style.TEXT) + 0.05
    return style.BACKGROUND if ground / dark > light / ground else style.TEXT


class Heatmap(VGroup):
    """``values`` as a grid of coloured cells, row i going down and column j going right.

    The cells are ``cell_size`` squares, or the largest (up to ``largest_cell`` a side) that let the
    grid and its ticks fit in ``width`` x ``height``; with ``largest_aspect`` > 1 they may stretch
    into rectangles up to that ratio to use the room (a tall matrix in a wide box). ``numbers`` is
    True, False or "auto" (when they fit); when shown, ``numbers[i][j]`` is tagged ``(name, (i, j))``
    for the step records, and ``number_grid`` groups them (empty when not shown). Ticks write the
    index of a few rows (left) and columns (above); ``row_title`` / ``column_title`` name the axes.
    ``box``, ``row_box`` and ``column_box`` frame cells, and ``cell_centre`` / ``row_centre`` tell
    where a cell or row is, wherever the heatmap has moved.

    Cells of the same colour are drawn as one shape, so a 64 x 64 matrix costs what an 8 x 8 does.
    """

    def __init__(self, values, colour: Callable[[float], ManimColor], *, name: str = "heatmap",
                 cell_size: float | None = None, width: float | None = None, height: float | None = None,
                 largest_cell: float = 0.6, largest_aspect: float = 1.0, numbers: bool | str = "auto",
                 row_ticks: Sequence[int] = (), column_ticks: Sequence[int] = (),
                 row_title: str | None = None, column_title: str | None = None):
        super().__init__()
        self.values = np.asarray(values, dtype=float)
        self.name = name
        rows, cols = self.values.shape
        self.row_ticks = VGroup(*[self._tick(index) for index in row_ticks])
        self.column_ticks = VGroup(*[self._tick(index) for index in column_ticks])
        self.row_title = label_text(row_title, style.MUTED, TICK_SIZE) if row_title else VGroup()
        self.column_title = label_text(column_title, style.MUTED, TICK_SIZE) if column_title else VGroup()
        self.cell_width, self.cell_height = ((cell_size, cell_size) if cell_size else
                                             self._fitting_cell(width, height, largest_cell, largest_aspect))
        # The whole grid's extent, invisible: every cell's place is measured from it after any move.
        self.area = Rectangle(width=cols * self.cell_width, height=rows * self.cell_height, stroke_width=0,
                              fill_opacity=0).move_to(np.array([cols * self.cell_width / 2,
                                                                -rows * self.cell_height / 2, 0]))
        self.grid = VGroup(self.area, *self._colour_shapes(colour))
        self.add(self.grid)
        self.numbers = self._numbers(colour) if self._numbers_fit(numbers) else None
        self.number_grid = VGroup(*[text for row in self.numbers or [] for text in row])
        self.add(self.number_grid)
        self._place_labels(row_ticks, column_ticks)
        self.add(self.row_ticks, self.column_ticks, self.row_title, self.column_title)

    @staticmethod
    def _tick(index: int):
        return number_text(index, style.MUTED, TICK_SIZE, decimals=0)

    def _label_margins(self) -> tuple[float, float]:
        """Room the ticks and titles take: to the left of the grid and above it (the row title heads the
        column of row ticks, in the corner above it, level with the column ticks)."""
        ticks_width = self.row_ticks.width if len(self.row_ticks) else 0.0
        left = max(ticks_width, self.row_title.width if len(self.row_title) else 0.0)
        left += TICK_GAP if left else 0.0
        ticks_height = self.column_ticks.height if len(self.column_ticks) else 0.0
        top = max(ticks_height, self.row_title.height if len(self.row_title) else 0.0)
        top += (TICK_GAP if top else 0.0) + (self.column_title.height + TITLE_GAP if len(self.column_title) else 0.0)
        return left, top

    def _fitting_cell(self, width: float | None, height: float | None, largest_cell: float,
                      largest_aspect: float) -> tuple[float, float]:
        """(cell width, cell height): each as large as the room allows, neither over ``largest_aspect`` x the other."""
        rows, cols = self.values.shape
        left, top = self._label_margins()
        cell_width = min(largest_cell, (width - left) / cols if width is not None else largest_cell)
        cell_height = min(largest_cell, (height - top) / rows if height is not None else largest_cell)
        return min(cell_width, largest_aspect * cell_height), min(cell_height, largest_aspect * cell_width)

    def _colour_shapes(self, colour: Callable[[float], ManimColor]) -> list[VMobject]:
        """One filled shape per colour (to within COLOUR_STEPS levels a channel), a rectangle per cell."""
        seam = GAP_SHARE * min(self.cell_width, self.cell_height)
        outline = Rectangle(width=self.cell_width - seam, height=self.cell_height - seam).points
        outlines: dict[tuple, list[np.ndarray]] = {}
        for (i, j), value in np.ndenumerate(self.values):
            level = tuple(np.round(np.asarray(colour(value).to_rgb()) * COLOUR_STEPS) / COLOUR_STEPS)
            centre = np.array([(j + 0.5) * self.cell_width, -(i + 0.5) * self.cell_height, 0])
            outlines.setdefault(level, []).append(outline + centre)
        return [VMobject(fill_color=ManimColor.from_rgb(level), fill_opacity=1.0, stroke_width=0)
                .set_points(np.concatenate(parts)) for level, parts in outlines.items()]

    def _numbers_fit(self, numbers: bool | str) -> bool:
        if numbers != "auto":
            return bool(numbers)
        return self._number_scale() >= MIN_NUMBER_SCALE

    def _number_scale(self) -> float:
        """How much the widest number must shrink to sit inside a cell (1 or more: it already fits)."""
        decimals = decimals_for(self.values.flat)
        longest = max(self.values.flat, key=lambda value: len(format_number(value, decimals)))
        widest = number_text(longest, decimals=decimals)  # monospaced: the longest text is the widest
        return min(0.8 * self.cell_width / widest.width, 0.6 * self.cell_height / widest.height)

    def _numbers(self, colour: Callable[[float], ManimColor]) -> list[list]:
        decimals = decimals_for(self.values.flat)
        scale = min(1.0, self._number_scale())
        numbers = [[None] * self.values.shape[1] for _ in self.values]
        for (i, j), value in np.ndenumerate(self.values):
            text = number_text(value, readable_text_colour(colour(value)), decimals=decimals)
            text.scale(scale).move_to(self.cell_centre(i, j))
            text.tag = (self.name, (i, j))
            numbers[i][j] = text
        return numbers

    def _place_labels(self, row_ticks: Sequence[int], column_ticks: Sequence[int]) -> None:
        for tick, index in zip(self.row_ticks, row_ticks):
            tick.next_to(self.cell_block([index], [0]), LEFT, buff=TICK_GAP)
        for tick, index in zip(self.column_ticks, column_ticks):
            tick.next_to(self.cell_block([0], [index]), UP, buff=TICK_GAP)
        if len(self.row_title):  # horizontal, like every label: over the row ticks, right-aligned with them
            self.row_title.next_to(self.area, UP, buff=TICK_GAP).next_to(self.area, LEFT, buff=TICK_GAP,
                                                                          coor_mask=RIGHT)
        if len(self.column_title):
            anchor = VGroup(*self.column_ticks, *self.row_title) if len(self.column_ticks) or len(self.row_title) \
                else self.area
            self.column_title.next_to(anchor, UP, buff=TITLE_GAP).match_x(self.area)

    def _current_cell(self) -> tuple[float, float]:
        """Cell width and height as the heatmap stands now (it may have been scaled)."""
        rows, cols = self.values.shape
        return self.area.width / cols, self.area.height / rows

    def cell_centre(self, i: int, j: int) -> np.ndarray:
        width, height = self._current_cell()
        return self.area.get_corner(UL) + np.array([(j + 0.5) * width, -(i + 0.5) * height, 0])

    def row_centre(self, i: int) -> np.ndarray:
        """Centre of row i: where a plot drawn beside the heatmap puts its sample for that row."""
        return np.array([self.area.get_center()[0], self.cell_centre(i, 0)[1], 0])

    def cell_block(self, rows: Sequence[int], columns: Sequence[int]) -> Rectangle:
        """An invisible rectangle over the block from rows[0] to rows[-1] and columns[0] to columns[-1]."""
        width, height = self._current_cell()
        first, last = self.cell_centre(rows[0], columns[0]), self.cell_centre(rows[-1], columns[-1])
        block = Rectangle(width=abs(last[0] - first[0]) + width, height=abs(last[1] - first[1]) + height,
                          stroke_width=0, fill_opacity=0)
        return block.move_to((first + last) / 2)

    def box(self, rows: Sequence[int], columns: Sequence[int], colour: ManimColor = style.HIGHLIGHT,
            stroke_width: float = 3) -> SurroundingRectangle:
        """A frame around the block of ``rows`` x ``columns``."""
        return SurroundingRectangle(self.cell_block(rows, columns), color=colour, buff=0.02,
                                    stroke_width=stroke_width)

    def row_box(self, i: int, **kwargs) -> SurroundingRectangle:
        return self.box([i], range(self.values.shape[1]), **kwargs)

    def column_box(self, j: int, **kwargs) -> SurroundingRectangle:
        return self.box(range(self.values.shape[0]), [j], **kwargs)


class ColourLegend(VGroup):
    """A vertical colour bar from ``low`` (bottom) to ``high`` (top) with the values of its ticks.

    Tick numbers are tagged ``(name, (0, k))``; ``label`` (prose) goes above the bar.
    """

    def __init__(self, colour: Callable[[float], ManimColor], low: float, high: float, *,
                 height: float = 2.0, width: float = 0.25, ticks: Sequence[float] | None = None,
                 label: str | None = None, name: str = "legend", slices: int = 48):
        super().__init__()
        edges = np.linspace(low, high, slices + 1)
        self.bar = VGroup(*[Rectangle(width=width, height=height / slices, stroke_width=0,
                                      fill_color=colour((a + b) / 2), fill_opacity=1.0)
                            for a, b in zip(edges[:-1], edges[1:])]).arrange(UP, buff=0)
        ticks = list(ticks) if ticks is not None else [low, (low + high) / 2, high]
        decimals = decimals_for(ticks)
        self.ticks = VGroup()
        for k, value in enumerate(ticks):
            text = number_text(value, style.MUTED, TICK_SIZE, decimals=decimals)
            text.tag = (name, (0, k))
            share = (value - low) / (high - low) if high > low else 0.5  # every value equal (all scores 0): mid-bar
            text.next_to(self.bar.get_corner(DOWN + RIGHT) + UP * share * height, RIGHT, buff=TICK_GAP)
            self.ticks.add(text)
        self.add(self.bar, self.ticks)
        if label:
            self.label = label_text(label, style.MUTED, TICK_SIZE).next_to(VGroup(self.bar, self.ticks), UP,
                                                                            buff=TITLE_GAP)
            self.add(self.label)
