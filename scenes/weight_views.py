"""One row of attention weights, three ways: ``WeightedLines`` (straight lines whose thickness is the weight),
``token_bar_chart`` (a ``BarChart`` with ``TokenLabels`` under its bars) and ``RowBars`` (horizontal bars, a token a
line, each with its name and its value)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, Line, ManimColor, Rectangle, VGroup

from scenes import style
from scenes.bar_chart import BarChart
from scenes.token_labels import COLUMN_ROOM, MIN_FONT_SIZE, TokenLabels, token_text
from scenes.visuals import number_text, probability_decimals, sit_on

WIDEST_LINE = 16.0  # stroke width of an attention line of weight 1


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
