"""Section 1: Attention(Q, K, V) = softmax(QK^T / sqrt(d_k)) V computed cell by cell from X and three weight matrices.

The formula stays at the top as a map with the term being computed framed (and √d_k struck out and greyed
in the steps whose scores are not divided by it). Each step shows only the
matrices it uses, as large as the body allows (6 tokens of dimension 4 with decimals included): X, one W
and its product; then Q, K transposed above QK^T and the scores' colour bar; then A, V and Z. A product
is filled cell by cell: the row and column frames fade to the cell (a frame never slides across digits) and
settle, then its number is written; the first cells go slowly with their worked dot product under the matrices, the rest faster,
and a product that repeats one already shown (K after Q, V after K) faster still. A number never
changes into another in place: the old one fades out before the new one fades in.

The rows of X carry their words (``matrix.tokens``, or the example's «el gato duerme» for the preset's X; an X of
the lecturer's without words is unlabelled, and its answers call the rows t₁, t₂, …), and each projection ends
on its part of the library analogy (Q the question, K the label, V the contents). Two pictures in the plane
(``scenes.vector_plane``), drawn only when their vectors have at most two components, give the geometry: before
QKᵀ, q_i and the keys as arrows, each score the shadow of q_i on a key times the key's length (``alignment``);
after Z = AV, z_i as the weighted average of the values, the terms laid tip to tail, the heaviest first, the lighter
ones magnified in a window beside the plane when they would be drawn too short to see (``weighted_average``). Just
before A fills in, row i of the scores entering the softmax goes through its two moves as bars (``exponentiate``,
with ``scenes.softmax_moves``): each to e^x, then all divided by their sum. Row i is the one the walkthrough
follows (``MatrixConfig.followed_row``: ``matrix.row``, or the first whose softmax chooses without going one-hot).
Three short steps follow the output, each one change to the example's matrices: the causal mask (row 1 becomes
(1, 0, 0)), X tripled without scaling (the "large_scores" preset on the default example: one-hot rows, the softmax's
slope, and with it the gradient, vanishes) and W_Q as W_K (the "shared_projection" preset: the diagonal dominates,
in the rows where it does); their captions say what the change does to these matrices, and a step whose change
the example already has is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from manim import (DL, DOWN, DR, LEFT, RIGHT, UL, UP, UR, Circle, Create, GrowFromCenter, GrowFromPoint, Line, MathTex,
                   MoveToTarget, Rectangle, ReplacementTransform, Restore, RoundedRectangle, SurroundingRectangle,
                   Transform, VGroup, VMobject, Write)

from attn_math import worked_example
from attn_math.attention import ONE_HOT, AttentionSteps, self_attention
from attn_math.dimensions import score_multiplications, score_variances
from attn_math.geometry import alignment, weighted_average
from lesson.matrix_answers import neutral_names, question_fields
from lesson.numbers import decimals_for, format_number
from lesson.references import VASWANI
from lesson.scaling_answers import root
from sonify.mappings import shared_scale
from sonify.replay import sound_seconds
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.heatmap import covering_value, readable_text_colour, score_legend
from scenes.lesson_scene import LONGEST_FREEZE, SECONDS_PER_NEW_NUMBER, WORDS_PER_SECOND, LessonScene, wrapped_text
from scenes.softmax_moves import SoftmaxMoves
from scenes.vector_plane import (ARROW_WIDTH, Magnifier, VectorPlane, convex_hull, crosses, freer_side,
                                 place_labels)
from scenes.visuals import (CELL_HEIGHT, LabelledMatrix, baseline, enlarge_formulas, fit, label_text, number_text,
                             probability_decimals, shared_cell_width, sit_on, tagged_number, text_with_numbers)

# Spaces round the terms the map frames (Q, Kᵀ, softmax), and a strut each side of the fraction's bar: room for
# the frame (MAP_FRAME_BUFF from its term) between a term and its neighbour
FORMULA = (r"\text{Attention}(Q,K,V) = \;\text{softmax}\,\left(\;\frac{\rule[-.5em]{0pt}{0pt}Q\;\,K^\top}"
           r"{\rule{0pt}{1.15em}\sqrt{d_k}}\;\right) V")
SQRT, SOFTMAX, KEYS_T = r"\sqrt{d_k}", r"\text{softmax}", r"K^\top"
MAP_TERMS = {"Q": "Q", "K": KEYS_T, "V": "V"}  # what a projection's step frames in the map: Kᵀ as the formula has it
SCORE_MATRICES = ("scores", "scaled")  # the names of the matrices that hold scores: one sound scale
ROLE_COLOURS = {"Q": style.QUERY, "K": style.KEY, "V": style.VALUE}
MAP_FRAME_BUFF, MAP_FRAME_STROKE = 0.1, 2  # the frame round the map's term being computed: 8 px clear at 720p
MAP_FONT_SIZE = 34  # the formula as a map: its d_k subscript still 14 px high at 720p
MAP_GAP = 0.2  # under the map
ROW_SUM_GAP = 0.2  # between the matrix's right bracket and each row's "Σ = 1"
LINE_HEIGHT = 0.4  # the worked line under the matrices (a dot product, the divisor), at most
LINE_MARGIN = 0.1  # above and below the worked line
SLOW_CELLS = 2  # cells of a new kind of product shown slowly, each with its worked line
MOVE, WRITE, READ = 0.8, 0.6, 1.6  # seconds of a slow cell: frames move and settle, number, worked line
FRAME_FADE = 0.3  # seconds at most of a frame fading from one row or column to the next: quick enough to be seen
FAST_SECONDS = (3.0, 10.0)  # the remaining cells of a product together: at least, at most
REPEAT = 0.5  # a repeated product runs at this share of the first one's time
ROW_WALK = 0.8  # seconds each token's pair of rows stays framed as the analogy is said
WEIGHTS_GAP = 0.8  # seconds after each weight matrix comes, as the voice names the three
GROW_SECONDS = 0.4  # and the time it takes to grow in
POINTER_ROOM = 0.3  # kept free right of the inputs for the frame round the W's (it ended 20 px from the edge)
POINTER_BUFF = 0.12  # between what the voice names (a matrix with its words, a number) and its frame
GAP, ROW_GAP = 0.5, 0.3  # between matrices side by side, and between rows of matrices
LEGEND_GAP = 0.3  # between the scores' right bracket and their colour bar
CONTRAST_LEGEND_SCALE = 1.2  # a contrast step's colour bar, built this much larger: it is laid out with its matrix
LARGEST_SCALE = 2.0  # small matrices are shown up to this much larger than their natural size
BARS_LARGEST_SCALE = 2.2  # and the softmax's bars: a row of a few keys fills the body's width
WORD_GAP = 0.2  # between a row's word and the matrix's left bracket
PANEL_GAP = 0.25  # between the rows of a picture's worked panel
TIP_CLEARANCE = 0.1  # round an arrowhead, kept free of names: a winner's frame (0.06 from its name) stays 4 px off
DEEP_SHARE = 0.4  # of the magnifying window's side: the window inside it, for terms still too short there
DEEP_MARGIN = 0.1  # between that window and the edges of the one it sits in
CODA_PAUSE = 1.0  # seconds a contrast step's worked line is read alone before its coda comes under it
BRACKET_NUMBER_GAP = 0.1  # between a hidden shadow's bracket and the number of its length
Z_RING = 0.12  # the radius of the ring that marks z_i in the plane: hollow, round the tips of the terms that reach it
PLANE_SHARE = 0.55  # of the body's width, at most, for a picture's plane (its worked panel beside it)
SHORTEST_TERM = 0.5  # frame units (45 px at 720p): a term of z_i drawn shorter is shown again magnified, in a window
INSET_ROOM = 0.3  # of the magnified points' span, the room left round them in the window
INSET_ZOOM = 3.0  # the least magnification worth a window
INSET_MOST = 12.0  # and the most: z_i alone (the lighter terms all 0) is not blown up to a point
PENDING_OPACITY = 0.3  # rows of a matrix changing row by row that still hold the old kind of number, dimmed
LABEL_SWAP = 0.6  # seconds the first row's change takes longer: its label changes with it, and the other rows dim
CHECK_EXTRA = 2  # decimals beyond A's the division line may write so that its division checks
SCALED_ROW_SECONDS, SCALED_ROW_READING = 0.6, 0.2  # the scaling step's rows: the swap, and a number's reading time
NORMALISE_SECONDS = 1.4  # the softmax's second move on the followed row's bars
BARS_HEIGHT = 1.4  # the height of 1 in the exponentiate step's bars as built: low enough that six keys' numbers
# fit at a legible size between the formula map and the caption
LEGEND_VALUES = 3  # blips of the legend's value line: the vectors' smallest value, the middle, the largest
LEGEND_SPACING = 0.18  # seconds between them: a scale's two ends are as far apart
LEGEND_LINE_GAP, LEGEND_PADDING = 0.15, 0.2  # between the sound legend's lines, and round them on its panel
CONTEXT_GAP = 0.3  # between the first screen's line of context and the sound legend under it
COST_GROWTH = 10  # the closing card's long context: this many times the example's tokens, its n² that squared
COST_LARGE_SIDE, COST_SMALL_SIDE = 3.0, 1.6  # its grid's side, and the example's grid's before it shrinks to scale
COST_LABEL_GAP = 0.2  # between a grid and its name
COST_ROW_SECONDS = 0.25  # each row of the example's grid
LAYOUT_ROUNDS = 6  # fit, grow the labels back, fit again: the labels' share is small, so a few rounds settle it


@dataclass
class PlanePicture:
    """What a picture in the plane drew, by meaning ("q", "k", "v", "terms": arrows in their vectors' order),
    so that tests read its geometry back through ``plane.coordinates``."""

    plane: VectorPlane
    arrows: dict[str, list]
    names: VGroup = field(default_factory=VGroup)  # q_i, k₁, ... or v₁, ..., z_i by the arrows' tips, in that order
    shadows: list = field(default_factory=list)  # one per key: (the shadow, its dashed drop)
    shadow_numbers: dict = field(default_factory=dict)  # key j: the shadow's length by its bracket (a hidden shadow)
    marked: tuple[int, ...] = ()  # the keys framed as the most aligned
    marks: VGroup = field(default_factory=VGroup)  # their frames: round their worked rows and their names
    z_dot: Circle | None = None  # a ring round z_i: the arrowheads that meet there stay in sight
    z_view: object = None  # where z_dot is drawn: the plane, or the magnifying window (``inset``), with coordinates
    order: list = field(default_factory=list)  # the terms' j in the order they are laid tip to tail: heaviest first
    inset: object = None  # a scenes.vector_plane.Magnifier, when the lighter terms need one
    inset_arrows: dict = field(default_factory=dict)  # the parts of the arrows ("v", "terms") the window shows
    inset_edges: VGroup = field(default_factory=VGroup)  # and of the values' hull
    deep: object = None  # a window inside that window, for the terms still too short to see there
    deep_arrows: list = field(default_factory=list)  # the parts of the terms' arrows it shows


def framed(mobject, buff: float = 0.06) -> SurroundingRectangle:
    """The white frame of what is being pointed at, as a matrix's cell gets (``buff`` from it)."""
    return SurroundingRectangle(mobject, color=style.HIGHLIGHT, buff=buff, stroke_width=3, corner_radius=0.06)


def clear_frame(parts: VGroup, formula: VMobject, buff: float = MAP_FRAME_BUFF) -> RoundedRectangle:
    """A frame round ``parts`` of ``formula`` that runs through none of its other glyphs: a glyph reaching into the
    parts' box is framed with them (a bracket or ⊤ between two framed terms), and each side keeps ``buff`` from the
    parts, or less where a glyph outside stands closer."""
    glyphs = [glyph_box(glyph) for glyph in formula.family_members_with_points()]
    left, right, bottom, top = glyph_box(parts)
    grown = True
    while grown:  # take in every glyph that reaches into the box, until none does
        grown = False
        for g_left, g_right, g_bottom, g_top in glyphs:
            reaches = g_left < right and left < g_right and g_bottom < top and bottom < g_top
            if reaches and not (left <= g_left and g_right <= right and bottom <= g_bottom and g_top <= top):
                left, right = min(left, g_left), max(right, g_right)
                bottom, top = min(bottom, g_bottom), max(top, g_top)
                grown = True
    room = buff + MAP_FRAME_STROKE / 100  # a stroke of width w is w / 100 frame units wide, half of it outside
    outside = [g for g in glyphs if not (left <= g[0] and g[1] <= right and bottom <= g[2] and g[3] <= top)]
    level = [g for g in outside if g[2] < top + room and bottom - room < g[3]]  # beside the box, left or right
    over = [g for g in outside if g[0] < right + room and left - room < g[1]]  # above or below it
    half_stroke = MAP_FRAME_STROKE / 200
    sides = (min([buff] + [left - g[1] - half_stroke for g in level if g[1] <= left]),
             min([buff] + [g[0] - right - half_stroke for g in level if g[0] >= right]),
             min([buff] + [bottom - g[3] - half_stroke for g in over if g[3] <= bottom]),
             min([buff] + [g[2] - top - half_stroke for g in over if g[2] >= top]))
    left, right, bottom, top = left - sides[0], right + sides[1], bottom - sides[2], top + sides[3]
    frame = RoundedRectangle(width=right - left, height=top - bottom, corner_radius=min(0.05, (top - bottom) / 4),
                             color=style.HIGHLIGHT, stroke_width=MAP_FRAME_STROKE)
    return frame.move_to(np.array([(left + right) / 2, (bottom + top) / 2, 0]))


def is_bracket(mark) -> bool:
    """Whether a shadow's mark (``VectorPlane.shadow``) is the bracket beside a hidden shadow, not a dashed drop."""
    return isinstance(mark, VGroup) and len(straight_lines(mark)) > 1


def overlaps(first, second) -> bool:
    """Whether the boxes of two mobjects overlap."""
    (a_left, a_right, a_bottom, a_top), (b_left, b_right, b_bottom, b_top) = glyph_box(first), glyph_box(second)
    return a_left < b_right and b_left < a_right and a_bottom < b_top and b_bottom < a_top


def glyph_box(mobject) -> tuple[float, float, float, float]:
    """(left, right, bottom, top) of ``mobject``."""
    (left, bottom, _), (right, top, _) = mobject.get_corner(DL), mobject.get_corner(UR)
    return left, right, bottom, top


def straight_lines(mark) -> list:
    """The lines a shadow's mark draws (``VectorPlane.shadow``): a dashed drop, a bracket's three, or none."""
    return [mark] if isinstance(mark, Line) else [part for part in mark.submobjects if isinstance(part, Line)]


def exact_row(values) -> str:
    """A row written with as few decimals as its values need: (1, 0, 0) rather than A's (1.0000, 0.0000, 0.0000)."""
    return ", ".join(format_number(value, decimals_for(values)) for value in values)


def in_a_row(*matrices) -> VGroup:
    """Side by side, the brackets' tops level and the labels on one line (levelled by their tops, W_Q's tail put
    its matrix 5 px under W_K's)."""
    row = VGroup(*matrices).arrange(RIGHT, buff=GAP, aligned_edge=UP)
    top = max(matrix.brackets.get_top()[1] for matrix in matrices)
    for matrix in matrices:
        matrix.shift(UP * (top - matrix.brackets.get_top()[1]))
    line = max(baseline(matrix.label) for matrix in matrices)
    for matrix in matrices:
        sit_on(matrix.label, line)
    return row


def with_legend(matrix: LabelledMatrix, legend) -> LabelledMatrix:
    """Put a colour bar right of ``matrix``'s cells, bottoms level, as part of it (it moves and scales with it)."""
    matrix.legend = legend.next_to(matrix.brackets[1], RIGHT, buff=LEGEND_GAP).align_to(matrix.cell_grid, DOWN)
    matrix.add(legend)
    return matrix


def natural_size(matrix: LabelledMatrix) -> LabelledMatrix:
    """Undo any scaling of ``matrix``, so a new layout fits it afresh rather than shrinking a shrunk copy again."""
    return matrix.scale(CELL_HEIGHT / matrix.cells[0][0].height)


class MatrixScene(LessonScene):
    section_id = "matrix"
    STEPS = ("formula", "inputs", "queries", "keys", "values", "alignment", "scores", "scaled", "exponentiate",
             "softmax", "output",
             "weighted_average", "causal", "large_scores", "shared_projection")

    def lesson(self):
        inputs = self.settings.matrices()
        self.result = self_attention(**inputs, scale=self.settings.scale, causal=self.settings.causal)
        self.contrasts = self.contrast_results(inputs)
        # A is written with one precision in every step: the most any of its matrices needs to sum to 1 by row.
        self.weight_decimals = max(probability_decimals(result.weights)
                                   for result in (self.result, *self.contrasts.values()))
        self.line = self.map_frame = self.sqrt_strike = self.pointer = None
        self.line_rows = 1  # rows of the worked line the step keeps room for (a coda takes a second)
        self.row = self.settings.followed_row()  # the row the walkthrough follows, from 0
        self.words = self.row_labels()
        pieces = self.strings["answer_pieces"]
        names = ([pieces["quoted"].format(word=word) for word in self.words] if self.words
                 else neutral_names(len(self.result.X)))
        self.answers = question_fields(self.result, inputs["W_Q"], names, self.contrasts["large_scores"], pieces,
                                       self.row)
        self.show_formula()
        self.show_inputs(inputs)
        for role, key in (("Q", "queries"), ("K", "keys"), ("V", "values")):
            self.show_projection(role, key, repeat=role != "Q")
        if self.shows("alignment"):
            self.show_alignment()
        self.show_scores()
        self.show_scaled()
        self.show_exponentiate()
        self.show_softmax()
        self.show_output()
        if self.shows("weighted_average"):
            self.show_weighted_average()
        self.show_contrasts(inputs)

    def closing_fields(self) -> dict:
        n, d_k = self.result.X.shape[0], self.result.d_k
        return {**super().closing_fields(), "n": n, "here_d_k": d_k, "here_cost": score_multiplications(n, d_k)}

    # The closing card's picture: n² ----------------------------------------------------------------
    def closing_picture(self) -> VGroup:
        """What O(n²) means, to scale: the n × n scores of a context COST_GROWTH times longer as a ruled grid, and in
        its corner, cell for cell, the example's n × n (its QKᵀ's colours); each named on its left and under it.
        (the example's cells, their name, the long grid's square, its rules, its name)."""
        labels = self.strings["labels"]
        n = self.result.X.shape[0]
        long_n = COST_GROWTH * n
        side = COST_LARGE_SIDE / long_n
        largest = covering_value(style.shared_largest(self.result.scores))
        square = Rectangle(width=COST_LARGE_SIDE, height=COST_LARGE_SIDE, stroke_color=style.MUTED, stroke_width=2)
        corner = square.get_corner(UL)
        rules = VGroup(*[Line(corner + RIGHT * k * side, corner + RIGHT * k * side + DOWN * COST_LARGE_SIDE)
                         for k in range(1, long_n)],
                       *[Line(corner + DOWN * k * side, corner + DOWN * k * side + RIGHT * COST_LARGE_SIDE)
                         for k in range(1, long_n)]).set_stroke(style.MUTED, width=0.5, opacity=0.6)
        cells = VGroup(*[Rectangle(width=side, height=side, stroke_width=0,
                                   fill_color=style.score_colour(value, largest), fill_opacity=1.0)
                         .move_to(corner + np.array([(j + 0.5) * side, -(i + 0.5) * side, 0]))
                         for (i, j), value in np.ndenumerate(self.result.scores)])
        small_label = label_text(labels["cost_small"].format(n=n, cells=n * n), style.TEXT, style.BODY_SIZE)
        small_label.next_to(cells, LEFT, buff=COST_LABEL_GAP).align_to(square, UP)
        large_label = label_text(labels["cost_large"].format(long_n=long_n, cells=long_n ** 2, growth=COST_GROWTH,
                                                             more=COST_GROWTH ** 2), style.TEXT, style.BODY_SIZE)
        large_label.next_to(square, DOWN, buff=COST_LABEL_GAP)
        self.cost_picture = VGroup(cells, small_label, square, rules, large_label)
        return self.cost_picture

    def closing_hidden(self) -> list:
        """All of it: it comes as the example's cost is said."""
        return list(self.cost_picture)

    def closing_moves(self, line: str) -> None:
        """As «here, 18» is said, the example's n × n, large, row by row, where the long grid will be; then the long
        context's grid grows from its corner as the example's shrinks into that corner, to scale."""
        if line != "card":
            return
        cells, small_label, square, rules, large_label = self.cost_picture
        for part in (cells, small_label):
            part.save_state()
        cells.scale(COST_SMALL_SIDE / cells.width).move_to(square)
        small_label.next_to(cells, DOWN, buff=COST_LABEL_GAP)
        self.beat("here")
        n = self.result.X.shape[0]
        for i in range(n):
            self.play(Appear(*cells[i * n:(i + 1) * n], *([small_label] if i == 0 else [])), run_time=COST_ROW_SECONDS)
        self.wait(COST_ROW_SECONDS)
        self.play(Restore(cells), Restore(small_label), GrowFromPoint(VGroup(square, rules), square.get_corner(UL)),
                  Appear(large_label), run_time=1.0)

    # Step 1 and the map ------------------------------------------------------------------------
    def show_formula(self):
        """The formula, and under it how to listen: the section's first sounds teach the lecture's sound legend
        (``sonify.legend``, issue 44) on a small legend. The step's own bell lands with the header and the legend's
        first line, the formula is written as that line is read, then each other line comes with its sound as the
        section will play it (the vectors' smallest value to their largest on the cells' scale, the followed row's
        chord, which the softmax's moves play again), in the clear; a voice names each sound once it has rung out,
        then reads the formula as d_k's line comes."""
        legend = self.sound_legend_lines()
        self.begin_step("formula", arriving=legend[:3])  # the panel, its heading and the bell's line
        left, right, _, top = style.body_box()
        # What the step's caption says of the mechanism (GPT, BERT, no RNN), on screen when a voice says the step
        # instead of the caption: under the header, read from the first screen; the formula fits between it and the
        # legend
        self.context_line = None if self._caption_read else wrapped_text(
            self.in_locale(self.strings["labels"]["context_line"].format(reference=VASWANI.short)), style.MUTED,
            style.BODY_SIZE, right - left).move_to(np.array([0, top, 0]), aligned_edge=UP)
        if self.context_line is not None:
            top = self.context_line.get_bottom()[1] - CONTEXT_GAP
        room = top - legend.get_top()[1] - CONTEXT_GAP
        self.formula = fit(self.formula_tex(), right - left, room).move_to(
            np.array([0, (top + legend.get_top()[1]) / 2, 0]))
        self.sound_legend = legend
        if self.omitting:  # left out (``lecture.skip``): the formula the map shrinks is all the later steps need
            return
        bell_line_shown = self.renderer.time
        self.wait_until(self.cues[-1].time + sound_seconds(self.cues[-1]))  # the step's tone, landed with them
        self.beat("bell")
        self.play(Write(self.formula), run_time=2.0)
        if self.context_line is not None:
            self.play(Appear(self.context_line), run_time=0.4)
        self.pause_to_read(legend[2], bell_line_shown)
        vectors = self.sound_scale("X")
        ramp = np.linspace(vectors["low"], vectors["high"], LEGEND_VALUES).tolist()
        sounds = {"values": lambda: self.cue("values", lands=True, values=ramp, spacing=LEGEND_SPACING, **vectors),
                  "weights": lambda: self.cue("row", lands=True, weights=self.result.weights[self.row].tolist())}
        for (marker, sound), line in zip(sounds.items(), legend[3:]):
            with self.listening():
                sound()
                self.play(Appear(line), run_time=0.4)
            self.pause_to_read(line, self.renderer.time)
            self.beat(marker)
        # The voice reads the formula term by term, each framed as it is named: softmax, QKᵀ, √d_k (with the line
        # that says what d_k is, the one symbol of the formula no matrix will name).
        self.beat("formula")
        self.point_map_at(self.term(SOFTMAX))
        self.beat("scores")
        self.point_map_at(self.term("Q"), self.term(KEYS_T))
        self.beat("root")
        self.point_map_at(self.term(SQRT))
        self.show_line(label_text(self.strings["labels"]["d_k_line"].format(d_k=self.result.d_k), style.TEXT,
                                  style.BODY_SIZE))

    @staticmethod
    def formula_tex() -> MathTex:
        """The formula, Q, K and V in their colours, its terms isolated for the map's frame."""
        formula = MathTex(FORMULA, substrings_to_isolate=["Q", "K", KEYS_T, "V", SQRT, SOFTMAX], font_size=60,
                          color=style.TEXT)
        for role, colour in ROLE_COLOURS.items():
            formula.set_color_by_tex(role, colour)
        formula.get_part_by_tex(KEYS_T)[0].set_color(style.KEY)  # Kᵀ's K; its ⊤ stays the text's colour
        return formula

    def sound_legend_lines(self) -> VGroup:
        """The legend of the sounds this section plays, on a panel at the bottom of the body: (panel, heading, the
        step's bell, a value's pitch, a row's weights); laid out, not yet shown."""
        labels = self.strings["labels"]
        heading = label_text(labels["listen_heading"], style.MUTED, style.BODY_SIZE, weight="BOLD")
        lines = [label_text(labels[key], colour, style.BODY_SIZE) for key, colour in
                 (("listen_step", style.TEXT), ("listen_value", style.TEXT), ("listen_weight", style.ATTENTION))]
        content = VGroup(heading, VGroup(*lines).arrange(DOWN, buff=LEGEND_LINE_GAP, aligned_edge=LEFT)).arrange(
            DOWN, buff=2 * LEGEND_LINE_GAP, aligned_edge=LEFT)
        panel = RoundedRectangle(width=content.width + 2 * LEGEND_PADDING, height=content.height + 2 * LEGEND_PADDING,
                                 corner_radius=0.12, fill_color=style.PANEL, fill_opacity=1.0, stroke_color=style.MUTED,
                                 stroke_width=1.5).move_to(content)
        legend = VGroup(panel, heading, *lines)
        bottom = self.over_the_line([self.in_locale(self.strings["steps"]["formula"]["caption"])]) + LINE_MARGIN
        return legend.move_to(np.array([0, bottom, 0]), aligned_edge=DOWN)

    def pause_to_read(self, line, shown_at: float) -> None:
        """Where no voice names it, time to read a legend's ``line`` from ``shown_at`` (WORDS_PER_SECOND, at the
        lecture's pace)."""
        if self._caption_read:
            self.wait_until(shown_at + len(line.shown_text.split()) / WORDS_PER_SECOND * self.job.config.lecture.pace)

    def formula_to_map(self) -> list:
        """The formula moving up under the header, where it stays, small, for the rest of the section."""
        _, _, _, top = style.body_box()
        target = self.formula.copy().scale_to_fit_height(self.map_height() - MAP_GAP)
        return [Transform(self.formula, target.move_to(np.array([0, top, 0]), aligned_edge=UP))]

    def point_map_at(self, *parts, scaled: bool = True):
        """Frame ``parts`` of the formula map: the term the step computes. Unless the step's scores are
        ``scaled``, √d_k is struck out and greyed: the step is about not dividing by it."""
        self.strike_sqrt(not scaled)
        frame = clear_frame(VGroup(*parts), self.formula)
        if self.map_frame is None:
            self.play(Create(frame), run_time=0.4)
            self.map_frame = frame
        else:
            [self.map_frame] = self.reframe([self.map_frame], [frame], 0.4)

    def strike_sqrt(self, struck: bool):
        """Grey √d_k in the map and draw a stroke across it (``struck``), or give it back its colour."""
        if struck == (self.sqrt_strike is not None):
            return
        sqrt = self.term(SQRT)
        if struck:
            self.sqrt_strike = Line(sqrt.get_corner(DL), sqrt.get_corner(UR), color=style.TEXT, stroke_width=3)
            self.play(sqrt.animate.set_color(style.MUTED), Create(self.sqrt_strike), run_time=0.4)
        else:
            self.play(sqrt.animate.set_color(style.TEXT), Vanish(self.sqrt_strike), run_time=0.4)
            self.sqrt_strike = None

    def term(self, tex: str, occurrence: int = -1):
        """One occurrence of ``tex`` in the formula (the last by default: the one inside the softmax)."""
        return [self.formula.id_to_vgroup_dict[part_id]
                for string, part_id in self.formula.matched_strings_and_ids if string == tex][occurrence]

    # Steps 2-5: inputs and projections ----------------------------------------------------------
    def show_inputs(self, inputs):
        result = self.result
        n, d = result.X.shape
        # the legend has been heard: it clears, and the formula shrinks to the map, with the header, before the voice
        # speaks of X; the formula's frame comes back on the map
        clearing = [*self.formula_to_map(), Vanish(self.sound_legend),
                    *[Vanish(part) for part in (self.map_frame, self.context_line) if part is not None]]
        shown = n * d + sum(np.size(inputs[f"W_{role}"]) for role in ROLE_COLOURS)  # X's numbers and the W's
        self.begin_step("inputs", n=n, d=d, with_header=clearing, new_numbers=shown)
        self.map_frame = None
        worked = self.is_worked_example(inputs)
        self.line_rows = 2 if worked else 1  # the shapes' line, under the worked example's origin
        self.X = self.with_words(LabelledMatrix(result.X, "X", style.INPUT, "X"))
        self.W = {role: LabelledMatrix(inputs[f"W_{role}"], f"W_{role}", style.WEIGHT_MATRIX, f"W_{role}")
                  for role in ROLE_COLOURS}
        self.products = {role: LabelledMatrix(getattr(result, role), f"{role} = XW_{role}", colour, role)
                         for role, colour in ROLE_COLOURS.items()}
        # In a row, or X above the three W's when that lets the numbers show larger (six tokens of dimension 4).
        self.stage = [self.X, *self.W.values()]
        self.place_in_body(in_a_row, lambda X, *weights: VGroup(X, in_a_row(*weights)).arrange(DOWN, buff=ROW_GAP),
                           matrices=self.stage, reserve_right=POINTER_ROOM)  # the three W's frame inside the margin
        self.present(self.X)  # «... the rows of X»
        self.beat("weights")  # «and three weight matrices»: one after the other as they are named
        # Said, each after the last as the voice names them; read (no voice), spread over the step's reading time
        step = self.steps[-1]
        gap = WEIGHTS_GAP if self.spoken() else max(
            WEIGHTS_GAP, (step.start + step.reading - self.renderer.time) / (len(self.W) + 1) - GROW_SECONDS)
        for weights in self.W.values():  # grown, not faded: a magenta fade is too faint a change to be seen as one
            self.play(GrowFromCenter(weights), run_time=GROW_SECONDS)
            self.wait(gap)
        self.beat("fixed")  # «here they are fixed»: the three framed
        self.point_at(*self.W.values())
        # the guide's general shapes (X ∈ ℝ^{n×d}, W_Q, W_K ∈ ℝ^{d×d_k}, W_V ∈ ℝ^{d×d_v}) with this example's numbers
        shapes = label_text(self.strings["labels"]["shapes"].format(n=n, d=d, d_k=result.d_k, d_v=result.V.shape[1]),
                            style.MUTED, style.BODY_SIZE)
        if worked:  # where a student finds these numbers to check them (clase 04's seed), then the shapes under it
            self.show_line(label_text(self.strings["labels"]["worked_example"], style.TEXT, style.BODY_SIZE))
            self.extend_line(shapes)
        else:
            self.show_line(shapes)

    @staticmethod
    def is_worked_example(inputs: dict) -> bool:
        """The example is the course notes' worked example 4.2.6 (the default preset's numbers), whatever its words."""
        example = worked_example.PRESETS["default"]
        return all(np.array_equal(inputs[name], getattr(example, name)) for name in ("X", "W_Q", "W_K", "W_V"))

    def with_words(self, matrix: LabelledMatrix) -> LabelledMatrix:
        """Put the tokens' words left of ``matrix``'s rows, right-aligned, as part of it (they move and scale
        with it); no words when X's rows are not the example's three tokens."""
        if self.words is not None:
            matrix.words = VGroup(*[label_text(word, style.TEXT, style.BODY_SIZE)
                                    .next_to(matrix.brackets[0], LEFT, buff=WORD_GAP).match_y(matrix.cells[i][0])
                                    for i, word in enumerate(self.words)])
            matrix.add(matrix.words)
        return matrix

    def with_column_words(self, matrix: LabelledMatrix) -> LabelledMatrix:
        """Put the tokens' words above ``matrix``'s columns, as part of it, when they fit side by side over
        columns that narrow; none when X's rows are not the example's."""
        if self.words is None:
            return matrix
        line = matrix.brackets.get_top()[1] + WORD_GAP  # one baseline: «gato»'s descender must not lift it
        words = VGroup(*[sit_on(label_text(word, style.TEXT, style.BODY_SIZE).match_x(matrix.cells[0][j]), line)
                         for j, word in enumerate(self.words)])
        if all(left.get_right()[0] + WORD_GAP <= right.get_left()[0] for left, right in zip(words, words[1:])):
            matrix.column_words = words
            matrix.add(words)
        return matrix

    def present(self, matrix: LabelledMatrix, coloured: bool = False, before_row=lambda i: None):
        """Show a matrix row by row, giving each row's numbers their reading time; a ``coloured`` matrix's
        cells come with their numbers, a row at a time."""
        words = [getattr(matrix, part) for part in ("words", "legend") if hasattr(matrix, part)]
        self.play(Appear(matrix.outline if coloured else matrix.frame, *words), run_time=0.4)
        for i in range(matrix.values.shape[0]):
            before_row(i)
            self.play(Appear(*(matrix.cells[i] if coloured else []), matrix.row(i)), run_time=0.3)
            self.wait(SECONDS_PER_NEW_NUMBER * matrix.values.shape[1])

    def show_projection(self, role: str, key: str, repeat: bool):
        """X, W and their product in a row; the previous W and product leave, and a W not on screen returns."""
        self.begin_step(key)
        self.hide_line()
        self.point_map_at(self.term(MAP_TERMS[role]))
        W, product = self.W[role], self.products[role]
        returning = W not in self.stage
        self.restage([self.X, W, product], in_a_row)
        if returning:
            self.present(W)
        self.play(Appear(product.outline), run_time=0.5)
        self.fill_product(product, self.X, W, repeat=repeat)
        self.beat("library")  # the analogy is said as its line comes
        line = label_text(self.strings["labels"][f"library_{role}"], ROLE_COLOURS[role], style.BODY_SIZE)
        if role == "Q":  # «each row of Q is the question a token ...»: token by token, as it is said
            self.walk_rows(self.X, product, line)
        else:
            self.show_line(line)
        if role == "V":  # «all three come from the same X»: X framed as the voice names it
            self.beat("same_x")
            self.point_at(self.X)

    def walk_rows(self, left: LabelledMatrix, right: LabelledMatrix, line):
        """Show the worked ``line`` with a frame round row 1 of ``left`` and of ``right`` together, then frame the
        next token's rows, one after the other (a token's row of X and its row of the product), and let them go."""
        boxes = [left.row_box(0), right.row_box(0)]
        self.show_line(line, *map(Create, boxes))
        for i in range(1, left.values.shape[0]):
            self.wait(ROW_WALK)
            boxes = self.reframe(boxes, [left.row_box(i), right.row_box(i)], 0.4)
        self.wait(ROW_WALK)
        self.play(*map(Vanish, boxes), run_time=0.3)

    def point_at(self, *mobjects):
        """A frame round ``mobjects`` (a matrix, a bar, a number) as the voice names them: it moves from what it framed
        before, and stays until ``let_go``."""
        frame = framed(VGroup(*mobjects), buff=POINTER_BUFF)
        if self.pointer is None:
            self.play(Create(frame), run_time=0.4)
            self.pointer = frame
        else:
            [self.pointer] = self.reframe([self.pointer], [frame], 0.4)

    def let_go(self):
        """The frame of ``point_at`` leaves."""
        if self.pointer is not None:
            self.play(Vanish(self.pointer), run_time=0.3)
            self.pointer = None

    def clear_stage(self) -> list:
        """The stage leaving with the next step's header (``begin_step``'s ``with_header``; the step then empties
        ``stage``): the voice, which starts as the header settles, never names a new step's matrices over the last
        step's drawing."""
        return [Vanish(*self.stage)] if self.stage else []

    def restage(self, matrices: list, *arrangements, reserve_right: float = 0.0, later_captions=()):
        """Lay ``matrices`` out anew (see place_in_body): those on screen move to their new places, the rest of
        the stage leaves, and the others are put in place for the caller to show."""
        staying = [matrix for matrix in matrices if matrix in self.stage]
        for matrix in staying:
            matrix.generate_target()
        placed = [matrix.target if matrix in staying else matrix for matrix in matrices]
        self.place_in_body(*arrangements, matrices=[natural_size(matrix) for matrix in placed],
                           reserve_right=reserve_right, later_captions=later_captions)
        leaving = [matrix for matrix in self.stage if matrix not in matrices]
        if leaving:
            self.play(Vanish(*leaving), run_time=0.5)
        if staying:
            self.play(*[MoveToTarget(matrix) for matrix in staying], run_time=0.8)
        self.stage = list(matrices)

    # Scores, scaling, softmax, output ----------------------------------------------------------------
    def show_scores(self):
        """Q's row i left of row i of QKᵀ and Kᵀ's column j above its column j: each cell is the dot product
        of the row and the column that meet there. K comes back and turns into Kᵀ; the colour bar shows
        the scale QKᵀ and QKᵀ/√d_k share."""
        self.begin_step("scores", with_header=self.clear_stage())
        self.stage = []
        self.hide_line()
        self.point_map_at(self.term("Q"), self.term(KEYS_T))
        result = self.result
        self.S, self.scaled, self.A = self.score_matrices()
        self.Z = LabelledMatrix(result.output, "Z = AV", style.OUTPUT, "Z")
        self.row_sums = VGroup(*[label_text(self.strings["labels"]["row_sum"], style.ATTENTION, style.BODY_SIZE)
                                 for _ in range(result.X.shape[0])])
        self.legend = score_legend(self.score_scale(), self.strings["labels"]["score_scale"])
        Q, K = self.products["Q"], self.products["K"]
        scaled, fields = self.scaled_caption()
        K_T = self.with_column_words(LabelledMatrix(result.K.T, r"K^\top", style.KEY, "K^T",
                                                    cell_width=self.S.cell_width))
        self.with_words(natural_size(Q))  # Q's rows are level with the scores': its words name the rows of S and A
        self.align_row_sums()
        self.restage([Q, self.S, K_T], self.meeting_layout, reserve_right=self.legend.width + LEGEND_GAP,
                     later_captions=(scaled.format(**fields), self.softmax_caption()))
        self.label_on_left(K_T)
        for later in (self.scaled, self.A):
            later.scale(self.S.cell_grid.width / later.cell_grid.width)
            later.shift(self.S.cell_grid.get_center() - later.cell_grid.get_center())
            enlarge_formulas(later)
        self.legend.next_to(self.S.brackets[1], RIGHT, buff=LEGEND_GAP).align_to(self.S.cell_grid, DOWN)
        self.present(Q)
        self.transpose(K, K_T)
        self.beat("cells")  # what a cell of QKᵀ is, said as the table it fills appears between Q and Kᵀ
        self.play(Appear(self.S.outline), Appear(self.legend), run_time=0.5)
        self.fill_product(self.S, Q, K_T)
        self.stage = [Q, K_T]

    def meeting_layout(self, Q: LabelledMatrix, S: LabelledMatrix, K_T: LabelledMatrix) -> VGroup:
        """Q left of S with their rows level, Kᵀ above S with their columns in line, Kᵀ's label to its left
        (the empty corner above Q)."""
        self.label_on_left(K_T)
        K_T.next_to(S.label, UP, buff=ROW_GAP).shift(RIGHT * (S.cell_grid.get_left()[0] - K_T.cell_grid.get_left()[0]))
        Q.next_to(S.brackets[0], LEFT, buff=GAP).shift(UP * (S.cells[0][0].get_y() - Q.cells[0][0].get_y()))
        return VGroup(Q, S, self.row_sums, K_T)

    @staticmethod
    def label_on_left(matrix: LabelledMatrix):
        """The label beside the left bracket, level with the middle row, rather than above."""
        matrix.label.next_to(matrix.brackets[0], LEFT, buff=0.25)

    def transpose(self, K: LabelledMatrix, K_T: LabelledMatrix):
        """K appears row by row, its top where Kᵀ's is, then each number moves to its transposed place."""
        natural_size(K).scale(K_T.cells[0][0].height / CELL_HEIGHT)
        self.label_on_left(K)
        K.shift(K_T.brackets[0].get_corner(UP + LEFT) - K.brackets[0].get_corner(UP + LEFT))
        self.present(K)
        column_words = [K_T.column_words] if hasattr(K_T, "column_words") else []
        self.play(*[ReplacementTransform(K.entries[i][j], K_T.entries[j][i]) for i, j in np.ndindex(K.values.shape)],
                  ReplacementTransform(K.brackets, K_T.brackets), ReplacementTransform(K.label, K_T.label),
                  Vanish(K.cell_grid), *map(Appear, column_words),
                  run_time=1.2)

    def score_scale(self) -> float:
        """The one colour scale of QKᵀ and QKᵀ/√d_k: its end is the first round number at or above the largest finite
        |score| of either (``heatmap.covering_value``), where the colour bar is ticked: the bar keys every cell."""
        return covering_value(style.shared_largest(self.result.scores, self.result.scaled))

    def score_matrices(self) -> tuple[LabelledMatrix, LabelledMatrix, LabelledMatrix]:
        """QK^T, its scaled (and masked) version and the softmax weights, sharing one cell width; the
        scores before and after scaling share one colour scale, so the division shows as paler cells."""
        result = self.result
        largest = self.score_scale()
        width = max(shared_cell_width(result.scores, result.scaled), self.weights_matrix().cell_width)
        scores = LabelledMatrix(result.scores, r"QK^\top", style.TEXT, "scores", cell_width=width,
                                fill=lambda value: style.score_colour(value, largest))
        label = r"QK^\top / \sqrt{d_k}" if self.settings.scale else r"QK^\top"
        scaled = LabelledMatrix(result.scaled, label, style.TEXT, "scaled", cell_width=width,
                                fill=lambda value: style.score_colour(value, largest))
        return scores, scaled, self.weights_matrix(width)

    def weights_matrix(self, cell_width: float | None = None, result: AttentionSteps | None = None,
                       label: str = r"A = \text{softmax}(\cdot)") -> LabelledMatrix:
        """A = softmax(·) of ``result`` (the lecture's by default), written with the section's decimals for A
        (enough that each row of every A shown sums to 1), masked cells greyed; each number in the colour that reads
        best on its cell."""
        result = result or self.result
        weights = LabelledMatrix(result.weights, label, style.ATTENTION, "weights",
                                 cell_width=cell_width, fill=style.weight_colour,
                                 decimals=self.weight_decimals,
                                 text_colour=lambda w: readable_text_colour(style.weight_colour(w)))
        for i, j in zip(*np.nonzero(result.mask)):
            weights.cells[i][j].set_fill(style.MASKED, opacity=1.0)
            weights.entries[i][j].set_color(readable_text_colour(style.MASKED))
        return weights

    def scaled_caption(self) -> tuple[str, dict]:
        """The scaling step's caption and its fields: the variance of the scores on screen before and after."""
        strings = self.strings["steps"]["scaled"]
        caption = strings["caption_causal"] if self.settings.causal else (
            strings["caption"] if self.settings.scale else strings["caption_unscaled"])
        return caption, self.variances()

    def variances(self) -> dict:
        """The variance of the scores on screen before and after the division by √d_k, as written."""
        shown = np.where(self.result.mask, -np.inf, self.result.scores)  # a masked cell shows −∞, no score
        variances = [round(variance, 2) for variance in score_variances(shown, self.result.d_k)]
        before, after = (format_number(variance, decimals_for(variances)) for variance in variances)
        return {"before": before, "after": after, "cells": int(np.isfinite(shown).sum())}

    def show_scaled(self):
        result = self.result
        caption, fields = self.scaled_caption()
        self.begin_step("scaled", caption=caption, **fields)
        scale = self.settings.scale
        self.point_map_at(*([self.term(SQRT)] if scale else [self.term("Q"), self.term(KEYS_T)]), scaled=scale)
        labels = self.strings["labels"]
        relation, written = root(result.d_k)  # √4 = 2, √2 ≈ 1.41
        divide = labels["divide"].format(d_k=result.d_k, relation=relation, root=written)
        # the division as the rows are divided; their variance once every row is (both numbers are of all the cells)
        if self.settings.scale:
            self.show_line(label_text(divide, style.TEXT, style.BODY_SIZE))
        else:
            self.show_line(label_text(labels["no_divide"].format(**fields), style.TEXT, style.BODY_SIZE))
        scale = self.sound_scale("scaled")  # the scores' scale, which S's cells sounded on
        # each row's largest scaled score sounds as it lands; the rows go quickly (the voice says the division
        # over them) so that their variance, said once all are divided, comes as the voice is ready for it
        self.replace_row_by_row(self.S, self.scaled, seconds=SCALED_ROW_SECONDS, reading=SCALED_ROW_READING,
                                new_row=lambda i: self.cue("cell", lands=True, value=float(result.scaled[i].max()),
                                                           **scale))
        if self.settings.scale:  # then, as the voice says so, when it would be 1
            for marker in ("variance", "unit_variance"):
                self.beat(marker)
                if marker != "variance" and not self.spoken():  # read, not said: the two lines share the reading time
                    step = self.steps[-1]
                    read = step.start + self.reading_time(self.read_caption(step.caption), result.scaled.size)
                    pause = min(LONGEST_FREEZE - 1.0, (read - self.renderer.time) / 2)
                    if pause > 1e-3:
                        self.wait(pause)
                self.show_line(label_text(labels[f"{marker}_line"].format(divide=divide, **fields), style.TEXT,
                                          style.BODY_SIZE))

    def show_exponentiate(self):
        """Row i of the scores entering the softmax (q_i's, the row the alignment picture followed) taken through
        the softmax's two moves (scenes.softmax_moves): each bar to e^x on a scale where the largest is 1, then
        all divided by their sum. It opens the softmax, as a step of its own just before A fills in: the scaled
        scores it starts from are on screen, framed, and the student has seen what the softmax does to one row
        before the table does it to every row at once. The matrices step aside for it and come back after."""
        result, row = self.result, self.row
        n = result.X.shape[0]
        score_tex = rf"q_{{{row + 1}}} \cdot k_j" + (r" / \sqrt{d_k}" if self.settings.scale else "")
        left, right, _, _ = style.body_box()
        moves = SoftmaxMoves(result.scaled[row], [f"k_{j + 1}" for j in range(n)], score_tex=score_tex,
                             weight_tex=rf"A_{{{row + 1}j}}", height=BARS_HEIGHT, weight_decimals=self.weight_decimals,
                             names=("softmax_scores", "exponentials", "softmax_weights"), width=right - left)
        parts = moves.parts
        self.begin_step("exponentiate", i=row + 1, word=self.row_words()[row], largest=format_number(parts.largest),
                        total=format_number(parts.total), top=format_number(parts.weights.max(), self.weight_decimals),
                        new_numbers=2 * n + 1)
        self.point_map_at(self.term(SOFTMAX), scaled=self.settings.scale)
        self.hide_line()
        # Everything but the header and the map steps aside; the colour bar does not come back (the softmax's
        # weights have a scale of their own: 0 to 1).
        kept = {self.header, self.formula, self.map_frame, self.sqrt_strike}
        self.set_aside = [mobject for mobject in self.mobjects  # (a bare Mobject draws nothing: it can stay)
                          if isinstance(mobject, VMobject) and mobject not in kept and mobject is not self.legend]
        framed_row = self.scaled.row_box(row)
        self.play(Create(framed_row), run_time=0.4)
        self.wait(0.6)
        left, right, bottom, top = self.stage_box()
        fit(moves, right - left, top - bottom, largest_scale=BARS_LARGEST_SCALE)
        moves.move_to(np.array([(left + right) / 2, (bottom + top) / 2, 0]))
        self.play(Vanish(*self.set_aside, self.legend, framed_row), run_time=0.6)
        self.play(Appear(moves), run_time=0.8)
        self.wait(SECONDS_PER_NEW_NUMBER * n)
        # The exponentials read out as blips on the bars' scale (1 at the top), then the row of A as it lands; each
        # move is said as it plays.
        self.beat("exponentiate")
        self.cue("values", lands=True, values=[float(value) for value in parts.exponentials], spacing=0.12,
                 low=0.0, high=1.0)
        self.play(*moves.exponentiate(), run_time=1.6)
        # What the voice names next is framed as it is said: the dashed line's «1 = e^max» (the drawing's scale),
        # then the row's label that divides by it (the factor that cancels)
        top = int(np.argmax(parts.weights))
        for marker, named in (("unit", [moves.one]), ("cancel", [moves.row_label])):
            self.beat(marker)
            self.point_at(*named)
        labels = self.strings["labels"]
        self.show_line(label_text(labels["cancel_line"].format(largest=format_number(parts.largest)), style.TEXT,
                                  style.BODY_SIZE))
        # The exponentials' reading time, or half of what the step still needs to be read: the rest after the
        # second move, so that neither still stretch runs over the longest allowed
        step = self.steps[-1]
        left = step.start + step.reading - self.renderer.time - NORMALISE_SECONDS
        self.wait(min(LONGEST_FREEZE - 1.0, max(SECONDS_PER_NEW_NUMBER * (n + 1), left / 2)))
        self.beat("normalise")
        # its row of A sounds again in the softmax step's listening moment, in the clear: not replayed here
        self.cue("row", lands=True, weights=[float(weight) for weight in parts.weights], heard_next=True)
        pointer, self.pointer = self.pointer, None
        self.play(*moves.normalise(), Vanish(pointer), run_time=NORMALISE_SECONDS)
        self.show_line(self.division_line(parts))  # the exponentials and their sum stay in sight beside the weights
        self.beat("top")  # then the largest weight, as it is said
        self.point_at(moves.numbers[top])
        self.moves = moves

    def division_line(self, parts):
        """A_ij = (e^x / e^max) ÷ Σ = A's row on one line, the exponentials and their sum written with
        ``checked_decimals`` so that dividing the numbers written gives the weights written (0.0144 / 1.1342 = 0.0127,
        where the bars' 0.01 / 1.13 would give 0.0088). Too wide for the body at its size (six keys), it leaves out
        "= A's row": the bars' row right above writes it."""
        decimals = self.checked_decimals(parts)
        written = lambda values, places: self.list_separator.join(format_number(value, places) for value in values)
        fields = {"i": self.row + 1, "exponentials": written(parts.exponentials, decimals),
                  "total": format_number(parts.total, decimals),
                  "weights": written(parts.weights, self.weight_decimals)}
        left, right, _, _ = style.body_box()
        line = label_text(self.strings["labels"]["division_line"].format(**fields), style.TEXT, style.BODY_SIZE)
        if line.width <= right - left:
            return line
        return label_text(self.strings["labels"]["division_line_short"].format(**fields), style.TEXT, style.BODY_SIZE)

    def checked_decimals(self, parts) -> int:
        """The fewest decimals, from A's on, for the exponentials and their sum such that each written exponential
        divided by the written sum, rounded to A's decimals, is the written weight (A's decimals + CHECK_EXTRA at most)."""
        weights = np.round(parts.weights, self.weight_decimals)
        for decimals in range(self.weight_decimals, self.weight_decimals + CHECK_EXTRA + 1):
            quotients = np.round(parts.exponentials, decimals) / round(float(parts.total), decimals)
            if np.array_equal(np.round(quotients, self.weight_decimals), weights):
                return decimals
        return self.weight_decimals + CHECK_EXTRA

    @property
    def list_separator(self) -> str:
        """Between the numbers of a written row or point: never the decimal separator."""
        return "; " if self.separator == "," else ", "

    def show_softmax(self):
        result = self.result
        self.begin_step("softmax", caption=self.softmax_caption())
        self.point_map_at(self.term(SOFTMAX), scaled=self.settings.scale)
        self.hide_line()
        self.play(Vanish(self.moves), run_time=0.4)  # then the matrices back, as they were: never drawn over the bars
        self.play(Appear(*self.set_aside), run_time=0.6)
        # Their numbers were read in the scaled step: back on screen, they are not new to read (the reading time
        # counts the numbers not on screen as the step before ended, and the bars stood there instead).
        scaled = next(step for step in self.steps if step.key == "scaled")
        self.count_as_read(scaled.numbers)
        with self.listening():  # each row's chord, one note per key as loud as its weight, heard as the row lands
            self.replace_row_by_row(self.scaled, self.A, seconds=self.seconds_per_cell(result.X.shape[0], lower=0.8),
                                    extras=self.row_sums,
                                    new_row=lambda i: self.cue("row", lands=True,
                                                               weights=[float(w) for w in result.weights[i]]))
        self.beat("weights")  # what the rows are is said once they have all landed

    def show_output(self):
        """A (its cells as narrow as its own numbers need), V and Z in a row; Q, Kᵀ and the row sums leave."""
        self.begin_step("output")
        self.point_map_at(self.term(SOFTMAX), self.term("Q"), self.term(SQRT), self.term("V"),
                          scaled=self.settings.scale)
        V, compact = self.products["V"], self.with_words(self.weights_matrix())
        self.stage.append(self.row_sums)
        self.restage([compact, V, self.Z], in_a_row)
        words = [compact.words] if hasattr(compact, "words") else []
        compact.remove(*words)  # A takes compact's shape and gains the words, which come in as it moves
        self.play(Transform(self.A, compact), *map(Appear, words), run_time=1.0)
        self.A.add(*words)  # they leave with A
        self.stage[0] = self.A  # compact only lent A its shape: A is what is on screen
        self.present(V)
        self.play(Appear(self.Z.outline), run_time=0.6)
        self.fill_product(self.Z, self.A, V)

    # The two pictures in the plane (d_k, d_v <= 2: lesson.section_config skips them otherwise) ------------
    def show_alignment(self):
        """Just before QKᵀ gets its numbers: q_i and every key as arrows from one origin. For each key in turn,
        q_i's shadow on its line (thick, in the colour of the score's sign, q_i·kⱼ / |kⱼ| long) and the angle
        between them, then the row |q_i| · |kⱼ| · cos θ = q_i·kⱼ with the number QKᵀ's cell will show (and its
        sound); last, the key q_i points along most among those it sees (the largest score the mask leaves) is
        framed and its shadow comes back to stay:
        the winner is seen before it is computed. When every key ties (a zero q_i, say) none is framed and the
        line says they tie."""
        row, causal = self.row, self.settings.causal
        geometry = alignment(self.result.Q, self.result.K, query=row, causal=causal)
        strings = self.strings["steps"]["alignment"]
        self.begin_step("alignment", caption=strings["caption_causal" if causal else "caption"], d_k=self.result.d_k,
                        i=row + 1)
        self.hide_line()
        self.point_map_at(self.term("Q"), self.term(KEYS_T))
        labels, words = self.strings["labels"], self.row_words()
        masked = {"seen": labels["seen_keys"], "visible": labels["visible_scores"]} if causal \
            else {"seen": "", "visible": ""}
        decimals = decimals_for(self.result.scores.flat)
        heading = label_text(labels["alignment_formula"].format(i=row + 1), style.TEXT, style.BODY_SIZE)
        rows = [self.alignment_row(geometry, j, words[j], tagged_number(geometry.scores[j], "alignment", (0, j),
                                                                        decimals=decimals))
                for j in range(len(geometry.keys))]
        panel = VGroup(heading, *rows).arrange(DOWN, buff=PANEL_GAP, aligned_edge=LEFT)
        plane = self.plane_beside(panel, [geometry.q, *geometry.keys, *geometry.feet])
        picture = PlanePicture(plane, {"q": [plane.arrow(geometry.q, style.QUERY)],
                                       "k": [plane.arrow(k, style.KEY) for k in geometry.keys]})
        picture.shadows = [plane.shadow(geometry.q, foot, style.SCORE_NEGATIVE if score < 0 else style.SCORE_POSITIVE,
                                        side=freer_side(foot, [geometry.q, *geometry.keys]))
                           for foot, score in zip(geometry.feet, geometry.scores)]
        names = self.arrow_names(picture, [("q", row, geometry.q)] + [("k", j, k) for j, k in enumerate(geometry.keys)],
                                 panel, lines=[line for _, mark in picture.shadows for line in straight_lines(mark)])
        taken = [*names, *panel, *plane.ticks]  # and the numbers placed before: tied keys stay drawn together
        for j, (cast, mark) in enumerate(picture.shadows):
            number = self.bracket_number(plane, mark, geometry.scores[j] / geometry.key_lengths[j], cast.get_color(),
                                         taken) if is_bracket(mark) else None
            if number is not None:
                picture.shadow_numbers[j] = number
                taken.append(number)
        self.alignment_picture, previous = picture, self.stage
        self.stage = [VGroup(plane, *picture.arrows["q"], *picture.arrows["k"], names, panel)]
        self.play(Vanish(*previous), Appear(plane), Appear(heading), run_time=0.6)
        self.play(GrowFromPoint(picture.arrows["q"][0], plane.origin), Appear(names[0]), run_time=0.6)
        self.play(*[GrowFromPoint(arrow, plane.origin) for arrow in picture.arrows["k"]], *map(Appear, names[1:]),
                  run_time=0.8)
        scale = self.sound_scale("scores")  # as QKᵀ's cells will sound
        for j, (worked, shadow) in enumerate(zip(rows, picture.shadows)):
            arc = plane.angle(geometry.keys[j], geometry.q)
            number = [picture.shadow_numbers[j]] if j in picture.shadow_numbers else []
            self.add(shadow, arc)
            self.bring_to_front(*picture.arrows["k"], *picture.arrows["q"], names)  # the shadow under the arrows
            self.play(Create(shadow), Create(arc), *map(Appear, number), run_time=0.8)
            self.cue("cell", lands=True, value=float(geometry.scores[j]), **scale)
            self.play(Appear(worked), run_time=0.5)
            self.wait(READ)
            self.play(Vanish(shadow, arc, *number), run_time=0.3)
        score = format_number(geometry.scores[list(geometry.seen)].max(), decimals)
        if geometry.all_tied:  # a zero query, say: no key wins, none is framed
            self.show_line(label_text(labels["tied_line"].format(score=score, i=row + 1, **masked), style.TEXT,
                                      style.BODY_SIZE))
            return
        picture.marked = geometry.aligned
        picture.marks = marks = VGroup(*[framed(part) for j in geometry.aligned for part in (rows[j], names[j + 1])])
        winning = [picture.shadows[j] for j in geometry.aligned]  # the winner's shadow comes back, and stays
        winning_numbers = [picture.shadow_numbers[j] for j in geometry.aligned if j in picture.shadow_numbers]
        self.beat("winner")  # which key wins is said as it is framed, not before its shadow was drawn
        self.add(*winning)
        self.bring_to_front(*picture.arrows["k"], *picture.arrows["q"], names)
        self.play(*map(Create, marks), *map(Create, winning), *map(Appear, winning_numbers),
                  *[picture.arrows["k"][j].animate.set_stroke(width=1.6 * ARROW_WIDTH) for j in geometry.aligned],
                  run_time=0.6)
        self.stage[0].add(marks, *winning, *winning_numbers)
        winners = ", ".join(f"k_{j + 1}{words[j]}" for j in geometry.aligned)
        line = labels["aligned_line"] if len(geometry.aligned) == 1 else labels["aligned_tie_line"]
        self.show_line(label_text(line.format(keys=winners, score=score, i=row + 1, **masked), style.TEXT,
                                  style.BODY_SIZE))

    @staticmethod
    def bracket_number(plane: VectorPlane, bracket: VGroup, length: float, colour, taken: list):
        """The shadow's length (q_i·kⱼ / |kⱼ|, signed) written by the middle of its bracket, on the side away from the
        line it measures, or else beside one of its ends, clear of ``taken``; in the shadow's colour. None where no
        place is clear: the panel's row says the score all the same."""
        number = number_text(length, colour, style.BODY_SIZE, decimals_for([length]))
        line = bracket[0]
        outward = line.get_start() - plane.origin  # the bracket sits BRACKET_GAP off the line, on this side
        outward = outward / np.linalg.norm(outward)
        along = (line.get_end() - line.get_start()) / np.linalg.norm(line.get_end() - line.get_start())
        places = [(line.get_center(), outward), (line.get_end(), along), (line.get_start(), -along)]
        for point, direction in places:
            number.next_to(point, direction, buff=BRACKET_NUMBER_GAP)
            if not any(overlaps(number, other) for other in taken):
                return number
        return None

    def show_weighted_average(self):
        """Right after Z = AV has its numbers, its row i seen as a place: the values as arrows from one
        origin (their hull shaded: where any weighted average lands), then each term A_ij·vⱼ laid tip to tail
        with its weight written (and heard), the heaviest first, landing on the point z_i, whose numbers close the
        step. It comes after the output rather than before it so that the point the arrows reach is a row the
        student has just seen computed, and its place, pulled towards the heaviest value, explains those numbers.
        Where the lighter terms would be drawn too short to see (or z_i would sit on a value's tip), a window beside
        the plane shows the region they fill, magnified, and z_i is marked and named there."""
        result, row = self.result, self.row
        mix = weighted_average(result.weights[row], result.V)
        order = [int(j) for j in np.argsort(-mix.weights, kind="stable")]  # the heaviest first: the rest near z_i
        terms = mix.terms[order]
        starts = np.vstack([np.zeros(2), np.cumsum(terms, axis=0)[:-1]])
        self.begin_step("weighted_average", i=row + 1)
        self.hide_line()
        labels, words = self.strings["labels"], self.row_words()
        z_decimals = decimals_for(result.output.flat)
        heading = label_text(labels["weighted_formula"].format(i=row + 1), style.TEXT, style.BODY_SIZE)
        rows = [text_with_numbers(labels["weighted_term"], {"weight": tagged_number(
                    mix.weights[j], "weighted_average", (0, j), style.ATTENTION, decimals=self.weight_decimals)},
                                  j=str(j + 1), word=words[j])
                for j in order]
        z_row = text_with_numbers(
            labels["weighted_result"].replace("{coordinates}", self.list_separator.join(f"{{z{c}}}" for c in range(len(result.output[0])))),
            {f"z{c}": tagged_number(value, "z_row", (0, c), style.OUTPUT, decimals=z_decimals)
             for c, value in enumerate(result.output[row])}, i=str(row + 1))
        panel = VGroup(heading, *rows, z_row).arrange(DOWN, buff=PANEL_GAP, aligned_edge=LEFT)
        points = [*mix.values, *mix.partial_sums]
        plane = self.plane_beside(panel, points)
        _, _, bottom, top = self.stage_box()
        region = self.magnified_region(plane, mix, terms, starts, top - bottom)
        if region is not None:
            plane, window = self.plane_beside(panel, points, inset=top - bottom)
        picture = PlanePicture(plane, {"v": [plane.arrow(v, style.VALUE) for v in mix.values],
                                       "terms": [plane.arrow(term, style.ATTENTION, start=start, width=ARROW_WIDTH / 2)
                                                 for term, start in zip(terms, starts)]})
        picture.order = order
        hull = plane.hull(mix.values)
        zoomed = VGroup()
        if region is not None:
            picture.inset = inset = Magnifier(plane, *region, size=window.width)
            inset.window.move_to(window)
            inset.join()
            picture.inset_arrows = {"v": [inset.arrow(v, style.VALUE) for v in mix.values],
                                    "terms": [inset.arrow(term, style.ATTENTION, start=start, width=ARROW_WIDTH / 2)
                                              for term, start in zip(terms, starts)]}
            corners = convex_hull(np.asarray(mix.values, dtype=float))
            edges = VGroup(*[inset.segment(a, b) for a, b in zip(corners, np.roll(corners, -1, axis=0))]) \
                if len(corners) > 1 else VGroup()
            picture.inset_edges = edges
            zoomed = VGroup(inset, edges, *picture.inset_arrows["v"])
        z_view = picture.inset if region is not None else plane
        picture.z_view = z_view
        picture.z_dot = Circle(radius=Z_RING, color=style.OUTPUT, stroke_width=4).move_to(z_view.point(mix.z))
        names = self.arrow_names(picture, [("v", j, v) for j, v in enumerate(mix.values)], panel)
        z_name = self.z_name(picture, mix, row)
        names.add(z_name)
        inset_names = VGroup()
        if region is not None:  # the values whose tips the window shows are named there too, and the zoom said
            inset_names = self.inset_names(picture, mix, z_name)
            picture.deep = deep = self.deeper_window(picture, mix, terms, starts)
            if deep is not None:
                picture.deep_arrows = [deep.arrow(term, style.ATTENTION, start=start, width=ARROW_WIDTH / 2)
                                       for term, start in zip(terms, starts)]
                deep.ring = Circle(radius=Z_RING, color=style.OUTPUT, stroke_width=4).move_to(deep.point(mix.z))
                deep.add(self.zoom_label(deep, self.segments_of(picture.deep_arrows), [deep.ring],
                                         inset.zoom * deep.zoom))
            inset_names.add(self.zoom_label(inset, self.segments_of(*picture.inset_arrows.values(), edges),
                                            [z_name, picture.z_dot, *inset_names, *([deep.window] if deep else [])],
                                            inset.zoom))
            zoomed.add(inset_names)
        self.weighted_picture, previous = picture, self.stage
        deep = picture.deep
        deeper = [deep, *picture.deep_arrows, deep.ring] if deep is not None else []  # over the window's arrows
        self.stage = [VGroup(plane, hull, *picture.arrows["v"], *picture.arrows["terms"], zoomed,
                             *picture.inset_arrows.get("terms", []), picture.z_dot, *deeper, names, panel)]
        self.play(Vanish(*previous), Appear(plane), Appear(heading), run_time=0.6)
        self.play(*[GrowFromPoint(arrow, plane.origin) for arrow in picture.arrows["v"]], *map(Appear, names[:-1]),
                  run_time=0.8)
        self.play(Create(hull), run_time=0.6)
        if region is not None:  # the window on the region the lighter terms will fill
            self.play(Create(inset.region), Appear(inset.window, inset.links, edges, *picture.inset_arrows["v"],
                                                   inset_names, *([deep] if deep is not None else [])), run_time=0.8)
        self.beat("terms")
        for k, (j, term, arrow) in enumerate(zip(order, rows, picture.arrows["terms"])):
            self.cue("cell", lands=True, value=float(mix.weights[j]), low=0.0, high=1.0)
            magnified = [GrowFromPoint(part, part.get_start()) for part in
                         [*picture.inset_arrows.get("terms", [])[k:k + 1], *picture.deep_arrows[k:k + 1]]
                         if part.has_points()]
            self.play(GrowFromPoint(arrow, plane.point(starts[k])), *magnified, Appear(term), run_time=0.8)
            self.wait(SECONDS_PER_NEW_NUMBER)
        self.beat("point")  # where z_i lands is said as it lands
        self.cue("values", lands=True, values=mix.z.tolist(), spacing=0.15, **self.sound_scale("Z"))  # as Z's cells
        self.play(Appear(picture.z_dot), Appear(z_name), Appear(z_row), *([Appear(deep.ring)] if deep else []),
                  run_time=0.8)
        heaviest = order[0]
        self.show_line(label_text(labels["weighted_line"].format(
            i=row + 1, j=heaviest + 1, word=words[heaviest],
            weight=format_number(mix.weights[heaviest], self.weight_decimals)),
            style.TEXT, style.BODY_SIZE))

    @staticmethod
    def magnified_region(plane: VectorPlane, mix, terms, starts, window: float):
        """(centre, side) in the plane's units of the region a magnifying ``window`` (its side, in frame units) should
        show, or None when every term after the heaviest is drawn long enough to see (SHORTEST_TERM) and z_i's ring
        is clear of the values' tips, or when the region is too large to gain INSET_ZOOM: the square round the
        points the lighter terms join (and z_i), with INSET_ROOM round them."""
        lengths = np.linalg.norm(terms, axis=1) * plane.unit
        short = [k for k in range(1, len(terms)) if 0 < lengths[k] < SHORTEST_TERM]
        crowded = np.min(np.linalg.norm(mix.values - mix.z, axis=1)) * plane.unit < 2 * Z_RING
        if not short and not crowded:
            return None
        joined = np.vstack([starts[1:], mix.z])
        low, high = joined.min(axis=0), joined.max(axis=0)
        side = max(float(np.max(high - low)) * (1 + 2 * INSET_ROOM), window / INSET_MOST / plane.unit)
        if side * plane.unit * INSET_ZOOM > window:
            return None
        return (low + high) / 2, side

    def z_name(self, picture: "PlanePicture", mix, row: int):
        """z_i's name by its mark, clear of the arrows and names around it, inside the plane's body or the window."""
        name = label_text(f"z_{row + 1}", style.OUTPUT, style.BODY_SIZE)
        view = picture.z_view
        inset = picture.inset
        arrows = [*picture.inset_arrows["v"], *picture.inset_arrows["terms"]] if inset else \
            [arrow for drawn in picture.arrows.values() for arrow in drawn]
        bounds = glyph_box(inset.window) if inset else self.stage_box()
        centre = view.point(mix.z)
        place_labels([name], [centre + np.array([Z_RING, 0, 0])], [np.array([1.0, 1.0, 0.0])],
                     [(arrow.get_start(), arrow.get_end()) for arrow in arrows if arrow.has_points()],
                     bounds, avoid=[picture.z_dot, *([] if inset else [*picture.plane.ticks, *picture.names])])
        return name

    @staticmethod
    def zoom_label(inset: Magnifier, segments: list, taken: list, zoom: float):
        """«×9»: how much larger than on the plane ``inset`` draws its region (``zoom``), in the first corner of its window
        that no segment of ``segments`` ((start, end) points) crosses and no mobject of ``taken`` covers (the bottom
        right when every corner is)."""
        label = label_text(f"×{zoom:.0f}", style.MUTED, style.CAPTION_SIZE)
        margin = 0.12
        for corner in (DR, UR, DL, UL):
            label.move_to(inset.window.get_corner(corner) - corner * (margin + np.array([label.width, label.height, 0])
                                                                      / 2))
            box = glyph_box(label)
            if not any(crosses(box, segment) for segment in segments) and not any(overlaps(label, other)
                                                                                   for other in taken):
                break
        else:
            label.move_to(inset.window.get_corner(DR) - DR * (margin + np.array([label.width, label.height, 0]) / 2))
        return label

    @staticmethod
    def segments_of(*groups) -> list:
        """(start, end) of every drawn line or arrow in ``groups``."""
        return [(part.get_start(), part.get_end()) for group in groups for part in group if part.has_points()]

    def deeper_window(self, picture: "PlanePicture", mix, terms, starts):
        """A window inside the magnifying window for the terms drawn there still shorter than SHORTEST_TERM (0.0127·v₁
        was 14 px under the next arrowhead and z_i's ring): the square round the points they join and z_i, magnified
        into DEEP_SHARE of the window, in the window's corner that the fewest of its lines cross and that covers
        neither z_i's ring nor the region it magnifies; None when no term is that short or the gain is under
        INSET_ZOOM."""
        inset = picture.inset
        lengths = np.linalg.norm(terms, axis=1) * inset.unit
        short = [k for k in range(1, len(terms)) if 0 < lengths[k] < SHORTEST_TERM]
        if not short:
            return None
        joined = np.vstack([starts[short], mix.z])
        low, high = joined.min(axis=0), joined.max(axis=0)
        size = DEEP_SHARE * inset.window.width
        side = max(float(np.max(high - low)) * (1 + 2 * INSET_ROOM), size / INSET_MOST / inset.unit)
        if side * inset.unit * INSET_ZOOM > size:
            return None
        deep = Magnifier(inset, (low + high) / 2, side, size)
        segments = self.segments_of(*picture.inset_arrows.values(), picture.inset_edges)
        kept = [deep.region, picture.z_dot]

        def crowding(corner) -> tuple[int, int]:
            deep.window.move_to(inset.window.get_corner(corner) - corner * (DEEP_MARGIN + size / 2))
            box = glyph_box(deep.window)
            return sum(overlaps(deep.window, part) for part in kept), sum(crosses(box, line) for line in segments)

        crowding(min((DR, DL, UR, UL), key=crowding))  # the window left in the least crowded corner
        return deep.join()

    def inset_names(self, picture: "PlanePicture", mix, z_name) -> VGroup:
        """v_j by its tip in the window, for each value whose tip the window shows."""
        inset = picture.inset
        shown = [j for j, v in enumerate(mix.values) if inset.inside(v)]
        names = VGroup(*[label_text(f"v_{j + 1}", style.VALUE, style.BODY_SIZE) for j in shown])
        arrows = [*picture.inset_arrows["v"], *picture.inset_arrows["terms"]]
        place_labels(list(names), [inset.point(mix.values[j]) for j in shown],
                     [np.array([*mix.values[j], 0]) for j in shown],
                     [(arrow.get_start(), arrow.get_end()) for arrow in arrows if arrow.has_points()],
                     glyph_box(inset.window), avoid=[z_name, picture.z_dot])
        return names

    def row_words(self) -> list[str]:
        """« word » after a vector's name, for each row of X (nothing when X's rows are not the example's)."""
        labels = self.strings["labels"]
        return [labels["word"].format(word=word) for word in self.words] if self.words else [""] * len(self.result.X)

    def alignment_row(self, geometry, j: int, word: str, score) -> VGroup:
        """kⱼ «word»: |q_i| · |kⱼ| · cos θ = score, each length and the angle with the decimals it needs."""
        q, k = (format_number(value, decimals_for([value])) for value in (geometry.query_length, geometry.key_lengths[j]))
        if np.isnan(geometry.angles[j]):  # a zero vector: no angle, and a score of 0
            return text_with_numbers(self.strings["labels"]["alignment_row_still"], {"score": score},
                                     j=str(j + 1), word=word, q=q, k=k)
        return text_with_numbers(self.strings["labels"]["alignment_row"], {"score": score}, j=str(j + 1), word=word,
                                 q=q, k=k, angle=format_number(geometry.degrees(j), 0))

    def plane_beside(self, panel: VGroup, points, inset: float = 0.0):
        """A plane holding ``points`` as large as the body allows left of ``panel`` (its worked rows), the two
        centred together between the formula map and the worked line. With ``inset`` (a height), a square window
        that high at most between them: returns (the plane, the window's place) then."""
        left, right, bottom, top = self.stage_box()
        fit(panel, (right - left) * (1 - PLANE_SHARE) - GAP, top - bottom)
        room = right - left - panel.width - GAP
        plane = VectorPlane(points, min(room, (right - left) * PLANE_SHARE), top - bottom)
        window = None
        if inset:  # the window takes what the plane leaves, at most its height
            side = min(inset, room - plane.width - GAP)
            if side < plane.height / 2:  # too little left: the plane gives up width to the window
                plane = VectorPlane(points, (room - GAP) / 2, top - bottom)
                side = min(inset, room - plane.width - GAP)
            window = Rectangle(width=side, height=side, stroke_width=0, fill_opacity=0)
        group = VGroup(plane, *([window] if window else []), panel).arrange(RIGHT, buff=GAP)
        group.move_to(np.array([(left + right) / 2, (bottom + top) / 2, 0]))
        return (plane, window) if inset else plane

    def arrow_names(self, picture: "PlanePicture", vectors: list, panel: VGroup, lines=()) -> VGroup:
        """q_i, k₂, ... by their arrows' tips, placed clear of each other, of the arrows, the axes and ``lines``, of
        the plane's numbers and of the worked ``panel``, inside the body."""
        plane = picture.plane
        picture.names = names = VGroup()
        colours = {"q": style.QUERY, "k": style.KEY, "v": style.VALUE, "z": style.OUTPUT}
        names.add(*[label_text(f"{letter}_{j + 1}", colours[letter], style.BODY_SIZE) for letter, j, _ in vectors])
        arrows = [arrow for drawn in picture.arrows.values() for arrow in drawn]
        # an arrowhead is wider than the segment the arrow runs on: kept clear of a name and of the frame it may get
        tips = [Rectangle(width=arrow.tip.width + 2 * TIP_CLEARANCE, height=arrow.tip.height + 2 * TIP_CLEARANCE)
                .move_to(arrow.tip) for arrow in arrows if hasattr(arrow, "tip")]
        place_labels(list(names), [plane.point(v) for _, _, v in vectors], [np.array([*v, 0]) for _, _, v in vectors],
                     [(line.get_start(), line.get_end()) for line in [*arrows, *plane.axes, *lines]], self.stage_box(),
                     avoid=[*tips, *plane.ticks, *panel,
                            *([picture.inset.region, picture.inset.window] if picture.inset else [])])
        return names

    # The last three steps: one change each ------------------------------------------------------------
    def contrast_results(self, inputs: dict) -> dict[str, AttentionSteps]:
        """The results the last three steps show, each one change to the lecture's matrices: the causal mask; X
        tripled (scores nine times larger) without scaling; W_Q as W_K. On the default preset's matrices these are
        the "large_scores" and "shared_projection" presets."""
        scale = self.settings.scale
        return {"causal": self_attention(**inputs, scale=scale, causal=True),
                "large_scores": self_attention(**{**inputs, "X": 3 * inputs["X"]}, scale=False),
                "shared_projection": self_attention(**{**inputs, "W_K": inputs["W_Q"]}, scale=scale)}

    def show_contrasts(self, inputs: dict):
        """The causal mask, the large scores unscaled and W_K = W_Q (contrast_results), each the scores beside A:
        those that enter the softmax, or for W_K = W_Q the undivided QKᵀ, whose diagonal its line reads. A step
        whose change the example already has is left out (MatrixConfig.skipped_steps)."""
        labels = self.strings["labels"]
        masked, large, shared = (self.contrasts[key] for key in ("causal", "large_scores", "shared_projection"))
        if self.shows("causal"):
            free = self_attention(**inputs, scale=self.settings.scale)
            word = labels["word"].format(word=self.words[0]) if self.words else ""
            self.show_contrast("causal", masked, [self.term(SOFTMAX)], lambda A: [A.row_box(0)],
                               sound=lambda: self.cue("masked", lands=True, before=free.weights[0].tolist(),
                                                      after=masked.weights[0].tolist()),
                               line=lambda A: labels["causal_line"].format(word=word,
                                                                           row=exact_row(masked.weights[0])))
        slopes = self.answers["large_scores"]
        collapsed = slopes["answer_variant"] is None
        self.show_contrast("large_scores", large, [self.term(SOFTMAX)],
                           lambda A: [A.cell_box(i, j) for i, j in enumerate(large.weights.argmax(axis=1))],
                           line=lambda A: labels["one_hot_line" if collapsed else "soft_line"].format(**slopes),
                           caption=self.contrast_caption("large_scores", "own" if collapsed else "soft"),
                           change=(labels["tripled_line"], r"9\,QK^\top"))  # the change, on screen as it is said
        if self.shows("shared_projection"):
            diagonal = self.answers["keys"]
            line = labels["diagonal_line" if diagonal["variant"] == "all" else f"diagonal_line_{diagonal['variant']}"]
            dominant = diagonal["variant"] == "all"  # where the learned projections have something to break
            self.show_contrast("shared_projection", shared, [self.term(KEYS_T)],
                               lambda A: [A.cell_box(i, i) for i in range(len(shared.X))],
                               line=lambda A: line.format(diagonal=exact_row(np.diag(shared.scores)),
                                                          rows=diagonal["rows"]),
                               change=(labels["shared_line"], r"QQ^\top"),  # K = Q, drawn as it is said
                               coda=labels["learned_line"] if dominant else None,
                               undivided=True, caption=self.contrast_caption("shared_projection", diagonal["variant"]),
                               rows=diagonal["rows"])

    def contrast_caption(self, key: str, variant: str) -> str:
        """The caption of contrast step ``key``: the preset's on the default preset's matrices (where the change
        gives that preset), else ``caption_<variant>``, which says what the change does to these matrices."""
        strings = self.strings["steps"][key]
        retold = self.settings.preset != "default" or self.settings.own_matrices()
        return strings[f"caption_{variant}"] if retold else strings["caption"]

    def show_contrast(self, key: str, result: AttentionSteps, terms: list, marks, line, sound=lambda: None,
                      undivided: bool = False, caption: str | None = None, change: tuple[str, str] | None = None,
                      coda: str | None = None, **fields):
        """The scores entering the softmax (``undivided``: QKᵀ before ÷ √d_k) with their colour bar beside A, row by
        row (each row of A sounds as it lands), then ``marks(A)`` framed (``sound`` as they close) and the worked
        ``line(A)``. A's label says what it is the softmax of; ``change``: (a worked line saying what changed, shown
        first, and what QKᵀ becomes in the labels); ``coda``: a line shown under the worked line once that has been
        read for CODA_PAUSE (the narration says it after the line's). ``caption`` and ``fields`` as begin_step takes
        them."""
        self.begin_step(key, caption=caption, with_header=self.clear_stage(), **fields)
        self.stage = []
        self.line_rows = 2 if coda else 1
        self.hide_line()
        self.point_map_at(*terms, scaled=result.scale)
        if change:
            self.show_line(label_text(change[0], style.TEXT, style.BODY_SIZE))
        divided = result.scale and not undivided
        values = result.scaled if divided else result.scores
        largest = covering_value(style.shared_largest(values))
        product = change[1] if change else r"QK^\top"
        label = product + r" / \sqrt{d_k}" if result.scale else product
        width = max(shared_cell_width(values), self.weights_matrix(result=result).cell_width)
        # Tagged as what they are: the scaled scores of the scaled and causal steps, or QKᵀ as in the scores step.
        scores = self.with_words(LabelledMatrix(values, label if divided else product, style.TEXT,
                                                "scaled" if divided else "scores", cell_width=width,
                                                fill=lambda value: style.score_colour(value, largest)))
        # these cells' own key (the bar and its ticks, named in the scores step), built larger: it shrinks with six
        # tokens' matrices and must stay legible
        with_legend(scores, score_legend(largest, "").scale(CONTRAST_LEGEND_SCALE))
        weights = self.weights_matrix(width, result, label=rf"A = \text{{softmax}}({label})")
        self.restage([scores, weights], in_a_row)
        if scores.cells[0][0].height < CELL_HEIGHT - 1e-6:  # shrunk to fit: the bar would cost the numbers their size
            scores.remove(scores.legend)
            del scores.legend
            self.stage = []
            self.restage([scores, weights], in_a_row)
        self.present(scores, coloured=True)
        self.present(weights, coloured=True,
                     before_row=lambda i: self.cue("row", lands=True, weights=[float(w) for w in result.weights[i]]))
        self.beat("marks")  # what the frames point out is said as they close
        sound()
        frames = marks(weights)
        self.play(*[Create(frame) for frame in frames], run_time=0.5)
        weights.add(*frames)  # they leave with A
        self.beat("line")  # a narration that reads the line apart from the frames says it as the line comes
        self.show_line(label_text(line(weights), style.TEXT, style.BODY_SIZE))
        if coda:
            self.wait(CODA_PAUSE)
            self.extend_line(label_text(coda, style.TEXT, style.BODY_SIZE))

    # Shared moves ------------------------------------------------------------------------------
    def fill_product(self, product: LabelledMatrix, left: LabelledMatrix, right: LabelledMatrix, repeat: bool = False):
        """Reveal product[i, j] = left[i] . right[:, j] cell by cell: the frames of row i and column j fade
        there (``reframe``) and settle, then the number is written. The first cells go slowly with their worked line."""
        n_rows, n_cols = product.values.shape
        pace = REPEAT if repeat else 1.0
        slow = 1 if repeat else SLOW_CELLS
        fast = self.seconds_per_cell(n_rows * n_cols - slow) * pace
        frames = [left.row_box(0), right.column_box(0)]
        self.play(*map(Create, frames), run_time=0.6 * pace)
        scale = self.sound_scale(product.name)
        for index, (i, j) in enumerate(np.ndindex(n_rows, n_cols)):
            careful = index < slow
            if index == slow:
                self.hide_line()
            if index:
                frames = self.reframe(frames, [left.row_box(i), right.column_box(j)],
                                      MOVE * pace if careful else 0.6 * fast)
            self.cue("cell", lands=True, value=float(product.values[i, j]), **scale)
            self.play(Appear(product.cells[i][j], product.entries[i][j]),  # a cell's colour comes with its value
                      run_time=WRITE * pace if careful else 0.4 * fast)
            if careful:
                self.show_line(self.expansion(product, left, right, i, j))
                self.wait(READ * pace)
        self.hide_line()
        self.play(*map(Vanish, frames), run_time=0.4)

    def reframe(self, frames: list, targets: list, seconds: float) -> list:
        """Take ``frames`` (a row's, a column's) to ``targets`` in ``seconds``: a frame whose place changes fades out
        as its new one fades in (in FRAME_FADE at most, then they settle), rather than sliding there, so that its
        edges never run across the numbers in between; returns the frames now shown."""
        moved = [(old, new) for old, new in zip(frames, targets)
                 if not np.allclose(glyph_box(old), glyph_box(new), atol=1e-6)]
        if not moved:
            return frames
        fade = min(seconds, FRAME_FADE)
        self.play(*[Vanish(old) for old, _ in moved], *[Appear(new) for _, new in moved], run_time=fade)
        if seconds - fade > 1e-3:
            self.wait(seconds - fade)
        return [next((new for old, new in moved if old is frame), frame) for frame in frames]

    def sound_scale(self, name: str) -> dict:
        """The blips' scale of the matrix ``name``'s quantity in this section (issue 30): the scores (QKᵀ and
        QKᵀ/√d_k) one, the vectors (X, Q, K, V and Z) another, so that a value sounds at one pitch in every
        matrix of its quantity."""
        result = self.result
        if name in SCORE_MATRICES:
            return shared_scale(result.scores, result.scaled)
        return shared_scale(result.X, result.Q, result.K, result.V, result.output)

    def expansion(self, product: LabelledMatrix, left: LabelledMatrix, right: LabelledMatrix, i: int, j: int):
        """The worked dot product of cell (i, j) with the numbers as the matrices write them, e.g.
        Q[1,1] = 1·3 + 0·(−1) = 3."""
        terms = " + ".join(f"{self.parenthesised(a)}·{self.parenthesised(b)}"
                           for a, b in zip(left.entries[i], [row[j] for row in right.entries]))
        name = product.label.tex_string.split("=")[0].replace("^\\top", "ᵀ").replace(" ", "")
        text = self.strings["labels"]["expansion"].format(name=name, i=i + 1, j=j + 1, terms=terms,
                                                          result=product.entries[i][j].shown_text)
        return label_text(text, style.TEXT, style.BODY_SIZE)

    @staticmethod
    def parenthesised(number) -> str:
        """A written number, in parentheses when negative: 2·(−1), (−1)·2."""
        text = number.shown_text
        return f"({text})" if text.startswith("−") else text

    def replace_row_by_row(self, old: LabelledMatrix, new: LabelledMatrix, seconds: float, extras=(),
                           new_row=lambda i: None, reading: float = SECONDS_PER_NEW_NUMBER):
        """Frame each row of ``old`` and swap its numbers and cell colours for ``new``'s (with ``extras[i]``),
        leaving each new row ``reading`` seconds a number; ``new_row(i)`` just before row i's new numbers come in. The label
        is true to what is drawn: ``old``'s stays until row 1's new numbers come in with ``new``'s label, and as
        they do the rows still to change are dimmed (PENDING_OPACITY): not yet what the new label names."""
        pending = [part for k in range(1, old.values.shape[0]) for part in (*old.entries[k], *old.cells[k])]
        for i in range(old.values.shape[0]):
            box = old.row_box(i)
            self.play(Create(box), run_time=0.3 * seconds)
            first = i == 0
            self.swap([*old.entries[i], *([old.label] if first else [])],
                      [*new.entries[i], *extras[i:i + 1], *([new.label] if first else [])], VGroup(*old.cells[i]),
                      VGroup(*new.cells[i]), run_time=0.7 * seconds + (LABEL_SWAP if first else 0.0),
                      between=lambda: new_row(i),
                      also=[part.animate.set_opacity(PENDING_OPACITY) for part in pending] if first else [])
            self.wait(reading * new.values.shape[1])
            self.play(Vanish(box), run_time=0.2)
        self.remove(old.brackets)
        self.add(new.brackets)

    def swap(self, old: list, new: list, old_cells=None, new_cells=None, run_time: float = 1.0,
             between=lambda: None, also=()):
        """Replace the ``old`` texts by the ``new`` in place: the old fade out (the cells behind them take their
        new colours meanwhile, and ``also`` plays), then (after ``between()``) the new fade in, so two numbers are
        never drawn over each other."""
        recolour = [ReplacementTransform(old_cells, new_cells)] if old_cells is not None else []
        self.play(Vanish(*old), *recolour, *also, run_time=run_time / 2)
        between()
        self.play(Appear(*new), run_time=run_time / 2)

    def show_line(self, line, *also):
        """Show one worked line between the matrices and the caption (one line or two), after the previous one has
        gone (``also``: animations played as it comes). A line that ends its step is its finished screen: finish_step
        holds it (FINISHED_HOLD, issue 26), and a narrated step's voice and the replay of its key sound run over that
        hold rather than after it."""
        raised = (self.line_rows - 1) * (LINE_HEIGHT + LINE_MARGIN)  # the rows of a coda to come stay free under it
        self.fit_line(line).next_to(self.header[-1], UP, buff=LINE_MARGIN + raised)
        self.hide_line()
        self.play(Appear(line), *also, run_time=0.3)
        self.line = line

    def extend_line(self, row):
        """A second row under the worked line (the step kept room for it: ``line_rows``), both staying to the end."""
        self.fit_line(row).next_to(self.header[-1], UP, buff=LINE_MARGIN)
        self.play(Appear(row), run_time=0.3)
        self.line = VGroup(self.line, row)

    @staticmethod
    def fit_line(line):
        """A worked line as wide as the body at most, LINE_HEIGHT high at most."""
        left, right, _, _ = style.body_box()
        return fit(line, right - left, LINE_HEIGHT)

    def finish_step(self):
        """A step's worked line ends with it: it sits just over the caption, and the next step's caption may take two
        lines where this one took one."""
        super().finish_step()
        self.hide_line()
        self.let_go()
        self.line_rows = 1

    def hide_line(self):
        if self.line is not None:
            self.play(Vanish(self.line), run_time=0.2)
            self.line = None

    def place_in_body(self, *arrangements, matrices: list, reserve_right: float = 0.0, later_captions=()):
        """Lay ``matrices`` out with whichever of ``arrangements`` (functions of the matrices returning them
        arranged) shows them largest, centred between the formula map and the worked line, ``reserve_right``
        left free on the right. Labels the fit left under 14 px grow back, and the group is fitted again."""
        left, right, bottom, top = self.stage_box(later_captions)
        width, height = right - left - reserve_right, top - bottom

        def scale(group) -> float:
            return min(LARGEST_SCALE, width / group.width, height / group.height)

        best = max(arrangements, key=lambda arrange: scale(arrange(*matrices)))
        group = best(*matrices)
        for _ in range(LAYOUT_ROUNDS):
            fit(group, width, height, largest_scale=LARGEST_SCALE)
            enlarge_formulas(group)
            if group.width <= width + 1e-3 and group.height <= height + 1e-3:
                break
        group.move_to(np.array([left + width / 2, bottom + height / 2, 0]))
        return group

    def stage_box(self, later_captions=()) -> tuple[float, float, float, float]:
        """(left, right, bottom, top) of the matrices: under the formula map, over the worked line that sits on
        the tallest of this step's caption and ``later_captions`` (those of the steps keeping this layout)."""
        left, right, _, top = style.body_box()
        return left, right, self.over_the_line((self.steps[-1].caption, *later_captions)), top - self.map_height()

    def over_the_line(self, captions) -> float:
        """The lowest a drawing may reach: over the worked line that sits on the tallest of ``captions``."""
        caption_top = max(self._caption(caption).to_edge(DOWN, buff=style.MARGIN).get_top()[1] for caption in captions)
        return caption_top + self.line_rows * LINE_HEIGHT + (self.line_rows + 1) * LINE_MARGIN

    @staticmethod
    def map_height() -> float:
        """Height the formula map takes at the top of the body, with a gap under it."""
        return MathTex(FORMULA, font_size=MAP_FONT_SIZE).height + MAP_GAP

    def align_row_sums(self):
        """Each "Σ = 1" right of its row of the scores, where the weights will be, clear of the bracket."""
        for i, row_sum in enumerate(self.row_sums):
            row_sum.next_to(self.S.brackets[1], RIGHT, buff=ROW_SUM_GAP).match_y(self.S.cells[i][-1])

    def row_labels(self) -> list[str] | None:
        """The word of each row of X: ``matrix.tokens``, the example's words when X is the preset's, else none (the
        answers then call the rows t₁, t₂, …)."""
        if self.settings.tokens is not None:
            return list(self.settings.tokens)
        if self.settings.X is None:
            return self.shown_words(worked_example.TOKENS)
        return None

    def softmax_caption(self) -> str:
        result, strings = self.result, self.strings["steps"]["softmax"]
        if self.settings.causal:
            return strings["caption_causal"]
        if np.all(result.weights.max(axis=1) > ONE_HOT):
            return strings["caption_one_hot"]
        if np.array_equal(result.Q, result.K) and np.all(result.weights.argmax(axis=1) == np.arange(len(result.X))):
            return strings["caption_diagonal"]
        return strings["caption"]

    @staticmethod
    def seconds_per_cell(cells: int, lower: float = 0.0) -> float:
        low, high = FAST_SECONDS
        return max(lower, min(high, max(low, 0.45 * cells)) / max(cells, 1))
