"""Softmax as exponentiate, then normalise: one row of scores as bars, taken through the softmax in two moves.

Any section with a row of scores can show it (the scaling section with its unscaled large-d_k scores, the
matrix section with a row of its own)::

    moves = SoftmaxMoves(scores, [f"k_{j + 1}" for j in range(len(scores))], score_tex=r"q\\cdot k_j")
    fit(moves, width, height).move_to(where)     # a VGroup: place and scale it like any other
    self.play(Appear(moves))                     # the scores as bars, up (> 0) or down (< 0)
    self.play(*moves.exponentiate(), run_time=2)  # each bar grows to e^x / e^{max x}: the largest reaches 1
    self.play(*moves.normalise(), run_time=1.5)   # all shrink by their sum: the softmax, summing to 1

Make each move just before its play, once and in that order: it swaps the numbers in the group as it is made.
A move is a list of animations of the piece's own parts (not one AnimationGroup: manim would add that group
to the scene and take the parts out of the piece).
Under the bars, a row of the scores stays; a second row shows what the bars show after each move, with its
sum under it. Their numbers are tagged ``(names[k], (0, j))`` for the step records (k = 0 the scores, 1 the
exponentials, 2 the weights), the sums ``(names[k] + "_sum", (0, 0))``. ``moves.parts`` holds attn_math's
numbers, ``moves.heights()`` what the bars show and ``moves.unit`` the frame height of 1 on the scale of the
exponentials and the weights. The scale is said on screen: the second row's label reads e^{x_j} / e^{max x},
and the dashed line at the top of the bars reads 1 = e^{max x}: a scale for drawing, which normalising cancels
(then the line reads 1, a weight of 1).
A masked score (-inf) has no bar and writes −∞; its e^x and weight are 0. No words: the piece speaks no
language, the section's caption says what happens.
Sound, as the scaling section plays it: ``self.cue("values", lands=True, values=list(moves.parts.exponentials),
spacing=0.12, low=0.0, high=1.0)`` before the first move, ``self.cue("row", lands=True,
weights=list(moves.parts.weights))`` before the second. tests/test_geometry_scaling.py measures the bars after
each move, in the scaling section and on rows like the matrix's (−∞, ties, all negative).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Animation, DashedLine, Line, ManimColor, MathTex, Rectangle, Transform,
                   VGroup)

from attn_math.attention import exponentiate_then_normalise
from lesson.numbers import MINUS, format_number
from scenes import style
from scenes.fades import Swap
from scenes.visuals import baseline, label_text, number_text, sit_on

BAR_WIDTH, BAR_GAP = 0.45, 0.4
DEPTH_SHARE = 0.4  # the room under the baseline for negative scores, as a share of the unit height
SHORTEST_BAR = 1e-3  # frame units: a bar of 0 is still a hairline on the baseline
EXPONENTIAL_OUTLINE = 3  # e^x bars are hollow, drawn in outline: attention not yet normalised (weights are filled)
WEIGHT_OPACITY = 0.9  # as scenes.bar_chart draws weights
LABEL_GAP = 0.15  # between the room of the bars and the key labels, and between the labels and the numbers
ROW_GAP = 0.3  # between the rows of numbers
LABEL_SIZE = 38  # the row's MathTex label: its scripts (k_j in an exponent) stay legible once fitted
TOP_LABEL_SIZE = 46  # «1 = e^{max}» by the dashed line: its exponent over 16 px at 720p (15 px: reviews s15, s16)
SIDE_GAP = 0.25  # between the numbers and their row's label on the left
SUM_GAP = 0.12  # between the Σ sign and the sum
NUMBER_SHARE = 0.8  # of a bar's column the widest number takes: neighbours stay apart


class SoftmaxMoves(VGroup):
    """``scores`` (one row) as bars over key ``labels``, with ``exponentiate`` and ``normalise`` moves.

    ``score_tex`` names a score in TeX (the label of the row of scores, and the exponent of e); ``weight_tex``
    names a weight, written with ``weight_decimals`` (a section's precision for its weights); ``names`` tag the
    numbers of the three states; ``width`` is the room it will be fitted to (its columns are made no wider).
    """

    def __init__(self, scores: Sequence[float], labels: Sequence[str], score_tex: str = r"x_j",
                 weight_tex: str = r"\alpha_j", label_colour: ManimColor = style.KEY,
                 height: float = 2.0, names: tuple[str, str, str] = ("scores", "exponentials", "weights"),
                 weight_decimals: int = 2, width: float = np.inf):
        super().__init__()
        self.decimals = (2, 2, weight_decimals)  # the scores, the exponentials, the weights
        self.parts = exponentiate_then_normalise(scores)
        self.names, self.unit_height = names, height
        self.state = 0
        self.values = (self.parts.scores, self.parts.exponentials, self.parts.weights)
        finite = np.abs(self.parts.scores[np.isfinite(self.parts.scores)])
        self.score_scale = float(finite.max()) or 1.0  # the largest |score| reaches the bottom of the room
        self.largest_tex = format_number(self.parts.largest).replace(MINUS, "-")  # TeX writes its own minus
        self.row_labels = [MathTex(tex, color=style.TEXT, font_size=LABEL_SIZE)
                           for tex in (score_tex, rf"e^{{{score_tex}}} / e^{{{self.largest_tex}}}", weight_tex)]
        label_width = max(label.width for label in self.row_labels)
        # A column as wide as the widest number written under a bar needs at full size, unless the piece would then
        # be wider than ``width``: fitting it there would shrink bars, labels and numbers alike, and a narrower
        # column shrinks the numbers alone.
        widest = max(((value, self.decimals[state]) for state, row in enumerate(self.values) for value in row),
                     key=lambda written: len(format_number(*written)))
        number = number_text(widest[0], font_size=style.BODY_SIZE, decimals=widest[1])
        keys = len(self.parts.scores)
        self.step = max(BAR_WIDTH + BAR_GAP, min(number.width / NUMBER_SHARE, (width - label_width - SIDE_GAP) / keys))
        self.number_scale = min(1.0, self.step * NUMBER_SHARE / number.width)
        self.built_length = self.step * len(self.parts.scores)
        self.baseline = Line([-self.step / 2, 0, 0], [self.built_length - self.step / 2, 0, 0], color=style.MUTED,
                             stroke_width=2)
        depth = DEPTH_SHARE * height
        self.room = Rectangle(width=self.built_length, height=height + depth, stroke_width=0, fill_opacity=0)
        self.room.move_to(self.baseline).align_to(np.array([0, height, 0]), UP)
        self.bars = VGroup(*[self._score_bar(j, score) for j, score in enumerate(self.parts.scores)])
        self.zero = number_text(0, style.MUTED, style.CAPTION_SIZE, decimals=0).next_to(self.baseline, LEFT, buff=0.12)
        self.labels = VGroup(*[label_text(label, label_colour, style.BODY_SIZE) for label in labels])
        for j, label in enumerate(self.labels):
            label.scale_to_fit_width(min(label.width, self.step * 0.95)).move_to([j * self.step, 0, 0])
            label.align_to(np.array([0, -depth - LABEL_GAP, 0]), UP)
        line = min(baseline(label) for label in self.labels)
        for label in self.labels:
            sit_on(label, line)
        # Each row of numbers as tall as its labels (e^x's exponent stands high): rows and labels never touch.
        number_height = number.height * self.number_scale
        score_room = max(number_height, self.row_labels[0].height)
        second_room = max(number_height, *(label.height for label in self.row_labels[1:]))
        self.scores = self._row(0, self.labels.get_bottom()[1] - LABEL_GAP - score_room / 2)
        # The second row and its sum, built now to keep their room; shown from the first move on
        self.numbers = self._row(1, self.scores.get_y() - score_room / 2 - ROW_GAP - second_room / 2)
        widest_left = -number.width * self.number_scale / 2  # the widest number's left edge, in the first column
        self.label_room = Rectangle(width=label_width, height=0.1, stroke_width=0, fill_opacity=0).move_to(
            [widest_left - SIDE_GAP - label_width / 2, self.scores.get_y(), 0])
        self.score_label = self._row_label(0, self.scores)
        self.sum_sign = MathTex(r"\Sigma =", color=style.MUTED, font_size=LABEL_SIZE)
        self.sum = self._sum(1)
        self.sum_line = VGroup(self.sum_sign, self.sum).arrange(RIGHT, buff=SUM_GAP)
        self.sum_line.align_to(self.numbers, RIGHT).set_y(self.numbers.get_y() - second_room / 2 - ROW_GAP
                                                          - self.sum_line.height / 2)
        self.sum_room = Rectangle(width=self.sum_line.width, height=self.sum_line.height, stroke_width=0,
                                  fill_opacity=0).move_to(self.sum_line)
        self.add(self.room, self.label_room, self.sum_room, self.baseline, self.zero, self.bars, self.labels,
                 self.scores, self.score_label)

    # Geometry --------------------------------------------------------------------------------------
    @property
    def scale_factor(self) -> float:
        """How much the piece was scaled since it was built."""
        return self.baseline.get_length() / self.built_length

    @property
    def unit(self) -> float:
        """Frame height of 1 on the scale of the exponentials and of the weights."""
        return self.unit_height * self.scale_factor

    def heights(self) -> np.ndarray:
        """What the bars show now, in units of 1 (the scores signed, on their own scale: the largest |x| is
        DEPTH_SHARE)."""
        signs = np.array([1.0 if bar.get_y() >= self.baseline.get_y() else -1.0 for bar in self.bars])
        return signs * np.array([bar.height for bar in self.bars]) / self.unit

    def _score_bar(self, j: int, score: float) -> Rectangle:
        if np.isneginf(score):
            colour, height = style.MASKED, SHORTEST_BAR
        else:
            colour = style.SCORE_POSITIVE if score >= 0 else style.SCORE_NEGATIVE
            height = max(SHORTEST_BAR, abs(score) / self.score_scale * DEPTH_SHARE * self.unit_height)
        bar = Rectangle(width=BAR_WIDTH, height=height, stroke_width=0, fill_color=colour, fill_opacity=WEIGHT_OPACITY)
        return bar.move_to([j * self.step, 0, 0], aligned_edge=DOWN if score >= 0 else UP)

    def _row(self, state: int, y: float) -> VGroup:
        """``state``'s numbers in a row under the bars, as built, centred at height ``y``."""
        return VGroup(*[self._number(state, j, value).move_to([j * self.step, y, 0])
                        for j, value in enumerate(self.values[state])])

    def _row_label(self, state: int, row: VGroup) -> MathTex:
        """``state``'s label left of ``row``, at the piece's present size (labels not yet shown were never scaled
        with it)."""
        label = self.row_labels[state].copy().scale(self.scale_factor)
        return label.move_to(self.label_room, aligned_edge=RIGHT).set_y(row.get_y())

    def _number(self, state: int, j: int, value: float):
        text = number_text(value, style.TEXT, style.BODY_SIZE, self.decimals[state]).scale(self.number_scale)
        text.tag = (self.names[state], (0, j))
        return text

    def _sum(self, state: int):
        text = number_text(float(np.sum(self.values[state])), style.TEXT, style.BODY_SIZE,
                           self.decimals[state]).scale(self.number_scale)
        text.tag = (f"{self.names[state]}_sum", (0, 0))
        return text

    # The two moves ---------------------------------------------------------------------------------
    def exponentiate(self) -> list[Animation]:
        """Each bar grows (or turns up) to e^{x_j} / e^{max x}, the largest to 1 (the dashed line); the second
        row writes those heights under the scores, labelled with the scale, and their sum under it."""
        self._advance(1)
        top = self.baseline.get_y() + self.unit
        self.top_line = DashedLine([self.baseline.get_left()[0], top, 0], [self.baseline.get_right()[0], top, 0],
                                   color=style.MUTED, stroke_width=2, dash_length=0.08)
        # The line is 1 on the drawing's scale, e^{max x} on the exponentials': dividing them all by e^{max x} only
        # scales the drawing (the factor cancels when they are divided by their sum), and the label says so.
        self.one = self._top_label(MathTex(rf"1 = e^{{{self.largest_tex}}}", color=style.MUTED,
                                           font_size=TOP_LABEL_SIZE))
        # The row and its sum were built with the piece but not added to it: scale and move them as it was.
        self._follow(self.numbers, self.sum_line)
        self.row_label = self._row_label(1, self.numbers)
        new_parts = (self.top_line, self.one, self.numbers, self.row_label, self.sum_line)
        # faded in as parts of the piece, already on screen (an Appear would put them on the scene on their own)
        for part in new_parts:
            self.add(part.set_opacity(0.0))
        return [*self._bars_to(self.parts.exponentials, hollow=True),
                *[part.animate.set_opacity(1.0) for part in new_parts]]

    def normalise(self) -> list[Animation]:
        """Every bar divided by the sum of them all: the bars shrink together and now total 1 (the softmax)."""
        self._advance(2)
        old_numbers, old_label, old_sum = list(self.numbers), self.row_label, self.sum
        new_numbers = [self._number(2, j, value).scale(self.scale_factor).move_to(old)
                       for j, (old, value) in enumerate(zip(old_numbers, self.values[2]))]
        self.numbers.remove(*old_numbers)
        self.numbers.add(*new_numbers)
        self.row_label = self._row_label(2, self.numbers)
        self.sum = self._sum(2).scale(self.scale_factor).move_to(old_sum, aligned_edge=LEFT)
        self.sum_line.remove(old_sum)
        self.sum_line.add(self.sum)
        old_one = self.one
        self.remove(old_label, old_one)
        self.add(self.row_label)
        self.one = self._top_label(number_text(1, style.MUTED, style.CAPTION_SIZE, decimals=0))  # a weight of 1
        self.add(self.one)
        swaps = [*zip(old_numbers, new_numbers), (old_label, self.row_label), (old_sum, self.sum), (old_one, self.one)]
        return [*self._bars_to(self.parts.weights, hollow=False), *[Swap(old, new) for old, new in swaps]]

    def _top_label(self, label):
        """``label`` (as built) left of the dashed line at the top of the bars, at the piece's present size."""
        return label.scale(self.scale_factor).next_to(self.top_line, LEFT, buff=0.12 * self.scale_factor)

    def _advance(self, state: int) -> None:
        if self.state != state - 1:
            raise RuntimeError(f"SoftmaxMoves: move {state} asked after move {self.state}: exponentiate, "
                               "then normalise")
        self.state = state

    def _follow(self, *parts) -> None:
        """Give ``parts`` (built with the piece, not yet in it) the scale and place the piece has since taken."""
        scale = self.scale_factor
        built_origin = np.array([-self.step / 2, 0, 0])  # the baseline's left end, as built
        for part in parts:
            part.scale(scale, about_point=built_origin).shift(self.baseline.get_start() - built_origin)

    def _bars_to(self, values: np.ndarray, hollow: bool) -> list[Transform]:
        """Every bar to ``values`` x unit on the baseline, in attention's colour: hollow, or filled."""
        floor = self.baseline.get_y()
        stroke = EXPONENTIAL_OUTLINE if hollow else 0
        shortest = SHORTEST_BAR * self.scale_factor
        return [Transform(bar, Rectangle(width=bar.width, height=max(shortest, value * self.unit),
                                         stroke_color=style.ATTENTION, stroke_width=stroke, fill_color=style.ATTENTION,
                                         fill_opacity=0.0 if hollow else WEIGHT_OPACITY)
                          .move_to([bar.get_x(), floor, 0], aligned_edge=DOWN))
                for bar, value in zip(self.bars, values)]
