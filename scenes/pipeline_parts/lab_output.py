"""The lab's step 7, the weighted sum: the values V, the query's lines from each to its output (drawn with their
notes), the query's row of Z growing under them, then every other token's."""

from __future__ import annotations

from manim import UP, GrowFromEdge, LaggedStart, VGroup

from lesson.numbers import format_number
from lesson.pipeline_answers import outputs_alike
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.pipeline_parts.common import LEAVE_SECONDS, STEP_SECONDS
from scenes.pipeline_parts.lab_canvas import LabCanvas
from scenes.pipeline_parts.projection import Projections
from scenes.vector_stage import VectorStage
from scenes.weight_views import WeightedLines

TOKENS_GAP = 0.3  # between the tokens and their values V
LINES_ROOM = 1.4  # between V and Z, where the query's lines run
VALUES_SECONDS = 0.8  # the tokens and their values landing
OUTPUT_SECONDS = 0.6  # the query's output growing, once its lines are drawn
OUTPUT_LAG = 0.5  # of an output's growth, before the next token's starts
SPENT_LINES_OPACITY = 0.25  # the query's lines once its output has grown


class LabOutput(LabCanvas, Projections):
    """Step 7 on the lab's canvas; ``self.output_stage`` is V, Z and the query's lines."""

    def output_caption(self) -> tuple[str, dict]:
        """What the output step can truthfully say: where the query's output comes from, or that the
        outputs are almost identical when the weights are almost uniform (lesson.pipeline_answers.outputs_alike)."""
        strings, run, q = self.strings["steps"]["output"], self.run, self.query
        source = int(run.weights[q].argmax())
        fields = dict(query=self.tokens[q], source=self.tokens[source], share=format_number(run.weights[q, source]),
                      n=len(self.tokens), d_v=run.steps.V.shape[1], d=run.steps.X.shape[1])  # W_V: d_v × d
        return strings["caption_alike" if outputs_alike(run) else "caption"], fields

    def show_output(self):
        """Step 7: Z = AV for the query, its lines from every value V_j to its output, each as thick as its weight."""
        steps, q = self.run.steps, self.query
        caption, fields = self.output_caption()
        animations = self.enter_lab_step("output", caption, **fields)
        vectors_box, band_box = self.split_box(self.canvas_box())
        left, right, bottom, top = vectors_box
        stage = VectorStage(self.tokens, [(steps.V, style.VALUE, "V"), (steps.output, style.OUTPUT, "Z")],
                            right - left, top - bottom, query=q, gaps=[TOKENS_GAP, LINES_ROOM])
        self.place(stage, vectors_box)
        band = self.projection_band("V", band_box)  # the query's value, v = W_V x, with W_V's numbers
        self.not_to_read(band)
        values, outputs = stage.rows
        lines = WeightedLines([vector.get_bottom() for vector in values.vectors],
                              [outputs.vectors[q].get_top()] * len(self.tokens), self.run.weights[q])
        self.play(*animations, Vanish(VGroup(self.softmax_heatmap, self.fan)), run_time=LEAVE_SECONDS)
        self.play(Appear(stage.tokens), Appear(values), Appear(band), run_time=VALUES_SECONDS)
        reveal = self.fill_seconds(OUTPUT_SECONDS)
        self.draw_lines(lines, self.settings.temperature, reveal / 2)
        self.play(Appear(outputs.name), GrowFromEdge(outputs.vectors[q], UP), run_time=OUTPUT_SECONDS)
        others = [GrowFromEdge(vector, UP) for j, vector in enumerate(outputs.vectors) if j != q]
        self.play(*([LaggedStart(*others, lag_ratio=OUTPUT_LAG)] if others else []),
                  lines.animate.set_opacity(SPENT_LINES_OPACITY),
                  run_time=max(STEP_SECONDS, reveal / 2))
        self.output_stage = VGroup(stage, lines, band)
