"""Section 5, «La capital de ___ es …»: the eight steps of one forward pass with d_model = 3, run for
real by ``attn_math.capital``; then the country changed, its identity dragged from one end to the other,
and the layer norm shown as the step that makes -0.90 differ from the mirror image of +0.90.

The model names its words by their role (``VOCAB``); each is shown as the locale's ``capital.words`` writes it
("The capital of France is …" in English: the same five positions)."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Brace, Create, DashedVMobject, Dot, GrowFromEdge, Line, MathTex,
                   MoveToTarget, Rectangle, ReplacementTransform, RoundedRectangle, SurroundingRectangle, Transform,
                   VGroup, interpolate_color, smooth, squish_rate_func)

from attn_math.capital import COUNTRY_POSITION, D_MODEL, VOCAB, W_K, W_Q, W_V, capital_walkthrough, country_identity
from attn_math.positional import DEFAULT_BASE, angular_frequencies
from lesson.capital_answers import COUNTRY_DIMENSION, PARIS, ROMA, is_tie, question_fields, signed
from lesson.numbers import MINUS, as_read, decimals_for, format_number, parse_number, reproduces, tex_relation
from scenes import style
from sonify.mappings import MAPPINGS, shared_scale, turn
from scenes.bar_chart import BarChart
from scenes.fades import Appear, Vanish
from scenes.lesson_scene import LessonScene
from scenes.heatmap import readable_text_colour
from scenes.visuals import (CELL_HEIGHT, CELL_PADDING, LabelledMatrix, baseline, enlarge_formulas, fit, label_text,
                            number_text, probability_decimals, sit_on, tagged_number)

MIRROR_IDENTITY = 0.9  # the lesson compares p(París) at +0.90 with p(Roma) at -0.90
DRAG_INCREMENT = 0.25  # identity change between two bar updates while dragging
DRAG_SECONDS = 0.4  # per increment: a full sweep from +1 to -1 takes 3.2 s
GLIDE_SHARE = 0.25  # of an increment: the bars reach the value its numbers show by its 4th frame at 30 fps
IDENTITY_DECIMALS = 2  # the slider's readout, and so every identity the drag stops at
BIAS_DECIMALS = 3  # b_out as written: with 0.68, LN(r) W_out + b_out gave 1.486 and p(París) 0.415, not the 0.416 shown
HOLD = 2.0  # seconds an important state stays still
GROWTH = 1.5  # seconds the distribution's bars take to grow: its chord sounds as they land, not 6 s before
CHORD_SECONDS = 1.6  # a distribution's chord as its bars land (step 9)
NUMBERS_PER_OUTPUT_ROW = 2  # a row of W_out or b_out: París's and Roma's numbers, then six zeros
LINE_HEIGHT = 0.55  # strip kept under the body for a worked line
NAME_LINE_PITCH = 0.42  # from the baseline of a country's identity to its name's over it, above step 14's dots
ZERO_TICK = 0.15  # half the height of the zero mark on step 14's number lines
NOTE_HEIGHT = 0.35  # and under a worked line with «≈», for the note saying what it means
CAPTION_CLEARANCE = 0.3  # body_box leaves room for one caption line; a wrapped caption needs this much more
SIGN_SIZE = 40
FORMULA_SIZE = 40  # step 2's PE formula and its worked entry
# Step 2's worked entry of PE: the last word's (pos 4) in dim 2, the slow pair's sine: why that column stays near 0
WORKED_PE = (4, 2)
ANGLE_DECIMALS = 4  # pos/10000^(2i/d) written as 0.0086: at 2 decimals it reads 0.01, the sine's value too
READOUT_SIZE = 32
# The largest |score| or |logit| fills its cell this share of the way to its colour: the digits written on it
# (TEXT) keep a contrast of 4.6:1 there, over WCAG's 4.5:1 (at the full colour, 3.5:1).
FILL_SHARE = 0.8
ROW_APPEARS = 0.2  # seconds a row (or a piece) takes to appear: a fade over seconds reads as a still screen
SCALED_APPEARS = 0.8  # seconds the divided scores take to fade in (after their frame): the step's 1.2 s as before
BOX_MARGIN = 0.12  # frame units a highlight box leaves round its numbers, at most
BOX_CLEARANCE = 0.5  # a box stands halfway from its numbers to the nearest other glyph (or nearer, BOX_MARGIN)
BRACKET_ROOM = 0.08  # a heat-coloured matrix's brackets moved this much out: its filled cells touched them (and K's
# column frame in step 4 touched them beside −0.76)
# W_out and b_out are learned weights like the W's, in their magenta lightened so thin digits read at 4.5:1 or more
WEIGHT_TEXT = interpolate_color(style.WEIGHT_MATRIX, style.TEXT, 0.3)
ROLE_COLOURS = {"Q": style.QUERY, "K": style.KEY, "V": style.VALUE}  # W_Q, W_K, W_V written in Q's, K's, V's colour
# Q's steel blue read at 5.2:1 in thin digits: W_Q's and Q's numbers are written in it lightened (about 7:1)
NUMBER_COLOURS = {**ROLE_COLOURS, "Q": interpolate_color(style.QUERY, style.TEXT, 0.3)}
# Step 3 is the widest screen (X and six matrices side by side): its cells leave this much round their longest number
# (not CELL_PADDING), its column names this much between them, and its matrices stand closer: its digits are 17 px
# at 720p, not 16.5
PROJECTION_PADDING = 0.12
PROJECTION_NAME_ROOM = 0.06
PROJECTION_GAP = 0.3  # frame units between the matrices of step 3, side by side and one over the other
NAME_ROOM = 0.1  # frame units a column's widest name leaves to its neighbours (E's; and so X's cells, one width)
NAMED_PRODUCTS = ("Q", "K")  # the products whose columns have a name: the dims where queries meet keys
# The appendix of Clase 4 runs the forward pass in eight steps; the scene's first nine show them (the logits and
# the distribution are its eighth, "logits, probabilities and loss")
APPENDIX_STEPS = {"embeddings": 1, "positional": 2, "projections": 3, "scores": 4, "softmax": 5, "context": 6,
                  "layer_norm": 7, "logits": 8, "distribution": 8}
APPENDIX_TOTAL = 8
APPENDIX_PARTS = ("logits", "distribution")  # the two steps showing the appendix's eighth: each names its part


class LabelledValue(VGroup):
    """A label and its ``value`` (a number, or a word), which the slider's drag replaces as it ticks."""

    def __init__(self, label, value):
        super().__init__(label, value)
        self.value = value

    def replace_value(self, new) -> None:
        """``new`` where the value was, left-aligned with it."""
        new.move_to(self.value, aligned_edge=LEFT)
        self.remove(self.value)
        self.add(new)
        self.value = new


class IdentitySlider(VGroup):
    """The identity's slider: its ``readout`` left of the ``track`` (stops at Italia, 0, Francia) and its
    ``marker``."""

    def __init__(self, readout: LabelledValue, track: Line, stops: VGroup, marker: Dot):
        super().__init__(readout, VGroup(track, stops, marker))
        self.arrange(RIGHT, buff=0.7)
        self.readout, self.track, self.marker = readout, track, marker


