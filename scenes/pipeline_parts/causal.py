"""Beyond the lab, the guide's exercises 3 and 4: the weights without the causal mask beside the masked side (the
scaled scores with −∞ in the future, then their softmax, 0 there, each row's count of nulled weights beside it);
then the entropy of the first and the fourth row on both sides, and the guide's "en cada oración": exercises 1 and 4
on the lab's three sentences, a row each."""

from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Create, FadeIn, GrowFromEdge, LaggedStart, ReplacementTransform,
                   SurroundingRectangle, Transform, VGroup, smooth, squish_rate_func)

from attn_math.lab import GUIDE_TOKENS, LAB_SENTENCES, LabAttention, lab_attention, spelled
from lesson.numbers import reproduces
from lesson.pipeline_answers import redone_weights
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.lesson_scene import Cue
from scenes.pipeline_parts.entropy_rows import FOURTH, EntropyRows, OtherSentence, entropy_rows
from scenes.pipeline_parts.common import FADE_SECONDS, STEP_SECONDS, VOICE_LEFT
from scenes.pipeline_parts.matrices import MatrixReveals
from scenes.token_heatmap import TokenHeatmap, cell_centres, cell_size_of
from scenes.token_labels import abbreviated
from scenes.visuals import baseline, cap_height, label_text, sit_on, tagged_number, text_with_numbers
from sonify.mappings import ENTROPY_GAP
from sonify.replay import sound_seconds

COMPARISON_GAP = 0.45  # between the unmasked map and the row names it shares with the masked one
COMPARISON_LINE_GAP = 0.3  # between the comparison's title, maps, summary and entropy lines
NULLED_GAP = 0.35  # between the masked map's brackets and its count of nulled weights per row
SUMMARY_SECONDS = 0.8  # the causal step's "first row: 6 · last: 0"
SUMMARY_NUMBERS = 2  # in that summary: the first row's count and the last's
MASKING_SHARE = (1 / 3, 2 / 3)  # of a masked chord's sound, where its masked keys fall silent (``mappings.masked_row``)
MAPS_RESERVE = 2.0  # s of the causal step's reading time left out of the time its two maps' fade-ins share
MAP_SECONDS = 0.3  # a map landing under a voice
FADE_PARTS = 3  # a silent render: the time left is cut in this many, each map's fade-in one (at most FADE_SECONDS)
ENTROPY_NUMBERS = 4  # the first and the fourth row's entropy, without and with the mask
FRAMING_ROWS_SECONDS = 0.8  # the two rows framed on both maps
CHANGED_BUFF = 0.1  # around the masked side's entropies, framed: what the mask changed
CHANGED_STROKE = 2
SEEN_SECONDS = 0.25  # the cells a row sees lighting up as the voice names them
SEEN_STROKE = 5
TABLE_GAP = (0.4, 0.25)  # between the two sides' entropy pairs kept over the rows' chart
TABLE_SECONDS = 1.2  # the comparison leaving and the rows' chart landing
ROWS_GROWING = 2.4  # s at least for every masked row's bar to grow, one after another (each a fraction of a second)
OTHERS_SECONDS = 0.4  # the lab's other sentences' rows landing as dots
OTHERS_GROWTH = 2  # a dot lands shrinking from this many times its size
CHART_SHARE = 0.55  # of the body's height, at most, for the rows' tallest frame (log₂ n bits)


INFINITY_ROOM = 0.9  # of its cell's width, at most, for an enlarged −∞


def enlarge_infinities(matrix, mask) -> None:
    """Each −∞ of ``matrix`` grown till its ∞ is as tall as a digit (or its cell is full): the font's ∞ is a
    lower-case glyph, 8 px tall beside 16 px digits (review s13)."""
    mask = np.asarray(mask, dtype=bool)
    if not any(getattr(matrix, "entries", [])) or not mask.any() or mask.all():  # a colour-only grid: no numbers
        return
    i, j = np.argwhere(~mask)[0]
    digit = max(glyph.height for glyph, character in zip(matrix.entries[i][j], matrix.entries[i][j].shown_text)
                if character.isdigit())
    for i, j in np.argwhere(mask):
        entry, cell = matrix.entries[i][j], matrix.cells[i][j]
        entry.scale(min(digit / entry[-1].height, INFINITY_ROOM * cell.width / entry.width))


