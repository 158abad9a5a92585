"""Section 7: attention that was learned, not designed. A two-layer attention-only transformer, trained on this
machine on sequences whose second half repeats the first (``lesson.learned_cache``): the task on one example, the
loss falling all at once, the previous-token head (layer 1) and the induction head (layer 2) forming before,
during and after the drop, the other heads beside the designed ones of section 3, and the circuit in one line.

Every number on screen is the cached training's (``attn_math.learned``); the scene only draws them.
"""

from __future__ import annotations

import string

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Create, CurvedArrow, DashedLine, Dot, Line, Mobject, RoundedRectangle,
                   ReplacementTransform, SurroundingRectangle, Transform, VGroup, linear)

from attn_math.copy_floor import (copying_loss, lead_and_period, mean_lead, mean_period, targets, typical_row,
                                  uncopyable_targets)
from attn_math.heads import multi_head_attention
from attn_math.induction_task import training_shape
from attn_math.learned import drop_step, guessing_loss, induction_head, moments, predicted_next, previous_token_head
from attn_math.tiny_transformer import forward, log_probabilities
from lesson.learned_answers import CLEAN, clean_heads, loss_step, question_fields
from lesson.learned_cache import trained
from lesson.matrix_answers import listed
from lesson.numbers import format_number
from lesson.references import cited
from scenes import style
from scenes.attention_arcs import (ARC_GAP, BRACKETS_WIDTH, LOOP_BULGE, LOOP_HEIGHT, READOUT_SIZE, AttentionArc,
                                   TokenRow, number_text)
from scenes.fades import Appear, Vanish
from scenes.heads import PATTERN_GAP, head_blocks, heads_legend, legible_label
from scenes.heatmap import Heatmap, round_ticks
from scenes.curve_plot import CurvePlot
from scenes.lesson_scene import LessonScene, wrapped_parts, wrapped_text
from scenes.visuals import fit, label_text, sit_on, tagged_number, text_with_numbers

PREVIOUS_COLOUR = style.HEADS[0]  # the previous-token head: the colour of section 3's designed previous-token head
ROLE_COLOURS = (PREVIOUS_COLOUR, style.INDUCTION)  # a layer's clean heads: previous-token in layer 1, induction in 2

FIRST_HALF_COLOUR = style.MUTED  # the random half, and its loss: what cannot be learned
REPEATED_COLOUR = style.TEXT  # the repeated half, and its loss
LOSS_COLOUR = style.OUTPUT  # the training loss: computed from the model's output
FLOOR_COLOUR = style.HIGHLIGHT  # where copying leaves the training loss: a mark that explains, as the drop's line
HOLD = 2.0  # seconds to hold a state worth reading
LEGEND_GAP = 0.28  # between two entries of the loss's legend
FLOOR_INDENT = 0.35  # the copying floor's entry, under the training curve's: it is that curve's level
LINE_READ = 0.7  # seconds to read one more line of the floor's derivation before the next comes
NOTE_LINE_GAP = 0.1  # between the score note's two lines
SCORES_BUFF = (0.16, 0.06)  # round a head's three scores: clear of the digits' sides, of the maps above
ARROW_SECONDS, ANSWER_PAUSE, ANSWER_SECONDS = 0.5, 0.5, 0.3  # the task's copy arrow, a breath, its answer
MODEL_GAP, MODEL_BUFF, MODEL_ARROW = 0.25, 0.1, 0.7  # the model's layers: round the goal, in a box, between boxes
TASK_NOTE_ROOM = 2.4  # under the task's row: the two lines saying what the model is trained on, and a row of it
TRAINING_ROW_SEED = 0  # the generator a row of the training task is drawn with, one near the means (``typical_row``)
TRAINING_SLOT = 0.32  # a token's box side in that row, before the row is fitted
MOMENT_SECONDS = 0.6  # a moment of the training (before, during, after the drop) coming in
CAPTION_ROOM = 0.3  # above the body's bottom: a caption on two lines rises this far into it
SLOT = 0.5  # a token's box side in the task's row (frame units), before the row is fitted
SLOT_GAP = 0.08
ROW_MARGIN = 0.3  # the mechanism's token row, inside the body's sides: its end tokens clear of the frame's edges
LOSS_SAMPLES = 240  # points of the loss a cue carries: the curve's shape, not every step's
LOSS_SECONDS = 3.6  # drawing the loss curve, at least
PLOT_SHARE = 0.48  # of the body's width, for the loss plot; its legend takes the rest (its derivation's lines >= 16 px)
FLOOR_LINE_GAP = 0.14  # between two lines of the floor's derivation: apart enough to read one at a time
HEATMAPS_WIDTH = 5.8  # the three moments' heatmaps, side by side; the arcs over the example take the rest
PANEL_GAP = 0.3
TITLE_GAP = 0.15  # between a head's name and its arcs
ABOVE_HEIGHT = 1.0  # the previous-token head's arcs above the row: short ones once it has formed
BELOW_HEIGHT = 1.5  # the induction head's arcs below: half a sequence long
COPY_CLEARANCE, COPY_ANGLE = 0.25, -0.4  # the mechanism's copy arrow: over the previous-token arc, and its bend
MECHANISM_BELOW = 0.7  # the induction head's one arc in the mechanism, under the tags its two heads write and read
MOMENT_GAP = 0.2  # between the heatmaps of two moments
TIE_GAP = 0.2  # between «during»'s scores and the line saying their being alike is chance: clear of their frame
STEP_LIFT = 0.1  # a moment's step line over its first map (plus half a line): the room that tie line takes
MOMENT_ROW_GAP = 0.15  # between a moment's two heads (their scores' frame between): room for that line
SCORE_NOTE_GAP = 0.3  # between the line that says what the scores under the maps are and the first head's name
NOTE_SHARE = 0.7  # of the arcs column, for the induction pattern's line: two lines of one length, no word alone
DOT_RADIUS = 0.07
FRAME_BUFF = 0.06  # round a token of the example, at most FRAME_SHARE of the tokens' spacing wide
FRAME_SHARE = 0.8
READOUT_GAP = 0.15  # between the example's tokens and a head's weights written over or under them
REVEAL_SECONDS = 0.3  # a piece coming as the voice names it: quick enough to be seen arriving (a slow fade reads as still)
DESIGNED_CELL = 0.13  # a cell of section 3's designed patterns
TRAINED_SIDE = 2.0  # largest side of a trained head's pattern in the comparison
HEADS_GAP = 0.25  # between two trained heads of a layer
MESSY_OPACITY = 0.45  # a trained head that is not clean: its map muted once the voice names it (its score stays legible)
CLEAN_FRAME_WIDTH = 4  # the frame round a clean trained head: the step's boldest mark
LAYERS_GAP = 0.25  # between the trained heads of two layers
NAME_GAP = 0.1  # between a trained pattern and its score under it
HEADER_GAP = 0.22  # between a trained pattern and the head's name over it: clear of a frame drawn round the head
ROLE_GAP = 0.1  # between a layer's name and its clean heads' role under it
ROW_LABEL_GAP = 0.2  # between a layer's name and its first pattern
CHART_TOKENS = 3  # the likeliest next tokens drawn as bars in the mechanism
CHART_LONGEST = 2.5  # a bar of probability 1, at most (frame units)
CHART_BAR, CHART_ROW, CHART_BUFF, CHART_GAP = 0.2, 0.34, 0.12, 0.8  # a bar's height, a row's, round a bar, by the notes
DESIGNED_SHARE = 0.46  # of the body's width, for the designed heads at their legend's full size (its subscripts
# at the least legible height): the trained ones, 20x20 maps, take the rest