class CapitalScene(LessonScene):
    section_id = "capital"
    STEPS = ("embeddings", "positional", "projections", "scores", "softmax", "context", "layer_norm", "logits",
             "distribution", "other_country", "drag", "undecided", "mirror", "asymmetry")

    def lesson(self):
        self.labels = self.strings["labels"]
        self.walk = capital_walkthrough(self.chosen_identity())
        self.answers = question_fields(self.walk, self.strings["words"], MIRROR_IDENTITY, next_word_decimals())
        walk = self.walk  # the vectors' one scale: a number sounds at one pitch in X, Q, K, V and the context
        self.vector_scale = shared_scale(walk.X, walk.Q, walk.K, walk.V, walk.context)
        self.logits_line = None  # step 12's worked logits, until step 13 comes
        self.show_embeddings()
        self.show_positional()
        self.show_projections()
        self.show_scores()
        self.show_softmax()
        self.show_context()
        self.show_layer_norm()
        self.show_logits()
        self.show_distribution()
        self.show_other_country()
        self.show_drag()
        self.show_undecided()
        self.show_mirror()
        self.show_asymmetry()

    def begin_step(self, key: str, *arguments, **options) -> None:
        self._beginning = key  # _header labels the appendix's step of ``key``
        super().begin_step(key, *arguments, **options)

    def _header(self, title: str, number: int, captions: list[str], burned: bool = True):
        """The header, and for the steps of the appendix's forward pass which of its eight this is, muted under the
        step counter: «Paso 3/14», then «Apéndice, paso 3 de 8» (the seed's «los ocho pasos del apéndice»)."""
        header, later = super()._header(title, number, captions, burned)
        step = APPENDIX_STEPS.get(self._beginning)
        self.appendix_tag = None
        if step is not None:
            counter = header[1]
            text = self.labels["appendix_step"].format(step=step, total=APPENDIX_TOTAL)
            if self._beginning in APPENDIX_PARTS:  # «paso 8 de 8» twice read as a slip: «…: logits», «…: probabilidades»
                text = self.labels["appendix_part"].format(step=text, part=self.labels[f"appendix_{self._beginning}"])
            tag = label_text(text, style.MUTED, style.CAPTION_SIZE)
            tag.next_to(counter, DOWN, buff=0.1).align_to(counter, RIGHT)
            if self.job.config.lecture.clean:
                tag.set_opacity(0)
            header.submobjects[1] = VGroup(counter, tag)
            self.appendix_tag = tag
        return header, later

    def chosen_identity(self) -> float:
        """``capital.identity`` when given, else the identity of ``capital.country``."""
        settings = self.settings
        return settings.identity if settings.identity is not None else country_identity(settings.country)

    # Steps 1-3: embeddings, positions, projections ----------------------------------------------
    def show_embeddings(self):
        walk = self.walk
        self.begin_step("embeddings", identity=signed(walk.identity))
        sentence = label_text(" ".join(self.shown_words(walk.tokens)) + " " + self.labels["ellipsis"], style.TEXT,
                              style.TITLE_SIZE)
        names = self.labels["dimensions"]
        width = max(cell_width(walk.embeddings, walk.positional, walk.X), names_width(names))
        E = labelled(walk.embeddings, "E", style.INPUT, "embeddings", width=width)
        headers = column_names(E, names)
        self.table = VGroup(self.token_labels(E, walk.tokens), E)
        stage = VGroup(sentence, VGroup(self.table, headers)).arrange(DOWN, buff=0.6)
        self.place(stage, largest_scale=1.3)
        self.quickly(Appear(sentence), seconds=1.0)
        self.quickly(Appear(self.table[0]), Appear(E.frame), Appear(headers), seconds=1.2)
        self.reveal_rows(E)
        self.beat("country")  # «el país, el tercero, aquí vale +1.00»: its cell framed as it is said
        self.cue("cell", value=walk.identity, low=-1.0, high=1.0)
        self.play(Create(self.highlight(E, [(COUNTRY_POSITION, COUNTRY_DIMENSION)])), run_time=0.6)
        self.wait(HOLD)

    def show_positional(self):
        walk = self.walk
        self.begin_step("positional")
        width = self.table[1].cell_width
        PE = labelled(walk.positional, "PE", style.INPUT, "positional", width=width)
        sign = tex_relation(walk.X, as_read(walk.embeddings) + as_read(walk.positional))
        self.X = labelled(walk.X, f"X {sign} E + PE", style.INPUT, "X", width=width)
        plus, equals = MathTex("+", font_size=SIGN_SIZE), MathTex(sign, font_size=SIGN_SIZE)
        table = self.base_size_target(self.table)
        table[1].label.next_to(table[1].cell_grid, UP, buff=0.22)
        matrices = VGroup(table, plus, PE, equals, self.X).arrange(RIGHT, buff=0.45, aligned_edge=DOWN)
        for sign in (plus, equals):
            sign.set_y(table[1].cell_grid.get_y())
        formula, worked = pe_formula(), pe_entry(walk.positional)
        self.place(VGroup(formula, matrices, worked).arrange(DOWN, buff=0.45), largest_scale=1.2)
        self.clear_stage(self.table)
        self.beat("formula")  # the formula PE's numbers come from, written as the voice starts on it
        self.play(MoveToTarget(self.table), Appear(formula), run_time=1.0)
        self.quickly(Appear(plus), Appear(PE.frame), seconds=0.5)
        self.reveal_rows(PE)
        self.beat("entry")  # one number of PE worked out from the formula, framed where it stands
        self.play(Create(self.highlight(PE, [WORKED_PE])), Appear(worked), run_time=0.6)
        self.wait(HOLD)
        self.beat("sum")
        self.cue("scale", **self.vector_scale)  # the vectors' scale starts: X, Q, K, V and the context share it
        self.quickly(Appear(equals), Appear(self.X.frame), seconds=0.5)
        self.reveal_rows(self.X, sounded=walk.X[:, COUNTRY_DIMENSION], scale=self.vector_scale)
        self.wait(HOLD)

    def show_projections(self):
        walk = self.walk
        self.begin_step("projections")
        X = self.base_size_target(self.X)
        names = self.labels["dimensions"]
        # The three W's are one quantity, written with one precision: W_V's decimals, not 0 and 2 beside 0.20.
        decimals = max(decimals_for(np.ravel(matrix)) for matrix in (W_Q, W_K, W_V))
        # One cell width for the six: each W stands over its product (W_Q's 0.00 and 2.00 spaced as W_V's −1.00)
        width = max(cell_width(W_Q, W_K, W_V, decimals=decimals, padding=PROJECTION_PADDING),
                    cell_width(walk.Q, walk.K, walk.V, padding=PROJECTION_PADDING),
                    names_width(names, PROJECTION_NAME_ROOM))
        weights = [labelled(matrix, f"W_{role}", ROLE_COLOURS[role], f"W_{role}", decimals=decimals, width=width,
                            text_colour=number_colour(role)) for matrix, role in ((W_Q, "Q"), (W_K, "K"), (W_V, "V"))]
        relations = {role: tex_relation(values, as_read(walk.X) @ weight)
                     for values, weight, role in ((walk.Q, W_Q, "Q"), (walk.K, W_K, "K"), (walk.V, W_V, "V"))}
        self.products = {role: labelled(values, f"{role} {relations[role]} XW_{role}", ROLE_COLOURS[role], role,
                                        width=width, text_colour=number_colour(role))
                         for values, role in ((walk.Q, "Q"), (walk.K, "K"), (walk.V, "V"))}
        for role in NAMED_PRODUCTS:  # where a query meets a key: column 0 is the place asked for, and offered
            name_columns(self.products[role], names)
        columns = VGroup(*[VGroup(weight, product).arrange(DOWN, buff=PROJECTION_GAP)
                           for weight, product in zip(weights, self.products.values())])
        columns.arrange(RIGHT, buff=PROJECTION_GAP, aligned_edge=DOWN)
        for weight in weights[1:]:  # the W's on one line: V, with no names, stands lower than Q and K
            weight.shift(UP * (weights[0].cell_grid.get_y() - weight.cell_grid.get_y()))
        tokens = self.token_labels(X, walk.tokens, size=style.BODY_SIZE)
        VGroup(tokens, X).next_to(columns, LEFT, buff=PROJECTION_GAP).align_to(self.products["Q"], DOWN)
        inputs = self.row_names(weights[0], names, style.MUTED, style.BODY_SIZE)  # a W's rows take X's columns
        rounded = r"\approx" in relations.values()  # the reason for a ≈ beside an = is written under them
        self.place(VGroup(tokens, X, inputs, columns), reserve_bottom=LINE_HEIGHT + 0.2 if rounded else 0.0)
        for row in (weights, list(self.products.values())):  # each row's labels on one line: W_Q's tail lifted it
            for matrix in row[1:]:
                sit_on(matrix.label, baseline(row[0].label))
        note = [self.worked_line(self.labels["approx_note"])] if rounded else []
        self.clear_stage(self.X)
        self.play(MoveToTarget(self.X), Appear(tokens), Appear(inputs), run_time=1.0)
        for weight, product, said in zip(weights, self.products.values(), ("query", "key", "value")):
            if said != "query":  # W_K and W_V said as they are built (W_K's rows filled 4.6 s in silence)
                self.beat(said)
            self.present(weight, numbers=1 if said == "value" else None)  # W_V quickly: it is framed as it is named
            if said == "query":  # «fíjate en la fila del país … de W sub Q», once the first sentence is said
                self.beat(said)
            if said != "value":  # W_Q's and W_K's country row framed as they land: the voice points at each
                self.play(Create(self.highlight(weight, rows=[COUNTRY_DIMENSION])), run_time=0.6)
            else:  # «W sub V sí deja pasar el país»: its country cell framed as that is said, before V is built
                self.play(Create(self.highlight(weight, [(COUNTRY_DIMENSION, COUNTRY_DIMENSION)])), run_time=0.6)
                self.beat("rows")  # what a row of V is, said as V fills row by row (10 s without words before)
            # V's country column, the one heard row by row, framed with V's frame: framed after its last row, it
            # left the step's finished screen 4 s still after the voice (review s14: 3.9 s of dead air)
            along = [Create(self.highlight(product, columns=[COUNTRY_DIMENSION])), *map(Appear, note)] \
                if said == "value" else []
            # V's last row lands with its whole country column heard (the step's last sound, after the voice: not
            # replayed then)
            closing = {"kind": "values", "values": walk.V[:, COUNTRY_DIMENSION].tolist(), "spacing": 0.1,
                       "low": self.vector_scale["low"], "high": self.vector_scale["high"]} if said == "value" else None
            self.present(product, sounded=product.values[:, COUNTRY_DIMENSION],  # the country column as it lands
                         scale=self.vector_scale, numbers=live_columns(product.values), along=along, closing=closing)

    # Steps 4-6: one row of attention --------------------------------------------------------------
    def show_scores(self):
        walk = self.walk
        best = int(np.argmax(walk.scores))
        self.begin_step("scores", top=self.shown_word(walk.tokens[best]))
        K = self.products["K"]
        K_target = self.base_size_target(K)
        for side, bracket in zip((LEFT, RIGHT), K_target.brackets):  # step 3's tight cells: room for a column's frame
            bracket.shift(side * BRACKET_ROOM)
        query = labelled(walk.Q[-1][None], self.of_last("q"), style.QUERY, "q_es", width=K.cell_width,
                         text_colour=number_colour("Q"))
        query.next_to(K_target, UP, buff=0.3).match_x(K_target.cell_grid)
        self.scores = self.score_column(walk.scores, self.of_last("q") + r" \cdot k_j", "scores")
        self.scores.next_to(K_target, RIGHT, buff=0.9).align_to(K_target, DOWN)
        tokens = self.token_labels(K_target, walk.tokens)
        name = self.labels["score_name"].format(token=self.shown_word(walk.tokens[best]))
        line = self.dot_product_line(name, walk.Q[-1], walk.K[best], self.scores.entries[best][0].shown_text)
        self.place(VGroup(tokens, K_target, query, self.scores), reserve_bottom=self.worked_reserve(line))
        last_query = self.products["Q"].row(len(walk.tokens) - 1).copy()
        self.clear_stage(K, self.products["Q"])
        self.play(MoveToTarget(K), Appear(tokens), Vanish(self.products["Q"]),
                  ReplacementTransform(last_query, query.entry_grid), Appear(query.frame), run_time=1.2)
        self.settle(query)
        self.cue("scale", **shared_scale(walk.scores))  # the scores' own scale starts
        self.play(Appear(self.scores.frame), run_time=0.4)
        self.reveal_rows(self.scores, sounded=walk.scores)
        # «su consulta pregunta por un lugar»: the component that makes the top score (q_es's only non-zero one), in
        # q_es and down K's column of that name, framed as it is said
        asked = int(np.argmax(walk.Q[-1] * walk.K[best]))
        self.beat("query")
        self.play(Create(self.highlight(query, [(0, asked)])), Create(self.highlight(K, columns=[asked])),
                  K.headers[asked].animate.set_color(style.HIGHLIGHT), run_time=0.6)
        self.beat("best")  # «la clave con más lugar…»: that key, its score and the worked product
        self.play(Create(self.highlight(K, rows=[best])), Create(self.highlight(self.scores, [(best, 0)])), Appear(line),
                  run_time=0.8)
        self.wait(HOLD + 1.0)

    def show_softmax(self):
        walk = self.walk
        best = int(np.argmax(walk.attention_row))
        self.begin_step("softmax", new_numbers=2 * len(walk.tokens), root=format_number(math.sqrt(walk.K.shape[1])),
                        top=self.shown_word(walk.tokens[best]), weight=format_number(walk.attention_row[best]))
        scores = self.base_size_target(self.scores)
        scaled = self.score_column(walk.scaled, rf"/\sqrt{{{D_MODEL}}}", "scaled")
        columns = VGroup(scores, scaled).arrange(RIGHT, buff=0.6, aligned_edge=DOWN)
        root = root_value(walk.K.shape[1]).next_to(scaled, DOWN, buff=0.3)  # «unos 1.73», written as it is said
        tokens = self.token_labels(scores, walk.tokens)
        chart = BarChart(walk.attention_row, self.shown_words(walk.tokens), style.ATTENTION, height=2.8, bar_width=0.7, gap=0.4,
                         decimals=probability_decimals(walk.attention_row), name="attention")
        arrow = VGroup(MathTex(r"\text{softmax}", color=style.ATTENTION, font_size=style.BODY_SIZE + 4),
                       Arrow(LEFT, RIGHT, color=style.MUTED, buff=0)).arrange(DOWN, buff=0.15)
        self.place(VGroup(VGroup(tokens, columns, root), arrow, chart).arrange(RIGHT, buff=0.7), largest_scale=1.2)
        self.clear_stage(self.scores)
        self.play(MoveToTarget(self.scores), Appear(tokens), run_time=0.8)
        # the divided numbers fade in where they stand, by the scores they come from: a copy of the scores sliding
        # and morphing into them drew two numbers over each other for a second («5.5777», «−2−2.04»: review s14)
        self.play(Appear(scaled.outline), Appear(root), run_time=ROW_APPEARS * 2)
        self.play(Appear(scaled.cell_grid), Appear(scaled.entry_grid), run_time=SCALED_APPEARS)  # colour with value
        self.settle(scaled)
        self.wait(1.0)
        self.quickly(Appear(arrow), Appear(chart.baseline), Appear(chart.labels), seconds=0.6)
        self.cue("row", lands=True, weights=walk.attention_row.tolist())
        # the bars grow in GROWTH, then are read: grown over the whole reading time, their last seconds of easing
        # moved too little to be seen, and the chord sounded after the picture had stopped
        seconds = self.reveal_seconds(len(walk.tokens), fill_after=HOLD)
        self.play(*[GrowFromEdge(bar, DOWN) for bar in chart.bars], Appear(chart.value_texts),
                  run_time=min(GROWTH, seconds))
        # «mira sobre todo a «París»»: its bar framed as that is said (read on screen: halfway through the reading)
        reading = 0.0 if self.spoken() else max(0.0, seconds - GROWTH) / 2
        if reading:
            self.wait(reading)
        self.beat("top")
        others = [*[text for j, text in enumerate(chart.value_texts) if j != best], *chart.labels,
                  *[bar for j, bar in enumerate(chart.bars) if j != best]]
        self.play(Create(frame_between([chart.bars[best], chart.value_texts[best]], others)), run_time=ROW_APPEARS * 2)
        self.wait(reading + HOLD)

    def show_context(self):
        walk = self.walk
        self.begin_step("context", value=format_number(walk.context[COUNTRY_DIMENSION]))
        weights = labelled(walk.attention_row[:, None], r"\alpha_j", style.ATTENTION, "attention",
                           fill=style.weight_colour,
                           text_colour=lambda w: readable_text_colour(style.weight_colour(w)))
        V = labelled(walk.V, "V", style.VALUE, "V")
        V.next_to(weights, RIGHT, buff=0.6).align_to(weights, DOWN)
        sign = tex_relation(walk.context, as_read(walk.attention_row) @ as_read(walk.V))
        self.context = labelled(walk.context[None], self.context_symbol + rf" {sign} \sum_j \alpha_j v_j", style.OUTPUT,
                                "context", width=V.cell_width)
        self.context.next_to(V, DOWN, buff=0.45).match_x(V.cell_grid)
        tokens = self.token_labels(weights, walk.tokens)
        line = self.dot_product_line(self.labels["context_name"], walk.attention_row, walk.V[:, COUNTRY_DIMENSION],
                                     self.context.entries[0][COUNTRY_DIMENSION].shown_text)
        self.place(VGroup(tokens, weights, V, self.context), reserve_bottom=self.worked_reserve(line))
        self.clear_stage()
        self.quickly(Appear(tokens), seconds=0.4)
        self.present(weights)
        self.beat("mix")
        self.present(V)
        self.beat("context")
        self.play(Appear(self.context.frame), run_time=0.4)
        for index, entry in enumerate(self.context.entries[0]):
            self.blip(walk.context, index, self.vector_scale)
            self.quickly(Appear(entry), seconds=0.5)
        self.settle(self.context)
        self.play(Create(self.highlight(weights, columns=[0])), Create(self.highlight(V, columns=[COUNTRY_DIMENSION])),
                  Create(self.highlight(self.context, [(0, COUNTRY_DIMENSION)])), Appear(line), run_time=0.8)
        self.wait(HOLD + 1.0)

    # Steps 7-9: layer norm, logits, distribution ------------------------------------------------------
    def show_layer_norm(self):
        walk = self.walk
        self.begin_step("layer_norm", new_numbers=3 * D_MODEL + 2)  # x_es, r, its mean and spread, LN(r)
        context = labelled(walk.context[None], self.context_symbol, style.OUTPUT, "context")
        x_es = labelled(walk.X[-1][None], self.of_last("x"), style.INPUT, "x_es")
        residual = labelled(walk.residual[None], "r", style.OUTPUT, "residual")
        sign = tex_relation(walk.normalized, (as_read(walk.residual) - as_read(walk.residual_mean))
                            / as_read(walk.residual_spread))
        self.normalized = labelled(walk.normalized[None], rf"\mathrm{{LN}}(r) {sign} (r - \mu) / \sigma",
                                   style.OUTPUT, "normalized")
        notes = [self.rounding_note()] if sign == r"\approx" else []  # (1.18 − 0.36)/0.76 is 1.08, LN(r) shows 1.07
        plus = MathTex("+", font_size=SIGN_SIZE)
        equals = MathTex(tex_relation(walk.residual, as_read(walk.context) + as_read(walk.X[-1])), font_size=SIGN_SIZE)
        sum_row = VGroup(context, plus, x_es, equals, residual).arrange(RIGHT, buff=0.4, aligned_edge=DOWN)
        for sign in (plus, equals):
            sign.set_y(context.cell_grid.get_y())
        mean, spread = walk.residual_mean, walk.residual_spread
        statistics = VGroup(self.reading(self.labels["mean"], mean, "mean"),
                            self.reading(self.labels["spread"], spread, "spread")).arrange(RIGHT, buff=1.2)
        sit_on(statistics[1], baseline(statistics[0].value))  # centred, μ's tail would lift its reading
        self.place(VGroup(sum_row, statistics, self.normalized).arrange(DOWN, buff=0.6), largest_scale=1.2,
                   reserve_bottom=NOTE_HEIGHT + 0.2 if notes else 0.0)
        self.clear_stage(self.context)
        self.play(ReplacementTransform(self.context, context), run_time=0.8)
        self.quickly(Appear(plus), Appear(x_es), seconds=0.6)
        self.cue_vector(walk.residual)  # r, a vector of the stream as X and the context: on their scale
        self.quickly(Appear(equals), Appear(residual), seconds=0.8)
        self.wait(1.0)
        for reading, said in zip(statistics, ("mean", "spread")):  # each as the voice names it
            self.beat(said)
            self.quickly(Appear(reading), seconds=0.6)
        self.beat("normalized")
        self.cue_vector(walk.normalized)  # LN(r) on r's scale, as it has appeared: drawn in to a stable one
        self.quickly(Appear(self.normalized), *map(Appear, notes),
                     seconds=self.reveal_seconds(D_MODEL, fill_after=0.5 + HOLD))
        self.play(Create(self.highlight(self.normalized, [(0, COUNTRY_DIMENSION)])), run_time=0.5)
        self.wait(HOLD)

    def show_logits(self):
        """LN(r) (1 x 3) times W_out (3 x 8), plus b_out, gives the logits (1 x 8): rows, as Q = X W_Q.

        The word of each column is written above W_out; b_out and the logits line up under its columns."""
        walk = self.walk
        self.begin_step("logits", new_numbers=len(VOCAB) * (D_MODEL + 2))  # W_out, b_out and the logits
        width = max(cell_width(walk.W_out, walk.logits), cell_width(walk.b_out, decimals=BIAS_DECIMALS))
        normalized = labelled(walk.normalized[None], r"\mathrm{LN}(r)", style.OUTPUT, "normalized")
        W_out = labelled(walk.W_out, r"W_{\text{out}}", WEIGHT_TEXT, "W_out", width=width)
        bias = labelled(walk.b_out[None], r"b_{\text{out}}", WEIGHT_TEXT, "b_out", width=width,
                        decimals=BIAS_DECIMALS)
        largest = float(np.abs(walk.logits).max())
        logits = labelled(walk.logits[None], r"\text{logits}", style.TEXT, "logits", width=width,
                          fill=lambda value: style.score_colour(value, largest / FILL_SHARE))
        words = VGroup(*[label_text(word, style.TEXT, style.CAPTION_SIZE).next_to(W_out.brackets, UP, buff=0.15)
                         .match_x(W_out.cells[0][j]) for j, word in enumerate(self.shown_words(VOCAB))])
        for word in words:  # on one baseline, descenders or not
            sit_on(word, baseline(words[0]))
        W_out.label.next_to(words, UP, buff=0.2)
        equals = tex_relation(walk.logits,
                              as_read(walk.normalized) @ as_read(walk.W_out) + as_read(walk.b_out, BIAS_DECIMALS))
        times, plus, equals = (MathTex(sign, font_size=SIGN_SIZE) for sign in (r"\cdot", "+", equals))
        column = VGroup(VGroup(W_out, words), bias, logits).arrange(DOWN, buff=0.35, aligned_edge=LEFT)
        for sign, row in ((plus, bias), (equals, logits)):
            sign.next_to(row.brackets[0], LEFT, buff=0.3).set_y(row.cell_grid.get_y())
        VGroup(normalized, times).arrange(RIGHT, buff=0.3).next_to(W_out.brackets[0], LEFT, buff=0.3)
        middle = W_out.cell_grid.get_y()  # LN(r)'s row, the sign and W_out's middle row on one line
        normalized.shift(UP * (middle - normalized.cell_grid.get_y()))
        times.set_y(middle)
        purpose = self.bias_note().next_to(plus, LEFT, buff=0.3)
        null_cells = VGroup(*[logits.cells[0][j] for j in range(len(VOCAB)) if j not in (PARIS, ROMA)])
        brace = Brace(null_cells, DOWN, color=style.MUTED)
        note = label_text(self.labels["null_vector"], style.TEXT, style.BODY_SIZE).next_to(brace, DOWN, buff=0.15)
        self.place(VGroup(normalized, times, column, plus, purpose, equals, brace, note), largest_scale=1.2)
        self.clear_stage(self.normalized)
        self.play(ReplacementTransform(self.normalized, normalized), Appear(times), run_time=1.0)
        self.quickly(Appear(words), seconds=0.6)
        # A row of W_out or b_out is read as its two numbers among zeros (the null columns read at a glance)
        self.present(W_out, numbers=NUMBERS_PER_OUTPUT_ROW)
        self.beat("columns")  # «solo las columnas de París y Roma tienen números»
        self.play(*[Create(self.highlight(W_out, columns=[j])) for j in (PARIS, ROMA)], run_time=0.6)
        self.beat("bias")  # «puesto para que sin país haya empate»: why, written by it
        self.play(Appear(plus), Appear(purpose), run_time=0.3)
        self.present(bias, numbers=NUMBERS_PER_OUTPUT_ROW)
        self.beat("logits")  # «y salen los ocho logits; escucha»: their frame, then their notes in the clear
        self.cue("scale", **shared_scale(walk.logits))  # the logits' own scale starts
        self.quickly(Appear(equals), Appear(logits.frame), seconds=0.5)
        seconds = self.reveal_seconds(len(VOCAB), fill_after=0.6 + HOLD)  # read silently, the logits fill the step
        with self.listening():  # one note per logit as it appears, each appearing at once, framed as it sounds
            self.cue("values", values=walk.logits.tolist(), spacing=seconds / len(VOCAB), **shared_scale(walk.logits))
            self.reveal_marked(logits, [[entry] for entry in logits.entry_grid], seconds / len(VOCAB))
        self.settle(logits)
        self.beat("brace")
        self.quickly(Appear(brace), Appear(note), seconds=0.6)
        self.wait(HOLD)

    def bias_note(self):
        """What b_out is for: without a country the layer norm leaves LN(r)₂ at −0.22, not 0 (it subtracts the mean of
        the place and role numbers too), which would lean to Roma; b_out = −LN(r) W_out there cancels it: a tie."""
        blank = capital_walkthrough(0.0)
        text = self.labels["bias_note"].format(country=format_number(blank.normalized[COUNTRY_DIMENSION]))
        return label_text(text, style.TEXT, style.CAPTION_SIZE)

    def show_distribution(self):
        walk = self.walk
        strings = self.strings["steps"]["distribution"]
        self.begin_step("distribution", caption=strings["caption_tie"] if is_tie(walk) else strings["caption"],
                        new_numbers=len(VOCAB) + 2, prediction=self.shown_word(walk.prediction),  # the bars, p and -ln p
                        probability=format_number(walk.probability, next_word_decimals()),  # as the readout
                        loss=format_number(walk.loss))
        self.chart = self.distribution_chart(walk)
        self.readouts = self.readout_panel(walk)
        self.place(VGroup(self.chart, self.readouts).arrange(RIGHT, buff=1.0), largest_scale=1.2)
        self.prediction_frame = self.frame_for(walk)
        self.clear_stage()
        self.quickly(Appear(self.chart.baseline), Appear(self.chart.labels), seconds=0.6)
        seconds = self.reveal_seconds(len(VOCAB), fill_after=0.8 + HOLD)  # the step's reading time, as before
        self.cue_distribution(walk, seconds=CHORD_SECONDS, lands=True)
        self.play(*[GrowFromEdge(bar, DOWN) for bar in self.chart.bars], Appear(self.chart.value_texts),
                  run_time=GROWTH)
        prediction, probability, loss = self.readouts
        self.beat("prediction")  # «la predicción es París, con 0.416»: the voice goes on from the softmax to them
        self.play(Appear(prediction), Appear(probability), Create(self.prediction_frame), run_time=0.8)
        self.wait(seconds - GROWTH)  # the bars' reading time (always longer than GROWTH), as that phrase is said
        box = self.number_box(probability.value)  # round the number only: its label reaches the frame's edge
        self.beat("if_right")  # «si acierta»: p, the probability the loss is taken of
        self.play(Create(box), run_time=0.6)
        self.beat("loss")  # «la pérdida es menos su logaritmo»: −ln p, from p
        self.play(Appear(loss), ReplacementTransform(box, self.number_box(loss.value)), run_time=0.8)
        self.wait(HOLD)

    # Step 10: the other country ------------------------------------------------------------------------
    def show_other_country(self):
        walk = self.walk
        other = capital_walkthrough(-1.0 if walk.identity > 0 else 1.0)
        self.begin_step("other_country", new_numbers=2 * (len(walk.tokens) + D_MODEL + 2),  # a panel per country
                        with_header=self.stage_leaving())
        left, right = self.country_panel(walk, ""), self.country_panel(other, "other_")
        VGroup(left, right).arrange(RIGHT, buff=2.4, aligned_edge=UP)
        level_rows(left, right)
        same_label_size(left.chart, right.chart)
        same = self.between(left.chart, right.chart, "=", self.labels["same_row"])
        different = self.between(left.context, right.context, r"\neq", self.labels["different_content"])
        self.place(VGroup(left, right, same, different))
        self.clear_stage()
        self.quickly(Appear(VGroup(left.title, left.chart, left.context)), seconds=0.7)
        self.quickly(Appear(right.title), Appear(right.chart), seconds=0.7)  # as «con otro país» is said
        self.beat("same")  # «la fila de atención de «es» es idéntica»
        self.quickly(Appear(same), seconds=0.6)
        self.wait(1.5)
        self.beat("travels")  # «cambia lo que viaja en los valores, el tercer número del contexto»
        seconds = self.reveal_seconds(D_MODEL, fill_after=1.6 + HOLD)  # its numbers one by one, the country's last
        context = right.context
        self.reveal_marked(context, [[context.frame, context.entries[0][0]], *[[entry] for entry in context.entries[0][1:]]],
                           seconds / D_MODEL)
        self.settle(context)
        boxes = [Create(self.highlight(panel.context, [(0, COUNTRY_DIMENSION)])) for panel in (left, right)]
        self.play(Appear(different), *boxes, run_time=0.8)
        self.beat("decides")  # «la atención decide a quién mirar»: the two rows framed
        self.play(*[Create(SurroundingRectangle(panel.chart, color=style.HIGHLIGHT, buff=0.12, corner_radius=0.06))
                    for panel in (left, right)], run_time=0.6)
        self.beat("brings")  # «los valores, qué se trae»: what each context predicts
        # Each country's chord as its prediction lands, left then right, the second once the first has ended
        self.cue_distribution(walk, seconds=0.8, lands=True)
        self.play(Appear(left.prediction), run_time=ROW_APPEARS)
        self.wait(self.last_cue_turn() - ROW_APPEARS)
        self.cue_distribution(other, seconds=0.8, lands=True)
        self.quickly(Appear(right.prediction), seconds=0.8)
        self.wait(HOLD)

    # Steps 11-13: dragging the identity -------------------------------------------------------------------
    def show_drag(self):
        start = self.walk.identity
        near, far = (1.0, -1.0) if start >= 0 else (-1.0, 1.0)
        strings = self.strings["steps"]["drag"]
        self.begin_step("drag", caption=strings["caption"] if far < 0 else strings["caption_toward_francia"],
                        start=signed(near), end=signed(far))
        self.build_drag_stage(self.walk)
        self.wait(1.0)
        with self.listening():  # París's and Roma's voices moving in the chord, as their bars do
            self.drag_to(near)
            self.drag_to(far)
        self.sweep_marks = self.moved_bars(capital_walkthrough(near))
        self.beat("swept")  # «París bajó y Roma subió»: where their bars stood, and which way they went
        self.play(*map(Create, self.sweep_marks), run_time=0.8)
        rest = [j for j in range(len(VOCAB)) if j not in (PARIS, ROMA)]
        chart = self.chart
        moved = [part for j in (PARIS, ROMA) for part in (chart.bars[j], chart.value_texts[j])]
        together = frame_between([VGroup(chart.bars[j], chart.value_texts[j]) for j in rest], [*chart.labels, *moved])
        self.beat("together")  # «mientras las otras seis palabras … se movieron juntas»
        self.play(Create(together), run_time=0.6)
        self.sweep_marks.add(together)
        self.wait(HOLD)

    def moved_bars(self, start) -> VGroup:
        """París's and Roma's bars as they stood at ``start`` (dashed), each with an arrow from that height to the
        one it has now: down through the emptied outline to the value now written, or up inside the bar (dark on it).
        An outline a bar fell from is as wide as the value now written in it and a margin: its sides pass by the
        digits, not through them."""
        chart, marks = self.chart, VGroup()
        bottom = chart.baseline.get_y()
        for j in (PARIS, ROMA):
            bar, value = chart.bars[j], chart.value_texts[j]
            height = chart._height(start.probs[j], chart.scale_factor)
            fell = bar.get_top()[1] < bottom + height
            width = max(bar.width, value.width + 2 * BOX_MARGIN) if fell else bar.width
            ghost = Rectangle(width=width, height=height, color=style.HIGHLIGHT, stroke_width=2)
            ghost.move_to([bar.get_x(), bottom, 0], aligned_edge=DOWN)
            end = value.get_top()[1] + 0.08 if fell else bar.get_top()[1] - 0.05
            arrow = Arrow([bar.get_x(), bottom + height, 0], [bar.get_x(), end, 0], buff=0, stroke_width=4,
                          color=style.HIGHLIGHT if fell else style.BACKGROUND, max_tip_length_to_length_ratio=0.2)
            marks.add(DashedVMobject(ghost, num_dashes=24), arrow)
        return marks

    def show_undecided(self):
        self.begin_step("undecided")
        self.drag_to(0.0, Vanish(self.sweep_marks))  # heard before the voice, which waits for identity 0 to be reached
        self.logits_line = self.undecided_logits(capital_walkthrough(0.0))  # it leaves as the next step comes
        self.beat("zero")  # «los ocho logits valen cero»: why, in step 8's numbers, as it is said
        self.quickly(Appear(self.logits_line), seconds=0.4)
        self.wait(HOLD)
        equal_bars = frame_between([VGroup(bar, value) for bar, value in zip(self.chart.bars, self.chart.value_texts)],
                                   list(self.chart.labels))  # the eight equal bars and their values
        self.play(Create(equal_bars), run_time=1.0)  # the eight equal values the caption reads
        self.wait(HOLD)
        self.beat("tie")  # the frame leaves once the tie it marks has been talked about
        self.play(Vanish(equal_bars), run_time=0.4)

    def undecided_logits(self, walk):
        """"sin país, LN(r)₂ = −0.22 → logits: París = −0.22·3.10 + 0.684 = 0.00 · Roma = …": without a country,
        LN(r)'s country number times W_out's country row cancels b_out (only that row of W_out is not zero; the other
        six words' columns are null, step 8), "≈" when the numbers written do not give the logit written."""
        country = walk.normalized[COUNTRY_DIMENSION]

        def written_sum(word: int) -> str:
            weight, bias = walk.W_out[COUNTRY_DIMENSION, word], walk.b_out[word]
            relation = "=" if reproduces(walk.logits[word], as_read(country) * as_read(weight)
                                         + as_read(bias, BIAS_DECIMALS), 2) else "≈"
            sign = "+" if bias >= 0 else "−"
            return (f"= {format_number(country)}·{parenthesised(weight)} {sign} "
                    f"{format_number(abs(bias), BIAS_DECIMALS)} {relation} {format_number(walk.logits[word])}")

        return self.worked_line(self.labels["undecided_logits"].format(
            country=format_number(country), paris=self.shown_word(walk.vocab[PARIS]), paris_sum=written_sum(PARIS),
            roma=self.shown_word(walk.vocab[ROMA]), roma_sum=written_sum(ROMA)))

    def show_mirror(self):
        plus, minus = (capital_walkthrough(sign * MIRROR_IDENTITY) for sign in (1, -1))
        self.begin_step("mirror", with_header=[Vanish(self.logits_line)] if self.logits_line else [],
                        plus=signed(plus.identity), minus=signed(minus.identity),
                        paris=format_number(plus.probs[PARIS], next_word_decimals()),
                        roma=format_number(minus.probs[ROMA], next_word_decimals()))
        plus_reading, minus_reading = self.mirror_readings
        self.drag_to(plus.identity)
        self.beat("plus")  # París's reading said as it is written
        self.quickly(Appear(plus_reading), Create(self.slider_mark(plus.identity)), seconds=0.6)
        self.wait(HOLD)
        self.beat("minus")  # the mirror's question asked as it is written, its number left to find: p(Roma) en −0.90 =
        self.quickly(Appear(minus_reading[0]), Create(self.slider_mark(minus.identity)), seconds=0.6)
        with self.listening():  # the drag to Roma's side heard in the clear, as the first drag was
            self.drag_to(minus.identity)
        self.beat("roma")  # and answered as Roma's number is written
        self.quickly(Appear(minus_reading.value), seconds=0.6)
        self.wait(HOLD + 1.0)

    def mirror_reading_rows(self) -> VGroup:
        """"p(París) en 0.90 = 0.38" and "p(Roma) en −0.90 = 0.34", shown one after the other."""
        rows = VGroup()
        for sign, word, key in ((1, PARIS, "paris_reading"), (-1, ROMA, "roma_reading")):
            walk = capital_walkthrough(sign * MIRROR_IDENTITY)
            label = self.labels[key].format(identity=signed(walk.identity))
            rows.add(self.reading(label + " =", walk.probs[word], f"mirror_{key}", size=style.BODY_SIZE,
                                  decimals=next_word_decimals()))
        return rows.arrange(DOWN, aligned_edge=LEFT, buff=0.25)

    # Step 14: the cause ------------------------------------------------------------------------------------
    def show_asymmetry(self):
        walks = [capital_walkthrough(identity) for identity in (-MIRROR_IDENTITY, 0.0, MIRROR_IDENTITY)]
        spreads = [walk.residual_spread for walk in walks]
        self.begin_step("asymmetry", plus=signed(MIRROR_IDENTITY), minus=signed(-MIRROR_IDENTITY),
                        spread_plus=format_number(spreads[2]), spread_minus=format_number(spreads[0]))
        figure = self.asymmetry_figure(walks)
        self.place(figure, largest_scale=1.2)
        self.clear_stage()
        for part in figure:
            self.quickly(Appear(part), seconds=1.8)
        divisors = figure[1][1]
        self.play(*[Create(SurroundingRectangle(divisors[i], color=style.HIGHLIGHT, buff=0.1, corner_radius=0.06))
                    for i in (0, len(divisors) - 1)], run_time=0.8)
        self.wait(HOLD + 1.5)

    def asymmetry_figure(self, walks) -> VGroup:
        """Two number lines of the country dimension for -0.90, 0 and +0.90: after subtracting the mean
        the two steps are equal, after dividing by the spread they are not."""
        centred = [walk.residual[COUNTRY_DIMENSION] - walk.residual_mean for walk in walks]
        normalized = [walk.normalized[COUNTRY_DIMENSION] for walk in walks]
        spreads = [walk.residual_spread for walk in walks]
        unit = 9.0 / (max(centred + normalized) - min(centred + normalized))
        origin = min(centred + normalized)
        before = self.number_line(centred, origin, unit, "centred", UP)
        after = self.number_line(normalized, origin, unit, "normalized", DOWN).shift(2.6 * DOWN)
        arrows, divisors = VGroup(), VGroup()
        for i, spread in enumerate(spreads):
            arrow = Arrow(before.dots[i].get_center(), after.dots[i].get_center(), color=style.MUTED, buff=0.15,
                          stroke_width=3, max_tip_length_to_length_ratio=0.12)
            divisor = self.reading("÷", spread, "spread_divisor", index=i, size=style.BODY_SIZE)
            arrows.add(arrow)
            divisors.add(divisor.next_to(arrow.get_center(), RIGHT, buff=0.2))
        names = VGroup(*[self.identity_name(walk, i).next_to(before.dots[i], UP, buff=0.55)
                         for i, walk in enumerate(walks)])
        winners = VGroup()
        for i, walk in enumerate(walks):
            word = ROMA if walk.identity < 0 else PARIS
            label = f"p({self.shown_word(VOCAB[word])})" if walk.identity else "p"
            winners.add(self.reading(f"{label} =", walk.probs[word], "winner", index=i, size=style.CAPTION_SIZE,
                                     decimals=next_word_decimals())
                        .next_to(after.dots[i], DOWN, buff=0.7))
        left_edge = min(before.get_left()[0], after.get_left()[0]) - 0.5
        dimension = COUNTRY_DIMENSION  # counted from 0, as the PE table and the captions count dimensions
        row_titles = VGroup(self.line_title(rf"(r - \mu)_{dimension}", self.labels["before_spread"]),
                            self.line_title(rf"\mathrm{{LN}}(r)_{dimension}", self.labels["after_spread"]))
        for title, line in zip(row_titles, (before, after)):
            title.next_to([left_edge, line.get_y(), 0], LEFT, buff=0)
        return VGroup(VGroup(names, before, row_titles[0]), VGroup(arrows, divisors),
                      VGroup(after, row_titles[1]), winners)

    def number_line(self, values, origin: float, unit: float, name: str, gap_side) -> VGroup:
        """A line with a dot per value, the two gaps between neighbouring dots written beside it and its zero marked
        on the other side: without the zero a dot's position could only be guessed (review s16 read «sin país 0.00»
        over a dot at −0.17 as that dot's coordinate)."""
        xs = [(value - origin) * unit for value in values]
        zero = -origin * unit
        line = Line([min(xs + [zero]) - 0.6, 0, 0], [max(xs + [zero]) + 0.6, 0, 0], color=style.MUTED, stroke_width=3)
        dots = VGroup(*[Dot([x, 0, 0], radius=0.11, color=style.HIGHLIGHT) for x in xs])
        gaps = VGroup()
        for i in range(len(values) - 1):
            gap = number_text(values[i + 1] - values[i], style.TEXT, style.CAPTION_SIZE)
            gap.tag = (f"{name}_gap", (0, i))
            gaps.add(gap.next_to([(xs[i] + xs[i + 1]) / 2, 0, 0], gap_side, buff=0.25))
        tick = Line([zero, -ZERO_TICK, 0], [zero, ZERO_TICK, 0], color=style.MUTED, stroke_width=3)
        zero_mark = VGroup(tick, label_text("0", style.MUTED, style.CAPTION_SIZE).next_to(tick, -gap_side, buff=0.1))
        group = VGroup(line, dots, gaps, zero_mark)
        group.dots, group.zero = dots, tick
        return group

    def line_title(self, formula: str, note: str) -> VGroup:
        return VGroup(MathTex(formula, color=style.OUTPUT, font_size=style.BODY_SIZE + 4),
                      label_text(note, style.MUTED, style.CAPTION_SIZE)).arrange(DOWN, buff=0.12)

    def identity_name(self, walk, index: int) -> VGroup:
        """"Italia" over "identidad −0.90" above a dot: the number named as the identity, not read as the dot's
        position (review s16 read «sin país 0.00» over a dot at −0.17 as its coordinate)."""
        value = self.reading(self.labels["identity_value"], walk.identity, "mirror_identity", index=index,
                             size=style.CAPTION_SIZE)
        name = label_text(self.place_name(walk.identity), style.TEXT, style.CAPTION_SIZE)
        return VGroup(sit_on(name, baseline(value[0]) + NAME_LINE_PITCH), value)

    def place_name(self, identity: float) -> str:
        """The country an identity leans to, as the locale writes it; "sin país" at 0."""
        return self.labels["blank"] if identity == 0 else self.shown_word("france" if identity > 0 else "italy")

    # The drag stage: slider, distribution and readouts ------------------------------------------------
    def build_drag_stage(self, walk):
        self.slider = self.identity_slider(walk.identity)
        self.chart = self.distribution_chart(walk)
        self.readouts = self.readout_panel(walk)
        self.mirror_readings = self.mirror_reading_rows()
        right = VGroup(self.readouts, self.mirror_readings).arrange(DOWN, aligned_edge=LEFT, buff=0.6)
        lower = VGroup(self.chart, right).arrange(RIGHT, buff=1.0)
        stage = VGroup(self.slider, lower).arrange(DOWN, buff=0.8)
        self.place(stage, largest_scale=1.2)
        self.drag_scale = self.stage_scale
        self.current_identity = walk.identity
        self.prediction_frame = self.frame_for(walk)
        self.clear_stage()
        self.cue_distribution(walk, seconds=1.0, lands=True)  # as the chart has appeared, not over the last screen
        self.play(Appear(self.slider), Appear(self.chart), Appear(self.readouts), Appear(self.prediction_frame),
                  run_time=1.0)

    def identity_slider(self, identity: float) -> "IdentitySlider":
        """A track from Italia (-1) to Francia (+1) with a marker, and the identity written at its left."""
        track = Line(3 * LEFT, 3 * RIGHT, color=style.MUTED, stroke_width=4)
        stops = VGroup()
        for value in (-1.0, 0.0, 1.0):
            tick = Line(0.12 * DOWN, 0.12 * UP, color=style.MUTED, stroke_width=3).move_to(track_point(track, value))
            name = label_text(self.place_name(value), style.MUTED, style.CAPTION_SIZE).next_to(tick, DOWN, buff=0.15)
            stops.add(VGroup(tick, name))
        marker = Dot(track_point(track, identity), radius=0.14, color=style.HIGHLIGHT)
        readout = self.reading(self.labels["identity"], identity, "identity", decimals=IDENTITY_DECIMALS)
        return IdentitySlider(readout, track, stops, marker)

    def slider_mark(self, identity: float) -> Line:
        """A tick left on the track where a reading was taken."""
        mark = Line(0.22 * DOWN, 0.22 * UP, color=style.HIGHLIGHT, stroke_width=3).scale(self.drag_scale)
        return mark.move_to(track_point(self.slider.track, identity))

    def drag_to(self, target: float, *leaving):
        """Move the identity to ``target`` in small increments. At each, the slider's marker and every number (the
        slider's readout, the bars' values, the panel) take the new identity at once, on the increment's first frame,
        as its chord sounds: the knob stands where its readout says on every frame (it glided there behind the
        readout); the bars and the prediction's frame glide there in the increment's first GLIDE_SHARE: no frame
        shows numbers of two identities. ``leaving`` (Vanish animations) play with the first increment."""
        for identity in drag_path(self.current_identity, target):
            walk = capital_walkthrough(identity)
            self.cue_distribution(walk, seconds=DRAG_SECONDS)
            self.update_readouts(walk)
            self.slider.marker.move_to(track_point(self.slider.track, identity))
            self.play(*numbers_written_at_once(self.chart.change_to(walk.probs)),
                      Transform(self.prediction_frame, self.frame_for(walk)), *leaving, run_time=DRAG_SECONDS,
                      rate_func=glide)
            self.current_identity, leaving = identity, ()

    def update_readouts(self, walk):
        """Write the identity, the prediction, its probability and the loss of ``walk``: they tick like a
        counter, since morphing one number into the next every few tenths of a second is unreadable."""
        fresh = [tagged_number(walk.identity, "identity", decimals=IDENTITY_DECIMALS), *self.readout_values(walk)]
        for holder, new in zip([self.slider.readout, *self.readouts], fresh):
            if holder.value.shown_text != new.shown_text:
                holder.replace_value(new.scale(self.drag_scale))

    # Shared pieces of this section -------------------------------------------------------------------------
    def distribution_chart(self, walk) -> BarChart:
        """The next word's distribution; its values keep the tie's decimals (1/8 as 0.125) all along the drag,
        so a number never changes width mid-drag and the tie's eight values visibly sum to 1."""
        ceiling = max(capital_walkthrough(end).probability for end in (-1.0, 1.0))
        return BarChart(walk.probs, self.shown_words(VOCAB), style.OUTPUT, height=3.0, bar_width=0.6, gap=0.5,  # room between "0.125"s
                        max_value=math.ceil(ceiling * 10) / 10,
                        decimals=next_word_decimals(), name="probs")

    def readout_values(self, walk) -> list:
        """The predicted word ("empate" on a tie), its probability and the loss -ln p."""
        word = self.labels["tie"] if is_tie(walk) else self.shown_word(walk.prediction)
        return [label_text(word, style.TEXT, READOUT_SIZE),
                tagged_number(walk.probability, "probability", font_size=READOUT_SIZE, decimals=next_word_decimals()),
                tagged_number(walk.loss, "loss", font_size=READOUT_SIZE)]

    def readout_panel(self, walk) -> VGroup:
        """Prediction, its probability and the loss -ln p, each under its label."""
        rows = VGroup()
        for key, value in zip(("prediction", "probability", "loss"), self.readout_values(walk)):
            name = VGroup(label_text(self.labels[key], style.MUTED, style.CAPTION_SIZE))
            if key == "loss":  # ln typeset as math: in the text font it reads "In"
                name.add(MathTex(r"-\ln p", color=style.MUTED, font_size=style.CAPTION_SIZE + 6))
                name.arrange(RIGHT, buff=0.12)
                sit_on(name[1], baseline(name[0]))
            rows.add(LabelledValue(name, value).arrange(DOWN, aligned_edge=LEFT, buff=0.2))  # room for a frame
        return rows.arrange(DOWN, aligned_edge=LEFT, buff=0.4)

    def frame_for(self, walk) -> SurroundingRectangle:
        """A frame around the predicted word; invisible on a tie, where nothing wins."""
        index = VOCAB.index(walk.prediction)
        frame = SurroundingRectangle(self.chart.labels[index], color=style.HIGHLIGHT, buff=0.08, stroke_width=3,
                                     corner_radius=0.06)
        return frame.set_stroke(opacity=0.0 if is_tie(walk) else 1.0)

    def country_panel(self, walk, prefix: str) -> VGroup:
        """One country's attention row, the context it carries and what it predicts, stacked."""
        title = self.reading(self.shown_word(walk.tokens[COUNTRY_POSITION]), walk.identity, f"{prefix}identity",
                             size=style.BODY_SIZE)
        chart = BarChart(walk.attention_row, self.shown_words(walk.tokens), style.ATTENTION, height=1.6, bar_width=0.6, gap=0.35,
                         decimals=probability_decimals(walk.attention_row), name=f"{prefix}attention")
        context = labelled(walk.context[None], self.context_symbol, style.OUTPUT, f"{prefix}context")
        word = self.labels["tie"] if is_tie(walk) else self.shown_word(walk.prediction)
        predicted = self.reading(self.labels["panel_prediction"].format(word=word), walk.probability,
                                 f"{prefix}probability", decimals=next_word_decimals())
        panel = VGroup(title, chart, context, predicted).arrange(DOWN, buff=0.45)
        panel.title, panel.chart, panel.context, panel.prediction = title, chart, context, predicted
        return panel

    def between(self, left, right, sign: str, note: str) -> VGroup:
        group = VGroup(MathTex(sign, font_size=SIGN_SIZE + 8, color=style.TEXT),
                       label_text(note, style.MUTED, style.CAPTION_SIZE)).arrange(DOWN, buff=0.12)
        return group.move_to([(left.get_right()[0] + right.get_left()[0]) / 2, left.get_y(), 0])

    def reading(self, label: str, value: float, name: str, index: int = 0, colour=style.TEXT,
                size: float = style.BODY_SIZE, decimals: int = 2) -> "LabelledValue":
        """``label value`` on one line, the value a tagged number."""
        number = tagged_number(value, name, (0, index), colour, size, decimals)
        text = label_text(label, style.MUTED, size)
        group = LabelledValue(text, number).arrange(RIGHT, buff=0.15)
        sit_on(number, baseline(text))
        return group

    def score_column(self, values, label: str, name: str) -> LabelledMatrix:
        largest = float(np.abs(self.walk.scores).max())
        return labelled(np.asarray(values)[:, None], label, style.TEXT, name,
                        fill=lambda value: style.score_colour(value, largest / FILL_SHARE))

    @staticmethod
    def highlight(matrix: LabelledMatrix, cells=(), rows=(), columns=()) -> RoundedRectangle:
        """A frame round ``cells`` ((i, j) pairs), whole ``rows`` or ``columns`` of ``matrix`` (``frame_between`` its
        other numbers, brackets, label and column names)."""
        n_rows, n_columns = matrix.values.shape
        chosen = {*cells, *[(i, j) for i in rows for j in range(n_columns)],
                  *[(i, j) for i in range(n_rows) for j in columns]}
        others = [matrix.entries[i][j] for i in range(n_rows) for j in range(n_columns) if (i, j) not in chosen]
        return frame_between([matrix.entries[i][j] for i, j in chosen],
                             [*others, *matrix.brackets, matrix.label, *matrix.headers])

    def number_box(self, number) -> RoundedRectangle:
        """A frame round one number of the readout panel, clear of the names and numbers round it."""
        return frame_between([number], [part for row in self.readouts for part in (row[0], row.value)
                                         if part is not number])

    def of_last(self, symbol: str) -> str:
        """``symbol`` of the last token, as LaTeX: q with "es" (or "is") under it."""
        return rf"{symbol}_{{\text{{{self.shown_word(self.walk.tokens[-1])}}}}}"

    @property
    def context_symbol(self) -> str:
        return rf"\text{{{self.labels['context']}}}"

    def token_labels(self, matrix: LabelledMatrix, tokens, size: float = style.CAPTION_SIZE) -> VGroup:
        """The words of the rows, right-aligned left of the opening bracket."""
        return self.row_names(matrix, self.shown_words(tokens), style.TEXT, size)

    @staticmethod
    def row_names(matrix: LabelledMatrix, names, colour, size: float = style.CAPTION_SIZE) -> VGroup:
        """``names``, one a row, right-aligned left of ``matrix``'s opening bracket."""
        return VGroup(*[label_text(name, colour, size).next_to(matrix.brackets[0], LEFT, buff=0.2)
                        .set_y(matrix.cells[i][0].get_y()) for i, name in enumerate(names)])

    def dot_product_line(self, name: str, left, right, result: str) -> VGroup:
        """The worked dot product under the body, e.g. "puntaje de «Francia» = 2.69·2.14 + … ≈ 5.77": "=" only
        when the rounded numbers written reproduce ``result`` (2.69·2.14 is 5.76; the exact score rounds to 5.77);
        with "≈", the note under it saying what the terms written give (5.76) and that the result comes from the values
        unrounded (review s16: a student recomputing 5.76 was told only that «the last decimal varies»)."""
        terms = " + ".join(f"{format_number(a)}·{parenthesised(b)}" for a, b in zip(left, right))
        rounded = not reproduces(parse_number(result), as_read(left) @ as_read(right))
        text = self.labels["expansion"].format(name=name, terms=terms, relation="≈" if rounded else "=", result=result)
        if not rounded:
            return VGroup(self.worked_line(text))
        written = format_number(float(as_read(left) @ as_read(right)))
        return VGroup(self.worked_line(text, above=NOTE_HEIGHT),
                      self.rounding_note(self.labels["approx_worked"].format(written=written, result=result)))

    @staticmethod
    def worked_reserve(line: VGroup) -> float:
        """The strip ``place`` leaves under the body for ``line`` (a worked line, and its note if it has one)."""
        return LINE_HEIGHT + 0.2 + NOTE_HEIGHT * (len(line) - 1)

    @staticmethod
    def worked_line(text: str, above: float = 0.0):
        """One line of text in the strip under the body (kept free with ``place``'s ``reserve_bottom``), ``above``
        a note's strip."""
        line = label_text(text, style.TEXT, style.BODY_SIZE)
        left_edge, right_edge, bottom, _ = style.body_box()
        fit(line, right_edge - left_edge, LINE_HEIGHT)
        return line.move_to([0, bottom + CAPTION_CLEARANCE + above + LINE_HEIGHT / 2, 0])

    def rounding_note(self, text: str | None = None):
        """What a worked line's «≈» means, in the NOTE_HEIGHT strip under it: the result was computed unrounded."""
        note = label_text(text or self.labels["approx_values"], style.MUTED, style.CAPTION_SIZE)
        left_edge, right_edge, bottom, _ = style.body_box()
        fit(note, right_edge - left_edge, NOTE_HEIGHT)
        return note.move_to([0, bottom + CAPTION_CLEARANCE + NOTE_HEIGHT / 2, 0])

    def cue_vector(self, values, spacing: float = 0.1):
        """A vector of the stream's numbers (X, r, LN(r)) heard as it lands, one blip a number on the vectors' scale."""
        self.cue("values", lands=True, values=[float(value) for value in values], spacing=spacing,
                 low=self.vector_scale["low"], high=self.vector_scale["high"])

    def cue_distribution(self, walk, seconds: float, lands: bool = False):
        """The chord of the final distribution: one voice per word, París and Roma the ones that move."""
        self.cue("distribution", lands=lands, weights=[float(p) for p in walk.probs], words=list(VOCAB),
                 identity=float(walk.identity), seconds=float(seconds))

    def blip(self, column, index: int, scale: dict | None = None):
        """``column[index]``'s blip, sounding as the next play lands, pitched on its quantity's ``scale``
        (``shared_scale``; without one, the column is a quantity of its own)."""
        self.cue("cell", lands=True, value=float(column[index]), **(scale or shared_scale(column)))

    def last_cue_turn(self) -> float:
        """Seconds from the last cue's sound to the next compared one: its length, then sonify's gap, so the
        two never overlap."""
        cue = self.cues[-1]
        return turn(MAPPINGS[cue.kind](**cue.values))

    def base_size_target(self, mobject):
        """A target copy of ``mobject`` at the size it was built, to lay the next stage out with."""
        return mobject.generate_target().scale(1 / self.stage_scale)

    def stage_leaving(self) -> list:
        """The last step's drawing leaving with the header's change: a step that asks first takes its question card
        away in that play's first half, and the old drawing came back at full brightness for 0.7 s between the card
        and the step's own clearing (review s13)."""
        return [Vanish(mobject, rate_func=squish_rate_func(smooth, 0.0, 0.5)) for mobject in self.mobjects
                if mobject is not self.header]

    def clear_stage(self, *carried):
        """Fade out everything on screen but the header and the ``carried`` pieces."""
        leaving = [mobject for mobject in self.mobjects if mobject is not self.header
                   and all(mobject is not piece for piece in carried)]
        if leaving:
            self.play(*[Vanish(mobject) for mobject in leaving], run_time=0.5)

    def settle(self, mobject):
        """Make ``mobject`` one object on screen again after it was revealed in parts."""
        self.remove(mobject)
        self.add(mobject)

    def reveal_rows(self, matrix: LabelledMatrix, sounded=None, scale: dict | None = None, numbers: int | None = None,
                    closing: dict | None = None):
        """Row after row, each appearing at once and given its numbers' reading time (``numbers`` a row, by default all
        its numbers) before the next comes; with ``sounded`` (a number per row) each row's blip sounds as the row lands, on
        ``scale`` (``blip``); with ``closing`` (a cue's ``kind`` and values) the last row lands with that cue instead."""
        last = len(matrix.entries) - 1
        for row in range(last + 1):
            if closing is not None and row == last:
                self.cue(lands=True, **closing)
            elif sounded is not None:
                self.blip(sounded, row, scale)
            self.quickly(Appear(matrix.row(row)), seconds=self.reveal_seconds(numbers or matrix.values.shape[1]))
        self.settle(matrix)

    def reveal_marked(self, row: LabelledMatrix, parts: list[list], seconds: float):
        """The one-row ``row``'s numbers one after the other, ``parts[j]`` bringing number j, ``seconds`` each: each pops
        in with a frame round it that moves on with the next (which number is being read, or sounds), and leaves with
        the last one's time. Single numbers popping in change too little of the picture to be seen arriving."""
        marker = None
        for j, part in enumerate(parts):
            frame = self.highlight(row, [(0, j)])
            self.quickly(*map(Appear, part), ReplacementTransform(marker, frame) if marker else Create(frame),
                         seconds=seconds)
            marker = frame
        self.play(Vanish(marker), run_time=ROW_APPEARS)

    def quickly(self, *animations, seconds: float):
        """``animations`` in ROW_APPEARS, then the screen holds for the rest of ``seconds``: a piece appears at once,
        and the next comes at the pace a slow fade had (a fade over seconds reads as a still screen)."""
        self.play(*animations, run_time=min(ROW_APPEARS, seconds))
        if seconds > ROW_APPEARS:
            self.wait(seconds - ROW_APPEARS)

    def present(self, matrix: LabelledMatrix, sounded=None, scale: dict | None = None, numbers: int | None = None,
                along=(), closing: dict | None = None):
        """The frame (and the animations ``along`` with it), then the numbers row by row (reveal_rows, ``sounded``,
        ``scale``, ``numbers`` and ``closing`` as there)."""
        self.quickly(*map(Appear, [matrix.frame, *matrix.headers]), *along, seconds=0.4)
        self.reveal_rows(matrix, sounded, scale, numbers, closing)

    def place(self, group, largest_scale: float = 1.0, reserve_bottom: float = 0.0):
        """Centre ``group`` in the body (above a reserved strip), scaled to fit; remember the scale."""
        left, right, bottom, top = style.body_box()
        bottom += CAPTION_CLEARANCE
        if getattr(self, "appendix_tag", None) is not None:  # the body starts under the appendix's step
            top = min(top, self.appendix_tag.get_bottom()[1] - 0.1)
        width = group.width
        fit(group, right - left, top - bottom - reserve_bottom, largest_scale)
        group.move_to([(left + right) / 2, (top + bottom + reserve_bottom) / 2, 0])
        self.stage_scale = group.width / width
        enlarge_formulas(group)


