"""The lab's projections with their numbers (review 06, item 1): under the vectors of steps 2, 3 and 7, the query
token's product in the lab's column convention, ``q = W_Q x`` (then ``k = W_K x``, ``v = W_V x``): the result's
column, "=", the d_k × d matrix W with every number of the configured weights, and the token's embedding x as a
column. A student can check one number from X to QKᵀ: q's first number is W_Q's first row times x."""

from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, MathTex, VGroup

from attn_math.sharp import preset_weights
from lesson.numbers import as_read, decimals_for, reproduces
from scenes import style
from scenes.token_labels import abbreviated
from scenes.visuals import CELL_HEIGHT, LabelledMatrix, bracket, enlarge_formulas, fit, label_text, shared_cell_width

ROLE_NAMES = {"Q": ("q", "W_Q", style.QUERY), "K": ("k", "W_K", style.KEY), "V": ("v", "W_V", style.VALUE)}
BAND_SHARE = 0.64  # of the canvas's height, under the vectors, for the product: eight rows ROW_PITCH apart at the
# width's scale (digits 16 px at 720p); at 0.56 the band was cut to the height and its digits fell to 14 px
BAND_GAP = 0.25  # between the vectors and the product
PRODUCT_GAP = 0.4  # between W and x: two brackets back to back
SIGN_GAP = 0.25  # between a column and the "=" beside it, and between W and x
ROW_PITCH = 0.45  # between two rows of a product's matrices: a number's digits are 0.25 tall; at 720p 13 px between
# rows (at 0.36, 7 px: the 8 × 8 W read as a block, review s11)
LABEL_GAP = 0.15  # between a matrix and its name above it
MOST_ROWS = 8  # of W and its result drawn: more (d_k = 16) would fall under 14 px at 720p; a "⋮" says there are more


def tighten(matrix: LabelledMatrix, pitch: float = ROW_PITCH):
    """The matrix's rows ``pitch`` apart rather than a cell's height: eight rows of W then fit under the vectors with
    their numbers at a readable size. Its brackets rebuilt to the rows' new height, its label back on top."""
    for i, (cells, entries) in enumerate(zip(matrix.cells, matrix.entries)):
        VGroup(*cells, *entries).shift(UP * i * (CELL_HEIGHT - pitch))
    rows = len(matrix.cells)
    grid = VGroup(*[entry for row in matrix.entries for entry in row])
    matrix.remove(matrix.brackets)
    matrix.brackets = VGroup(bracket(rows * pitch + 0.1, -1, matrix.brackets[0].get_color()).next_to(grid, LEFT, buff=0.12),
                             bracket(rows * pitch + 0.1, +1, matrix.brackets[0].get_color()).next_to(grid, RIGHT,
                                                                                                     buff=0.12))
    matrix.brackets.set_y(grid.get_y())
    matrix.add(matrix.brackets)
    matrix.label.next_to(matrix.brackets, UP, buff=LABEL_GAP)


class ProjectionBand(VGroup):
    """[result] = [W] [x] for one token: ``result``, ``equals``, ``matrix`` (W), ``embedding`` (x, named with its
    token)."""

    def __init__(self, result, equals, matrix, embedding):
        super().__init__(result, equals, matrix, embedding)
        self.result, self.equals, self.matrix, self.embedding = result, equals, matrix, embedding

    @property
    def approximate(self) -> bool:
        """Whether the result is written «≈»: redone from the numbers written, it differs in its last decimal."""
        return self.equals.approximate

    @property
    def product(self) -> VGroup:
        """W and x: what is there before the result is computed."""
        return VGroup(self.matrix, self.embedding)


NOTE_CLEARANCE = 0.05  # kept free above and under a note over the product