class MaskComparison(VGroup):
    """Steps 11-12's stage: the weights without the mask (``free``, under ``free_title``, its ``entropy_free``)
    beside the masked side (``masked_block``: the scaled scores ``masked_scores`` that become the weights ``masked``,
    and the ``nulled`` count per row), the ``nulled_summary`` and ``entropy_masked`` under it; ``fourth`` is the row
    whose entropy step 12 reads beside the first's."""

    def __init__(self, free_title, free: TokenHeatmap, entropy_free, masked_title, masked_block: VGroup,
                 nulled_summary, entropy_masked, fourth: int):
        super().__init__(free_title, free, entropy_free, masked_title, masked_block, nulled_summary, entropy_masked)
        self.free_title, self.free, self.entropy_free = free_title, free, entropy_free
        self.masked_title, self.masked_block = masked_title, masked_block
        self.masked, self.masked_scores, self.nulled = masked_block
        self.nulled_summary, self.entropy_masked, self.fourth = nulled_summary, entropy_masked, fourth


class CausalMask(MatrixReveals):
    """The causal and entropy steps; ``self.comparison`` (MaskComparison) is their stage."""

    def show_causal_comparison(self):
        """Exercise 3, without the mask | with it: first the scaled scores with −∞ in the future, then their
        softmax, 0 there."""
        free, masked = self.attention(self.settings.temperature, False), self.attention(self.settings.temperature, True)
        nulled = masked.steps.mask.sum(axis=1)
        n, softmax = len(self.tokens), next((record for record in self.steps if record.key == "softmax"), None)
        shown_before = not self.settings.causal and softmax is not None  # the unmasked weights are step 6's
        self.begin_step("causal", new_numbers=(1 if shown_before else 2) * self.matrix_numbers()
                        + (n if self.numbers_fit() else 0) + SUMMARY_NUMBERS,
                        first=int(nulled[0]), last=int(nulled[-1]),
                        with_header=[Vanish(VGroup(self.temperature_rows, self.plot_stage))])
        if shown_before:  # read then: not new numbers to read again
            self.count_as_read({"weights_free": softmax.numbers.get("weights", [])})
        self.comparison = self.comparison_layout(free, masked, nulled)
        parts = self.comparison
        scores = parts.masked_scores
        # each map lands quickly as the voice comes to it: a map fading in over 2.5 s read as a still; a caption read
        # on screen shares the step's time between the two, as before
        fade = MAP_SECONDS if self.spoken() else min(self.fill_seconds(MAPS_RESERVE) / FADE_PARTS, FADE_SECONDS)
        self.play(Appear(parts.free_title), Appear(parts.free), Appear(parts.legend), run_time=fade)
        self.beat("future")  # "the mask puts minus infinity on the keys of the future": the masked scores, with the
        # names of their rows (come with the unmasked map, they stood right of it with no matrix beside: review s9)
        self.play(Appear(parts.masked_title), Appear(VGroup(scores.matrix, scores.row_labels, scores.column_labels)),
                  run_time=fade)
        self.causal_scores = scores.matrix  # on screen until the softmax replaces it
        names = VGroup(parts.masked.row_labels, parts.masked.column_labels)
        self.beat("zeros")  # each row's weights with the count of those the mask nulled beside it, row after row
        counts = [*parts.nulled[0]] if len(parts.nulled) else []
        if counts:
            counts[0] = VGroup(parts.nulled[1], counts[0])  # the column's name with its first number
        cues = [("masked", dict(before=before.tolist(), after=after.tolist()))
                for before, after in zip(free.weights, masked.weights)]
        self.replace_matrix(scores.matrix, parts.masked.matrix, after=SUMMARY_SECONDS, beside=counts,
                            with_rows=[Appear(parts.note)],
                            with_frame=[ReplacementTransform(VGroup(scores.row_labels, scores.column_labels), names)],
                            cues=cues)
        self.beat("counts")  # the first and the last count, as the voice reads them: the first row framed, unmasked
        masked = parts.masked.matrix
        row_frame = parts.free.matrix.row_box(0)
        self.play(Appear(parts.nulled_summary), Create(row_frame),
                  run_time=max(SUMMARY_SECONDS, self.voice_left()))
        with self.listening():  # "hear its chord shrink to one note", again and in the clear: the frame crosses to the masked row as it does
            kind, values = cues[0]
            if self.spoken():  # its row was ducked under the voice as it landed (without one, heard in the clear then)
                self.cue(kind, **values, replayed=True)  # the key row (``sonify.replay.key_cues``): heard, not replayed
            self.play(Transform(row_frame, masked.row_box(0), rate_func=squish_rate_func(smooth, *MASKING_SHARE)),
                      run_time=sound_seconds(Cue(0.0, kind, values)))
        self.beat("last")  # then the last row, which has seen the whole sentence
        self.play(Transform(row_frame, masked.row_box(len(self.tokens) - 1)), run_time=SUMMARY_SECONDS)
        parts.nulled_summary.add(row_frame)  # leaves with the summary

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
        cell = self.half_body_cell()
        scaled_label = rf"QK^\top / (\sqrt{{{masked.steps.d_k}}}\, T) + \text{{{labels['mask']}}}"
        width = self.cell_width(masked.weights)
        exact = reproduces(masked.weights, redone_weights(masked.steps.scaled), decimals=2)  # from the −∞ matrix
        # «A = softmax(·)» on both sides: A is the softmax of the unrounded scores; a «≈» on the masked side alone read
        # as if the mask made it approximate (review s15 round 2); the note under them says what rounding changes
        masked_map = TokenHeatmap(self.weights_matrix(masked.weights, "weights_causal", cell, width,
                                                      masked.steps.mask), self.tokens)
        row_height = cell_size_of(masked_map.matrix)[1]
        free_map = TokenHeatmap(self.weights_matrix(free.weights, "weights_free", row_height, width,
                                                    numbers=free_numbers), self.tokens)
        if not free_numbers:  # colours only: the masked map's columns name its columns too
            free_map.remove(free_map.column_labels)
            free_map.column_labels = VGroup()
        scores_map = TokenHeatmap(self.matrix(masked.steps.scaled, scaled_label, style.TEXT, "scaled_causal", cell,
                                              self.cell_width(masked.steps.scaled), fill=self.score_fill,
                                              mask=masked.steps.mask), self.tokens)  # step 5's colours
        enlarge_infinities(scores_map.matrix, masked.steps.mask)
        grid = masked_map.matrix.cell_grid  # the scores row on row with the weights that replace them, one left edge
        scores_map.shift(grid.get_corner(UP + LEFT) - scores_map.matrix.cell_grid.get_corner(UP + LEFT))
        column = VGroup()
        if masked_map.labelled and self.numbers_fit():
            column = self.nulled_column(masked_map, nulled)
        summary = text_with_numbers(labels["nulled_summary"], {
            "first": tagged_number(nulled[0], "nulled_first_last", (0, 0), font_size=style.CAPTION_SIZE, decimals=0),
            "last": tagged_number(nulled[-1], "nulled_first_last", (0, 1), font_size=style.CAPTION_SIZE, decimals=0)},
            font_size=style.CAPTION_SIZE)
        fourth = min(FOURTH, n - 1)
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
        legend = self.colour_legend("causal_scale")  # both maps' colours, on the section's one scale
        legend.next_to(entropy_free, DOWN, buff=COMPARISON_LINE_GAP).match_x(free_grid)
        stage = MaskComparison(free_title, free_map, entropy_free, masked_title, masked_block, summary,
                               entropy_masked, fourth)
        stage.legend = legend
        stage.add(legend)
        stage.note = VGroup()  # what rounding changes, redone from the written −∞ matrix, under both sides
        if not exact and self.numbers_fit():
            # clear of the frame exercise 4 draws round the masked entropies (CHANGED_BUFF below them; review s14: touching)
            stage.note.add(self.approx_note(stage.width, key="masked_note").next_to(stage, DOWN,
                                                                 buff=CHANGED_BUFF + COMPARISON_LINE_GAP / 2))
            stage.add(stage.note)
        self.place(stage, self.body())
        return stage

    def nulled_column(self, heatmap: TokenHeatmap, nulled: np.ndarray) -> VGroup:
        """How many weights each row loses to the mask, right of its row."""
        rows = cell_centres(heatmap.matrix)[:, 0]
        counts = VGroup(*[tagged_number(count, "nulled", (i, 0), style.MUTED, style.CELL_SIZE, decimals=0)
                          .next_to(heatmap.matrix.brackets[1], RIGHT, buff=NULLED_GAP).set_y(rows[i][1])
                          for i, count in enumerate(nulled)])
        header = label_text(self.labels["nulled"], style.MUTED, style.CAPTION_SIZE)
        sit_on(header.align_to(counts, LEFT), baseline(heatmap.column_labels[0]))  # on the labels' first line
        return VGroup(counts, header)

    def entropy_pair(self, run: LabAttention, fourth: int, name: str) -> VGroup:
        """H of the first and the fourth row, each named as the heatmap names its row."""
        return self.entropy_line(self.tokens[0], self.tokens[fourth], (run.entropies[0], run.entropies[fourth]), name)

    def entropy_line(self, first: str, fourth: str, bits: tuple[float, float], name: str, row: int = 0) -> VGroup:
        """'H(first) = … bits · H(fourth) = … bits', its two numbers tagged ``name`` in ``row``."""
        font = style.CAPTION_SIZE
        return text_with_numbers(self.labels["entropy_pair"], {
            "first_entropy": tagged_number(bits[0], name, (row, 0), font_size=font),
            "fourth_entropy": tagged_number(bits[1], name, (row, 1), font_size=font)},
            font_size=font, first=abbreviated(first), fourth=abbreviated(fourth))

    def show_entropy_comparison(self):
        """Exercise 4: the first and the fourth row framed on both maps, then their entropies without and with the
        mask, each pair as its sound's clusters land; the masked pair framed: what the mask changed."""
        parts = self.comparison
        self.begin_step("entropy", new_numbers=ENTROPY_NUMBERS + len(self.tokens), first=self.tokens[0],
                        fourth=self.tokens[parts.fourth])
        frames = [heatmap.matrix.row_box(row) for heatmap in (parts.free, parts.masked) for row in (0, parts.fourth)]
        # one after another as the voice says what entropy measures and what to listen for
        self.play(LaggedStart(*[Create(frame) for frame in frames], lag_ratio=1.0),
                  run_time=max(FRAMING_ROWS_SECONDS, self.voice_left()))
        rows = [0, parts.fourth]
        changed = self.changed_frame(parts)
        seen = parts.seen = self.seen_cells(parts)
        with self.listening():  # the four clusters in the clear, each pair landing as its clusters sound
            self.cue("entropy", lands=True, rows=rows, free=parts.free.matrix.values.tolist(),
                     masked=parts.masked.matrix.values.tolist())
            self.play(Appear(parts.entropy_free), run_time=STEP_SECONDS)
            self.play(Appear(parts.entropy_masked), run_time=len(rows) * ENTROPY_GAP)
            # then framed as they ring out, what the mask changed (a caption read on screen: the seen cells too, at once)
            self.play(Create(changed), *([] if self.spoken() else [Create(cells) for cells in seen]
                                          + self.light_seen(parts, 0) + self.light_seen(parts, parts.fourth)),
                      run_time=STEP_SECONDS)
        if self.spoken():
            # each row's seen cells lit as the voice names them, quickly: a thin frame drawn over the phrase's length
            # changed too few pixels to be seen moving (the review measured 240.7-250.1 as still)
            self.beat("first")  # "with the mask, the first sees only itself": its one cell
            self.play(Appear(seen[0]), *self.light_seen(parts, 0), run_time=SEEN_SECONDS)
            self.beat("fourth")  # "the fourth spreads its weight over itself and those before": its cells to itself
            self.play(Appear(seen[1]), *self.light_seen(parts, parts.fourth), run_time=SEEN_SECONDS)
        self.show_sentences_table(VGroup(*frames, seen), changed)

    @staticmethod
    def changed_frame(parts) -> SurroundingRectangle:
        """The frame round the masked side's entropies: what the mask changed."""
        return SurroundingRectangle(parts.entropy_masked, color=style.HIGHLIGHT, buff=CHANGED_BUFF,
                                    stroke_width=CHANGED_STROKE)

    def seen_cells(self, parts) -> VGroup:
        """On the masked map, the cells the first and the fourth token can see (up to themselves), framed."""
        matrix = parts.masked.matrix
        if hasattr(matrix, "heatmap"):  # colours only
            return VGroup(*[matrix.heatmap.box([row], list(range(row + 1)), stroke_width=SEEN_STROKE)
                            for row in (0, parts.fourth)])
        return VGroup(*[SurroundingRectangle(VGroup(*matrix.cells[row][:row + 1]), color=style.HIGHLIGHT, buff=0.02,
                                             stroke_width=SEEN_STROKE) for row in (0, parts.fourth)])

    def light_seen(self, parts, row: int) -> list:
        """The cells ``row`` sees on the masked map lit, their numbers dark on the light (``light_cells``)."""
        return self.light_cells(parts.masked.matrix, row, range(row + 1))

    def show_sentences_table(self, frames: VGroup, changed):
        """The maps leave, the two pairs of entropies stay under their sides' titles (``changed`` framing the masked
        pair), and the entropy of every masked row lands under them as a bar in its frame of log₂ i, row after row, as
        the voice says it grows with the context each token sees; then the lab's other sentences' rows, as dots."""
        parts = self.comparison
        chart = self.entropy_rows_chart()
        kept = VGroup(VGroup(parts.free_title, parts.entropy_free),
                      VGroup(parts.masked_title, parts.entropy_masked, changed))
        header = kept.copy()  # back to the size it was written at: the comparison was scaled down to fit the body
        written = label_text(self.labels["without_mask"], style.TEXT, style.BODY_SIZE).height
        header.scale(written / parts.free_title.height)
        for side in header:
            side[0].next_to(side[1], UP, buff=COMPARISON_LINE_GAP)
        header.arrange(RIGHT, buff=TABLE_GAP[0])
        header[0].shift(UP * (header[1][1].get_y() - header[0][1].get_y()))  # the readouts level, the frame aside
        self.place(VGroup(header, chart).arrange(DOWN, buff=2 * COMPARISON_LINE_GAP), self.body())
        self.wait(max(0.0, self.fill_seconds(TABLE_SECONDS) / 2))  # the comparison read before it leaves
        self.beat("sentences")  # "row after row, the entropy grows with the context": the rows' bars, one by one
        # the masked side as it is on screen: its scaled scores, replaced by the weights at step 12, would come back
        # to fade out over them (their formula across «Con máscara causal»)
        # the maps gone before the chart comes: cross-faded, its names stood over their numbers (review s10's rule)
        self.play(Vanish(VGroup(parts.free, parts.masked, parts.nulled, parts.nulled_summary, frames, parts.legend,
                                parts.note),
                         rate_func=squish_rate_func(smooth, 0.0, 0.5)),
                  Transform(kept, header), Appear(chart.ground(), rate_func=squish_rate_func(smooth, 0.5, 1.0)),
                  run_time=TABLE_SECONDS)
        growing = max(ROWS_GROWING, self.voice_left(VOICE_LEFT)) / max(1, len(chart.bars))
        for bar, value in zip(chart.bars, chart.values):  # each row's bar grows quickly, the next as it ends
            self.play(GrowFromEdge(bar, DOWN), Appear(value), run_time=growing)
        if len(chart.others):
            self.beat("others")  # "in the lab's three sentences": their rows on the same bars
            self.play(*[FadeIn(dot, scale=OTHERS_GROWTH) for dot in chart.others], Appear(chart.others_key),
                      run_time=OTHERS_SECONDS)
        self.entropy_stage = VGroup(kept, chart)

    def entropy_rows_chart(self) -> EntropyRows:
        """Every row's entropy under the mask, the lab's other sentences' as dots (lab weights, this temperature)."""
        temperature = self.settings.temperature
        masked = self.attention(temperature, True)
        others = [OtherSentence(" ".join(spelled(token) for token in run.tokens),
                                tuple(spelled(token) for token in run.tokens), run.entropies, GUIDE_TOKENS.get(name))
                  for name, run in ((name, lab_attention(sentence, temperature, causal=True))
                                    for name, sentence in LAB_SENTENCES.items())
                  if tuple(run.tokens) != tuple(masked.tokens)]
        left, right, bottom, top = self.body()
        return entropy_rows(self.labels, self.tokens, masked.entropies, others, right - left,
                            (top - bottom) * CHART_SHARE)