@cache
def next_word_decimals() -> int:
    """The decimals of every probability of the next word, in every step: the tie's, so 1/8 reads 0.125 and
    p(París) is 0.416 wherever it is written."""
    return probability_decimals(capital_walkthrough(0.0).probs)


def labelled(values, label: str, colour, name: str, width: float | None = None, decimals: int | None = None,
             **options) -> LabelledMatrix:
    """A LabelledMatrix whose cell width is worked out from the longest number, not by typesetting all; its
    numbers with ``decimals`` (by default as many as its values need: decimals_for). Coloured cells (``fill``) keep
    BRACKET_ROOM from the brackets, which they touched."""
    matrix = LabelledMatrix(values, label, colour, name, cell_width=width or cell_width(values, decimals=decimals),
                            decimals=decimals, **options)
    matrix.headers = VGroup()  # its columns' names, if it is given some (name_columns)
    if options.get("fill") is not None:
        matrix.brackets[0].shift(LEFT * BRACKET_ROOM)
        matrix.brackets[1].shift(RIGHT * BRACKET_ROOM)
    return matrix


def number_colour(role: str):
    """The colour W_role's and role's numbers are written in (``LabelledMatrix``'s ``text_colour``)."""
    return lambda _: NUMBER_COLOURS[role]


def live_columns(values: np.ndarray) -> int:
    """How many columns of ``values`` are not all zero: the numbers a row gives to read (Q's and K's one, their two
    null columns read at a glance, as W_out's six): filled at three numbers a row, Q and K took 6 s each, in silence."""
    return int(np.count_nonzero(np.any(values != 0, axis=0)))