class Projections:
    """Builds the projection bands of a pipeline scene (``self.run``, ``self.settings``, ``self.query``)."""

    def projection_matrix(self, role: str) -> np.ndarray:
        """W_Q, W_K or W_V (d_k × d, the lab's layout) of the configured weights: the preset's, or one's own."""
        weights = self.settings.lab_weights() or preset_weights(self.settings.preset)
        return np.asarray(getattr(weights, f"W_{role}"), dtype=float)

    def projection_band(self, role: str, box) -> ProjectionBand:
        """The query token's [role] = [W_role][x], fitted into ``box`` (left, right, bottom, top); every number
        tagged (``W_Q``, ``x``, ``q``...) as the step records read them."""
        steps, q = self.run.steps, self.query
        name, matrix_name, colour = ROLE_NAMES[role]
        W = self.projection_matrix(role)
        x = np.asarray(steps.X[q], dtype=float)
        result = {"Q": steps.Q, "K": steps.K, "V": steps.V}[role][q]
        more = len(W) > MOST_ROWS  # the first rows only: each of q's numbers is its own row of W times x
        W, result = W[:MOST_ROWS], np.asarray(result)[:MOST_ROWS]
        decimals = decimals_for(np.concatenate([W.ravel(), x, result]))
        width = shared_cell_width(W, x[:, None], result[:, None], decimals=decimals)
        matrix = LabelledMatrix(W, matrix_name, colour, matrix_name, cell_width=width, decimals=decimals)
        embedding = LabelledMatrix(x[:, None], "x", style.INPUT, "x", cell_width=width, decimals=decimals)
        column = LabelledMatrix(np.asarray(result)[:, None], name, colour, name, cell_width=width, decimals=decimals)
        for part in (matrix, embedding, column):
            tighten(part)
        # "=" only where the numbers as written multiply to the result as written; rounding makes it "≈"
        approximate = not reproduces(result, as_read(W, decimals) @ as_read(x, decimals), decimals)
        equals = MathTex(r"\approx" if approximate else "=", color=style.TEXT, font_size=style.BODY_SIZE + 6)
        equals.approximate = approximate
        row = VGroup(column, equals, matrix).arrange(RIGHT, buff=SIGN_GAP)
        embedding.next_to(matrix, RIGHT, buff=PRODUCT_GAP)
        row.add(embedding)
        for part in (column, matrix, embedding):  # the grids on one level, whatever the labels' heights
            part.shift(UP * (matrix.cell_grid.get_y() - part.cell_grid.get_y()))
        equals.set_y(matrix.cell_grid.get_y())
        if more:  # the rows left out, under W's and the result's last
            for part in (column, matrix):
                part.add(MathTex(r"\vdots", color=colour, font_size=style.BODY_SIZE).next_to(part.cell_grid, DOWN,
                                                                                                 buff=0.05))
        band = ProjectionBand(column, equals, matrix, embedding)
        # x named with its token (the column is that token's embedding), at its written size: scaled with the band,
        # a long name widened the band and shrank every number and itself under 14 px; the band fits under it
        named = label_text(self.labels["projection_note"].format(token=abbreviated(self.tokens[q])), style.INPUT,
                           style.BODY_SIZE)
        left, right, bottom, top = box
        fit(band, right - left, top - bottom - named.height, 1.0)
        band.move_to(np.array([(left + right) / 2, (bottom + top - named.height) / 2, 0]))
        enlarge_formulas(band)
        # on the names' line (W's may sit higher: d_k > d rows), its right end over x's: a long one reaches over W
        level = max(embedding.label.get_bottom()[1], matrix.label.get_bottom()[1])
        embedding.remove(embedding.label)
        embedding.label = named.align_to(embedding.brackets, RIGHT)
        named.shift(UP * (level - named.get_bottom()[1]))
        embedding.add(named)
        return band

    @staticmethod
    def note_over(band: ProjectionBand, note, above, width: float):
        """``note`` fitted in ``width`` between ``above`` (the row of vectors over the product) and the product's
        names, centred over the product."""
        top = above.get_bottom()[1]
        fit(note, width, top - band.get_top()[1] - 2 * NOTE_CLEARANCE)
        return note.move_to([band.get_x(), (top + band.get_top()[1]) / 2, 0])

    def approx_band_note(self, band: ProjectionBand, above, width: float) -> VGroup:
        """Over a product written «≈», why (``approx_note``, at most ``width``: on one line, as tall as the room between
        ``above`` and the product's names leaves it), taken into the band so that it leaves with it; nothing
        over one written «=». Step 2 said it beside q; k and v at steps 3 and 7 are written «≈» too, and a student
        redoing them got last digits apart with no note on screen (review s15)."""
        if not band.approximate:
            return VGroup()
        note = self.note_over(band, self.approx_note(width, split=False), above, width)
        band.add(note)
        return note

    def not_to_read(self, band: ProjectionBand):
        """The product's numbers are there to be checked, not read in turn: they leave the step's reading time as it
        was (the section's length is budgeted; the voice names the projection, not its 80 numbers)."""
        self.count_as_read(self._snapshot([band])[1])

    @staticmethod
    def split_box(box) -> tuple[tuple, tuple]:
        """The canvas cut in two: the vectors above, the product under them (BAND_SHARE of its height)."""
        left, right, bottom, top = box
        cut = bottom + BAND_SHARE * (top - bottom)
        return (left, right, cut, top), (left, right, bottom, cut - BAND_GAP)

