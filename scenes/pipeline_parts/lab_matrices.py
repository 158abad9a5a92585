"""The lab's steps 4-6, the n x n matrices: the scores QKᵀ (with the colour bar they share with the scaled scores),
the scaled scores QKᵀ / (√d_k · T), then the softmax weights A, which move aside for the query's lines and bars."""

from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, AnimationGroup, Create, DashedLine, FadeIn, GrowFromEdge, LaggedStart,
                   MoveToTarget, ReplacementTransform,
                   SurroundingRectangle, VGroup)

from lesson.numbers import as_read, decimals_for, format_number, reproduces
from lesson.pipeline_answers import ALIKE_RATIO, scaled_reproduces, scaled_step
from lesson.scaling_answers import root
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.heatmap import covering_value, score_legend
from scenes.pipeline_parts.common import BAR_FRAME_GAP, SPLIT_MARGIN, STEP_SECONDS, bar_frames, rounded_up
from scenes.pipeline_parts.lab_canvas import LabCanvas
from scenes.pipeline_parts.matrices import WEIGHTS_SCALE, MatrixReveals
from scenes.token_heatmap import TokenHeatmap
from scenes.token_labels import MIN_FONT_SIZE, abbreviated, token_text
from scenes.visuals import FORMULA_MARGIN, cap_height, enlarge_formulas, label_text, tagged_number, text_with_numbers
from scenes.weight_views import RowBars, WeightedLines

LINE_SECONDS = 0.6  # to draw one of the query's attention lines
FAN_BAR_LENGTH = 1.2  # the query's bars at step 6, at the chart's top value
FAN_LINE_HEIGHT = 0.42  # one token's line of that chart
FAN_LINES_WIDTH = 0.9  # between the query and the tokens its lines reach
FAN_RISE = 0.5  # of the query's lines' start above the first token's line
FAN_LINE_DROP = 0.1  # the query's lines start this far below its name
HEATMAP_SHARE = 0.62  # of the canvas width, for the weights heatmap next to the query's lines
MOST_HEATMAP_SHARE = 0.8  # taken when the heatmap's token names would shrink under 14 px in HEATMAP_SHARE
WEIGHTS_CAP_HEIGHT = 16 / 720 * 8  # frame units: the weights' digits at step 6, 16 px at 720p (review s12: at 14 px cap,
# 15-16 px of ink, the section's central matrix was its smallest text; step 8 redraws it at 20 px)
LEGEND_HEIGHT = 2.4  # the scores' colour bar, at most; no taller than the matrix beside it
LEGEND_GAP = 0.35
LEGEND_LINE_GAP = 0.12  # between «cada fila suma 1» and the colour legend under it
BLIP_SPACING = 0.2  # between the blips of a row of scores, each heard apart
LISTEN_BLIP_SPACING = 0.4  # the query's row of scores heard in the clear: slower, each cell lit in turn
SCORES_FRAME_SECONDS = 0.5  # QKᵀ's brackets, formula, token names and colour bar landing before its rows
QUERY_FRAME_SECONDS = 0.5  # the query's row framed, once every row is read
TOP_SCORE_SECONDS = 0.3  # the query's highest score lit: quicker than a fade seen as still (0.35 s)
MOVE_SECONDS = 1.6  # step 6's weights moving aside, then the query's bars appearing
FAN_PIECE_SECONDS = 0.3  # a token's line, bar and value drawn
FAN_VOICE_LEFT = 1.5  # s of "listen to the lines" left to say as the lines are drawn: then they are heard
EXTREME_STROKE = 3  # the frames round the query's lowest and highest weights
UNIFORM_DASH = 0.1
UNIFORM_STROKE = 5  # the dashed line of the uniform weight across the query's bars
UNIFORM_OVERHANG = 0.12  # of that line beyond the first and the last bar
VALUE_CLEARANCE = 0.1  # between the query's longest bar (or the uniform line) and its column of values
WEIGHTS_CELL_ROOM = 0.05  # added to a weight's cell, round its number
SOFTMAX_METRICS = 2  # the panel's values step 6 computes: the query's entropy and its largest weight