def column_names(matrix: LabelledMatrix, names) -> VGroup:
    """``names`` over ``matrix``'s columns, on one baseline (descenders, as «lugar», or not), its label lifted over
    them."""
    headers = VGroup(*[label_text(name, style.MUTED, style.CAPTION_SIZE).next_to(matrix.brackets, UP, buff=0.15)
                       .match_x(matrix.cells[0][j]) for j, name in enumerate(names)])
    for header in headers:
        sit_on(header, baseline(headers[0]))
    matrix.label.next_to(headers, UP, buff=0.2)
    return headers


def name_columns(matrix: LabelledMatrix, names) -> None:
    """``column_names`` made part of ``matrix``: they move and leave with it, and appear with its frame."""
    matrix.headers = column_names(matrix, names)
    matrix.add(matrix.headers)


def names_width(names, room: float = NAME_ROOM) -> float:
    """The cell width that keeps the widest of ``names`` (at CAPTION_SIZE) ``room`` from its neighbours' (at least)."""
    return max(label_text(name, style.MUTED, style.CAPTION_SIZE).width for name in names) + room


def tex_number(value: float, decimals: int = 2) -> str:
    """``format_number`` for LaTeX: an ASCII minus, and a decimal comma that takes no space after it."""
    return format_number(value, decimals).replace(MINUS, "-").replace(",", "{,}")


