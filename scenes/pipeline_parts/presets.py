"""After the lab's 7 steps: the lab's weights beside the designed ones (why the lab's are so flat: random,
untrained), the query's row of each framed with its entropy and largest weight; then the guide's exercise 1 on
both: does the article attend to the noun after it?"""

from __future__ import annotations

import math

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, ArcBetweenPoints, Create, DashedVMobject, MathTex, Square, SurroundingRectangle,
                   Transform, VGroup, linear, smooth)

from attn_math.attention import entropy
from attn_math.lab import LabAttention
from attn_math.sharp import article_and_noun, articles_and_nouns
from lesson.numbers import as_read, format_number, reproduces
from lesson.pipeline_answers import article_caption, presets_caption, weights_kind
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.pipeline_parts.matrices import MatrixReveals
from scenes.token_heatmap import TokenHeatmap
from scenes.token_labels import abbreviated, token_text
from scenes.visuals import cap_height, fit, label_text, tagged_number, text_with_numbers
from scenes.weight_views import WIDEST_LINE

PRESETS = ("lab", "sharp")  # the lab's random weights, then the designed ones, left to right
READOUT_NUMBERS = 2  # in each side's readout: the row's entropy and largest weight, or the article's two weights
SIDE_LINE_GAP = 0.3  # between a side's title, map and readout
READOUT_LINE_GAP = 0.1  # between a readout's H and, under it, the H of the row as written
SIDES_GAP = 0.6  # between the two sides
CHORD_SECONDS = 1.2  # a "row" cue's chord and its tail: two compared rows start at least this far apart
LANDING_SECONDS = 1.5  # at most, for a compared map or ring to show before its chord sounds
FRAMING_SECONDS = 0.5  # at least, to frame the query's row in a compared map
READOUT_SECONDS = 1.0  # a side's readout fading in under its framed row
REFRAME_SECONDS = 0.8  # the frames moving from the query's row to the article's
RING_STROKE = 5  # the ring around the article's weight on its noun
NAME_FRAME_GAP = 0.06  # round the noun's column name
LEGEND_NUMBERS = 2  # the colour legend's 0 and 1
SILENT_PIECES = 5  # the presets step's pieces in a silent render, sharing its reading time
WHY_GAP = 0.15  # between a side's article readout and the reason under it
ARC_RISE = 0.3  # how high an arc between two column names rises over them: under the side's title
ARC_LIFT = 0.12  # between a column's name and the arcs' ends over it
SHOWN_WEIGHT = 0.005  # the least weight an arc is drawn for
QUICK_SECONDS = 0.25  # a piece the voice names, landing as it names it: a fade over 0.35 s reads as still
OTHER_KEY_SIDE = 0.3  # the dashed square that names the other articles' rings
OTHER_KEY_GAP = 0.3  # between it and its words, and between two other articles


def written_entropy(row) -> float:
    """H = −Σ α log₂ α of ``row`` as its map writes it (two decimals): what a student redoes from the screen."""
    return float(entropy(as_read(row)))


def written_differs(row, bits: float) -> bool:
    """Whether H of ``row`` as its map writes it is not written as ``bits``: the designed row 0.78 / 0.17 / 0.04 gives
    0.90, its unrounded weights 0.93 («≈ 0.93», then «sin redondear», did not give the 0.90 a student finds: review s12,
    s14, s15)."""
    return not reproduces(bits, written_entropy(row))


class PresetSide(VGroup):
    """One preset's side: its ``title``, its weights ``heatmap`` and the ``readout`` of the query's row."""

    def __init__(self, title, heatmap: TokenHeatmap, readout):
        super().__init__(title, heatmap, readout)
        self.title, self.heatmap, self.readout = title, heatmap, readout


