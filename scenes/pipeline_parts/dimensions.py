"""The guide's exercises 5 and 6, d_k in a real Transformer: the run's √d_k against a real head's (d_k = 64), and
d = 512 cut into heads, then each head cut in two."""

from __future__ import annotations

import math

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Create, Line, Rectangle, VGroup

from lesson.pipeline_answers import Dimensions
from lesson.scaling_answers import root
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.pipeline_parts.common import LEAVE_SECONDS, STEP_SECONDS, PipelineCommon
from scenes.visuals import label_text, tagged_number, text_with_numbers

DIMENSION_NUMBERS = 10  # exercise 5's two d_k with their roots and the growth; exercise 6's d and two (h, d_k)
ROOT_DECIMALS = 2  # a root or a ratio that is not whole
DIMENSION_BAR_WIDTH = 5.0  # exercise 6's d = 512, cut into heads
DIMENSION_BAR_HEIGHT = 0.5
DIMENSION_BAR_OPACITY = 0.35
DIMENSION_STROKE = 2  # the bar's outline and its cuts
LINE_GAP = 0.35  # between two lines of an exercise
COLUMNS_GAP = 1.2  # between exercise 5's column and exercise 6's


class DimensionSteps(PipelineCommon):
    """The dimensions step, the section's last."""

    def show_dimensions(self):
        """Exercise 5: the run's √d_k against a real head's (d_k = 64), how many times it divides more; exercise 6:
        d = 512 cut into h = 8 heads of 64, then each cut in two, 16 heads of 32. One line at a time over the reading
        time (``lesson.pipeline_answers.Dimensions``)."""
        sizes, labels = Dimensions(self.run.steps.d_k), self.labels
        self.begin_step("dimensions", new_numbers=DIMENSION_NUMBERS, **sizes.fields())
        font = style.BODY_SIZE

        def number(value: float, index: tuple[int, int], name: str = "exercise_5"):
            decimals = 0 if float(value).is_integer() else ROOT_DECIMALS
            return tagged_number(value, name, index, font_size=font, decimals=decimals)

        def divisor(d_k: int, row: int):
            square_root = round(math.sqrt(d_k), ROOT_DECIMALS)
            return text_with_numbers(labels["dims_divisor"], {"d_k": number(d_k, (row, 0)),
                                                              "root": number(square_root, (row, 1))},
                                     font_size=font, relation=root(d_k)[0])
        growth = text_with_numbers(labels["dims_growth"],
                                   {"growth": number(round(sizes.growth, ROOT_DECIMALS), (2, 0))}, font_size=font)
        left = VGroup(label_text(labels["dims_title_5"], style.MUTED, font), divisor(sizes.d_k, 0),
                      divisor(sizes.model_d_k, 1), growth).arrange(DOWN, aligned_edge=LEFT, buff=LINE_GAP)
        width = text_with_numbers(labels["dims_width"], {"d_model": number(sizes.d_model, (0, 0), "exercise_6")},
                                  font_size=font)
        heads = [text_with_numbers(labels["dims_per_head"], {"heads": number(count, (row, 0), "exercise_6"),
                                                             "d_k": number(d_k, (row, 1), "exercise_6")}, font_size=font)
                 for row, (count, d_k) in enumerate(((sizes.heads, sizes.model_d_k),
                                                     (sizes.more_heads, sizes.more_heads_d_k)), start=1)]
        bar = Rectangle(width=DIMENSION_BAR_WIDTH, height=DIMENSION_BAR_HEIGHT, stroke_color=style.TEXT,
                        stroke_width=DIMENSION_STROKE, fill_color=style.QUERY, fill_opacity=DIMENSION_BAR_OPACITY)
        head = bar.width / sizes.heads  # twice the heads: each head's slice cut in two
        cuts = [VGroup(*[Line(bar.get_corner(UP + LEFT) + RIGHT * x, bar.get_corner(DOWN + LEFT) + RIGHT * x,
                              color=colour, stroke_width=DIMENSION_STROKE) for x in positions])
                for positions, colour in ((head * np.arange(1, sizes.heads), style.TEXT),
                                          (head * (np.arange(sizes.heads) + 0.5), style.MUTED))]
        tradeoff = label_text(labels["dims_tradeoff"], style.TEXT, font)  # what the narrower heads cost
        right = VGroup(label_text(labels["dims_title_6"], style.MUTED, font), width, VGroup(bar, *cuts), *heads,
                       tradeoff)
        right.arrange(DOWN, aligned_edge=LEFT, buff=LINE_GAP)
        self.place(VGroup(left, right).arrange(RIGHT, buff=COLUMNS_GAP, aligned_edge=UP), self.body())
        self.play(Vanish(self.entropy_stage), run_time=LEAVE_SECONDS)
        beats = {"": [Appear(left[0]), Appear(left[1])], "model": [Appear(left[2])], "growth": [Appear(left[3])],
                 "heads": [Appear(right[0]), Appear(width), Appear(bar), Create(cuts[0]), Appear(heads[0])],
                 "more": [Create(cuts[1]), Appear(heads[1]), Appear(tradeoff)]}  # each with its phrase, if spoken
        each = self.fill_seconds() / len(beats)
        for k, (phrase, animations) in enumerate(beats.items()):
            if phrase:
                self.beat(phrase)
            self.play(*animations, run_time=min(STEP_SECONDS, each))
            if k < len(beats) - 1 and each > STEP_SECONDS:
                self.wait(each - STEP_SECONDS)