def root_value(dimensions: int) -> MathTex:
    """√d_k ≈ 1.73: what the scores are divided by, as a number (d_k = 3 here)."""
    return MathTex(rf"\sqrt{{{dimensions}}} \approx {tex_number(math.sqrt(dimensions))}",
                   font_size=style.BODY_SIZE + 4, color=style.MUTED)


def pe_formula() -> MathTex:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), with this section's d written in, and named
    («con d igual a tres»: d = 3 was said only)."""
    fraction = rf"pos / {DEFAULT_BASE:.0f}^{{2i/{D_MODEL}}}"
    return MathTex(rf"PE_{{(pos,\,2i)}} = \sin\left({fraction}\right), \qquad "
                   rf"PE_{{(pos,\,2i+1)}} = \cos\left({fraction}\right), \qquad d = {D_MODEL}",
                   font_size=FORMULA_SIZE, color=style.TEXT)


def pe_entry(positional: np.ndarray) -> MathTex:
    """The WORKED_PE entry of ``positional`` from the formula: PE(4, 2) = sin(4 / 10000^(2/3)) = sin(0.0086) ≈ 0.01
    (an even dim, 2i, is a sine; an odd one, 2i+1, a cosine); "=" only if the angle as written gives the entry."""
    pos, dim = WORKED_PE
    name, function = (r"\sin", np.sin) if dim % 2 == 0 else (r"\cos", np.cos)
    angle = pos * angular_frequencies(D_MODEL, DEFAULT_BASE)[dim]
    value = positional[pos, dim]
    relation = tex_relation(value, function(as_read(angle, ANGLE_DECIMALS)))
    power = rf"{DEFAULT_BASE:.0f}^{{{dim - dim % 2}/{D_MODEL}}}"
    return MathTex(rf"PE_{{({pos},\,{dim})}} = {name}\left({pos} / {power}\right) = "
                   rf"{name}({tex_number(angle, ANGLE_DECIMALS)}) {relation} {tex_number(value)}",
                   font_size=FORMULA_SIZE, color=style.TEXT)


def cell_width(*arrays, decimals: int | None = None, padding: float = CELL_PADDING) -> float:
    """The cell width that fits every number of ``arrays`` (written with ``decimals``, or as many as each
    array needs) and ``padding``: the font is monospaced, so the longest number as written decides it, and only that
    one is typeset."""
    decimals, value = max(((decimals_for(np.ravel(array)) if decimals is None else decimals, value)
                           for array in arrays for value in np.ravel(array)),
                          key=lambda pair: len(format_number(pair[1], pair[0])))
    return max(number_text(value, decimals=decimals).width + padding, CELL_HEIGHT)


def frame_between(inside, others) -> RoundedRectangle:
    """A frame round the ``inside`` mobjects, each side halfway to the nearest of ``others`` facing it (at most
    BOX_MARGIN away): it never touches a neighbour's digits, nor the ones it frames."""
    left, right = min(part.get_left()[0] for part in inside), max(part.get_right()[0] for part in inside)
    bottom, top = min(part.get_bottom()[1] for part in inside), max(part.get_top()[1] for part in inside)
    margins = {side: BOX_MARGIN for side in ("left", "right", "bottom", "top")}
    for other in others:
        (o_left, o_bottom, _), (o_right, o_top, _) = other.get_corner(DOWN + LEFT), other.get_corner(UP + RIGHT)
        beside = o_bottom < top and o_top > bottom  # level with the chosen numbers: a neighbour to the side
        above_below = o_left < right and o_right > left
        for side, gap, facing in (("left", left - o_right, beside), ("right", o_left - right, beside),
                                  ("bottom", bottom - o_top, above_below), ("top", o_bottom - top, above_below)):
            if facing and gap > 0:
                margins[side] = min(margins[side], BOX_CLEARANCE * gap)
    left, right = left - margins["left"], right + margins["right"]
    bottom, top = bottom - margins["bottom"], top + margins["top"]
    box = RoundedRectangle(width=right - left, height=top - bottom, corner_radius=0.06, color=style.HIGHLIGHT,
                           stroke_width=3)
    return box.move_to([(left + right) / 2, (bottom + top) / 2, 0])


