"""Section 6: the AI Visual Lab's 7-step self-attention pipeline, then its temperature and its causal mask.

Steps 1-7 are the lab's canvas and side panel on the weights of ``pipeline.preset``: "lab" (the default)
gives the browser's numbers exactly (``attn_math.lab``: seed 42, d_k = 8), "sharp" designed weights under
which the attention does something a student can name (``attn_math.sharp``). Then the two side by side
(why the lab's is flat: random, untrained weights), the guide's exercise 1 on both (does the article
attend to its noun?), the guide's step 8 (temperature) and exercises 2-4 (max weight against T, the
causal mask, entropy) on the configured preset. The header's counter ("Paso 3/13") is the section's one step
counter throughout; the panel's step dots say which of the lab's 7 steps is on, its status bar the query.
LessonScene keeps each step on screen for its reading time (``reading_seconds``); here the main reveal of a
step is stretched to fill that time (``LessonScene.reveal_seconds``), so that no step ends on a long frozen stretch.
"""

from __future__ import annotations

import math

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, AnimationGroup, Circle, Create, DashedLine, Dot, FadeIn, GrowFromEdge,
                   LaggedStart, Line, Rectangle, MoveToTarget, ReplacementTransform, ShowPassingFlash, SurroundingRectangle, Transform,
                   TransformFromCopy, VGroup, linear, smooth, squish_rate_func)

from attn_math.lab import LAB_SENTENCES, MAX_TEMPERATURE, MIN_TEMPERATURE, LabAttention, lab_sentence_name, spelled
from attn_math.sharp import article_and_noun
from lesson.numbers import decimals_for, format_number
from lesson.pipeline_answers import (ALIKE_RATIO, EXERCISE_TEMPERATURES, Dimensions, article_caption, attention,
                                    outputs_alike, presets_caption, question_fields, scaled_step, temperature_caption,
                                    weights_kind)
from lesson.scaling_answers import root
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.heatmap import covering_value, score_legend
from scenes.curve_plot import CurvePlot
from scenes.lab_panel import SentenceSelector, SidePanel
from scenes.lesson_scene import Cue, LessonScene
from scenes.token_heatmap import TokenHeatmap, cell_centres, cell_size_of, sentence_matrix
from scenes.token_labels import MIN_FONT_SIZE, abbreviated, token_text
from scenes.vector_stage import VectorStage
from scenes.weight_views import RowBars, WeightedLines, token_bar_chart
from scenes.visuals import (CELL_HEIGHT, CELL_PADDING, FORMULA_MARGIN, baseline, cap_height, enlarge_formulas, fit,
                            label_text, number_text, sit_on, tagged_number, text_with_numbers)
from sonify.mappings import ENTROPY_GAP

LAB_STEPS = ("embeddings", "queries", "keys", "scores", "scaled", "softmax", "output")
STEP_SECONDS = 1.2  # one step of the lab's "Animar"
NOTE_SPACING = 0.08  # between two attention notes, so each is heard
LINE_SECONDS = 0.6  # to draw one of the query's attention lines
FADE_SECONDS = 2.5  # the longest fade in: slower, a frame changes too little to be seen moving
NUMBERS_MAX_TOKENS = 8  # up to this many tokens the matrices show their numbers; beyond, colour only
PANEL_WIDTH = 3.4
FAN_BAR_LENGTH = 1.2  # the query's bars at step 6, at the chart's top value
FAN_LINE_HEIGHT = 0.42  # one token's line of that chart
FAN_LINES_WIDTH = 0.9  # between the query and the tokens its lines reach
FAN_RISE = 0.5  # of the query's lines' start above the first token's line
MEANING_GAP = 0.35  # between the sentence's meaning and its tokens
PANEL_GAP = 0.3
CAPTION_ROOM = 0.3  # kept free above the body's bottom: a caption may wrap onto a second line
COMPARISON_GAP = 0.45  # between the unmasked map and the row names it shares with the masked one
HEATMAP_SHARE = 0.62  # of the canvas width, for the weights heatmap next to the query's lines
MOST_HEATMAP_SHARE = 0.8  # taken when the heatmap's texts would shrink under 14 px in HEATMAP_SHARE
LEGEND_HEIGHT = 2.4  # the scores' colour bar, at most; no taller than the matrix beside it
LEGEND_GAP = 0.35
TEMPERATURE_BARS = 1.1  # the height of a temperature's row of bars, for up to three temperatures
SHORTEST_TEMPERATURE_BARS = 0.55  # with more, lower rows, so that all fit with the token names under the last
CURVE_SAMPLES = 99  # temperatures sampled for the max-weight plot, evenly across the lab's slider
READ_OFF_SECONDS = 0.6  # a temperature's ring and value landing as the curve reaches it
CURVE_SECONDS = 3.0  # at least, to draw that plot's curve: its tone is heard fading as the curve falls
CHORD_SECONDS = 1.2  # a "row" cue's chord and its tail: two compared rows start at least this far apart
LANDING_SECONDS = 1.5  # at most, for a compared map or ring to show before its chord sounds
FRAMING_SECONDS = 0.5  # at least, to frame the query's row in a compared map
BLIP_SPACING = 0.2  # between the blips of the query's row of scores, each heard apart
ROWS_SECONDS = 1.5  # a colour-only grid fading into the next
ROW_FADE_SECONDS = 1.0  # a matrix's row fading in, before it stands to be read
FRAME_SECONDS = 0.5  # a matrix's brackets and token names moving to the new width; its rows, its formula fading out
SUMMARY_SECONDS = 0.8  # the causal step's "first row: 6 · last: 0"
MOVE_SECONDS = 1.6  # step 6's weights moving aside, then the query's bars appearing
COMPARISON_SIDE_MARGIN = 0.8  # frame units: what a side of the mask comparison leaves of its half of the body
COMPARISON_TEXT_ROOM = 1.2  # frame units of the body's height left to the titles and readouts above and below
DIMENSION_BAR_WIDTH = 5.0  # exercise 6's d = 512, cut into heads
COMPARISON_LINE_GAP = 0.3  # between the comparison's title, maps, summary and entropy lines
FIRST_HALF, SECOND_HALF = squish_rate_func(smooth, 0.0, 0.5), squish_rate_func(smooth, 0.5, 1.0)  # of a play


class MaskComparison(VGroup):
    """Steps 11-12's stage: the weights without the mask (``free``, under ``free_title``, its ``entropy_free``)
    beside the masked side (``masked_block``: the scaled scores ``masked_scores`` that become the weights ``masked``,
    and the ``nulled`` count per row), the ``nulled_summary`` and ``entropy_masked`` under it; ``fourth`` is the row
    whose entropy step 12 reads beside the first's."""

    def __init__(self, free_title, free: TokenHeatmap, entropy_free, masked_title, masked_block: VGroup,
                 nulled_summary, entropy_masked, fourth: int):
        super().__init__(free_title, free, entropy_free, masked_title, masked_block, nulled_summary, entropy_masked)
        self.free_title, self.free, self.entropy_free = free_title, free, entropy_free
        self.masked_title, (self.masked, self.masked_scores, self.nulled) = masked_title, masked_block
        self.nulled_summary, self.entropy_masked, self.fourth = nulled_summary, entropy_masked, fourth


