"""A small line plot: axes from 0 with a few tick numbers and a curve, for a quantity against a setting (the
lab's largest weight against the temperature, the training loss against the steps)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, UP, Axes, Line, ManimColor, VGroup

from scenes import style
from scenes.visuals import label_text, number_text


class CurvePlot(VGroup):
    """Axes from 0 with a few tick numbers and a curve through the samples (xs, ys), drawn as given."""

    def __init__(self, xs: Sequence[float], ys: Sequence[float], x_ticks: Sequence[float], y_ticks: Sequence[float],
                 width: float, height: float, x_name: str, y_name: str, colour: ManimColor = style.ATTENTION,
                 y_decimals: int = 2):
        super().__init__()
        self.axes = Axes(x_range=[0, x_ticks[-1], x_ticks[-1] - x_ticks[-2]],
                         y_range=[0, y_ticks[-1], y_ticks[-1] - y_ticks[-2]], x_length=width, y_length=height,
                         tips=False, axis_config={"color": style.MUTED, "stroke_width": 2})
        self.curve = Line(color=colour, stroke_width=4).set_points_as_corners(
            [self.axes.c2p(x, y) for x, y in zip(xs, ys)])
        x_numbers = VGroup(*[number_text(x, style.MUTED, style.CAPTION_SIZE, decimals=0 if float(x).is_integer() else 1)
                             .next_to(self.axes.c2p(x, 0), DOWN, buff=0.15) for x in x_ticks])
        y_numbers = VGroup(*[number_text(y, style.MUTED, style.CAPTION_SIZE, decimals=y_decimals)
                             .next_to(self.axes.c2p(0, y), LEFT, buff=0.15) for y in y_ticks])
        self.x_name = label_text(x_name, style.MUTED, style.CAPTION_SIZE).next_to(x_numbers, DOWN, buff=0.15)
        self.y_name = label_text(y_name, style.MUTED, style.CAPTION_SIZE)
        self.y_name.next_to(self.axes.c2p(0, y_ticks[-1]), UP, buff=0.25).align_to(y_numbers, LEFT)
        self.frame = VGroup(self.axes, x_numbers, y_numbers, self.x_name, self.y_name)
        self.add(self.frame, self.curve)

    def point(self, x: float, y: float) -> np.ndarray:
        return self.axes.c2p(x, y)
