"""Exercise 4's «¿por qué?» as a picture: under the causal mask, the entropy of every row of the sentence as a bar
with its number, each bar inside a frame as tall as log₂ i, the most that row can spread over the i tokens it sees;
the lab's other sentences' rows as marks on the same bars, each sentence its own mark, named beside the chart with its
rows' count and exercise 4's pair, its first and fourth rows' entropy. The entropy grows with the context a token has."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UP, DashedLine, Dot, Line, Rectangle, Square, VGroup

from scenes import style
from scenes.token_labels import abbreviated
from scenes.visuals import cap_height, label_text, sit_on, tagged_number, text_with_numbers

SLOT = 0.95  # the width a row's bar takes, gap included
BAR_WIDTH = 0.55
FRAME_WIDTH = 0.7  # a row's frame of log₂ i, round its bar: wider, so that a bar as tall as its frame shows both
BIT_HEIGHT = 1.05  # of a bit
VALUE_GAP = 0.16  # between a bar (or its frame's top) and its number: clear of the dots there
NAME_GAP = 0.15  # between the baseline and the tokens' names
NAME_SPACING = 0.2  # at least, between two tokens' names side by side
NAME_DROP = 1.9  # in cap heights: how much lower every other name sits when the names alternate on two lines
LEGEND_GAP = 0.35  # between the chart and its legend's entries
DOT_RADIUS = 0.07
FRAME_STROKE = 2
BASE_STROKE = 2
KEY_LINE_GAP = 0.1  # between the lines of a sentence's entry in the key of the other sentences
KEY_ENTRY_GAP = 0.25  # between two sentences' entries in that key
DIAMOND_SIDE = 1.6 * DOT_RADIUS  # the second sentence's mark: a diamond about as large as a dot
FOURTH = 3  # the row (from 0) whose entropy exercise 4 reads beside the first's, when the sentence is that long


def sentence_mark(k: int, position) -> VGroup:
    """The mark of the lab's k-th other sentence at ``position``: a dot, then a diamond; each sentence's rows told
    apart (two sets of alike white dots left «atención…»'s six rows unread beside «red…»'s five, review s13)."""
    if k == 0:
        return Dot(position, radius=DOT_RADIUS, color=style.HIGHLIGHT)
    return Square(side_length=DIAMOND_SIDE, color=style.HIGHLIGHT, fill_opacity=1.0, stroke_width=0).rotate(
        PI / 4).move_to(position)


def name_slot(names: list, width: float) -> tuple[float | None, bool]:
    """The slot a bar takes so that its token's name fits under it, and whether the names alternate between two lines
    (each then clears the one two bars on, not its neighbour); None where even staggered they exceed ``width``: the
    rows' names under a 7-token sentence did not fit on one line beside the other sentences' key, and the bars
    stood unnamed (review s15 round 2)."""
    widths = [name.width for name in names]
    side_by_side = max(SLOT, max(widths) + NAME_SPACING)
    if len(names) * side_by_side <= width:
        return side_by_side, False
    two_on = [(left + right) / 2 + NAME_SPACING for left, right in zip(widths, widths[2:])] or [0.0]
    needed = max(max(two_on) / 2, max(widths) / 2)
    if len(names) * needed > width:
        return None, False
    return max(needed, min(SLOT, width / len(names))), True


class OtherSentence(NamedTuple):
    """One of the lab's other sentences under the mask: its ``words`` as Spanish writes them, its ``tokens``, each
    row's entropy ``bits``, and how many tokens the guide says it has (``guide_tokens``)."""
    words: str
    tokens: tuple[str, ...]
    bits: np.ndarray
    guide_tokens: int | None = None


def other_entry(labels: dict, k: int, other: OtherSentence, font: float) -> VGroup:
    """A sentence's entry in the key: its mark, its words, then its rows with exercise 4's pair, H of the first and of
    the fourth row (tagged ``entropy_others`` (k, 0) and (k, 1)): the exercise asks it «en cada oración», and the last
    row's alone did not answer it (review s15); and, where the guide counts another number of tokens, that it does."""
    fourth = min(FOURTH, len(other.bits) - 1)
    lines = VGroup(label_text(labels["other_sentence"].format(sentence=other.words), style.MUTED, font),
                   text_with_numbers(labels["rows_other"], {
                       "first_bits": tagged_number(float(other.bits[0]), "entropy_others", (k, 0), style.MUTED, font),
                       "fourth_bits": tagged_number(float(other.bits[fourth]), "entropy_others", (k, 1), style.MUTED,
                                                    font)},
                       style.MUTED, font, rows=str(len(other.bits)), first=abbreviated(other.tokens[0]),
                       fourth=abbreviated(other.tokens[fourth])))
    if other.guide_tokens not in (None, len(other.tokens)):  # «7 tokens» in the guide, 6 words on screen
        lines.add(label_text(labels["rows_guide"].format(guide=other.guide_tokens, rows=len(other.tokens)),
                             style.MUTED, font))
    entry = VGroup(sentence_mark(k, ORIGIN_LEFT), lines.arrange(DOWN, aligned_edge=LEFT, buff=KEY_LINE_GAP))
    entry.arrange(RIGHT, buff=0.15)
    entry[0].match_y(lines[0])  # the mark on the sentence's line
    return entry


def others_key(labels: dict, others: list[OtherSentence], font: float) -> VGroup:
    """Beside the chart: «las demás oraciones del lab» over each one's entry (``other_entry``)."""
    title = label_text(labels["rows_others"], style.MUTED, font)
    entries = [other_entry(labels, k, other, font) for k, other in enumerate(others)]
    return VGroup(title, *entries).arrange(DOWN, aligned_edge=LEFT, buff=KEY_ENTRY_GAP)


