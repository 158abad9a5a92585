"""Section 3: several heads over one sentence, each its own attention pattern from its own W_Q, W_K,
W_V; their average, to compare them; why h heads of d_model/h and not one bigger one; and what the next
layer sees: the heads' outputs concatenated and mixed by W_O."""

from __future__ import annotations

import re
import textwrap

import numpy as np
from manim import (DL, DOWN, DR, LEFT, PI, RIGHT, UP, AnimationGroup, Arrow, Create, FadeIn, Line, MathTex, MoveToTarget,
                   Polygon, Rectangle, ReplacementTransform, RoundedRectangle, Square, SurroundingRectangle, Transform, VGroup,
                   VMobject,
                   Write, interpolate_color, smooth, squish_rate_func)

from attn_math.cross import illustrative_cross_weights
from attn_math.dimensions import GUIDE_D_MODEL, GUIDE_HEADS, head_dimension
from attn_math.heads import POSITION, POSITION_SQUARED, multi_head_attention
from lesson.heads_answers import choice_token, question_fields, telling_head
from lesson.numbers import format_number, parse_number
from scenes import style
from scenes.attention_arcs import (BRACKETS_WIDTH, LABEL_CHARACTERS, LABEL_GAP, READOUT_SIZE, AttentionArcs, HeatBlock,
                                   TokenHeatmap, TokenRow, shortened, weight_readout)
from scenes.fades import Appear, Vanish
from scenes.lesson_scene import PHRASE_GAP, LessonScene
from scenes.visuals import bracket, cap_height, dashed, fit, label_text, number_text, tagged_number
from sonify.mappings import heads_turn

HEAD_STEPS = ("previous", "subject_verb", "pronoun")  # one step per designed head, in attn_math's order
HIGHLIGHTS_PER_HEAD = 2  # rows whose arcs each head step brings into focus
ARCS_SHARE = 0.6  # of the body's width, for the token row and its arcs; the heatmap gets the rest
PANEL_GAP = 0.4
ARC_HEIGHT = 3.0  # the longest arc's rise above the words, before the column is fitted
READOUT_LINE = 0.34  # height of one line of weights under the tokens
TELLING_LINE = 1.5  # the telling head's weights under the average's, half a line further: apart from its framed weight
SUM_NOTE_GAP = 0.05  # between the last line of weights and the note that they are rounded
HOLD = 2.5  # seconds to hold a state worth reading
VECTOR_COMES = 1.8  # step 1: one token's d_model numbers, one after the other, as the voice says what a token is
VECTOR_GAP = 0.2  # between the sentence «cada token: un vector...» and that token's numbers
# The focus moving to the row the voice names («perro» atiende a «el»): there before the voice has said the token
FOCUS_MOVE = 0.4
QUICK_APPEAR = 0.3
HEATMAP_TRIES = 4
LABEL_CAP_HEIGHT = 16.1 / 720 * 8  # frame units: a matrix's name, its subscripts 16 px tall at 720p (review s14: 14)
# A heatmap's rows grow taller than their cells are wide into the panel's spare height, up to this share: a row label's
# line (ascender to descender) filled 0.8 of a square row, «ladró» and «y» 12 px apart and a focused row's frame 3 px
# from its neighbours' labels
ROW_STRETCH = 1.3
CAPTION_ROOM = 0.3  # kept under the heatmap: a caption wrapped onto a second line rises this much into the body
# The heatmap's token labels, most of them lower case: their x-height 16 px at 720p (a cap height of 22 px), legible
# from the back of a room, turned upright or not
HEATMAP_LABEL_SIZE = 24  # sizings of a heatmap to its panel (the turned labels' height depends on the cells')  # a piece the voice names comes this fast: a slower fade reads as a still screen
SHARED_COMES = 0.15  # a token the average's row shares its weight with, framed as the voice names it
SHARED_GAP = 0.5  # between two of them, about a token's name at the voice's pace
AVERAGE_HOLD = 1.0  # the average drawn, before the voice reads its focused row
HEAD_COMES = 0.3  # a head's arcs and legend line coming in as its chord sounds
# A head's weights underlined in its arcs' pattern, beside other heads', this far under the digits
MARK_GAP = 0.08
MARK_STROKE = 3
SWATCH_GAP = 0.25  # between a head's stroke and its text (the legend, the choice step's lines)
TYPED_LINE_CHARACTERS = 70  # the sentence as typed wraps onto a second line beyond this
FORMULA_SIZE = 40
# How much of its colour an evenly filled block takes: nearly all, or the one head's W_Q (learned W's pink) and head
# 1's W_Q¹ (orchid) mixed with the panel's dark grey come within 14 ΔE00 of each other, and read as one colour
SIZE_BLOCK_FILL = 0.9
# The one bigger head of step 8 in a neutral grey: no head's colour (head 1's would read "one big head = head 1") and
# not the learned W's pink, which the heads' own W_Q^h do not wear either
ONE_HEAD_COLOUR = style.MUTED
FRAME_BUFF = 0.08  # round each «= 144 pesos»
COST_GAP = 0.3  # between step 8's heading, its two sides and the guide's d_model = 512 under them
# Cell sides small enough that a step's blocks fit the body unscaled, so their labels keep their size
PATTERN_CELL = 0.34  # the three heads' weights side by side (smaller for long sentences)
PATTERN_GAP = 0.8
SIZE_CELL = 0.15  # W_Q whole and cut into heads (small enough for two lines of exercise 6 under them)
MAGNITUDE_CELL = 0.2  # Concat, W_O and the output, at most
# ... and no block taller than this (Concat's 9 rows of 0.17): over the written-out rows (a head's worked sum, the
# heads' terms, Concat's row, W_O's arrows, the output's row) the blocks keep their labels' size whatever the sentence's length; W_O's 12 rows of 0/1 at 11 px a cell
BLOCK_HEIGHT = 1.5
SPREAD_GAP = 0.3  # between Concat's labels and the heads' outputs before they join
NOTES_APART = 0.25  # between the notes under two neighbouring blocks
MINUS_BAR = 0.8  # a negative cell's bar, of the cell's side: 14 px wide and 4-5 px thick at 720p (10 by 2-3 read as a speck)
MINUS_STROKE = 7
ROW_NUMBER_GAP = 0.2  # between two numbers of the written-out row, and after its name
READING_PAUSE = 5.6  # s at the default pace, a silent caption read before each line of the written-out row comes
# From Concat's written-out row to the output's: the band W_O's ones cross as arrows, long enough that an arrow six
# columns over reads as going there (review s14: W_O's 11-px cells, with no indices, could not be traced)
LINK_BAND = 0.85
# Each arrow leaves its number straight down and comes straight down onto its sum, this far from their digits, and
# bends in between (its handles this share of the band long): a straight arrow six columns over ran along under the
# digits and its head lay on its neighbours' arrows (review s15: a 40 px tangle, heads on the digits)
LINK_CLEAR = 0.07
LINK_HANDLE = 0.5
LINK_STROKE = 2.5
LINK_TIP = 0.1
LINK_TIP_WIDTH = 0.09
ROW_PRODUCT_HEIGHT = 2.0  # the written-out rows at most: its own width decides, the blocks keep their size
TERM_RISE = 0.33  # a head's term («1.00·V₂(«calmó»)») over its columns of Concat's written-out row
ROW_NAME_CHARACTERS = 8  # the token in the written-out row's names, cut beyond this («misinte…»)
# its token in full, then cut to these lengths until it fits: at 3 («un…») a cut English word reads as a Spanish one
TERM_CHARACTERS = (None, 8, 6, 4)
TERM_SIZE = 26  # its digits 16 px tall at 720p once the stage is fitted
WORKED_GAP = 0.12  # between a worked sum and the terms under it
WORKED_DECIMALS = range(2, 6)  # a head's weights in its worked sum: the fewest of these whose sum gives Concat's row
# Step 9's vertical gaps, tight enough that W_O's two notes («clara = 1...», «una entrenada es densa») leave the blocks'
# labels 14 px tall: between the formula, the product and the written-out row; under a block, to its shape; between
# the notes' lines
CONCAT_GAP = 0.1
SHAPE_GAP = 0.22
NOTE_LINE_GAP = 0.06
SHORT_TOKEN = 2  # a token of at most this many characters is named as a word in a spoken list («y», «el», «lo»)
SHARED_WEIGHT = 0.1  # an average weight from here up counts as a token the focused row shares its weight with
LEARNED_MATRIX = re.compile(r"W_[QKVO](?:\^\{[^}]*\})?")
# The closing card: Q, K and V of cross-attention, K with its ⊤: isolated apart from K_enc, the ⊤ was set after the
# subscript's group, 6 px off «enc» (review s14); with it, TeX stacks it over the subscript
CROSS_PARTS = (r"Q_\text{dec}", r"K_\text{enc}^\top", r"V_\text{enc}")
CROSS_FORMULA = rf"\text{{softmax}}({CROSS_PARTS[0]}\, {CROSS_PARTS[1]} / \sqrt{{d_k}})\, {CROSS_PARTS[2]}"
CROSS_FORMULA_SIZE = 48  # its subscripts over 14 px once the drawing is fitted on the card
CROSS_SENTENCE_CHARACTERS = 40  # the encoder's sentence, cut at a word beyond this, keeps the drawing narrow
CROSS_GRID_WIDTH = 4.0  # the sketch of cross-attention's weights beside the drawing: its cells' width
CROSS_GRID_GAP = 0.5
CROSS_DECODER_ROWS = 3  # tokens the decoder has written in the sketch
CROSS_MOST_COLUMNS = 10  # the sketch's encoder words at most: a longer sentence's last column is «…», the rest of it
CROSS_COLUMN_CHARACTERS = 6  # an encoder word over its column, cut beyond this
CROSS_ROW_SECONDS = 0.8  # between two of the decoder's rows coming


