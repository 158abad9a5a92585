"""Section 1: Attention(Q, K, V) = softmax(QK^T / sqrt(d_k)) V computed cell by cell from editable matrices."""

from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Create, MathTex, MoveToTarget, ReplacementTransform, Transform, VGroup, Write

from attn_math.attention import self_attention
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.lesson_scene import LessonScene
from scenes.numbers import decimals_for, format_number
from scenes.visuals import LabelledMatrix, fit, label_text, shared_cell_width

FORMULA = r"\text{Attention}(Q,K,V) = \text{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V"
ROLE_COLOURS = {"Q": style.QUERY, "K": style.KEY, "V": style.VALUE}
SECONDS_PER_MATRIX = (3.0, 7.0)  # cell-by-cell fill of one matrix: at least, at most
LINE_HEIGHT = 0.55  # space kept under the matrices for the worked line (a dot product, the divisor)


class MatrixScene(LessonScene):
    section_id = "matrix"
    STEPS = ("formula", "inputs", "queries", "keys", "values", "scores", "scaled", "softmax", "output")

    def lesson(self):
        inputs = self.settings.matrices()
        self.result = self_attention(**inputs, scale=self.settings.scale, causal=self.settings.causal)
        self.show_formula()
        self.show_inputs(inputs)
        for role, key in (("Q", "queries"), ("K", "keys"), ("V", "values")):
            self.show_projection(role, key)
        self.show_scores()
        self.show_scaled()
        self.show_softmax()
        self.show_output()

    # Step 1 -------------------------------------------------------------------------------------
    def show_formula(self):
        self.begin_step("formula")
        formula = MathTex(FORMULA, substrings_to_isolate=["Q", "K", "V"], font_size=60, color=style.TEXT)
        for role, colour in ROLE_COLOURS.items():
            formula.set_color_by_tex(role, colour)
        self.play(Write(formula), run_time=2.0)
        self.wait(1.5)
        self.formula = formula

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
        top = VGroup(self.X, *self.W.values()).arrange(RIGHT, buff=0.7, aligned_edge=UP)
        for role, product in self.products.items():
            product.next_to(self.W[role], DOWN, buff=0.45)
        stage = VGroup(top, *self.products.values())
        self.place_in_body(stage)
        self.play(Vanish(self.formula), run_time=0.5)
        self.play(Appear(self.X), *[Appear(w) for w in self.W.values()], run_time=1.2)
        self.wait(1.5)

    def show_projection(self, role: str, key: str):
        self.begin_step(key)
        product = self.products[role]
        self.play(Appear(product.frame), run_time=0.5)
        self.fill_product(product, rows=self.X.row_box, columns=self.W[role].column_box,
                          left=self.X.values, right=self.W[role].values)

    # Steps 6-9: scores, scaling, softmax, output -------------------------------------------------
    def show_scores(self):
        self.begin_step("scores")
        result = self.result
        self.S, self.scaled, self.A = self.score_matrices()
        self.Z = LabelledMatrix(result.output, "Z = AV", style.OUTPUT, "Z")
        self.row_sums = VGroup(*[label_text(self.strings["labels"]["row_sum"], style.ATTENTION, style.CAPTION_SIZE)
                                 for _ in range(result.X.shape[0])])
        Q, K, V = (self.products[role] for role in ROLE_COLOURS)
        for product in (Q, K, V):
            product.generate_target()
        self.align_row_sums()
        left = VGroup(Q.target, K.target).arrange(DOWN, buff=0.4)
        right = VGroup(V.target, self.Z).arrange(DOWN, buff=0.4)
        stage = VGroup(left, VGroup(self.S, self.row_sums), right).arrange(RIGHT, buff=0.8)
        self.place_in_body(stage)
        for later in (self.scaled, self.A):
            later.scale(self.S.cell_grid.width / later.cell_grid.width)
            later.shift(self.S.cell_grid.get_center() - later.cell_grid.get_center())
        self.play(Vanish(self.X), *[Vanish(w) for w in self.W.values()], run_time=0.6)
        self.play(*[MoveToTarget(product) for product in (Q, K, V)], run_time=1.0)
        self.play(Appear(self.S.frame), run_time=0.5)
        self.fill_product(self.S, rows=Q.row_box, columns=K.row_box, left=Q.values, right=K.values.T)

    def score_matrices(self) -> tuple[LabelledMatrix, LabelledMatrix, LabelledMatrix]:
        """QK^T, its scaled (and masked) version and the softmax weights, sharing one cell width."""
        result = self.result
        finite = result.scaled[np.isfinite(result.scaled)]
        largest_score = float(np.abs(result.scores).max())
        largest_scaled = float(np.abs(finite).max()) if finite.size else 1.0
        width = shared_cell_width(result.scores, result.scaled, result.weights)
        scores = LabelledMatrix(result.scores, r"QK^\top", style.TEXT, "scores", cell_width=width,
                                fill=lambda value: style.score_colour(value, largest_score))
        label = r"QK^\top / \sqrt{d_k}" if self.settings.scale else r"QK^\top"
        scaled = LabelledMatrix(result.scaled, label, style.TEXT, "scaled", cell_width=width,
                                fill=lambda value: style.MASKED if np.isneginf(value)
                                else style.score_colour(value, largest_scaled))
        weights = LabelledMatrix(result.weights, r"A = \text{softmax}(\cdot)", style.ATTENTION, "weights",
                                 cell_width=width, fill=style.weight_colour,
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
        self.begin_step("scaled", caption=caption)
        labels = self.strings["labels"]
        note = (labels["divide"].format(d_k=result.d_k, root=format_number(np.sqrt(result.d_k)))
                if self.settings.scale else labels["no_divide"])
        self.show_line(label_text(note, style.TEXT, style.BODY_SIZE))
        self.play(ReplacementTransform(self.S, self.scaled), run_time=1.5)
        self.wait(1.5)

    def show_softmax(self):
        result = self.result
        self.begin_step("softmax", caption=self.softmax_caption())
        self.hide_line()
        self.play(ReplacementTransform(self.scaled.label, self.A.label), run_time=0.6)
        seconds = self.seconds_per_cell(result.X.shape[0], lower=0.8)
        for i in range(result.X.shape[0]):
            box = self.scaled.row_box(i)
            self.play(Create(box), run_time=0.3 * seconds)
            self.cue("row", weights=[float(w) for w in result.weights[i]])
            self.play(ReplacementTransform(VGroup(*self.scaled.cells[i], *self.scaled.entries[i]),
                                           VGroup(*self.A.cells[i], *self.A.entries[i])),
                      Appear(self.row_sums[i]), Vanish(box), run_time=0.7 * seconds)
        self.remove(self.scaled.brackets)
        self.add(self.A.brackets)
        self.wait(1.5)

    def show_output(self):
        self.begin_step("output")
        self.play(Appear(self.Z.frame), run_time=0.5)
        V = self.products["V"]
        self.fill_product(self.Z, rows=self.A.row_box, columns=V.column_box, left=self.A.values, right=V.values)
        self.wait(2.0)

    # Shared moves ------------------------------------------------------------------------------
    def fill_product(self, product: LabelledMatrix, rows, columns, left: np.ndarray, right: np.ndarray):
        """Reveal product[i, j] = left[i] . right[:, j] cell by cell, framing the row and column used."""
        n_rows, n_cols = product.values.shape
        seconds = self.seconds_per_cell(n_rows * n_cols)
        row_box, column_box = rows(0), columns(0)
        self.play(Create(row_box), Create(column_box), run_time=0.4)
        low, high = float(product.values.min()), float(product.values.max())
        for i in range(n_rows):
            for j in range(n_cols):
                self.cue("cell", value=float(product.values[i, j]), low=low, high=high)
                self.play(Transform(row_box, rows(i)), Transform(column_box, columns(j)),
                          Appear(product.entries[i][j]), run_time=seconds)
                if (i, j) == (0, 0):
                    self.show_line(self.expansion(product, left, right))
                    self.wait(1.5)
        self.hide_line()
        self.play(Vanish(row_box), Vanish(column_box), run_time=0.4)

    def expansion(self, product: LabelledMatrix, left: np.ndarray, right: np.ndarray):
        """The worked dot product of the first cell, e.g. Q[1,1] = 1·3 + 0·(−1) = 3."""
        left_decimals, right_decimals = decimals_for(left.flat), decimals_for(right.flat)
        terms = " + ".join(f"{format_number(a, left_decimals)}·{self.parenthesised(b, right_decimals)}"
                           for a, b in zip(left[0], right[:, 0]))
        name = product.label.tex_string.split("=")[0].replace("^\\top", "ᵀ").replace(" ", "")
        text = self.strings["labels"]["expansion"].format(name=name, i=1, j=1, terms=terms,
                                                          result=product.entries[0][0].shown_text)
        return label_text(text, style.TEXT, style.BODY_SIZE)

    @staticmethod
    def parenthesised(value: float, decimals: int) -> str:
        text = format_number(value, decimals)
        return f"({text})" if value < 0 else text

    def show_line(self, line):
        """Show one worked line under the matrices, replacing the previous one."""
        left, right, bottom, _ = style.body_box()
        fit(line, right - left, LINE_HEIGHT).move_to(np.array([0, bottom + LINE_HEIGHT / 2, 0]))
        line.shown_line = True
        previous = getattr(self, "line", None)
        self.play(*([Vanish(previous)] if previous else []), Appear(line), run_time=0.5)
        self.line = line

    def hide_line(self):
        if getattr(self, "line", None) is not None:
            self.play(Vanish(self.line), run_time=0.3)
            self.line = None

    def place_in_body(self, group):
        """Centre ``group`` in the body, above the worked line, scaled down if it does not fit."""
        left, right, bottom, top = style.body_box()
        fit(group, right - left, top - bottom - LINE_HEIGHT, largest_scale=1.4)
        group.move_to(np.array([(left + right) / 2, (top + bottom + LINE_HEIGHT) / 2, 0]))

    def align_row_sums(self):
        for i, row_sum in enumerate(self.row_sums):
            row_sum.scale_to_fit_height(self.S.entries[0][0].height * 0.9 if self.S.entries[0][0].height else 0.2)
            row_sum.next_to(self.S.cells[i][-1], RIGHT, buff=0.25)

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
        low, high = SECONDS_PER_MATRIX
        return max(lower, min(high, max(low, 0.45 * cells)) / cells)
