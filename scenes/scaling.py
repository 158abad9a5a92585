"""Section 2: why the scores are divided by sqrt(d_k), computed.

q · k spreads like sqrt(d_k); as d_k grows the unscaled softmax over the same keys collapses onto
one of them, and dividing by sqrt(d_k) brings the spread back to 1 so the softmax keeps sharing.
The score cells on screen, unscaled and scaled, share one colour scale (the bar beside the panels), fitted
to the scores the step shows: up to the configured d_k first, then every d_k of the last sweep (the bar names
the range): the scaled scores are visibly the smaller ones.
"""

from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, ORIGIN, RIGHT, UP, Brace, Create, DashedLine, Dot, FadeIn, GrowFromEdge, Indicate, LaggedStart, Line, MathTex,
                   Rectangle, ReplacementTransform, SurroundingRectangle, Transform, TransformFromCopy, VGroup, VMobject,
                   Write,
                   smooth, squish_rate_func)

from attn_math.attention import softmax
from attn_math.scaling import (DEVIATION_PAIRS, MEAN_ROWS, ScalingDemo, scaled_means, scaled_score_deviation, score_cloud,
                               score_deviation, scaling_demo, softmax_slopes, standard_deviation)
from lesson.numbers import format_number, parse_number
from lesson.scaling_answers import COLLAPSED, EXERCISE, exercise_fields, question_fields, scaled_step, swept
from scenes import style
from scenes.bar_chart import BarChart
from scenes.fades import Appear, Swap, Vanish
from scenes.heatmap import ColourLegend, round_value, signed_colour
from scenes.lesson_scene import LONGEST_FREEZE, LessonScene, wrapped_text
from scenes.softmax_moves import SoftmaxMoves
from scenes.visuals import cap_height, fit, label_text, number_text
from sonify.mappings import SEQUENCE_GAP, shared_scale, softmax_row
from sonify.synth import SAMPLE_RATE

GROWTH = (2, 8, 64, 512)  # the d_k the table, the cloud and the last sweep show, besides the configured one
HOLD = 2.5  # seconds a state is held so a student can read it (longer when a step has more numbers to read)
STILL_MARGIN = 0.5  # a hold stays this much under the longest still stretch allowed
CHANGE = 1.5  # seconds one change of d_k takes
SWEEP_HOLD = 1.6  # seconds each d_k is held when the sweep repeats with both panels (its numbers were read once)
SWEEP_CHANGE = 1.0
# The growing step's sweep: a row stays while its chord sounds, and a while longer when a line says why another key
# leads there (its new numbers and that line: 1.5 s was too short to read them, review s15 round 3); its first row was
# read while the voice spoke, its last stays under the voice after it
CHORD_HOLD, LINE_HOLD = 1.1, 2.6
NOTE_LIGHT = 1.0  # the table's noise note lit once as the voice ends: the last screen is not still 6 s
NAMED_WAIT = 1.2  # into that longer hold, the score its line names is framed: the row never stands 6 s near still
STATE_HOLD = 2.0  # seconds each d_k is held in the last sweep (its numbers stay, read, in the table after it)
STATE_CHANGE = 0.7  # seconds the last sweep takes to move both panels to the next d_k
SUMMARY_READ = 8.0  # seconds of the last step's reading left to the summary table after the sweep (it stays longer)
# new numbers in the lines of the guide's exercise 5 under that table: 8, 64, 2.83 and the two undivided entropies; the
# divided two and the key count it adds repeat cells and counts already on screen (the section's time budget is full)
EXERCISE_NUMBERS = 5
EXERCISE_HEIGHT = 0.8  # those two lines, under the table
NOISE_HEIGHT = 0.8  # the two lines between them and the table: its divided columns' drift is one draw's noise
WAVE = 0.35  # of a change's play, one number's swap: they come left to right, a few at a time blank
QUICK_CHANGE = 0.45  # a divided deviation joining the column: the cloud barely moves
KEY_SECONDS = 0.25  # a change of many keys' numbers takes this long a key (at least CHANGE): time to read them
LEGEND_GAP = 0.45  # between the panels and the colour bar of the scores
LEGEND_HEIGHT = 1.6
LEGEND_SCALE = 1.15  # the colour bar beside the panels, its label and ticks, this much larger than built: over 16 px
LEGEND_ROOM = 2.0  # the colour bar, its ticks and its label, right of the panels
LEGEND_SLOT_GAP = 0.12  # between the colour bar in a panel's left column and the score label under it
# A row whose largest weight is at most this still shares: dividing its exponentials by their sum moves its tallest
# bar by a tenth of the unit at least (the exponentiate step shows such a row)
SHARING = 0.9
REACHED = 0.005  # a key's slope p(1 − p) that shows on screen (over 0.00): the gradient reaches it
FRAME_CLEARANCE = 0.12  # between a frame and the digits it surrounds: 11 px at 720p, clear of the glyphs (review s15)
CHART_HEIGHT = 2.4  # the unscaled panel alone
STACKED_CHART_HEIGHT = 1.45  # each of the two panels, one above the other (the lower without key labels): a weight
# of 1 as tall as the room lets it be, the divided panel keeping room only for the weights it shows
SCALED_HEADROOM = 0.05
# ... when their titles go above them (many keys): the line each title takes comes off its chart, so the
# stacked panels shrink no more than the wide ones, and 16 keys keep their numbers at 14 px
TITLED_STACKED_CHART_HEIGHT = 0.9
BAR_WIDTH, BAR_GAP = 0.45, 0.4  # gaps wide enough that the values above the bars stay apart: many keys' columns
# Fewer keys take wider columns, up to WIDE_STEP each, within CHART_ROOM (the width the side column and the colour
# bar leave): wider score cells keep their numbers larger
WIDE_STEP, CHART_ROOM = 1.0, 8.4
CELL_GAP = 0.14  # between two score cells: each number reads as its own («−3.30 −8.02», never «−3.30−8.02»)
CELL_FILL = 0.94  # of a cell's width its widest number takes
SCORE_CELL_HEIGHT = 0.42
NUMBER_SIZE = style.BODY_SIZE  # scores and weights: the panels shrink to fit, these must stay over 14 px
# The guide's H(α_i) = −Σ_j α_ij log₂ α_ij for the one row shown: the entropy in bits the side column gives (0 when
# one key takes everything, log₂ n when n keys share evenly), under that number: «H(α) =», then the whole sum on one
# line (three lines broke the product: review s16), narrow enough for the side column
ENTROPY_FORMULA = (r"H(\alpha) =", r"-\textstyle\sum_j \alpha_j \log_{\mbox{\footnotesize 2}} \alpha_j")  # log's 2 at 80 %
FORMULA_SIZE = 38  # the sum on one line no wider than the column's other lines; log₂'s 2 (80 % of text) over 16 px
# Why Σ p(1 − p) measures the gradient, drawn under the scores as the voice names the keys left at zero: its terms are
# the diagonal of the softmax's Jacobian ∂p_i/∂(q·k_j) = p_i(δ_ij − p_j), whose off-diagonal terms −p_i p_j vanish too
# once one p is ≈ 1 (review s15 round 3: beside the column, «∂p/∂(q·k)» read as the label of the score row)
JACOBIAN = r"\partial p_i / \partial (q\cdot k_j) = p_i(\delta_{ij} - p_j)"
JACOBIAN_SIZE = 40  # its subscripts over 16 px at 720p once the line is fitted to the panel's width
JACOBIAN_GAP = 0.12  # between its words and the formula
SCORE_LABEL_SIZE = 38  # its subscripts stay over 14 px at 720p when the panels are stacked
WIDEST_SCORE = -88.8  # a score as wide as any shown (five characters), so one font size fits every cell
VALUE_ROOM = 0.35  # above a full-height bar, for its value (0.29 high at most)
SIDE_GAP = 0.35  # between a panel's title column and its chart
SIDE_LINE_GAP = 0.12  # between the lines of that column
SIDE_NUMBER_GAP = 0.28  # between a side line's words and its number: the frame round the number clears the colon
READOUT_GAP = 0.3  # between the readout line and the panels
NOTE_HEIGHT = 0.4  # kept under the panels for the zero-gradient note
NOTE_GAP = 0.25  # between the panels and the note
FRAME_ROOM = 0.2  # under the stacked panels, for the frame drawn round the scaled one
PANEL_GAP = 0.25  # between the unscaled panel and the scaled one under it
READOUT_NUMBERS = {"d_k": (style.TEXT, 0), "sample": (style.TEXT, 2), "deviation": (style.TEXT, 2),
                   "root": (style.TEXT, 2), "scaled_sample": (style.MUTED, 2),
                   "scaled_deviation": (style.TEXT, 2)}  # colour and decimals of each number in the readout
# The readout's numbers before and after dividing: the panel's own scores' deviation beside the table's (many pairs)
READOUT_SHOWN = {False: ("d_k", "sample", "deviation", "root"), True: ("d_k", "root", "scaled_sample", "scaled_deviation")}
# A compared panel's softmax sounds once the other's has finished, SEQUENCE_GAP later: apart on a mono speaker.
COMPARED_TURN = len(softmax_row([1.0])) / SAMPLE_RATE + SEQUENCE_GAP
UNSCALED_LABEL, SCALED_LABEL = r"q\cdot k_j", r"q\cdot k_j / \sqrt{d_k}"
CLOUD_LABEL, SCALED_CLOUD_LABEL = r"q\cdot k", r"q\cdot k / \sqrt{d_k}"  # the cloud's axis: one pair per dot
CLOUD_POINTS = 400  # dots of the cloud: the first draws of the table's deviation
CLOUD_WIDTH, CLOUD_HEIGHT = 9.0, 1.3  # the axis, and the band the dots are spread over above it
CLOUD_MARGIN = 1.05  # the axis reaches this much past the farthest dot
CLOUD_GAP = 0.45  # between the table and the cloud under it
CLOUD_LABEL_SIZE = style.BODY_SIZE + 12  # the axis's label and ±σ: their scripts stay legible at 720p
# The divided clouds side by side, a strip each over one axis, all of them this tall whatever their count (a fifth
# d_k shrinks the strips, not their labels); of a strip's height: the band of its dots, the gap under it and the
# room over it for its ±σ bracket; its d_k's name on the left
STRIPS_HEIGHT = 2.24
STRIP_BAND, STRIP_GAP, STRIP_BRACKET = 0.54, 0.18, 0.28
STRIP_NAME_SIZE = style.BODY_SIZE
DOT_RADIUS, DOT_OPACITY = 0.035, 0.6  # overlapping dots read as density
BLIP_SPACING = 0.12  # seconds between the exponentials' blips
SHORTEST_CHANGE = 0.8  # a label that changes alone
GOLDEN = (np.sqrt(5) - 1) / 2  # dot k sits at height frac(k x GOLDEN) of the band: evenly spread, no pattern
VARIANCE = (r"\mathrm{Var}(", "q", r"\cdot", "k", r") = \sum_{i=1}^{d_k} \mathrm{Var}(", "q_i", r"\,", "k_i",
            r")", r"= d_k")
SUM_PART = len(VARIANCE) - 1  # "= d_k": framed as the voice says the sum's variance is the dimension
ROW_REVEAL, ROW_READ = 0.6, 0.3  # seconds a table row takes to come, and to be read before the next
PREMISE_WIDTH = 3.6  # the premise beside 1 + 1 + ⋯ + 1
PREMISE_GAP = 0.6
UNIT_TERMS = ("1", "+", "1", "+", "1", "+", r"\cdots", "+", "1")  # Var(q_i k_i) = 1, d_k times
TERMS_RUN, TERM_LAG = 1.2, 0.8  # the terms come one after the other, each in about a sixth of a second
SHORTEST_APPEAR = 0.4
# A piece the voice names pops in: a grey text fading in over more than a few frames changes each frame too little
# to be seen moving (the reviewers' measure: 24 grey levels a frame at 30 fps)
POP = 0.15
MARK_POP = 0.2  # a frame round what the voice names, or a line it says, lands in this: seen to land
COPY_DOWN = 0.8  # the scores copied down to the divided panel's row
FIRST_HALF, SECOND_HALF = squish_rate_func(smooth, 0.0, 0.5), squish_rate_func(smooth, 0.5, 1.0)  # one out, then in
# a line that goes as its d_k changes, and one that comes as the next lands: each within a seventh of the change, quick
# enough to be seen going or landing (a line fading over half the change read as one 6 s near-still stretch with the
# rows before and after it: review s15 round 3's measure)
QUICK_OUT, QUICK_IN = squish_rate_func(smooth, 0.0, 0.15), squish_rate_func(smooth, 0.85, 1.0)
LEAD_GAP, LEAD_SIDE_GAP = 0.08, 0.2  # over and under the d_k = 64 lines beside the framed bar, and beside them
LEAD_WRAP_GAIN = 1.15  # those lines are wrapped only when it keeps them this much larger: a line broken for a few
# percent of size reads worse than a whole one
ROUNDED_GAP = 0.5  # between the rounding note and the sum right of it
NEW_TERMS_HEIGHT, NEW_TERMS_GAP = 0.45, 0.15  # the line under the growing step's scores on why the largest key changed
ASIDE_GAP = 0.15  # round the short rounding note in the corner under the colour bar
SUPERSCRIPT_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
PULLED_WAIT = 2.0  # after the exponentials' move, before the largest bar is framed: the voice's «la barra mayor se aleja»
LAB_D_K = 8  # the lab's simulation (guide §5.1, Paso 5): its d_k, named over the summary table
LAB_GAP = 0.15  # between that line and the table: a fifth d_k's row keeps the table's letters over 14 px
QUICK_SWAP = 0.8  # numbers that change as the voice names the change: each fades out, then its new value in, 0.4 s