class Concatenation(VGroup):
    """[Z_1 | Z_2 | ... ]: the heads' cells side by side in one pair of brackets (``parts``, the matrix's
    ``cell_grid``), each labelled above (``labels``: ``names``, in its head's colour)."""

    def __init__(self, outputs: list[HeatBlock], names: list[str]):
        parts = VGroup(*[block.cell_grid.copy() for block in outputs]).arrange(RIGHT, buff=0)
        labels = VGroup(*[MathTex(name, color=block.label.get_color(), font_size=block.label.font_size)
                          .next_to(part, UP, buff=0.22) for block, name, part in zip(outputs, names, parts)])
        height = parts.height + 0.1
        brackets = VGroup(bracket(height, -1, style.TEXT).next_to(parts, LEFT, buff=0.06),
                          bracket(height, +1, style.TEXT).next_to(parts, RIGHT, buff=0.06))
        super().__init__(parts, brackets, labels)
        self.parts = self.cell_grid = parts
        self.labels, self.brackets = labels, brackets
        self.widths = [len(block.cells[0]) for block in outputs]  # each head's columns

    def row(self, i: int) -> VGroup:
        """Row i's cells, across every head."""
        return VGroup(*[cell for part, width in zip(self.parts, self.widths)
                        for cell in part[i * width:(i + 1) * width]])


