"""The pipeline's n x n matrices: built from a run's numbers (their numbers in the cells while they fit, else colour
only, as in the lab), revealed row after row with each row's sound, and replaced by the next matrix of the
computation. Used by the lab's steps 4-6, the presets and the causal mask."""

from __future__ import annotations

import numpy as np
from manim import (RIGHT, Create, FadeIn, ReplacementTransform, Square, SurroundingRectangle, Transform, VGroup,
                   interpolate_color, smooth, squish_rate_func, there_and_back)

from lesson.numbers import decimals_for, format_number
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.heatmap import readable_text_colour
from scenes.pipeline_parts.common import LEAVE_SECONDS, PipelineCommon
from scenes.token_heatmap import sentence_matrix
from scenes.visuals import CELL_HEIGHT, CELL_PADDING, number_text, tagged_number, text_with_numbers

NUMBERS_MAX_TOKENS = 8  # up to this many tokens the matrices show their numbers; beyond, colour only
ROWS_SECONDS = 1.5  # a colour-only grid fading into the next
ROW_FADE_SECONDS = 0.3  # a matrix's row fading in, before it stands to be read: a fade over 0.35 s reads as still
FRAME_SECONDS = 0.5  # a matrix's brackets and token names moving to the new width; its rows, its formula fading out
LABEL_ROOM = 1.4  # frame units around a colour-only grid, for its token names and formula
DARK_TEXT_WEIGHT = 0.55  # above this weight its cell is dark enough for a number in the background's colour
HALF_SIDE_MARGIN = 0.8  # frame units: what each of two maps side by side leaves of its half of the body
HALF_TEXT_ROOM = 1.2  # frame units of the body's height left to the titles and readouts above and below two such maps
WEIGHTS_SCALE = (0.0, 1.0)  # every map of weights in the section: the panel's colour at 0, full colour at 1
SWATCH_SIDE = 0.22  # a weights legend's swatch: a cell's colour at 0 and at 1
SWATCH_GAP = 0.08
CELL_LIGHT_FILL = 0.45  # a cell lit as its value sounds: its number still readable under it
CELL_LIGHT_STROKE = 4
LIT_CELL = 0.6  # of the way from a discussed cell's colour to white: its light, behind its number, which turns dark on
# it; a white light over white digits read 2.7:1 (step 13, review s14) and 2.1:1 (step 4's top score, review s15)
WIDTH_TOLERANCE = 1e-6  # frame units: two matrices' brackets narrower than this apart are as wide


def relative_share(low: float, high: float):
    """Where a value lies from ``low`` (0) to ``high`` (1), clipped; 0.5 for all when they are equal."""
    if high - low < 1e-12:
        return lambda value: 0.5
    return lambda value: min(1.0, max(0.0, (float(value) - low) / (high - low)))


def weights_range(weights, mask=None) -> tuple[float, float]:
    """(lowest, highest) of the weights a matrix shows: its unmasked ones."""
    values = np.asarray(weights, dtype=float)
    shown = values[~np.asarray(mask, dtype=bool)] if mask is not None else values.ravel()
    return float(shown.min()), float(shown.max())


