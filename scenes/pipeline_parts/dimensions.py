"""The guide's exercises 5 and 6, d_k in a real Transformer: the run's √d_k against a real head's (d_k = 64), and
d = 512 cut into heads, then each head cut in two."""

from __future__ import annotations

import math
import textwrap

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, Line, Rectangle, RoundedRectangle, SurroundingRectangle, VGroup,
                   smooth, squish_rate_func)

from lesson.pipeline_answers import Dimensions
from lesson.scaling_answers import root
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.pipeline_parts.common import STEP_SECONDS, VOICE_LEFT, PipelineCommon
from scenes.visuals import label_text, tagged_number, text_with_numbers

DIMENSION_NUMBERS = 14  # exercise 5's two d_k with their roots, the growth and four mean entropies (undivided and
# divided); exercise 6's d and two (h, d_k)
ROOT_DECIMALS = 2  # a root or a ratio that is not whole
DIMENSION_BAR_WIDTH = 5.0  # exercise 6's d = 512, cut into heads
DIMENSION_BAR_HEIGHT = 0.5
DIMENSION_BAR_OPACITY = 0.35
DIMENSION_STROKE = 2  # the bar's outline and its cuts
LINE_GAP = 0.35  # between two lines of an exercise
PANELS_GAP = 0.4  # between exercise 5's panel and exercise 6's
PANEL_PADDING = 0.4  # inside a panel, round its lines
LARGEST_SCALE = 1.3  # the lines grown at most this much to fill their panel
SPREAD_BAR_WIDTH = 5.0  # exercise 5's bar for the larger √d_k: the scores' spread
SPREAD_BAR_HEIGHT = 0.22
SPREAD_GAP = 0.12  # between a divisor's line and its bar
SHARPNESS_BARS_GAP = 0.4  # between the two mean entropies' bars
SHARPNESS_BAR_OPACITY = 0.9  # as the rows' chart's entropy bars
POINTER_GAP = 0.18  # between the line the voice is on and its frame: clear of its last digits
POINTER_SECONDS = 0.4  # a frame drawn round that line, the one before leaving
POINTER_STROKE = 3


