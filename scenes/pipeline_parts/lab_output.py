"""The lab's step 7, the weighted sum: the values V, the query's lines from each to its output (drawn with their
notes), the query's row of Z growing under them, then every other token's."""

from __future__ import annotations

import numpy as np
from manim import LEFT, RIGHT, UP, GrowFromEdge, LaggedStart, VGroup

from lesson.numbers import as_read, format_number, reproduces
from lesson.pipeline_answers import outputs_alike
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.pipeline_parts.common import STEP_SECONDS
from scenes.pipeline_parts.lab_canvas import LabCanvas
from scenes.pipeline_parts.matrices import NUMBERS_MAX_TOKENS
from scenes.pipeline_parts.projection import Projections, tighten
from scenes.token_labels import abbreviated
from scenes.vector_stage import VectorStage
from scenes.visuals import LabelledMatrix, cap_height, label_text
from scenes.weight_views import WeightedLines

TOKENS_GAP = 0.3  # between the tokens and their values V
LINES_ROOM = 0.9  # between V and Z, where the query's lines run: what the product under them (BAND_SHARE) leaves
VALUES_SECONDS = 0.8  # the tokens and their values landing
OUTPUT_SECONDS = 0.6  # the query's output growing, once its lines are drawn
OUTPUT_LAG = 0.5  # of an output's growth, before the next token's starts
SPENT_LINES_OPACITY = 0.25  # the query's lines once its output has grown
ROW_DECIMALS = 2  # Z's and V's numbers, as the product's
WEIGHT_DECIMALS = (2, 3)  # the query's weights beside V: the fewest with which its row of Z comes out as written
SUM_COLUMNS = 4  # of V and of Z written side by side: eight of each would fall under 16 px at 720p; a ⋯ after
NAME_GAP = 0.2  # between a row of the table and its token's name
TABLE_GAP = 0.2  # between the table's matrices