def level_rows(left: VGroup, right: VGroup) -> None:
    """The right panel's rows at the heights of the left one's: a country with a descender ("Italy") or
    without one makes a title, and the chart's labels, taller or not."""
    right.title.shift(UP * (baseline(left.title[0]) - baseline(right.title[0])))
    right.chart.shift(UP * (left.chart.baseline.get_y() - right.chart.baseline.get_y()))
    for part in ("context", "prediction"):
        getattr(right, part).match_y(getattr(left, part))


def same_label_size(*charts: BarChart) -> None:
    """The charts' word labels at one size, the smallest, on the first chart's label baseline: each chart shrinks its
    labels to fit its own longest word, and «Francia» made the left panel's words 9 % smaller than the right's. The
    charts have the same words but one (the country), so their first words' widths give the scale between them."""
    smallest = min(chart.labels[0].width for chart in charts)
    line = min(baseline(chart.labels[0]) for chart in charts)
    for chart in charts:
        factor = smallest / chart.labels[0].width
        for label in chart.labels:
            label.scale(factor)
            sit_on(label, line)


def track_point(track: Line, identity: float):
    """Where ``identity`` (-1 Italia .. +1 Francia) sits on the slider's track."""
    return track.point_from_proportion((identity + 1) / 2)


def parenthesised(value: float) -> str:
    text = format_number(value)
    return f"({text})" if value < 0 else text