class PresetsStage(VGroup):
    """The two ``sides`` (PresetSide), the ``frames`` of the row read in each, and for exercise 1 the ``rings``
    around the article's weight on its noun and their ``readouts``; the parts a step has not made are None."""

    def __init__(self, sides: VGroup, frames: VGroup | None = None, rings: VGroup | None = None,
                 readouts: VGroup | None = None):
        super().__init__(*[part for part in (sides, frames, rings, readouts) if part is not None])
        self.sides, self.frames, self.rings, self.readouts = sides, frames, rings, readouts


class PresetComparison(MatrixReveals):
    """The presets step and exercise 1 on both; ``self.presets_stage`` is what they leave on screen."""

    def show_presets(self):
        """Both presets' weights side by side, the query's row framed, its entropy against the uniform's; without
        the mask, as the guide's exercise 1 that follows asks (the mask has its own step)."""
        q, labels, temperature = self.query, self.labels, self.settings.temperature
        runs = {preset: self.attention(temperature, False, preset) for preset in PRESETS}
        most = math.log2(int(np.count_nonzero(~runs["lab"].steps.mask[q])))
        sharp = runs["sharp"].weights[q]
        caption = presets_caption(self.settings, runs["lab"].entropies[q], most)
        self.begin_step("presets", self.strings["steps"]["presets"][caption], query=self.tokens[q],
                        new_numbers=READOUT_NUMBERS * len(runs) + len(runs) * self.matrix_numbers() + LEGEND_NUMBERS,
                        lab_bits=format_number(runs["lab"].entropies[q]), most_bits=format_number(most),
                        sharp_max=format_number(sharp.max()), sharp_source=self.tokens[int(sharp.argmax())],
                        with_header=[Vanish(VGroup(self.output_stage, self.panel))])  # the lab's canvas and panel
        cell = self.half_body_cell()  # their numbers in the cells, on the section's one colour scale: flat or not
        width = self.cell_width(*[run.weights for run in runs.values()])
        sides, self.preset_maps = VGroup(), {}
        for preset, run in runs.items():
            heatmap = TokenHeatmap(self.weights_matrix(run.weights, f"weights_{preset}", cell, width, run.steps.mask),
                                   self.tokens, q)
            readout = text_with_numbers(labels["row_readout"], {
                "entropy": tagged_number(run.entropies[q], f"entropy_{preset}", font_size=style.CAPTION_SIZE),
                "largest": tagged_number(run.max_weights[q], f"max_{preset}", font_size=style.CAPTION_SIZE)},
                font_size=style.CAPTION_SIZE, query=abbreviated(self.tokens[q]))  # as its row is named
            if written_differs(run.weights[q], run.entropies[q]):  # under it, the H of the row as written
                readout = VGroup(readout, text_with_numbers(labels["row_readout_written"], {
                    "written": tagged_number(written_entropy(run.weights[q]), f"entropy_written_{preset}",
                                             font_size=style.CAPTION_SIZE)}, font_size=style.CAPTION_SIZE)
                                 ).arrange(DOWN, buff=READOUT_LINE_GAP)
            title = label_text(labels[f"title_{weights_kind(self.settings, preset)}"], style.TEXT, style.BODY_SIZE)
            if self.preset_maps:  # the rows named once, on the left map: both maps' rows are the same tokens, level;
                # named twice, long names left the two maps too wide for 14 px (review 06's eight long words)
                heatmap.remove(heatmap.row_labels)
                heatmap.row_labels = VGroup()
            self.preset_maps[preset] = heatmap
            sides.add(PresetSide(title, heatmap, readout).arrange(DOWN, buff=SIDE_LINE_GAP))
        sides.arrange(RIGHT, buff=SIDES_GAP, aligned_edge=UP)
        legend = self.colour_legend("presets_scale")
        formula = self.entropy_formula(most, len(runs["lab"].weights[q]))
        # the legend on the formula's line: stacked under it, the stage grew a line taller than the body and shrank
        # every text under 14 px; arranged again once place() has enlarged the formula to be read
        below = VGroup(formula, legend).arrange(RIGHT, buff=SIDES_GAP)
        stage = self.place(VGroup(sides, below).arrange(DOWN, buff=2 * SIDE_LINE_GAP), self.body())
        below.arrange(RIGHT, buff=SIDES_GAP).next_to(sides, DOWN, buff=2 * SIDE_LINE_GAP).match_x(sides)
        _, _, bottom, top = self.body()
        stage.set_y((bottom + top) / 2)
        frames = VGroup(*[side.heatmap.matrix.row_box(q) for side in sides])
        self.cue("reset")  # out of the lab
        lab, sharp_side = sides
        # the lab's side lands with its chord; then each thing the voice names comes as it names it (a beat each):
        # the row's entropy, the formula and its largest possible value, the designed side and its largest weight
        # a silent render's caption is read whole: its pieces then share the step's reading time, as slow plays
        quick = QUICK_SECONDS if self.spoken() else max(QUICK_SECONDS, self.fill_seconds() / SILENT_PIECES)
        self.land_with_chord(runs["lab"].weights[q], "lab", [Appear(lab.title), Appear(lab.heatmap), Appear(legend)],
                             LANDING_SECONDS)
        self.play(Create(frames[0]), run_time=max(FRAMING_SECONDS, quick))
        self.beat("bits")
        self.play(Appear(lab.readout), run_time=quick)
        self.beat("most")
        self.play(Appear(formula), run_time=quick)
        self.beat("sharp")
        self.land_with_chord(runs["sharp"].weights[q], "sharp", [Appear(sharp_side.title), Appear(sharp_side.heatmap)],
                             quick)
        top = self.cell_frame(sharp_side.heatmap.matrix, q, int(np.argmax(sharp)), style.ATTENTION)
        self.beat("top")  # "the row of «gato» gives 0.78 to «el»": that row framed, its readout, that cell ringed,
        # and over the designed map the row's weights as arcs from «gato» to each token, as thick as the lab's lines
        # are: the guide's «grosor refleja el peso», seen where the weights differ (the lab's all looked alike)
        arcs = self.weight_arcs(sharp_side.heatmap, q, sharp)
        # read on a silent screen, stretched over the caption's reading time at an even pace (eased, its last two
        # seconds moved too little to be seen: 6.2 s still with the finished hold)
        self.play(Create(frames[1]), Appear(sharp_side.readout), Create(top), *self.arcs_in(sharp_side.heatmap, arcs),
                  run_time=quick if self.spoken() else max(quick, self.fill_seconds()),
                  rate_func=smooth if self.spoken() else linear)
        self.remove(arcs)  # drawn as part of the ring, with which they leave (left on the scene's top level, a Vanish
        top.add(arcs)  # of the ring did not take them: they stayed over the next steps)
        label = getattr(sharp_side.heatmap.matrix, "label", None)
        if len(arcs) and label is not None:  # gone with the play: out of the map, which fades later with it
            sharp_side.heatmap.matrix.remove(label)
        self.sharp_top = top
        self.presets_stage = PresetsStage(sides, frames)
        self.presets_extras = VGroup(below, top)  # on screen beside the stage until the temperature step
        self.presets_formula, self.presets_legend = formula, legend  # their line is exercise 1's too: its other articles
        self.preset_runs = runs

    def entropy_formula(self, most: float, n: int) -> VGroup:
        """H = −Σⱼ αⱼ log₂ αⱼ, the entropy of a row of weights, and its largest possible value: log₂ n, all n alike; in
        bits, «como en el lab»: the lab's panel writes its «Entropía» in bits (review s13: the base was never tied to
        the lab's)."""
        return MathTex(r"\textstyle H = -\sum_j \alpha_j \log_2 \alpha_j \;\le\; \log_2 " + str(n) + " = "
                       + format_number(most) + r"\text{ " + self.labels["entropy_unit"] + "}", color=style.TEXT,
                       font_size=style.CAPTION_SIZE + 2)

    def show_article(self):
        """Does the article attend to the noun after it? The caption gives each side's verdict as the numbers do
        (lesson.pipeline_answers.article_caption). Each map frames the article's row and rings its noun's cell."""
        pair = article_and_noun(self.settings.sentence, self.job.config.lecture.lang)
        sides, frames = self.presets_stage.sides, self.presets_stage.frames
        if pair is None:
            self.begin_step("article", self.strings["steps"]["article"]["caption_none"])
            self.play(Vanish(frames), Vanish(self.sharp_top), run_time=self.fill_seconds())
            self.presets_extras.remove(self.sharp_top)
            self.presets_stage = PresetsStage(sides)
            return
        article, noun = pair
        runs = self.preset_runs
        # the query's readouts and its designed weights' ring and arcs leave with the header; the frames move on
        weight = {preset: run.weights[article, noun] for preset, run in runs.items()}
        exercise = self.answers["softmax"]
        others_named = self.other_articles_named(pair)
        if len(others_named):  # the entropy's formula, step 8's, leaves its line to the other articles' weights
            self.presets_extras[0].remove(self.presets_formula)
        self.begin_step("article", self.strings["steps"]["article"][article_caption(self.settings, exercise)],
                        new_numbers=READOUT_NUMBERS * len(runs), article=self.tokens[article], noun=self.tokens[noun],
                        **exercise,
                        lab_weight=format_number(weight["lab"]),
                        lab_max=format_number(runs["lab"].max_weights[article]),
                        sharp_weight=format_number(weight["sharp"]),
                        with_header=[*[Vanish(side.readout) for side in sides], Vanish(self.sharp_top),
                                     *([Vanish(self.presets_formula)] if len(others_named) else [])])
        readouts = VGroup(*[self.article_readout(preset, run, article, noun).move_to(side.readout)
                            for (preset, run), side in zip(runs.items(), sides)])
        rings = VGroup(*[self.cell_frame(side.heatmap.matrix, article, noun, style.ATTENTION) for side in sides])
        new_frames = VGroup(*[side.heatmap.matrix.row_box(article) for side in sides])
        self.play(Transform(frames, new_frames), *self.query_moves(sides, article), run_time=REFRAME_SECONDS)
        self.presets_extras.remove(self.sharp_top)
        for side in sides:  # gone: else the stage's leaving (step 10) faded them in again over the article's readouts
            side.remove(side.readout)
        self.presets_stage = PresetsStage(sides, frames, rings, readouts)
        # exercise 1's «¿por qué?» under each side's numbers, as the voice gives its verdict: where the random weights
        # fail and the designed ones succeed (the step's caption says so), else the numbers alone
        why = self.article_reasons(readouts) if article_caption(self.settings, exercise) == "caption" else {}
        each = max(CHORD_SECONDS, self.fill_seconds(0.0) / 2)
        for (preset, run), readout, ring, side in zip(runs.items(), readouts, rings, sides):  # lab, then designed
            self.beat(preset)  # each side's ring as the voice gives its weight
            largest = int(np.argmax(run.weights[article]))
            # the ring and the readout land quickly, as the voice names them: a ring drawn over 1.5 s was too thin a
            # change to be seen moving
            landing = QUICK_SECONDS if self.spoken() else LANDING_SECONDS
            if largest == noun:
                self.land_with_chord(run.weights[article], preset, [Create(ring), Appear(readout)], each, landing)
                continue
            self.land_with_chord(run.weights[article], preset, [Create(ring), Appear(readout)], each / 2, landing)
            self.beat(f"{preset}_max")  # "its largest weight is only ...": that cell framed too, the noun's beside it
            top = self.cell_frame(side.heatmap.matrix, article, largest)
            reason = [Appear(why[preset])] if preset in why else []
            self.play(Create(top), *reason, run_time=QUICK_SECONDS if self.spoken() else max(each / 2, READOUT_SECONDS))
            rings.add(top, *why.get(preset, []))
        self.beat("noun")  # "the article looks at its noun": the noun's name over the designed map's column, framed
        # (its row is framed, its weight ringed); it fades in whole: a frame drawn round a word in 0.25 s changed too
        # few pixels a frame to be seen coming; the article's arcs with it, the thickest to its noun
        noun_name = self.noun_name_frame(sides[-1].heatmap, noun)
        arcs = self.weight_arcs(sides[-1].heatmap, article, runs["sharp"].weights[article])
        others = self.other_articles(sides, pair)
        self.play(Appear(noun_name), *[Appear(why["sharp"])] if "sharp" in why else [], Create(arcs), Create(others),
                  Appear(others_named), run_time=QUICK_SECONDS)
        rings.add(noun_name, *why.get("sharp", []), arcs, others, others_named)

    def query_moves(self, sides, article: int) -> list:
        """The query's row name, bold blue, handed from the step's query to the article whose row the frames move to:
        «gato» stayed blue while the framed row was «el» (review s15 round 2). Each name keeps its size and place."""
        named = [side.heatmap.row_labels for side in sides if len(side.heatmap.row_labels)]
        if article == self.query:
            return []
        return [Transform(names[index], token_text(abbreviated(self.tokens[index]), is_query)
                          .match_height(names[index]).align_to(names[index], RIGHT).align_to(names[index], DOWN))
                for names in named for index, is_query in ((self.query, False), (article, True))]

    def other_pairs(self, pair: tuple[int, int]) -> list[tuple[int, int]]:
        """The sentence's (article, noun) pairs but ``pair``, the one the voice reads."""
        return [other for other in articles_and_nouns(self.settings.sentence, self.job.config.lecture.lang)
                if other != pair]

    def other_articles(self, sides, pair: tuple[int, int]) -> VGroup:
        """The sentence's other articles' weights on their nouns, ringed dashed on both maps: the guide asks exercise 1
        of every one («la → mesa»: 0.12 with the lab's weights, 0.78 with the designed), the voice reads the first."""
        return VGroup(*[DashedVMobject(self.cell_frame(side.heatmap.matrix, article, noun, style.ATTENTION))
                        for side in sides for article, noun in self.other_pairs(pair)])

    def other_articles_named(self, pair: tuple[int, int]) -> VGroup:
        """The dashed rings named, on the entropy formula's line, left of the colour legend: a dashed square, then
        «la» → «mesa»: lab 0.12 · diseñados 0.78 for each other article, side by side on that one line (two unnamed
        dashed boxes left the sentence's second article unanswered, review s15); as many as stay readable there (a long
        sentence's last ones keep their rings only); nothing when the sentence has no other, or none fits."""
        pairs = self.other_pairs(pair)
        formula, legend = self.presets_formula, self.presets_legend
        width = legend.get_left()[0] - SIDES_GAP - formula.get_left()[0]
        for count in range(len(pairs), 0, -1):
            line = self.other_articles_line(pairs[:count])
            fit(line, width, line.height)
            if min(cap_height(part) for entry in line[1:] for part in entry) >= style.SMALLEST_CAP_HEIGHT:
                return line.move_to(formula).align_to(formula, LEFT)
        return VGroup()

    def other_articles_line(self, pairs: list[tuple[int, int]]) -> VGroup:
        """A dashed square, then each pair's «article» → «noun»: lab … · diseñados …, its two weights tagged
        ``other_article`` (k, 0) and (k, 1)."""
        font, runs = style.CAPTION_SIZE, self.preset_runs
        key = DashedVMobject(Square(side_length=OTHER_KEY_SIDE, color=style.ATTENTION, stroke_width=RING_STROKE / 2))
        entries = [text_with_numbers(self.labels["other_article"], {
            preset: tagged_number(runs[preset].weights[article, noun], "other_article", (k, j), font_size=font)
            for j, preset in enumerate(PRESETS)}, font_size=font, article=abbreviated(self.tokens[article]),
            noun=abbreviated(self.tokens[noun])) for k, (article, noun) in enumerate(pairs)]
        return VGroup(key, *entries).arrange(RIGHT, buff=OTHER_KEY_GAP)

    def weight_arcs(self, heatmap: TokenHeatmap, row: int, weights) -> VGroup:
        """Over ``heatmap``'s column names, an arc from ``row``'s token to every other token it gives weight to, as
        thick as that weight (the lab's lines' rule, scenes.weight_views.WeightedLines); none without column names."""
        names = heatmap.column_labels
        arcs = VGroup()
        if len(names) <= row:
            return arcs
        lift = max(name.get_top()[1] for name in names) + ARC_LIFT
        start = np.array([names[row].get_x(), lift, 0.0])
        for j, weight in enumerate(weights):
            if j == row or weight < SHOWN_WEIGHT:  # a weight written 0.00 has no arc
                continue
            end = np.array([names[j].get_x(), lift, 0.0])
            chord = abs(end[0] - start[0])
            angle = 4 * math.atan(2 * ARC_RISE / chord) * (-1 if end[0] > start[0] else 1)  # rising over the names
            arc = ArcBetweenPoints(start, end, angle=angle, color=style.ATTENTION,
                                   stroke_width=max(0.75, WIDEST_LINE * float(weight)),
                                   stroke_opacity=0.35 + 0.65 * float(weight))
            arc.weight = float(weight)
            arcs.add(arc)
        return arcs

    @staticmethod
    def arcs_in(heatmap: TokenHeatmap, arcs: VGroup) -> list:
        """The arcs drawn where the map's formula stood: it leaves (taken out of the map after the play, for good:
        a later fade of the map would bring it back under them)."""
        label = getattr(heatmap.matrix, "label", None)
        if label is None or not len(arcs):
            return [Create(arcs)] if len(arcs) else []
        return [Vanish(label), Create(arcs)]

    def article_reasons(self, readouts: VGroup) -> dict:
        """Under each side's readout, why its article does or does not look at its noun."""
        return {preset: VGroup(fit(label_text(self.labels[f"article_why_{preset}"], colour, style.CAPTION_SIZE),
                                   readout.width, readout.height).next_to(readout, DOWN, buff=WHY_GAP))
                for preset, readout, colour in zip(PRESETS, readouts, (style.MUTED, style.ATTENTION))}

    @staticmethod
    def noun_name_frame(heatmap: TokenHeatmap, noun: int) -> VGroup:
        """A frame round the noun's column name on ``heatmap``: whom the article looks at (none without names)."""
        names = heatmap.column_labels
        return VGroup(*[SurroundingRectangle(names[noun], color=style.ATTENTION, buff=NAME_FRAME_GAP,
                                             stroke_width=RING_STROKE)] if len(names) > noun else [])

    @staticmethod
    def cell_frame(matrix, row: int, column: int, colour=style.HIGHLIGHT):
        """A thick frame round one cell of a map, with its numbers or in colours only."""
        if hasattr(matrix, "heatmap"):
            return matrix.heatmap.box([row], [column], colour, stroke_width=RING_STROKE)
        return SurroundingRectangle(matrix.cells[row][column], color=colour, buff=0.02, stroke_width=RING_STROKE)

    def land_with_chord(self, weights, preset: str, animations: list, seconds: float, landing: float = LANDING_SECONDS):
        """One side of the two presets compared: ``animations`` (its map, or its ring and readout) played in at most
        ``landing`` seconds, its row's chord sounding as they land, then held for the rest of ``seconds``; the other
        side's chord (at least CHORD_SECONDS later) never overlaps it."""
        shown = min(landing, seconds)
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