class LabOutput(LabCanvas, Projections):
    """Step 7 on the lab's canvas; ``self.output_stage`` is V, Z and the query's lines."""

    def output_caption(self) -> tuple[str, dict]:
        """What the output step can truthfully say: where the query's output comes from, or that the
        outputs are almost identical when the weights are almost uniform (lesson.pipeline_answers.outputs_alike)."""
        strings, run, q = self.strings["steps"]["output"], self.run, self.query
        source = int(run.weights[q].argmax())
        fields = dict(query=self.tokens[q], source=self.tokens[source], share=format_number(run.weights[q, source]),
                      n=len(self.tokens), d_v=run.steps.V.shape[1], d=run.steps.X.shape[1],  # W_V: d_v × d
                      spread=format_number(self.rows_apart()))
        return strings["caption_alike" if outputs_alike(run) else "caption"], fields

    def rows_apart(self) -> float:
        """How far apart Z's rows are as written: the widest gap between two rows' numbers in one column, from the
        numbers drawn (two decimals, its first SUM_COLUMNS columns). «Casi iguales» was not quite true (review s12: rows
        «se» and «mesa» differ visibly); this says by how much."""
        return float(np.ptp(as_read(self.run.steps.output[:, :SUM_COLUMNS], ROW_DECIMALS), axis=0).max())

    def show_output(self):
        """Step 7: Z = AV for the query, its lines from every value V_j to its output, each as thick as its weight."""
        steps, q = self.run.steps, self.query
        caption, fields = self.output_caption()
        animations = self.enter_lab_step("output", caption, with_header=[Vanish(VGroup(self.softmax_heatmap, self.fan))],
                                         **fields)
        vectors_box, band_box = self.split_box(self.canvas_box())
        left, right, bottom, top = vectors_box
        stage = VectorStage(self.tokens, [(steps.V, style.VALUE, "V"), (steps.output, style.OUTPUT, "Z")],
                            right - left, top - bottom, query=q, gaps=[TOKENS_GAP, LINES_ROOM])
        self.place(stage, vectors_box)
        band = self.projection_band("V", band_box)  # the query's value, v = W_V x, with W_V's numbers
        self.not_to_read(band)
        values, outputs = stage.rows
        self.approx_band_note(band, outputs, band_box[1] - band_box[0])  # in the band, under Z's row
        lines = WeightedLines([vector.get_bottom() for vector in values.vectors],
                              [outputs.vectors[q].get_top()] * len(self.tokens), self.run.weights[q])
        self.play(*animations, Appear(stage.tokens), Appear(values), Appear(band), run_time=VALUES_SECONDS)
        reveal = self.fill_seconds(OUTPUT_SECONDS)
        self.draw_lines(lines, self.settings.temperature, reveal / 2)
        self.play(Appear(outputs.name), GrowFromEdge(outputs.vectors[q], UP), run_time=OUTPUT_SECONDS)
        others = [GrowFromEdge(vector, UP) for j, vector in enumerate(outputs.vectors) if j != q]
        self.play(*([LaggedStart(*others, lag_ratio=OUTPUT_LAG)] if others else []),
                  lines.animate.set_opacity(SPENT_LINES_OPACITY),
                  run_time=max(STEP_SECONDS, reveal / 2))
        if len(self.tokens) > NUMBERS_MAX_TOKENS:  # too many rows to write: Z stays in bars
            self.output_stage = VGroup(stage, lines, band)
            return
        # "the 7 rows come out almost the same": Z's rows with their numbers, in the product's place, to be checked
        # (review s8: Z only ever drawn as bars)
        outputs = self.fitting_table(band_box)
        self.not_to_read(outputs)
        self.beat("rows")
        self.play(Vanish(band), Appear(outputs), run_time=OUTPUT_SECONDS)
        self.output_stage = VGroup(stage, lines, outputs)

    def fitting_table(self, box) -> VGroup:
        """The output's table (``output_matrix``) placed in ``box`` with as many of SUM_COLUMNS columns as keep its
        names and numbers readable (long token names leave room for fewer)."""
        for columns in range(SUM_COLUMNS, 1, -1):
            table = self.place(self.output_matrix(columns), box)
            names, matrices, _ = table
            texts = [*names, *[entry for matrix in matrices for row in matrix.entries for entry in row]]
            if min(cap_height(text) for text in texts) >= style.SMALLEST_CAP_HEIGHT:
                break
        return table

    def weight_decimals(self, columns: int = SUM_COLUMNS) -> int:
        """The fewest decimals (WEIGHT_DECIMALS) for the query's weights α_j with which z = Σ_j α_j v_j, redone from
        α and V as written, gives the query's row of Z as written (review s14: with two, 0.16 came out 0.17)."""
        steps, q = self.run.steps, self.query
        values, row = as_read(steps.V[:, :columns], ROW_DECIMALS), steps.output[q, :columns]
        for decimals in WEIGHT_DECIMALS:
            if reproduces(row, np.round(self.run.weights[q], decimals) @ values, ROW_DECIMALS):
                return decimals
        return WEIGHT_DECIMALS[-1]

    def output_matrix(self, columns: int = SUM_COLUMNS) -> VGroup:
        """Z = AV with its numbers, checkable: the query's weights α_j (its row of A, as a column), V and Z side by
        side, a row a token named left of them, the query's row of Z framed: z = Σ_j α_j v_j redone from the numbers
        written (review s14: only v for the query was ever printed). Their first ``columns`` columns, a … after."""
        steps, q = self.run.steps, self.query
        # α_j alone: the query's word is the user's, never typed into LaTeX (a Cyrillic word stopped the render); its
        # row is the one framed
        weights = LabelledMatrix(np.asarray(self.run.weights[q], dtype=float)[:, None], r"\alpha_j", style.ATTENTION, "alpha",
                                 decimals=self.weight_decimals(columns))
        values, outputs = (self.cut_matrix(matrix, label, colour, name, columns) for matrix, label, colour, name in
                           ((steps.V, "V", style.VALUE, "V"), (steps.output, "Z = AV", style.OUTPUT, "Z")))
        tighten(weights)
        table = VGroup(weights, values, outputs).arrange(RIGHT, buff=TABLE_GAP)
        for part in (values, outputs):  # the rows on one level, whatever the labels' heights
            part.shift(UP * (weights.cell_grid.get_y() - part.cell_grid.get_y()))
        names = VGroup(*[label_text(abbreviated(token), style.MUTED, style.CAPTION_SIZE) for token in self.tokens])
        for name, row in zip(names, weights.entries):
            name.set_y(row[0].get_y())
        names.align_to(weights.brackets[0].get_left() + LEFT * NAME_GAP, RIGHT)
        frame = outputs.row_box(q)
        return VGroup(names, table, frame)

    @staticmethod
    def cut_matrix(values, label: str, colour, name: str, columns: int) -> LabelledMatrix:
        """A matrix's first ``columns`` columns with its numbers, a … after when it has more (text: a ⋯ in TeX is a
        few pixels tall)."""
        values = np.asarray(values, dtype=float)
        matrix = LabelledMatrix(values[:, :columns], label, colour, name, decimals=ROW_DECIMALS)
        tighten(matrix)
        if values.shape[1] > columns:
            matrix.add(label_text("…", colour, style.BODY_SIZE).next_to(matrix.brackets, RIGHT, buff=0.08))
        return matrix