def wave(animations: list) -> list:
    """``animations`` with each number's Swap in a window of its own, left to right across the screen (WAVE of the
    play each): the numbers never vanish all at once, as they did when every Swap faded out in the same half."""
    swaps = [animation for animation in animations if isinstance(animation, Swap)]
    if len(swaps) > 1:
        xs = [animation.mobject.get_x() for animation in swaps]
        left, width = min(xs), (max(xs) - min(xs)) or 1.0
        for animation, x in zip(swaps, xs):
            start = (x - left) / width * (1 - WAVE)
            animation.rate_func = squish_rate_func(smooth, start, start + WAVE)
    return animations


def shown_value(value: float) -> float:
    """``value`` as format_number writes it on screen (11.7, 1.49): a result computed from it is what a student
    recomputing from the screen finds."""
    return parse_number(format_number(value))


def recomputing_misses(scores, weights) -> bool:
    """Whether a student recomputing softmax from the ``scores`` as shown, or adding the ``weights`` as shown, misses a
    shown weight or Σ = 1.00 by one in the last digit (seed 10 at d_k = 8: e^{0.05 − 0.96} gives 0.40, shown 0.41)."""
    scores, weights = np.array([shown_value(s) for s in scores]), np.array([shown_value(w) for w in weights])
    again = softmax(scores)
    return abs(weights.sum() - 1.0) > 0.005 or bool(np.any(np.abs(np.round(again, 2) - weights) > 0.005))


def times_text(factor: float) -> str:
    """A large factor to two significant digits: 27 000 (in groups of three), or 10 with a superscript exponent
    past a million (no e-notation on screen)."""
    if factor < 1e6:
        return grouped(int(float(f"{factor:.2g}")))
    return "10" + str(int(np.floor(np.log10(factor)))).translate(SUPERSCRIPT_DIGITS)


def grouped(count: int) -> str:
    """A count in groups of three digits split by a no-break space, as SI writes it: 20 000."""
    return f"{count:,}".replace(",", "\u00a0")


def gradient_reach(weights: np.ndarray) -> float:
    """Σ p_j(1 − p_j): the softmax row's total slope (the trace of its Jacobian), how much each weight moves with its
    own score, summed over the keys: ≈ 0 for a one-hot row, whose scores get almost no gradient back."""
    return float(softmax_slopes(weights).sum())


class ValueAxis(VGroup):
    """One fixed axis of values q · k (ticks, their numbers, a TeX label on the right, words under it) on which dots
    and ±σ brackets are drawn: a dot's x is its value, as built CLOUD_WIDTH wide from −``reach`` to +``reach``."""

    def __init__(self, reach: float, ticks, label: str, caption: str | None):
        """``caption``: words under the tick numbers, or None."""
        super().__init__()
        self.reach = reach
        self.axis = Line([-CLOUD_WIDTH / 2, 0, 0], [CLOUD_WIDTH / 2, 0, 0], color=style.MUTED, stroke_width=2)
        self.ticks = VGroup(*[Line([self.x_of(value), -0.08, 0], [self.x_of(value), 0.08, 0], color=style.MUTED,
                                   stroke_width=2) for value in ticks])
        self.tick_labels = VGroup()
        for i, value in enumerate(ticks):
            text = number_text(value, style.MUTED, style.CAPTION_SIZE, decimals=0)
            text.tag = ("cloud_axis", (0, i))
            self.tick_labels.add(text.next_to(self.ticks[i], DOWN, buff=0.1))
        self.label = MathTex(label, color=style.TEXT, font_size=CLOUD_LABEL_SIZE).next_to(self.axis, RIGHT, buff=0.2)
        self.add(self.axis, self.ticks, self.tick_labels, self.label)
        if caption is not None:
            self.caption = label_text(caption, style.MUTED, style.CAPTION_SIZE)
            self.caption.next_to(self.tick_labels, DOWN, buff=0.2)
            self.add(self.caption)

    @property
    def scale_factor(self) -> float:
        return self.axis.get_length() / CLOUD_WIDTH

    def x_of(self, value: float) -> float:
        """Frame x of ``value`` on the axis, as built."""
        return value / self.reach * CLOUD_WIDTH / 2

    def value_of(self, x: float) -> float:
        """The value at frame x on the axis where it is now (tests read the dots back)."""
        return (x - self.axis.get_center()[0]) / self.scale_factor / (CLOUD_WIDTH / 2) * self.reach

    def dots_at(self, values: np.ndarray, low: float, band: float) -> VGroup:
        """A dot a value, as built, at its x; dot k at height low + frac(k x GOLDEN) x band (its height only keeps
        dots apart), coloured by sign as scores are."""
        heights = low + band * ((np.arange(len(values)) * GOLDEN) % 1.0)
        return VGroup(*[Dot([self.x_of(value), y, 0], radius=DOT_RADIUS, fill_opacity=DOT_OPACITY,
                            color=score_sign_colour(value)) for value, y in zip(values, heights)])

    def bracket_at(self, deviation: float, y: float) -> VGroup:
        """|—| from −``deviation`` to +``deviation`` at height ``y``, as built."""
        left, right, arm = self.x_of(-deviation), self.x_of(deviation), 0.06
        return VGroup(Line([left, y, 0], [right, y, 0]), Line([left, y - arm, 0], [left, y + arm, 0]),
                      Line([right, y - arm, 0], [right, y + arm, 0])).set_stroke(style.TEXT, 2.5)

    def placed(self, built: VGroup) -> VGroup:
        """``built`` (made at the axis's built place and size) moved and scaled as the axis has been since."""
        return built.scale(self.scale_factor, about_point=ORIGIN).shift(self.axis.get_center())


def run_frames(items, chosen: list[bool], colour, floor: float | None = None) -> VGroup:
    """One frame round each run of neighbouring ``chosen`` items (the keys whose weight is ≈ 0, the keys a gradient
    reaches): a frame a key put eight outlines 12 px apart across the axis (review s13). With a ``floor`` (the y of
    the axis the items stand on) the frame is open there, its sides ending on that axis: a bottom edge just under
    the axis drew it twice (review s15)."""
    frames, run = VGroup(), []
    for item, flag in [*zip(items, chosen), (None, False)]:
        if flag:
            run.append(item)
        elif run:
            frames.add(run_frame(VGroup(*run), colour) if floor is None else standing_frame(VGroup(*run), colour, floor))
            run = []
    return frames


def run_frame(mobject, colour) -> SurroundingRectangle:
    """A closed frame FRAME_CLEARANCE round ``mobject``."""
    return SurroundingRectangle(mobject, color=colour, buff=FRAME_CLEARANCE, stroke_width=2, corner_radius=0.06)


def standing_frame(mobject, colour, floor: float) -> VMobject:
    """Three sides of a frame FRAME_CLEARANCE round ``mobject``: up from the axis at y = ``floor``, over, and down to
    it again (the axis closes it)."""
    left, right = mobject.get_left()[0] - FRAME_CLEARANCE, mobject.get_right()[0] + FRAME_CLEARANCE
    top = mobject.get_top()[1] + FRAME_CLEARANCE
    corners = [np.array([x, y, 0.0]) for x, y in ((left, floor), (left, top), (right, top), (right, floor))]
    return VMobject(color=colour, stroke_width=2).set_points_as_corners(corners)


def scale_frame(moves: SoftmaxMoves) -> VMobject:
    """A frame round what «las dibujamos divididas por la mayor» names: every bar, the line of 1 over them and its label
    «1 = e^{max}» left of it, standing on the axis (its sides end on the baseline's ends: no second line under the
    axis, review s15 round 3), with a step in over the label so that its left side comes down clear of the «0»."""
    clear, floor = FRAME_CLEARANCE, moves.baseline.get_y()
    left, right = moves.baseline.get_left()[0], moves.baseline.get_right()[0]
    label = moves.one
    outer, step = label.get_left()[0] - clear, label.get_bottom()[1] - clear
    top = max(label.get_top()[1], moves.top_line.get_y(), *[bar.get_top()[1] for bar in moves.bars]) + clear
    corners = [(left, floor), (left, step), (outer, step), (outer, top), (right, top), (right, floor)]
    return VMobject(color=style.HIGHLIGHT, stroke_width=2.5).set_points_as_corners(
        [np.array([x, y, 0.0]) for x, y in corners])


def score_sign_colour(value: float):
    return style.SCORE_POSITIVE if value >= 0 else style.SCORE_NEGATIVE


class ScoreCloud(ValueAxis):
    """Many scores q · k as dots on one fixed axis (a dot is a pair q, k), and a bracket from −σ to +σ over them:
    ``move_to_values`` moves the dots and the bracket to new values."""

    def __init__(self, reach: float, label: str, caption: str):
        """``reach``: the largest |value| the axis shows; ``label``: what the values are (TeX); ``caption``: words
        under the axis (each dot a pair)."""
        step = nice_tick(reach)
        super().__init__(reach, (-step, 0.0, step), label, caption)
        self.dots = self.dots_at(np.zeros(CLOUD_POINTS), 0.2, CLOUD_HEIGHT)
        self.bracket_y = CLOUD_HEIGHT + 0.45
        self.bracket = self.bracket_at(1.0, self.bracket_y)
        self.sigma = MathTex(r"\pm\sigma", color=style.TEXT, font_size=CLOUD_LABEL_SIZE)
        self.sigma.next_to(np.array([0, self.bracket_y, 0]), UP, buff=0.15)
        self.add(self.dots, self.bracket, self.sigma)

    def show(self, values: np.ndarray, deviation: float) -> None:
        """Put the dots at ``values`` and the bracket at ±``deviation`` at once (before the cloud is on screen)."""
        self._place(self.dots, values)
        self.bracket.become(self._placed_bracket(deviation))

    def move_to_values(self, values: np.ndarray, deviation: float) -> list:
        """Animations that move every dot to its new value and the bracket to ±``deviation``."""
        return [Transform(self.dots, self._place(self.dots.copy(), values)),
                Transform(self.bracket, self._placed_bracket(deviation))]

    def _place(self, dots: VGroup, values: np.ndarray) -> VGroup:
        """``dots`` moved across to ``values`` on the axis where it is now, coloured by sign (as scores are)."""
        origin, scale = self.axis.get_center()[0], self.scale_factor
        for dot, value in zip(dots, values):
            dot.set_x(origin + self.x_of(value) * scale).set_fill(score_sign_colour(value), opacity=DOT_OPACITY)
        return dots

    def _placed_bracket(self, deviation: float) -> VGroup:
        return self.placed(self.bracket_at(abs(deviation), self.bracket_y))