class MatrixReveals(PipelineCommon):
    """Matrices of the run built, revealed row by row and replaced, for the pipeline's parts."""

    def matrix_numbers(self) -> int:
        """How many numbers an n x n matrix writes: none in colour-only mode."""
        return len(self.tokens) ** 2 if self.numbers_fit() else 0

    def reveal_rows(self, matrix, seconds: float, cues: list[tuple[str, dict]], beside=()):
        """The matrix's rows one after another over ``seconds``, each with ``beside[i]`` (what is written right of
        it), so that each row's numbers are read as they come: the first fades in at once (ROW_FADE_SECONDS), each
        next one at the end of its share of the time left, while the rows above it are read; row i's sound
        ``cues[i]`` (kind, values) lands as it has faded in. A colour-only grid is one piece: it sounds the query's
        row as it lands, then a frame runs down its rows (``run_down_rows``), as when it replaces another."""
        rows = self.matrix_rows(matrix)
        if len(beside) == len(rows):
            rows = [VGroup(row, extra) for row, extra in zip(rows, beside)]
        fade = min(ROW_FADE_SECONDS, seconds / len(rows))
        if len(rows) == 1:
            kind, values = cues[self.query]
            self.cue(kind, lands=True, **values)
            self.play(Appear(rows[0]), run_time=fade)
            self.run_down_rows(matrix, seconds - fade)
            return
        spacing = (seconds - fade) / (len(rows) - 1)  # rows sounding together share a loudness: ``heard_together``
        for k, (row, (kind, values)) in enumerate(zip(rows, cues)):
            run_time = fade if k == 0 else spacing
            self.cue(kind, lands=True, **values, row_spacing=spacing,
                     **({"replayed": True} if k == self.query else {}))  # the key row
            self.play(Appear(row, rate_func=squish_rate_func(smooth, 1 - fade / run_time, 1.0)), run_time=run_time)

    @staticmethod
    def cell_light(matrix, row: int, column: int) -> SurroundingRectangle:
        """A light over one cell, filled, so that it is seen coming (a thin light running round a cell changed too
        few pixels); its number stays readable under it. The same on a colour-only grid."""
        cell = matrix.heatmap.cell_block([row], [column]) if hasattr(matrix, "heatmap") else matrix.cells[row][column]
        light = SurroundingRectangle(cell, color=style.HIGHLIGHT, buff=0, stroke_width=CELL_LIGHT_STROKE)
        return light.set_fill(style.HIGHLIGHT, CELL_LIGHT_FILL)

    @staticmethod
    def light_cells(matrix, row: int, columns) -> list:
        """``row``'s cells in ``columns`` lit from behind (LIT_CELL of the way to white), each number in the colour
        that reads best on its light (``readable_text_colour``): the cell the voice talks about reads best. None on a
        colour-only grid."""
        if hasattr(matrix, "heatmap"):
            return []
        lights = []
        for column in columns:
            cell, entry = matrix.cells[row][column], matrix.entries[row][column]
            cell.save_state()  # for ``put_out``
            entry.save_state()
            lit = interpolate_color(cell.get_fill_color(), style.HIGHLIGHT, LIT_CELL)
            lights += [cell.animate.set_fill(lit, opacity=1.0), entry.animate.set_color(readable_text_colour(lit))]
        return lights

    @staticmethod
    def put_out(matrix, row: int, columns) -> None:
        """Cells lit by ``light_cells`` back to their colours on the matrix's scale, once the matrix has left the
        screen (its colours stay those of its values: one value, one colour)."""
        if hasattr(matrix, "heatmap"):
            return
        for column in columns:
            matrix.cells[row][column].restore()
            matrix.entries[row][column].restore()

    def flash_cell(self, matrix, row: int, column: int) -> FadeIn:
        """The cell's light coming and going, gone after its play."""
        return FadeIn(self.cell_light(matrix, row, column), rate_func=there_and_back, remover=True)

    def matrix_rows(self, matrix) -> list:
        """Each row's cells and numbers, to reveal one row after another; a colour-only grid is one piece."""
        if not self.numbers_fit():
            return [matrix.cell_grid]
        return [VGroup(*matrix.cells[i], *matrix.entries[i]) for i in range(len(self.tokens))]

    def score_fill(self, value: float):
        """A score's colour on the scale shared by every score matrix of the section (``score_scale``)."""
        return style.score_colour(value, self.score_scale)

    def matrix(self, values, label: str, colour, name: str, cell: float, width: float | None, fill, mask=None,
               text_colour=None, numbers: bool = True):
        """Numbers in their cells while they fit (NUMBERS_MAX_TOKENS) and are wanted, else colour only, as in the lab."""
        return sentence_matrix(values, label, colour, name, fill, numbers=numbers and self.numbers_fit(), mask=mask,
                               cell_width=width, cell_size=cell, text_colour=text_colour)

    def weights_matrix(self, weights, name: str, cell: float, width: float | None, mask=None, numbers: bool = True,
                       scale: tuple[float, float] = (0.0, 1.0), relation: str = "="):
        """The softmax weights A on the attention colour scale from ``scale``'s low (the panel's colour) to its high
        (full colour): 0 to 1, or the matrix's own range, where near-equal weights would all be one grey; a number
        dark on a light cell, light on a dark one. ``relation``: "≈" where redone from the scores written beside them
        a weight's last decimal differs."""
        share = relative_share(*scale)
        tex_relation = {"=": "=", "≈": r"\approx"}[relation]
        return self.matrix(weights, rf"A {tex_relation} \text{{softmax}}(\cdot)", style.ATTENTION, name, cell, width,
                           fill=lambda weight: style.weight_colour(share(weight)), mask=mask, numbers=numbers,
                           text_colour=lambda weight: style.BACKGROUND if share(weight) > DARK_TEXT_WEIGHT
                           else style.TEXT)

    def colour_legend(self, name: str) -> VGroup:
        """What a map of weights' colours span, on the section's one scale (WEIGHTS_SCALE): a swatch at 0 (the panel's
        colour) and one at 1 (full colour), each beside its value tagged ``name``: one weight has one colour on every
        map, and nobody reads a cell's colour without its scale."""
        low, high = WEIGHTS_SCALE
        share = relative_share(low, high)

        def swatch(value: float, k: int) -> VGroup:
            square = Square(SWATCH_SIDE, stroke_color=style.MUTED, stroke_width=1, fill_opacity=1.0,
                            fill_color=style.weight_colour(share(value)))
            number = tagged_number(value, name, (0, k), font_size=style.CAPTION_SIZE, decimals=0)
            return VGroup(square, number).arrange(RIGHT, buff=SWATCH_GAP)
        return text_with_numbers(self.labels["weight_scale"], {"low": swatch(low, 0), "high": swatch(high, 1)},
                                 style.MUTED, style.CAPTION_SIZE)

    def numbers_fit(self) -> bool:
        return len(self.tokens) <= NUMBERS_MAX_TOKENS

    def cell_width(self, *matrices) -> float | None:
        """One cell width for matrices that replace each other; None in colour-only mode (no numbers to fit).

        The font is monospaced, so the number written with the most characters is the widest (to within
        a glyph's outline, well inside the cell's padding): measuring it alone spares a text per cell.
        """
        if not self.numbers_fit():
            return None
        written = [(value, decimals_for(np.asarray(matrix).flat)) for matrix in matrices
                   for value in np.asarray(matrix).flat]
        longest, decimals = max(written, key=lambda pair: len(format_number(*pair)))
        return max(number_text(longest, decimals=decimals).width + CELL_PADDING, CELL_HEIGHT)

    def cell_size(self, width: float, height: float) -> float:
        """Colour-only cells as large as fit, leaving room for the labels around the grid."""
        return min(CELL_HEIGHT, (width - LABEL_ROOM) / len(self.tokens), (height - LABEL_ROOM) / len(self.tokens))

    def half_body_cell(self) -> float:
        """Colour-only cells for one of two maps side by side in the body, with their titles and readouts."""
        left, right, bottom, top = self.body()
        return self.cell_size((right - left) / 2 - HALF_SIDE_MARGIN, top - bottom - HALF_TEXT_ROOM)

    def matrix_leaving(self, old) -> list:
        """The old matrix's rows and formula fading out, to leave with a new step's header (``begin_step``'s
        ``with_header``), before ``replace_matrix(old, ..., cleared=True)``: the new title never stands over them. None
        for a colour-only grid: it changes into the next in one piece."""
        return [Vanish(old.label, *self.matrix_rows(old))] if self.numbers_fit() else []

    def replace_matrix(self, old, new, cues: list[tuple[str, dict]], after: float = 0.0, with_rows=(), with_frame=(),
                       beside=(), cleared: bool = False):
        """``old`` becomes ``new``: the old rows and formula fade out (with ``with_rows``: what else says which
        matrix is shown), then the new formula, then the new rows one after another (``reveal_rows``, each with its
        ``beside[i]``) over the step's reading time left but ``after`` seconds: each row is read as it comes, no frame
        walks down rows already read, and the name above never disagrees with the numbers under it. ``cues[i]`` (kind,
        values) sounds as row i lands. A colour-only grid changes in one piece, then a frame runs down its
        rows once, each briefly (``run_down_rows``): it has no numbers to read row by row.

        The frame (brackets, and ``with_frame``: the token names and frames around the grid) moves before the
        old rows leave when the new matrix is the wider and after them when it is the narrower, so that the rows lie
        inside the brackets on screen and never run over the token names. ``cleared``: the old rows and formula have
        left already (``matrix_leaving``), with the step's header: the frame moves with ``with_rows``."""
        if not self.numbers_fit():
            kind, values = cues[self.query]
            self.cue(kind, lands=True, **values)
            self.play(*with_rows, *with_frame, ReplacementTransform(old, new), run_time=ROWS_SECONDS)
            self.run_down_rows(new, self.fill_seconds(after))
            return
        frame = [ReplacementTransform(old.brackets, new.brackets), *with_frame]
        if cleared:  # no rows left to keep inside the brackets
            self.play(*with_rows, *frame, run_time=FRAME_SECONDS)
        else:
            self.rows_out_round_frame(old, new, frame, with_rows)
        self.play(Appear(new.label), run_time=FRAME_SECONDS)
        self.reveal_rows(new, self.fill_seconds(after), cues, beside)

    def rows_out_round_frame(self, old, new, frame: list, with_rows=()):
        """The old rows and formula fading out (with ``with_rows``), the ``frame`` moving before them when the new
        matrix is the wider, after them when it is the narrower, with them when both are as wide."""
        first = new.brackets.width > old.brackets.width + WIDTH_TOLERANCE
        last = new.brackets.width < old.brackets.width - WIDTH_TOLERANCE
        if first:
            self.play(*frame, run_time=FRAME_SECONDS)
        self.play(*with_rows, *self.matrix_leaving(old), *([] if first or last else frame), run_time=FRAME_SECONDS)
        if last:
            self.play(*frame, run_time=FRAME_SECONDS)

    def run_down_rows(self, matrix, seconds: float):
        """A frame down the matrix's rows, one after another over ``seconds``, then gone."""
        frame = matrix.row_box(0).set_color(style.MUTED)
        each = seconds / (len(self.tokens) + 1)
        self.play(Create(frame), run_time=each)
        for i in range(1, len(self.tokens)):
            self.play(Transform(frame, matrix.row_box(i).set_color(style.MUTED)), run_time=each)
        self.play(Vanish(frame), run_time=min(each, LEAVE_SECONDS))