def drag_path(start: float, end: float) -> list[float]:
    """Identities from just after ``start`` to exactly ``end``, about DRAG_INCREMENT apart, each as the slider's
    readout writes it (0 to 0.90 stops at 0.23, not 0.225: the bars then show p at the identity written)."""
    count = math.ceil(round(abs(end - start) / DRAG_INCREMENT, 6))
    if count == 0:
        return []
    return [as_written(start + (end - start) * k / count) for k in range(1, count)] + [end]


def as_written(identity: float) -> float:
    """``identity`` at the readout's IDENTITY_DECIMALS, halves away from zero whatever float noise they carry
    (0.9 − 0.675 is 0.22499999999999998): a drag and its mirror stop at opposite values, 0.23 and −0.23."""
    scale = 10**IDENTITY_DECIMALS
    return math.copysign(math.floor(abs(identity) * scale + 0.5 + 1e-9) / scale, identity) + 0.0  # never −0.0


def numbers_written_at_once(animations: list) -> list:
    """A chart's ``change_to`` animations with each number written at its new value from the play's first frame,
    where it stands, so it only slides with its bar: a number morphing digit into digit reads as neither value."""
    for animation in animations:
        number = animation.mobject
        if hasattr(number, "shown_text"):
            number.become(animation.target_mobject.copy().move_to(number, aligned_edge=DOWN))
    return animations


def glide(t: float) -> float:
    """``smooth`` over the first GLIDE_SHARE of a play, then still at its end."""
    return smooth(min(1.0, t / GLIDE_SHARE))