class DividedStrips(ValueAxis):
    """Every d_k's cloud divided by √d_k, side by side: a thin strip of dots a d_k, stacked over one axis on which
    ±1 is wide (a tick every unit), each with its ±σ bracket and its d_k on the left. The strips are as wide as each
    other: the brackets all end at the dashed lines at ±1 (``guides``). ``strips[d_k]``: (dots, bracket, name)."""

    def __init__(self, values: dict[int, np.ndarray], deviations: dict[int, float], label: str):
        """``values``: each d_k's divided scores; ``deviations``: their σ; ``label``: the axis's TeX. No words under
        the axis: the raw cloud before it said what a dot is."""
        reach = max(float(np.max(np.abs(row))) for row in values.values()) * CLOUD_MARGIN
        whole = int(np.floor(reach / CLOUD_MARGIN))
        super().__init__(reach, [float(value) for value in range(-whole, whole + 1)], label, None)
        self.strips = {}
        pitch = STRIPS_HEIGHT / len(values)
        for index, d_k in enumerate(sorted(values, reverse=True)):  # the largest d_k lowest, as in the table
            low = (index + STRIP_GAP) * pitch
            bracket = self.bracket_at(deviations[d_k], low + (STRIP_BAND + STRIP_BRACKET / 2) * pitch)
            name = label_text(f"d_k = {d_k}", style.TEXT, STRIP_NAME_SIZE)
            name.next_to(self.axis, LEFT, buff=0.3).set_y(low + STRIP_BAND * pitch / 2)
            self.strips[d_k] = VGroup(self.dots_at(values[d_k], low, STRIP_BAND * pitch), bracket, name)
        top = max(strip[1].get_y() for strip in self.strips.values())
        self.sigma = MathTex(r"\pm\sigma", color=style.TEXT, font_size=CLOUD_LABEL_SIZE)
        self.sigma.next_to(np.array([0, top, 0]), UP, buff=0.15)
        self.guides = VGroup(*[DashedLine([self.x_of(side), 0, 0], [self.x_of(side), top, 0], color=style.HIGHLIGHT,
                                          stroke_width=2, dash_length=0.08) for side in (-1.0, 1.0)])
        self.add(*self.strips.values(), self.sigma, self.guides)


def covering_end(largest: float) -> float:
    """``largest`` rounded up at its second significant digit (12.8 → 13, 51.6 → 52): the end of a colour scale
    every score shown fits under, about as saturated as one ending at ``largest``."""
    if largest <= 0:
        return 1.0
    power = 10.0 ** (np.floor(np.log10(largest)) - 1)
    return float(np.ceil(largest / power - 1e-9) * power)


def score_legend(end: float, label: str, height: float) -> ColourLegend:
    """The scores' colour bar from −``end`` to +``end``, ticked at both ends and at 0: every score shown lies within
    the numbers it names (ticks at ±10 under a −12.8 cell read as a scale that clips)."""
    return ColourLegend(signed_colour(end), -end, end, height=height, ticks=[-end, 0.0, end], label=label,
                        name="score_legend")


def nice_tick(reach: float) -> float:
    """The largest 1, 2 or 5 x 10^k under 0.8 ``reach``: the axis's ticks at ± it, round and inside it."""
    return round_value(0.8 * reach, steps=(1, 2, 5))


class Readout(VGroup):
    """One line of words and numbers (d_k, the deviation of q · k, ...); ``change_to`` swaps the numbers in place.

    Each number sits left-aligned in a slot as wide as the longest value it will show, so the words never move.
    """

    def __init__(self, groups: list[list], states: list[dict[str, float]], shown: dict[str, float]):
        """``groups``: word mobjects and number names (keys of READOUT_NUMBERS), in reading order."""
        super().__init__()
        self.slots = {}
        line = VGroup()
        for pieces in groups:
            group = VGroup()
            for piece in pieces:
                if isinstance(piece, str):
                    colour, decimals = READOUT_NUMBERS[piece]
                    longest = max((state[piece] for state in states), key=lambda v: len(format_number(v, decimals)))
                    widest = self._number(piece, longest)
                    self.slots[piece] = Rectangle(width=widest.width, height=widest.height, stroke_width=0,
                                                  fill_opacity=0)
                    piece = self.slots[piece]
                group.add(piece)
            line.add(group.arrange(RIGHT, buff=0.15))
        self.add(line.arrange(RIGHT, buff=0.6))
        self.built_height = next(iter(self.slots.values())).height
        self.numbers = {name: self._placed(name, shown[name]) for name in self.slots}
        self.add(*self.numbers.values())

    @staticmethod
    def _number(name: str, value: float):
        colour, decimals = READOUT_NUMBERS[name]
        text = number_text(value, colour, style.BODY_SIZE, decimals=decimals)
        text.tag = (name, (0, 0))
        return text

    def _placed(self, name: str, value: float):
        slot = self.slots[name]
        return self._number(name, value).scale(slot.height / self.built_height).move_to(slot, aligned_edge=LEFT)

    def change_to(self, values: dict[str, float]) -> list:
        """Animations that swap every number for its new value."""
        animations = []
        for name, old in list(self.numbers.items()):
            new = self._placed(name, values[name])
            animations.append(Swap(old, new))
            self.remove(old)
            self.numbers[name] = new
            self.add(new)
        return animations


def columns(n_keys: int) -> tuple[float, float]:
    """(bar width, gap) of a chart of ``n_keys`` bars: as wide as CHART_ROOM allows, between BAR_WIDTH + BAR_GAP and
    WIDE_STEP a key, the bar and the gap in BAR_WIDTH : BAR_GAP."""
    step = min(WIDE_STEP, max(BAR_WIDTH + BAR_GAP, CHART_ROOM / n_keys))
    return step * BAR_WIDTH / (BAR_WIDTH + BAR_GAP), step * BAR_GAP / (BAR_WIDTH + BAR_GAP)


class ScoreRow(VGroup):
    """The scores under a bar chart (under its key labels, or its baseline when the labels are left out), one
    heat-coloured cell per bar, CELL_GAP apart, with a MathTex label on the left."""

    def __init__(self, chart: BarChart, scores: np.ndarray, label: str, largest: float, name: str, under=None):
        super().__init__()
        self.chart, self.largest, self.name = chart, largest, name
        row_y = (chart.labels if under is None else under).get_bottom()[1] - 0.12 - SCORE_CELL_HEIGHT / 2
        step = chart.bars[1].get_x() - chart.bars[0].get_x() if len(chart.bars) > 1 else chart.bars[0].width * 2
        # many keys' narrow columns keep their cells as wide as before: a gap there would shrink their numbers
        gap = CELL_GAP if step > BAR_WIDTH + BAR_GAP + 1e-6 else BAR_GAP * 0.1
        self.cells = VGroup(*[Rectangle(width=step - gap, height=SCORE_CELL_HEIGHT, stroke_width=0,
                                        fill_color=style.score_colour(score, largest), fill_opacity=1.0)
                              .move_to(np.array([bar.get_x(), row_y, 0]))
                              for bar, score in zip(chart.bars, scores)])
        widest = number_text(WIDEST_SCORE, font_size=NUMBER_SIZE).width
        self.number_scale = min(1.0, self.cells[0].width * CELL_FILL / widest)
        self.numbers = VGroup(*[self._number(j, score) for j, score in enumerate(scores)])
        self.label = self._label(label)
        self.add(self.cells, self.numbers, self.label)

    def _label(self, label: str) -> MathTex:
        scale = self.chart.scale_factor
        return MathTex(label, color=style.TEXT, font_size=SCORE_LABEL_SIZE).scale(scale).next_to(
            self.cells, LEFT, buff=0.2 * scale)

    def _number(self, j: int, score: float):
        cell = self.cells[j]
        text = number_text(score, style.TEXT, NUMBER_SIZE).scale(self.number_scale * self.chart.scale_factor)
        text.tag = (self.name, (0, j))
        return text.move_to(cell)

    def change_to(self, scores: np.ndarray, label: str | None = None, name: str | None = None) -> list:
        """Animations that recolour every cell and write the new score in it; with ``label`` (the numbers then
        called ``name``) the row becomes another quantity: copied q·k_j, divided, becomes q·k_j/√d_k."""
        recoloured = [cell.animate.set_fill(style.score_colour(score, self.largest))
                      for cell, score in zip(self.cells, scores)]
        numbers, old_label = self.numbers, self.label
        self.write(scores, label, name)
        swaps = [Swap(old, new) for old, new in zip(numbers, self.numbers)]  # one a number: each its own moment
        return [*recoloured, *swaps, *([Swap(old_label, self.label)] if label else [])]

    def show(self, scores: np.ndarray, label: str, name: str) -> None:
        """Make the row show ``scores`` under ``label`` at once, the numbers called ``name``."""
        for cell, score in zip(self.cells, scores):
            cell.set_fill(style.score_colour(score, self.largest))
        self.write(scores, label, name)

    def write(self, scores: np.ndarray, label: str | None = None, name: str | None = None) -> None:
        """Put new numbers (and a new ``label``) in the row in place of the old ones, which leave it."""
        self.name = name or self.name
        self.remove(self.numbers)
        self.numbers = VGroup(*[self._number(j, score) for j, score in enumerate(scores)])
        self.add(self.numbers)
        if label is not None:
            self.remove(self.label)
            self.label = self._label(label)
            self.add(self.label)


class DistributionPanel(VGroup):
    """One softmax over the keys as a row: on the left its title and entropy in bits, then the weights as bars
    with the scores under them. Panels stacked with their charts aligned compare key by key."""

    def __init__(self, title: str, score_label: str, version: str, largest_score: float, strings: dict,
                 values: tuple[np.ndarray, np.ndarray, float], chart_height: float, keys_shown: bool = True,
                 formula: bool = False, tallest: float = 1.0):
        """``keys_shown``: the key labels under the bars (a panel under another, its columns aligned with the
        labelled ones above, leaves them out: their height goes to the bars); ``formula``: the entropy's formula
        under its line, in three lines (where the section first shows it);
        ``tallest``: the largest weight the panel will show, the height its room keeps for the bars (the divided panel
        never shows a one-hot)."""
        super().__init__()
        weights, scores, entropy = values
        self.version = version
        bar_width, gap = columns(len(weights))
        self.chart = BarChart(weights, [f"k_{j + 1}" for j in range(len(weights))], style.ATTENTION,
                              height=chart_height, bar_width=bar_width, gap=gap, label_size=style.BODY_SIZE,
                              value_size=NUMBER_SIZE, name=f"weights_{version}")
        self.chart.labels.set_color(style.KEY)
        if not keys_shown:
            self.chart.remove(self.chart.labels)
            self.chart.labels = VGroup()
        self.scores = ScoreRow(self.chart, scores, score_label, largest_score, f"scores_{version}",
                               under=None if keys_shown else self.chart.baseline)
        # The room a full-height bar and its value take, so the panel keeps its size whatever the weights.
        self.bars_height = chart_height * tallest + VALUE_ROOM
        self.room = Rectangle(width=self.chart.baseline.get_length(), height=self.bars_height,
                              stroke_width=0, fill_opacity=0).next_to(self.chart.baseline, UP, buff=0)
        self.title = label_text(title, style.TEXT, style.BODY_SIZE, weight="BOLD")
        self.entropy_label = label_text(strings["entropy"], style.MUTED, style.CAPTION_SIZE)
        self.entropy = self._side_number("entropy", entropy)
        self.bits = label_text(strings["bits"], style.MUTED, style.CAPTION_SIZE)
        self.entropy_value = VGroup(self.entropy, self.bits).arrange(RIGHT, buff=0.12)
        # The softmax's total slope Σ p_j(1 − p_j) (the trace of its Jacobian: how much gradient the row can pass back
        # to its own scores), ≈ 0 once one key takes everything. Its label's words on a line of their own, then the
        # sum and its number: a side column as narrow as the entropy's line
        self.gradient_label = VGroup(*[label_text(line, style.MUTED, style.CAPTION_SIZE)
                                       for line in strings["gradient"].split("\n")])
        self.gradient = self._side_number("gradient", gradient_reach(weights))
        self.gradient_line = VGroup(self.gradient_label[-1], self.gradient)
        entropy_line = VGroup(self.entropy_label, self.entropy_value)
        for line in (entropy_line, self.gradient_line):
            line.arrange(RIGHT, buff=SIDE_NUMBER_GAP, aligned_edge=DOWN)
        self.formula = VGroup(*[MathTex(line, color=style.MUTED, font_size=FORMULA_SIZE) for line in ENTROPY_FORMULA])
        self.formula.arrange(DOWN, buff=SIDE_LINE_GAP, aligned_edge=RIGHT)
        lines = [entropy_line, *([self.formula] if formula else []), *self.gradient_label[:-1], self.gradient_line]
        self.side = VGroup(self.title, *lines).arrange(DOWN, buff=SIDE_LINE_GAP, aligned_edge=RIGHT)
        # a room kept only for the weights shown (``tallest``) is at least as tall as the side column beside it, and a
        # line gap more: the frame round its last number stays clear of the score label under the baseline
        if self.room.height < self.side.height + SIDE_LINE_GAP:
            self.room.stretch_to_fit_height(self.side.height + SIDE_LINE_GAP).next_to(self.chart.baseline, UP, buff=0)
        # from the top of the room down: a lower panel's score label, right under its baseline, stays clear of it
        self.side.next_to(self.room, LEFT, buff=SIDE_GAP).align_to(self.room, UP)
        self.titled = False  # title and entropy left of the chart (True: above it)
        self.add(self.room, self.side, self.chart, self.scores)

    def side_above(self) -> None:
        """Title and entropy on one line above the chart: the chart, wide with many keys, gets the whole width (the
        entropy's formula is left out: that line has no room for it)."""
        self.side.remove(self.formula)
        self.room.stretch_to_fit_height(self.bars_height).next_to(self.chart.baseline, UP, buff=0)  # no column beside
        self.side.arrange(RIGHT, buff=0.3, aligned_edge=DOWN).next_to(self.room, UP, buff=0.1)
        self.side.align_to(self.scores.label, LEFT)
        self.titled = True

    def left_slot(self) -> tuple[float, float]:
        """(bottom, top) of the empty column left of the bars, above the score label, once the title is above."""
        return self.scores.label.get_top()[1] + LEGEND_SLOT_GAP, self.room.get_top()[1]

    def _side_number(self, name: str, value: float):
        """The entropy or the gradient written in the side column, tagged ``name``_version."""
        text = number_text(value, style.TEXT, style.CAPTION_SIZE)
        text.tag = (f"{name}_{self.version}", (0, 0))
        return text

    def change_to(self, weights: np.ndarray, scores: np.ndarray, entropy: float) -> list:
        """Animations that move the bars, the scores and the entropy to new values."""
        return [*self.scores.change_to(scores), *self.change_weights(weights, entropy)]

    def change_weights(self, weights: np.ndarray, entropy: float) -> list:
        """Animations that move the bars, the entropy and the gradient to the softmax of new scores: each number
        fades out before its new value fades in."""
        scale = self.chart.scale_factor
        new_entropy = self._side_number("entropy", entropy).scale(scale).move_to(self.entropy)
        new_gradient = self._side_number("gradient", gradient_reach(weights)).scale(scale).move_to(
            self.gradient, aligned_edge=LEFT)
        animations = [*self.chart.change_to(weights, swap_values=True), Swap(self.entropy, new_entropy),
                      Swap(self.gradient, new_gradient)]
        self.entropy_value.remove(self.entropy)
        self.entropy = new_entropy
        self.entropy_value.add(new_entropy)
        self.gradient_line.submobjects[self.gradient_line.submobjects.index(self.gradient)] = new_gradient
        self.gradient = new_gradient
        return animations


