"""Section 1: Attention(Q, K, V) = softmax(QK^T / sqrt(d_k)) V computed cell by cell from X and three weight matrices.

The formula stays at the top as a map with the term being computed framed. A product is filled cell by
cell: the row and column frames move to the cell and settle, then its number is written; the first
cells go slowly with their worked dot product under the matrices, the rest faster, and a product that
repeats one already shown (K after Q, V after K) faster still. A number never changes into another
in place: the old one fades out before the new one fades in.
"""

from __future__ import annotations

import numpy as np
from manim import (DOWN, RIGHT, UP, Create, MathTex, MoveToTarget, ReplacementTransform, SurroundingRectangle, Transform,
                   VGroup, Write)

from attn_math.attention import self_attention
from attn_math.dimensions import score_multiplications, score_variances
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.lesson_scene import SECONDS_PER_NEW_NUMBER, LessonScene
from scenes.numbers import decimals_for, format_number
from scenes.visuals import CELL_HEIGHT, LabelledMatrix, fit, label_text, probability_decimals, shared_cell_width

FORMULA = r"\text{Attention}(Q,K,V) = \text{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V"
SQRT, SOFTMAX = r"\sqrt{d_k}", r"\text{softmax}"
ROLE_COLOURS = {"Q": style.QUERY, "K": style.KEY, "V": style.VALUE}
MAP_FONT_SIZE = 34  # the formula as a map: its d_k subscript still 14 px high at 720p
ROW_SUM_GAP = 0.2  # between the matrix's right bracket and each row's "Σ = 1"
LINE_HEIGHT = 0.55  # space kept under the matrices for the worked line (a dot product, the divisor)
SLOW_CELLS = 2  # cells of a new kind of product shown slowly, each with its worked line
MOVE, WRITE, READ = 0.8, 0.6, 1.6  # seconds of a slow cell: frames move and settle, number, worked line
FAST_SECONDS = (3.0, 10.0)  # the remaining cells of a product together: at least, at most
REPEAT = 0.5  # a repeated product runs at this share of the first one's time


def natural_size(group, matrix: LabelledMatrix | None = None):
    """Undo any scaling of ``group`` (that of ``matrix`` in it, by default itself), so a new layout fits
    it afresh rather than shrinking a shrunk copy again."""
    return group.scale(CELL_HEIGHT / (matrix or group).cells[0][0].height)