class EntropyRows(VGroup):
    """The ``bars`` (each row's entropy), their ``values``, the ``limits`` (frames of log₂ i), the ``names`` of the
    rows' tokens, the ``others`` (marks: the lab's other sentences' rows) and their ``others_key``, the ``baseline``,
    the ``title`` and the ``legend``."""

    def __init__(self, title, baseline, limits, bars, values, names, others, legend, others_key):
        super().__init__(title, baseline, bars, limits, values, names, others, legend, others_key)
        self.title, self.baseline, self.limits, self.bars = title, baseline, limits, bars
        self.values, self.names, self.others, self.legend = values, names, others, legend
        self.others_key = others_key

    def ground(self) -> VGroup:
        """What lands first: the axis, the frames, the names, the title and the legend; then the bars grow."""
        return VGroup(self.title, self.baseline, self.limits, self.names, self.legend)


def entropy_rows(labels: dict, tokens, bits, others: list[OtherSentence], width: float, height: float,
                 name: str = "entropy_rows") -> EntropyRows:
    """``bits[i]``: the entropy of row i under the mask (tagged ``name``, (0, i)); ``others``: the lab's other
    sentences, drawn as marks on the rows they have (a sentence of six words has no seventh). Built within ``width`` x ``height`` at the size it is read:
    a long sentence's names, then its numbers, are left out rather than shrunk (the bars and frames still compare)."""
    n = len(bits)
    font = style.CAPTION_SIZE
    key = others_key(labels, others, font) if len(others) else VGroup()
    width -= key.width + 2 * LEGEND_GAP if len(others) else 0.0  # the key beside the chart, both within ``width``
    tokens_named = [label_text(abbreviated(token), style.MUTED, font) for token in tokens]
    slot, staggered = name_slot(tokens_named, width)
    if slot is None:  # too many names even on two lines: the bars alone, at most SLOT apart
        tokens_named = [VGroup() for _ in tokens]
        slot = min(SLOT, width / n)
    numbered = slot >= tagged_number(2.81, "probe", font_size=font).width + NAME_SPACING / 2
    bar_width, frame_width = BAR_WIDTH * slot / SLOT, FRAME_WIDTH * slot / SLOT
    bit_height = min(BIT_HEIGHT, height / max(1.0, math.log2(n)))  # the last frame, log₂ n, as tall as the room
    baseline = Line(ORIGIN_LEFT, ORIGIN_LEFT + RIGHT * slot * n, color=style.MUTED, stroke_width=BASE_STROKE)
    limits, bars, values, names = VGroup(), VGroup(), VGroup(), VGroup()
    for i in range(n):
        x = (i + 0.5) * slot
        most = math.log2(i + 1)
        limit = Rectangle(width=frame_width, height=max(most * bit_height, 1e-3), stroke_color=style.MUTED,
                          stroke_width=FRAME_STROKE, fill_opacity=0)
        limit.move_to([x, most * bit_height / 2, 0])
        if i == 0:  # log₂ 1 = 0: a flat frame, a dash on the axis
            limit = DashedLine([x - frame_width / 2, 0, 0], [x + frame_width / 2, 0, 0], color=style.MUTED,
                               stroke_width=FRAME_STROKE)
        tall = max(float(bits[i]) * bit_height, 1e-3)
        bar = Rectangle(width=bar_width, height=tall, stroke_width=0, fill_color=style.ATTENTION, fill_opacity=0.9)
        bar.move_to([x, tall / 2, 0])
        value = VGroup()
        if numbered:
            value = tagged_number(float(bits[i]), name, (0, i), style.ATTENTION, font)
            value.next_to([x, max(tall, most * bit_height), 0], UP, buff=VALUE_GAP)
        token = tokens_named[i]
        if len(token.submobjects) or getattr(token, "text", None):
            # every name on one line, descenders or not; staggered, every other one a line lower
            sit_on(token.set_x(x), -NAME_GAP - cap_height(token) - (i % 2) * staggered * NAME_DROP * cap_height(token))
        limits.add(limit.set_z_index(1))  # over its bar, which grows after it has landed
        bars.add(bar)
        values.add(value)
        names.add(token)
    dots = VGroup(*[sentence_mark(k, [(i + 0.5) * slot + (k - (len(others) - 1) / 2) * 2.2 * DOT_RADIUS,
                                      float(other.bits[i]) * bit_height, 0])
                    for k, other in enumerate(others) for i in range(min(n, len(other.bits)))])
    title = label_text(labels["rows_title"], style.TEXT, style.BODY_SIZE)
    frame_key = VGroup(Rectangle(width=0.25, height=0.3, stroke_color=style.MUTED, stroke_width=FRAME_STROKE),
                       label_text(labels["rows_most"], style.MUTED, font)).arrange(RIGHT, buff=0.12)
    legend = VGroup(frame_key)
    chart = VGroup(baseline, bars, limits, values, names, dots)  # the frames over the bars: seen where they meet
    key.next_to(chart, RIGHT, buff=2 * LEGEND_GAP).align_to(chart, DOWN)
    title.next_to(chart, UP, buff=LEGEND_GAP)
    legend.next_to(chart, DOWN, buff=LEGEND_GAP)
    return EntropyRows(title, baseline, limits, bars, values, names, dots, legend, key)


ORIGIN_LEFT = np.array([0.0, 0.0, 0.0])