class HeadsScene(LessonScene):
    section_id = "heads"
    STEPS = ("sentence", *HEAD_STEPS, "average", "illustrative", "choose", "cost", "concat")

    def lesson(self):
        self.result = multi_head_attention(self.settings.sentence, lang=self.job.config.lecture.lang)
        self.labels = self.strings["labels"]
        self.answers = question_fields(self.result, self.strings["answer_pieces"])
        self.head_arcs = []
        self.focused = None  # (read-out, highlight frames) of the row in focus
        self.show_sentence()
        for head in range(self.result.n_heads):
            self.show_head(head)
        self.show_average()
        self.show_illustrative()
        self.show_choice()
        self.show_cost()
        self.show_concat()

    # Step 1: the sentence and the heads ---------------------------------------------------------
    def show_sentence(self):
        result = self.result
        self.begin_step("sentence", h=result.n_heads, n=len(result.tokens), d_model=result.d_model)
        self.row = self.token_row()
        vectors = label_text(self.labels["token_vector"].format(d_model=result.d_model), style.MUTED, style.BODY_SIZE)
        focus = choice_token(result)  # the token the later steps follow: its row of X, the vector the voice names
        vector = self.token_vector(focus)
        features = self.feature_note(focus)
        formula = self.formula(self.labels["head_formula"])
        legend = self.legend()
        left, right, _, _ = style.body_box()
        fit(self.row, right - left, self.row.height, largest_scale=1.3)  # a long sentence shrinks alone
        typed = self.typed_sentence()
        stage = VGroup(*typed, self.row, VGroup(vectors, vector, features).arrange(DOWN, buff=VECTOR_GAP), formula,
                       legend).arrange(DOWN, buff=0.5)
        self.place(stage, style.body_box())
        box = self.row.box(focus)
        self.cue("tokens", tokens=list(result.tokens), count=len(result.tokens))
        self.play(Appear(VGroup(*typed)), run_time=0.6)
        self.play(Appear(self.row, lag_ratio=0.2), run_time=1.5)
        self.play(Appear(vectors), run_time=0.6)
        # "cada uno un vector de 12 números": one token's, framed in the row, its numbers coming one by one
        self.play(Create(box), Appear(vector[0]), run_time=QUICK_APPEAR)
        self.play(Appear(vector[1], lag_ratio=1.0), Appear(features), run_time=VECTOR_COMES)
        self.beat("heads")  # "la leen a la vez 3 cabezas": one legend line a head
        self.play(FadeIn(legend, shift=UP * 0.2), run_time=0.8)
        self.beat("weights")  # "cada una con sus propios pesos": W_Q^h, W_K^h, W_V^h
        self.play(Write(formula), run_time=0.8)
        self.wait(HOLD)
        self.intro = VGroup(*typed, vectors, vector, features, box, formula, legend)

    def token_vector(self, i: int) -> VGroup:
        """Token i's row of X after its name («ella» en X: 0 0 1 0 ... 1): the d_model numbers a token is, in X's
        colour."""
        name = label_text(self.labels["token_row"].format(token=self.quoted(self.result.labels[i])), style.TEXT,
                          style.BODY_SIZE)
        numbers = VGroup(*[tagged_number(value, "token_vector", (i, j), style.TEXT, style.BODY_SIZE,
                                         0 if float(value).is_integer() else 2)
                           for j, value in enumerate(self.result.X[i])]).arrange(RIGHT, buff=ROW_NUMBER_GAP)
        return VGroup(name, numbers).arrange(RIGHT, buff=ROW_NUMBER_GAP)

    def feature_note(self, i: int):
        """What the numbers of token i's row of X are, in their order (attn_math.heads: role, subject, agreement, then
        its position i and i², and the constant 1), its i and i² filled in: «6 36» read as a position and its square."""
        X = self.result.X[i]
        text = self.labels["token_features"].format(position=f"{X[POSITION]:.0f}", square=f"{X[POSITION_SQUARED]:.0f}")
        return label_text(text, style.MUTED, style.CAPTION_SIZE)

    def typed_sentence(self) -> list:
        """The sentence as typed, in muted text above its tokens, when its punctuation was split off them."""
        result = self.result
        if result.sentence == " ".join(result.tokens):
            return []
        left, right, _, _ = style.body_box()
        line = self.paragraph(self.quoted(result.sentence), TYPED_LINE_CHARACTERS, style.BODY_SIZE, style.MUTED)
        return [fit(line, right - left, line.height)]

    def quoted(self, text: str) -> str:
        """A token or the sentence in the locale's quotation marks."""
        return self.labels["token"].format(token=text)

    def listed(self, indices, spoken: bool = False) -> str:
        """The tokens at ``indices``, quoted and joined as the locale writes a list: «a», «b» y «c». ``spoken`` (for
        the voice): a token as short as a conjunction or an article is named as a word, «la palabra «y»», or a
        listener hears «entre y, calmó y María» as a list of conjunctions."""
        items = [self.labels["spoken_token" if spoken and len(self.result.labels[j]) <= SHORT_TOKEN else "token"]
                 .format(token=self.result.labels[j]) for j in indices]
        if len(items) == 1:
            return items[0]
        return self.labels["list"].format(items=", ".join(items[:-1]), last=items[-1])

    def token_row(self) -> TokenRow:
        """The sentence as a row, its words cut short ("electroe…") only if in full the row would have to
        shrink under the smallest legible size to fit the arcs panel."""
        left, right, _, _ = self.panels()[0]
        slot = number_text(0.0, font_size=READOUT_SIZE).width
        for characters in LABEL_CHARACTERS:
            row = TokenRow([shortened(label, characters) for label in self.result.labels], slot_width=slot, gap=0.3)
            if cap_height(row.words[0]) * (right - left) / row.width >= style.SMALLEST_CAP_HEIGHT:
                break
        return row

    def legend(self, font_size: float = style.BODY_SIZE) -> VGroup:
        return heads_legend(self.head_names(), self.labels["head_legend"], font_size)

    def head_kinds(self) -> list[str]:
        """Each head's kind of relation (positional, syntactic, semantic), in the locale."""
        kinds = self.labels["head_kinds"]
        assert len(kinds) == self.result.n_heads, "one locale kind per head"
        return kinds

    def head_names(self) -> list[str]:
        names = self.labels["head_names"]
        assert len(names) == self.result.n_heads == len(HEAD_STEPS), "one locale name and one step per head"
        return names

    # Steps 2-4: one head at a time --------------------------------------------------------------
    def show_head(self, head: int):
        weights = self.result.heads[head].weights
        rows = self.focus_rows(weights)
        example = rows[-1]  # the caption's example is the row left in focus at the end of the step
        tokens = self.result.labels
        strings = self.strings["steps"][HEAD_STEPS[head]]
        caption = strings["caption"] if self.attends_elsewhere(weights, example) else strings["caption_none"]
        self.begin_step(HEAD_STEPS[head], caption=caption, query=tokens[example],
                        attended=tokens[int(np.argmax(weights[example]))])
        if head == 0:
            self.move_row_aside()
        else:
            self.play(*self.clear_focus(), Vanish(self.heatmap), Vanish(self.head_arcs[-1]), run_time=0.6)
        arcs = AttentionArcs(self.row, weights, style.HEADS[head], height=self.arc_height, dash=style.HEAD_DASHES[head])
        self.heatmap = self.heatmap_for(weights, self.labels["head_matrix"].format(number=head + 1),
                                        style.HEAD_TEXTS[head], legible=True)
        self.head_arcs.append(arcs)
        self.cue("head_arcs", lands=True, head=head, weights=weights.tolist())
        self.play(arcs.draw(run_time=2.0), Appear(self.heatmap), run_time=2.0)
        self.wait(HOLD)
        for i in rows:
            if i == example:
                self.beat("example")  # the caption's example is said as its row comes into focus
            self.cue("head_row", lands=True, head=head, query=i, weights=weights[i].tolist())
            self.focus_row(arcs, i, weights[i], style.HEAD_TEXTS[head], f"A{head + 1}")
            self.wait(HOLD)

    @staticmethod
    def focus_rows(weights: np.ndarray) -> list[int]:
        """The rows that show the head's relation best, the best last: those attending farthest from themselves."""
        distance = np.abs(np.argmax(weights, axis=1) - np.arange(len(weights)))
        order = sorted(range(len(weights)), key=lambda i: (-distance[i], i))
        return (order[:HIGHLIGHTS_PER_HEAD] if distance[order[0]] else order[:1])[::-1]

    @staticmethod
    def attends_elsewhere(weights: np.ndarray, i: int) -> bool:
        return int(np.argmax(weights[i])) != i

    def move_row_aside(self):
        """The row goes left, where the arcs rise over it; the heatmap panel is on the right."""
        arcs_panel, _ = self.panels()
        left, right, bottom, top = arcs_panel
        self.arcs_note = label_text(self.labels["arcs_key"], style.MUTED, style.CAPTION_SIZE)
        self.row.generate_target()
        target = self.row.target
        fit(target, right - left, target.height, largest_scale=1.3)
        # A weight centred under a short first or last word ("el") reaches past the row: the row narrows by as much,
        # as long as its weights keep their size (weight_readout shrinks them to 3/4 of the words' spacing); what is
        # left over, readout() moves inwards
        number = number_text(0.0, font_size=READOUT_SIZE).width
        overhang = number / 2 - min(target.centre_x(0) - target.get_left()[0],
                                    target.get_right()[0] - target.centre_x(len(target.words) - 1))
        narrowest = target.width * number / (0.75 * target.spacing())
        fit(target, max(target.width - 2 * overhang, min(target.width, narrowest)), target.height)
        fit(self.arcs_note, right - left, self.arcs_note.height)
        # Under the readout lines: the weights are rounded, so a row of them adds up to about 1 (0.05 + 0.91 + 0.05)
        self.sum_note = label_text(self.labels["rounded_note"], style.MUTED, style.CAPTION_SIZE)
        fit(self.sum_note, right - left, self.sum_note.height)
        readouts = self.result.n_heads * READOUT_LINE + SUM_NOTE_GAP + self.sum_note.height
        column = self.arcs_note.height + 0.3 + ARC_HEIGHT + 0.2 + target.height + 0.2 + readouts
        shrink = min(1.0, (top - bottom) / column)
        self.arc_height = ARC_HEIGHT * shrink
        self.arcs_note.move_to([(left + right) / 2, 0, 0]).align_to([0, top, 0], UP)
        target.move_to([(left + right) / 2, 0, 0])
        target.shift(UP * (self.arcs_note.get_bottom()[1] - 0.3 - self.arc_height - 0.2 - target.get_top()[1]))
        self.sum_note.move_to([(left + right) / 2, 0, 0]).align_to(
            [0, target.get_bottom()[1] - 0.2 - self.result.n_heads * READOUT_LINE - SUM_NOTE_GAP, 0], UP)
        # the notes come once step 1's texts have gone: the legend's last line sits where the weights' note comes
        self.play(in_turn(Vanish(self.intro), Appear(self.arcs_note, self.sum_note)), MoveToTarget(self.row),
                  run_time=1.0)

    def heatmap_for(self, weights: np.ndarray, label: str, colour, legible: bool = False) -> TokenHeatmap:
        """The heatmap sized so that, once its column labels are turned upright, it fits the panel as built: fitted
        by scaling, its labels shrank with it (to 11 px at 720p). The height the turned labels add comes off the
        cells instead; the height left over goes to its rows (``taller_rows``). ``legible``: its name grown to
        ``legible_label``'s size (a head's A_h; the average's fraction is tall already, and its rows need the room)."""
        left, right, bottom, top = self.panels()[1]
        bottom += CAPTION_ROOM
        height = top - bottom
        for _ in range(HEATMAP_TRIES):
            heatmap = upright_column_labels(TokenHeatmap(weights, self.result.labels, label, colour, right - left,
                                                         height, font_size=HEATMAP_LABEL_SIZE), legible)
            overflow = heatmap.height - (top - bottom)
            if overflow <= 1e-3:
                break
            height -= overflow
        return self.place(taller_rows(heatmap, top - bottom - heatmap.height), (left, right, bottom, top))

    def focus_row(self, arcs: AttentionArcs, i: int, weights: np.ndarray, colour, name: str, *also):
        """Highlight row i of the heatmap, token i, its arcs, and write its weights under the tokens (``also``: other
        animations played with it)."""
        readout = self.readout(weights, colour, name, i, hide_zeros=True)
        boxes = [self.heatmap.row_box(i), self.row.box(i)]
        if self.focused:
            old_readout, old_boxes = self.focused
            # the old weights leave before the new ones come: two numbers faded in one place read as neither
            self.play(arcs.focus(i), in_turn(Vanish(old_readout), Appear(readout)),
                      *[Transform(old, new) for old, new in zip(old_boxes, boxes)], *also, run_time=FOCUS_MOVE)
            self.focused = (readout, old_boxes)
        else:
            self.play(arcs.focus(i), Appear(readout), *[Create(box) for box in boxes], *also, run_time=FOCUS_MOVE)
            self.focused = (readout, boxes)

    def readout(self, *arguments, **options) -> VGroup:
        """``weight_readout`` under the row, each weight kept inside the arcs panel: one centred under a short first or
        last word ("el") would reach past it, to the frame's edge."""
        numbers = weight_readout(self.row, *arguments, **options)
        left, right, _, _ = self.panels()[0]
        for number in numbers:
            number.shift(RIGHT * (max(0.0, left - number.get_left()[0]) - max(0.0, number.get_right()[0] - right)))
        return numbers

    def head_readout(self, weights: np.ndarray, head: int, query: int, below: float) -> VGroup:
        """Head ``head``'s weights from ``query`` under the tokens, beside other heads' or the average's: each
        underlined in the pattern of the head's arcs, a cue that outlives its colour (head 2's pink reads as the text's
        white to a deuteranope, review s14)."""
        numbers = self.readout(weights, style.HEAD_TEXTS[head], f"A{head + 1}", query, below=below, hide_zeros=True)
        marks = VGroup(*[dashed(Line(number.get_corner(DL), number.get_corner(DR), color=style.HEADS[head],
                                     stroke_width=MARK_STROKE), style.HEAD_DASHES[head])
                         .shift(DOWN * MARK_GAP) for number in numbers])
        return VGroup(numbers, marks)

    def clear_focus(self) -> list:
        if not self.focused:
            return []
        readout, boxes = self.focused
        self.focused = None
        return [Vanish(readout), *[Vanish(box) for box in boxes]]

    # Step 5: the average ----------------------------------------------------------------------
    def show_average(self):
        result = self.result
        focus = choice_token(result)
        # in the heads' order, as the choice step lists them (by weight, «María», «calmó» y «y» is heard "calmó y y")
        targets = self.heads_targets(focus)
        shared = sorted((j for j in range(len(result.tokens)) if result.mean_weights[focus, j] >= SHARED_WEIGHT),
                        key=lambda j: (targets.index(j) if j in targets else len(targets), j))
        head = telling_head(result, focus)
        row = result.heads[head].weights[focus]
        attended = int(np.argmax(row))
        self.begin_step("average", h=result.n_heads, token=result.labels[focus], targets=self.listed(shared),
                        spoken_targets=self.listed(shared, spoken=True), number=head + 1, attended=result.labels[attended], weight=f"{row[attended]:.2f}",
                        mean=f"{result.mean_weights[focus, attended]:.2f}")
        legend = self.place(self.legend(style.CAPTION_SIZE), self.panels()[1])
        self.overlay_heads(legend)
        self.sum_arcs = AttentionArcs(self.row, result.mean_weights, style.ATTENTION, height=self.arc_height)
        self.heatmap = self.heatmap_for(result.mean_weights, self.labels["sum_matrix"].format(h=result.n_heads),
                                        style.ATTENTION)
        self.beat("average")  # the average, its focused row and the telling head's row are each said as they come
        self.cue("heads_sum", lands=True, weights=result.mean_weights.tolist())
        # the legend leaves before the average's heatmap comes where it stood: never one text faded over another
        self.play(Vanish(VGroup(*self.head_arcs)), Appear(self.sum_arcs), in_turn(Vanish(legend), Appear(self.heatmap)),
                  run_time=1.5)
        self.wait(AVERAGE_HOLD)
        self.beat("row")
        # replayed once the voice has said what the mean does to the telling head's weight: the diluted row
        self.cue("sum_row", lands=True, query=focus, weights=result.mean_weights[focus].tolist(), key_sound=True)
        # the note on rounded weights back with the first weights since the head steps'
        self.focus_row(self.sum_arcs, focus, result.mean_weights[focus], style.ATTENTION, "average",
                       Appear(self.sum_note))
        # "entre «y», «calmó» y «María»": each token the row shares its weight with framed, in the order it is said
        self.beat("shared")
        sharing = VGroup(*[self.row.box(j).set_stroke(style.ATTENTION) for j in shared if j != focus])
        for index, box in enumerate(sharing):
            if index:
                self.wait(SHARED_GAP)
            self.play(Create(box), run_time=SHARED_COMES)
        if self._caption_read:  # no voice to go on with: the row held to be read, as before the frames came
            self.wait(HOLD)
        # The same row in the head that finds a relation for it: one clear maximum, which the average dilutes.
        arcs = AttentionArcs(self.row, self.only_row(result.heads[head].weights, focus), style.HEADS[head],
                             height=self.arc_height, dash=style.HEAD_DASHES[head])
        readout = self.head_readout(row, head, focus, below=0.2 + TELLING_LINE * READOUT_LINE)
        self.beat("telling")
        self.cue("head_row", lands=True, head=head, query=focus, weights=row.tolist())
        self.play(arcs.draw(run_time=QUICK_APPEAR), Appear(readout), run_time=QUICK_APPEAR)
        # "el promedio lo diluye a 0.33": the average's weight on that token, framed in its readout
        average = next(text for text in self.focused[0] if text.tag[1][1] == attended)
        diluted = RoundedRectangle(width=average.width + 0.16, height=average.height + 0.08, corner_radius=0.04,
                                   stroke_color=style.HIGHLIGHT, stroke_width=2.5).move_to(average)
        self.beat("diluted")
        self.play(Create(diluted), run_time=QUICK_APPEAR)
        self.wait(HOLD)
        self.head_example = VGroup(arcs, readout, diluted, sharing)

    def heads_targets(self, focus: int) -> list[int]:
        """Where each head's row for token ``focus`` puts its largest weight."""
        return [int(np.argmax(head.weights[focus])) for head in self.result.heads]

    def overlay_heads(self, legend: VGroup):
        """The heads' arcs over one row, each with its legend line as its chord in ``heads_overlay`` sounds, once
        the last head's focus, arcs and heatmap have cleared: each comes quickly as its chord starts, a chord's turn
        after the one before. Slow fades of thin arcs under the chords read as a still screen with tones over it.
        Every head comes back undimmed: under «grosor y opacidad ∝ α_ij» each arc's opacity is its weight alone, not
        its head step's last focus (review s15: «ella»→«y», 0.91, was drawn at 15 % beside «perro»→«el», 0.95, in
        full; the last head's «ella»→«María», 1.00, faint until its chord)."""
        result, beat = self.result, heads_turn("heads_overlay")
        # the note on rounded weights leaves with the last weights: the overlay shows none (review s15)
        self.play(*self.clear_focus(), Vanish(self.heatmap), Vanish(self.head_arcs[-1]), Vanish(self.sum_note),
                  run_time=0.6)
        for arcs in self.head_arcs:  # off screen: restored at once, they come in full with their chords
            for arc in arcs.arcs.values():
                arc.set_share(1.0)
        # "Escucha las 3 juntas": the heads named, one legend line each, as the voice says what to listen for
        for line in legend:
            self.play(Appear(line), run_time=HEAD_COMES)
        # then the chords in the clear, the first landing as the voice stops, each with its head's arcs
        with self.listening(lead=PHRASE_GAP + HEAD_COMES):
            self.cue("heads_overlay", lands=True, weights=[head.weights.tolist() for head in result.heads])
            comings = [Appear(arcs) for arcs in self.head_arcs]
            self.play(comings[0], run_time=HEAD_COMES)
            first = self.renderer.time  # the others timed from it, so frame rounding does not add up head after head
            for index in range(1, len(comings)):
                self.wait_until(first + index * beat - HEAD_COMES)
                self.play(comings[index], run_time=HEAD_COMES)

    # Step 6: illustrative ----------------------------------------------------------------------
    def show_illustrative(self):
        self.begin_step("illustrative")
        left, right, _, _ = style.body_box()
        heads, n = self.result.n_heads, len(self.result.tokens)
        cell = min(PATTERN_CELL, (right - left - heads * (PATTERN_GAP + BRACKETS_WIDTH)) / (heads * n))
        blocks = head_blocks(self.result, self.labels["head_matrix"], cell)
        for block in blocks:
            legible_label(block.label)
        # the kinds of relation heads are said to specialise in, one a head: what each designed head is an example of
        kinds = VGroup(*[label_text(kind, style.HEAD_TEXTS[head], style.CAPTION_SIZE).next_to(block, DOWN, buff=0.15)
                         for head, (kind, block) in enumerate(zip(self.head_kinds(), blocks))])
        note = self.paragraph(self.labels["illustrative_note"], 56, style.BODY_SIZE + 4)
        stage = VGroup(VGroup(blocks, kinds), note).arrange(DOWN, buff=0.3)  # 0.7 without the kinds, 0.3 with two lines of one
        self.place(stage, style.body_box())
        self.play(*self.clear_focus(), Vanish(self.heatmap), Vanish(self.sum_arcs), Vanish(self.head_example),
                  Vanish(self.row), Vanish(self.arcs_note), Vanish(self.sum_note), run_time=0.6)
        self.play(Appear(VGroup(*[VGroup(block, kind) for block, kind in zip(blocks, kinds)]), lag_ratio=0.3),
                  run_time=1.2)
        self.play(Appear(note), run_time=0.8)
        self.wait(HOLD + 2.0)
        self.note = stage

    # Step 7: a single distribution has to choose -----------------------------------------------
    def show_choice(self):
        result = self.result
        focus = choice_token(result)
        attended = self.heads_targets(focus)
        targets = list(dict.fromkeys(attended))
        caption = self.strings["steps"]["choose"]["caption" if len(targets) > 1 else "caption_same"]
        self.begin_step("choose", caption=caption, h=result.n_heads, token=result.labels[focus],
                        targets=self.listed(targets), spoken_targets=self.listed(targets, spoken=True))
        note = self.choice_note(focus, attended)
        legend = self.legend(style.BODY_SIZE)
        # "o repartirse y diluir cada relación": what one distribution, the average, gives those tokens
        spread = self.spread_note(focus, targets, max(note.width, legend.width))
        side = self.place(VGroup(legend, note, spread).arrange(DOWN, buff=0.45, aligned_edge=LEFT), self.panels()[1])
        arcs = [AttentionArcs(self.row, self.only_row(head.weights, focus), style.HEADS[index],
                              height=self.arc_height, dash=style.HEAD_DASHES[index])
                for index, head in enumerate(result.heads)]
        readouts = [self.head_readout(head.weights[focus], index, focus, below=0.2 + line * READOUT_LINE)
                    for index, (head, line) in enumerate(zip(result.heads, self.readout_lines(focus)))]
        box = self.row.box(focus)
        self.play(Vanish(self.note), run_time=0.6)
        # the heading «Desde «ella», el peso mayor de:» comes with the first head's line, never alone over nothing
        self.play(Appear(self.row), Appear(self.arcs_note), Appear(self.sum_note), Appear(legend), Create(box),
                  run_time=0.8)
        # The heads' rows in their own registers, one after the other, each heard once, in the clear: each head's
        # arcs, readout and line land as its chord sounds (drawn under the voice before, then heard again here).
        with self.listening():
            self.cue("heads_chord", lands=True, query=focus,
                     weights=[head.weights[focus].tolist() for head in result.heads])
            for index, line in enumerate(note[1:]):
                beat = heads_turn("heads_chord") if index else 0.6
                heading = [] if index else [Appear(note[0])]
                self.play(arcs[index].draw(run_time=beat), Appear(readouts[index]), Appear(line), *heading,
                          run_time=beat)
        self.beat("verdict")  # what the heads' disagreement means, once all of them were heard: the tokens to choose
        chosen = VGroup(*[self.row.box(j).set_stroke(style.ATTENTION) for j in targets if j != focus])
        self.play(Create(chosen), run_time=QUICK_APPEAR)
        shown = [legend, note, chosen]
        if len(targets) > 1:
            self.beat("spread")
            self.play(Appear(spread), run_time=QUICK_APPEAR)
            shown.append(spread)
        self.wait(HOLD)
        self.choice = VGroup(self.row, self.arcs_note, self.sum_note, *shown, box, *arcs, *readouts)

    def readout_lines(self, focus: int) -> list[int]:
        """The line under the tokens each head's weights from ``focus`` are written on: the first whose tokens none of
        the heads before it wrote on, so heads that look at different tokens share one line."""
        taken: list[set] = []
        lines = []
        for head in self.result.heads:
            shown = set(np.flatnonzero(np.round(head.weights[focus], 2)).tolist())
            line = next((index for index, used in enumerate(taken) if not used & shown), len(taken))
            if line == len(taken):
                taken.append(set())
            taken[line] |= shown
            lines.append(line)
        return lines

    def spread_note(self, focus: int, targets: list[int], width: float) -> VGroup:
        """The average's weights from ``focus`` on ``targets``, «y» 0.30 · «calmó» 0.33 · ..., under its heading: on
        one line if it is no wider than ``width`` (the side column's), else one token a line (long words)."""
        result = self.result
        items = [label_text(f"{self.quoted(result.labels[j])} {result.mean_weights[focus, j]:.2f}", style.ATTENTION,
                            style.BODY_SIZE) for j in targets]
        line = VGroup(*items).arrange(RIGHT, buff=0.3)
        if line.width > width:
            line.arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        heading = label_text(self.labels["choice_spread"], style.ATTENTION, style.BODY_SIZE)
        return VGroup(heading, line).arrange(DOWN, buff=0.12, aligned_edge=LEFT)

    def choice_note(self, focus: int, attended: list[int]) -> VGroup:
        """Where each head's row for ``focus`` puts its largest weight, one line a head in its colour; a token
        attending to itself is said to."""
        tokens = self.result.labels
        lines = [label_text(self.labels["choice_note"].format(token=tokens[focus]), style.TEXT, style.BODY_SIZE)]
        for head, j in enumerate(attended):
            line = self.labels["choice_self" if j == focus else "choice_target"].format(number=head + 1,
                                                                                      attended=tokens[j])
            # after its head's stroke, as in the legend: head 2's ivory alone reads as the body text's white
            lines.append(VGroup(head_swatch(head), label_text(line, style.HEAD_TEXTS[head], style.BODY_SIZE))
                         .arrange(RIGHT, buff=SWATCH_GAP))
        return VGroup(*lines).arrange(DOWN, buff=0.18, aligned_edge=LEFT)

    @staticmethod
    def only_row(weights: np.ndarray, i: int) -> np.ndarray:
        kept = np.zeros_like(weights)
        kept[i] = weights[i]
        return kept

    # Step 8: the same cost ---------------------------------------------------------------------
    def show_cost(self):
        result = self.result
        h, d_model, d_head = result.n_heads, result.d_model, result.d_head
        one_params = d_model * d_model
        many_params = h * result.W_Q.shape[1] * result.W_Q.shape[2]
        self.begin_step("cost", h=h, d_model=d_model, d_head=d_head, params=many_params)
        single = self.size_block(d_model, d_model, "W_Q", ONE_HEAD_COLOUR)
        split = VGroup(*[self.size_block(d_model, d_head, f"W_Q^{{{head + 1}}}", style.HEADS[head],
                                                   style.HEAD_TEXTS[head])
                         for head in range(h)]).arrange(RIGHT, buff=0.35)
        titles = [label_text(self.labels["one_head"].format(d_model=d_model), style.TEXT),
                  label_text(self.labels["many_heads"].format(h=h, d_head=d_head), style.TEXT)]
        costs = [label_text(self.labels["one_head_cost"].format(d_model=d_model, params=one_params), style.TEXT),
                 label_text(self.labels["many_heads_cost"].format(h=h, d_model=d_model, d_head=d_head,
                                                                  params=many_params), style.TEXT)]
        sides = VGroup(*[VGroup(title, block, cost).arrange(DOWN, buff=0.35)
                         for title, block, cost in zip(titles, (single, split), costs)]).arrange(RIGHT, buff=1.5)
        heading = label_text(self.labels["per_projection"], style.MUTED, style.BODY_SIZE)
        guide = self.guide_heads()
        stage = VGroup(heading, sides, guide).arrange(DOWN, buff=COST_GAP)
        self.place(stage, style.body_box())
        on_one_baseline(titles)
        on_one_baseline(costs)
        self.play(Vanish(self.choice), run_time=0.6)
        self.play(Appear(heading), Appear(sides[0]), run_time=1.0)
        self.wait(1.0)
        self.cue("cost", lands=True, heads=h, d_model=d_model, d_head=d_head, params=many_params)
        self.play(*self.slice_columns(single.copy(), split), Appear(titles[1]), run_time=1.5)
        # "Cada proyección sigue teniendo 144 pesos": the second count comes, and both counts are framed
        self.beat("params")
        self.play(Appear(costs[1]), run_time=QUICK_APPEAR)
        frames = level_frames(costs)
        self.play(Create(frames), Appear(guide), run_time=0.6)
        self.wait(HOLD)
        self.cost = VGroup(stage, frames)
        self.costs = costs

    def guide_heads(self):
        """The guide's exercise 6 worked out under the cost: d_k = d_model / h with the original Transformer's sizes,
        and with twice the heads (its second question: more, narrower heads)."""
        text = self.labels["guide_heads"].format(
            d_model=GUIDE_D_MODEL, h=GUIDE_HEADS, d_head=head_dimension(GUIDE_D_MODEL, GUIDE_HEADS),
            h_doubled=2 * GUIDE_HEADS, d_head_doubled=head_dimension(GUIDE_D_MODEL, 2 * GUIDE_HEADS))
        return label_text(text, style.TEXT, style.BODY_SIZE)

    # Step 9: concatenate and mix with W_O ------------------------------------------------------
    def show_concat(self):
        result = self.result
        h = result.n_heads
        focus = choice_token(result)  # the token the last steps followed: its row is written out in numbers
        # the cost leaves with the header: the caption's two lines would come up under the exercise 6 line (review s14)
        self.begin_step("concat", h=h, d_model=result.d_model, token=result.labels[focus],
                        with_header=[Vanish(self.cost, rate_func=squish_rate_func(smooth, 0.0, 0.5))])
        formula = self.formula(self.labels["multi_head_formula"])
        # Concat's columns each lit to their own largest (a column of positions, 0 to 7, beside ones and zeros would
        # leave the ones dim): the heads' outputs cut from that one scale, side by side they are the one matrix Concat
        largest = column_largest(result.concat)
        d_head = result.d_head
        cell = min(MAGNITUDE_CELL, BLOCK_HEIGHT / len(result.tokens))
        outputs = [self.magnitude_block(head.output, self.labels["head_output_formula"].format(number=index + 1),
                                        style.HEADS[index], largest[index * d_head:(index + 1) * d_head], cell,
                                        style.HEAD_TEXTS[index])
                   for index, head in enumerate(result.heads)]
        w_o = self.magnitude_block(result.W_O, self.labels["output_projection"], style.WEIGHT_MATRIX,
                                   cell_size=min(MAGNITUDE_CELL, BLOCK_HEIGHT / result.d_model))
        output = self.magnitude_block(result.output, self.labels["output_matrix"], style.OUTPUT,
                                      column_largest(result.output), cell)
        concat = Concatenation(outputs, [self.labels["head_output"].format(number=index + 1) for index in range(h)])
        times, equals = (MathTex(symbol, color=style.TEXT, font_size=FORMULA_SIZE) for symbol in (r"\times", "="))
        equation = VGroup(concat, times, w_o, equals, output).arrange(RIGHT, buff=0.35)
        shapes = VGroup(*[self.shape_text(rows, cols).next_to(block.cell_grid, DOWN, buff=SHAPE_GAP)
                          for block, (rows, cols) in zip((concat, w_o, output), (result.concat.shape, result.W_O.shape,
                                                                                 result.output.shape))])
        # the output is what the next layer reads: said under it; W_O's ones and zeros, under W_O
        next_layer = label_text(self.labels["next_layer"], style.OUTPUT, style.CAPTION_SIZE)
        next_layer.next_to(shapes[2], DOWN, buff=0.15)
        ones = VGroup(*([VGroup(*[label_text(self.labels[key], style.TEXT, style.CAPTION_SIZE)
                                  for key in ("ones_and_zeros", "trained_dense")]).arrange(DOWN, buff=NOTE_LINE_GAP)
                           .next_to(shapes[1], DOWN, buff=0.15)] if np.isin(result.W_O, (0, 1)).all() else []))
        # under Concat, what its cells' brightness says (|value| over its column's largest) and, when Concat or the
        # output has a negative entry, what a minus bar means
        negative = (np.round(result.concat, 2) < 0).any() or (np.round(result.output, 2) < 0).any()
        scale = label_text(self.labels["cell_scale"], style.TEXT, style.CAPTION_SIZE)
        signs = VGroup(*([self.sign_key()] if negative else []), scale).arrange(DOWN, buff=NOTE_LINE_GAP,
                                                                                aligned_edge=RIGHT)
        signs.next_to(shapes[0], DOWN, buff=0.15).align_to(concat.brackets, RIGHT)  # into the room on Concat's left
        # notes wider than their blocks (a long sentence's narrow blocks, English) kept off each other
        set_apart(VGroup(concat, times, shapes[0], signs), VGroup(w_o, shapes[1], ones))
        set_apart(VGroup(w_o, shapes[1], ones), VGroup(equals, output, shapes[2], next_layer))
        left, right, bottom, top = style.body_box()
        floor = max(bottom, self.header[-1].get_top()[1] + style.MARGIN / 2)  # over the caption, should it wrap
        blocks = VGroup(equation, shapes, next_layer, ones, signs)
        # the written-out rows take the height the formula and the blocks leave: the blocks keep their labels' size
        room = top - floor - formula.height - blocks.height - 2 * CONCAT_GAP
        row_numbers = fit(self.row_product(focus), right - left, min(ROW_PRODUCT_HEIGHT, room))
        stage = VGroup(formula, blocks, row_numbers).arrange(DOWN, buff=CONCAT_GAP)
        self.place(stage, (left, right, floor, top))
        widen(row_numbers.worked, left, right)
        # the heads' outputs start apart, right of where Concat's labels come (their Z_h never lands on a Z_h = A_h V_h
        # still fading), then slide together into the concatenation
        for block, joined in zip(outputs, concat.parts):
            block.scale(joined.height / block.cell_grid.height)
        spread = VGroup(*outputs).arrange(RIGHT, buff=0.5, aligned_edge=DOWN)
        spread.move_to(concat.cell_grid, aligned_edge=DOWN).align_to(concat.labels, LEFT)
        spread.shift(RIGHT * (concat.labels.get_right()[0] + SPREAD_GAP - spread.get_left()[0]))
        spread.shift(LEFT * max(0.0, spread.get_right()[0] - right))
        head_shapes = VGroup(*[self.shape_text(*head.output.shape).next_to(block.cell_grid, DOWN, buff=SHAPE_GAP)
                               for block, head in zip(outputs, result.heads)])
        self.product = (concat, w_o, output)
        self.row_numbers = row_numbers
        self.play(Write(formula), run_time=1.0)
        self.play(*[Appear(block) for block in outputs], Appear(head_shapes), run_time=QUICK_APPEAR)
        self.wait(0.6)
        self.beat("concat")
        self.cue("concat", lands=True, heads=h, d_head=result.d_head, d_model=result.d_model)
        self.play(*[ReplacementTransform(block.cell_grid, part) for block, part in zip(outputs, concat.parts)],
                  *[ReplacementTransform(block.label, label) for block, label in zip(outputs, concat.labels)],
                  *[Vanish(block.brackets) for block in outputs], Appear(concat.brackets),
                  ReplacementTransform(head_shapes, shapes[0]), Appear(signs), run_time=1.5)
        self.wait(1.0)
        self.beat("mix")
        self.play(Appear(VGroup(times, w_o, shapes[1])), run_time=QUICK_APPEAR)
        self.wait(0.6)
        self.play(Appear(VGroup(equals, output, shapes[2])), run_time=QUICK_APPEAR)
        self.beat("next")
        self.play(Appear(next_layer), run_time=QUICK_APPEAR)
        self.beat("zeros")  # "solo tiene unos y ceros": W_O framed, its cells read as 1 and 0
        zeros = RoundedRectangle(width=w_o.width + 0.2, height=w_o.height + 0.2, corner_radius=0.08,
                                 stroke_color=style.HIGHLIGHT, stroke_width=3).move_to(w_o)
        self.play(Create(zeros), Appear(ones), run_time=QUICK_APPEAR)
        # the focused token's row: framed in Concat and in the output, and written out in numbers, Concat's first
        rows = VGroup(*[SurroundingRectangle(cells, color=style.HIGHLIGHT, buff=0.03, stroke_width=2.5)
                        for cells in (concat.row(focus), VGroup(*output.cells[focus]))])
        self.read_first()
        self.beat("row")
        self.play(Create(rows), Appear(row_numbers.concat), run_time=QUICK_APPEAR)
        # "cada cabeza trae el valor de lo que mira": head 1's row written out in full, each other's largest term
        self.read_first()
        self.beat("values")
        self.play(Appear(row_numbers.worked), Appear(row_numbers.terms), run_time=QUICK_APPEAR)
        self.read_first()
        # "cada salida suma lo que marcan los unos de su columna": W_O's ones as arrows, then the sums they land on
        self.beat("row_out")
        self.play(Appear(row_numbers.links), Appear(row_numbers.output), run_time=QUICK_APPEAR)
        self.wait(HOLD)

    def read_first(self):
        """A caption read on screen (no voice) is read, and the numbers with it, before the next line of numbers comes:
        its reading time spread between them, not held at the step's end."""
        if self._caption_read:
            self.wait(READING_PAUSE * self.job.config.lecture.pace)

    def row_product(self, i: int) -> VGroup:
        """Token i's rows, number by number, column under column: the product a student can check by hand. Over
        each head's columns, what its row of Z is: its largest term («1.00·V₂(«calmó»)», in the head's text tint after
        its stroke), or, for the head whose row is written out in full above (``worked``), that row's name; then
        Concat's row (each head's numbers in its tint), W_O's ones as arrows from each number of it that is not 0 to the
        output columns it goes to (``links``), and the output's row (Concat's row times W_O). ``worked``, ``terms``,
        ``concat``, ``links`` and ``output``: its parts."""
        result = self.result
        token = self.quoted(shortened(result.labels[i], ROW_NAME_CHARACTERS))  # a long word would shrink every line
        attended = self.heads_targets(i)
        head_colours = [style.HEAD_TEXTS[j // result.d_head] for j in range(result.d_model)]
        lines = [(self.labels["concat_row"].format(token=token), result.concat[i], "concat_row", head_colours),
                 (self.labels["output_row"].format(token=token), result.output[i], "output_row",
                  [style.OUTPUT] * result.d_model)]
        names = [label_text(name, style.TEXT, style.CAPTION_SIZE) for name, *_ in lines]
        numbers = [self.written_numbers(values, tag, i, colours) for _, values, tag, colours in lines]
        slot = max(text.width for line in numbers for text in line) + ROW_NUMBER_GAP
        start = max(name.width for name in names) + ROW_NUMBER_GAP
        for index, (name, line) in enumerate(zip(names, numbers)):
            y = -index * LINK_BAND
            name.move_to([start - ROW_NUMBER_GAP - name.width / 2, y, 0])
            for j, text in enumerate(line):
                text.move_to([start + slot * (j + 0.5), y, 0])
        spread = self.most_hidden(i)
        terms = VGroup(*[self.term_label(head, i, attended[head], slot * result.d_head - ROW_NUMBER_GAP,
                                         written_out=head == spread)
                         .move_to([start + slot * result.d_head * (head + 0.5), TERM_RISE, 0])
                         for head in range(result.n_heads)])
        worked = VGroup(*([] if spread is None else [self.worked_sum(spread, i)]))
        if worked:  # over the terms, from the names' left edge, no wider than the rows of numbers (never shrinks them)
            fit(worked, numbers[0][-1].get_right()[0] - names[0].get_left()[0], worked.height)
            worked.next_to(terms, UP, buff=WORKED_GAP).align_to(VGroup(*names), LEFT)
        links = self.output_links(i, *numbers)
        links_name = label_text(self.labels["output_links"], style.TEXT, TERM_SIZE)  # its subscript 16 px
        links_name.move_to([start - ROW_NUMBER_GAP - links_name.width / 2, -LINK_BAND / 2, 0])
        rows = VGroup(worked, terms, VGroup(names[0], *numbers[0]), VGroup(links_name, links),
                      VGroup(names[1], *numbers[1]))
        rows.worked, rows.terms, rows.concat, rows.links, rows.output = rows
        return rows

    def output_links(self, i: int, concat: list, output: list) -> VGroup:
        """W_O's ones that carry token i's row: an arrow, in W_O's colour, from each number of Concat's row that is not
        0 as written to each output number its row of W_O has a 1 over (its column of the output). The output's number
        is the sum of the arrows landing on it: «cada salida suma lo que marcan los unos de su columna»."""
        shown = np.round(self.result.concat[i], 2)
        return VGroup(*[link_arrow(concat[j].get_x(), output[k].get_x(), concat[j].get_bottom()[1] - LINK_CLEAR,
                                   output[k].get_top()[1] + LINK_CLEAR)
                        for j, k in zip(*np.nonzero(self.result.W_O)) if shown[j]])

    def most_hidden(self, i: int) -> int | None:
        """The head whose row i of Z its largest term alone misses most (head 1: 0.91·5 = 4.55 for 5.00), or None when
        every head's largest term is its row as written: the one head whose sum is written out in full (one line)."""
        missed = [np.abs(head.output[i] - head.weights[i].max() * head.V[int(np.argmax(head.weights[i]))]).max()
                  if len(self.contributing(index, i)) > 1 else 0.0 for index, head in enumerate(self.result.heads)]
        return int(np.argmax(missed)) if max(missed) >= 0.005 else None

    def contributing(self, head: int, i: int) -> list[int]:
        """The tokens head ``head``'s row i weighs with something shown (0.05 or more, to 2 decimals)."""
        return [int(j) for j in np.flatnonzero(np.round(self.result.heads[head].weights[i], 2))]

    def worked_sum(self, head: int, i: int):
        """Head ``head``'s row i of Z written out in full, Z_h(i) = sum_j alpha_ij V_h[j] over the tokens it weighs:
        «z₁(«ella») = 0.0453·«ladró»(0 0 0 4) + 0.9094·«y»(0 0 0 5) + 0.0453·«ella»(0 0 1 6)», in the head's tint,
        with no stroke: its name under it, over its columns, has one, and the line takes the body's width. Each row of
        V named by its token (review s15: three anonymous vectors); the sum is Concat's row right under it, so the line
        does not write it again (written, it left no room for the names at 16 px). Its weights with the fewest decimals
        (``worked_decimals``) whose sum, done by hand, gives the row as written: 0.05·4 + 0.91·5 + 0.05·6 is 5.05, not
        Concat's 5.00."""
        step = self.result.heads[head]
        tokens = self.contributing(head, i)
        decimals = worked_decimals(step.weights[i, tokens], step.V[tokens], step.output[i])
        terms = [self.labels["value_sum_term"].format(weight=format_number(step.weights[i, j], decimals),
                                                        token=self.quoted(shortened(self.result.labels[j], ROW_NAME_CHARACTERS)),
                                                        values=written_row(step.V[j])) for j in tokens]
        text = self.labels["value_sum"].format(name=self.row_name(head, i), terms=" + ".join(terms))
        return label_text(text, style.HEAD_TEXTS[head], TERM_SIZE)

    @staticmethod
    def written_numbers(values, tag: str, i: int, colours) -> list:
        """A row's numbers, each in its colour, all written one way (``row_decimals``), tagged (tag, (i, j))."""
        decimals = row_decimals(values)
        return [tagged_number(value, tag, (i, j), colour, READOUT_SIZE, decimals)
                for j, (value, colour) in enumerate(zip(values, colours))]

    def term_label(self, head: int, i: int, j: int, width: float, written_out: bool = False) -> VGroup:
        """Head ``head``'s largest term in token i's row of Z, «1.00·V₂(«calmó»)», with «+ …» when the other weights
        add up to something shown: after the head's stroke, no wider than ``width``, its token cut short
        («electroe…») if in full it would not fit, and left out if even cut it would not. ``written_out``: the row
        is written out in full over the terms (``worked_sum``), and its name, «z₁(«ella»)», stands here instead: its
        largest term alone, 0.91·V₁(«y»), repeated the sum in fewer decimals (review s14)."""
        weights = self.result.heads[head].weights[i]
        if written_out:
            texts = [self.row_name(head, i, characters) for characters in TERM_CHARACTERS]
        else:
            rest = self.labels["value_rest"] if round(1 - weights[j], 2) > 0 else ""
            texts = [self.labels["value_term"].format(weight=f"{weights[j]:.2f}", number=head + 1,
                                                      token=self.quoted(shortened(self.result.labels[j], characters)))
                     + rest for characters in TERM_CHARACTERS]
            texts.append(self.labels["value_term_bare"].format(weight=f"{weights[j]:.2f}", number=head + 1) + rest)
        for text in texts:
            term = VGroup(head_swatch(head), label_text(text, style.HEAD_TEXTS[head], TERM_SIZE)) \
                .arrange(RIGHT, buff=SWATCH_GAP)
            if term.width <= width:
                break
        return fit(term, width, term.height)

    def row_name(self, head: int, i: int, characters: int | None = None) -> str:
        """The name of head ``head``'s row for token i, «z₁(«ella»)»: a row of the block Z₁, not Z₁ itself."""
        return self.labels["value_sum_name"].format(number=head + 1,
                                                    token=self.quoted(shortened(self.result.labels[i], characters)))

    @staticmethod
    def magnitude_block(values: np.ndarray, label: str, colour, largest=None, cell_size: float = MAGNITUDE_CELL,
                        text_colour=None) -> HeatBlock:
        """A matrix as cells whose brightness is |value| relative to ``largest`` (by default its largest entry; one
        per column if a sequence), a negative one (as written, to 2 decimals) crossed by a minus bar: its sign, which
        brightness alone loses. Its label legible (``legible_label``), in ``text_colour`` if given (a head's text tint)."""
        values = np.asarray(values, dtype=float)
        largest = np.broadcast_to(largest if largest is not None else style.shared_largest(values) or 1.0,
                                  values.shape[1:])
        block = HeatBlock(values, label, colour, fill=lambda value: style.PANEL, cell_size=cell_size)
        for row, cells in zip(block.values, block.cells):
            for value, cell, scale in zip(row, cells, largest):
                share = abs(value) / scale if scale else 0.0
                cell.set_fill(interpolate_color(style.PANEL, colour, share), opacity=1.0)
                if round(value, 2) < 0:  # the bar a part of its cell: it goes wherever the cell goes
                    cell.add(minus_bar(share, cell_size).move_to(cell))
        legible_label(block.label).set_color(text_colour or colour)
        return block

    def sign_key(self) -> VGroup:
        """A crossed cell and what it means: the Concat and output blocks' negative entries."""
        sample = Square(MAGNITUDE_CELL * 1.5, stroke_color=style.BACKGROUND, stroke_width=1, fill_opacity=1.0,
                        fill_color=style.MUTED)
        sample.add(minus_bar(1.0, MAGNITUDE_CELL * 1.5).move_to(sample))
        return VGroup(sample, label_text(self.labels["negative_cell"], style.TEXT, style.CAPTION_SIZE)) \
            .arrange(RIGHT, buff=0.12)

    @staticmethod
    def slice_columns(whole: HeatBlock, slices) -> list:
        """Animations that cut ``whole`` into ``slices`` of its columns: each cell goes to its place in its
        slice (column j to slice j // width), brackets and labels fade over."""
        width = len(slices[0].cells[0])
        moves = [ReplacementTransform(cell, slices[j // width].cells[i][j % width])
                 for i, row in enumerate(whole.cells) for j, cell in enumerate(row)]
        return [*moves, Vanish(whole.brackets, whole.label),
                *[Appear(piece.brackets, piece.label) for piece in slices]]

    @staticmethod
    def size_block(rows: int, cols: int, label: str, colour, text_colour=None) -> HeatBlock:
        """An evenly filled rows x cols block: a matrix shown only for its number of entries; its label legible, in
        ``text_colour`` if given."""
        block = HeatBlock(np.ones((rows, cols)), label, colour,
                          fill=lambda _: interpolate_color(style.PANEL, colour, SIZE_BLOCK_FILL), cell_size=SIZE_CELL)
        legible_label(block.label).set_color(text_colour or colour)
        return block

    @staticmethod
    def paragraph(text: str, characters: int, font_size: float, colour=style.TEXT):
        """Prose wrapped onto lines of at most ``characters``."""
        return label_text("\n".join(textwrap.wrap(text, characters)), colour, font_size)

    def shape_text(self, rows: int, cols: int):
        return label_text(self.labels["shape"].format(rows=rows, cols=cols), style.MUTED, style.CAPTION_SIZE)

    @staticmethod
    def formula(tex: str) -> MathTex:
        """A formula with its learned matrices (W_Q, W_K^{h}, W_O...) in WEIGHT_MATRIX."""
        weights = sorted(set(LEARNED_MATRIX.findall(tex)), key=len, reverse=True)
        formula = MathTex(tex, substrings_to_isolate=weights, color=style.TEXT, font_size=FORMULA_SIZE)
        for part in weights:
            formula.set_color_by_tex(part, style.WEIGHT_MATRIX)
        return formula

    def closing_picture(self) -> VGroup:
        """Cross-attention, as the closing card says it: the encoder holds the input sentence and gives K and V, the
        decoder gives Q; the formula in the lesson's colours for Q, K and V, an arrow from where each comes."""
        labels = self.labels
        formula = MathTex(CROSS_FORMULA, substrings_to_isolate=CROSS_PARTS, color=style.TEXT,
                          font_size=CROSS_FORMULA_SIZE)
        for part, colour in zip(CROSS_PARTS, (style.QUERY, style.KEY, style.VALUE)):
            formula.set_color_by_tex(part, colour)
        sentence = textwrap.shorten(self.result.sentence, CROSS_SENTENCE_CHARACTERS, placeholder=" …")
        encoder = self.cross_panel(labels["cross_encoder"], self.quoted(sentence))
        decoder = self.cross_panel(labels["cross_decoder"], labels["cross_decoder_text"])
        VGroup(encoder, formula, decoder).arrange(DOWN, buff=0.5)
        arrows = VGroup()
        for part, colour, panel, side in ((CROSS_PARTS[1], style.KEY, encoder, UP),
                                          (CROSS_PARTS[2], style.VALUE, encoder, UP),
                                          (CROSS_PARTS[0], style.QUERY, decoder, DOWN)):
            end = formula.get_part_by_tex(part).get_critical_point(side)
            start = panel.get_critical_point(-side)  # from the panel's edge facing the formula, above or under the part
            start[0] = np.clip(end[0], panel.get_left()[0] + 0.3, panel.get_right()[0] - 0.3)
            arrows.add(Arrow(start, end, color=colour, buff=0.08, stroke_width=4, max_tip_length_to_length_ratio=0.3))
        self.cross_weights = self.cross_grid()
        drawing = VGroup(encoder, decoder, arrows, formula)
        VGroup(drawing, self.cross_weights).arrange(RIGHT, buff=CROSS_GRID_GAP)
        # the sketch's rows its own parts: those that come later are left out as the card comes (closing_hidden)
        return VGroup(*drawing, self.cross_weights.title, self.cross_weights.columns, *self.cross_weights.rows)

    def cross_grid(self) -> VGroup:
        """Cross-attention's weights beside the drawing: one row per token the decoder has written, one column per word
        of the encoder's sentence (their keys). For the lecture's sentence, its English translation names the rows and
        each cell is lit by an illustrative weight (``attn_math.cross``, said to be illustrative in the title); another
        sentence has no translation written (``attn_math.cross``): its rows are the queries q₁, q₂, ... over blank cells, a sketch.
        ``rows``: each row's cells with its label; ``title`` and ``columns``: the title and the words over the cells."""
        tokens = list(self.result.labels)
        translated = illustrative_cross_weights(self.result.sentence, tokens) if len(tokens) <= CROSS_MOST_COLUMNS \
            else None
        if len(tokens) > CROSS_MOST_COLUMNS:  # a sketch: its words stay legible, however long the sentence
            tokens = tokens[:CROSS_MOST_COLUMNS - 1] + ["…"]
        columns = VGroup(*[turned(label_text(shortened(token, CROSS_COLUMN_CHARACTERS), style.KEY, HEATMAP_LABEL_SIZE))
                           for token in tokens])
        side = max(CROSS_GRID_WIDTH / len(tokens), max(column.width for column in columns) + LABEL_GAP / 2)
        if translated:
            names, weights = translated
            labels = [label_text(name, style.QUERY, HEATMAP_LABEL_SIZE) for name in names]
        else:
            weights = np.zeros((CROSS_DECODER_ROWS, len(tokens)))
            labels = [MathTex(f"q_{{{i + 1}}}", color=style.QUERY, font_size=FORMULA_SIZE)
                      for i in range(CROSS_DECODER_ROWS)]
        rows = VGroup(*[VGroup(VGroup(*[Square(side, stroke_color=style.MUTED, stroke_width=1,
                                               fill_color=style.weight_colour(weight), fill_opacity=1.0)
                                        .move_to([j * side, -i * side, 0]) for j, weight in enumerate(row)]), label)
                        for i, (row, label) in enumerate(zip(weights, labels))])
        for cells, label in rows:
            label.next_to(cells, LEFT, buff=0.15)
        for j, column in enumerate(columns):
            column.set_x(rows[0][0][j].get_x()).align_to(rows[0][0], UP).shift(UP * (column.height + LABEL_GAP))
        title = label_text(self.labels["cross_weights_illustrative" if translated else "cross_weights"], style.MUTED,
                           style.CAPTION_SIZE)
        title.next_to(columns, UP, buff=LABEL_GAP).align_to(rows, RIGHT)
        grid = VGroup(title, columns, rows)
        grid.title, grid.columns, grid.rows, grid.weights = title, columns, rows, weights
        return grid

    def closing_hidden(self) -> list:
        """The decoder's rows after the first: they come one by one, as it writes its tokens."""
        return [*self.cross_weights.rows[1:]]

    def closing_moves(self, line: str) -> None:
        """As the statement is said, the decoder's next rows, one token at a time; with the question, as the voice asks
        it, the row being written framed across the whole input sentence: where it looks, the answer."""
        rows = self.cross_weights.rows
        if line == "card":
            for row in rows[1:]:
                self.wait(CROSS_ROW_SECONDS)
                self.play(Appear(row), run_time=QUICK_APPEAR)
        elif line == "question":
            self.play(Create(SurroundingRectangle(rows[-1][0], color=style.HIGHLIGHT, buff=0.04, stroke_width=3)),
                      run_time=QUICK_APPEAR)

    @staticmethod
    def cross_panel(name: str, text: str) -> VGroup:
        """A rounded box holding a part's ``name`` over ``text``."""
        content = VGroup(label_text(name, style.TEXT, style.BODY_SIZE, weight="BOLD"),
                         label_text(text, style.MUTED, style.BODY_SIZE)).arrange(DOWN, buff=0.12)
        box = RoundedRectangle(width=content.width + 0.5, height=content.height + 0.35, corner_radius=0.12,
                               stroke_color=style.MUTED, stroke_width=1.5).move_to(content)
        return VGroup(box, content)

    # Layout ------------------------------------------------------------------------------------
    @staticmethod
    def panels() -> tuple[tuple, tuple]:
        """(left, right, bottom, top) of the arcs panel and of the heatmap panel beside it."""
        left, right, bottom, top = style.body_box()
        split = left + ARCS_SHARE * (right - left)
        return (left, split, bottom, top), (split + PANEL_GAP, right, bottom, top)

    @staticmethod
    def place(group, box: tuple, largest_scale: float = 1.0):
        """Centre ``group`` in ``box``, scaled down if it does not fit."""
        left, right, bottom, top = box
        fit(group, right - left, top - bottom, largest_scale)
        return group.move_to([(left + right) / 2, (bottom + top) / 2, 0])


def minus_bar(share: float, side: float = MAGNITUDE_CELL) -> Line:
    """A minus sign across a cell ``side`` wide lit to ``share`` of its colour: dark on a bright cell, light on a dim one."""
    return Line(LEFT * side * MINUS_BAR / 2, RIGHT * side * MINUS_BAR / 2, stroke_width=MINUS_STROKE,
                color=style.BACKGROUND if share >= 0.5 else style.TEXT)


def link_arrow(x_from: float, x_to: float, top: float, bottom: float) -> VMobject:
    """One of W_O's ones from Concat's row (at ``top``) down to the output's (at ``bottom``): a cubic leaving and
    arriving vertically (its handles LINK_HANDLE of the drop), so near either row it runs between the digits' columns
    and not along them, its head a triangle pointing down. ``get_start``/``get_end`` are its two ends."""
    start, end = np.array([x_from, top, 0.0]), np.array([x_to, bottom, 0.0])
    handle = UP * LINK_HANDLE * (top - bottom)
    link = VMobject(stroke_color=style.WEIGHT_MATRIX, stroke_width=LINK_STROKE)
    link.set_points(np.array([start, start - handle, end + handle, end]))
    link.add(Polygon(end, end + UP * LINK_TIP + LEFT * LINK_TIP_WIDTH / 2, end + UP * LINK_TIP + RIGHT * LINK_TIP_WIDTH / 2,
                     stroke_width=0, fill_color=style.WEIGHT_MATRIX, fill_opacity=1.0))
    return link


def set_apart(left: VGroup, right: VGroup) -> None:
    """``right`` moved right until it starts NOTES_APART after ``left`` ends, if it does not already."""
    overlap = left.get_right()[0] + NOTES_APART - right.get_left()[0]
    if overlap > 0:
        right.shift(RIGHT * overlap)


def widen(line: VGroup, left: float, right: float) -> None:
    """The worked sum's line, fitted to the rows of numbers under it, grown from its bottom edge to the body's width
    (``left`` to ``right``) and kept inside it: the rows of numbers are narrower than the body by the names' margin,
    and at their width the line was 15.8 px tall."""
    if not line:
        return
    line.scale(max(1.0, (right - left) / line.width), about_edge=DOWN)
    line.shift(RIGHT * (max(0.0, left - line.get_left()[0]) - max(0.0, line.get_right()[0] - right)))


def row_decimals(values) -> int:
    """One way of writing a row's numbers: whole numbers when every one is (to 2 decimals), else 2 decimals for all
    (5.00 beside 0.05, never 5 beside 0.05)."""
    return 0 if all(float(round(value, 2)).is_integer() for value in values) else 2


def written_row(values) -> str:
    """A row of numbers as the written-out rows write it (``row_decimals``), space-separated."""
    decimals = row_decimals(values)
    return " ".join(format_number(value, decimals) for value in values)


def worked_decimals(weights, values, output) -> int:
    """The fewest WORKED_DECIMALS at which sum_j weights_j values_j, each weight as written, lands within a quarter of
    the last shown digit of ``output`` (each column): a sum a student does by hand gives the row as written."""
    shown = 10.0 ** -row_decimals(output)
    for decimals in WORKED_DECIMALS:
        written = np.array([parse_number(format_number(weight, decimals)) for weight in weights])
        if np.all(np.abs(written @ np.asarray(values) - output) < shown / 4):
            return decimals
    return WORKED_DECIMALS[-1]


def column_largest(values: np.ndarray) -> np.ndarray:
    """Each column's largest |entry| (1 for an all-zero column): the scale its cells are lit to."""
    largest = np.abs(np.asarray(values, dtype=float)).max(axis=0)
    return np.where(largest > 0, largest, 1.0)


def on_one_baseline(texts) -> None:
    """``texts`` moved up or down onto the first one's baseline, read off their last glyphs (no descender: the «s» of
    «pesos», a digit): their bottoms differ by a parenthesis's descent."""
    baseline = texts[0][-1].get_bottom()[1]
    for text in texts[1:]:
        text.shift(UP * (baseline - text[-1].get_bottom()[1]))


def level_frames(texts) -> VGroup:
    """A highlight frame round each of ``texts``, all as tall as the tallest and level with each other."""
    top = max(text.get_top()[1] for text in texts) + FRAME_BUFF
    bottom = min(text.get_bottom()[1] for text in texts) - FRAME_BUFF
    return VGroup(*[Rectangle(width=text.width + 2 * FRAME_BUFF, height=top - bottom, color=style.HIGHLIGHT,
                              stroke_width=2.5).move_to([text.get_x(), (top + bottom) / 2, 0]) for text in texts])


def in_turn(*animations) -> AnimationGroup:
    """``animations`` one after the other within one play's run time."""
    return AnimationGroup(*animations, lag_ratio=1.0)


def heads_legend(names, template: str, font_size: float = style.BODY_SIZE) -> VGroup:
    """One line per head: a stroke in its colour and ``template`` (its number and name filled in)."""
    lines = VGroup()
    for head, name in enumerate(names):
        text = label_text(template.format(number=head + 1, name=name), style.HEAD_TEXTS[head], font_size)
        lines.add(VGroup(head_swatch(head), text).arrange(RIGHT, buff=SWATCH_GAP))
    return lines.arrange(DOWN, buff=0.2, aligned_edge=LEFT)


def head_swatch(head: int) -> VMobject:
    """A short stroke in head ``head``'s colour and the pattern of its arcs."""
    return dashed(Line(LEFT * 0.3, RIGHT * 0.3, color=style.HEADS[head], stroke_width=8), style.HEAD_DASHES[head])


def head_blocks(result, template: str, cell: float) -> VGroup:
    """The designed heads' weights side by side, each a HeatBlock in its colour labelled ``template`` (its number
    filled in): the illustrative patterns, here and wherever they are compared with other heads."""
    return VGroup(*[HeatBlock(head.weights, template.format(number=index + 1), style.HEAD_TEXTS[index], cell_size=cell)
                    for index, head in enumerate(result.heads)]).arrange(RIGHT, buff=PATTERN_GAP)


def legible_label(label: VMobject) -> VMobject:
    """A matrix's name (A₁, W_Q², Z₁, W_O) grown from its bottom edge to LABEL_CAP_HEIGHT, its subscripts included:
    at the blocks' scale they were 14 px (review s14)."""
    return label.scale(max(1.0, LABEL_CAP_HEIGHT / cap_height(label)), about_edge=DOWN)


def upright_column_labels(heatmap: TokenHeatmap, legible: bool = False) -> TokenHeatmap:
    """The heatmap's column labels on one line, each turned to read upwards from the top of its column, and its
    title over them (``legible``: grown by ``legible_label``): staggered on two lines, they read as a second
    sentence at 480p."""
    top = heatmap.matrix.cell_grid.get_top()[1] + LABEL_GAP
    for j, label in enumerate(heatmap.column_labels):
        turned(label).set_x(heatmap.matrix.cells[0][j].get_x()).align_to([0, top, 0], DOWN)
    if legible:
        legible_label(heatmap.matrix.label)
    heatmap.matrix.label.next_to(heatmap.column_labels, UP, buff=LABEL_GAP)
    return heatmap


def taller_rows(heatmap: TokenHeatmap, spare: float) -> TokenHeatmap:
    """The heatmap's rows stretched down into ``spare`` height, to at most ROW_STRETCH times their width, each row
    label kept centred on its row: the labels, as tall as a square row nearly, get room between them."""
    grid = heatmap.matrix.cell_grid
    stretch = min(ROW_STRETCH, 1 + max(0.0, spare) / grid.height)
    VGroup(grid, heatmap.matrix.brackets).stretch(stretch, 1, about_point=grid.get_top())
    for label, row in zip(heatmap.row_labels, heatmap.matrix.cells):
        label.set_y(row[0].get_y())
    return heatmap


def turned(label):
    """``label`` turned to read upwards. A text's font size is read off its height: turned, its height is its length.
    The glyphs keep their size, and so must the font size read off them (a turned "y" is as legible as one upright)."""
    height = label.height
    label.rotate(PI / 2)
    label.initial_height *= label.height / height
    return label