class MatrixScene(LessonScene):
    section_id = "matrix"
    STEPS = ("formula", "inputs", "queries", "keys", "values", "scores", "scaled", "softmax", "output")

    def lesson(self):
        inputs = self.settings.matrices()
        self.result = self_attention(**inputs, scale=self.settings.scale, causal=self.settings.causal)
        self.line = self.map_frame = None
        self.show_formula()
        self.show_inputs(inputs)
        for role, key in (("Q", "queries"), ("K", "keys"), ("V", "values")):
            self.show_projection(role, key, repeat=role != "Q")
        self.show_scores()
        self.show_scaled()
        self.show_softmax()
        self.show_output()

    def closing_fields(self) -> dict:
        n, d_k = self.result.X.shape[0], self.result.d_k
        return {**super().closing_fields(), "n": n, "here_d_k": d_k, "here_cost": score_multiplications(n, d_k)}

    # Step 1 and the map ------------------------------------------------------------------------
    def show_formula(self):
        self.begin_step("formula")
        formula = MathTex(FORMULA, substrings_to_isolate=["Q", "K", "V", SQRT, SOFTMAX], font_size=60,
                          color=style.TEXT)
        for role, colour in ROLE_COLOURS.items():
            formula.set_color_by_tex(role, colour)
        self.play(Write(formula), run_time=2.0)
        self.formula = formula

    def shrink_formula_to_map(self):
        """The formula moves up under the header and stays there, small, for the rest of the section."""
        _, _, _, top = style.body_box()
        target = self.formula.copy().scale(MAP_FONT_SIZE / 60).move_to(np.array([0, top, 0]), aligned_edge=UP)
        self.play(Transform(self.formula, target), run_time=0.8)

    def point_map_at(self, *parts):
        """Frame ``parts`` of the formula map: the term the step computes."""
        frame = SurroundingRectangle(VGroup(*parts), color=style.HIGHLIGHT, buff=0.06, stroke_width=2,
                                     corner_radius=0.05)
        if self.map_frame is None:
            self.play(Create(frame), run_time=0.4)
            self.map_frame = frame
        else:
            self.play(Transform(self.map_frame, frame), run_time=0.4)

    def term(self, tex: str, occurrence: int = -1):
        """One occurrence of ``tex`` in the formula (the last by default: the one inside the softmax)."""
        return [self.formula.id_to_vgroup_dict[part_id]
                for string, part_id in self.formula.matched_strings_and_ids if string == tex][occurrence]

    # Steps 2-5: inputs and projections ----------------------------------------------------------
    def show_inputs(self, inputs):
        result = self.result
        n, d = result.X.shape
        self.begin_step("inputs", n=n, d=d)
        self.X = LabelledMatrix(result.X, "X", style.INPUT, "X")
        self.W = {role: LabelledMatrix(inputs[f"W_{role}"], f"W_{role}", style.WEIGHT_MATRIX, f"W_{role}")
                  for role in ROLE_COLOURS}
        self.products = {role: LabelledMatrix(getattr(result, role), f"{role} = XW_{role}", colour, role)
                         for role, colour in ROLE_COLOURS.items()}
        # One column per role, as wide as the wider of W and its product: neighbours never overlap.
        columns = [VGroup(self.W[role], self.products[role]).arrange(DOWN, buff=0.3) for role in ROLE_COLOURS]
        self.place_in_body(VGroup(self.X, *columns).arrange(RIGHT, buff=0.4, aligned_edge=UP))
        self.shrink_formula_to_map()
        for matrix in (self.X, *self.W.values()):
            self.present(matrix)

    def present(self, matrix: LabelledMatrix):
        """Show a matrix row by row, giving each row's numbers their reading time."""
        self.play(Appear(matrix.frame), run_time=0.4)
        for i in range(matrix.values.shape[0]):
            self.play(Appear(matrix.row(i)), run_time=0.3)
            self.wait(SECONDS_PER_NEW_NUMBER * matrix.values.shape[1])

    def show_projection(self, role: str, key: str, repeat: bool):
        self.begin_step(key)
        self.point_map_at(self.term(role))
        product = self.products[role]
        self.play(Appear(product.outline), run_time=0.5)
        self.fill_product(product, rows=self.X.row_box, columns=self.W[role].column_box,
                          left=self.X.values, right=self.W[role].values, repeat=repeat)

    # Steps 6-9: scores, scaling, softmax, output -------------------------------------------------
    def show_scores(self):
        self.begin_step("scores")
        self.point_map_at(self.term("Q"), self.term("K"))
        result = self.result
        self.S, self.scaled, self.A = self.score_matrices()
        self.Z = LabelledMatrix(result.output, "Z = AV", style.OUTPUT, "Z")
        self.row_sums = VGroup(*[label_text(self.strings["labels"]["row_sum"], style.ATTENTION, style.BODY_SIZE)
                                 for _ in range(result.X.shape[0])])
        Q, K, V = (self.products[role] for role in ROLE_COLOURS)
        for product in (Q, K):
            product.generate_target()
            natural_size(product.target)
        self.align_row_sums()
        # In one row, Q's row i and K's row j give cell (i, j): nothing else on screen, so six tokens stay legible.
        self.place_in_body(VGroup(Q.target, VGroup(self.S, self.row_sums), K.target).arrange(RIGHT, buff=0.8))
        for later in (self.scaled, self.A):
            later.scale(self.S.cell_grid.width / later.cell_grid.width)
            later.shift(self.S.cell_grid.get_center() - later.cell_grid.get_center())
        self.play(Vanish(self.X, V), *[Vanish(w) for w in self.W.values()], run_time=0.6)
        self.play(*[Transform(product, product.target) for product in (Q, K)], run_time=1.0)
        self.play(Appear(self.S.outline), run_time=0.5)
        self.fill_product(self.S, rows=Q.row_box, columns=K.row_box, left=Q.values, right=K.values.T)

    def score_matrices(self) -> tuple[LabelledMatrix, LabelledMatrix, LabelledMatrix]:
        """QK^T, its scaled (and masked) version and the softmax weights, sharing one cell width; the
        scores before and after scaling share one colour scale, so the division shows as paler cells."""
        result = self.result
        largest = style.shared_largest(result.scores, result.scaled)
        decimals = probability_decimals(result.weights)
        width = max(shared_cell_width(result.scores, result.scaled), shared_cell_width(result.weights, decimals=decimals))
        scores = LabelledMatrix(result.scores, r"QK^\top", style.TEXT, "scores", cell_width=width,
                                fill=lambda value: style.score_colour(value, largest))
        label = r"QK^\top / \sqrt{d_k}" if self.settings.scale else r"QK^\top"
        scaled = LabelledMatrix(result.scaled, label, style.TEXT, "scaled", cell_width=width,
                                fill=lambda value: style.score_colour(value, largest))
        weights = LabelledMatrix(result.weights, r"A = \text{softmax}(\cdot)", style.ATTENTION, "weights",
                                 cell_width=width, fill=style.weight_colour, decimals=decimals,
                                 text_colour=lambda w: style.BACKGROUND if w > 0.55 else style.TEXT)
        for i, j in zip(*np.nonzero(result.mask)):
            weights.cells[i][j].set_fill(style.MASKED, opacity=1.0)
            weights.entries[i][j].set_color(style.MUTED)
        return scores, scaled, weights

    def show_scaled(self):
        result = self.result
        strings = self.strings["steps"]["scaled"]
        caption = strings["caption_causal"] if self.settings.causal else (
            strings["caption"] if self.settings.scale else strings["caption_unscaled"])
        variances = [round(variance, 2) for variance in score_variances(result.scores, result.d_k)]
        before, after = (format_number(variance, decimals_for(variances)) for variance in variances)
        self.begin_step("scaled", caption=caption, before=before, after=after)
        self.point_map_at(self.term(SQRT))
        labels = self.strings["labels"]
        note = (labels["divide"].format(d_k=result.d_k, root=format_number(np.sqrt(result.d_k)))
                if self.settings.scale else labels["no_divide"])
        self.show_line(label_text(note, style.TEXT, style.BODY_SIZE))
        self.swap([self.S.label], [self.scaled.label], run_time=0.6)
        self.replace_row_by_row(self.S, self.scaled, seconds=1.0)

    def show_softmax(self):
        result = self.result
        self.begin_step("softmax", caption=self.softmax_caption())
        self.point_map_at(self.term(SOFTMAX))
        self.hide_line()
        self.swap([self.scaled.label], [self.A.label], run_time=0.6)
        self.replace_row_by_row(self.scaled, self.A, seconds=self.seconds_per_cell(result.X.shape[0], lower=0.8),
                                extras=self.row_sums,
                                before_row=lambda i: self.cue("row", weights=[float(w) for w in result.weights[i]]))

    def show_output(self):
        self.begin_step("output")
        self.point_map_at(self.term(SOFTMAX), self.term("Q"), self.term(SQRT), self.term("V"))
        V, weights = self.products["V"], VGroup(self.A, self.row_sums)
        weights.generate_target()
        natural_size(weights.target, weights.target[0])
        self.place_in_body(VGroup(weights.target, natural_size(V), self.Z).arrange(RIGHT, buff=0.8))
        self.play(Vanish(self.products["Q"], self.products["K"]), run_time=0.5)
        self.play(MoveToTarget(weights), run_time=1.0)
        self.play(Appear(V), Appear(self.Z.outline), run_time=0.6)
        self.fill_product(self.Z, rows=self.A.row_box, columns=V.column_box, left=self.A.values, right=V.values)

    # Shared moves ------------------------------------------------------------------------------
    def fill_product(self, product: LabelledMatrix, rows, columns, left: np.ndarray, right: np.ndarray,
                     repeat: bool = False):
        """Reveal product[i, j] = left[i] . right[:, j] cell by cell: the frames of row i and column j move
        there and settle, then the number is written. The first cells go slowly with their worked line."""
        n_rows, n_cols = product.values.shape
        pace = REPEAT if repeat else 1.0
        slow = 1 if repeat else SLOW_CELLS
        fast = self.seconds_per_cell(n_rows * n_cols - slow) * pace
        row_box, column_box = rows(0), columns(0)
        self.play(Create(row_box), Create(column_box), run_time=0.6 * pace)
        low, high = float(product.values.min()), float(product.values.max())
        for index, (i, j) in enumerate(np.ndindex(n_rows, n_cols)):
            careful = index < slow
            if index == slow:
                self.hide_line()
            if index:
                self.play(Transform(row_box, rows(i)), Transform(column_box, columns(j)),
                          run_time=MOVE * pace if careful else 0.6 * fast)
            self.cue("cell", value=float(product.values[i, j]), low=low, high=high)
            self.play(Appear(product.cells[i][j], product.entries[i][j]),  # a cell's colour comes with its value
                      run_time=WRITE * pace if careful else 0.4 * fast)
            if careful:
                self.show_line(self.expansion(product, left, right, i, j))
                self.wait(READ * pace)
        self.hide_line()
        self.play(Vanish(row_box), Vanish(column_box), run_time=0.4)

    def expansion(self, product: LabelledMatrix, left: np.ndarray, right: np.ndarray, i: int, j: int):
        """The worked dot product of cell (i, j), e.g. Q[1,1] = 1·3 + 0·(−1) = 3."""
        left_decimals, right_decimals = decimals_for(left.flat), decimals_for(right.flat)
        terms = " + ".join(f"{format_number(a, left_decimals)}·{self.parenthesised(b, right_decimals)}"
                           for a, b in zip(left[i], right[:, j]))
        name = product.label.tex_string.split("=")[0].replace("^\\top", "ᵀ").replace(" ", "")
        text = self.strings["labels"]["expansion"].format(name=name, i=i + 1, j=j + 1, terms=terms,
                                                          result=product.entries[i][j].shown_text)
        return label_text(text, style.TEXT, style.BODY_SIZE)

    @staticmethod
    def parenthesised(value: float, decimals: int) -> str:
        text = format_number(value, decimals)
        return f"({text})" if value < 0 else text

    def replace_row_by_row(self, old: LabelledMatrix, new: LabelledMatrix, seconds: float, extras=(),
                           before_row=lambda i: None):
        """Frame each row of ``old`` and swap its numbers and cell colours for ``new``'s (with ``extras[i]``),
        leaving each new row its reading time."""
        for i in range(old.values.shape[0]):
            box = old.row_box(i)
            self.play(Create(box), run_time=0.3 * seconds)
            before_row(i)
            self.swap(old.entries[i], [*new.entries[i], *extras[i:i + 1]], VGroup(*old.cells[i]),
                      VGroup(*new.cells[i]), run_time=0.7 * seconds)
            self.wait(SECONDS_PER_NEW_NUMBER * new.values.shape[1])
            self.play(Vanish(box), run_time=0.2)
        self.remove(old.brackets)
        self.add(new.brackets)

    def swap(self, old: list, new: list, old_cells=None, new_cells=None, run_time: float = 1.0):
        """Replace the ``old`` texts by the ``new`` in place: the old fade out (the cells behind them take their
        new colours meanwhile), then the new fade in, so two numbers are never drawn over each other."""
        recolour = [ReplacementTransform(old_cells, new_cells)] if old_cells is not None else []
        self.play(Vanish(*old), *recolour, run_time=run_time / 2)
        self.play(Appear(*new), run_time=run_time / 2)

    def show_line(self, line):
        """Show one worked line under the matrices (above the caption), after the previous one has gone."""
        left, right, _, _ = style.body_box()
        fit(line, right - left, LINE_HEIGHT).next_to(self.header[-1], UP, buff=0.2)
        self.hide_line()
        self.play(Appear(line), run_time=0.3)
        self.line = line

    def hide_line(self):
        if self.line is not None:
            self.play(Vanish(self.line), run_time=0.2)
            self.line = None

    def place_in_body(self, group):
        """Centre ``group`` in the body, between the formula map and the worked line, scaled down to fit."""
        left, right, bottom, top = style.body_box()
        top -= self.map_height()
        fit(group, right - left, top - bottom - LINE_HEIGHT, largest_scale=1.4)
        group.move_to(np.array([(left + right) / 2, (top + bottom + LINE_HEIGHT) / 2, 0]))

    @staticmethod
    def map_height() -> float:
        """Height the formula map takes at the top of the body, with a gap under it."""
        return MathTex(FORMULA, font_size=MAP_FONT_SIZE).height + 0.2

    def align_row_sums(self):
        """Each "Σ = 1" right of its row of the scores, where the weights will be, clear of the bracket."""
        for i, row_sum in enumerate(self.row_sums):
            row_sum.next_to(self.S.brackets[1], RIGHT, buff=ROW_SUM_GAP).match_y(self.S.cells[i][-1])

    def softmax_caption(self) -> str:
        result, strings = self.result, self.strings["steps"]["softmax"]
        if self.settings.causal:
            return strings["caption_causal"]
        if np.all(result.weights.max(axis=1) > 0.99):
            return strings["caption_one_hot"]
        if np.array_equal(result.Q, result.K) and np.all(result.weights.argmax(axis=1) == np.arange(len(result.X))):
            return strings["caption_diagonal"]
        return strings["caption"]

    @staticmethod
    def seconds_per_cell(cells: int, lower: float = 0.0) -> float:
        low, high = FAST_SECONDS
        return max(lower, min(high, max(low, 0.45 * cells)) / max(cells, 1))
