"""Visual pieces shared by the sections: labelled matrices with per-cell highlights and heat colours,
texts and numbers as every section writes them (``tagged_number`` for the step records, ``text_with_numbers`` for
a locale's sentence with numbers in it), where a line of text sits (``baseline``, ``sit_on``), and
formulas grown back to a legible size after a stage is scaled to fit (``enlarge_formulas``)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import cache, lru_cache

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, DashedVMobject, ManimColor, MarkupText, MathTex, Rectangle,
                   SingleStringMathTex, SurroundingRectangle, Text, VGroup, VMobject)

from lesson.numbers import decimals_for, format_number, parse_number
from scenes import speedups, style  # noqa: F401  (speedups: cheap text copies)
from scenes.number_glyphs import NumberText, composed_number
from scenes.typeset_store import font_installed, stored

CELL_HEIGHT = 0.5
CELL_PADDING = 0.22
SUBSCRIPT = re.compile(r"(?<=[A-Za-z])_([A-Za-z0-9]+)")
TEX_SCRIPT_SHARE = 0.7  # TeX sets sub- and superscripts at 7 pt in 10 pt text
SUBSCRIPT_SHARE = 0.8  # ours: Pango's <sub> is 0.6 of the text, 12 px in a caption at 720p, too small to read
FORMULA_MARGIN = 1.04  # a formula grown to its least legible size is grown this much past style.SMALLEST_CAP_HEIGHT
DESCENDERS = frozenset("gjpqyQ(),;βγζημξρςφχψ")  # Greek too: «μ =» stood on μ's tail
BASELINE_TOLERANCE = 0.01  # frame units: glyph bottoms this close sit on one line (round letters overshoot it)
BASELINE_SHARE = 0.05  # or this share of the tallest glyph, in a label drawn large (a formula's W and X differ more)
DEPTH_MEASURE_SIZE = 48


def subscript_markup(text: str, font_size: float) -> str:
    """Pango markup for a subscript at SUBSCRIPT_SHARE of the text, lowered by a third of a capital."""
    return f'<span size="{SUBSCRIPT_SHARE:.0%}" rise="-{font_size / 16:.2f}pt">{text}</span>'


def number_text(value: float, colour: ManimColor = style.TEXT, font_size: float = style.CELL_SIZE,
                decimals: int = 2) -> NumberText | Text:
    """A number in the monospaced font, written the way every section writes numbers (put together from
    cached glyphs; a Text only for characters the font lacks, like ∞).

    Give it ``text.tag = (name, (i, j))`` and the step records list it under ``numbers[name]``,
    so tests can compare what is on screen with attn_math.
    """
    shown = format_number(value, decimals)
    text = composed_number(shown, style.NUMBER_FONT, font_size, colour)
    if text is None:
        text = Text(shown, font=style.NUMBER_FONT, font_size=font_size, color=colour)
        text.shown_text = shown
    return text


def tagged_number(value: float, name: str, index: tuple[int, int] = (0, 0), colour: ManimColor = style.TEXT,
                  font_size: float = style.BODY_SIZE, decimals: int = 2) -> NumberText | Text:
    """A ``number_text`` the step records list under ``numbers[name][i][j]``, ``index`` = (i, j)."""
    text = number_text(value, colour, font_size, decimals)
    text.tag = (name, index)
    return text


def probability_decimals(weights, most: int = 4) -> int:
    """The fewest decimals, 2 to ``most``, at which every row of ``weights`` as written sums to 1
    (1/8 is written 0.125: eight 0.13 would sum to 1.04); ``most`` when none does (three 0.3333)."""
    rows = np.atleast_2d(np.asarray(weights, dtype=float))
    for decimals in range(2, most):
        written = np.vectorize(lambda p: parse_number(format_number(p, decimals)))(rows)
        if np.all(np.abs(written.sum(axis=1) - 1.0) < 0.5 * 10.0 ** -decimals):
            return decimals
    return most


def label_text(text: str, colour: ManimColor = style.TEXT, font_size: float = style.BODY_SIZE,
               weight: str = "NORMAL") -> MarkupText:
    """Prose in the text font; ``W_Q`` and ``d_k`` are written with real subscripts. A copy of the first
    label made with these arguments in this process, or loaded from the typeset store (``scenes.typeset_store``)
    if an earlier process made it: typesetting a caption (Pango, then parsing its SVG) took 132 ms, a copy 5 ms;
    a scene repeats many labels, every section renders in a process of its own, and the watch loop re-renders
    the same captions."""
    return _typeset_label(text, ManimColor(colour).to_hex(with_alpha=True), font_size, weight).copy()


# A scene's repeats (a matrix's labels, the same caption twice) hit within a few dozen labels; each kept label
# holds its glyphs (0.3-1 MB for a caption), so a larger cache grew a long section's memory by some 45 MB.
LABELS_KEPT = 64


def keep_typeset_labels(most: int) -> None:
    """Keep up to ``most`` typeset labels in this process instead of LABELS_KEPT: for a process that runs scenes
    again and again (the tests: a second run of a section's scene took 20 % less time with every label kept)."""
    global _typeset_label
    _typeset_label = lru_cache(maxsize=most)(_typeset_label.__wrapped__)


@lru_cache(maxsize=LABELS_KEPT)
def _typeset_label(text: str, colour: str, font_size: float, weight: str) -> MarkupText:
    markup = SUBSCRIPT.sub(lambda match: subscript_markup(match[1], font_size), html.escape(text, quote=False))
    return stored(("label", markup, text, colour, font_size, weight, style.TEXT_FONT, font_installed(style.TEXT_FONT)),
                  lambda: _markup_label(markup, text, colour, font_size, weight))


def _markup_label(markup: str, text: str, colour: str, font_size: float, weight: str) -> MarkupText:
    label = MarkupText(markup, font=style.TEXT_FONT, font_size=font_size, color=colour, weight=weight)
    label.shown_text = text
    return label


def cap_height(text: VMobject) -> float:
    """Height in frame units of a capital letter (or digit) in ``text``'s smallest type: its subscripts
    if it has any. A number's digits are measured (a number without digits, "−∞", by the digit height its
    glyphs go with); other texts from their font size, which manim keeps up to date when a text is scaled."""
    if isinstance(text, NumberText):
        return max((glyph.height * (1.0 if character.isdigit() else _digit_per_glyph_height(character))
                    for glyph, character in zip(text, text.shown_text)), default=0.0)
    if isinstance(text, SingleStringMathTex):
        scripts = "_" in text.tex_string or "^" in text.tex_string
        return text.font_size * _cap_per_point("tex") * (TEX_SCRIPT_SHARE if scripts else 1.0)
    subscripts = isinstance(text, MarkupText) and ("<sub>" in text.text or 'rise="-' in text.text)
    return text.font_size * _cap_per_point(text.font) * (_subscript_share(text.font) if subscripts else 1.0)


@cache
def _cap_per_point(font: str) -> float:
    """Cap height of an "H" per point of font size: ``font`` a font name, or "tex" for LaTeX."""
    letter = MathTex("H", font_size=48) if font == "tex" else Text("H", font=font, font_size=48)
    return letter.height / 48


@cache
def _digit_per_glyph_height(character: str) -> float:
    """A digit's height over ``character``'s, both typeset in the number font (0 for a glyph with no height)."""
    pair = Text("0" + character, font=style.NUMBER_FONT, font_size=48)
    return pair[0].height / pair[1].height if pair[1].height else 0.0


@cache
def _subscript_share(font: str) -> float:
    """How much smaller our subscripts are drawn than the text around them (measured: Pango rounds)."""
    pair = MarkupText("H" + subscript_markup("H", 48), font=font, font_size=48)
    return pair[1].height / pair[0].height


def bracket(height: float, side: int, colour: ManimColor) -> VMobject:
    """A square bracket [ (side=-1) or ] (side=+1) of the given height."""
    arm = 0.12 * -side
    points = [np.array([arm, height / 2, 0]), np.array([0, height / 2, 0]),
              np.array([0, -height / 2, 0]), np.array([arm, -height / 2, 0])]
    return VMobject(stroke_color=colour, stroke_width=2.5).set_points_as_corners(points)


def brackets_and_label(grid: VGroup, height: float, label: str, colour: ManimColor) -> tuple[VGroup, MathTex]:
    """A matrix's frame: brackets either side of its ``height``-tall ``grid`` and the MathTex label above."""
    brackets = VGroup(bracket(height + 0.1, -1, colour).next_to(grid, LEFT, buff=0.06),
                      bracket(height + 0.1, +1, colour).next_to(grid, RIGHT, buff=0.06))
    return brackets, MathTex(label, color=colour, font_size=style.BODY_SIZE + 6).next_to(grid, UP, buff=0.22)


def shared_cell_width(*matrices, decimals: int | None = None) -> float:
    """One cell width that fits every number of every matrix, so they can replace each other in place;
    ``decimals`` if given, else each matrix's own (decimals_for)."""
    # The number font is monospaced: the longest written number is the widest one, so one text suffices.
    longest = max(((format_number(value, places), value, places) for matrix in matrices
                   for places in [decimals_for(np.asarray(matrix).flat) if decimals is None else decimals]
                   for value in np.asarray(matrix).flat), key=lambda item: len(item[0]))
    widest = number_text(longest[1], decimals=longest[2]).width
    return max(widest + CELL_PADDING, CELL_HEIGHT)


class LabelledMatrix(VGroup):
    """A matrix of numbers in brackets with a MathTex label above, addressable by cell, row and column.

    ``matrix.entries[i][j]`` is the number, ``matrix.cells[i][j]`` the rectangle behind it (for heat
    colours), ``row_box(i)``/``column_box(j)``/``cell_box(i, j)`` give highlight frames.
    """

    def __init__(self, values, label: str, colour: ManimColor, name: str,
                 fill: Callable[[float], ManimColor] | None = None,
                 text_colour: Callable[[float], ManimColor] | None = None, cell_width: float | None = None,
                 decimals: int | None = None):
        super().__init__()
        self.values = np.asarray(values, dtype=float)
        self.name = name
        rows, cols = self.values.shape
        decimals = decimals_for(self.values.flat) if decimals is None else decimals
        self.entries = [[number_text(value, text_colour(value) if text_colour else colour, decimals=decimals)
                         for value in row] for row in self.values]
        self.cell_width = cell_width or shared_cell_width(self.values, decimals=decimals)
        self.cells = [[Rectangle(width=self.cell_width, height=CELL_HEIGHT, stroke_width=0,
                                 fill_opacity=0.0) for _ in range(cols)] for _ in range(rows)]
        for i in range(rows):
            for j in range(cols):
                self.cells[i][j].move_to(np.array([j * self.cell_width, -i * CELL_HEIGHT, 0]))
                self.entries[i][j].move_to(self.cells[i][j])
                self.entries[i][j].tag = (name, (i, j))
                if fill is not None:
                    self.cells[i][j].set_fill(fill(self.values[i, j]), opacity=1.0)
        self.cell_grid = VGroup(*[cell for row in self.cells for cell in row])
        self.entry_grid = VGroup(*[entry for row in self.entries for entry in row])
        self.brackets, self.label = brackets_and_label(self.cell_grid, rows * CELL_HEIGHT, label, colour)
        self.add(self.cell_grid, self.entry_grid, self.brackets, self.label)

    @property
    def frame(self) -> VGroup:
        """Everything but the numbers: what a computed matrix shows before its cells are filled."""
        return VGroup(self.cell_grid, self.brackets, self.label)

    @property
    def outline(self) -> VGroup:
        """Brackets and label: a heat-coloured matrix before any value is computed (a cell is coloured
        only once its value is shown)."""
        return VGroup(self.brackets, self.label)

    def row(self, i: int) -> VGroup:
        return VGroup(*self.entries[i])

    def column(self, j: int) -> VGroup:
        return VGroup(*[row[j] for row in self.entries])

    def row_box(self, i: int) -> SurroundingRectangle:
        return self._box(VGroup(*self.cells[i]))

    def column_box(self, j: int) -> SurroundingRectangle:
        return self._box(VGroup(*[row[j] for row in self.cells]))

    def cell_box(self, i: int, j: int) -> SurroundingRectangle:
        return self._box(self.cells[i][j])

    @staticmethod
    def _box(target) -> SurroundingRectangle:
        return SurroundingRectangle(target, color=style.HIGHLIGHT, buff=0.02, stroke_width=3, corner_radius=0.06)


def fit(mobject, width: float, height: float, largest_scale: float = 1.0):
    """Scale ``mobject`` so it fits in width x height, enlarging it by at most ``largest_scale``."""
    factor = min(largest_scale, width / mobject.width, height / mobject.height)
    return mobject.scale(factor)


# Where a line of text sits ------------------------------------------------------------------------
# The baseline is found from the glyphs of the letters and digits that rest on it, so neither descenders
# (g, p), raised signs (=, −, ·) nor subscripts move it: in "T =" the T alone decides, in "p =" the p
# lifted by its measured descent.
def baseline(label) -> float:
    """y of the line the letters of ``label`` (a text, a number or a formula) sit on."""
    glyphs = label.family_members_with_points()
    if not glyphs:
        return label.get_bottom()[1]
    # label_text draws the "_" of W_Q as no glyph, only the Q it lowers
    characters = "".join(SUBSCRIPT.sub(r"\1", getattr(label, "shown_text", "")).split())
    if len(characters) == len(glyphs):  # one glyph per character: the characters say which glyphs rest on the line
        resting = [glyph for glyph, character in zip(glyphs, characters)
                   if character.isalnum() and character not in DESCENDERS]
        if not resting and hasattr(label, "font"):
            return _descender_baseline(label, glyphs, characters)
        glyphs = resting or glyphs
    bottoms = [float(glyph.get_bottom()[1]) for glyph in glyphs]
    tolerance = max(BASELINE_TOLERANCE, BASELINE_SHARE * max(glyph.height for glyph in glyphs))
    return max(bottoms, key=lambda bottom: (sum(abs(bottom - other) < tolerance for other in bottoms), bottom))


def dashed(stroke: VMobject, dash: float) -> VMobject:
    """``stroke`` cut into dashes ``dash`` long with gaps as long (a head's pattern); itself when ``dash`` is 0."""
    if not dash:
        return stroke
    return DashedVMobject(stroke, num_dashes=max(2, round(stroke.get_arc_length() / (2 * dash))), dashed_ratio=0.5)


def sit_on(label, y: float):
    """Move ``label`` vertically so its letters sit on y."""
    return label.shift(UP * (y - baseline(label)))


def _descender_baseline(label, glyphs, characters) -> float:
    """A line of descenders and signs only ("p ="): the first descender's bottom plus its depth."""
    glyph, character = next(((glyph, character) for glyph, character in zip(glyphs, characters)
                             if character in DESCENDERS), (glyphs[0], characters[0]))
    return float(glyph.get_bottom()[1]) + _depth_per_point(label.font, character) * label.font_size


@cache
def _depth_per_point(font: str, character: str) -> float:
    """How far ``character`` reaches under the baseline, per point of font size (measured beside an H)."""
    pair = MarkupText("H" + character, font=font, font_size=DEPTH_MEASURE_SIZE)
    return (pair[0].get_bottom()[1] - pair[1].get_bottom()[1]) / DEPTH_MEASURE_SIZE


def enlarge_formulas(group):
    """Grow every formula in ``group`` whose scripts a stage's scale left under style.SMALLEST_CAP_HEIGHT,
    about its baseline: a matrix's label stays on the line it sits on (grown about its bottom, «Q = XW_Q», whose
    bottom is Q's tail, rose off the line of its neighbours' labels)."""
    least = FORMULA_MARGIN * style.SMALLEST_CAP_HEIGHT
    stack = [group]
    while stack:
        mobject = stack.pop()
        if isinstance(mobject, SingleStringMathTex):
            if 0 < cap_height(mobject) < least:
                mobject.scale(least / cap_height(mobject), about_point=[mobject.get_x(), baseline(mobject), 0])
        else:
            stack.extend(mobject.submobjects)


def text_with_numbers(template: str, numbers: dict[str, Text], colour: ManimColor = style.TEXT,
                      font_size: float = style.BODY_SIZE, **words: str) -> VGroup:
    """``template`` with {word} fields filled from ``words`` and {number} fields replaced by the given
    tagged number texts, laid out on one line, so tests can read the numbers back."""
    parts, pending = VGroup(), ""
    for piece in re.split(r"(\{\w+\})", template):
        field = piece[1:-1] if piece.startswith("{") else None
        if field in numbers:
            if pending.strip():
                parts.add(label_text(pending.strip(), colour, font_size))
            parts.add(numbers[field])
            pending = ""
        else:
            pending += words[field] if field else piece
    if pending.strip():
        parts.add(label_text(pending.strip(), colour, font_size))
    parts.arrange(RIGHT, buff=0.12)
    line = baseline(parts[0])
    for part in parts:
        sit_on(part, line)
    return parts