class DimensionSteps(PipelineCommon):
    """The dimensions step, the section's last."""

    def show_dimensions(self):
        """Exercise 5: the run's √d_k against a real head's (d_k = 64), how many times it divides more; exercise 6:
        d = 512 cut into h = 8 heads of 64, then each cut in two, 16 heads of 32. One line at a time over the reading
        time (``lesson.pipeline_answers.Dimensions``)."""
        sizes, labels = Dimensions(self.run.steps.d_k), self.labels
        self.begin_step("dimensions", new_numbers=DIMENSION_NUMBERS, with_header=[Vanish(self.entropy_stage)],
                        **sizes.fields())
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
        sharpness = self.sharpness_lines(sizes, number)
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
        # what the narrower heads cost, on two lines: one would not fit its half of the frame at a readable size
        tradeoff = label_text(textwrap.fill(labels["dims_tradeoff"], math.ceil(len(labels["dims_tradeoff"]) * 0.6)),
                              style.TEXT, font)
        spreads = self.spread_bars(sizes)
        spread_key = label_text(labels["dims_spread"], style.MUTED, font)  # what the bars measure
        left = VGroup(left[0], *[VGroup(line, spread).arrange(DOWN, aligned_edge=LEFT, buff=SPREAD_GAP)
                                 for line, spread in zip(left[1:3], spreads)], spread_key, left[3], sharpness)
        right = VGroup(label_text(labels["dims_title_6"], style.MUTED, font), width, VGroup(bar, *cuts), *heads,
                       tradeoff)
        panels = self.exercise_panels(left, right)
        # the line the voice is on, framed: the screen follows the voice; each frame is drawn round its line where it
        # stands, the last one fading (a frame grown from one line to the next ran through the digits between)
        framed = {"lab": left[1], "model": left[2], "growth": left[4], "spread": VGroup(*spreads, spread_key), "sharpness": sharpness,
                  "heads": VGroup(width, bar), "cut": VGroup(bar, heads[0]), "more": VGroup(cuts[1], heads[1]),
                  "tradeoff": tradeoff}
        self.pointers = {phrase: self.pointer_on(target) for phrase, target in framed.items()}
        self.pointed = framed
        # exercise 6's panel comes with its lines: an empty panel held 20 s beside exercise 5 (review s8)
        beats = {"": [Appear(panels[0].background), Appear(left[0])],
                 "lab": [Appear(left[1][0]), Create(spreads[0])],
                 "model": [Appear(left[2][0]), Create(spreads[1])],
                 # the line that says why with the growth's «la misma nitidez», the bars framed as the voice says
                 # why: the key after it left 6 s of a conclusion with no reason (review s14)
                 "growth": [Appear(spread_key), Appear(left[4])],
                 "spread": [],
                 "sharpness": [Appear(sharpness)],  # "the same sharpness", measured: the two mean entropies
                 "heads": [Appear(panels[1].background), Appear(right[0]), Appear(width), Appear(bar)],
                 # d cut into its heads as the voice names them: with d, a 6.2 s still under the phrase (review s12)
                 "cut": [Create(cuts[0]), Appear(heads[0])],
                 "more": [Create(cuts[1]), Appear(heads[1])],
                 "tradeoff": [Appear(tradeoff)]}  # each with its phrase
        each = self.fill_seconds() / len(beats)
        previous = None
        for k, (phrase, animations) in enumerate(beats.items()):
            if phrase:
                self.beat(phrase)
            # under a voice, each piece builds while its phrase is said, VOICE_LEFT before its end
            seconds = max(min(STEP_SECONDS, each), self.voice_left(VOICE_LEFT))
            if phrase:  # its pieces and its frame whole at the phrase's start, the frame before gone: drawn over the
                # phrase, a frame stood half-drawn for seconds round lines still fading in (review s10, 290)
                quick = squish_rate_func(smooth, 0.0, min(1.0, POINTER_SECONDS / seconds))
                for animation in animations:
                    animation.rate_func = quick
                animations = [*animations, Create(self.pointers[phrase], rate_func=quick),
                              *([Vanish(self.pointers[previous], rate_func=quick)] if previous else [])]
                previous = phrase
            self.play(*animations, run_time=seconds)
            if k < len(beats) - 1 and each > STEP_SECONDS and not self.voice_left():
                self.wait(each - STEP_SECONDS)

    def sharpness_lines(self, sizes: Dimensions, number) -> VGroup:
        """Exercise 5's "the same sharpness" shown against its contrast: the mean entropy of a row of the sentence's
        length, q and keys random ~ N(0, 1) (the key says so), scores not divided, then
        divided by √d_k, at the run's d_k and at the real head's; under the divided pair, its bars (the group's last);
        ``number`` tags a value (row 0 divided, row 1 not). Undivided the larger d_k is far sharper; divided, alike."""
        labels, font, n = self.labels, style.BODY_SIZE, len(self.tokens)
        key = label_text(labels["dims_sharpness_key"].format(n=n), style.MUTED, font)
        lines = VGroup(key)
        for row, text, divided in ((1, "dims_unscaled", False), (0, "dims_sharpness", True)):  # the contrast first
            small, large = sizes.sharpness(n, divided=divided)
            lines.add(text_with_numbers(labels[text], {
                "small": number(round(small, ROOT_DECIMALS), (row, 0), "exercise_5_sharpness"),
                "large": number(round(large, ROOT_DECIMALS), (row, 1), "exercise_5_sharpness")},
                                        font_size=font, d_k=str(sizes.d_k), model_d_k=str(sizes.model_d_k)))
        lines.add(self.sharpness_bars((small, large), math.log2(n), lines[-1].width))  # the divided pair's
        return lines.arrange(DOWN, aligned_edge=LEFT, buff=SPREAD_GAP)

    @staticmethod
    def sharpness_bars(bits: tuple[float, float], most: float, width: float) -> VGroup:
        """Under each mean entropy, its bar in a frame of log₂ n bits (all n weights alike), as the rows' chart of step
        13 draws an entropy: the two bars about as long, both short of their frames, the same sharpness seen. Side by
        side, each under its own half of the line of numbers (``width``)."""
        side = (width - SHARPNESS_BARS_GAP) / 2
        pairs = VGroup()
        for value in bits:
            frame = Rectangle(width=side, height=SPREAD_BAR_HEIGHT, stroke_color=style.MUTED,
                              stroke_width=DIMENSION_STROKE, fill_opacity=0)
            bar = Rectangle(width=side * value / most, height=SPREAD_BAR_HEIGHT, stroke_width=0,
                            fill_color=style.ATTENTION, fill_opacity=SHARPNESS_BAR_OPACITY).align_to(frame, LEFT)
            pairs.add(VGroup(frame, bar))
        return pairs.arrange(RIGHT, buff=SHARPNESS_BARS_GAP)

    def exercise_panels(self, left: VGroup, right: VGroup) -> list:
        """Each exercise on a panel of its own, the two side by side filling the body: its title on top and its lines
        spread down the panel, a line a group, at a size read from the back of a lecture hall."""
        box_left, box_right, bottom, top = self.body()
        panel_width = (box_right - box_left - PANELS_GAP) / 2
        panels = []
        height = top - bottom - PANEL_PADDING / 2  # clear of a silent render's two-line caption
        for column in (left, right):
            column.arrange(DOWN, aligned_edge=LEFT, buff=LINE_GAP)
        scale = min(LARGEST_SCALE, *[min((panel_width - 2 * PANEL_PADDING) / column.width,
                                         (height - 2 * PANEL_PADDING) / column.height) for column in (left, right)])
        for column, x in zip((left, right), (box_left + panel_width / 2, box_right - panel_width / 2)):
            column.scale(scale)  # one size for both panels: their titles and lines read alike
            room = height - 2 * PANEL_PADDING - sum(part.height for part in column)
            column.arrange(DOWN, aligned_edge=LEFT, buff=max(LINE_GAP, room / (len(column) - 1)))
            background = RoundedRectangle(width=panel_width, height=height, corner_radius=0.15, stroke_width=0,
                                          fill_color=style.PANEL, fill_opacity=1.0)
            background.move_to([x, (top + bottom) / 2, 0]).align_to([0, top, 0], UP)
            column.move_to(background).align_to(background, LEFT).shift(RIGHT * PANEL_PADDING)
            panel = VGroup(background, column)
            panel.background = background
            panels.append(panel)
        return panels

    @staticmethod
    def spread_bars(sizes: Dimensions) -> list:
        """Under each divisor, a bar as long as √d_k: how widely the scores of that d_k spread, what it divides by."""
        roots = [math.sqrt(sizes.d_k), math.sqrt(sizes.model_d_k)]
        return [Rectangle(width=SPREAD_BAR_WIDTH * value / max(roots), height=SPREAD_BAR_HEIGHT, stroke_width=0,
                          fill_color=style.KEY, fill_opacity=DIMENSION_BAR_OPACITY * 2) for value in roots]

    @staticmethod
    def pointer_on(target) -> SurroundingRectangle:
        return SurroundingRectangle(target, color=style.HIGHLIGHT, buff=POINTER_GAP, stroke_width=POINTER_STROKE,
                                    corner_radius=0.08)