class ScalingScene(LessonScene):
    section_id = "scaling"
    STEPS = ("variance", "spread", "growing", "exponentiate", "scaled", "restored")

    def lesson(self):
        settings = self.settings
        self.note = None  # the zero-gradient note while it is on screen
        self.dimensions = sorted({*GROWTH, settings.d_k})
        self.demos = {d_k: scaling_demo(d_k, settings.n_keys, settings.seed) for d_k in self.dimensions}
        self.deviations = {d_k: score_deviation(d_k, seed=settings.seed) for d_k in self.dimensions}
        self.scaled_deviations = {d_k: scaled_score_deviation(d_k, seed=settings.seed) for d_k in self.dimensions}
        self.answers = question_fields(settings.d_k, self.demos, self.deviations)
        self.swept = swept(settings.d_k, self.demos)  # the unscaled sweep's d_k: it ends where the collapse is framed
        # One pitch scale for every deviation heard, raw or divided by sqrt(d_k): the same number, the same blip
        # on a logarithmic scale: each doubling of d_k (a deviation times √2) one fixed interval
        heard = [*self.deviations.values(), *self.scaled_deviations.values()]
        self.deviation_scale = shared_scale(heard, logarithmic=True)
        # One colour scale a step, fitted to the scores it shows (the unscaled sweep's and the configured d_k's, then
        # every d_k's in the last sweep), both panels on it; the colour bar says which d_k it covers
        self.scale_to([*self.swept, settings.d_k])
        self.show_variance()
        self.show_spread()
        self.show_growing()
        self.show_exponentiate()
        self.show_scaled()
        self.show_restored()

    def scale_to(self, shown: list[int]) -> None:
        """The score cells' colour scale: the largest |score| of the ``shown`` d_k, raw or divided by sqrt(d_k), rounded
        up at its second digit (``covering_end``): the bar's end ticks cover every cell."""
        self.largest_score = covering_end(style.shared_largest(*[self.demos[d_k].scores for d_k in shown],
                                                               *[self.demos[d_k].scaled_scores for d_k in shown]))
        self.scale_high = max(shown)

    # Step 1 -------------------------------------------------------------------------------------
    def show_variance(self):
        self.begin_step("variance")
        formula = MathTex(*VARIANCE, color=style.TEXT, font_size=44)
        for index, colour in ((1, style.QUERY), (3, style.KEY), (5, style.QUERY), (7, style.KEY)):
            formula[index].set_color(colour)
        terms = self.unit_terms()
        table = self.deviation_table()
        # what makes each term's variance 1 (guía §5.2), beside the terms: the voice's premise, on screen
        premise = wrapped_text(self.strings["labels"]["premise"], style.MUTED, style.CAPTION_SIZE, PREMISE_WIDTH)
        premise.next_to(terms[0], RIGHT, buff=PREMISE_GAP)
        stage = VGroup(formula, VGroup(terms, premise), table).arrange(DOWN, buff=0.45)
        stage[1].shift(RIGHT * (formula.get_x() - terms.get_x()))  # the terms under the formula, the premise aside
        self.place(stage, *style.body_box())
        self.play(Write(formula), run_time=2.0)
        self.play(Appear(premise), run_time=POP)
        self.wait(1.5 - POP)
        header, *rows = table
        self.play(Appear(header), run_time=POP)
        # "cada uno aporta varianza uno": the sum's terms, a 1 each, come one after the other, then their count, d_k
        self.beat("each")
        ones, brace = terms
        self.play(LaggedStart(*[Appear(piece) for piece in ones], lag_ratio=TERM_LAG), run_time=TERMS_RUN)
        self.play(Appear(brace), run_time=SHORTEST_APPEAR)
        # As the voice says the sum's variance is the dimension, "= d_k" is framed and the table's rows come; as it
        # says the deviation is its root, the two columns that agree, √d_k and the measured deviation, are framed.
        self.beat("sum")
        mark = self.mark(formula[SUM_PART])
        for index, (d_k, row) in enumerate(zip(self.dimensions, rows)):
            # Matrix's "cell" sound as the row lands: the pitch climbs with the deviation, as the numbers do.
            self.cue_deviation(d_k, scaled=False)
            self.play(FadeIn(row, shift=0.2 * UP), *([] if index else [Create(mark)]), run_time=ROW_REVEAL)
            self.wait(ROW_READ)
        self.beat("table")
        columns = self.mark(VGroup(*[line[column] for line in table for column in (1, 2)]))
        self.play(Create(columns), run_time=0.8)
        self.wait(HOLD)
        self.formula, self.table = VGroup(formula, premise, terms, mark, columns), table

    @staticmethod
    def unit_terms() -> VGroup:
        """1 + 1 + ⋯ + 1 over a brace labelled d_k: the variances of the sum's d_k terms, one each, added up."""
        ones = MathTex(*UNIT_TERMS, color=style.TEXT, font_size=44)
        brace = Brace(ones, DOWN, color=style.MUTED)
        count = MathTex("d_k", color=style.TEXT, font_size=40).next_to(brace, DOWN, buff=0.1)
        return VGroup(ones, VGroup(brace, count))

    def cue_deviation(self, d_k: int, scaled: bool) -> None:
        """Matrix's "cell" blip for the deviation of q · k at ``d_k`` (divided by sqrt(d_k) if ``scaled``), on the
        section's one scale of deviations: call it just before the play that shows the number (it sounds as that
        play lands)."""
        root = float(np.sqrt(d_k))
        value = (self.scaled_deviations if scaled else self.deviations)[d_k]
        self.cue("cell", lands=True, value=value, **self.deviation_scale, d_k=d_k, root=root, scaled=scaled)

    def deviation_table(self, scaled: bool = False) -> VGroup:
        """d_k, sqrt(d_k) and the measured deviation of q · k, one row per d_k: the two columns agree. With
        ``scaled`` a fourth column, the deviation divided by sqrt(d_k): about 1 on every row."""
        labels = self.strings["labels"]
        header = [label_text(labels[key], style.MUTED, style.BODY_SIZE)
                  for key in ("table_d_k", "table_root", "table_deviation", "table_scaled")[:3 + scaled]]
        rows = []
        for i, d_k in enumerate(self.dimensions):
            root = np.sqrt(d_k)
            row = [number_text(d_k, style.TEXT, style.BODY_SIZE, decimals=0),
                   number_text(root, style.TEXT, style.BODY_SIZE),
                   number_text(self.deviations[d_k], style.TEXT, style.BODY_SIZE)]
            for j, text in enumerate(row):
                text.tag = ("table", (i, j))
            if scaled:
                row.append(number_text(self.scaled_deviations[d_k], style.TEXT, style.BODY_SIZE))
                row[-1].tag = ("scaled_table", (i, 0))
            rows.append(row)
        columns = len(header)
        grid = VGroup(*header, *[text for row in rows for text in row])
        grid.arrange_in_grid(rows=len(rows) + 1, cols=columns, buff=(0.9, 0.28), col_alignments="rrcc"[:columns])
        return VGroup(VGroup(*header), *[VGroup(*row) for row in rows])

    # Step 2: the spread of q · k as a cloud beside the table ------------------------------------
    def show_spread(self):
        """The first CLOUD_POINTS of the table's draws as dots on one axis, d_k after d_k: the cloud widens like
        sqrt(d_k) (the table's row framed beside it); divided by sqrt(d_k), each d_k's cloud is as narrow as
        d_k = 1's, and the table's new column says deviation ≈ 1."""
        settings, dimensions = self.settings, self.dimensions
        clouds = {d_k: score_cloud(d_k, CLOUD_POINTS, settings.seed) for d_k in dimensions}
        new_numbers = len(dimensions) + 3  # the new column, and the axis's three ticks
        self.begin_step("spread", low=dimensions[0], high=dimensions[-1], new_numbers=new_numbers)
        reach = max(float(np.max(np.abs(cloud.scores))) for cloud in clouds.values()) * CLOUD_MARGIN
        cloud = ScoreCloud(reach, CLOUD_LABEL, self.strings["labels"]["cloud_axis"])
        table = self.deviation_table(scaled=True)
        stage = VGroup(table, cloud).arrange(DOWN, buff=CLOUD_GAP)
        self.place(stage, *style.body_box())
        # the divided clouds take the raw cloud's place: never a q·k/√d_k axis under raw dots
        strips = DividedStrips({d_k: clouds[d_k].scaled_scores for d_k in dimensions},
                               self.scaled_deviations, SCALED_CLOUD_LABEL)  # ±σ the table's, beside it
        left, right, bottom, _ = style.body_box()
        self.place(strips, left, right, bottom, table.get_bottom()[1] - CLOUD_GAP)
        header, *rows = table
        moves = [Transform(old, new) for old_row, new_row in zip(self.table, table)
                 for old, new in zip(old_row, new_row)]
        self.play(Vanish(self.formula), *moves, run_time=1.0)
        self.scaled_column = VGroup(header[3], *[row[3] for row in rows])
        first = dimensions[0]
        cloud.show(clouds[first].scores, self.deviations[first])
        self.row_frame = self.table_frame(0, columns=3)
        self.cue_deviation(first, scaled=False)
        self.cloud = cloud  # the raw cloud, then the divided strips once they take its place
        self.play(Appear(cloud), Create(self.row_frame), run_time=SWEEP_CHANGE)
        widenings = len(dimensions) - 1
        # The divided strips after the sweep: the widest cloud squeezed into its strip, then the others come
        # quickly, each number with its blip; they stay, side by side, as wide as each other.
        returning = SWEEP_CHANGE + QUICK_CHANGE * widenings + SHORTEST_CHANGE
        self.sweep_hold(widenings + 2, SWEEP_CHANGE * widenings + returning)
        self.beat("widen")  # the cloud widens as the voice says so, not under its sentence on the dots
        for index, d_k in enumerate(dimensions[1:], start=1):
            if index == widenings:
                self.beat("widest")  # «… de 2 a 512» as the widest cloud comes (it was said 1.5 s before: review s15 round 3)
            self.cue_deviation(d_k, scaled=False)
            self.play(*cloud.move_to_values(clouds[d_k].scores, self.deviations[d_k]),
                      *self.frame_to(index, columns=3), run_time=SWEEP_CHANGE)
            self.sweep_hold(widenings - index + 2, SWEEP_CHANGE * (widenings - index) + returning)
        self.beat("divide")  # the widest cloud stays until the sentence on the widening has ended
        self.cloud = strips
        self.squeeze_into_strips(cloud, strips, rows)
        self.beat("one")  # every divided deviation, ≈ 1, framed as the voice says so; the brackets end at ±1
        column = SurroundingRectangle(self.scaled_column, color=style.HIGHLIGHT, buff=FRAME_CLEARANCE, stroke_width=2.5,
                                      corner_radius=0.06)
        self.play(Vanish(self.row_frame, rate_func=FIRST_HALF), Appear(column, rate_func=SECOND_HALF),
                  Create(strips.guides), run_time=SHORTEST_CHANGE)
        self.row_frame = column
        self.sweep_hold(1, 0.0)

    def squeeze_into_strips(self, cloud: ScoreCloud, strips: DividedStrips, rows: list) -> None:
        """The widest raw cloud's dots squeezed into its divided strip as the axis becomes q·k/√d_k's, then the other
        d_k's strips, each with its row's new number: the frame widens to the new column before the number comes
        (no edge sweeps across a digit)."""
        dimensions = self.dimensions
        widest = dimensions[-1]
        dots, bracket, name = strips.strips[widest]
        axis = VGroup(strips.axis, strips.ticks, strips.tick_labels, strips.label)
        self.cue_deviation(widest, scaled=True)
        self.play(Appear(self.scaled_column[0]),
                  *self.frame_to(len(dimensions) - 1, columns=4),
                  ReplacementTransform(cloud.dots, dots), ReplacementTransform(cloud.bracket, bracket),
                  Vanish(VGroup(*[part for part in cloud if part not in (cloud.dots, cloud.bracket)]),
                         rate_func=FIRST_HALF),
                  Appear(axis, name, rate_func=SECOND_HALF), Appear(rows[-1][3], rate_func=SECOND_HALF),
                  run_time=SWEEP_CHANGE)
        for index in reversed(range(len(dimensions) - 1)):
            d_k = dimensions[index]
            self.cue_deviation(d_k, scaled=True)
            top = [strips.sigma] if index == 0 else []  # ±σ over the top strip's bracket, with it
            self.play(Appear(strips.strips[d_k], *top),
                      *self.frame_to(index, columns=4),
                      Appear(rows[index][3], rate_func=SECOND_HALF), run_time=QUICK_CHANGE)

    def sweep_hold(self, holds_left: int, after: float) -> None:
        """A hold of a sweep whose numbers are read once each: at least SWEEP_HOLD, ``after`` seconds of
        animation to come."""
        self.hold(holds_left, after=after, least=SWEEP_HOLD)

    def table_frame(self, index: int, columns: int) -> SurroundingRectangle:
        """A frame round the table's row ``index``, its first ``columns`` numbers (a new column's slot too)."""
        row = VGroup(*self.table[1 + index], *([self.scaled_column[1 + index]] if columns == 4 else []))
        return SurroundingRectangle(row, color=style.HIGHLIGHT, buff=FRAME_CLEARANCE, stroke_width=2.5,
                                    corner_radius=0.06)

    def frame_to(self, index: int, columns: int) -> list:
        """The row frame from its row to row ``index`` (``table_frame``): the old one fades out, then the new one in,
        within the play's first half. A frame moved from row to row ran its edges through the digits (review s15)."""
        frame = self.table_frame(index, columns)
        moves = [Vanish(self.row_frame, rate_func=squish_rate_func(smooth, 0.0, 0.25)),
                 Appear(frame, rate_func=squish_rate_func(smooth, 0.25, 0.5))]  # landed by mid-play, before a number
        self.row_frame = frame
        return moves

    # Step 3: the unscaled softmax as d_k grows, to the collapse, framed where the sweep ends ---------
    def show_growing(self):
        last = self.swept[-1]
        collapsed = self.demos[last].weights_unscaled.max() > COLLAPSED
        caption = None if collapsed else self.strings["steps"]["growing"]["caption_spread"]
        self.begin_step("growing", caption=caption, n_keys=self.settings.n_keys, low=self.swept[0], high=last,
                        new_numbers=len(self.numbers_at(last, ["unscaled"])))
        first = self.swept[0]
        self.unscaled = self.panel("unscaled", self.values(self.demos[first], scaled=False), stacked=False)
        self.readout = self.readout_line(first)
        self.legend = self.score_bar(self.unscaled, self.unscaled)
        # the line on why another key leads, at each d_k where one does (tests read them)
        self.winner_lines = {d_k: label_text(line, style.MUTED, style.BODY_SIZE)
                             for d_k, line in self.new_winners(self.swept).items()}
        self.new_terms = next(iter(self.winner_lines.values()), VGroup())
        self.leader_frames = {}  # d_k: the frame round the score its line names, while it is on screen
        self.jacobian = self.jacobian_line() if collapsed else None
        slot = [*self.winner_lines.values(), *([self.jacobian] if collapsed else [])]
        self.place_over(VGroup(self.unscaled, self.legend), slot)
        self.play(Vanish(self.table, self.scaled_column, self.row_frame, self.cloud), run_time=0.6)
        self.play(Appear(self.readout), Appear(self.unscaled), Appear(self.legend), run_time=1.0)
        # The dimension the voice says climbs is framed in the readout: its number changes inside the frame.
        self.beat("dimension")
        climbing = SurroundingRectangle(self.readout.slots["d_k"], color=style.HIGHLIGHT, buff=0.1, stroke_width=2.5,
                                        corner_radius=0.06)
        self.play(Create(climbing), run_time=0.6)
        # The point is heard: the chord thins to one tone, d_k after d_k, in the clear, then the voice says so.
        # The chords come CHORD_HOLD apart at least, close enough to compare; the last state stays under the voice.
        # What to listen for, on screen for the whole moment (the voice is silent then; a muted viewer reads it)
        hint = self.bottom_note(self.strings["labels"]["listen"])
        self.play(Appear(hint), run_time=POP)
        with self.listening():
            self.cue_distribution(self.unscaled, first)
            changes = self.swept[1:]
            self.hold(1 + len(changes), after=CHANGE * len(changes), least=CHORD_HOLD)
            for index, d_k in enumerate(changes):
                named = d_k in self.winner_lines
                self.change_dimension(d_k, [self.unscaled], least=NAMED_WAIT if named else CHORD_HOLD,
                                      holds_left=len(changes) - index, also=self.winner_line_moves(self.swept[index], d_k))
                if named:  # the score the line names framed while it is read: the row is never 6 s near still
                    self.play(Appear(self.frame_former_leader(self.swept[index], d_k)), run_time=MARK_POP)
                    self.wait(LINE_HOLD - NAMED_WAIT - MARK_POP)
        self.beat("sharp")
        self.play(Vanish(hint), run_time=POP)
        self.frame_largest(collapsed, climbing)
        self.marks.add(*self.winner_lines_at(self.swept[-1]), *self.leader_frames.values())  # they leave with the panel

    def jacobian_line(self) -> VGroup:
        """Why Σ p(1 − p) measures the gradient that gets through, in words round the softmax's Jacobian (JACOBIAN):
        its terms are that Jacobian's diagonal, and with one p ≈ 1 every entry, p_i(δ_ij − p_j), is ≈ 0."""
        before, after = self.strings["labels"]["jacobian"].split("{jacobian}")
        return VGroup(label_text(before.strip(), style.MUTED, style.BODY_SIZE),
                      MathTex(JACOBIAN, color=style.MUTED, font_size=JACOBIAN_SIZE),
                      label_text(after.strip(), style.MUTED, style.BODY_SIZE)).arrange(RIGHT, buff=JACOBIAN_GAP)

    def frame_former_leader(self, before: int, d_k: int) -> SurroundingRectangle:
        """A frame round the score cell of the key that led at ``before`` (the one ``d_k``'s line names: «k₂: 2.05 →
        1.64»), kept to leave with that line."""
        led = int(np.argmax(self.demos[before].weights_unscaled))
        frame = self.mark(self.unscaled.scores.cells[led])
        self.leader_frames[d_k] = frame
        return frame

    def winner_line_moves(self, before: int, d_k: int) -> tuple:
        """As the sweep moves from ``before`` to ``d_k``: the line on ``before``'s change of leader leaves (it names
        that d_k's scores: under the next row it was stale, review s15 round 2) with the frame round the score it
        names, and ``d_k``'s comes, if any."""
        framed = self.leader_frames.pop(before, None)
        return (*[Vanish(line, rate_func=QUICK_OUT) for line in self.winner_lines_at(before)],
                *([Vanish(framed, rate_func=QUICK_OUT)] if framed is not None else []),
                *[Appear(line, rate_func=QUICK_IN) for line in self.winner_lines_at(d_k)])

    def winner_lines_at(self, d_k: int) -> list[VGroup]:
        """The line on why the leader changed at ``d_k`` (a list of none or one)."""
        return [self.winner_lines[d_k]] if d_k in self.winner_lines else []

    def new_winners(self, sizes: list[int]) -> dict[int, str]:
        """For each d_k of ``sizes`` (in order) whose largest unscaled weight is another key's than at the d_k before it,
        the line saying why (its text). Each d_k draws new components (``scaling_demo``'s nested draws): its scores add d_k −
        before products q_i k_i to the ones before, each key its own, so they change, not all stretched by one factor,
        and another key may lead (k₂ at d_k = 2, k₇ at 8 and 64, k₆ at 512). The line gives the key that led before:
        its score then and now."""
        lines = {}
        for before, d_k in zip(sizes, sizes[1:]):
            led, leads = (int(np.argmax(self.demos[size].weights_unscaled)) for size in (before, d_k))
            if led != leads:
                line = self.strings["labels"]["new_terms"].format(
                    d_k=d_k, more=d_k - before, key=led + 1, before=format_number(self.demos[before].scores[led]),
                    after=format_number(self.demos[d_k].scores[led]))
                lines[d_k] = line
        return lines

    def place_over(self, stage: VGroup, lines: list[VGroup]) -> None:
        """``stage`` (the growing step's panel and colour bar) in the panel area, over ``lines`` centred under it, one
        at a time in a line of their own there (none when there are no ``lines``)."""
        left, right, bottom, top = self.panel_area(self.readout, note=True)
        for line in lines:
            fit(line, right - left, NEW_TERMS_HEIGHT)
        if lines:
            bottom += NEW_TERMS_HEIGHT + NEW_TERMS_GAP
        self.place(stage, left, right, bottom, top)
        for line in lines:
            line.next_to(stage, DOWN, buff=NEW_TERMS_GAP).set_x((left + right) / 2)

    def frame_largest(self, collapsed: bool, climbing: SurroundingRectangle):
        """The sweep's last row, as it ended: its largest weight framed (the frame round d_k goes) and, on a
        collapse, the others' weights ≈ 0 framed as the voice says so, then the zero-gradient note as it names
        their gradient."""
        chart = self.unscaled.chart
        winner = int(np.argmax(self.demos[self.swept[-1]].weights_unscaled))
        frame = SurroundingRectangle(VGroup(chart.bars[winner], chart.value_texts[winner], chart.labels[winner]),
                                     color=style.HIGHLIGHT, buff=FRAME_CLEARANCE, stroke_width=3, corner_radius=0.06)
        self.marks = VGroup(frame)
        self.beat("one")  # "... una sola clave se lleva casi todo el peso": that key framed as the voice names it
        self.play(Appear(frame), Vanish(climbing), run_time=MARK_POP)
        if collapsed:
            note = self.bottom_note(self.strings["labels"]["zero_gradient"])
            others = run_frames(chart.value_texts, [j != winner for j in range(len(chart.value_texts))],
                                style.MUTED, floor=chart.baseline.get_y())
            self.zero_frames = others
            self.marks.add(others, note)
            self.note = note
            # Each part lands as the voice names it, quickly enough to be seen landing (a frame drawn over 0.6 s
            # changes a frame too little to be seen: ten seconds on a finished one-hot read as a still)
            # ... and, in the line under the scores (the last d_k's reason for a new leader, if any, leaves it), why
            # their gradient is ≈ 0 too: the whole Jacobian of a one-hot row is
            self.marks.add(self.jacobian)
            self.beat("zero")
            self.play(Appear(others), Appear(self.jacobian), *[Vanish(line) for line in self.winner_lines_at(self.swept[-1])],
                      run_time=MARK_POP)
            self.beat("gradient")  # the note, and the row's own Σ p(1 − p) ≈ 0 framed
            gradient = self.mark(self.unscaled.gradient)
            self.marks.add(gradient)
            self.play(Appear(note), Appear(gradient), run_time=MARK_POP)
        self.hold(1)

    @staticmethod
    def bottom_note(text: str, height: float = NOTE_HEIGHT):
        """``text`` in the room kept under the panels (panel_area with a note: one line), or ``height`` at the bottom."""
        note = label_text(text, style.MUTED, style.BODY_SIZE)
        left, right, bottom, _ = style.body_box()
        return fit(note, right - left, height).move_to(np.array([(left + right) / 2, bottom + height / 2, 0]))

    def finish_step(self):
        """The zero-gradient note ends with its step: it sits just over the caption, and the next caption may take
        two lines."""
        super().finish_step()
        if self.note is not None:
            self.play(Vanish(self.note), run_time=0.3)
            self.marks.remove(self.note)
            self.note = None

    # Step 4: why large scores leave one bar standing -------------------------------------------
    def show_exponentiate(self):
        """Why one bar is left standing: a row's softmax in its two moves (scenes.softmax_moves), a row that still
        has a choice (``exponentiated_dimension``), so that e^x visibly pulls the largest bar away from the others
        (a one-hot row would go from one bar to the same bar); the caption says what larger d_k does to it."""
        d_k, shown = self.settings.d_k, self.exponentiated_dimension()
        demo = self.demos[shown]
        keys = [f"k_{j + 1}" for j in range(len(demo.scores))]
        left, right, _, _ = style.body_box()
        moves = SoftmaxMoves(demo.scores, keys, score_tex=UNSCALED_LABEL,
                             names=("scores_unscaled", "exponentials", "weights_unscaled"), width=right - left)
        parts = moves.parts
        strings = self.strings["steps"]["exponentiate"]
        self.begin_step("exponentiate", caption=strings["caption" if shown == d_k else "caption_smaller"], d_k=d_k,
                        shown=shown, largest=format_number(parts.largest), total=format_number(parts.total),
                        top=format_number(parts.weights.max()),  # the weights and their sum, and another d_k's
                        # scores and readout: the exponentials come and go
                        new_numbers=len(keys) + 1 + len(self.numbers_at(shown, ["unscaled"])
                                                        - self.numbers_at(d_k, ["unscaled"])))
        left, right, bottom, top = self.panel_area(self.readout, note=False)
        self.place(moves, left, right, bottom, top - FRAME_ROOM)  # the frame round the line of 1 clears the readout
        # "Mirémoslo en dimensión 8": the last step's row stays under its d_k until that row replaces it, as the
        # voice names it (never an empty chart under the old d_k)
        self.beat("shown")
        self.play(Vanish(self.marks, self.unscaled, self.legend, rate_func=FIRST_HALF),
                  Appear(moves, rate_func=SECOND_HALF), *self.readout.change_to(self.readout_values(shown)),
                  run_time=2 * SHORTEST_APPEAR)
        change = self.per_key(CHANGE)
        self.hold(3, after=2 * change)
        self.beat("exponentiate")
        # The exponentials read out as blips, on the scale of the bars (1 at the top).
        self.cue("values", lands=True, values=[float(value) for value in parts.exponentials],
                 spacing=BLIP_SPACING, low=0.0, high=1.0)
        exponentiate = moves.exponentiate()
        rounded = self.rounding_note(moves) if recomputing_misses(parts.scores, parts.weights) else VGroup()
        self.play(*exponentiate, Appear(rounded), run_time=change)
        top = int(np.argmax(parts.weights))
        # "... y la barra mayor se aleja": that bar framed, within the clause (review s15: the exponentials stood 6 s
        # near still under it)
        self.wait(PULLED_WAIT)
        pulled = self.mark(moves.bars[top])
        self.play(Appear(pulled), run_time=MARK_POP)
        # "las dibujamos divididas por la mayor": the line 1 = e^{max} and the bar that reaches it, framed
        self.beat("drawn")
        scale = scale_frame(moves)
        self.play(Vanish(pulled, rate_func=FIRST_HALF), Create(scale), run_time=0.6)
        self.hold(1, after=change)  # what is left to read, but for the second move: not all after it
        self.beat("normalise")  # the exponentials stay while the voice explains them
        self.cue("row", lands=True, weights=[float(w) for w in parts.weights], d_k=shown, version="unscaled",
                 entropy=float(demo.entropy_unscaled))
        self.play(*moves.normalise(), Vanish(scale), run_time=change)
        self.beat("top")  # the largest weight framed as the voice says it
        winner = self.mark(VGroup(moves.bars[top], moves.numbers[top]))
        self.play(Appear(winner), run_time=MARK_POP)
        if shown != d_k:
            # "en dimensión 64 ... con casi todo": that d_k's largest weight and why (the gap of its two largest
            # scores, exp of it) written beside the framed bar, never over it: over it, it read as this key's weight
            # at d_k = 64 (review s11: there k₆ took it)
            larger = self.beside_winner(self.larger_lead(d_k, shown), moves, top, winner)
            self.beat("larger")
            self.play(Appear(larger), run_time=MARK_POP)
            winner.add(larger)
        self.moves = VGroup(moves, winner, rounded)

    def larger_lead(self, d_k: int, shown: int) -> list[str]:
        """Two lines on d_k's unscaled row (the growing step's last): its largest weight, then why, from its scores
        as shown: the gap between the two largest, and exp(gap), how many times the runner-up's weight the largest
        gets (softmax: α₁ / α₂ = exp(s₁ − s₂)). Its q and k are the ``shown`` d's with d_k − shown components more
        (``scaling_demo``'s nested draws): the largest may be another key's."""
        labels, demo = self.strings["labels"], self.demos[d_k]
        second, first = (shown_value(score) for score in np.sort(demo.scores)[-2:])
        gap = shown_value(first - second)
        return [labels["larger"].format(d_k=d_k, more=d_k - shown, top=format_number(demo.weights_unscaled.max())),
                labels["larger_gap"].format(first=format_number(first), second=format_number(second),
                                            gap=format_number(gap), factor=times_text(float(np.exp(gap))))]

    @staticmethod
    def beside_winner(lines: list[str], moves: SoftmaxMoves, winner: int, frame) -> VGroup:
        """``lines`` written over the other keys' weights, on the wider side of the framed bar (``frame``), under the
        line of 1, each wrapped to that width (many keys leave a narrow side): never over the framed bar (it reads
        as another key's weight), never across the line's label."""
        sides = [(moves.bars[0].get_left()[0], frame.get_left()[0] - LEAD_SIDE_GAP),
                 (frame.get_right()[0] + LEAD_SIDE_GAP, moves.bars[-1].get_right()[0])]
        left, right = max(sides, key=lambda side: side[1] - side[0])
        under = [bar for j, bar in enumerate(moves.bars) if j != winner and left <= bar.get_x() <= right]
        bottom = max((bar.get_top()[1] for bar in under), default=moves.baseline.get_y()) + LEAD_GAP
        top = moves.top_line.get_y() - LEAD_GAP

        def written(width: float) -> VGroup:
            block = VGroup(*[wrapped_text(line, style.HIGHLIGHT, style.BODY_SIZE, width) for line in lines])
            return block.arrange(DOWN, aligned_edge=LEFT, buff=SIDE_LINE_GAP)

        def size(block: VGroup) -> float:
            return min(1.0, (right - left) / block.width, (top - bottom) / block.height)

        # each line whole, or wrapped to the side's width if that keeps the letters clearly larger once fitted
        whole, wrapped = written(np.inf), written(right - left)
        best = wrapped if size(wrapped) > LEAD_WRAP_GAIN * size(whole) else whole
        fit(best, right - left, top - bottom)
        return best.move_to(np.array([left, (top + bottom) / 2, 0]), aligned_edge=LEFT)

    def rounding_note(self, moves: SoftmaxMoves):
        """Why a sum recomputed from the rounded figures on screen misses by one in the last digit (``recomputing_misses``):
        said once, where it does, left of the row's sum, in the room under the numbers (``moves.exponentiate`` has placed that sum)."""
        note = label_text(self.strings["labels"]["rounded"], style.MUTED, style.CAPTION_SIZE)
        room = moves.sum_line.get_left()[0] - moves.label_room.get_left()[0] - ROUNDED_GAP
        fit(note, room, moves.sum_line.height * 2)
        return note.next_to(moves.sum_line, LEFT, buff=ROUNDED_GAP)

    def rounding_aside(self, legend: VGroup, panels: VGroup):
        """The rounding note again, short, in the corner under the colour bar and right of ``panels``, while divided
        scores are on screen (11.7 ÷ 8 on screen is 1.46; the cell says 1.47, from 11.76: review s14). The panels
        keep their room: it is the digits' and the bars' (review s9, s10). None when the colour bar is left of the
        panels, or the note would be smaller there than SMALLEST_CAP_HEIGHT."""
        left, right = panels.get_right()[0] + ASIDE_GAP, style.body_box()[1]
        note = label_text(self.strings["labels"]["rounded_short"], style.MUTED, style.CAPTION_SIZE)
        fit(note, right - left, legend.get_bottom()[1] - panels.get_bottom()[1] - ASIDE_GAP)
        if legend.get_left()[0] < panels.get_right()[0] or cap_height(note) < style.SMALLEST_CAP_HEIGHT:
            return None
        return note.next_to(legend, DOWN, buff=ASIDE_GAP).set_x(right - note.width / 2)

    @staticmethod
    def mark(mobject) -> SurroundingRectangle:
        """A frame round what the voice names."""
        return SurroundingRectangle(mobject, color=style.HIGHLIGHT, buff=0.12, stroke_width=2.5, corner_radius=0.06)

    def exponentiated_dimension(self) -> int:
        """The d_k whose unscaled row the exponentiate step shows: the configured one while its softmax shares
        (SHARING), else the largest shown below it that does (none: the configured one)."""
        d_k = self.settings.d_k
        choosing = [size for size in self.dimensions
                    if size <= d_k and self.demos[size].weights_unscaled.max() <= SHARING]
        return max(choosing, default=d_k)

    # Steps 5-6: the scaled softmax beside the unscaled one --------------------------------------
    def show_scaled(self):
        d_k = self.settings.d_k
        demo = self.demos[d_k]
        caption, fields = scaled_step(d_k, demo)
        # The two moves ended on a row's softmax: they leave with the last header, before the new title comes (never
        # the new title over the old chart), then the configured d_k's row comes back into its panel
        leaving = Vanish(self.moves, rate_func=squish_rate_func(smooth, 0.0, 0.5))
        self.begin_step("scaled", self.strings["steps"]["scaled"][caption], **fields, with_header=[leaving],
                        new_numbers=len(self.numbers_at(d_k, ["unscaled", "scaled"]) - self.numbers_at(d_k, ["unscaled"])))
        # The unscaled panel and the readout come back as the growing step left them when it framed the configured
        # d_k (the exponentiate step may have shown another d_k's row): read there, they are not new here.
        for growing in (step for step in self.steps if step.key == "growing"):  # none when lecture.skip left it out
            self.count_as_read(growing.numbers)
        unscaled = self.panel("unscaled", self.values(demo, scaled=False), stacked=True)
        self.scaled = self.panel("scaled", self.values(demo, scaled=True), stacked=True)
        stacked = VGroup(unscaled, self.scaled).arrange(DOWN, buff=PANEL_GAP)
        self.scaled.shift(RIGHT * (unscaled.chart.baseline.get_x() - self.scaled.chart.baseline.get_x()))
        legend = self.score_bar(stacked, unscaled)
        self.place(VGroup(stacked, legend), *self.panel_area(self.readout, note=False))
        # no corner for it (the colour bar left of many keys, or as tall as the panels): not shown, the panels keep the
        # room their digits and bars need (review s9, s10)
        self.rounded = self.rounding_aside(legend, stacked) or VGroup()
        self.play(Appear(unscaled), Appear(legend), *self.readout.change_to(self.readout_values(d_k)), run_time=0.6)
        self.unscaled, self.legend = unscaled, legend
        self.divide_and_take_softmax(demo)
        self.hold(2, after=0.8)
        # The caption compares the two entropies: the divided row's comes as the voice says it, both framed.
        self.beat("entropy")
        self.marks = VGroup(*[SurroundingRectangle(panel.entropy_value, color=style.HIGHLIGHT, buff=0.08,
                                                   stroke_width=2, corner_radius=0.06)
                              for panel in (self.unscaled, self.scaled)])
        self.play(Appear(self.scaled.entropy_label, self.scaled.entropy_value), Appear(self.marks), run_time=MARK_POP)
        # "... y el gradiente llega a más claves": the two panels' Σ p(1 − p), framed as the voice says so
        self.beat("gradient")
        # ... and the keys it reaches: each divided bar whose own slope p(1 − p) is not ≈ 0 (the one-hot row above has
        # none), framed with its weight, one after the other
        gradients = VGroup(*[self.mark(panel.gradient) for panel in (self.unscaled, self.scaled)])
        reached = self.reached_frames = self.reach_frames(self.demos[self.settings.d_k].weights_scaled)
        self.play(Appear(self.scaled.gradient_label, self.scaled.gradient), Appear(gradients),
                  LaggedStart(*[Appear(box) for box in reached], lag_ratio=0.3), run_time=MARK_POP * len(reached))
        gradients.add(reached)
        self.remove(gradients, *reached)  # on screen as part of the marks, which are: they leave with them
        self.remove(*self.scaled.get_family())  # shown in parts: one panel on screen again
        self.add(self.scaled)
        self.marks.add(gradients)
        self.hold(1)

    def reach_frames(self, weights: np.ndarray) -> VGroup:
        """Frames standing on the scaled panel's axis round each run of its bars (with their weights) whose own slope
        p(1 − p) shows on screen (REACHED): the keys the gradient reaches."""
        chart = self.scaled.chart
        return run_frames([VGroup(bar, text) for bar, text in zip(chart.bars, chart.value_texts)],
                          [slope >= REACHED for slope in softmax_slopes(weights)], style.HIGHLIGHT,
                          floor=chart.baseline.get_y())

    def divide_and_take_softmax(self, demo: ScalingDemo):
        """The scaled panel, each part shown once it is true: the scores copied down (still q·k_j, no bars yet),
        divided by √d_k under the panel's title, then the bars and entropy of their softmax."""
        panel, row = self.scaled, self.scaled.scores
        row.show(demo.scores, UNSCALED_LABEL, "scores_unscaled")
        self.play(TransformFromCopy(self.unscaled.scores, row), Appear(panel.chart.baseline, *panel.chart.labels),
                  run_time=COPY_DOWN)
        # The division as soon as the copy has landed (the cells fade towards neutral on the shared scale): the
        # unscaled numbers are never read twice. Then what the softmax makes of it, as the voice says it: each change
        # quick, the reading in the holds after it.
        self.play(*row.change_to(demo.scaled_scores, SCALED_LABEL, "scores_scaled"), Appear(panel.title),
                  Appear(self.rounded), run_time=QUICK_SWAP)
        self.hold(3, after=QUICK_SWAP + 0.8)
        self.beat("spread")  # "el softmax vuelve a repartir": the bars; its entropy and slope as the voice names them
        self.play(*[GrowFromEdge(bar, DOWN) for bar in panel.chart.bars], Appear(panel.chart.value_texts),
                  run_time=QUICK_SWAP)
        self.cue_distribution(panel, demo.d_k)

    def show_restored(self):
        d_k, last = self.settings.d_k, self.dimensions[-1]
        both = ["unscaled", "scaled"]
        table = self.summary_table()  # its numbers, and the exercise line's five, are read in this step too
        # The voice names the sweep's own range, from the configured d_k (with the largest there is no sweep: the
        # table's range), not d_k the table brings 10 s later (review s14)
        start = d_k if d_k < last else self.dimensions[0]
        self.begin_step("restored", low=self.dimensions[0], start=start, high=last, **exercise_fields(self.demos),
                        new_numbers=len(self.numbers_at(last, both, scaled=True) - self.numbers_at(d_k, both))
                        + len(table.rows) * len(table.rows[0]) + EXERCISE_NUMBERS)
        # The sweep goes on from the configured d_k (the last step's) as the readout turns to the divided deviations,
        # and climbs one d_k at a time: d_k only grows on screen; the smaller ones come back in the summary table.
        low = d_k
        scaled_readout = self.readout_line(low, scaled=True)
        panels = [self.unscaled, self.scaled]
        # The sweep goes past the d_k the colour scale covered: a scale for every d_k, said by its bar, its cells
        # recoloured on it as they change.
        self.scale_to(self.dimensions)
        scale = self.unscaled.chart.scale_factor * (1.0 if self.unscaled.titled else LEGEND_SCALE)
        legend = score_legend(self.largest_score, self.scale_label(self.unscaled.titled),
                              height=self.legend.bar.height / scale).scale(scale)
        legend.shift(self.legend.bar.get_center() - legend.bar.get_center())
        for panel in panels:
            panel.scores.largest = self.largest_score
        # the old line out, then the new one in (Swap would light the line's empty number slots as it fades)
        self.play(Vanish(self.readout), Vanish(self.marks), Vanish(self.legend), run_time=POP * 2)
        self.play(Appear(scaled_readout), Appear(legend), *wave(self.panels_to(low, panels)), run_time=STATE_CHANGE)
        self.legend = legend
        self.readout = scaled_readout
        waited = self.cue_in_turn(panels, low)
        rest = [size for size in self.dimensions if size > low]
        self.hold(len(rest) + 1, after=STATE_CHANGE * len(rest) + SUMMARY_READ, least=STATE_HOLD, waited=waited)
        # where the unscaled row's leader changes again (k₇ at 64, k₆ at 512), the growing step's reason, beside it
        self.winner_reasons = self.new_winners([low, *rest])  # (tests read them)
        self.winner_lines = {size: self.beside_leader(line, size) for size, line in self.winner_reasons.items()}
        for index, size in enumerate(rest):  # one hold more: the last d_k's is cut by the frames below
            self.change_dimension(size, panels, change=STATE_CHANGE, least=STATE_HOLD,
                                  holds_left=len(rest) - index + 1, after=SUMMARY_READ,
                                  also=self.winner_line_moves([low, *rest][index], size))
        # "... y el gradiente llega a todas las claves": at the last d_k, the divided bars the gradient reaches and
        # their Σ p(1 − p) framed (the state stood 6.5 s still under that sentence: review s15)
        self.reach_marks = VGroup(self.reach_frames(self.demos[last].weights_scaled),
                                  self.mark(self.scaled.gradient))  # (tests read them)
        self.marks = VGroup(self.reach_marks, *self.winner_lines_at(last))  # the line leaves with the panels
        self.play(Appear(self.marks), run_time=MARK_POP)
        self.hold(1, after=SUMMARY_READ, least=0.0)
        # "En resumen": the sweep's readouts, every d_k on a row of one table, take the panels' place (three seconds a
        # d_k were too few to compare 40 numbers: review s13); the guide's exercise 5 read off its rows 8 and 64
        left, right, bottom, _ = style.body_box()
        exercise = self.bottom_note(self.strings["labels"]["exercise"].format(**exercise_fields(self.demos)),
                                    EXERCISE_HEIGHT)
        # over the table, where the lab does this; under it, what its divided columns' drift is (one draw a row)
        lab = fit(label_text(self.strings["labels"]["lab"].format(d_k=LAB_D_K), style.MUTED, style.BODY_SIZE),
                  right - left, NOTE_HEIGHT)
        lab.move_to(np.array([(left + right) / 2, self.readout.get_top()[1] - lab.height / 2, 0]))
        self.table_noise = fit(label_text(self.mean_line(), style.MUTED, style.BODY_SIZE), right - left, NOISE_HEIGHT)
        self.place(table, left, right, bottom + EXERCISE_HEIGHT + 2 * NOTE_GAP + NOISE_HEIGHT,
                   lab.get_bottom()[1] - LAB_GAP)
        # clear of the frames that come round the table's cells (FRAME_CLEARANCE under its last row)
        self.table_noise.next_to(table, DOWN, buff=NOTE_GAP).set_x((left + right) / 2)
        self.table_lines = VGroup(lab, self.table_noise)  # (tests read them, the table and the exercise line)
        self.summary, self.exercise_line = table, exercise
        self.beat("table")
        self.play(Vanish(self.unscaled, self.scaled, self.legend, self.readout, self.rounded, self.marks,
                         rate_func=FIRST_HALF),
                  Appear(table, lab, rate_func=SECOND_HALF), run_time=2 * SHORTEST_APPEAR)
        self.hold(3, least=0.0)  # silent, what is left to read shared by the table's three moments; spoken, the voice's
        self.beat("rows")  # "de 8 a 64, la raíz crece 2.83 veces": the exercise's rows framed, its line under them
        rows = run_frames(table.rows, [size in EXERCISE for size in self.dimensions], style.HIGHLIGHT)
        self.play(Appear(exercise, rows), run_time=MARK_POP)
        self.hold(2, least=0.0)
        # "sin dividir, se afila hasta el todo o nada": the exercise rows' undivided entropies framed; "y dividiendo,
        # sigue repartiendo": their divided ones beside them; then under the table what those columns' differences are
        # (the table, its notes and the exercise line had come in one second, the note never said: review s16)
        exercise_rows = [size in EXERCISE for size in self.dimensions]
        unscaled, divided = (run_frames(column, exercise_rows, style.HIGHLIGHT) for column in table.entropies)
        self.beat("collapse")
        self.play(Vanish(rows), Create(unscaled), run_time=0.6)
        self.hold(1, least=0.0)
        self.beat("verdict")
        self.play(Create(divided), run_time=0.6)
        self.beat("noise")  # "lo que varía entre filas es azar de la muestra": the note saying how much, under the table
        self.play(Appear(self.table_noise), run_time=MARK_POP)
        # as the voice ends, the note lights once, then the table stands for what is left to read (7 s still: review s16)
        self.wait(max(self.voice_left(), MARK_POP))
        self.play(Indicate(self.table_noise, scale_factor=1.0, color=style.TEXT), run_time=NOTE_LIGHT)

    def mean_line(self) -> str:
        """Under the summary table: each of its rows is one draw of n_keys keys; the divided softmax's entropy and
        Σ p(1 − p), averaged over MEAN_ROWS rows at each d_k of the table, lie in a narrow range (their lowest and
        highest over the table's d_k): the divided columns' drift is that draw's noise, not a trend."""
        means = [scaled_means(d_k, self.settings.n_keys, seed=self.settings.seed) for d_k in self.dimensions]
        entropies, slopes = [m.entropy for m in means], [m.slope for m in means]
        return self.strings["labels"]["table_noise"].format(
            n_keys=self.settings.n_keys, rows=grouped(MEAN_ROWS), entropy_low=format_number(min(entropies)),
            entropy_high=format_number(max(entropies)), slope_low=format_number(min(slopes)),
            slope_high=format_number(max(slopes)))

    def beside_leader(self, line: str, d_k: int) -> VGroup:
        """``line`` (``new_winners``) rewrapped over the unscaled panel's bars on the wider side of ``d_k``'s largest bar,
        over the other bars there and their values, under the readout: never over the bar it explains."""
        chart, weights = self.unscaled.chart, self.demos[d_k].weights_unscaled
        leader, room, scale = int(np.argmax(weights)), self.unscaled.room, chart.scale_factor
        bars = chart.bars
        sides = [(room.get_left()[0], bars[leader].get_left()[0] - LEAD_SIDE_GAP, range(leader)),
                 (bars[leader].get_right()[0] + LEAD_SIDE_GAP, room.get_right()[0], range(leader + 1, len(bars)))]
        left, right, keys = max(sides, key=lambda side: side[1] - side[0])
        bottom = chart.baseline.get_y() + VALUE_ROOM * scale + LEAD_GAP + max(
            (chart._height(weights[j], scale) for j in keys), default=0.0)
        top = self.readout.get_bottom()[1] - LEAD_GAP  # the room's top and the gap over it: letters ≥ 16 px
        aside = wrapped_text(line, style.MUTED, style.BODY_SIZE, right - left)
        fit(aside, right - left, top - bottom)
        return aside.move_to(np.array([(left + right) / 2, (top + bottom) / 2, 0]))

    def summary_table(self) -> VGroup:
        """Every d_k of the sweep on a row: d_k, √d_k, the deviation of q·k/√d_k (≈ 1: the step's claim), then the
        entropy and the total slope Σ p(1 − p) of its row,
        unscaled and divided, under a header of two lines (what is measured, over which softmax). ``rows``: each
        row's numbers; ``entropies``: the cells of the two entropy columns, unscaled then divided."""
        labels = self.strings["labels"]
        cell = style.BODY_SIZE

        def word(key: str, colour=style.MUTED):
            return label_text(labels[key], colour, style.CAPTION_SIZE)

        header = [word("table_d_k"), word("table_root"), word("table_scaled"),
                  *[word(key) for key in ("unscaled", "divided") * 2]]
        rows = []
        for i, d_k in enumerate(self.dimensions):
            demo = self.demos[d_k]
            values = [(d_k, 0, "d_k"), (np.sqrt(d_k), 2, "root"), (self.scaled_deviations[d_k], 2, "scaled_deviation"),
                      (demo.entropy_unscaled, 2, "entropy_unscaled"), (demo.entropy_scaled, 2, "entropy_scaled"),
                      (gradient_reach(demo.weights_unscaled), 2, "gradient_unscaled"),
                      (gradient_reach(demo.weights_scaled), 2, "gradient_scaled")]
            row = []
            for value, decimals, name in values:
                text = number_text(value, style.TEXT, cell, decimals=decimals)
                text.tag = (f"summary_{name}", (0, i))  # a column reads as one row of numbers
                row.append(text)
            rows.append(row)
        grid = VGroup(*header, *[text for row in rows for text in row])
        grid.arrange_in_grid(rows=len(rows) + 1, cols=len(header), buff=(0.75, 0.26), col_alignments="rrccccc")
        groups = VGroup()
        for key, columns in (("entropy_bits", (3, 4)), ("gradient_sum", (5, 6))):
            over = VGroup(*[grid[column] for column in columns])
            name = label_text(labels[key], style.TEXT, style.CAPTION_SIZE, weight="BOLD")
            rule = Line(over.get_corner(UP + LEFT) + UP * 0.22, over.get_corner(UP + RIGHT) + UP * 0.22,
                        color=style.MUTED, stroke_width=1.5)
            groups.add(VGroup(name.next_to(rule, UP, buff=0.1), rule))
        table = VGroup(groups, grid)
        width = len(header)
        table.rows = [VGroup(*grid[width * (i + 1): width * (i + 2)]) for i in range(len(rows))]
        table.entropies = [[grid[width * (i + 1) + column] for i in range(len(rows))] for column in (3, 4)]
        return table

    # Shared pieces ------------------------------------------------------------------------------
    def panel(self, version: str, values: tuple[np.ndarray, np.ndarray, float], stacked: bool) -> DistributionPanel:
        """The unscaled or scaled panel showing (weights, scores, entropy), its scores on the shared scale.

        If the title beside the chart would shrink the numbers, it goes above (and a stacked chart is
        rebuilt lower, to give back the height that line takes)."""
        label = r"q\cdot k_j / \sqrt{d_k}" if version == "scaled" else r"q\cdot k_j"

        def build(chart_height: float) -> DistributionPanel:
            return DistributionPanel(self.strings["labels"][version], label, version, self.largest_score,
                                     self.strings["labels"], values, chart_height,
                                     keys_shown=not (stacked and version == "scaled"), formula=not stacked,
                                     tallest=self.tallest_scaled() if stacked and version == "scaled" else 1.0)

        panel = build(STACKED_CHART_HEIGHT if stacked else CHART_HEIGHT)
        left, right, _, _ = style.body_box()
        if panel.width + LEGEND_ROOM > right - left:
            panel = build(TITLED_STACKED_CHART_HEIGHT) if stacked else panel
            panel.side_above()
        return panel

    def tallest_scaled(self) -> float:
        """The largest weight the divided panel shows, at any d_k of the section (a little over it: room for the
        change between two d_k): its room keeps that much of the bars' height, not a one-hot's."""
        return min(1.0, max(float(self.demos[d_k].weights_scaled.max()) for d_k in self.dimensions) + SCALED_HEADROOM)

    def score_bar(self, panels: VGroup, top: DistributionPanel):
        """The colour bar of every score cell (one scale for both panels and every d_k): right of ``panels``, or,
        when the titles are above the charts, in the empty column left of the ``top`` panel's bars, so the bars
        keep the width."""
        label = self.scale_label(top.titled)
        if not top.titled:
            legend = score_legend(self.largest_score, label, height=LEGEND_HEIGHT / LEGEND_SCALE).scale(LEGEND_SCALE)
            return legend.next_to(panels, RIGHT, buff=LEGEND_GAP)
        bottom, slot_top = top.left_slot()
        sample = score_legend(self.largest_score, label, height=1.0)
        legend = score_legend(self.largest_score, label, height=min(LEGEND_HEIGHT, slot_top - bottom - (sample.height - 1.0)))
        return legend.next_to(top.room, LEFT, buff=SIDE_GAP).align_to(np.array([0, slot_top, 0]), UP)

    def scale_label(self, titled: bool) -> str:
        """The colour bar's label and, under it, the d_k its scale covers; not when the bar stands in the narrow
        column left of many keys' bars (titled panels): there the range's line would squeeze the bar under its ticks."""
        labels = self.strings["labels"]
        return labels["score_scale"] + ("" if titled else "\n" + labels["score_range"].format(high=self.scale_high))

    def per_key(self, seconds: float) -> float:
        """``seconds``, or KEY_SECONDS a key if that is longer: a change as slow as its numbers are many."""
        return max(seconds, KEY_SECONDS * self.settings.n_keys)

    @staticmethod
    def values(demo: ScalingDemo, scaled: bool) -> tuple[np.ndarray, np.ndarray, float]:
        if scaled:
            return demo.weights_scaled, demo.scaled_scores, demo.entropy_scaled
        return demo.weights_unscaled, demo.scores, demo.entropy_unscaled

    def change_dimension(self, d_k: int, panels: list[DistributionPanel], change: float = CHANGE,
                         least: float = HOLD, holds_left: int = 1, after: float = 0.0, also: tuple = ()):
        """Move the readout and every panel to d_k in ``change`` seconds (with the animations ``also``), then hold
        (see ``hold``): the same change follows ``holds_left`` - 1 times more, then ``after`` seconds of animation."""
        self.play(*wave([*self.readout.change_to(self.readout_values(d_k)), *self.panels_to(d_k, panels)]), *also,
                  run_time=change)
        waited = self.cue_in_turn(panels, d_k)
        self.hold(holds_left, after=after + change * (holds_left - 1), least=least, waited=waited)

    def panels_to(self, d_k: int, panels: list[DistributionPanel]) -> list:
        """Animations that move every panel to d_k's weights, scores, entropy and gradient."""
        return [animation for panel in panels
                for animation in panel.change_to(*self.values(self.demos[d_k], panel.version == "scaled"))]

    def cue_in_turn(self, panels: list[DistributionPanel], d_k: int) -> float:
        """Each panel's softmax sound as its bars have landed, the next one once the last has finished (the
        still frame is waited out meanwhile): the seconds waited."""
        start = self.renderer.time
        for index, panel in enumerate(panels):
            if index:
                self.wait(COMPARED_TURN)
            self.cue_distribution(panel, d_k)
        return self.renderer.time - start

    def hold(self, holds_left: int, after: float = 0.0, least: float = HOLD, waited: float = 0.0):
        """Wait this hold's share of the time the step still needs to be read (its planned reading time, less
        ``after`` seconds of animation still to come), shared by the ``holds_left`` holds left in the step:
        at least ``least`` seconds, and short of the longest still stretch allowed; ``waited`` seconds of it
        have already passed."""
        step = self.steps[-1]
        left = step.start + step.reading - self.renderer.time - after + waited
        seconds = min(LONGEST_FREEZE - STILL_MARGIN, max(least, left / holds_left)) - waited
        if seconds > 0:
            self.wait(seconds)

    def numbers_at(self, d_k: int, versions: list[str], scaled: bool = False) -> set[tuple[str, int, str]]:
        """(name, index, text) of every number the readout and the ``versions`` panels show at ``d_k`` (the readout
        with the scaled deviation if ``scaled``), written as on screen."""
        readout = self.readout_values(d_k)
        shown = {(name, 0, format_number(readout[name], READOUT_NUMBERS[name][1])) for name in READOUT_SHOWN[scaled]}
        for version in versions:
            weights, scores, entropy = self.values(self.demos[d_k], version == "scaled")
            shown |= {(f"entropy_{version}", 0, format_number(entropy)),
                      (f"gradient_{version}", 0, format_number(gradient_reach(weights)))}
            shown |= {(f"{kind}_{version}", j, format_number(value))
                      for kind, values in (("weights", weights), ("scores", scores)) for j, value in enumerate(values)}
        return shown

    def cue_distribution(self, panel: DistributionPanel, d_k: int):
        """Matrix's softmax "row" sound: one partial per key, as loud as its weight (one-hot: a lone tone)."""
        weights, _, entropy = self.values(self.demos[d_k], panel.version == "scaled")
        self.cue("row", weights=[float(w) for w in weights], d_k=d_k, version=panel.version,
                 entropy=float(entropy))

    def readout_values(self, d_k: int) -> dict[str, float]:
        """d_k; the deviation of the panel's own scores (its sample of n_keys); the table's, measured over many
        pairs, beside sqrt(d_k); and the table's divided by sqrt(d_k)."""
        deviation, root, scores = self.deviations[d_k], float(np.sqrt(d_k)), self.demos[d_k].scores
        return {"d_k": d_k, "sample": standard_deviation(scores), "deviation": deviation, "root": root,
                "scaled_sample": standard_deviation(scores / root), "scaled_deviation": deviation / root}

    def readout_line(self, d_k: int, scaled: bool = False) -> Readout:
        """d_k, the deviation of the panel's own scores and the table's (many pairs) beside sqrt(d_k); with
        ``scaled`` the divisor sqrt(d_k) and both deviations once divided by it. A sample of a few keys spreads
        more or less than sqrt(d_k): the line says how many each is taken over (8 scores, 20 000 pairs). Divided, the
        many pairs' deviation, ≈ 1 at every d_k, comes first: the step's claim; the few scores' after it, muted and
        called noisy (0.38 to 1.19 as d_k changes)."""
        labels = self.strings["labels"]
        def words(key: str):
            return label_text(labels[key].format(n_keys=self.settings.n_keys, pairs=grouped(DEVIATION_PAIRS)),
                              style.MUTED, style.BODY_SIZE)

        groups = [[words("d_k"), "d_k"], [words("sample"), "sample", words("typical"), "deviation", words("root"),
                                          "root"]]
        if scaled:
            groups = [[words("d_k"), "d_k"], [words("divisor"), "root"],
                      [words("scaled_typical"), "scaled_deviation", words("scaled_sample"), "scaled_sample"]]
        line = Readout(groups, [self.readout_values(size) for size in self.dimensions], self.readout_values(d_k))
        left, right, _, top = style.body_box()
        fit(line, right - left, 0.6)
        return line.move_to(np.array([(left + right) / 2, top - line.height / 2, 0]))

    @staticmethod
    def panel_area(readout: VGroup, note: bool) -> tuple[float, float, float, float]:
        """(left, right, bottom, top) under the readout line, with ``note`` above the room kept for a note."""
        left, right, bottom, _ = style.body_box()
        return (left, right, bottom + (NOTE_HEIGHT + NOTE_GAP if note else FRAME_ROOM),
                readout.get_bottom()[1] - READOUT_GAP)

    @staticmethod
    def place(group, left: float, right: float, bottom: float, top: float):
        """Centre ``group`` in the box, scaled to fit (enlarged a little if there is room)."""
        fit(group, right - left, top - bottom, largest_scale=1.15)
        group.move_to(np.array([(left + right) / 2, (bottom + top) / 2, 0]))
