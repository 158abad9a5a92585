"""A bar chart of probabilities (or any values in [0, max_value]): bars on a baseline, a label
under each, the value above with ``decimals`` decimals (scenes.visuals.probability_decimals: enough
that shown probabilities visibly sum to 1); the bars can move to new values in place, wherever the chart is."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, UP, Line, ManimColor, Rectangle, Transform, VGroup

from scenes import style
from scenes.fades import Swap
from scenes.visuals import baseline, label_text, number_text, sit_on

VALUE_GAP = 0.08


class BarChart(VGroup):
    """``chart.bars[j]`` stands ``values[j] / max_value * height`` tall on the baseline."""

    def __init__(self, values: Sequence[float], labels: Sequence[str], colour: ManimColor = style.ATTENTION,
                 height: float = 2.5, bar_width: float = 0.55, gap: float = 0.25, max_value: float = 1.0,
                 show_values: bool = True, label_size: float = style.CAPTION_SIZE,
                 value_size: float = style.CAPTION_SIZE, decimals: int = 2, name: str = "bars"):
        super().__init__()
        self.name = name
        self.values = np.asarray(values, dtype=float)
        self.colour, self.chart_height, self.max_value, self.show_values = colour, height, max_value, show_values
        self.value_size, self.decimals = value_size, decimals
        step = bar_width + gap
        self.built_length = step * len(self.values)
        self.baseline = Line([-step / 2, 0, 0], [self.built_length - step / 2, 0, 0], color=style.MUTED,
                             stroke_width=2)
        self.bars = VGroup()
        for j, value in enumerate(self.values):
            bar = Rectangle(width=bar_width, height=self._height(value, 1.0), stroke_width=0,
                            fill_color=colour, fill_opacity=0.9)
            self.bars.add(bar.move_to([j * step, 0, 0], aligned_edge=DOWN))
        self.labels = VGroup(*[label_text(label, style.TEXT, label_size) for label in labels])
        # one size for every label: the longest word's room sets it («Francia» shrunk alone looked a lesser word)
        fits = min((step * 0.95 / label.width for label in self.labels if label.width), default=1.0)
        for bar, label in zip(self.bars, self.labels):
            label.scale(min(1.0, fits)).next_to(bar.get_bottom(), DOWN, buff=0.15)
        if len(self.labels):  # one baseline, whether a word has capitals ("París") or not ("es")
            line = min(baseline(label) for label in self.labels)
            for label in self.labels:
                sit_on(label, line)
        self.value_texts = VGroup(*[self._value_text(j, bar, value)
                                    for j, (bar, value) in enumerate(zip(self.bars, self.values))])
        self.add(self.baseline, self.bars, self.labels)
        if show_values:
            self.add(self.value_texts)

    @property
    def scale_factor(self) -> float:
        """How much the chart was scaled since it was built."""
        return self.baseline.get_length() / self.built_length

    def _height(self, value: float, scale: float) -> float:
        return max(1e-3, min(1.0, max(0.0, value) / self.max_value) * self.chart_height * scale)

    def _value_text(self, j: int, bar: Rectangle, value: float):
        text = number_text(value, style.TEXT, self.value_size, self.decimals)
        text.tag = (self.name, (0, j))
        text.scale(self.scale_factor)
        text.scale_to_fit_width(min(text.width, bar.width * 1.4))
        return text.next_to(bar, UP, buff=VALUE_GAP * self.scale_factor)

    def change_to(self, values: Sequence[float], swap_values: bool = False) -> list:
        """Animations that move every bar (and its value) to ``values``; bottoms stay on the baseline. With
        ``swap_values`` each old value fades out before the new one fades in above its bar (no morph of two
        numbers into each other, which reads as both at once)."""
        values = np.asarray(values, dtype=float)
        scale = self.scale_factor
        targets = [Rectangle(width=bar.width, height=self._height(value, scale), stroke_width=0,
                             fill_color=self.colour, fill_opacity=0.9).move_to(bar.get_bottom(), aligned_edge=DOWN)
                   for bar, value in zip(self.bars, values)]
        animations = [Transform(bar, target) for bar, target in zip(self.bars, targets)]
        if self.show_values:
            # Transform in place, so the texts stay the chart's own (a ReplacementTransform would leave
            # the new texts on the scene as well, outliving the chart), then take the new values' tags.
            for j, (text, target, value) in enumerate(zip(self.value_texts, targets, values)):
                new_text = self._value_text(j, target, value)
                if swap_values:
                    self.value_texts.submobjects[j] = new_text
                    animations.append(Swap(text, new_text))
                    continue
                animations.append(Transform(text, new_text))
                text.shown_text, text.tag = new_text.shown_text, new_text.tag
        self.values = values
        return animations