def token_letter(token: int) -> str:
    """Token k as a letter (A, B, ...), two letters beyond Z: short labels that keep a long row legible."""
    letters = string.ascii_uppercase
    if token < len(letters):
        return letters[token]
    return letters[token // len(letters) - 1] + letters[token % len(letters)]


def exact(value: float) -> str:
    """``value`` with at most two decimals and no trailing zeros: 16.25, 16.5, 16."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def body() -> tuple[float, float, float, float]:
    """(left, right, bottom, top) of the room between the header and a caption of up to two lines."""
    left, right, bottom, top = style.body_box()
    return left, right, bottom + CAPTION_ROOM, top


def strongest_arc(row: TokenRow, weights: np.ndarray, query: int, colour, height: float, above: bool = True,
                  clearance: float = 0.0) -> AttentionArc:
    """Query ``query``'s arc to the key it gives most weight, as opaque and as thick as that weight, rising with its
    length (the longest, across the row, to ``height``), ``clearance`` further from the row than a sentence's arcs
    (room for a line of weights between): one arc to follow from its query to its key, where all of a row's arcs
    over twenty tokens merge into a band and a head's small weights draw ghosts."""
    direction = 1 if above else -1
    base = row.top() + ARC_GAP + clearance if above else row.bottom() - ARC_GAP - clearance
    offset = min(0.1, row.spacing() / 5)  # leave on the right of a word, arrive on its left, as AttentionArcs does
    longest = max(row.centre_x(len(row.words) - 1) - row.centre_x(0), row.spacing())
    key = int(np.argmax(weights[query]))
    weight = float(weights[query, key])
    start = np.array([row.centre_x(query) + offset, base, 0.0])
    end = np.array([row.centre_x(key) - offset, base, 0.0])
    if query == key:
        control, bulge = LOOP_HEIGHT, LOOP_BULGE
    else:
        control, bulge = min(1.0, 0.15 + 0.85 * abs(end[0] - start[0]) / longest) * height / 0.75, 0.0
    arc = AttentionArc(start, end, control, weight, colour, direction, bulge)
    arc.query, arc.key = query, key
    return arc


def only_row(row: np.ndarray, i: int) -> np.ndarray:
    """A weight matrix holding only query i's row: its arcs alone."""
    weights = np.zeros((len(row), len(row)))
    weights[i] = row
    return weights


class LearnedScene(LessonScene):
    section_id = "learned"
    STEPS = ("task", "loss", "heads_forming", "messy", "mechanism")

    def lesson(self):
        self.training = trained(self.settings)
        self.labels = self.strings["labels"]
        self.tokens = [token_letter(int(token)) for token in self.training.example]
        self.half = len(self.tokens) // 2
        self.previous_head = previous_token_head(self.training)
        self.induction_head = induction_head(self.training)
        self.moments = moments(self.training)
        self.final = self.training.patterns(self.moments[-1])  # (layers, heads, T, T) after the drop
        # The token whose next one the task and the circuit follow: in the middle of the repeated half; it occurred
        # before at ``seen``, followed there by ``follower``, which it should predict.
        self.position = self.half + self.half // 2
        self.seen, self.follower = self.position - self.half, self.position - self.half + 1
        self.answers = question_fields(self.training, self.position, token_letter)
        self.show_task()
        self.show_loss()
        self.show_heads_forming()
        self.show_messy()
        self.show_mechanism()

    # Step 1: the task ----------------------------------------------------------------------------
    def show_task(self):
        length, shortest, longest = training_shape(self.half)
        self.begin_step("task", half=self.half, vocabulary=self.training.shape.vocabulary, length=length,
                        shortest=shortest, longest=longest)
        left, right, bottom, top = body()
        shown = [*self.tokens]
        asked = self.position + 1
        shown[asked] = "?"
        self.row = TokenRow(shown, font_size=style.BODY_SIZE, slot_width=SLOT, gap=SLOT_GAP)
        boxes = VGroup(*[self.token_box(i, FIRST_HALF_COLOUR if i < self.half else REPEATED_COLOUR)
                         for i in range(len(self.tokens))])
        halves = VGroup(self.half_mark(range(self.half), self.labels["first_half"], FIRST_HALF_COLOUR, boxes),
                        self.half_mark(range(self.half, len(self.tokens)), self.labels["repeated_half"],
                                       REPEATED_COLOUR, boxes))
        answer = TokenRow([self.tokens[asked]], font_size=style.BODY_SIZE).words[0]
        answer.move_to(self.row.words[asked])
        arrow = CurvedArrow(boxes[self.follower].get_top() + UP * 0.1, boxes[asked].get_top() + UP * 0.1,
                            angle=-0.6, color=style.HIGHLIGHT, stroke_width=3, tip_length=0.18)
        copy = label_text(self.labels["copy"], style.HIGHLIGHT, style.CAPTION_SIZE).next_to(arrow, UP, buff=0.12)
        model = self.model_stack().next_to(copy, UP, buff=MODEL_GAP)  # «un transformer de dos capas», drawn
        goal = label_text(self.labels["goal"], style.TEXT, style.BODY_SIZE).next_to(model, UP, buff=MODEL_GAP)
        VGroup(model, goal).set_x(self.row.get_x())
        stage = VGroup(self.row, boxes, halves, arrow, copy, answer, model, goal)
        fit(stage, right - left, top - bottom - TASK_NOTE_ROOM)
        # what the model is trained on is not the sequence it is shown on: both said on screen, under the row
        shape = dict(length=length, shortest=shortest, longest=longest, half=self.half)
        lead = self.labels["training_task"].format(**shape)  # said with the voice's [[trained]], the rest with [[period]]
        lead_part, trained_on = wrapped_parts([lead, f"{lead} {self.labels['training_task_rest'].format(**shape)}"],
                                              style.MUTED, style.CAPTION_SIZE, stage.width)
        strip, strip_boxes, (lead_mark, period_mark, repeat_mark) = self.training_row(stage.width)
        VGroup(stage, trained_on, strip).arrange(DOWN, buff=0.4).move_to([(left + right) / 2, (bottom + top) / 2, 0])
        marked = VGroup(*[self.token_box(i, style.HIGHLIGHT, stroke_width=5) for i in (self.seen, self.position)])
        self.cue("tokens", tokens=list(self.tokens), count=len(self.tokens))
        # each piece comes as the voice names it: the goal, the random half, its repeat, the copy, what training sees
        self.play(Appear(goal, model), run_time=REVEAL_SECONDS)
        self.beat("first")
        self.play(Appear(*boxes[:self.half], *self.row.words[:self.half]), Appear(halves[0]), run_time=REVEAL_SECONDS)
        self.beat("repeated")
        self.play(Appear(*boxes[self.half:], *self.row.words[self.half:]), Appear(halves[1]), run_time=REVEAL_SECONDS)
        self.wait(HOLD)
        self.beat("copy")
        self.play(*[Transform(boxes[i], box) for i, box in zip((self.seen, self.position), marked)],
                  run_time=REVEAL_SECONDS)
        # the reading time left is two pauses, before the arrow and after the answer, not one slow fade of the answer
        # (a 5 s fade changes too little from frame to frame to be seen moving, and the answer is one word)
        reading = 0.0
        if self._caption_read:  # read on screen: time to read before the arrow, and a breath before the answer
            reading = max(1.0, self.reveal_seconds(fill_after=ARROW_SECONDS + ANSWER_PAUSE + ANSWER_SECONDS
                                                   + 2 * REVEAL_SECONDS, shortest=0.0))
            self.wait(reading / 2)
        self.play(Create(arrow), Appear(copy), run_time=ARROW_SECONDS)
        if self._caption_read:
            self.wait(ANSWER_PAUSE)
        self.play(Vanish(self.row.words[asked]), Appear(answer), run_time=ANSWER_SECONDS)
        if reading:
            self.wait(reading / 2)
        self.beat("trained")  # what training sees, in two pieces as the voice says them: each seen arriving
        first, rest = trained_on[:len(lead_part)], trained_on[len(lead_part):]  # where the whole note is laid out
        self.play(Appear(first), Appear(strip_boxes), Appear(lead_mark), run_time=REVEAL_SECONDS)  # the strays shown
        self.beat("period")
        self.play(Appear(rest), Appear(period_mark, repeat_mark), run_time=REVEAL_SECONDS)
        self.remove(first, rest)
        self.add(trained_on)  # the same glyphs, now one text
        self.task = VGroup(goal, model, boxes, halves, arrow, copy, answer, trained_on, strip, *self.row.words)

    def model_stack(self) -> VGroup:
        """The trained model as its layers, in the order a token goes through them: a box per layer naming its heads
        («capa 1 · 4 cabezas» → «capa 2 · 4 cabezas»), sizes from the model's shape (review s17: «dos capas» was voice
        only)."""
        shape = self.training.shape
        layers = VGroup(*[label_text(self.labels["model_layer"].format(layer=layer + 1, heads=shape.heads),
                                     style.TEXT, style.CAPTION_SIZE) for layer in range(shape.layers)])
        layers.arrange(RIGHT, buff=MODEL_ARROW)
        boxes = VGroup(*[SurroundingRectangle(layer, color=style.MUTED, buff=MODEL_BUFF, corner_radius=0.06,
                                              stroke_width=2) for layer in layers])
        arrows = VGroup(*[Arrow(before.get_right(), after.get_left(), buff=0.05, color=style.MUTED, stroke_width=2,
                                tip_length=0.12, max_tip_length_to_length_ratio=0.5)
                          for before, after in zip(boxes, boxes[1:])])
        return VGroup(layers, boxes, arrows)

    def training_row(self, width: float) -> tuple[VGroup, VGroup, VGroup]:
        """One row of the training task (``typical_row``: its m stray tokens and period p near their means), as
        letters in boxes at most ``width`` wide: the strays and the period's first pass muted (nothing to copy from
        them: the copying floor's count), the repeats in the repeated half's colour, each span named under it. The
        boxes alone where their letters could not stay legible (long rows of two-letter tokens).
        Returns (everything, the letters in their boxes, the three spans' marks)."""
        half = self.training.shape.half
        row = typical_row(np.random.default_rng(TRAINING_ROW_SEED), self.training.shape.vocabulary, half,
                          round(mean_lead(half)), int(mean_period(half)))
        lead, period = lead_and_period(row)
        letters = TokenRow([token_letter(int(token)) for token in row], font_size=style.CAPTION_SIZE,
                           slot_width=TRAINING_SLOT, gap=SLOT_GAP)
        side = letters.spacing() - SLOT_GAP * letters.spacing() / (TRAINING_SLOT + SLOT_GAP)
        boxes = VGroup(*[RoundedRectangle(width=side, height=side, corner_radius=0.05, stroke_width=2,
                                          stroke_color=FIRST_HALF_COLOUR if i < lead + period else REPEATED_COLOUR)
                         .move_to([letters.centre_x(i), letters.words[i].get_y(), 0]) for i in range(len(row))])
        shrink = min(1.0, width / boxes.width)
        legible = min(word.height for word in letters.words) * shrink >= style.SMALLEST_CAP_HEIGHT
        shown = fit(VGroup(letters, boxes) if legible else VGroup(boxes), width, boxes.height)
        spans = ((range(lead), self.labels["training_lead"].format(lead=lead), FIRST_HALF_COLOUR),
                 (range(lead, lead + period), self.labels["training_period"].format(period=period), FIRST_HALF_COLOUR),
                 (range(lead + period, len(row)), self.labels["training_repeat"], REPEATED_COLOUR))
        marks = VGroup(*[self.half_mark(span, name, colour, boxes) for span, name, colour in spans if len(span)])
        return VGroup(shown, marks), shown, marks

    def token_box(self, i: int, colour, stroke_width: float = 2) -> RoundedRectangle:
        """The box of token i in the task's row, as tall as a capital's slot."""
        side = self.row.spacing() - SLOT_GAP * self.row.spacing() / (SLOT + SLOT_GAP)
        return RoundedRectangle(width=side, height=side, corner_radius=0.06, stroke_color=colour,
                                stroke_width=stroke_width).move_to([self.row.centre_x(i), self.row.words[i].get_y(), 0])

    @staticmethod
    def half_mark(positions: range, name: str, colour, boxes: VGroup) -> VGroup:
        """A line under the boxes of ``positions`` and its name under it."""
        first, last = boxes[positions[0]], boxes[positions[-1]]
        y = boxes.get_bottom()[1] - 0.15
        line = Line([first.get_left()[0], y, 0], [last.get_right()[0], y, 0], color=colour, stroke_width=4)
        return VGroup(line, label_text(name, colour, style.CAPTION_SIZE).next_to(line, DOWN, buff=0.12))

    # Step 2: the loss ----------------------------------------------------------------------------
    def show_loss(self):
        training = self.training
        vocabulary = training.shape.vocabulary
        guess = guessing_loss(vocabulary)
        drop = drop_step(training)
        first, repeated = float(training.first_half_losses[-1]), float(training.repeated_half_losses[-1])
        floor, uncopyable = copying_loss(vocabulary, training.shape.half), uncopyable_targets(training.shape.half)
        left, right, bottom, top = body()
        split = left + PLOT_SHARE * (right - left)
        steps = np.arange(len(training.losses))
        x_ticks = round_ticks(len(training.losses) + 1, most=6)
        x_ticks = [*x_ticks, x_ticks[-1] + x_ticks[1]] if x_ticks[-1] < len(training.losses) else x_ticks
        y_top = float(np.ceil(max(guess, float(np.max(training.losses)))))
        plot = CurvePlot(steps, training.losses, x_ticks=x_ticks, y_ticks=list(np.arange(0.0, y_top + 1.0)),
                         width=split - left - 1.2, height=top - bottom - 1.5, x_name=self.labels["axis_step"],
                         y_name=self.labels["axis_loss"], colour=LOSS_COLOUR, y_decimals=0)
        fit(plot, split - left, top - bottom - 0.3)
        plot.move_to([(left + split) / 2, (bottom + top) / 2 - 0.15, 0])
        guess_line = DashedLine(plot.point(0, guess), plot.point(x_ticks[-1], guess), color=FIRST_HALF_COLOUR,
                                stroke_width=2)
        floor_line = DashedLine(plot.point(0, floor), plot.point(x_ticks[-1], floor), color=FLOOR_COLOUR,
                                stroke_width=3)
        drop_line = DashedLine(plot.point(drop, 0), plot.point(drop, y_top), color=style.HIGHLIGHT, stroke_width=2)
        drop_label = text_with_numbers(self.labels["drop"], {"drop": tagged_number(
            drop, "drop_step", colour=style.HIGHLIGHT, font_size=style.CAPTION_SIZE, decimals=0)},
            style.HIGHLIGHT, style.CAPTION_SIZE)
        # Beside the top of its line, on the side with room: clear of the axis' name and of the plot's end
        side = RIGHT if drop < x_ticks[-1] / 2 else LEFT
        drop_label.next_to(plot.point(drop, y_top), side, buff=0.12).align_to(plot.point(drop, y_top), UP)
        dots = VGroup(*[VGroup(Dot(plot.point(step, first_half), radius=DOT_RADIUS, color=FIRST_HALF_COLOUR),
                               Dot(plot.point(step, repeated_half), radius=DOT_RADIUS, color=REPEATED_COLOUR))
                        for step, first_half, repeated_half in zip(training.steps, training.first_half_losses,
                                                                   training.repeated_half_losses)])
        legend = self.loss_legend(vocabulary, guess, first, repeated, floor, uncopyable)
        fit(legend, right - split - 0.3, top - bottom)
        legend.move_to([(split + right) / 2 + 0.15, (bottom + top) / 2, 0])
        # the task leaves with the old header; the voice's first words, «Adivinar cuesta 3.18», come with the axes,
        # the guessing line and its entry as the step starts (review s14: they came 2 s after the words)
        self.begin_step("loss", self.strings["steps"]["loss"][loss_step(training)], new_numbers=7,
                        steps=len(training.losses), vocabulary=vocabulary, guess=f"{guess:.2f}", drop=drop,
                        first=f"{first:.2f}", repeated=f"{repeated:.2f}", floor=f"{floor:.2f}",
                        uncopyable=exact(uncopyable), about=round(uncopyable), targets=targets(training.shape.half),
                        with_header=[Vanish(self.task)])
        self.beat("guess")
        self.play(Appear(plot.frame), Create(guess_line), Appear(legend[0]), run_time=REVEAL_SECONDS)
        with self.listening():  # the curve's falling pitch is the step's point: heard in the clear, as it is drawn
            seconds = max(LOSS_SECONDS, self.reveal_seconds(fill_after=3.0))
            samples = np.linspace(0, len(training.losses) - 1, LOSS_SAMPLES).round().astype(int)
            self.cue("loss", losses=training.losses[samples].tolist(), guess=guess, duration=seconds)
            self.play(Create(plot.curve, rate_func=linear), Appear(legend[1], rate_func=linear), run_time=seconds)
        self.beat("drop")
        self.play(Create(drop_line), Appear(drop_label), run_time=REVEAL_SECONDS)
        self.beat("halves")  # the two halves' losses come with their dots, as «la mitad repetida baja a» is said
        self.play(Appear(dots, lag_ratio=0.2), Appear(legend[2]), run_time=REVEAL_SECONDS)
        self.beat("floor")  # where the curve settles: what copying leaves, said as its line is drawn
        floor_mark, floor_text = legend[3]
        self.play(Create(floor_line), Appear(floor_mark, floor_text[0]), run_time=REVEAL_SECONDS)
        self.wait(LINE_READ)  # its formula while «Queda cerca de 1.78» is said: the lines after it get more time
        self.play(Appear(floor_text[1]), run_time=REVEAL_SECONDS)
        self.beat("uncopyable")  # then why, a line at a time, each given its reading time: what the count is, why it
        # has nothing to copy, the two means it adds up to, the strays' from its range (with why the curve is lower:
        # read in the silence that ends the step, not in time of its own)
        for line in (*floor_text[2:-2], floor_text[-2:]):
            self.play(Appear(line), run_time=REVEAL_SECONDS)
            self.wait(LINE_READ)
        self.loss_stage = VGroup(plot, guess_line, drop_line, drop_label, dots, floor_line, legend)

    def loss_legend(self, vocabulary: int, guess: float, first: float, repeated: float, floor: float,
                    uncopyable: float) -> VGroup:
        """(guessing, the training curve, the test's halves, the copying floor), laid out as guessing, then the training
        curve (rows of 3 half tokens) with the floor it can reach under it, indented: its level, not the test's
        (``attn_math.copy_floor``, derived line by line down to E[m] = (2 half - E[p]) / 2); then, under a header
        naming the 10 + 10 test, its two halves' losses at the last checkpoint, the dots' marks."""
        size = style.CAPTION_SIZE
        half = self.training.shape.half
        length, _, _ = training_shape(half)
        guess_row = self.legend_row(DashedLine(LEFT * 0.25, RIGHT * 0.25, color=FIRST_HALF_COLOUR, stroke_width=2),
                                    text_with_numbers(self.labels["guess"], {"guess": tagged_number(
                                        guess, "guessing_loss", colour=FIRST_HALF_COLOUR, font_size=size)},
                                        FIRST_HALF_COLOUR, size, vocabulary=str(vocabulary)))
        curve_row = self.legend_row(Line(LEFT * 0.25, RIGHT * 0.25, color=LOSS_COLOUR, stroke_width=4),
                                    label_text(self.labels["training_loss"].format(length=length), LOSS_COLOUR, size))
        test_rows = VGroup(label_text(self.labels["test_losses"].format(half=half), REPEATED_COLOUR, size))
        for name, value, colour in (("first_half_loss", first, FIRST_HALF_COLOUR),
                                    ("repeated_half_loss", repeated, REPEATED_COLOUR)):
            loss = text_with_numbers(self.labels[name], {"loss": tagged_number(value, name, colour=colour,
                                                                               font_size=size)}, colour, size)
            text = VGroup(loss)
            if name == "first_half_loss":  # why it is under ln V: no token of that half repeats (review s13); and
                # why its dots rise over ln V in the drop: the copying just learned fires there too (review s17)
                text.add(*[label_text(self.labels[why].format(vocabulary=vocabulary), colour, size)
                           for why in ("first_half_why", "first_half_rise")])
            test_rows.add(self.legend_row(Dot(radius=DOT_RADIUS, color=colour),
                                          text.arrange(DOWN, buff=0.1, aligned_edge=LEFT), loss))
        floor_text = VGroup(
            text_with_numbers(self.labels["floor"], {"floor": tagged_number(floor, "copying_loss", colour=FLOOR_COLOUR,
                                                                            font_size=size)}, FLOOR_COLOUR, size),
            text_with_numbers(self.labels["floor_why"], {"guess": tagged_number(
                guess, "copying_guess", colour=FLOOR_COLOUR, font_size=size)}, FLOOR_COLOUR, size,
                uncopyable=exact(uncopyable), targets=str(targets(half))),
            # what is counted: a prediction is made FROM a token, and one not seen before has nothing to copy (the
            # first m + p), then the two means that count adds up, the strays' from the range m is drawn from
            label_text(self.labels["floor_new"].format(uncopyable=exact(uncopyable)), FLOOR_COLOUR, size),
            # why a new token, the period's last one too, leaves nothing to copy (review s14: «desde un token nuevo»
            # alone did not say why the first period's last token counts)
            label_text(self.labels["floor_new_why"], FLOOR_COLOUR, size),
            label_text(self.labels["floor_parts"].format(lead=exact(mean_lead(half)), period=exact(mean_period(half))),
                       FLOOR_COLOUR, size),
            label_text(self.labels["floor_lead"].format(room=2 * half, period=exact(mean_period(half))), FLOOR_COLOUR,
                       size),
            # not a bound (``attn_math.copy_floor``): why the curve settles under it (review s17)
            label_text(self.labels["floor_below"], FLOOR_COLOUR, size)
        ).arrange(DOWN, buff=FLOOR_LINE_GAP, aligned_edge=LEFT)
        floor_row = self.legend_row(DashedLine(LEFT * 0.25, RIGHT * 0.25, color=FLOOR_COLOUR, stroke_width=3),
                                    floor_text, floor_text[0])
        test_rows.arrange(DOWN, buff=LEGEND_GAP, aligned_edge=LEFT)
        VGroup(guess_row, curve_row, floor_row, test_rows).arrange(DOWN, buff=LEGEND_GAP, aligned_edge=LEFT)
        floor_row.shift(RIGHT * FLOOR_INDENT)
        return VGroup(guess_row, curve_row, test_rows, floor_row)

    @staticmethod
    def legend_row(mark, text, first_line=None) -> VGroup:
        """A legend entry: its mark, then its text, the mark at the height of the text's ``first_line`` (its only one
        when not given)."""
        row = VGroup(mark, text).arrange(RIGHT, buff=0.2, aligned_edge=UP)
        mark.set_y((text if first_line is None else first_line).get_y())
        return row

    # Step 3: the two heads forming ---------------------------------------------------------------
    def show_heads_forming(self):
        training = self.training
        previous = [float(training.previous_token_scores[k, self.previous_head]) for k in self.moments]
        induction = [float(training.induction_scores[k, self.induction_head]) for k in self.moments]
        self.begin_step("heads_forming", new_numbers=6, previous_before=f"{previous[0]:.2f}",
                        previous_after=f"{previous[-1]:.2f}", induction_before=f"{induction[0]:.2f}",
                        induction_after=f"{induction[-1]:.2f}")
        left, right, bottom, top = body()
        split = right - HEATMAPS_WIDTH - PANEL_GAP
        grid = self.moment_grid(previous, induction, (split + PANEL_GAP, right, bottom, top))
        titles = self.arcs_column((left, split, bottom, top))
        # «puntaje» defined on screen, how a map is read (with the first maps, review s13: it came 20 s later), and
        # «durante» said to be a rule's checkpoint (not one picked for its scores)
        score_note = VGroup(*[label_text(line, style.MUTED, style.CAPTION_SIZE) for line in (
            self.labels["score_note"], self.labels["map_axes"],
            self.labels["during_rule"].format(drop=drop_step(training)))])
        fit(score_note.arrange(DOWN, buff=NOTE_LINE_GAP), split - left, score_note.height)
        titles.add(score_note.next_to(titles[0], UP, buff=SCORE_NOTE_GAP))
        # the induction head's pattern, said on screen under its name; the column, note to pattern, centred in the body
        pattern = wrapped_text(self.labels["induction_pattern"], style.INDUCTION, style.CAPTION_SIZE,
                               NOTE_SHARE * (split - left)).next_to(titles[1], DOWN, buff=TITLE_GAP)
        VGroup(self.row, titles, pattern).set_y((top + bottom) / 2)
        # each head's pattern where the mechanism (step 5) uses it, as the voice defines it: the token before the one
        # that followed the earlier occurrence, then, from the token's return (yellow, the query), that follower
        # (the arcs land in these frames once the heads have formed)
        query = self.token_frame(self.follower, style.HIGHLIGHT)
        patterns = VGroup(self.token_frame(self.seen, PREVIOUS_COLOUR), self.token_frame(self.position, style.HIGHLIGHT),
                          self.token_frame(self.follower, style.INDUCTION))
        self.play(Vanish(self.loss_stage), run_time=0.6)
        self.play(Appear(self.row), Appear(titles), run_time=REVEAL_SECONDS)
        self.beat("pattern_previous")
        self.play(Create(query), Create(patterns[0]), run_time=REVEAL_SECONDS)
        # the follower, the previous-token head's query, is the induction head's target; its pattern said on screen
        self.beat("pattern_induction")
        self.play(Create(patterns[1]), ReplacementTransform(query, patterns[2]), Appear(pattern),
                  run_time=REVEAL_SECONDS)
        titles.add(pattern)
        # the moments share the step's reading time (a long caption read with no voice), not one long last still
        # (a voice paces them instead: a moment comes with its words)
        hold = max(HOLD, self.reveal_seconds(fill_after=MOMENT_SECONDS * len(self.moments)) / len(self.moments))
        hold = hold if self._caption_read else 1.0
        arcs = frame = None
        for k, (moment, said) in enumerate(zip(self.moments, ("before", "during", "after"))):
            new_arcs = self.head_arcs(training.patterns(moment))
            new_frame = SurroundingRectangle(grid[k], color=style.HIGHLIGHT, buff=0.08, stroke_width=3)
            self.beat(said)  # each moment's scores are said as they appear, not before
            # the scores written under the patterns, on the messy step's 0-1 scale: all six stay written, so the
            # replay plays them rising as the heads form (the arcs' chords were flat at every moment, and a head's
            # register lies on the values')
            for score in (previous[k], induction[k]):
                self.cue("cell", lands=True, value=score, low=0.0, high=1.0)
            # the frame goes and comes back round the next moment: slid there, its sides would cross the labels; the
            # moment comes at once, as it is named (a slow fade reads as a still screen)
            self.play(Appear(grid[k]), *([Vanish(arcs, frame)] if arcs else []), Create(new_frame),
                      *[arc.draw() for arc in new_arcs], run_time=MOMENT_SECONDS)
            arcs, frame = new_arcs, new_frame
            self.wait(hold)
        # «nacen con la caída»: each head's three scores framed together, the rise read across the moments
        rises = VGroup(*[SurroundingRectangle(VGroup(*[column[head][2] for column in grid]), color=colour,
                                              buff=SCORES_BUFF, stroke_width=3)
                         for head, colour in enumerate((PREVIOUS_COLOUR, style.INDUCTION))])
        self.beat("born")
        self.play(Vanish(frame), Create(rises), run_time=REVEAL_SECONDS)
        self.forming = VGroup(self.row, titles, grid, patterns, arcs, rises)  # the row first

    def token_frame(self, i: int, colour) -> RoundedRectangle:
        """A frame round token i of the example, narrower than a token's slot: two neighbours' frames stay apart."""
        word = self.row.words[i]
        return RoundedRectangle(width=min(word.width + 2 * FRAME_BUFF, FRAME_SHARE * self.row.spacing()),
                                height=word.height + 2 * FRAME_BUFF, corner_radius=0.04, stroke_color=colour,
                                stroke_width=3).move_to(word)

    def arcs_column(self, box: tuple) -> VGroup:
        """The example's tokens across ``box``, the previous-token head's name above the room of its arcs and the
        induction head's below the room of its own: the two names, placed (the row is ``self.row``)."""
        left, right, bottom, top = box
        size = style.CAPTION_SIZE
        titles = VGroup(label_text(self.labels["previous_head"].format(head=self.previous_head + 1), PREVIOUS_COLOUR,
                                   size),
                        label_text(self.labels["induction_head"].format(head=self.induction_head + 1),
                                   style.INDUCTION, size))
        self.row = self.example_row(right - left, gap=0.12)
        fit(titles, right - left, titles.height)
        column = (titles[0].height + TITLE_GAP + ABOVE_HEIGHT + self.row.height + BELOW_HEIGHT + TITLE_GAP
                  + titles[1].height)
        x, y_top = (left + right) / 2, (top + bottom) / 2 + column / 2
        titles[0].move_to([x, y_top - titles[0].height / 2, 0])
        self.row.move_to([x, 0, 0]).align_to([0, titles[0].get_bottom()[1] - TITLE_GAP - ABOVE_HEIGHT, 0], UP)
        titles[1].move_to([x, 0, 0]).align_to([0, self.row.bottom() - BELOW_HEIGHT - TITLE_GAP, 0], UP)
        return titles

    def example_row(self, width: float, gap: float, slot: float = 0.0) -> TokenRow:
        """The example's tokens at most ``width`` wide: evenly spaced, each in a slot as wide as the widest (two
        letters beyond Z), unless only a row of each token's own width keeps them legible."""
        widest = max(TokenRow([token]).width for token in set(self.tokens))
        row = TokenRow(self.tokens, font_size=style.BODY_SIZE, slot_width=max(slot, widest), gap=gap)
        if row.width > width:
            row = TokenRow(self.tokens, font_size=style.BODY_SIZE, slot_width=slot, gap=gap)
        elif row.width < width:  # room to spare: the tokens further apart, up to a slot's width apart
            spare = min((width - row.width) / (len(self.tokens) - 1), max(slot, widest))
            row = TokenRow(self.tokens, font_size=style.BODY_SIZE, slot_width=max(slot, widest), gap=gap + spare)
        return fit(row, width, row.height)

    def head_arcs(self, patterns: np.ndarray) -> VGroup:
        """Each head's strongest arc where the mechanism uses it: the previous-token head's from the follower of the
        earlier occurrence, above the row; the induction head's from the token's return, below it. Where it lands,
        against the frames of what each head should look at, is the step's point."""
        return VGroup(strongest_arc(self.row, patterns[0, self.previous_head], self.follower, PREVIOUS_COLOUR,
                                    ABOVE_HEIGHT),
                      strongest_arc(self.row, patterns[1, self.induction_head], self.position, style.INDUCTION,
                                    BELOW_HEIGHT, above=False))

    def moment_grid(self, previous: list[float], induction: list[float], box: tuple) -> VGroup:
        """One column per moment (before, during, after the drop): its name and step, the two heads' patterns on
        the example as heatmaps, each framed in its head's colour with its score under it; under «during», when its
        two scores are written alike, a line saying that is chance (review s17: 0.51 and 0.51 read as a law)."""
        left, right, bottom, top = box
        size = style.CAPTION_SIZE
        line = label_text("Ag", font_size=size).height
        side = min((right - left - 2 * MOMENT_GAP) / 3, (top - bottom - 5 * line - 0.8) / 2)
        columns = VGroup()
        for k, moment in enumerate(self.moments):
            patterns = self.training.patterns(moment)
            columns.add(VGroup(*[self.scored_pattern(pattern, side, colour, tagged_number(score, name, (0, k), colour,
                                                                                         size))
                                 for pattern, score, name, colour in (
                (patterns[0, self.previous_head], previous[k], "previous_token_score", PREVIOUS_COLOUR),
                (patterns[1, self.induction_head], induction[k], "induction_score", style.INDUCTION))])
                .arrange(DOWN, buff=MOMENT_ROW_GAP))
        columns.arrange(RIGHT, buff=MOMENT_GAP, aligned_edge=UP)
        step_line = columns.get_top()[1] + STEP_LIFT + line / 2  # every header's two lines on the same baselines
        for k, (column, moment) in enumerate(zip(columns, self.moments)):
            name = label_text(self.labels["moments"][k], style.TEXT, size)
            step = label_text(self.labels["moment_step"].format(step=int(self.training.steps[moment])), style.MUTED,
                              size)
            sit_on(step.set_x(column.get_x()), step_line)
            sit_on(name.set_x(column.get_x()), step_line + line + 0.08)
            column.add(name, step)
        during = [f"{scores[1]:.2f}" for scores in (previous, induction)]
        if during[0] == during[1]:
            columns[1].add(label_text(self.labels["during_tie"].format(score=during[0]), style.MUTED, size)
                           .next_to(columns[1], DOWN, buff=TIE_GAP))
        fit(columns, right - left, top - bottom)
        return columns.move_to([(left + right) / 2, (bottom + top) / 2, 0])

    @staticmethod
    def scored_pattern(pattern: np.ndarray, side: float, colour, score) -> VGroup:
        """A head's pattern as a heatmap ``side`` wide, framed in the head's colour, its score under it."""
        heatmap = Heatmap(pattern, style.weight_colour, width=side, height=side, numbers=False)
        frame = SurroundingRectangle(heatmap.area, color=colour, buff=0.03, stroke_width=2)
        return VGroup(heatmap, frame, score.next_to(frame, DOWN, buff=0.1))

    # Step 4: the other heads, beside the designed ones --------------------------------------------
    def show_messy(self):
        layers, heads = self.final.shape[:2]
        designed = multi_head_attention(self.job.config.heads.sentence, lang=self.job.config.lecture.lang)
        clean = clean_heads(self.training)
        found = sum(len(layer) for layer in clean)
        caption = self.strings["steps"]["messy"][{0: "caption_none", layers * heads: "caption_all"}.get(found, "caption")]
        self.begin_step("messy", caption=caption, new_numbers=layers * heads, designed=designed.n_heads,
                        count=layers * heads, clean_score=format_number(CLEAN), clean=self.clean_list(clean),
                        clean_said=self.clean_list(clean, markers=True),
                        others=layers * heads - found)
        left, right, bottom, top = body()
        split = left + DESIGNED_SHARE * (right - left)
        heads_labels = self.job.locale["heads"]["labels"]
        sentence_length = designed.heads[0].weights.shape[0]
        cell = min(DESIGNED_CELL, (split - left - 0.3 - (designed.n_heads - 1) * PATTERN_GAP
                                   - designed.n_heads * BRACKETS_WIDTH) / (designed.n_heads * sentence_length))
        designed_side = VGroup(label_text(self.labels["designed"], style.TEXT, style.BODY_SIZE),
                               head_blocks(designed, heads_labels["head_matrix"], cell),
                               heads_legend(heads_labels["head_names"], heads_labels["head_legend"],
                                            style.CAPTION_SIZE),
                               # how every map on the screen is read (review s12: the patterns had no axes)
                               label_text(self.labels["map_axes"], style.MUTED, style.CAPTION_SIZE)
                               ).arrange(DOWN, buff=0.35)
        # the voice's «limpias, con al menos 0.50» and «las otras no siguen un patrón», on screen as they are said
        threshold, muted_note = notes = VGroup(*[label_text(text, style.MUTED, style.CAPTION_SIZE) for text in (
            self.labels["clean_note"].format(score=format_number(CLEAN)), self.labels["muted_note"])])
        notes.arrange(DOWN, buff=NOTE_LINE_GAP)
        trained_side = VGroup(label_text(self.labels["trained"], style.TEXT, style.BODY_SIZE),
                              self.trained_grid(layers, heads, right - split - 0.3,
                                                top - bottom - 1.3 - muted_note.height - NOTE_LINE_GAP), notes)
        trained_side.arrange(DOWN, buff=0.3)
        fit(designed_side, split - left - 0.3, top - bottom)
        for block in designed_side[1]:  # A₁-A₃ at a legible height once fitted (review s17: 14 px)
            legible_label(block.label)
        fit(trained_side, right - split - 0.3, top - bottom)
        designed_side.move_to([(left + split) / 2, (bottom + top) / 2, 0])
        trained_side.move_to([(split + right) / 2, (bottom + top) / 2, 0])
        divider = Line([split, bottom + 0.2, 0], [split, top - 0.2, 0], color=style.MUTED, stroke_width=1.5)
        self.play(Vanish(self.forming), run_time=0.6)
        self.play(Appear(designed_side), Create(divider), run_time=REVEAL_SECONDS)
        self.wait(1.0)
        after = self.moments[-1]
        scores = [*self.training.previous_token_scores[after], *self.training.induction_scores[after]]
        self.beat("trained")
        # the layers' names now, the roles their clean heads play only when those heads are framed (review s15: the
        # roles, written with the names, gave away what the scores had not yet shown)
        names = [part for layer in trained_side[1] for part in parts_without(layer[0], self.layer_roles.values())]
        self.play(Appear(trained_side[0]), *[Appear(part) for part in names], run_time=REVEAL_SECONDS)
        shown = [head for layer in trained_side[1] for head in layer[1]]
        with self.listening():  # each trained head's score as it is written, layer 1 then layer 2: the clean heads high
            each = self.reveal_seconds(new_numbers=layers * heads, fill_after=0.0, shortest=1.5) / len(scores)
            for score, head in zip(scores, shown):
                self.cue("values", lands=True, values=[float(score)], spacing=each, low=0.0, high=1.0)
                self.play(Appear(head), run_time=min(each, REVEAL_SECONDS))  # seen arriving, then heard
                if each > REVEAL_SECONDS:
                    self.wait(each - REVEAL_SECONDS)
        # what the scores just heard say, each group framed as it is named: the clean heads layer by layer, the others
        clean_by_layer = [[k for k, (at, head) in enumerate(np.ndindex(layers, heads)) if at == layer
                           and head in clean[layer]] for layer in range(layers)]
        named = [k for group in clean_by_layer for k in group]
        others = [k for k in range(len(shown)) if k not in named]
        self.beat("scores")
        self.play(Appear(threshold), run_time=REVEAL_SECONDS)
        # the clean heads' frames, in their role's colour, stay the brightest marks; the others' maps are muted as they
        # are named (review s14: white frames round them drew the eye to the heads the voice calls not clean)
        frames = VGroup()
        for layer, group in enumerate(clean_by_layer):
            if group:
                self.beat(f"clean_{layer + 1}")
                self.play(Create(new_frames := self.head_frames(shown, group, ROLE_COLOURS[layer])),
                          Appear(self.layer_roles[layer]), run_time=0.8)
                frames.add(*new_frames)
        if others:
            self.beat("others")
            self.play(Appear(muted_note), *[animation for k in others for animation in self.muting(shown[k])],
                      run_time=REVEAL_SECONDS)  # quick: a slow fade of dark maps reads as a still screen
        self.comparison = VGroup(designed_side, trained_side, divider, frames)

    @staticmethod
    def muting(head: VGroup) -> list:
        """A scored pattern's map and frame fading to MESSY_OPACITY (its invisible extent and its score left as they
        are): a head the voice calls not clean, receding."""
        heatmap, frame = head[0], head[1]
        return [*[cells.animate.set_fill(opacity=MESSY_OPACITY) for cells in heatmap.grid[1:]],
                frame.animate.set_stroke(opacity=MESSY_OPACITY)]

    @staticmethod
    def head_frames(shown: list, group, colour) -> VGroup:
        """A frame in ``colour`` round each trained head of ``group`` (indices into ``shown``)."""
        return VGroup(*[SurroundingRectangle(shown[k], color=colour, buff=0.06, stroke_width=CLEAN_FRAME_WIDTH)
                        for k in group])

    def clean_list(self, clean: tuple[list[int], list[int]], markers: bool = False) -> str:
        """The clean heads as the caption says them: «capa 1, cabezas 1 y 4; capa 2, cabeza 3»; with ``markers``, as
        the voice says them, each layer's tied to the play that frames its heads («[[clean_1]]capa 1, ...»)."""
        said = []
        for layer, found in enumerate(clean):
            if found:
                numbers = [str(head + 1) for head in found]
                heads = (self.labels["one_head"].format(head=numbers[0]) if len(numbers) == 1
                         else self.labels["many_heads"].format(heads=listed(numbers, self.labels)))
                said.append((f"[[clean_{layer + 1}]]" if markers else "")
                            + self.labels["clean_layer"].format(layer=layer + 1, heads=heads))
        return "; ".join(said)

    def trained_grid(self, layers: int, heads: int, width: float, height: float) -> VGroup:
        """Every head of the trained model on the example, a row per layer (its name on its left, with the role its
        clean heads play and which they are: the score is the previous-token one in layer 1, the induction one in
        layer 2), under one row of the
        heads' names; each head's pattern with its score under it, the clean heads (``clean_heads``) framed in their
        layer's head colour, the others muted. The patterns as large as the room allows: names and scores outside
        them, one name per column. Each layer is (its label, with the names over the first; its heads)."""
        after = self.moments[-1]
        scores = (self.training.previous_token_scores[after], self.training.induction_scores[after])
        tags = ("layer1_previous_token_score", "layer2_induction_score")
        clean = {(layer, head): colour for layer, (found, colour) in
                 enumerate(zip(clean_heads(self.training), ROLE_COLOURS)) for head in found}
        size = style.CAPTION_SIZE
        line = label_text("Ag", font_size=size).height
        self.layer_roles = {}  # layer: the role its clean heads play, written under its name (layer_name)
        names = [self.layer_name(layer, found, colour) for layer, (found, colour)
                 in enumerate(zip(clean_heads(self.training), ROLE_COLOURS))]
        label_width = max(name.width for name in names)
        side = min(TRAINED_SIDE, (width - label_width - ROW_LABEL_GAP - HEADS_GAP * (heads - 1)) / heads,
                   (height - line - HEADER_GAP - (layers - 1) * LAYERS_GAP) / layers - NAME_GAP - line)
        rows = VGroup()
        for layer in range(layers):
            row = VGroup(*[self.scored_pattern(self.final[layer, head], side, clean.get((layer, head), style.MUTED),
                                               tagged_number(float(scores[layer][head]), tags[layer], (0, head),
                                                             clean.get((layer, head), style.MUTED), size))
                           for head in range(heads)]).arrange(RIGHT, buff=HEADS_GAP, aligned_edge=UP)
            rows.add(VGroup(names[layer], row))
        rows.arrange(DOWN, buff=LAYERS_GAP, aligned_edge=LEFT)
        for name, row in rows:  # the heads of every layer in the same columns, each layer's name beside its patterns
            row.align_to([rows.get_left()[0] + label_width + ROW_LABEL_GAP, 0, 0], LEFT)
            name.next_to(row[0][0], LEFT, buff=ROW_LABEL_GAP)
        headers = VGroup(*[label_text(self.labels["head"].format(head=k + 1), style.MUTED, size)
                           .next_to(pattern[1], UP, buff=HEADER_GAP) for k, pattern in enumerate(rows[0][1])])
        rows[0].submobjects[0] = VGroup(rows[0][0], headers)
        return rows

    def layer_name(self, layer: int, clean: list[int], colour) -> VGroup:
        """A layer's row label: «Capa 1», then, in its clean heads' colour, their role and which heads play it
        («token anterior: cabezas 1 y 4»), not the role alone beside all four heads (review s13)."""
        size = style.CAPTION_SIZE
        name = VGroup(label_text(self.labels["layer_rows"][layer], style.TEXT, size))
        if clean:
            numbers = [str(head + 1) for head in clean]
            heads = (self.labels["role_one"].format(head=numbers[0]) if len(numbers) == 1
                     else self.labels["role_many"].format(heads=listed(numbers, self.labels)))
            self.layer_roles[layer] = label_text(self.labels["layer_roles"][layer].format(heads=heads), colour, size)
            name.add(self.layer_roles[layer])
        return name.arrange(DOWN, buff=ROLE_GAP)

    # Step 5: the mechanism -----------------------------------------------------------------------
    def show_mechanism(self):
        t, seen, follower = self.position, self.seen, self.follower
        asked = t + 1
        previous_row = self.final[0, self.previous_head, follower]
        induction_row = self.final[1, self.induction_head, t]
        prediction, probability = predicted_next(self.training, self.moments[-1], t)
        copies = token_letter(prediction) == self.tokens[follower]
        caption = self.strings["steps"]["mechanism"]["caption" if copies else "caption_miss"]
        self.begin_step("mechanism", caption=caption, new_numbers=3, token=self.tokens[t], next=self.tokens[follower],
                        predicted=token_letter(prediction))
        left, right, bottom, top = body()
        size = style.CAPTION_SIZE
        line = label_text(self.labels["mechanism"], style.TEXT, style.BODY_SIZE + 4)
        fit(line, right - left, line.height)
        sources = label_text(" · ".join(reference.short for reference in cited([self.section_id])), style.MUTED, size)
        VGroup(line, sources).arrange(DOWN, buff=0.12).move_to([(left + right) / 2, 0, 0]).align_to([0, top, 0], UP)
        notes = VGroup(  # each head named by its layer and number (review s17: which heads were these?)
            text_with_numbers(self.labels["previous_link"], {"weight": tagged_number(
                float(previous_row[seen]), "mechanism_previous", (0, 0), PREVIOUS_COLOUR, size)},
                PREVIOUS_COLOUR, size, token=self.tokens[seen], next=self.tokens[follower],
                head=str(self.previous_head + 1)),
            text_with_numbers(self.labels["induction_link"], {"weight": tagged_number(
                float(induction_row[follower]), "mechanism_induction", (0, 0), style.INDUCTION, size)},
                style.INDUCTION, size, token=self.tokens[t], next=self.tokens[follower],
                head=str(self.induction_head + 1)))
        notes.arrange(DOWN, buff=0.18, aligned_edge=LEFT)
        # what the trained model writes at the position followed: its next-token probabilities, the likeliest few as
        # bars (Olsson et al. read the induction head by what it makes the model predict), beside the heads' lines
        chart = self.chart = self.prediction_chart(t, right - left - notes.width - CHART_GAP, size)
        VGroup(notes, chart).arrange(RIGHT, buff=CHART_GAP, aligned_edge=DOWN)
        VGroup(notes, chart).move_to([(left + right) / 2, 0, 0]).align_to([0, bottom, 0], DOWN)
        notes.add(chart)  # the prediction's line is the chart
        self.row = self.example_row(right - left - 2 * ROW_MARGIN, gap=SLOT_GAP, slot=SLOT)
        readout_room = READOUT_GAP + number_text(0.0, font_size=READOUT_SIZE).height
        # what each head writes and reads (review s17: two arcs alone read as «D looks at T because they match»):
        # under «T», what layer 1 wrote there; under the returning «D», what its layer-2 query looks for
        remembered = label_text(self.labels["remembers"].format(token=self.tokens[seen]), PREVIOUS_COLOUR, size)
        sought = label_text(self.labels["seeks"].format(token=self.tokens[seen]), style.INDUCTION, size)
        tag_room = READOUT_GAP + max(remembered.height, sought.height)
        self.row.move_to([(left + right) / 2, 0, 0])  # its height set once all that hangs on it is built
        # each head's weight that its line names, written by the token it goes to (the previous-token head's over the
        # row, the induction head's under it), and the one arc to follow, past them
        previous_weights = self.readout(previous_row, PREVIOUS_COLOUR, "mechanism_previous_row", follower, seen,
                                        above=True)
        predicted = number_text(probability, style.HIGHLIGHT, READOUT_SIZE)  # under the token predicted
        predicted.tag = ("mechanism_prediction_row", (0, 0))
        predicted.move_to([self.row.centre_x(asked), 0, 0]).align_to([0, self.row.bottom() - READOUT_GAP, 0], UP)
        # the tag first under the row (the prediction's line), the induction weight and the query's line under it
        remembered.move_to([self.row.centre_x(follower), 0, 0]).align_to([0, self.row.bottom() - READOUT_GAP, 0], UP)
        induction_weights = self.readout(induction_row, style.INDUCTION, "mechanism_induction_row", t, follower,
                                         above=False, gap=tag_room + READOUT_GAP)
        sought.move_to([self.row.centre_x(t), 0, 0]).align_to(induction_weights, UP)
        previous_arc = strongest_arc(self.row, only_row(previous_row, follower), follower, PREVIOUS_COLOUR,
                                     ABOVE_HEIGHT, clearance=readout_room)
        induction_arc = strongest_arc(self.row, only_row(induction_row, t), t, style.INDUCTION, MECHANISM_BELOW,
                                      above=False, clearance=readout_room + tag_room)
        frames = VGroup(*[self.token_frame(i, style.HIGHLIGHT) for i in (seen, t, follower, asked)])
        copy_y = previous_arc.get_top()[1] + COPY_CLEARANCE  # from «T», clear over the previous-token arc's end
        copy = CurvedArrow(np.array([self.row.centre_x(follower), copy_y, 0]),
                           np.array([self.row.centre_x(asked), copy_y, 0]), angle=COPY_ANGLE,
                           color=style.HIGHLIGHT, stroke_width=3, tip_length=0.18)
        copy_label = label_text(self.labels["copy"], style.HIGHLIGHT, size).next_to(copy, UP, buff=0.1)
        # the row and all it carries, by their drawn extent, midway between the sources and the chart's top
        room_top, room_bottom = sources.get_bottom()[1] - 0.25, notes.get_top()[1] + 0.35
        VGroup(self.row, previous_weights, predicted, remembered, induction_weights, sought, previous_arc,
               induction_arc, frames, copy, copy_label).set_y((room_top + room_bottom) / 2)
        self.play(Vanish(self.comparison), run_time=0.6)
        self.play(Appear(line), Appear(sources), Appear(self.row), run_time=REVEAL_SECONDS)
        self.play(Create(frames[:2]), run_time=0.8)
        self.cue("head_row", lands=True, head=0, query=follower, weights=previous_row.tolist())
        self.play(previous_arc.draw(), Create(frames[2]), Appear(previous_weights, notes[0], remembered),
                  run_time=REVEAL_SECONDS)
        self.wait(1.0)
        self.beat("induction")
        self.cue("head_row", lands=True, head=2, query=t, weights=induction_row.tolist())
        self.play(induction_arc.draw(), Appear(induction_weights, notes[1], sought), run_time=REVEAL_SECONDS)
        self.wait(1.0)
        self.beat("copy")
        # the copy drawn at once, then the predicted token's probability, then the prediction's line, over what is
        # left to read (drawn over all of it, the arrow's last second and the line's fade moved too little to be
        # seen: a still screen)
        seconds = self.reveal_seconds(new_numbers=1, fill_after=0.0, shortest=1.0)
        self.play(Create(copy), Appear(copy_label), Create(frames[3]), run_time=REVEAL_SECONDS * 2)
        for piece in (predicted, chart):
            self.wait(max(0.0, seconds / 2 - REVEAL_SECONDS * 1.5))
            self.play(Appear(piece), run_time=REVEAL_SECONDS)

    def prediction_chart(self, position: int, width: float, size: float) -> VGroup:
        """The trained model's probabilities for the token after ``position`` of the example, its CHART_TOKENS likeliest
        as horizontal bars as long as their probability (the likeliest in the highlight colour, the others muted),
        each with its letter before it and its probability after it, under a title; at most ``width`` wide."""
        logits = forward(self.training.checkpoints[self.moments[-1]], self.training.example[None]).logits[0, position]
        probabilities = np.exp(log_probabilities(logits))
        likeliest = np.argsort(-probabilities, kind="stable")[:CHART_TOKENS]
        title = label_text(self.labels["prediction_chart"].format(token=self.tokens[position]), style.TEXT, size)
        letters = [label_text(token_letter(int(token)), style.TEXT, size) for token in likeliest]
        letter_width = max(letter.width for letter in letters)
        longest = max(0.5, width - letter_width - number_text(0.0, font_size=size).width - 2 * CHART_BUFF)
        bars = VGroup()
        for rank, (token, letter) in enumerate(zip(likeliest, letters)):
            colour = style.HIGHLIGHT if rank == 0 else style.MUTED
            value = float(probabilities[token])
            bar = RoundedRectangle(width=max(value * min(longest, CHART_LONGEST), 0.02), height=CHART_BAR,
                                   corner_radius=0.02, stroke_width=0, fill_color=colour, fill_opacity=1)
            number = number_text(value, colour, size)
            number.tag = ("mechanism_prediction", (0, 0)) if rank == 0 else ("mechanism_distribution", (rank, int(token)))
            y = -rank * CHART_ROW
            letter.move_to([letter_width / 2, y, 0])
            bar.move_to([letter_width + CHART_BUFF, y, 0], aligned_edge=LEFT)
            number.next_to(bar, RIGHT, buff=CHART_BUFF)
            bars.add(VGroup(letter, bar, number))
        return VGroup(title, bars).arrange(DOWN, buff=0.1, aligned_edge=LEFT)

    def readout(self, weights: np.ndarray, colour, name: str, query: int, key: int, above: bool,
                gap: float = READOUT_GAP) -> VGroup:
        """Query ``query``'s weight to ``key``, the one its line names, written by that token ``gap`` over the row or
        under it (review s10: a second weight, 0.08, written and never named, read as a riddle)."""
        line = self.row.top() + gap if above else self.row.bottom() - gap
        number = number_text(float(weights[key]), colour, READOUT_SIZE)
        number.tag = (name, (query, int(key)))
        number.move_to([self.row.centre_x(int(key)), line, 0]).align_to([0, line, 0], DOWN if above else UP)
        return VGroup(number)


def parts_without(group: Mobject, hidden) -> list[Mobject]:
    """``group``'s parts, as large as they can be, that hold none of the mobjects ``hidden``: all of ``group`` when it
    holds none, nothing when it is one of them, else its submobjects' such parts."""
    hidden = list(hidden)
    if any(group is mobject for mobject in hidden):
        return []
    if not any(part is mobject for part in group.get_family() for mobject in hidden):
        return [group]
    return [part for child in group.submobjects for part in parts_without(child, hidden)]
