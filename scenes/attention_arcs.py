"""Who attends to whom, drawn over the sentence: a row of tokens, attention arcs, a read-out of one
query's weights under the tokens, and a weight matrix as a heatmap labelled with the tokens.

Arcs go from the querying token i to the attended token j (the tip lands on j); their thickness and
opacity are proportional to alpha_ij, and a token attending to itself gets a small loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, AnimationGroup, Create, ManimColor, MathTex, Polygon, Rectangle, Square,
                   SurroundingRectangle, UpdateFromAlphaFunc, VGroup, VMobject)

from attn_math.words import SUBSCRIPT_DIGITS
from scenes import style
from scenes.fades import Appear
from scenes.visuals import CELL_HEIGHT, brackets_and_label, dashed, label_text, number_text

STRUT = "|"  # a glyph from the ascender to the descender: words placed by it share one baseline
READOUT_SIZE = 20  # font size of the weights read out under the tokens
ARC_GAP = 0.12  # between the words and the arcs' ends
MAX_STROKE = 9.0  # stroke width of an arc with alpha = 1
FULL_STROKE_SPACING = 0.6  # tokens closer than this (frame units) get thinner arcs, as the square of the share
STROKE_UNIT = 0.01  # frame units per unit of stroke width (manim's cairo line width multiple)
# In a dense row, arcs of one length reach less deep the further right their query, NEST_GAP strokes deeper than their
# right neighbour's (their depth shrinking by MOST_NEST at most): parallel arcs nest instead of merging into a band
NEST_GAP, MOST_NEST = 1.2, 0.8
FAINT = 0.01  # arcs below this weight are invisible at any size: not drawn
DIMMED = 0.15  # opacity share left to the other arcs while one token's arcs are in focus
LOOP_HEIGHT = 0.45  # handles of a token's arc onto itself: a small round loop over the word
LOOP_BULGE = 0.22
LABEL_GAP = 0.15  # between a heatmap and its token labels
LEVEL_GAP = 0.08  # between staggered lines of column labels
LABEL_SPACING = 0.1  # between two column labels on one line
TOKEN_LABEL_SIZE = 20  # the heatmap's token labels: a cap height of 18 px at 720p
MAX_LABEL_LEVELS = 3  # staggered lines of column labels, at most
LABEL_CHARACTERS = (None, 8, 6, 4, 3)  # token labels tried in full, then cut to these lengths, until they fit
MIN_LABELLED_CELL = 0.3  # a row of the heatmap as tall as its label, so neighbouring labels do not touch
BRACKETS_WIDTH = 0.36  # a HeatBlock's two brackets beside its cells
ROW_FRAME_ROOM = 0.08  # left of the widest row label, inside a row's frame


class TokenRow(VGroup):
    """Words in a row on one baseline, each centred in a slot at least ``slot_width`` wide.

    ``row.words[i]`` is word i (prose from ``label_text``, ``shown_text`` the token); ``centre_x(i)``, ``top()`` and
    ``bottom()`` follow the row wherever it is moved or scaled.
    """

    def __init__(self, tokens: Sequence[str], colour: ManimColor = style.INPUT, font_size: float = style.BODY_SIZE,
                 slot_width: float = 0.0, gap: float = 0.25):
        super().__init__()
        self.tokens = tuple(tokens)
        self.words = [self._word(token, colour, font_size) for token in self.tokens]
        left = 0.0
        for word in self.words:
            slot = max(word.width, slot_width)
            word.shift(RIGHT * (left + slot / 2 - word.get_center()[0]))
            left += slot + gap
        self.add(*self.words)

    @staticmethod
    def _word(token: str, colour: ManimColor, font_size: float):
        word = label_text(STRUT + token, colour, font_size)
        word.shift(-word[0].get_center())  # the strut's middle on y = 0: the baseline is shared
        word.remove(word[0])
        word.initial_height = word.height  # manim derives font_size from the height: keep it true without the strut
        word.shown_text = token
        return word

    def centre_x(self, i: int) -> float:
        return float(self.words[i].get_center()[0])

    def spacing(self) -> float:
        """The smallest distance between neighbouring word centres (the row's width for a single word)."""
        if len(self.words) < 2:
            return self.width
        return min(self.centre_x(j + 1) - self.centre_x(j) for j in range(len(self.words) - 1))

    def top(self) -> float:
        return max(float(word.get_top()[1]) for word in self.words)

    def bottom(self) -> float:
        return min(float(word.get_bottom()[1]) for word in self.words)

    def box(self, i: int) -> SurroundingRectangle:
        """A highlight frame around word i."""
        return SurroundingRectangle(self.words[i], color=style.HIGHLIGHT, buff=0.08, stroke_width=3,
                                    corner_radius=0.06)


def weight_readout(row: TokenRow, weights: Sequence[float], colour: ManimColor, name: str, query: int,
                   below: float = 0.2, font_size: float = READOUT_SIZE, hide_zeros: bool = False) -> VGroup:
    """Query ``query``'s weights written under the tokens they go to, tagged ``(name, (query, j))``, on a
    line ``below`` under the words.

    Weights that round to 0.00 are muted (or left out with ``hide_zeros``) so the eye goes to where
    the weight is.
    """
    numbers = VGroup()
    for j, weight in enumerate(weights):
        negligible = not round(float(weight), 2)
        if negligible and hide_zeros:
            continue
        text = number_text(float(weight), style.MUTED if negligible else colour, font_size)
        text.tag = (name, (query, j))
        text.scale(min(1.0, 0.75 * row.spacing() / text.width))  # every number the same size, none touching
        numbers.add(text.move_to([row.centre_x(j), 0, 0]))
    line_top = row.bottom() - below
    for text in numbers:
        text.shift(UP * (line_top - text.get_top()[1]))  # digits share one top: the line stays level
    return numbers


class AttentionArc(VGroup):
    """One arc from query i to key j: a curve and a tip at j, both as opaque as the weight, the curve
    as thick as the weight; ``bulge`` widens the top of a token's loop onto itself; ``dash`` > 0 dashes the curve
    (a head's pattern: style.HEAD_DASHES)."""

    def __init__(self, start: np.ndarray, end: np.ndarray, height: float, weight: float, colour: ManimColor,
                 direction: int = 1, bulge: float = 0.0, dash: float = 0.0, thickness: float = 1.0):
        super().__init__()
        self.weight = float(weight)
        tip_length, tip_width = 0.1 + 0.08 * self.weight, 0.08 + 0.12 * self.weight
        outward = np.array([0.0, direction, 0.0])
        curve_end = end + outward * tip_length * 0.8  # under the tip, so a thick stroke does not poke out
        widen = np.sign(start[0] - end[0]) * bulge * RIGHT
        self.curve = VMobject(stroke_color=colour, stroke_width=MAX_STROKE * thickness * self.weight,
                              stroke_opacity=self.weight)
        self.curve.set_points(np.array([start, start + outward * height + widen,
                                        curve_end + outward * height - widen, curve_end]))
        self.curve = dashed(self.curve, dash)
        self.tip = Polygon(end, end + outward * tip_length + LEFT * tip_width / 2,
                           end + outward * tip_length + RIGHT * tip_width / 2,
                           stroke_width=0, fill_color=colour, fill_opacity=self.weight)
        self.add(self.curve, self.tip)
        self.share = 1.0

    def set_share(self, share: float) -> None:
        """Show the arc at ``share`` of its own opacity (1 restores it)."""
        self.share = share
        self.curve.set_stroke(opacity=self.weight * share)
        self.tip.set_fill(opacity=self.weight * share)

    def draw(self) -> AnimationGroup:
        return AnimationGroup(Create(self.curve), Appear(self.tip))


class AttentionArcs(VGroup):
    """Every arc of a weight matrix over a ``TokenRow`` in one colour; ``arcs[i, j]`` is query i's arc to j.

    Arcs rise above the row (``above=False``: hang below it), the longest to ``height``, dashed when ``dash`` > 0;
    build them after the row is in place and move them with it.
    """

    def __init__(self, row: TokenRow, weights, colour: ManimColor, height: float = 1.6, above: bool = True,
                 dash: float = 0.0):
        super().__init__()
        self.weights = np.asarray(weights, dtype=float)
        direction = 1 if above else -1
        base = row.top() + ARC_GAP if above else row.bottom() - ARC_GAP
        offset = min(0.1, row.spacing() / 5)  # leave on the right of a word, arrive on its left
        span = max(row.centre_x(len(row.words) - 1) - row.centre_x(0), row.spacing())
        dense = min(1.0, row.spacing() / FULL_STROKE_SPACING)  # 1 for a sentence, under it for a long row
        self.arcs = {}
        for (i, j), weight in np.ndenumerate(self.weights):
            if weight < FAINT:
                continue
            start = np.array([row.centre_x(i) + offset, base, 0.0])
            end = np.array([row.centre_x(j) - offset, base, 0.0])
            if i == j:
                control, bulge = LOOP_HEIGHT, LOOP_BULGE
            else:  # long arcs rise higher, so they pass over the short ones
                share = min(1.0, 0.15 + 0.85 * abs(end[0] - start[0]) / span)
                if dense < 1:
                    last = len(row.words) - 1
                    nest = min(MOST_NEST, NEST_GAP * STROKE_UNIT * MAX_STROKE * dense ** 2 * last / (share * height))
                    share *= 1 - nest * i / last
                control, bulge = share * height / 0.75, 0.0  # a cubic with both handles at h peaks at 0.75 h
            self.arcs[i, j] = AttentionArc(start, end, control, weight, colour, direction, bulge, dash, dense ** 2)
        self.add(*self.arcs.values())

    def draw(self, run_time: float = 2.0) -> AnimationGroup:
        """Draw the arcs query by query, left to right."""
        return AnimationGroup(*[arc.draw() for arc in self.arcs.values()], lag_ratio=0.15, run_time=run_time)

    def focus(self, i: int) -> UpdateFromAlphaFunc:
        """Keep query i's arcs and dim the rest: the video's stand-in for hovering a row. Play it right away."""
        return self._fade_to({(query, key): 1.0 if query == i else DIMMED for query, key in self.arcs})

    def unfocus(self) -> UpdateFromAlphaFunc:
        return self._fade_to({pair: 1.0 for pair in self.arcs})

    def _fade_to(self, shares: dict) -> UpdateFromAlphaFunc:
        # One animation over the whole set: an .animate per arc would copy every arc twice.
        before = {pair: arc.share for pair, arc in self.arcs.items()}

        def update(_, alpha: float) -> None:
            for pair, arc in self.arcs.items():
                arc.set_share(before[pair] + (shares[pair] - before[pair]) * alpha)

        return UpdateFromAlphaFunc(self, update)


class HeatBlock(VGroup):
    """A matrix drawn as coloured cells only, in brackets with a MathTex label above: for matrices too
    large to read number by number. Same names as ``LabelledMatrix`` (``cells[i][j]``, ``cell_grid``,
    ``brackets``, ``label``), without its Text per cell, which would cost a tenth of a second each to
    build and again on every copy an animation makes.
    """

    def __init__(self, values, label: str, colour: ManimColor,
                 fill: Callable[[float], ManimColor] = style.weight_colour, cell_size: float = CELL_HEIGHT):
        super().__init__()
        self.values = np.asarray(values, dtype=float)
        rows, cols = self.values.shape
        self.cells = [[Square(cell_size, stroke_color=style.BACKGROUND, stroke_width=1, fill_opacity=1.0,
                              fill_color=fill(self.values[i, j])).move_to([j * cell_size, -i * cell_size, 0])
                       for j in range(cols)] for i in range(rows)]
        self.cell_grid = VGroup(*[cell for row in self.cells for cell in row])
        self.brackets, self.label = brackets_and_label(self.cell_grid, rows * cell_size, label, colour)
        self.add(self.cell_grid, self.brackets, self.label)


class TokenHeatmap(VGroup):
    """A weight matrix as a heatmap (a ``HeatBlock`` filled with ``style.weight_colour``) with the tokens as row
    labels (left) and column labels (above, horizontal), sized to ``width`` x ``height`` at a fixed font size.

    Column labels wider than their column are staggered on up to MAX_LABEL_LEVELS lines; tokens too long for
    that are cut short with "…" (the token row beside the heatmap writes them in full). ``heatmap.matrix`` is
    the HeatBlock; ``row_box(i)`` frames row i with its label.
    """

    def __init__(self, weights, tokens: Sequence[str], label: str, colour: ManimColor, width: float, height: float,
                 font_size: float = TOKEN_LABEL_SIZE):
        super().__init__()
        title_height = MathTex(label, font_size=style.BODY_SIZE + 6).height
        for characters in LABEL_CHARACTERS:
            words = [label_text(shortened(token, characters), style.TEXT, font_size) for token in tokens]
            cell, levels = self._layout([word.width for word in words], words[0].height, width,
                                        height - title_height)
            if cell >= MIN_LABELLED_CELL:
                break
        self.matrix = HeatBlock(weights, label, colour, cell_size=cell)
        columns = [word.copy() for word in words]
        self.row_labels = VGroup(*[word.next_to(self.matrix.brackets[0], LEFT, buff=LABEL_GAP)
                                   .set_y(self.matrix.cells[i][0].get_y()) for i, word in enumerate(words)])
        line = words[0].height + LEVEL_GAP
        top = self.matrix.cell_grid.get_top()[1] + LABEL_GAP
        for j, column in enumerate(columns):
            column.set_x(self.matrix.cells[0][j].get_x()).align_to([0, top + (j % levels) * line, 0], DOWN)
        self.column_labels = VGroup(*columns)
        self.matrix.label.next_to(self.column_labels, UP, buff=LABEL_GAP).set_x(self.matrix.cell_grid.get_x())
        self.add(self.matrix, self.row_labels, self.column_labels)

    @staticmethod
    def _layout(widths: Sequence[float], line_height: float, width: float, height: float) -> tuple[float, int]:
        """(cell side, lines of column labels) that fit ``width`` x ``height`` with the row labels on the left;
        labels on one line are ``lines`` columns apart and must not touch. (0, 0) if none fits."""
        n = len(widths)
        for levels in range(1, MAX_LABEL_LEVELS + 1):
            cell = min(CELL_HEIGHT, (width - max(widths) - LABEL_GAP - BRACKETS_WIDTH) / n,
                       (height - levels * (line_height + LEVEL_GAP) - 2 * LABEL_GAP) / n)
            if all((widths[j] + widths[j + levels]) / 2 + LABEL_SPACING <= levels * cell for j in range(n - levels)):
                return cell, levels
        return 0.0, 0

    def row_box(self, i: int) -> SurroundingRectangle:
        """A frame round row i's cells and label, as wide for every row: from the widest label, with room
        before it, so the frame never crosses a short label's first letter."""
        cells = VGroup(*self.matrix.cells[i])
        left = self.row_labels.get_left()[0] - ROW_FRAME_ROOM
        span = Rectangle(width=cells.get_right()[0] - left, height=cells.height, stroke_width=0, fill_opacity=0)
        return SurroundingRectangle(span.move_to([(left + cells.get_right()[0]) / 2, cells.get_y(), 0]),
                                    color=style.HIGHLIGHT, buff=0.04, stroke_width=3, corner_radius=0.06)


def shortened(token: str, characters: int | None) -> str:
    """``token``, or its first ``characters`` - 1 letters and "…" if it is longer (None: never shortened); a
    repeated word's subscript (la₂, ``attn_math.words.told_apart``) is kept after the "…"."""
    word = token.rstrip(SUBSCRIPT_DIGITS)
    number = token[len(word):]
    return token if characters is None or len(word) <= characters else word[:characters - 1] + "…" + number