def lagged(seconds: float, each: float, count: int) -> float:
    """The lag ratio that plays ``count`` animations of ``each`` seconds one after another over ``seconds``."""
    if count < 2 or seconds <= each:
        return 0.0
    return (seconds / each - 1) / (count - 1)


class QueryFan(VGroup):
    """Step 6's query (``query_label``) with its ``lines`` down to every token of its row of weights as bars
    (``chart``)."""

    def __init__(self, query_label, lines: WeightedLines, chart: RowBars):
        super().__init__(query_label, lines, chart)
        self.query_label, self.lines, self.chart = query_label, lines, chart


class LabMatrices(LabCanvas, MatrixReveals):
    """Steps 4-6 on the lab's canvas: ``self.scores``, ``self.scaled`` and ``self.weights`` replace each other row
    by row on one layout; ``self.fan`` is the query's lines and bars beside the weights."""

    def show_scores(self):
        """QKᵀ, with the colour bar of the scale it shares with the scaled scores that replace it at step 5."""
        animations = self.enter_lab_step("scores", new_numbers=self.matrix_numbers(),
                                         with_header=[Vanish(VGroup(self.vectors, *self.band))])
        self.scores, self.scaled, self.weights = self.score_heatmaps()
        grid = self.scores.matrix.cell_grid
        self.score_legend = score_legend(self.score_scale, self.labels["score_scale"],
                                         height=min(LEGEND_HEIGHT, grid.height), name="score_legend")
        self.score_legend.next_to(grid, RIGHT, buff=LEGEND_GAP).align_to(grid, DOWN)
        self.place(VGroup(self.scores, self.score_legend), self.canvas_box())
        for later in (self.scaled, self.weights):  # row on row, centred, whatever their labels' widths
            later.scale(grid.height / later.matrix.cell_grid.height)
            later.shift(grid.get_center() - later.matrix.cell_grid.get_center())
            enlarge_formulas(later)
        matrix = self.scores.matrix
        self.query_frame = matrix.row_box(self.query)
        self.play(*animations, Appear(VGroup(matrix.brackets, matrix.label, self.scores.row_labels, self.scores.column_labels,
                                self.score_legend)), run_time=SCORES_FRAME_SECONDS)
        cues = self.values_cues(self.run.steps.scores)
        # the rows fill the voice up to "listen to the query's row", which the listening moment follows
        self.reveal_rows(matrix, max(self.fill_seconds(QUERY_FRAME_SECONDS), self.voice_left()), cues)
        self.beat("listen")  # "listen to the query's row, one tone per key": framed as the voice says it
        self.play(Create(self.query_frame), run_time=QUERY_FRAME_SECONDS)
        row = self.run.steps.scores[self.query]
        with self.listening():  # its blips again, in the clear, each cell lit as its value sounds
            kind, values = cues[self.query]
            if self.spoken():  # its row was ducked under the voice as it landed (without one, heard in the clear then)
                # the step's key row (``sonify.replay.key_cues``): heard here, not replayed after the voice
                self.cue(kind, **(values | {"spacing": LISTEN_BLIP_SPACING}), replayed=True)
            self.play(LaggedStart(*[self.flash_cell(matrix, self.query, j) for j in range(len(row))], lag_ratio=1.0),
                      run_time=LISTEN_BLIP_SPACING * len(row))
        self.beat("high")  # "a high value, a strong affinity: it sounds higher": the row's highest score lit, quickly,
        # from behind, its digits dark (a light over them left white digits on pale pink, 2.1:1: review s15); a
        # colour-only grid has no digits: a light over its cell, until step 5 replaces it
        top = self.top_score = int(np.argmax(row))
        lit = self.light_cells(matrix, self.query, [top])
        self.top_score_light = VGroup() if lit else self.cell_light(matrix, self.query, top)
        self.play(*(lit or [FadeIn(self.top_score_light)]), run_time=TOP_SCORE_SECONDS)

    def values_cues(self, scores) -> list[tuple[str, dict]]:
        """Each row of ``scores`` read out as blips, pitch as value on the colour scale that the scores and the
        scaled scores share: a scaled row sounds as much narrower as its colours are paler."""
        return [("values", dict(values=row.tolist(), spacing=BLIP_SPACING, low=-self.score_scale,
                                high=self.score_scale)) for row in np.asarray(scores)]

    def score_heatmaps(self) -> tuple[TokenHeatmap, TokenHeatmap, TokenHeatmap]:
        """QK^T, its scaled and masked version, and the softmax weights: one layout, so each replaces the last.

        The scores before and after scaling share one colour scale (``score_scale``): dividing by √d_k · T
        shows as paler cells, and equal values have equal colours. The scale ends at a round value at or above
        every score shown, and its bar is ticked at its ends: no cell is more saturated than the bar says."""
        steps = self.run.steps
        self.score_scale = covering_value(style.shared_largest(steps.scores, steps.scaled))
        temperature = format_number(self.settings.temperature)
        # √d_k's value written too: the voice says «unos 2.83», and the screen showed only √8 (review s12)
        relation, root_written = root(steps.d_k)
        tex_relation = {"=": "=", "≈": r"\approx"}[relation]
        scaled_label = (rf"QK^\top / (\sqrt{{{steps.d_k}}}\, T),\ \sqrt{{{steps.d_k}}} {tex_relation} {root_written},"
                        rf"\ T = {temperature}")
        left, right, bottom, top = self.canvas_box()
        cell = self.cell_size(HEATMAP_SHARE * (right - left), top - bottom)
        width = self.cell_width(steps.scores, steps.scaled)
        scores = self.matrix(steps.scores, r"QK^\top", style.TEXT, "scores", cell, width,
                             fill=self.score_fill)
        scaled = self.matrix(steps.scaled, scaled_label, style.TEXT, "scaled", cell, width, fill=self.score_fill,
                             mask=steps.mask)
        # the weights' own, narrower cells: the heatmap must stay legible when it shrinks at step 6; a little wider
        # than their numbers, so that the digits keep clear of the cells' edges once it has shrunk
        # on 0-1, as every map of weights in the section: one weight, one colour (the lab's flat weights look flat)
        self.weights_scale = WEIGHTS_SCALE
        width = self.cell_width(steps.weights)
        weights = self.weights_matrix(steps.weights, "weights", cell, width and width + WEIGHTS_CELL_ROOM, steps.mask,
                                      scale=self.weights_scale)
        # the mask acts when scaling: raw scores are not blocked yet
        # labels a size up: this heatmap shrinks to share the canvas with the query's lines at step 6
        return tuple(TokenHeatmap(matrix, self.tokens, self.query, style.BODY_SIZE) for matrix in (scores, scaled, weights))

    def show_scaled(self):
        """Step 5: the scores divided by √d_k · T (and masked, with the mask), row after row, on the scores'
        colour scale."""
        steps = self.run.steps
        caption, fields = scaled_step(self.settings, steps.d_k, steps.divisor)
        animations = self.enter_lab_step("scaled", self.strings["steps"]["scaled"][caption],
                                         new_numbers=self.matrix_numbers(),
                                         with_header=[*self.matrix_leaving(self.scores.matrix),
                                                      Vanish(self.top_score_light)], **fields)
        self.scaled_note = self.scaled_approximation()
        self.replace_matrix(self.scores.matrix, self.scaled.matrix, with_rows=[*animations, Appear(self.scaled_note)],
                            cues=self.values_cues(steps.scaled), cleared=True)  # row after row, each divided by the same number
        self.put_out(self.scores.matrix, self.query, [self.top_score])  # gone: its lit score as its value's colour
        self.add(self.query_frame)  # back on top of the matrix that just replaced the old one

    def scaled_approximation(self) -> VGroup:
        """Under the scaled scores, why a student who divides step 4's numbers by the 2.83 written finds a last decimal
        off in some cells (``scaled_reproduces``); nothing when every cell comes out as written."""
        if not self.numbers_fit() or scaled_reproduces(self.run.steps):
            return VGroup()
        below = VGroup(self.scaled.matrix.cell_grid, self.scaled.row_labels)
        note = self.approx_note(below.width)
        return VGroup(note.next_to(below, DOWN, buff=LEGEND_GAP).match_x(self.scaled.matrix.cell_grid))

    def show_softmax(self):
        """Step 6: each row of scaled scores becomes its weights, row after row; then the weights move aside for the
        query's bars and its lines, as the panel shows the row's entropy and largest weight; then the lines are
        heard, a note each."""
        caption, fields = self.softmax_caption()
        animations = self.enter_lab_step("softmax", caption, new_numbers=self.matrix_numbers() + SOFTMAX_METRICS + (
            len(self.tokens) if self.numbers_fit() else 0),
            with_header=[*self.matrix_leaving(self.scaled.matrix), Vanish(self.score_legend, self.scaled_note)],
            **fields)
        # each row becomes its probabilities, row after row; then the query's lines and bars take their time
        weights = self.weights
        frame = weights.matrix.row_box(self.query)
        legend = self.weights_legend()
        self.replace_matrix(self.scaled.matrix, weights.matrix, after=MOVE_SECONDS + LINE_SECONDS * len(self.tokens),
                            with_rows=[*animations, Appear(legend)], cleared=True,  # their own scale
                            cues=[("row", dict(weights=row.tolist())) for row in np.asarray(self.run.steps.weights)],
                            with_frame=[ReplacementTransform(VGroup(self.scores.row_labels, self.scores.column_labels,
                                                                    self.query_frame),
                                                             VGroup(weights.row_labels, weights.column_labels, frame))])
        self.query_frame = frame
        self.add(self.query_frame)  # back on top of the matrix that just replaced the old one
        heatmap = VGroup(weights.matrix, weights.row_labels, weights.column_labels, self.query_frame, legend)
        left, right, bottom, top = self.canvas_box()
        split = left + self.heatmap_share(heatmap) * (right - left)
        heatmap.generate_target()
        self.place(heatmap.target, (left, split - SPLIT_MARGIN, bottom, top))  # its label grown back to a legible size
        self.play(MoveToTarget(heatmap), run_time=MOVE_SECONDS / 2)
        self.fan = self.query_fan((split + SPLIT_MARGIN, right, bottom, top))
        self.beat("fan")  # "listen to the lines" is said, and a silent caption's weights written, as they are drawn
        # drawn as "listen" is said: a token's line, bar and value after another, each quickly, over the phrase (all
        # drawn slowly together, thin lines, read as a still of 9 s)
        seconds = max(MOVE_SECONDS / 2, self.voice_left(FAN_VOICE_LEFT))
        chart = self.fan.chart
        pieces = [AnimationGroup(Create(line), GrowFromEdge(bar, LEFT), *([Appear(chart.value_texts[j])]
                                                                         if len(chart.value_texts) else []))
                  for j, (line, bar) in enumerate(zip(self.fan.lines, chart.bars))]
        self.show_metric("softmax", Appear(VGroup(chart.axis, chart.labels)), Appear(self.fan.query_label),
                         LaggedStart(*pieces, lag_ratio=lagged(seconds, FAN_PIECE_SECONDS, len(pieces))),
                         run_time=seconds)
        with self.listening():  # each line's note as its pulse reaches its token: the weights heard one by one; the
            # light white and round the token's bar too, as the temperature rows': a grey one along the line alone
            # was too faint to be seen moving (the step measured an 8.4 s still)
            paths = [VGroup(line, frame) for line, frame in zip(self.fan.lines, bar_frames(self.fan.chart.bars))]
            self.sound_paths(paths, self.fan.lines.weights, self.settings.temperature,
                             LINE_SECONDS * len(self.fan.lines), colour=style.HIGHLIGHT)
        self.beat("lines")  # the query's lowest and highest weights, framed as the voice reads them
        chart, row = self.fan.chart, self.run.weights[self.query]
        ends = VGroup(*[SurroundingRectangle(chart.value_texts[k] if len(chart.value_texts) else chart.bars[k],
                                             color=style.HIGHLIGHT, buff=BAR_FRAME_GAP, stroke_width=EXTREME_STROKE)
                        for k in sorted({int(np.argmin(np.where(row > 0, row, np.inf))), int(np.argmax(row))})])
        self.play(Create(ends), run_time=STEP_SECONDS)
        self.beat("even")  # "the attention shared almost evenly": the uniform weight 1/n drawn across the bars
        uniform = self.uniform_mark(chart, row)
        self.play(Create(uniform), run_time=STEP_SECONDS)
        self.fan.add(ends, uniform)  # leave with the fan
        self.softmax_heatmap = heatmap

    def weights_legend(self) -> VGroup:
        """Under the weights, that each row sums to 1 (the guide's «cada fila suma 1», said by the voice, review s12),
        «≈ 1» when a row as written (rounded) does not, and what their colours span (``MatrixReveals.colour_legend``)."""
        weights = self.weights
        below = VGroup(weights.matrix.cell_grid, weights.row_labels)
        rows = as_read(self.run.steps.weights).sum(axis=1)
        exact = reproduces(np.ones(len(rows)), rows, decimals=2)
        sums = label_text(self.labels["rows_sum" if exact else "rows_sum_rounded"], style.MUTED, style.CAPTION_SIZE)
        # stacked: side by side, the two widened the heatmap past its grid and shrank long token names beside it
        legend = VGroup(sums, self.colour_legend("weights_scale")).arrange(DOWN, buff=LEGEND_LINE_GAP)
        return legend.next_to(below, DOWN, buff=LEGEND_GAP).match_x(weights.matrix.cell_grid)

    def uniform_mark(self, chart: RowBars, row) -> VGroup:
        """A dashed line across the query's bars where the uniform weight, 1/n of the visible tokens, would end, named
        under the bars: how near the row is to sharing its attention evenly."""
        visible = row > 0
        top = int(np.argmax(row))
        x = chart.axis.get_x() + chart.bars[top].width / row[top] / np.count_nonzero(visible)
        line = DashedLine([x, chart.bars[0].get_top()[1] + UNIFORM_OVERHANG, 0],
                          [x, chart.bars[-1].get_bottom()[1] - UNIFORM_OVERHANG, 0], color=style.HIGHLIGHT,
                          stroke_width=UNIFORM_STROKE, dash_length=UNIFORM_DASH)
        name = label_text(f"{self.labels['uniform']} 1/{np.count_nonzero(visible)}", style.TEXT, style.CAPTION_SIZE)
        return VGroup(line, name.next_to(line, DOWN, buff=0.08).align_to(line, RIGHT))

    def softmax_caption(self) -> tuple[str, dict]:
        """What step 6 can truthfully say of the query's lines and bars: that they are as thick and as long as
        their weights, or, when the lab's random weights leave them almost equal (within ALIKE_RATIO of each
        other), that they are, and why."""
        strings, row = self.strings["steps"]["softmax"], self.run.weights[self.query]
        visible = row[row > 0]
        fields = dict(query=self.tokens[self.query], top=self.tokens[int(row.argmax())],
                      low=format_number(visible.min()), high=format_number(visible.max()))
        if self.settings.causal:
            return strings["caption_causal"], fields
        random = self.settings.preset == "lab" and self.custom_weights is None
        alike = random and visible.max() <= ALIKE_RATIO * visible.min()
        return strings["caption_alike" if alike else "caption"], fields

    def heatmap_share(self, heatmap: VGroup) -> float:
        """Of the canvas width, for the weights heatmap beside the query's lines: HEATMAP_SHARE, or more as its token
        names need to stay at 14 px (up to MOST_HEATMAP_SHARE); more again as its digits need to reach
        WEIGHTS_CAP_HEIGHT, where the query's bars beside still keep their names and weights (``fan_named``)."""
        weights = self.weights
        digits = [entry for row in weights.matrix.entries for entry in row]
        names = [*weights.row_labels, *weights.column_labels]
        named = max(HEATMAP_SHARE, min(MOST_HEATMAP_SHARE, self.share_for(heatmap, names, style.SMALLEST_CAP_HEIGHT)))
        legible = min(MOST_HEATMAP_SHARE, self.share_for(heatmap, digits, WEIGHTS_CAP_HEIGHT))
        return legible if legible > named and self.fan_named(legible) else named

    def fan_named(self, share: float) -> bool:
        """Whether the query's bars, right of a heatmap taking ``share`` of the canvas width, keep their tokens'
        names (and weights) at a readable size (``query_fan``)."""
        left, right, bottom, top = self.canvas_box()
        split = left + share * (right - left)
        return len(self.query_fan((split + SPLIT_MARGIN, right, bottom, top)).chart.labels) > 0

    def share_for(self, heatmap: VGroup, texts: list, height: float) -> float:
        """The share of the canvas width at which the smallest of ``texts`` in ``heatmap`` is ``height`` tall (a
        formula's margin over it); 0 without texts."""
        smallest = min((cap_height(text) for text in texts), default=0.0)
        if not smallest:
            return 0.0
        left, right, _, _ = self.canvas_box()
        return (heatmap.width * FORMULA_MARGIN * height / smallest + SPLIT_MARGIN) / (right - left)

    def query_fan(self, box) -> QueryFan:
        """The query token on top, its lines down to every token, and its row of weights as bars, a token a line
        with its weight after its bar (names and weights left out when they would not read at the size the box
        allows); the tokens named as the heatmap beside names its rows (``abbreviated``)."""
        left, right, bottom, top = box
        row = self.run.weights[self.query]
        names = [abbreviated(token) for token in self.tokens]
        query_label = token_text(names[self.query], True, style.BODY_SIZE)
        line_height = min(FAN_LINE_HEIGHT, (top - bottom - 2 * query_label.height) / len(row))
        for texts in (True, False):
            chart = RowBars(row, names, FAN_BAR_LENGTH, line_height, query=self.query,
                            max_value=rounded_up(row.max()), name="distribution", names=texts,
                            values_shown=texts and self.numbers_fit(),
                            decimals=decimals_for(self.run.weights.flat))  # as the matrix beside writes them
            # the values in one column right of every bar and of the uniform weight's line: a value beside a short
            # bar had the dashed line through its first digit
            reach = max(row.max(), 1 / np.count_nonzero(row > 0)) / rounded_up(row.max()) * FAN_BAR_LENGTH
            for value in chart.value_texts:
                value.align_to(chart.axis.get_center() + RIGHT * (reach + VALUE_CLEARANCE), LEFT)
            first = chart.line_starts()[0]  # the first token's line: the query sits up and left of it
            query_label.move_to(first + LEFT * FAN_LINES_WIDTH + UP * (FAN_RISE + query_label.height / 2))
            lines = WeightedLines([query_label.get_bottom() + DOWN * FAN_LINE_DROP] * len(row), chart.line_starts(),
                                  row)
            fan = QueryFan(query_label, lines, chart)
            scale = min(1.0, (right - left) / fan.width, (top - bottom) / fan.height)
            if chart.font_size * scale >= MIN_FONT_SIZE:
                break
        self.place(fan, box)
        for value in chart.value_texts:  # as tall as the matrix's digits beside: fitted, they fell to 15 px (review s13)
            value.scale(max(1.0, WEIGHTS_CAP_HEIGHT / cap_height(value)), about_edge=LEFT)
        return fan