class PipelineScene(LessonScene):
    section_id = "pipeline"
    STEPS = (*LAB_STEPS, "presets", "article", "temperature", "temperature_plot", "causal", "entropy", "dimensions")

    def lesson(self):
        settings = self.settings
        self.labels = self.strings["labels"]
        self.custom_weights = settings.lab_weights()
        self.run = self.attention(settings.temperature, settings.causal)
        self.answers = question_fields(settings, self.job.config.lecture.lang, self.strings["answer_pieces"])
        # the tokens as the screen writes them; the runs read the sentence itself, as the lab types it
        self.tokens, self.query = tuple(self.shown_words(self.run.tokens)), settings.query
        self.dot_states: dict[str, tuple[str, ...]] = {}  # the panel's dots while each lab step is on screen
        self.show_embeddings()
        self.show_projection("queries", row=1)
        self.show_projection("keys", row=2)
        self.show_scores()
        self.show_scaled()
        self.show_softmax()
        self.show_output()
        self.show_presets()
        self.show_article()
        self.show_temperatures()
        self.show_temperature_plot()
        self.show_causal_comparison()
        self.show_entropy_comparison()
        self.show_dimensions()

    def attention(self, temperature: float, causal: bool, preset: str | None = None) -> LabAttention:
        """The run of ``preset`` (default the configured one, with any custom weights), its roles read in the
        lecture's language."""
        return attention(self.settings, self.job.config.lecture.lang, temperature, causal, preset)

    def shown_word(self, token: str) -> str:
        """A token as Spanish writes it: the lab types «atencion» and «rapido» without their accents (its numbers
        come from the tokens as typed, ``attn_math.lab.spelled``)."""
        return spelled(token)

    # Pacing -------------------------------------------------------------------------------------
    def fill_seconds(self, still_to_play: float = 0.0) -> float:
        """The step's main reveal: at least a lab step, filling the reading time left after ``still_to_play``."""
        return self.reveal_seconds(fill_after=still_to_play, shortest=STEP_SECONDS)

    # The lab's canvas and side panel ------------------------------------------------------------
    def enter_lab_step(self, key: str, caption: str | None = None, new_numbers: int = 0, **fields) -> list:
        """Header and caption (begin_step also cues the step's tone), and the panel's
        animations to play with the step's own."""
        number = LAB_STEPS.index(key) + 1
        self.begin_step(key, caption, new_numbers, **fields)
        animations = self.panel.go_to(number)
        self.dot_states[key] = self.panel.dots.states
        return animations

    def status(self) -> str:
        """The status bar: the query, as the lab writes it, named as the matrices name it (a long word would not fit).
        Not the lab's step ("Paso: 3/7"): the header's counter is the section's one step counter."""
        return self.labels["status"].format(query=abbreviated(self.tokens[self.query]))

    def feature_names(self, d: int) -> list[str]:
        """What each of the embedding's d numbers stands for: the designed features by name; the lab's are
        only numbered (each mixes the word's hash and the position, attn_math.lab), from 0 as the lesson numbers
        the dimensions of its positional encoding."""
        if self.settings.preset == "sharp":
            return self.labels["features_sharp"]
        return [self.labels["feature_lab"].format(number=k) for k in range(d)]

    def selector(self, width: float) -> SentenceSelector:
        """The lab's three sentences by name, the configured one lit; for a sentence of one's own none is, and
        the title says so."""
        names, chosen = list(LAB_SENTENCES), lab_sentence_name(self.settings.sentence)
        title = self.labels["sentence_selector"] if chosen else self.labels["own_sentence"]
        return SentenceSelector(title, self.shown_words(names), names.index(chosen) if chosen else None, width)

    @staticmethod
    def body() -> tuple[float, float, float, float]:
        """style.body_box() with room for a two-line caption."""
        left, right, bottom, top = style.body_box()
        return left, right, bottom + CAPTION_ROOM, top

    def canvas_box(self) -> tuple[float, float, float, float]:
        left, right, bottom, top = self.body()
        return left, right - PANEL_WIDTH - PANEL_GAP, bottom, top

    @staticmethod
    def place(group, box, largest_scale: float = 1.0):
        left, right, bottom, top = box
        fit(group, right - left, top - bottom, largest_scale)
        group.move_to(np.array([(left + right) / 2, (bottom + top) / 2, 0]))
        enlarge_formulas(group)
        return group

    def side_panel(self) -> SidePanel:
        """The panel with every metric of the query's row; the scene shows each value only from the step that
        computes it. The query is named once, in the status bar: a long word would not fit beside a metric's name."""
        _, right, bottom, top = self.body()
        run, labels, q = self.run, self.labels, self.query
        bits = text_with_numbers(labels["bits_value"], {"value": tagged_number(run.entropies[q], "entropy",
                                                                               font_size=style.CAPTION_SIZE)},
                                 font_size=style.CAPTION_SIZE)
        metrics = [(labels["metric_d_k"], tagged_number(run.steps.d_k, "d_k", font_size=style.CAPTION_SIZE, decimals=0)),
                   (labels["metric_entropy"], bits),
                   (labels["metric_max_weight"], tagged_number(run.max_weights[q], "max_weight",
                                                               font_size=style.CAPTION_SIZE))]
        panel = SidePanel(PANEL_WIDTH, top - bottom, metrics, self.status(), self.selector(PANEL_WIDTH - 0.4),
                          len(LAB_STEPS))
        panel.move_to(np.array([right - PANEL_WIDTH / 2, (top + bottom) / 2, 0]))
        self.pending_metrics = {"d_k": panel.metric_values[0], "softmax": VGroup(*panel.metric_values[1:])}
        panel.metrics[1].remove(*panel.metric_values)
        return panel

    def show_metric(self, key: str, *animations, run_time: float):
        """Play ``animations`` while the panel's values computed at this step appear, then file them in the panel."""
        value = self.pending_metrics.pop(key)
        self.play(*animations, Appear(value), run_time=run_time)
        self.remove(value)  # from the scene's top level, before it joins the panel that leaves with it
        self.panel.metrics[1].add(value)

    # Steps 1-3: vectors per token -----------------------------------------------------------------
    def show_embeddings(self):
        steps, strings = self.run.steps, self.strings["steps"]["embeddings"]
        caption = strings[f"{'caption_one' if len(self.tokens) == 1 else 'caption'}_{self.settings.preset}"]
        self.begin_step("embeddings", caption, n=len(self.tokens), d=steps.X.shape[1])
        self.panel = self.side_panel()
        left, right, bottom, top = self.canvas_box()
        self.vectors = VectorStage(self.tokens, [(steps.X, style.INPUT, "X"), (steps.Q, style.QUERY, "Q"),
                                                 (steps.K, style.KEY, "K")],
                                   right - left, top - bottom, query=self.query)
        self.place(self.vectors, self.canvas_box())
        # X alone first, tall enough for the name of each bar: what the embedding's numbers stand for
        meaning = self.meaning_label = self.meaning()
        room = meaning.height + MEANING_GAP if len(meaning) else 0.0
        self.inputs = VectorStage(self.tokens, [(steps.X, style.INPUT, "X")], right - left, top - bottom - room,
                                  query=self.query, features=self.feature_names(steps.X.shape[1]))
        if len(meaning):
            self.inputs.add(meaning.next_to(self.inputs.tokens, UP, buff=MEANING_GAP).match_x(self.inputs.tokens))
        self.place(self.inputs, self.canvas_box())
        inputs = self.inputs.rows[0]
        self.dot_states["embeddings"] = self.panel.dots.states
        self.cue("tokens", lands=True, count=len(self.tokens))  # the sentence laid out as its tokens land
        self.play(Appear(self.panel), Appear(self.inputs.tokens), Appear(inputs.name), Appear(self.inputs.features),
                  Appear(meaning), run_time=0.6)
        self.play(LaggedStart(*[GrowFromEdge(vector, LEFT) for vector in inputs.vectors], lag_ratio=0.5),
                  run_time=self.fill_seconds())

    def meaning(self):
        """What the lab's sentence means, to go above its tokens, when the lecture's language is not the lab's (the
        tokens, and so the numbers, stay the lab's Spanish ones); empty in Spanish or for a sentence of one's own."""
        name = lab_sentence_name(self.settings.sentence)
        text = self.strings["meanings"][name] if name else ""
        return VGroup(label_text(text, style.MUTED, style.BODY_SIZE)) if text else VGroup()

    def show_projection(self, key: str, row: int):
        """Step 2 or 3: the rows above fade, the new row grows out of a copy of X, token by token.

        K repeats Q's animation, so it runs in half Q's time; the panel's d_k appears with Q."""
        animations = self.enter_lab_step(key, new_numbers=1 if key == "queries" else 0)
        if key == "queries":  # X makes room for Q and K: its bars' names (and the sentence's meaning) leave
            self.play(*animations, ReplacementTransform(self.inputs.tokens, self.vectors.tokens),
                      ReplacementTransform(self.inputs.rows[0], self.vectors.rows[0]),
                      Vanish(VGroup(self.inputs.features, self.meaning_label)), run_time=0.8)
            animations = []
        above, projected = self.vectors.rows[:row], self.vectors.rows[row]
        self.play(*animations, *[earlier.animate.set_opacity(0.3) for earlier in above], Appear(projected.name),
                  run_time=0.6)
        reveal = LaggedStart(*[TransformFromCopy(source, target) for source, target
                               in zip(self.vectors.rows[0].vectors, projected.vectors)], lag_ratio=0.5)
        if key == "queries":
            self.show_metric("d_k", reveal, run_time=self.fill_seconds())
        else:
            self.play(reveal, run_time=max(STEP_SECONDS, self.fill_seconds() / 2))

    # Steps 4-6: the n x n matrices ------------------------------------------------------------------
    def matrix_numbers(self) -> int:
        """How many numbers an n x n matrix writes: none in colour-only mode."""
        return len(self.tokens) ** 2 if self.numbers_fit() else 0

    def show_scores(self):
        """QKᵀ, with the colour bar of the scale it shares with the scaled scores that replace it at step 5."""
        animations = self.enter_lab_step("scores", new_numbers=self.matrix_numbers())
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
        self.play(*animations, Vanish(self.vectors), run_time=0.6)
        self.play(Appear(VGroup(matrix.brackets, matrix.label, self.scores.row_labels, self.scores.column_labels,
                                self.score_legend)), run_time=0.5)
        self.reveal_rows(matrix, self.fill_seconds(0.5), self.values_cues(self.run.steps.scores))
        self.play(Create(self.query_frame), run_time=0.5)

    def values_cues(self, scores) -> list[tuple[str, dict]]:
        """Each row of ``scores`` read out as blips, pitch as value on the colour scale that the scores and the
        scaled scores share: a scaled row sounds as much narrower as its colours are paler."""
        return [("values", dict(values=row.tolist(), spacing=BLIP_SPACING, low=-self.score_scale,
                                high=self.score_scale)) for row in np.asarray(scores)]

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
        for k, (row, (kind, values)) in enumerate(zip(rows, cues)):
            run_time = fade if k == 0 else (seconds - fade) / (len(rows) - 1)
            self.cue(kind, lands=True, **values, **({"replayed": True} if k == self.query else {}))  # the key row
            self.play(Appear(row, rate_func=squish_rate_func(smooth, 1 - fade / run_time, 1.0)), run_time=run_time)

    def matrix_rows(self, matrix) -> list:
        """Each row's cells and numbers, to reveal one row after another; a colour-only grid is one piece."""
        if not self.numbers_fit():
            return [matrix.cell_grid]
        return [VGroup(*matrix.cells[i], *matrix.entries[i]) for i in range(len(self.tokens))]

    def score_heatmaps(self) -> tuple[TokenHeatmap, TokenHeatmap, TokenHeatmap]:
        """QK^T, its scaled and masked version, and the softmax weights: one layout, so each replaces the last.

        The scores before and after scaling share one colour scale (``score_scale``): dividing by √d_k · T
        shows as paler cells, and equal values have equal colours. The scale ends at a round value at or above
        every score shown, and its bar is ticked at its ends: no cell is more saturated than the bar says."""
        steps = self.run.steps
        self.score_scale = covering_value(style.shared_largest(steps.scores, steps.scaled))
        temperature = format_number(self.settings.temperature)
        scaled_label = rf"QK^\top / (\sqrt{{{steps.d_k}}}\, T),\ T = {temperature}"
        left, right, bottom, top = self.canvas_box()
        cell = self.cell_size(HEATMAP_SHARE * (right - left), top - bottom)
        width = self.cell_width(steps.scores, steps.scaled)
        scores = self.matrix(steps.scores, r"QK^\top", style.TEXT, "scores", cell, width,
                             fill=self.score_fill)
        scaled = self.matrix(steps.scaled, scaled_label, style.TEXT, "scaled", cell, width, fill=self.score_fill,
                             mask=steps.mask)
        # the weights' own, narrower cells: the heatmap must stay legible when it shrinks at step 6
        weights = self.weights_matrix(steps.weights, "weights", cell, self.cell_width(steps.weights), steps.mask)
        # the mask acts when scaling: raw scores are not blocked yet
        # labels a size up: this heatmap shrinks to share the canvas with the query's lines at step 6
        return tuple(TokenHeatmap(matrix, self.tokens, self.query, style.BODY_SIZE) for matrix in (scores, scaled, weights))

    def score_fill(self, value: float):
        """A score's colour on the scale shared by every score matrix of the section (``score_scale``)."""
        return style.score_colour(value, self.score_scale)

    def matrix(self, values, label: str, colour, name: str, cell: float, width: float | None, fill, mask=None,
               text_colour=None, numbers: bool = True):
        """Numbers in their cells while they fit (NUMBERS_MAX_TOKENS) and are wanted, else colour only, as in the lab."""
        return sentence_matrix(values, label, colour, name, fill, numbers=numbers and self.numbers_fit(), mask=mask,
                               cell_width=width, cell_size=cell, text_colour=text_colour)

    def weights_matrix(self, weights, name: str, cell: float, width: float | None, mask=None, numbers: bool = True):
        return self.matrix(weights, r"A = \text{softmax}(\cdot)", style.ATTENTION, name, cell, width,
                           fill=style.weight_colour, mask=mask, numbers=numbers,
                           text_colour=lambda weight: style.BACKGROUND if weight > 0.55 else style.TEXT)

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
        label_room = 1.4
        return min(CELL_HEIGHT, (width - label_room) / len(self.tokens), (height - label_room) / len(self.tokens))

    def replace_matrix(self, old, new, cues: list[tuple[str, dict]], after: float = 0.0, with_rows=(), with_frame=(),
                       beside=()):
        """``old`` becomes ``new``: the old rows and formula fade out (with ``with_rows``: what else says which
        matrix is shown), then the new formula, then the new rows one after another (``reveal_rows``, each with its
        ``beside[i]``) over the step's reading time left but ``after`` seconds: each row is read as it comes, no frame
        walks down rows already read, and the name above never disagrees with the numbers under it. ``cues[i]`` (kind,
        values) sounds as row i lands. A colour-only grid changes in one piece, then a frame runs down its
        rows once, each briefly (``run_down_rows``): it has no numbers to read row by row.

        The frame (brackets, and ``with_frame``: the token names and frames around the grid) moves before the
        old rows leave when the new matrix is the wider and after them when it is the narrower, so that the rows lie
        inside the brackets on screen and never run over the token names."""
        if not self.numbers_fit():
            kind, values = cues[self.query]
            self.cue(kind, lands=True, **values)
            self.play(*with_rows, *with_frame, ReplacementTransform(old, new), run_time=ROWS_SECONDS)
            self.run_down_rows(new, self.fill_seconds(after))
            return
        frame = [ReplacementTransform(old.brackets, new.brackets), *with_frame]
        first = new.brackets.width > old.brackets.width + 1e-6
        last = new.brackets.width < old.brackets.width - 1e-6
        if first:
            self.play(*frame, run_time=FRAME_SECONDS)
        self.play(*with_rows, Vanish(old.label, *self.matrix_rows(old)), *([] if first or last else frame),
                  run_time=FRAME_SECONDS)
        if last:
            self.play(*frame, run_time=FRAME_SECONDS)
        self.play(Appear(new.label), run_time=FRAME_SECONDS)
        self.reveal_rows(new, self.fill_seconds(after), cues, beside)

    def run_down_rows(self, matrix, seconds: float):
        """A frame down the matrix's rows, one after another over ``seconds``, then gone."""
        frame = matrix.row_box(0).set_color(style.MUTED)
        each = seconds / (len(self.tokens) + 1)
        self.play(Create(frame), run_time=each)
        for i in range(1, len(self.tokens)):
            self.play(Transform(frame, matrix.row_box(i).set_color(style.MUTED)), run_time=each)
        self.play(Vanish(frame), run_time=min(each, 0.6))

    def show_scaled(self):
        steps = self.run.steps
        caption, fields = scaled_step(self.settings, steps.d_k, steps.divisor)
        animations = self.enter_lab_step("scaled", self.strings["steps"]["scaled"][caption],
                                         new_numbers=self.matrix_numbers(), **fields)
        self.replace_matrix(self.scores.matrix, self.scaled.matrix, with_rows=animations,
                            cues=self.values_cues(steps.scaled))  # row after row, each divided by the same number
        self.add(self.query_frame)  # back on top of the matrix that just replaced the old one

    def show_softmax(self):
        caption, fields = self.softmax_caption()
        animations = self.enter_lab_step("softmax", caption, new_numbers=self.matrix_numbers() + 2 + (
            len(self.tokens) if self.numbers_fit() else 0), **fields)
        # each row becomes its probabilities, row after row; then the query's lines and bars take their time
        weights = self.weights
        frame = weights.matrix.row_box(self.query)
        self.replace_matrix(self.scaled.matrix, weights.matrix, after=MOVE_SECONDS + LINE_SECONDS * len(self.tokens),
                            with_rows=[*animations, Vanish(self.score_legend)],  # the weights' are on another scale
                            cues=[("row", dict(weights=row.tolist())) for row in np.asarray(self.run.steps.weights)],
                            with_frame=[ReplacementTransform(VGroup(self.scores.row_labels, self.scores.column_labels,
                                                                    self.query_frame),
                                                             VGroup(weights.row_labels, weights.column_labels, frame))])
        self.query_frame = frame
        self.add(self.query_frame)  # back on top of the matrix that just replaced the old one
        heatmap = VGroup(weights.matrix, weights.row_labels, weights.column_labels, self.query_frame)
        left, right, bottom, top = self.canvas_box()
        split = left + self.heatmap_share(heatmap) * (right - left)
        heatmap.generate_target()
        self.place(heatmap.target, (left, split - 0.2, bottom, top))  # its label grown back to a legible size
        self.play(MoveToTarget(heatmap), run_time=MOVE_SECONDS / 2)
        self.fan = self.query_fan((split + 0.2, right, bottom, top))
        self.show_metric("softmax", Appear(self.fan.chart), Appear(self.fan.query_label), run_time=MOVE_SECONDS / 2)
        with self.listening():  # each line's note as it reaches its token: the weights heard as they land
            self.draw_lines(self.fan.lines, self.settings.temperature, LINE_SECONDS * len(self.fan.lines))
        self.beat("lines")
        self.softmax_heatmap = heatmap

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
        """Of the canvas width, for the weights heatmap beside the query's lines: HEATMAP_SHARE, or up to
        MOST_HEATMAP_SHARE as its smallest text (a number or a token) needs to stay at 14 px."""
        weights = self.weights
        texts = [*(entry for row in weights.matrix.entries for entry in row), *weights.row_labels,
                 *weights.column_labels]
        smallest = min((cap_height(text) for text in texts), default=0.0)
        if not smallest:
            return HEATMAP_SHARE
        left, right, _, _ = self.canvas_box()
        needed = heatmap.width * FORMULA_MARGIN * style.SMALLEST_CAP_HEIGHT / smallest + 0.2  # 0.2: the gap
        return min(MOST_HEATMAP_SHARE, max(HEATMAP_SHARE, needed / (right - left)))

    def query_fan(self, box) -> VGroup:
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
            first = chart.line_starts()[0]  # the first token's line: the query sits up and left of it
            query_label.move_to(first + LEFT * FAN_LINES_WIDTH + UP * (FAN_RISE + query_label.height / 2))
            lines = WeightedLines([query_label.get_bottom() + DOWN * 0.1] * len(row), chart.line_starts(), row)
            fan = VGroup(query_label, lines, chart)
            scale = min(1.0, (right - left) / fan.width, (top - bottom) / fan.height)
            if chart.font_size * scale >= MIN_FONT_SIZE:
                break
        fan.chart, fan.query_label, fan.lines = chart, query_label, lines
        return self.place(fan, box)

    def draw_lines(self, lines: WeightedLines, temperature: float, seconds: float):
        """One line after another, each with its note: pitch and loudness follow its weight. A pulse runs along
        each line as it is drawn, so the query is seen visiting every token, also where the weight (the line's
        thickness and opacity) is about 0."""
        pulses = [ShowPassingFlash(line.copy().set_stroke(style.MUTED, width=2, opacity=0.9), time_width=0.4)
                  for line in lines]
        self.play_with_notes([AnimationGroup(Create(line), pulse) for line, pulse in zip(lines, pulses)],
                             lines.weights, temperature, spacing=seconds / max(1, len(lines)))

    def play_with_notes(self, animations: list, weights, temperature: float, spacing: float):
        """The animations one after another in one play, each ending with a "connection" cue (a note sounds as its
        line has been drawn, not before).

        One play rather than one per note keeps long sentences quick to render; the cues carry
        the times the notes start at, ``spacing`` apart (never less than NOTE_SPACING, so each is heard).
        """
        if not animations:
            return
        spacing = max(NOTE_SPACING, spacing)
        start, peak = self.renderer.time, float(max(weights))
        for k, weight in enumerate(weights):
            self.cues.append(Cue(start + (k + 1) * spacing, "connection",
                                 {"weight": float(weight), "temperature": float(temperature), "peak": peak, "key": k}))
        self.play(LaggedStart(*animations, lag_ratio=1.0), run_time=spacing * len(animations))

    # Step 7: the weighted sum -----------------------------------------------------------------------
    def output_caption(self) -> tuple[str, dict]:
        """What the output step can truthfully say: where the query's output comes from, or that the
        outputs are almost identical when the weights are almost uniform (lesson.pipeline_answers.outputs_alike)."""
        strings, run, q = self.strings["steps"]["output"], self.run, self.query
        source = int(run.weights[q].argmax())
        fields = dict(query=self.tokens[q], source=self.tokens[source], share=format_number(run.weights[q, source]),
                      n=len(self.tokens))
        return strings["caption_alike" if outputs_alike(run) else "caption"], fields

    def show_output(self):
        steps, q = self.run.steps, self.query
        caption, fields = self.output_caption()
        animations = self.enter_lab_step("output", caption, **fields)
        left, right, bottom, top = self.canvas_box()
        stage = VectorStage(self.tokens, [(steps.V, style.VALUE, "V"), (steps.output, style.OUTPUT, "Z")],
                            right - left, top - bottom, query=q, gaps=[0.3, 1.4])
        self.place(stage, self.canvas_box())
        values, outputs = stage.rows
        lines = WeightedLines([vector.get_bottom() for vector in values.vectors],
                              [outputs.vectors[q].get_top()] * len(self.tokens), self.run.weights[q])
        self.play(*animations, Vanish(VGroup(self.softmax_heatmap, self.fan)), run_time=0.6)
        self.play(Appear(stage.tokens), Appear(values), run_time=0.8)
        reveal = self.fill_seconds(0.6)
        self.draw_lines(lines, self.settings.temperature, reveal / 2)
        self.play(Appear(outputs.name), GrowFromEdge(outputs.vectors[q], UP), run_time=0.6)
        others = [GrowFromEdge(vector, UP) for j, vector in enumerate(outputs.vectors) if j != q]
        self.play(*([LaggedStart(*others, lag_ratio=0.5)] if others else []), lines.animate.set_opacity(0.25),
                  run_time=max(STEP_SECONDS, reveal / 2))
        self.output_stage = VGroup(stage, lines)

    # Step 8: the lab's weights against the designed ones ------------------------------------------------
    def show_presets(self):
        """Both presets' weights side by side, the query's row framed, its entropy against the uniform's; without
        the mask, as the guide's exercise 1 that follows asks (the mask has its own step)."""
        q, labels, temperature = self.query, self.labels, self.settings.temperature
        runs = {preset: self.attention(temperature, False, preset) for preset in ("lab", "sharp")}
        most = math.log2(int(np.count_nonzero(~runs["lab"].steps.mask[q])))
        sharp = runs["sharp"].weights[q]
        caption = presets_caption(self.settings, runs["lab"].entropies[q], most)
        self.begin_step("presets", self.strings["steps"]["presets"][caption], new_numbers=4, query=self.tokens[q],
                        lab_bits=format_number(runs["lab"].entropies[q]), most_bits=format_number(most),
                        sharp_max=format_number(sharp.max()), sharp_source=self.tokens[int(sharp.argmax())])
        left, right, bottom, top = self.body()
        cell, width = self.cell_size((right - left) / 2 - 0.8, top - bottom - 1.2), None  # colours: flat or not
        sides, self.preset_maps = VGroup(), {}
        for preset, run in runs.items():
            heatmap = TokenHeatmap(self.weights_matrix(run.weights, f"weights_{preset}", cell, width, run.steps.mask,
                                                       numbers=False), self.tokens, q)
            readout = text_with_numbers(labels["row_readout"], {
                "entropy": tagged_number(run.entropies[q], f"entropy_{preset}", font_size=style.CAPTION_SIZE),
                "largest": tagged_number(run.max_weights[q], f"max_{preset}", font_size=style.CAPTION_SIZE)},
                font_size=style.CAPTION_SIZE, query=self.tokens[q])
            title = label_text(labels[f"title_{weights_kind(self.settings, preset)}"], style.TEXT, style.BODY_SIZE)
            self.preset_maps[preset] = heatmap
            sides.add(VGroup(title, heatmap, readout).arrange(DOWN, buff=0.3))
        sides.arrange(RIGHT, buff=0.9, aligned_edge=UP)
        self.place(sides, self.body())
        frames = VGroup(*[side[1].matrix.row_box(q) for side in sides])
        self.cue("reset")
        self.play(Vanish(VGroup(self.output_stage, self.panel)), run_time=0.8)
        each = max(LANDING_SECONDS + FRAMING_SECONDS + 1.0, self.fill_seconds() / 2)
        for (preset, run), side, frame in zip(runs.items(), sides, frames):  # a side after the other, each whole
            self.land_with_chord(run.weights[q], preset, [Appear(side[0]), Appear(side[1])], LANDING_SECONDS)
            # the query's row framed slowly, leading the eye along it, then what it says: its entropy and largest
            self.play(Create(frame), run_time=each - LANDING_SECONDS - 1.0)
            self.play(Appear(side[2]), run_time=1.0)
        self.presets_stage = VGroup(sides, frames)
        self.preset_runs = runs

    # The guide's exercise 1 on both presets ---------------------------------------------------------------
    def show_article(self):
        """Does the article attend to the noun after it? The caption gives each side's verdict as the numbers do
        (lesson.pipeline_answers.article_caption). Each map frames the article's row and rings its noun's cell."""
        pair = article_and_noun(self.settings.sentence, self.job.config.lecture.lang)
        sides, frames = self.presets_stage
        if pair is None:
            self.begin_step("article", self.strings["steps"]["article"]["caption_none"])
            self.play(Vanish(frames), run_time=self.fill_seconds())
            self.presets_stage = VGroup(sides)
            return
        article, noun = pair
        runs = self.preset_runs
        weight = {preset: run.weights[article, noun] for preset, run in runs.items()}
        exercise = self.answers["softmax"]
        self.begin_step("article", self.strings["steps"]["article"][article_caption(self.settings, exercise)],
                        new_numbers=4, article=self.tokens[article], noun=self.tokens[noun], **exercise,
                        lab_weight=format_number(weight["lab"]), lab_max=format_number(runs["lab"].max_weights[article]),
                        sharp_weight=format_number(weight["sharp"]))
        readouts = VGroup(*[self.article_readout(preset, run, article, noun).move_to(side[2])
                            for (preset, run), side in zip(runs.items(), sides)])
        rings = VGroup(*[side[1].matrix.heatmap.box([article], [noun], style.ATTENTION, stroke_width=5)
                         for side in sides])
        new_frames = VGroup(*[side[1].matrix.row_box(article) for side in sides])
        self.play(Transform(frames, new_frames), *[Vanish(side[2]) for side in sides], run_time=0.8)
        self.presets_stage = VGroup(sides, frames, rings, readouts)
        each = max(CHORD_SECONDS, self.fill_seconds(0.0) / 2)
        for (preset, run), readout, ring in zip(runs.items(), readouts, rings):  # lab first, then designed
            self.land_with_chord(run.weights[article], preset, [Create(ring), Appear(readout)], each)

    def land_with_chord(self, weights, preset: str, animations: list, seconds: float):
        """One side of the two presets compared: ``animations`` (its map, or its ring and readout) played in at most
        LANDING_SECONDS, its row's chord sounding as they land, then held for the rest of ``seconds``; the other
        side's chord (at least CHORD_SECONDS later) never overlaps it."""
        shown = min(LANDING_SECONDS, seconds)
        self.cue("row", lands=True, weights=np.asarray(weights).tolist(), version=preset)
        self.play(*animations, run_time=shown)
        if seconds > shown:
            self.wait(seconds - shown)

    def article_readout(self, preset: str, run: LabAttention, article: int, noun: int) -> VGroup:
        """«el» → «gato»: 0.15 · máx. = 0.16, as small as the readout it replaces."""
        font = style.CAPTION_SIZE
        return text_with_numbers(self.labels["article_readout"], {
            "weight": tagged_number(run.weights[article, noun], f"article_{preset}", (0, 0), font_size=font),
            "largest": tagged_number(run.max_weights[article], f"article_{preset}", (0, 1), font_size=font)},
            font_size=font, article=abbreviated(self.tokens[article]), noun=abbreviated(self.tokens[noun]))

    # The guide's step 8: temperature ----------------------------------------------------------------
    def show_temperatures(self):
        """The query's row at each temperature, a row of bars each; its maximum lands on the plot beside. The caption
        says what the rows show (lesson.pipeline_answers.temperature_caption)."""
        temperatures, q = self.settings.temperatures, self.query
        runs = [self.attention(t, self.settings.causal) for t in temperatures]
        coldest, hottest = int(np.argmin(temperatures)), int(np.argmax(temperatures))
        strings = self.strings["steps"]["temperature"]
        self.begin_step("temperature", strings[temperature_caption(self.settings, runs[coldest].max_weights[q])],
                        new_numbers=3 * len(temperatures), query=self.tokens[q],
                        weights=self.answers["temperature"]["weights"],
                        temperatures=", ".join(format_number(t) for t in temperatures),
                        coldest=format_number(temperatures[coldest]),
                        coldest_max=format_number(runs[coldest].max_weights[q]),
                        hottest=format_number(temperatures[hottest]),
                        hottest_max=format_number(runs[hottest].max_weights[q]))
        left, right, bottom, top = self.body()
        split = left + 0.58 * (right - left)
        self.temperature_box = (left, split - 0.2, bottom, top)
        exercise = [self.attention(t, self.settings.causal) for t in EXERCISE_TEMPERATURES]  # their rows follow
        self.temperature_largest = rounded_up(max(run.weights[q].max() for run in (*runs, *exercise)))
        rows = self.temperature_rows_of(temperatures, runs, "temperature")
        self.plot = self.max_weight_plot((split + 0.2, right, bottom, top))
        marks = self.marks(temperatures, [run.max_weights[q] for run in runs])
        self.play(Vanish(self.presets_stage), run_time=0.6)
        self.play(Appear(self.plot.frame), Appear(rows[-1].chart.labels), run_time=0.6)
        with self.listening():  # each row's notes, bright when cold and dull when hot: the temperature heard
            each = self.fill_seconds() / len(rows)
            for row, mark, temperature in zip(rows, marks, temperatures):
                self.play(Appear(VGroup(row.title, row.chart.baseline)), run_time=0.4)
                self.grow_bars(row.chart, temperature, max(0.6, each - 1.0))
                self.play(Appear(row.readout), FadeIn(mark, scale=2), run_time=0.6)
        self.beat("heard")
        self.temperature_rows, self.temperature_marks = rows, marks

    def temperature_rows_of(self, temperatures, runs: list[LabAttention], name: str) -> VGroup:
        """A ``temperature_row`` per temperature, stacked in the left part of the body (``temperature_box``), every
        row's bars on one scale (``temperature_largest``); their numbers tagged ``name``, ``name``_entropy and
        ``name``_max."""
        left, right, _, _ = box = self.temperature_box
        height = max(SHORTEST_TEMPERATURE_BARS, TEMPERATURE_BARS * min(1.0, 3 / len(runs)))  # many rows: lower
        rows = VGroup(*[self.temperature_row(k, t, run, self.temperature_largest, right + 0.2 - left, height,
                                             labelled=k == len(runs) - 1, name=name)
                        for k, (t, run) in enumerate(zip(temperatures, runs))])
        rows.arrange(DOWN, buff=0.35, aligned_edge=LEFT)
        return self.place(rows, box)

    def temperature_row(self, k: int, temperature: float, run: LabAttention, largest: float, width: float,
                        height: float, labelled: bool, name: str) -> VGroup:
        """'T = 0.2' | the query's row of weights as bars (tokens under the last row only) | its entropy and maximum."""
        labels, q, small = self.labels, self.query, style.CAPTION_SIZE
        title = text_with_numbers(labels["temperature_value"],
                                  {"value": tagged_number(temperature, name, (0, k))})
        entropy = tagged_number(run.entropies[q], f"{name}_entropy", (0, k), font_size=small)
        largest_weight = tagged_number(run.max_weights[q], f"{name}_max", (0, k), font_size=small)
        readout = VGroup(text_with_numbers(labels["entropy_value"], {"value": entropy}, font_size=small),
                         text_with_numbers(labels["max_weight_value"], {"value": largest_weight}, font_size=small),
                         ).arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        names = [abbreviated(token) for token in self.tokens]  # as the maps name them: turned, a long word runs long
        chart = token_bar_chart(run.weights[q], names, width - title.width - readout.width - 1.0, height,
                                query=q, show_values=False, max_value=largest, name=f"{name}_bars_{k}")
        if not labelled:  # the columns are the same tokens in every row: named once, under the last
            chart.remove(chart.labels)
            chart.labels = VGroup()
        bars = VGroup(chart.bars, chart.baseline)  # not the token names under the last row: every row alike
        title.next_to(bars, LEFT, buff=0.4)
        readout.next_to(bars, RIGHT, buff=0.4)
        row = VGroup(title, chart, readout)
        row.title, row.chart, row.readout = title, chart, readout
        return row

    def grow_bars(self, chart, temperature: float, seconds: float):
        """Each bar grows with its note, so low and high temperatures sound as different as they look."""
        self.play_with_notes([GrowFromEdge(bar, DOWN) for bar in chart.bars], chart.values, temperature,
                             spacing=seconds / len(chart.bars))

    def max_weight_plot(self, box) -> CurvePlot:
        """The query's maximum weight against T over the lab's slider, sampled at CURVE_SAMPLES temperatures."""
        q = self.query
        temperatures = np.linspace(MIN_TEMPERATURE, MAX_TEMPERATURE, CURVE_SAMPLES)
        maxima = np.array([self.attention(float(t), self.settings.causal).max_weights[q] for t in temperatures])
        self.max_weight_curve = (temperatures, maxima)
        top_value = rounded_up(maxima.max())
        plot = CurvePlot(temperatures, maxima, x_ticks=list(range(int(MAX_TEMPERATURE) + 1)),
                         y_ticks=[0.0, top_value / 2, top_value], width=4.4, height=3.6,
                         x_name=self.labels["axis_temperature"],
                         y_name=self.labels["axis_max_weight"].format(query=abbreviated(self.tokens[q])))
        left, right, bottom, top = self.plot_box = box
        fit(plot, right - left - 1.2, top - bottom - 0.6)  # room for a readout below, and a margin
        return plot.move_to(np.array([(left + right) / 2, (bottom + top) / 2, 0]))

    def show_temperature_plot(self):
        """Exercise 2: the rows at the guide's T = 0.5, 1, 3 in place of the configured ones, the whole curve, the
        uniform floor, and the three read off it; "it falls" only when the three differ as written (else ``_fixed``)."""
        q, plot = self.query, self.plot
        runs = [self.attention(t, self.settings.causal) for t in EXERCISE_TEMPERATURES]
        values = [run.max_weights[q] for run in runs]
        caption = "caption_fixed" if self.answers["temperature_plot"]["answer_variant"] == "fixed" else "caption"
        self.begin_step("temperature_plot", self.strings["steps"]["temperature_plot"][caption],
                        new_numbers=4 * len(values), query=self.tokens[q],
                        **{f"max_{k}": format_number(value) for k, value in enumerate(values)})
        self.exercise_rows(runs, values)
        visible = int(np.count_nonzero(~self.run.steps.mask[q]))
        uniform = DashedLine(plot.point(0, 1 / visible), plot.point(MAX_TEMPERATURE, 1 / visible),
                             color=style.MUTED, stroke_width=2)
        uniform_label = label_text(self.labels["uniform"], style.MUTED, style.CAPTION_SIZE)
        # at its line's end, inside the plot: under it, where the curve (a row's largest weight, at least 1/visible)
        # never goes, when the room down to the axis takes it (the plot's edge is the body's: right of it, the frame's)
        below = uniform.get_y() - plot.point(0, 0)[1] > uniform_label.height + 0.2
        uniform_label.next_to(uniform, DOWN if below else UP, buff=0.1).align_to(uniform, RIGHT)
        rings = VGroup(*[Circle(radius=0.11, color=style.ATTENTION, stroke_width=3).move_to(plot.point(t, value))
                         for t, value in zip(EXERCISE_TEMPERATURES, values)])
        readout = VGroup(*[text_with_numbers(f"T = {format_number(t, 1)}: {{value}}", {
            "value": tagged_number(value, "exercise_max", (0, k), style.ATTENTION, style.CAPTION_SIZE)},
            style.ATTENTION, style.CAPTION_SIZE) for k, (t, value) in enumerate(zip(EXERCISE_TEMPERATURES, values))])
        left, right, _, _ = self.plot_box
        fit(readout.arrange(RIGHT, buff=0.45), right - left, 1.0).next_to(plot, DOWN, buff=0.25)
        readout.set_x((left + right) / 2)
        with self.listening():  # the curve heard as drawn, in the clear: under the voice it would sound again whole
            reveal = max(CURVE_SECONDS, self.fill_seconds(0.6))
            self.cue("curve", values=self.max_weight_curve[1].tolist(), duration=reveal)
            # each temperature ringed and read off as the curve, drawn at an even pace along T, reaches it
            reached = [(t - MIN_TEMPERATURE) / (MAX_TEMPERATURE - MIN_TEMPERATURE) for t in EXERCISE_TEMPERATURES]
            landing = [squish_rate_func(smooth, at, min(1.0, at + READ_OFF_SECONDS / reveal)) for at in reached]
            self.play(Create(plot.curve, rate_func=linear),
                      *[FadeIn(ring, scale=2, rate_func=rate) for ring, rate in zip(rings, landing)],
                      *[Appear(part, rate_func=rate) for part, rate in zip(readout, landing)], run_time=reveal)
        self.beat("uniform")
        self.play(Create(uniform), Appear(uniform_label), run_time=0.6)
        self.plot_stage = VGroup(plot, self.temperature_marks, uniform, uniform_label, rings, readout)

    def exercise_rows(self, runs: list[LabAttention], values: list[float]):
        """The configured temperatures' rows become the guide's exercise 2 ones, row into row (a row more or less
        fades), so that the rows beside the curve are the temperatures it marks; their maxima's marks on the plot
        move with them to ``values``, each row's own."""
        old, new = self.temperature_rows, self.temperature_rows_of(EXERCISE_TEMPERATURES, runs, "exercise_row")
        marks = self.marks(EXERCISE_TEMPERATURES, values)
        pairs = min(len(old), len(new))
        self.play(*[ReplacementTransform(before, after) for before, after in zip(old[:pairs], new[:pairs])],
                  *[ReplacementTransform(before, after) for before, after in zip(self.temperature_marks, marks)],
                  *[Vanish(part) for part in (*old[pairs:], *self.temperature_marks[pairs:])],
                  *[Appear(part) for part in (*new[pairs:], *marks[pairs:])], run_time=1.2)
        self.temperature_rows, self.temperature_marks = new, marks

    def marks(self, temperatures, maxima) -> VGroup:
        """A dot on the max-weight plot at each (temperature, maximum)."""
        return VGroup(*[Dot(self.plot.point(t, value), radius=0.08, color=style.HIGHLIGHT)
                        for t, value in zip(temperatures, maxima)])

    # Beyond the lab: the causal mask and entropy -------------------------------------------------------
    def show_causal_comparison(self):
        """Without the mask | with it: first the scaled scores with −∞ in the future, then their softmax, 0 there."""
        free, masked = self.attention(self.settings.temperature, False), self.attention(self.settings.temperature, True)
        nulled = masked.steps.mask.sum(axis=1)
        n, softmax = len(self.tokens), next((record for record in self.steps if record.key == "softmax"), None)
        shown_before = not self.settings.causal and softmax is not None  # the unmasked weights are step 6's
        self.begin_step("causal", new_numbers=(1 if shown_before else 2) * self.matrix_numbers()
                        + (n if self.numbers_fit() else 0) + 2, first=int(nulled[0]), last=int(nulled[-1]))
        if shown_before:  # read then: not new numbers to read again
            self.count_as_read({"weights_free": softmax.numbers.get("weights", [])})
        self.comparison = self.comparison_layout(free, masked, nulled)
        parts = self.comparison
        self.play(Vanish(VGroup(self.temperature_rows, self.plot_stage)), run_time=0.6)
        reveal = self.fill_seconds(2.0)
        scores = parts.masked_scores
        fade = min(reveal / 3, FADE_SECONDS)
        self.play(Appear(parts.free_title), Appear(parts.free), Appear(scores.row_labels), run_time=fade)
        self.play(Appear(parts.masked_title), Appear(VGroup(scores.matrix, scores.column_labels)), run_time=fade)
        self.causal_scores = scores.matrix  # on screen until the softmax replaces it
        names = VGroup(parts.masked.row_labels, parts.masked.column_labels)
        self.beat("zeros")  # each row's weights with the count of those the mask nulled beside it, row after row
        counts = [*parts.nulled[0]] if len(parts.nulled) else []
        if counts:
            counts[0] = VGroup(parts.nulled[1], counts[0])  # the column's name with its first number
        self.replace_matrix(scores.matrix, parts.masked.matrix, after=SUMMARY_SECONDS, beside=counts,
                            with_frame=[ReplacementTransform(VGroup(scores.row_labels, scores.column_labels), names)],
                            cues=[("masked", dict(before=before.tolist(), after=after.tolist()))
                                  for before, after in zip(free.weights, masked.weights)])
        self.beat("counts")  # the first and the last count, as the voice reads them
        self.play(Appear(parts.nulled_summary), run_time=SUMMARY_SECONDS)

    def comparison_layout(self, free: LabAttention, masked: LabAttention, nulled: np.ndarray) -> "MaskComparison":
        """Without and with the mask side by side, each with its numbers while they fit; the unmasked side in
        colours only when its numbers would shrink the two under 14 px (long words, wide numbers)."""
        stage = self.comparison_of(free, masked, nulled, free_numbers=self.numbers_fit())
        texts = [*stage.free.column_labels, *(entry for heatmap in (stage.free, stage.masked)
                                              for row in heatmap.matrix.entries for entry in row)]
        if texts and min(cap_height(text) for text in texts) < style.SMALLEST_CAP_HEIGHT:
            return self.comparison_of(free, masked, nulled, free_numbers=False)
        return stage

    def comparison_of(self, free: LabAttention, masked: LabAttention, nulled: np.ndarray,
                      free_numbers: bool) -> "MaskComparison":
        """Without and with the mask side by side, row beside row: the tokens between the two name the rows of
        both; the nulled count per row; entropy readouts kept for later. ``free_numbers``: the unmasked weights
        with their numbers and column names, else in colours only.

        The masked side is built twice on one grid: the scaled scores (−∞ where masked), then the weights."""
        labels, n = self.labels, len(self.tokens)
        left, right, bottom, top = self.body()
        cell = self.cell_size((right - left) / 2 - COMPARISON_SIDE_MARGIN, top - bottom - COMPARISON_TEXT_ROOM)
        scaled_label = rf"QK^\top / (\sqrt{{{masked.steps.d_k}}}\, T) + \text{{{labels['mask']}}}"
        width = self.cell_width(masked.weights)
        masked_map = TokenHeatmap(self.weights_matrix(masked.weights, "weights_causal", cell, width,
                                                      masked.steps.mask), self.tokens)
        row_height = cell_size_of(masked_map.matrix)[1]
        free_map = TokenHeatmap(self.weights_matrix(free.weights, "weights_free", row_height, width,
                                                    numbers=free_numbers), self.tokens)
        free_map.remove(free_map.row_labels)  # the masked map's row names, between the two, name its rows too
        free_map.row_labels = VGroup()
        if not free_numbers:  # colours only: the masked map's columns name its columns too
            free_map.remove(free_map.column_labels)
            free_map.column_labels = VGroup()
        scores_map = TokenHeatmap(self.matrix(masked.steps.scaled, scaled_label, style.TEXT, "scaled_causal", cell,
                                              self.cell_width(masked.steps.scaled), fill=self.score_fill,
                                              mask=masked.steps.mask), self.tokens)  # step 5's colours
        grid = masked_map.matrix.cell_grid  # the scores row on row with the weights that replace them, one left edge
        scores_map.shift(grid.get_corner(UP + LEFT) - scores_map.matrix.cell_grid.get_corner(UP + LEFT))
        column = VGroup()
        if masked_map.labelled and self.numbers_fit():
            column = self.nulled_column(masked_map, nulled)
        summary = text_with_numbers(labels["nulled_summary"], {
            "first": tagged_number(nulled[0], "nulled_first_last", (0, 0), font_size=style.CAPTION_SIZE, decimals=0),
            "last": tagged_number(nulled[-1], "nulled_first_last", (0, 1), font_size=style.CAPTION_SIZE, decimals=0)},
            font_size=style.CAPTION_SIZE)
        fourth = min(3, n - 1)
        entropy_free, entropy_masked = (self.entropy_pair(run, fourth, name) for run, name in
                                        ((free, "entropy_free"), (masked, "entropy_causal")))
        free_title, masked_title = (label_text(labels[key], style.TEXT, style.BODY_SIZE)
                                    for key in ("without_mask", "with_mask"))
        masked_block = VGroup(masked_map, scores_map, column)
        free_grid = free_map.matrix.cell_grid
        free_map.shift(grid.get_top() - free_grid.get_top())  # row i level with row i
        free_map.shift(RIGHT * (masked_block.get_left()[0] - COMPARISON_GAP - free_map.get_right()[0]))
        VGroup(free_map.matrix.label, masked_map.matrix.label).set_y(max(free_map.matrix.label.get_y(),
                                                                         masked_map.matrix.label.get_y()))
        masked_title.next_to(masked_block, UP, buff=COMPARISON_LINE_GAP).match_x(grid)
        sit_on(free_title.match_x(free_grid), baseline(masked_title))
        summary.next_to(masked_block, DOWN, buff=COMPARISON_LINE_GAP).match_x(grid)
        entropy_masked.next_to(summary, DOWN, buff=COMPARISON_LINE_GAP).match_x(grid)
        entropy_free.match_x(free_grid)
        sit_on(entropy_free, baseline(summary))
        overlap = entropy_free.get_right()[0] + COMPARISON_GAP - summary.get_left()[0]
        if overlap > 0:  # a long readout under a narrow map: the unmasked side moves left, its rows still level
            VGroup(free_title, free_map, entropy_free).shift(LEFT * overlap)
        stage = MaskComparison(free_title, free_map, entropy_free, masked_title, masked_block, summary,
                               entropy_masked, fourth)
        self.place(stage, self.body())
        return stage

    def nulled_column(self, heatmap: TokenHeatmap, nulled: np.ndarray) -> VGroup:
        """How many weights each row loses to the mask, right of its row."""
        rows = cell_centres(heatmap.matrix)[:, 0]
        counts = VGroup(*[tagged_number(count, "nulled", (i, 0), style.MUTED, style.CELL_SIZE, decimals=0)
                          .next_to(heatmap.matrix.brackets[1], RIGHT, buff=0.35).set_y(rows[i][1])
                          for i, count in enumerate(nulled)])
        header = label_text(self.labels["nulled"], style.MUTED, style.CAPTION_SIZE)
        sit_on(header.align_to(counts, LEFT), baseline(heatmap.column_labels[0]))  # on the labels' first line
        return VGroup(counts, header)

    def entropy_pair(self, run: LabAttention, fourth: int, name: str) -> VGroup:
        """H of the first and the fourth row, each named as the heatmap names its row."""
        return text_with_numbers(self.labels["entropy_pair"], {
            "first_entropy": tagged_number(run.entropies[0], name, (0, 0), font_size=style.CAPTION_SIZE),
            "fourth_entropy": tagged_number(run.entropies[fourth], name, (0, 1), font_size=style.CAPTION_SIZE)},
            font_size=style.CAPTION_SIZE, first=abbreviated(self.tokens[0]), fourth=abbreviated(self.tokens[fourth]))

    def show_entropy_comparison(self):
        parts = self.comparison
        self.begin_step("entropy", new_numbers=4, first=self.tokens[0], fourth=self.tokens[parts.fourth])
        frames = [heatmap.matrix.row_box(row) for heatmap in (parts.free, parts.masked) for row in (0, parts.fourth)]
        self.play(*[Create(frame) for frame in frames], run_time=0.8)
        rows = [0, parts.fourth]
        self.cue("entropy", lands=True, rows=rows, free=parts.free.matrix.values.tolist(),
                 masked=parts.masked.matrix.values.tolist())
        self.play(Appear(parts.entropy_free), run_time=STEP_SECONDS)
        # the masked pair lands as its clusters sound, after the free pair's; then framed: what the mask changed
        self.play(Appear(parts.entropy_masked), run_time=len(rows) * ENTROPY_GAP)
        changed = SurroundingRectangle(parts.entropy_masked, color=style.HIGHLIGHT, buff=0.1, stroke_width=2)
        self.play(Create(changed), run_time=STEP_SECONDS)
        self.entropy_stage = VGroup(parts, *frames, changed)

    # The guide's exercises 5 and 6: d_k in a real Transformer ----------------------------------------------
    def show_dimensions(self):
        """Exercise 5: the run's √d_k against a real head's (d_k = 64), how many times it divides more; exercise 6:
        d = 512 cut into h = 8 heads of 64, then each cut in two, 16 heads of 32. One line at a time over the reading
        time (``lesson.pipeline_answers.Dimensions``)."""
        sizes, labels = Dimensions(self.run.steps.d_k), self.labels
        self.begin_step("dimensions", new_numbers=10, **sizes.fields())
        font = style.BODY_SIZE

        def number(value: float, index: tuple[int, int], name: str = "exercise_5"):
            return tagged_number(value, name, index, font_size=font, decimals=0 if float(value).is_integer() else 2)

        def divisor(d_k: int, row: int):
            return text_with_numbers(labels["dims_divisor"], {"d_k": number(d_k, (row, 0)),
                                                              "root": number(round(math.sqrt(d_k), 2), (row, 1))},
                                     font_size=font, relation=root(d_k)[0])
        growth = text_with_numbers(labels["dims_growth"], {"growth": number(round(sizes.growth, 2), (2, 0))},
                                   font_size=font)
        left = VGroup(label_text(labels["dims_title_5"], style.MUTED, font), divisor(sizes.d_k, 0),
                      divisor(sizes.model_d_k, 1), growth).arrange(DOWN, aligned_edge=LEFT, buff=0.35)
        width = text_with_numbers(labels["dims_width"], {"d_model": number(sizes.d_model, (0, 0), "exercise_6")},
                                  font_size=font)
        heads = [text_with_numbers(labels["dims_per_head"], {"heads": number(count, (row, 0), "exercise_6"),
                                                             "d_k": number(d_k, (row, 1), "exercise_6")}, font_size=font)
                 for row, (count, d_k) in enumerate(((sizes.heads, sizes.model_d_k),
                                                     (sizes.more_heads, sizes.more_heads_d_k)), start=1)]
        bar = Rectangle(width=DIMENSION_BAR_WIDTH, height=0.5, stroke_color=style.TEXT, stroke_width=2,
                        fill_color=style.QUERY, fill_opacity=0.35)
        head = bar.width / sizes.heads  # twice the heads: each head's slice cut in two
        cuts = [VGroup(*[Line(bar.get_corner(UP + LEFT) + RIGHT * x, bar.get_corner(DOWN + LEFT) + RIGHT * x,
                              color=colour, stroke_width=2) for x in positions])
                for positions, colour in ((head * np.arange(1, sizes.heads), style.TEXT),
                                          (head * (np.arange(sizes.heads) + 0.5), style.MUTED))]
        right = VGroup(label_text(labels["dims_title_6"], style.MUTED, font), width, VGroup(bar, *cuts), *heads)
        right.arrange(DOWN, aligned_edge=LEFT, buff=0.35)
        self.place(VGroup(left, right).arrange(RIGHT, buff=1.2, aligned_edge=UP), self.body())
        self.play(Vanish(self.entropy_stage), run_time=0.6)
        beats = {"": [Appear(left[0]), Appear(left[1])], "model": [Appear(left[2])], "growth": [Appear(left[3])],
                 "heads": [Appear(right[0]), Appear(width), Appear(bar), Create(cuts[0]), Appear(heads[0])],
                 "more": [Create(cuts[1]), Appear(heads[1])]}  # each with the voice's phrase, if it speaks
        each = self.fill_seconds() / len(beats)
        for k, (phrase, animations) in enumerate(beats.items()):
            if phrase:
                self.beat(phrase)
            self.play(*animations, run_time=min(STEP_SECONDS, each))
            if k < len(beats) - 1 and each > STEP_SECONDS:
                self.wait(each - STEP_SECONDS)


def rounded_up(value: float, step: float = 0.1) -> float:
    """The next multiple of ``step`` at or above ``value``: a chart's top that leaves its bars readable."""
    return max(step, math.ceil(round(value / step, 9)) * step)
