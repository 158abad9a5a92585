"""Section 4: why self-attention without a positional encoding ignores word order (and with one does not), then
the sinusoidal encoding as a matrix, as waves, as a similarity that only depends on distance, added to three tokens."""

from __future__ import annotations

from functools import partial

import numpy as np
from manim import (DOWN, LEFT, ORIGIN, RIGHT, UP, Axes, Circle, Create, DashedVMobject, Dot, FadeIn, FadeTransform,
                   Indicate, Line, MathTex, MoveToTarget, Rectangle, Succession, SurroundingRectangle, Text,
                   UpdateFromAlphaFunc, ValueTracker, VGroup, VMobject, Write, always_redraw, interpolate_color, linear,
                   there_and_back)

from attn_math.positional import (angular_frequencies, contiguous_tokens_example, hand_angles, hand_turns,
                                  permutation_demo, separate_readings, similarity_by_distance, sinusoidal_encoding,
                                  smooth_width, visible_rise)
from lesson.numbers import format_number
from lesson.positional_answers import (TABLE_ROWS, frequency_columns, odd_variant, question_fields, second_start, visibly_changing,
                                       power_of_ten_text)
from scenes import style
from scenes.clock_hands import MOST_HANDS, HandRow, degrees_written, shown_hands
from scenes.fades import Appear, Vanish
from scenes.heatmap import ColourLegend, Heatmap, round_ticks, signed_colour
from scenes.lesson_scene import LISTEN_TAIL, LessonScene, wrapped_text
from scenes.visuals import (CELL_HEIGHT, CELL_PADDING, LabelledMatrix, baseline, enlarge_formulas, fit, label_text,
                            number_text, shared_cell_width, sit_on)

HEATMAP_WIDTH_SHARE = 0.4  # of the body: the rest holds the legend and what the step puts beside it
HEATMAP_ASPECT = 2.5  # cells may be up to this much wider than tall, so a tall matrix still reads
PANEL_GAP = 0.6
MOST_WAVES = 4
EXPONENT_SHARE = 0.8  # of a digit's height: a period's power of ten's exponent
EXPONENT_RAISE = 0.5  # of a digit's height: the exponent's bottom over the baseline
SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"
SIMILARITY_COLUMNS = 5  # distances listed under the similarity plot, or up to where it climbs again when
MOST_SIMILARITY_COLUMNS = 8  # that is at most this many (the caption names the climb in any case)
NOTE_GAP = 0.12
MOST_TABLE_DECIMALS = 3  # a column of the frequencies table that barely moves is written to this many at most
DIFFERENT_CELLS = 0.5  # two compared rows differ visibly where their values do by this much (of a -1..1 colour bar)
COMPARED_NAME_GAP = 0.2  # between a lifted-out row and its «pos» name
COMPARED_ROW_SHARE = 1.5  # a lifted-out row's height, of its name's
COMPARED_ASPECT = 4.0  # its cells may be this much taller than wide: many dimensions in the room still leave it tall
SHRUNK_HEATMAP = 0.8  # the heatmap beside the hands and the similarity: its ticks' digits 16 px high at 720p
HANDS_HEATMAP_HEIGHT = 1.0  # of its height, beside the hands: narrower but as tall as it was, its rows 12 px high at
# 720p, not 9.6 (review s12), the dials still 70 px across; beside the similarity the notes under it need the room
SHRUNK_LEGEND = 0.9  # its colour bar, shrunk less: the bar's «1» 18 px high at 720p, not 15 (review s12)
WIDE_PLOT_SHARE = 0.35  # of the plots' width: the smooth d = 512 curve beside the d = 16 one (0.25 made it 120 x 220
# px at 720p, review s12)
PLOTS_GAP = 0.35  # between the two similarity plots
LEGEND_GAP = 0.35  # between the heatmap's grid and its colour bar
MAIN_PLOT_SHARE = 0.75  # of the plots' width: the d = 16 curve, which the step reads; the rest the smooth d = 512 one
PLOT_SHARE = 0.5  # of the body's height: the similarity plots' height, with room under them for the table (Δ = 0's
# sum and «three words ago» go under the heatmap: beside it the plots were 290 x 150 px at 720p, review s11)
SIMILARITY_GAP = 0.3  # between the similarity panel's parts
NOTES_GAP = 0.15  # between the heatmap, Δ = 0's sum and «three words ago» under it: both at full size in the room
TABLE_TEXT_MIX = 0.5  # a table number's heatmap colour, half-way to the text's: a 0.00 (a near-background cell
# colour) still reads at 5:1 on the background, and the sign's hue stays
BLOCK_GAP = 0.3  # extra space between the tokens' groups of rows in the table
TABLE_ROW_GAP = 0.3  # between the d = 4 table's rows: the table as wide as the frame, its rows spread down it
LABEL_GAP = 0.2  # least space between the labels of two wave strips side by side
PERIOD_LINE_PITCH = 0.42  # from the baseline of a strip's «λ ≈» to its period's under it: a line of caption text
TWIN_GAP = 0.1  # two distances whose similarities differ by less than this are not told apart by it on screen
TWIN_TURN_SECONDS = 1.2  # the hands turn on to the distance whose similarity is Δ's (``turn_to_twin``)
TWIN_READ_SECONDS = 0.8  # its turns land under the others, all at once, with the turn's formula
HAND_DELTA = 3  # positions the clock hands turn by ("hace tres palabras"): with every omega_i <= 1, under half a turn
DIFFERENCE_SECONDS = 0.8  # the outputs' new largest difference is written
FRAMES_SECONDS = 0.6  # with PE, the rows the voice names framed
COMPARISON_SECONDS = 1.5  # the largest difference flashes as long as its interval sounds (``comparison``)
FRAME_STROKE = 3  # a frame round a row or a number of the demonstration
FOCUS_STROKE = 6  # the frames round what the voice names or the sound compares, thickened: a change a viewer sees
# (a flash of colour on cyan digits changes too few grey levels a frame: review s14 measured 9.5 s as still)
ROW_BLIP_SPACING = 0.12  # between the blips of a row of the permutation's matrices: a row's figure within its reveal
ROW_SECONDS = 0.65  # a row of the demonstration's matrices lands: its blips (0.48 s) heard, the row scanned, not read
# number by number (0.4 s a number made the two permutation steps 40-60 s of filling, the voice long done)
READOUT_SECONDS = 0.3  # a hand's turn in degrees lands under its dial, with its blip
WEIGHT_ROW_SECONDS = 0.45  # a row of W_Q, W_K, W_V: the twelve rows within the voice's first sentence (at 0.6 s
# the voice waited 2 s for them, review s12)
ROW_POP_SECONDS = 0.1  # a row of small digits lands in 3 frames: over 0.2 s its thin strokes change too little
# from one frame to the next to be seen arriving (review s8: W's twelve rows read as an 8.7 s still at 720p)
LEAVING_SECONDS = 0.3  # what a step does not keep goes
POP_SECONDS = 0.2  # a piece of a build lands this fast, then stays still for the rest of its slot: a fade over
# 0.35 s reads as a still screen to a viewer (tests/scene_checks.video_stills), seconds of them as a frozen one
DEMO_CELL_PADDING = 0.23  # round X's and Z's widest number (CELL_PADDING 0.22): with the weights beside them,
WEIGHT_CELL_PADDING = 0.16  # and round the weights' (one decimal fewer), their digits still 16 px at 720p; two
# negatives side by side («−0.40 −2.00») 15 px apart at 720p (review s12: 11 px, their minus read as a separator)
SENTENCES_GAP = 0.75  # between sentence A's matrices and B's words: room for the lines pairing Z_A's rows with Z_B's
WEIGHTS_GAP = 0.2  # between sentence B's matrices and the weights kept beside them
WEIGHT_STACK_GAP = 0.25  # between W_Q, W_K and W_V stacked
WEIGHT_NAME_GAP = 0.1  # between a stacked weight matrix and its name at its left
DIMMED = 0.75  # opacity share left to the demonstration's matrices the voice is not talking about (review s12: 129
# numbers at once, legible only with the frames guiding the eye): the weights' magenta still 3:1 on the background, so
# they can be checked while the voice says «comparemos cada palabra» (review s16: 0.3 left them at 1.44:1)
DIM_SECONDS = 0.3
WEIGHTS_SECONDS = 0.4  # the weights land in their stack beside the sentences, and are looked at
FRAME_SECONDS = 0.3  # Z_B's empty brackets, before its rows come compared
VERDICT_SECONDS = 0.6  # the moved word's rows framed as the voice says the outputs are the same, reordered
COMPARED_ROW_SECONDS = 1.5  # a row of Z_B: its comparison with Z_A's row (a 1.5 s sound) ends as the next comes
HAND_SLOT = 1.0  # most room a dial takes across, frame units
TURN_SECONDS = 2.5
HAND_PULSE_WIDTH = 10  # a hand's stroke as the voice points at the hands (drawn 4 wide)
COMPARED_WORD = "perro"  # the word framed in both sentences of the permutation, named by the voice with PE
POSITION_LABEL_ROOM = 0.25  # wider cells in the sum step's grids, so "pos 0", "pos 1" under them stay apart
TABLE_BLOCK_SECONDS = 1.2  # a token's x, PE and x + PE land together: its sum was on screen in step 2, as a row
# of X_A + PE (review s12: 17 s rebuilding numbers already seen, row by row)
FIRST_ENCODING_LOOK = 1.5  # the table's last look, PE(0) framed
SUM_LARGEST_SCALE = 1.35  # steps 9-10 may grow to fill the frame: their numbers are what the viewer checks by hand
SECOND_FRAME_AFTER = 1.8  # s: the last step's second frame (a position's column) after its first (a word's row)
CAVEAT_GAP = 0.5  # between the last step's grids and the caveat under them
READER_DECIMALS = 4  # w_1, w_2 written so that the table's x and PE through them give the grids to the last decimal


def fewest_decimals(*matrices, most: int = 2) -> int:
    """The fewest decimals (up to ``most``) that write every value of ``matrices`` exactly: 1 for 0.3 and 1.5."""
    values = np.concatenate([np.ravel(matrix) for matrix in matrices])
    return next(places for places in range(most + 1) if places == most or np.allclose(values, values.round(places)))


def gap_decimals(larger: float, smaller: float, gap: float, fewest: int = 3, most: int = 6) -> int:
    """The fewest decimals (from ``fewest``) at which ``larger`` − ``smaller``, as written, gives ``gap`` as written
    with 2: 2.357 − 1.215 = 1.142 → 1.14 (at 2 decimals, 2.36 − 1.21 = 1.15)."""
    return next((places for places in range(fewest, most)
                 if f"{round(larger, places) - round(smaller, places):.2f}" == f"{gap:.2f}"), most)


def moving_decimals(values: np.ndarray, fewest: int = 2, most: int = MOST_TABLE_DECIMALS) -> int:
    """The fewest decimals (``fewest`` to ``most``) at which ``values`` are not all written alike: the slowest column's
    first rows, sin(pos / 3162), read 0.000 0.000 0.001 0.001 0.001 0.002, not six times 0.00 under «apenas se mueve»,
    which read as «does not move» (review s15)."""
    return next((places for places in range(fewest, most) if len({f"{value:.{places}f}" for value in values}) > 1),
                most)


def padded_cell_width(*matrices, padding: float, decimals: int | None = None) -> float:
    """``shared_cell_width`` with ``padding`` round the widest number instead of CELL_PADDING."""
    return shared_cell_width(*matrices, decimals=decimals) - CELL_PADDING + padding


def tex_number(value: float) -> str:
    """10000 -> "10000", 1e9 -> "10^{9}", 2.5 -> "2.5": the base as the formula writes it."""
    mantissa, _, exponent = f"{value:.6g}".partition("e")
    if not exponent:
        return mantissa
    power = f"10^{{{int(exponent)}}}"
    return power if mantissa == "1" else rf"{mantissa} \cdot {power}"


def base_power(value: float) -> str:
    """base^(2i/d) in TeX: "10000^{2i/d}", or "(10^{9})^{2i/d}" ({10^{9}}^{2i/d} reads as 10 to the 9^(2i/d))."""
    base = tex_number(value)
    return rf"\left({base}\right)^{{2i/d}}" if "^" in base else rf"{base}^{{2i/d}}"


def period_number(value: float, colour, font_size: float):
    """``power_of_ten_text(value)`` in the number font: a number_text below 10^4, a Text with a power of ten above,
    its exponent grown to EXPONENT_SHARE of a digit's height (the font's superscript digits are 0.59 of it: 10 px at
    720p, read from the back of a room as «2.0·10»)."""
    if abs(value) < 1e4:
        return number_text(value, colour, font_size)
    written = power_of_ten_text(value)
    text = Text(written, font=style.NUMBER_FONT, font_size=font_size, color=colour)
    text.shown_text = written
    exponent = VGroup(*text.submobjects[len(written.rstrip(SUPERSCRIPT_DIGITS)):])
    digit, height = text.submobjects[0], text.height
    exponent.scale(EXPONENT_SHARE * digit.height / exponent.height, about_edge=UP + LEFT)
    # raised half a digit over the baseline (the font's raise, a quarter, read «2.0·104»: review s12)
    exponent.shift(UP * (digit.get_bottom()[1] + EXPONENT_RAISE * digit.height - exponent.get_bottom()[1]))
    text.initial_height *= text.height / height  # manim reads a Text's font size off its height: the raise is no growth
    return text


class Dimmer:
    """Parts of the screen dimmed to a share of their opacity while the voice talks of something else, then lit
    again: each part's own opacities are kept when the dimmer is made, so lighting gives back exactly those."""

    def __init__(self, *mobjects):
        self.group = VGroup(*mobjects)
        self.parts = [(part, part.fill_rgbas[:, 3].copy(), part.stroke_rgbas[:, 3].copy())
                      for part in self.group.family_members_with_points() if isinstance(part, VMobject)]
        self.share = 1.0

    def to(self, share: float) -> UpdateFromAlphaFunc:
        """The parts going from the share they have to ``share`` of their own opacity."""
        start = self.share
        self.share = share

        def update(_, alpha: float):
            now = start + (share - start) * alpha
            for part, fill, stroke in self.parts:
                part.fill_rgbas[:, 3] = fill * now
                part.stroke_rgbas[:, 3] = stroke * now

        return UpdateFromAlphaFunc(self.group, update)


class PositionalScene(LessonScene):
    section_id = "positional"
    # Why first: without PE attention ignores the order (and with it, it does not); then how PE is built
    STEPS = ("permutation", "with_pe", "formula", "heatmap", "frequencies", "waves", "clock_hands", "similarity",
             "table", "sum")

    def lesson(self):
        settings = self.settings
        self.PE = sinusoidal_encoding(settings.n_positions, settings.d_model, settings.base)
        self.omega = angular_frequencies(settings.d_model, settings.base)
        self.answers = question_fields(settings)
        self.show_permutation()
        self.show_with_pe()
        self.show_formula()
        self.show_heatmap()
        self.show_frequencies()
        self.show_waves()
        self.show_clock_hands()
        self.show_similarity()
        self.show_table()
        self.show_sum()

    @property
    def labels(self) -> dict:
        return self.strings["labels"]

    # Step 3 -------------------------------------------------------------------------------------
    def show_formula(self):
        self.enter_step("formula")
        n, d = self.PE.shape
        fraction = rf"\frac{{pos}}{{{base_power(self.settings.base)}}}"
        lines = VGroup(*[MathTex(rf"PE_{{(pos,\,{index})}} = \{function}\!\left({fraction}\right)", font_size=54,
                                 color=style.TEXT)
                         for index, function in (("2i", "sin"), ("2i+1", "cos"))]).arrange(DOWN, buff=0.35)
        symbols = VGroup(*[label_text(text, style.MUTED, style.BODY_SIZE) for text in (
            self.labels["symbol_position"].format(last=n - 1),
            self.labels["symbol_dimension"].format(last=d - 1, d=d),
            self.labels["symbol_pair"])]).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        stage = VGroup(lines, symbols).arrange(DOWN, buff=0.7)
        self.place(stage)
        self.play(Write(lines), run_time=2.0)
        self.play(FadeIn(symbols, shift=UP * 0.2), run_time=1.0)
        self.wait(2.5)

    # Steps 4-6: the matrix, its frequencies, its columns as waves ---------------------------------
    def show_heatmap(self):
        n, d = self.PE.shape
        self.enter_step("heatmap")
        largest = float(np.abs(self.PE).max())
        self.colour = signed_colour(largest)
        self.heatmap, self.legend = self.build_heatmap(largest)
        self.full_grid, self.full_legend = (self.heatmap.grid.width, self.heatmap.grid.height), self.legend.height
        # Centred while it is alone on screen; back to the left once two of its rows are compared beside it.
        beside_place = VGroup(self.heatmap, self.legend).get_center()
        VGroup(self.heatmap, self.legend).set_x(sum(self.body()[:2]) / 2)
        self.pop(Appear(self.heatmap.grid), Appear(self.heatmap.number_grid), slot=0.6)
        self.beat("axes")  # rows and columns named as the voice names them
        self.pop(Appear(VGroup(self.heatmap.row_ticks, self.heatmap.row_title)), slot=1.2)
        self.pop(Appear(VGroup(self.heatmap.column_ticks, self.heatmap.column_title)), slot=0.6)
        self.beat("legend")  # the colour's key as the voice says what the colour gives
        self.cue("frequencies", dimensions=d, positions=n, angular_frequencies=self.omega.tolist(),
                 periods=(2 * np.pi / self.omega).tolist())
        self.pop(Appear(self.legend), slot=0.6)
        self.beat("rows")  # the frame on the first row as the voice says what a row is for; then it walks them
        frame = self.sweep_rows()
        # what the walk was heard to show, said as the frame leaves the last row (review s8: 9.2 s with no voice)
        self.beat("distinct")
        shift = beside_place - VGroup(self.heatmap, self.legend).get_center()
        self.play(Vanish(frame), self.heatmap.animate.shift(shift), self.legend.animate.shift(shift),
                  run_time=LEAVING_SECONDS)
        if n > 1:
            self.compare_far_rows()

    def compare_far_rows(self):
        """«No row repeats», pictured: the two far rows (Δ ≥ n/2) most alike, framed and lifted out beside the
        heatmap one over the other, the columns where they differ boxed. Even where the fastest hands have come
        round again (rows 0 and 19 of d = 16: dims 0-1 within 0.15), the slower ones differ (dims 4-6, by up to 1.32)
        (review s15: the sentence played over the bare heatmap)."""
        n, d = self.PE.shape
        rows = (0, self.most_alike_far_row())
        names = [label_text(self.labels["pos_column"].format(pos=pos), style.TEXT, style.CAPTION_SIZE) for pos in rows]
        left, right, _, _ = self.panel_region()  # the cells as wide as the room leaves: the labels at full size,
        # each row at least as tall as its name (with d = 64 square cells were thinner than «pos 45»)
        pair = Heatmap(self.PE[list(rows)], self.colour, name="PE_rows", numbers=False,
                       width=right - left - max(name.width for name in names) - COMPARED_NAME_GAP,
                       largest_cell=COMPARED_ROW_SHARE * max(name.height for name in names),
                       largest_aspect=COMPARED_ASPECT, column_ticks=round_ticks(d, most=4))
        names = VGroup(*[name.next_to(pair.cell_block([k], [0]), LEFT, buff=COMPARED_NAME_GAP)
                         for k, name in enumerate(names)])
        title = label_text(self.labels["alike_rows"], style.TEXT, style.CAPTION_SIZE)
        lifted = VGroup(title, VGroup(pair, names)).arrange(DOWN, buff=SIMILARITY_GAP)
        self.place_beside_heatmap(lifted)
        gaps = np.abs(self.PE[rows[0]] - self.PE[rows[1]])
        differ = np.flatnonzero(gaps >= DIFFERENT_CELLS)
        frames = VGroup(*[self.heatmap.row_box(pos) for pos in rows])
        boxes = [pair.box(range(2), range(differ[0], differ[-1] + 1))] if len(differ) else []
        self.pop(Create(frames), Appear(lifted), *map(Create, boxes))

    def most_alike_far_row(self) -> int:
        """The row at least n/2 positions from row 0 whose PE is most like row 0's (the largest dot product, which
        depends on the distance only: d = 16, 32 positions: row 19, 6.43 of 8)."""
        n = self.PE.shape[0]
        far = np.arange(max(1, n // 2), n)
        return int(far[np.argmax(self.PE[far] @ self.PE[0])])

    def build_heatmap(self, largest: float) -> tuple[Heatmap, ColourLegend]:
        """The PE matrix and its colour legend (-largest to largest) at the left of the body, room beside them."""
        n, d = self.PE.shape
        left, right, bottom, top = self.body()
        heatmap = Heatmap(self.PE, self.colour, name="PE", width=HEATMAP_WIDTH_SHARE * (right - left),
                          height=top - bottom - self.note_room(),
                          largest_cell=1.0, largest_aspect=HEATMAP_ASPECT,
                          row_ticks=round_ticks(n), column_ticks=round_ticks(d, most=4),
                          row_title=self.labels["position"], column_title=self.labels["dimension"])
        legend = ColourLegend(self.colour, -largest, largest, height=min(2.5, max(1.2, heatmap.grid.height)),
                              label=self.labels["value"])
        legend.next_to(heatmap.grid, RIGHT, buff=LEGEND_GAP).match_y(heatmap.grid)
        VGroup(heatmap, legend).align_to(np.array([left, top, 0]), LEFT + UP)
        return heatmap, legend

    def note_room(self) -> float:
        """Room under the heatmap for the two frequency notes, stacked when the grid is narrow."""
        return 2 * label_text(self.labels["high_frequency"], style.TEXT, style.CAPTION_SIZE).height + 3 * NOTE_GAP

    def sweep_rows(self) -> VMobject:
        """A frame walks down the rows: each row is the vector added to the token at that position. Returns the
        frame, left on the last row."""
        n = self.PE.shape[0]
        tracker = ValueTracker(0)
        frame = always_redraw(lambda: self.heatmap.row_box(int(round(tracker.get_value()))))
        seconds = min(6.0, max(3.0, 0.12 * n))
        first = self.heatmap.row_box(0)
        self.pop(Create(first), slot=POP_SECONDS)
        self.remove(first)
        self.add(frame)
        # the walk in the clear once the voice has said what a row is: heard once, not replayed over a still screen
        with self.listening():
            self.cue("position_sweep", rows=self.PE.tolist(), angular_frequencies=self.omega.tolist(),
                     duration=seconds)
            self.play(tracker.animate.set_value(n - 1), run_time=seconds, rate_func=linear)
        frame.clear_updaters()
        self.remove(tracker)
        return frame

    def show_frequencies(self):
        self.enter_step("frequencies", keep=(self.heatmap, self.legend))
        d = self.PE.shape[1]
        columns = frequency_columns(d)
        # each box round the one column the table beside it names (review s14: boxes round dims 0-1 and 14-15 beside
        # «dim 0» and «dim 14»)
        boxes = VGroup(*[self.heatmap.column_box(j) for j in columns])
        notes = self.frequency_notes(boxes)
        table = self.frequency_table(columns)
        self.place_beside_heatmap(table)
        width = len(columns) + 1
        self.cue("frequency_contrast", columns=list(columns), angular_frequencies=self.omega[list(columns)].tolist(),
                 values=[self.PE[:, j].tolist() for j in columns])
        rows = min(TABLE_ROWS, self.PE.shape[0])
        for k, (box, note) in enumerate(zip(boxes, notes)):  # each side's column as the voice names it
            if k:
                self.beat("right")
            column = table[k + 1::width]  # its header, its numbers and its verdict
            self.pop(Create(box), Appear(note), Appear(column[0]), *([Appear(table[::width][:-1])] if not k else []),
                     slot=0.6)
            for number in column[1:rows + 1]:  # down the positions: changing at every step, or barely
                self.pop(Appear(number), slot=0.3)
            self.pop(Appear(column[-1]), slot=1.0)
        self.wait(1.0)
        self.frequency_labels = notes

    def frequency_notes(self, boxes: VGroup) -> VGroup:
        """"alta frecuencia" under the left box, "baja frecuencia" under the right one, stacked if they would touch."""
        high = label_text(self.labels["high_frequency"], style.TEXT, style.CAPTION_SIZE)
        high.next_to(boxes[0], DOWN, buff=NOTE_GAP).align_to(boxes[0], LEFT)
        if len(boxes) == 1:
            return VGroup(high)
        low = label_text(self.labels["low_frequency"], style.TEXT, style.CAPTION_SIZE)
        low.next_to(boxes[-1], DOWN, buff=NOTE_GAP).align_to(boxes[-1], RIGHT)
        if low.get_left()[0] < high.get_right()[0] + 0.2:
            low.next_to(high, DOWN, buff=NOTE_GAP).align_to(boxes[-1], RIGHT)
        return VGroup(high, low)

    def frequency_table(self, columns: tuple[int, ...]) -> VGroup:
        """PE[pos, j] for the first positions of the boxed columns, and whether each visibly changes per step."""
        positions = range(min(TABLE_ROWS, self.PE.shape[0]))
        decimals = {j: moving_decimals(self.PE[positions, j]) for j in columns}
        header = [label_text(self.labels["position_short"], style.MUTED, style.CAPTION_SIZE)]
        header += [label_text(self.labels["dim"].format(j=j), style.MUTED, style.CAPTION_SIZE) for j in columns]
        rows = [header]
        for pos in positions:
            row = [number_text(pos, style.MUTED, decimals=0)]
            for j in columns:
                text = number_text(self.PE[pos, j], interpolate_color(self.colour(self.PE[pos, j]), style.TEXT,
                                                                      TABLE_TEXT_MIX), decimals=decimals[j])
                text.tag = ("PE", (pos, j))
                row.append(text)
            rows.append(row)
        verdicts = [label_text(self.labels["changes" if changes else "barely"], style.TEXT, style.CAPTION_SIZE)
                    for changes in visibly_changing(self.PE, columns)]
        rows.append([VGroup()] + verdicts)
        return VGroup(*[item for row in rows for item in row]).arrange_in_grid(
            rows=len(rows), cols=len(columns) + 1, buff=(0.6, 0.18))

    def show_waves(self):
        columns = self.wave_columns()
        periods = 2 * np.pi / self.omega[list(columns)]
        self.enter_step("waves", keep=(self.heatmap, self.legend, self.frequency_labels),
                        shortest=power_of_ten_text(periods[0]), longest=power_of_ten_text(periods[-1]))
        boxes = VGroup(*[self.heatmap.column_box(j, stroke_width=2) for j in columns])
        strips = self.wave_strips(columns, periods)
        self.play(Create(boxes), run_time=0.6)
        for j, period, strip, box in zip(columns, periods, strips, boxes):
            seconds = 2.5
            if j == columns[-1]:
                self.beat("slowest")  # the longest period is said as its strip comes, not before
            self.pop(Appear(strip.frame), Appear(strip.labels), box.animate.set_stroke(width=5), slot=0.5)
            self.cue("wave", dimension=int(j), angular_frequency=float(self.omega[j]), period=float(period),
                     samples=self.PE[:, j].tolist(), duration=seconds)
            # lag_ratio 1: each dot appears in its own slice of the time, as the curve reaches it.
            self.play(Create(strip.curve), Appear(strip.dots, lag_ratio=1), run_time=seconds, rate_func=linear)
            self.play(box.animate.set_stroke(width=2), run_time=0.3)
        # no wait of its own: the finished strips are held by the step (its key sound replayed, FINISHED_HOLD)

    def wave_columns(self) -> list[int]:
        """Up to four sin columns spread from the fastest to the slowest."""
        sin_columns = np.arange(0, self.PE.shape[1], 2)
        picks = np.linspace(0, len(sin_columns) - 1, min(MOST_WAVES, len(sin_columns))).round().astype(int)
        return [int(sin_columns[k]) for k in sorted(set(picks))]

    def wave_strips(self, columns: list[int], periods: np.ndarray) -> VGroup:
        """One vertical strip per column, its samples on the heatmap's rows: value -1 left, +1 right."""
        left, right, _, _ = self.panel_region()
        width = min(1.9, (right - left) / len(columns) - 0.3)
        gap = (right - left - width * len(columns)) / max(1, len(columns)) * 0.8
        strips = VGroup(*[self.wave_strip(j, period, width) for j, period in zip(columns, periods)])
        # A strip's labels may use the gap beside it, so a long period ("λ ≈ 2.0·10⁴") stays on one line; the
        # labels all shrink alike if one still does not fit, so no period reads smaller than the others.
        room = width + gap - LABEL_GAP
        factor = min(1.0, *(room / label.width for strip in strips for label in strip.labels))
        for strip in strips:
            for label in strip.labels:
                label.scale(factor)
        strips.arrange(RIGHT, buff=gap)
        strips.set_x((left + right) / 2)
        for strip in strips:
            strip.shift(UP * (self.heatmap.row_centre(0)[1] - strip.curve.get_start()[1]))
        return strips

    def wave_strip(self, j: int, period: float, width: float) -> VGroup:
        """Column ``j``'s samples down a strip ``width`` wide, named above and with its period λ under it."""
        rows = self.PE.shape[0]
        ys = [self.heatmap.row_centre(i)[1] for i in range(rows)]
        top, bottom = ys[0], ys[-1]
        half = 0.45 * width
        guides = VGroup(*[Line(np.array([x, top, 0]), np.array([x, bottom, 0]), stroke_width=1 if x else 2,
                               color=style.MUTED, stroke_opacity=0.5 if x else 0.9) for x in (-half, 0.0, half)])
        points = [np.array([value * half, y, 0]) for value, y in zip(self.PE[:, j], ys)]
        curve = VMobject(stroke_color=style.TEXT, stroke_width=3).set_points_smoothly(points)
        radius = max(0.025, min(0.06, 0.3 * self.heatmap.cell_height))
        dots = VGroup(*[Dot(point, radius=radius, color=self.colour(value), stroke_color=style.TEXT,
                            stroke_width=1.5) for point, value in zip(points, self.PE[:, j])])
        name = label_text(self.labels["dim"].format(j=j), style.TEXT, style.CAPTION_SIZE)
        name.next_to(guides, UP, buff=0.15)
        period_text = period_number(period, style.TEXT, style.CAPTION_SIZE)
        period_text.tag = ("period", (0, j))
        # «λ ≈» over the number, not beside it: side by side «λ ≈ 2.0·10⁴» was wider than a strip's room and every
        # label shrank to 15 px, its exponent to 8 px (review s15); the number on a baseline, not by its top (the
        # raised exponent sat «2.0·10⁴» 5 px lower than «1987»)
        symbol = label_text(self.labels["period"], style.MUTED, style.CAPTION_SIZE).next_to(guides, DOWN, buff=0.15)
        sit_on(period_text.match_x(symbol), baseline(symbol) - PERIOD_LINE_PITCH)
        labels = VGroup(name, VGroup(symbol, period_text))
        strip = VGroup(guides, curve, dots, labels)
        strip.frame, strip.curve, strip.dots, strip.labels = guides, curve, dots, labels
        return strip

    # Step 7: each (sin, cos) pair as a clock hand -----------------------------------------------
    def show_clock_hands(self):
        """Each pair of a row of PE is a hand at θ_i(pos) = ω_i·pos; from pos to pos + Δ every hand turns by
        ω_i·Δ from either start, so PE(pos + Δ) is PE(pos) turned pair by pair.

        It comes between the waves, which gave each column its speed, and the similarity, whose formula
        Σ cos(ω_i Δ) is this picture read off: each pair adds the cosine of the angle between its hand at pos and
        at pos + Δ. Having seen the turns, the student can reason out the question card the similarity opens with
        (does it depend on where the two positions are, or only on Δ?)."""
        d, base = self.PE.shape[1], self.settings.base
        starts, delta = self.hand_starts()
        turns = hand_turns(delta, d, base)
        strings = self.strings["steps"]["clock_hands"]
        twin = self.hand_twin(starts[-1], delta)
        said = "" if twin is None else strings["twin_said"].format(  # the turn on to the twin distance, said as it
            end=starts[-1] + twin, turn=degrees_written(hand_turns(twin, d, base)[0]))  # turns (review s16: silent)
        self.enter_step("clock_hands", keep=(self.heatmap, self.legend),
                        caption=strings["caption" if len(starts) > 1 else "caption_one_start"],
                        delta=delta, second=starts[-1], end=starts[-1] + delta, twin=said,
                        speeds=strings["speeds"] if d >= 4 else "")  # fast and slow hands need two of them
        self.shrink_heatmap(HANDS_HEATMAP_HEIGHT)
        left, right, _, _ = self.panel_region()
        row = self.hand_row = HandRow(shown_hands(d // 2), self.colour, right - left, HAND_SLOT)
        panel = self.hand_panel(row, starts, delta, turns)
        self.hand_frame = self.heatmap.row_box(starts[0])
        self.pop(Appear(panel.formula), Appear(panel.title), Create(self.hand_frame), slot=1.0)
        self.beat("hands")  # the dials come as the voice says what a pair of a row is
        self.pop(Appear(row), Appear(panel.notes), slot=1.0)
        self.beat("up")  # "at position zero, all point up": the hands, thickened and back
        self.play(*[dial.hand.animate(rate_func=there_and_back).set_stroke(style.HIGHLIGHT, width=HAND_PULSE_WIDTH)
                    for dial in row.dials.values()], run_time=1.2)
        marks = VGroup()
        for k, start in enumerate(starts):
            if k:  # on to the next start: the hands turn on, silently
                self.beat("second")  # the first start's turns stay until the voice has said them
                self.play(Vanish(marks), self.turned(starts[k - 1] + delta, start), run_time=1.2)
            anchor = self.heatmap.row_box(start, colour=style.MUTED, stroke_width=2)
            ghosts = row.ghosts()
            self.play(Appear(ghosts), Create(anchor), run_time=0.4)
            self.beat("turn")  # the hands turn once the voice has said what a hand is
            self.cue("position_sweep", rows=self.PE[start:start + delta + 1].tolist(),
                     angular_frequencies=self.omega.tolist(), duration=TURN_SECONDS)
            self.play(self.turned(start, start + delta), run_time=TURN_SECONDS, rate_func=linear)
            arcs = row.turn_arcs(hand_angles(start, d, base), hand_angles(start + delta, d, base))
            shown = [turns[i] for i in row.dials]
            if k:
                self.beat("same")  # "they turn exactly the same" as the second turn's angles are written, not before
            name, numbers = panel.readouts[k]
            self.pop(Create(arcs), Appear(name), slot=POP_SECONDS)
            # each hand's turn lands under its dial with its blip (the blips as far apart as the numbers)
            self.cue("values", lands=True, values=np.degrees(shown).tolist(), spacing=READOUT_SECONDS, low=0.0,
                     high=180.0)
            self.cascade(numbers, READOUT_SECONDS * len(numbers))
            marks = VGroup(ghosts, anchor, arcs)
            if k < len(starts) - 1 or panel.twin is None:  # the twin's turn waits for its words, not for a look
                self.wait(1.0)
        if panel.twin is not None:
            self.turn_to_twin(panel, starts[-1], marks)
        else:
            self.pop(Appear(panel.conclusion), slot=0.8)
            self.wait(2.0)

    def turn_to_twin(self, panel: VGroup, start: int, marks: VGroup):
        """The hands turn on from start + Δ to start + the twin distance (Δ = 4, whose similarity 5.56 is Δ = 3's
        5.54 to 0.02), the arcs redrawn from ``start`` and the new turns written under the others with the turn's
        formula: the sums agree, the hands do not (the fastest turns 172° or 229°), as the voice says so (review s15:
        «las manecillas los separan» was asserted and never shown; review s16: then shown in silence)."""
        d, base = self.PE.shape[1], self.settings.base
        twin = panel.twin_delta
        end = start + panel.delta
        # the ghost hands at ``start`` and its row's frame stay: the new turn is measured from there
        self.beat("twin")  # «hasta la 12, la más rápida gira 229 grados» as the hands turn on
        self.cue("position_sweep", rows=self.PE[end:start + twin + 1].tolist(),
                 angular_frequencies=self.omega.tolist(), duration=TWIN_TURN_SECONDS)
        self.play(Vanish(marks[-1]), self.turned(end, start + twin), run_time=TWIN_TURN_SECONDS, rate_func=linear)
        name, numbers = panel.twin
        arcs = self.hand_row.turn_arcs(hand_angles(start, d, base), hand_angles(start + twin, d, base))
        turns = hand_turns(twin, d, base)
        self.cue("values", lands=True, values=np.degrees([turns[i] for i in self.hand_row.dials]).tolist(),
                 spacing=ROW_BLIP_SPACING, low=0.0, high=180.0)  # the row's figure as it lands at once
        self.pop(Create(arcs), Appear(name), Appear(numbers), Appear(panel.conclusion), slot=TWIN_READ_SECONDS)

    def hand_twin(self, start: int, delta: int) -> int | None:
        """The distance the similarity step's note writes beside Δ = HAND_DELTA, their similarities alike to within
        TWIN_GAP (d = 16: Δ = 4, 5.56 against 5.54), when the hands turn by HAND_DELTA and can go on from ``start`` to
        it; else None."""
        n, d = self.PE.shape
        if delta != HAND_DELTA or d % 2:
            return None
        curve = self.similarity_curves()[0]
        twin = self.twin_of(curve)
        return twin if twin is not None and start + twin <= n - 1 else None

    def shrink_heatmap(self, height: float):
        """The heatmap (whose rows the hands' and the curves' frames walk) gives the panel beside it room: it narrows to
        SHRUNK_HEATMAP of its first width towards its corner, its labels still legible (review s8: dials 60 px
        across, the d = 16 similarity plot 180 x 120 px, its ticks and the table's digits 15 px at 720p), its grid
        ``height`` of its first height; its colour bar shrinks less, beside it."""
        rows = self.PE.shape[0]
        corner = VGroup(self.heatmap, self.legend).get_corner(UP + LEFT)  # each on its own: a group animated would
        # stay on screen as one more mobject, which the next step, keeping the heatmap and the legend, takes away
        target = self.heatmap.generate_target()
        target.scale(SHRUNK_HEATMAP * self.full_grid[0] / target.grid.width, about_point=corner)
        target.grid.stretch_to_fit_height(height * self.full_grid[1], about_edge=UP)
        for tick, index in zip(target.row_ticks, round_ticks(rows)):  # each on its row again
            tick.set_y(target.row_centre(index)[1])
        legend = self.legend.generate_target()
        legend.scale(SHRUNK_LEGEND * self.full_legend / legend.height)
        legend.next_to(target.grid, RIGHT, buff=SHRUNK_HEATMAP * LEGEND_GAP).match_y(target.grid)
        self.play(MoveToTarget(self.heatmap), MoveToTarget(self.legend), run_time=LEAVING_SECONDS)

    def hand_starts(self) -> tuple[tuple[int, ...], int]:
        """(starts, Δ): the similarity's two starting positions and Δ = HAND_DELTA, or less where the n positions
        leave less room after the second start; with no room at all (n = 2), the first start alone."""
        n, second = self.PE.shape[0], second_start(self.PE.shape[0])
        if second + 1 <= n - 1:
            return (0, second), min(HAND_DELTA, n - 1 - second)
        return (0,), min(HAND_DELTA, n - 1)

    def turned(self, start: int, end: int) -> UpdateFromAlphaFunc:
        """The hands going from θ(start) to θ(end) as the position runs from ``start`` to ``end``, the frame on the
        heatmap at the row of the nearest position."""
        d, base = self.PE.shape[1], self.settings.base

        def update(_, alpha: float):
            pos = start + alpha * (end - start)
            self.hand_row.set_angles(hand_angles(pos, d, base))
            self.hand_frame.become(self.heatmap.row_box(int(round(pos))))

        return UpdateFromAlphaFunc(VGroup(self.hand_row, self.hand_frame), update)

    def hand_panel(self, row: HandRow, starts: tuple[int, ...], delta: int, turns: np.ndarray) -> VGroup:
        """Beside the heatmap: θ_i's formula, what a hand is, the dials with their speeds (or, when more than
        MOST_HANDS, which are drawn), one row of turns per start (and one for Δ's twin distance, ``hand_twin``), and an
        odd d's lone column; under the heatmap, the turn's formula."""
        d = self.PE.shape[1]
        labels = self.labels
        power = base_power(self.settings.base)
        formula = MathTex(rf"\theta_i(pos) = \omega_i \cdot pos, \qquad \omega_i = 1 / {power}",
                          font_size=style.BODY_SIZE + 6, color=style.TEXT)
        title = label_text(labels["hand"], style.MUTED, style.CAPTION_SIZE)
        # Under the first and the last dial: their speeds, or, with hands left out, which ones are drawn.
        ends = ("fastest", "slowest") if None in row.hands else ("high_frequency", "low_frequency")
        speeds = VGroup(*[label_text(labels[end].format(half=MOST_HANDS // 2), style.TEXT, style.CAPTION_SIZE)
                          for end in ends] if len(row.dials) > 1 else [])
        readouts = VGroup()
        for start in starts:
            name = label_text(labels["turn_row"].format(start=start, end=start + delta), style.TEXT, style.CAPTION_SIZE)
            readouts.add(VGroup(name, row.readouts(turns, style.TEXT, f"turn_from_{start}")))
        twin = self.hand_twin(starts[-1], delta)
        twin_row = VGroup()
        if twin is not None:  # the distance whose similarity is Δ's, one more row of turns from the last start
            name = label_text(labels["turn_row_twin"].format(start=starts[-1], end=starts[-1] + twin, delta=twin),
                              style.TEXT, style.CAPTION_SIZE)
            twin_row = VGroup(name, row.readouts(hand_turns(twin, d, self.settings.base), style.TEXT,
                                                 f"turn_to_{starts[-1] + twin}"))
        conclusion = MathTex(r"\theta_i(pos + \Delta) - \theta_i(pos) = \omega_i \, \Delta",
                             font_size=style.BODY_SIZE + 6, color=style.TEXT)
        notes = VGroup()
        if d % 2:
            left, right, _, _ = self.panel_region()
            notes.add(wrapped_text(labels["lone_column"].format(d=d, last=d - 1), style.MUTED, style.CAPTION_SIZE,
                                   right - left))
        panel = VGroup(*[part for part in (formula, title, row, speeds, *readouts, twin_row, notes) if len(part)])
        panel.formula, panel.title, panel.readouts, panel.conclusion = formula, title, readouts, conclusion
        panel.notes, panel.delta = VGroup(speeds, notes), delta
        panel.twin, panel.twin_delta = (twin_row, twin) if twin is not None else (None, None)
        self.arrange_hand_panel(panel, row, speeds, VGroup(*readouts, *([twin_row] if twin is not None else [])))
        # the turn's formula under the heatmap: in the panel, with Δ = 4's row of turns, it shrank the dials to 66 px
        self.place_under_heatmap(VGroup(conclusion), panel)
        return panel

    def arrange_hand_panel(self, panel: VGroup, row: HandRow, speeds: VGroup, readouts: VGroup):
        """Stacked down the panel, each row of turns under its name, the speeds under the first and last dial."""
        for name, numbers in readouts:
            name.next_to(numbers, UP, buff=0.12).align_to(numbers, LEFT)
        panel.arrange(DOWN, buff=0.2)
        for name, numbers in readouts:  # each turn under its dial, the name from the row's left or centred over it
            numbers.shift(RIGHT * (row.slot_centre(0)[0] - numbers[0].get_x()))
            if name.width <= row.width:
                name.align_to(row, LEFT)
            else:
                name.match_x(row)
        for speed, edge in zip(speeds, (LEFT, RIGHT)):
            speed.next_to(row, DOWN, buff=0.15).align_to(row, edge)
        self.place_beside_heatmap(panel)

    # Step 8: similarity by distance --------------------------------------------------------------
    def show_similarity(self):
        n, d = self.PE.shape
        base = self.settings.base
        starts = (0, second_start(self.PE.shape[0]))
        span = n - starts[1]
        curves = self.similarity_curves(columns=False)
        rise = visible_rise(curves[0]) if d % 2 == 0 else None
        # A curve that rises again is set beside the smallest larger d whose curve only falls, when there is one.
        wide = smooth_width(n, d, base) if rise is not None else None
        said = self.strings["steps"]["similarity"]["twin_said"]  # the note, said when it names a twin distance
        twin = self.twin_of(curves[0][:self.table_columns(curves[0])]) if d % 2 == 0 else None
        self.enter_step("similarity", keep=(self.heatmap, self.legend), caption=self.similarity_caption(rise, wide),
                        **self.similarity_fields(curves[0], rise), second=starts[1], half=d // 2, wide=wide,
                        ago=said if twin is not None else "")
        self.beat("sum")  # the axes and the plot's name, the product as a sum of cosines, written as the voice begins
        # on it (review s16: 4 s of empty axes while it said «Entre dos posiciones a Δ pasos, el producto punto»)
        self.shrink_heatmap(SHRUNK_HEATMAP)
        axes, axis_labels = self.similarity_axes(curves, d, "similarity_axis", share=MAIN_PLOT_SHARE if wide else 1.0)
        plots = VGroup(VGroup(axes, axis_labels))
        if wide:
            wide_curve = similarity_by_distance(span, wide, 0, base)
            wide_axes, wide_labels = self.similarity_axes([wide_curve], wide, "similarity_wide_axis",
                                                          share=WIDE_PLOT_SHARE,
                                                          small=True)
            plots.add(VGroup(wide_axes, wide_labels))
            plots.arrange(RIGHT, buff=PLOTS_GAP, aligned_edge=DOWN)
            name = axis_labels[-1]  # the sum of cosines goes over both plots, clear of the small plot's title
            name.next_to(VGroup(axes, *axis_labels[:-1], plots[1]), UP, buff=0.25).set_x(plots.get_x())
        columns = self.table_columns(curves[0])
        table = self.similarity_table(starts, curves, columns)
        self.place_beside_heatmap(VGroup(plots, table).arrange(DOWN, buff=SIMILARITY_GAP))
        identity = self.peak_identity(d) if d % 2 == 0 else None  # an odd d has a lone sin: no longer d/2
        # The seed's reading of a similarity by distance alone, at the end: «three words ago» means the same anywhere
        ago = None
        notes_left, notes_right, _, _ = self.under_heatmap_region(table)
        if identity is not None and HAND_DELTA < columns:
            ago = wrapped_text(self.three_words(curves[0][:columns]), style.TEXT, style.CAPTION_SIZE,
                               notes_right - notes_left)
        notes = VGroup(*[note for note in (identity, ago) if note is not None])
        if len(notes):  # under the heatmap, the plots beside it as tall as the body lets them be (review s11)
            self.place_under_heatmap(notes, table)
        self.pop(Create(axes), Appear(axis_labels[:-1]), slot=1.0)
        self.play(Write(axis_labels[-1]), run_time=1.0)
        self.draw_similarity(axes, starts[0], curves[0], dashed=False)
        self.beat("row")  # the first curve's numbers, and why it starts at d/2, as the voice says so
        if identity is not None:
            self.pop(Appear(identity), slot=0.8)
        self.pop(Appear(table[0][0]), Appear(table[0][columns + 1:]), slot=0.4)  # the row's name, the distances
        self.cascade(table[0][1:columns + 1], self.reveal_seconds(columns))
        self.wait(1.0)
        rise_marks = VGroup()
        if rise is not None:
            self.beat("rise")  # where the curve climbs again, on the curve and in the table, as the voice says so
            rise_marks = self.rise_marks(axes, curves[0], rise, table[0])
            self.play(*[Create(mark) for mark in rise_marks], run_time=1.0)
        if wide:
            self.beat("wide")
            self.pop(Create(wide_axes), Appear(wide_labels), slot=0.8)
            seconds = min(4.0, max(2.0, 0.1 * span))
            self.cue("similarity_curve", start=0, d_model=wide, deltas=list(range(span)),
                     similarities=wide_curve.tolist(), duration=seconds)
            self.play(Create(self.curve_line(wide_axes, wide_curve, style.OUTPUT)), run_time=seconds, rate_func=linear)
        self.draw_similarity(axes, starts[1], curves[1], dashed=True)
        self.beat("same")
        self.pop(Appear(table[1][0]), slot=0.4)
        self.cascade(table[1][1:], self.reveal_seconds(columns))
        self.beat("ago")  # «three and four steps nearly tie, but not their hands», with the note that shows it
        # both rows framed as one: the same numbers from either start (and the finished screen's last change, so the
        # step's reading time does not end on a long still screen); Δ = 3 framed down both rows with its reading
        framed = [table] if ago is None else [VGroup(table[0][1 + HAND_DELTA], table[1][1 + HAND_DELTA],
                                                     table[0][columns + 2 + HAND_DELTA])]
        self.pop(*[Create(SurroundingRectangle(part, color=style.HIGHLIGHT, buff=0.1, stroke_width=2.5,
                                               corner_radius=0.06)) for part in framed],
                 *([Appear(ago)] if ago is not None else []),
                 *([Vanish(rise_marks)] if ago is not None and len(rise_marks) else []), slot=0.8)

    def similarity_curves(self, columns: bool = True) -> list[np.ndarray]:
        """PE_pos · PE_pos+Δ from pos 0 and from the second start, over the distances both reach (neither curve seems
        to change style where the other ends); with ``columns``, over the similarity table's distances only."""
        n, d = self.PE.shape
        second = second_start(n)
        curves = [similarity_by_distance(n, d, start, self.settings.base)[:n - second] for start in (0, second)]
        return [curve[:self.table_columns(curves[0])] for curve in curves] if columns else curves

    def table_columns(self, curve: np.ndarray) -> int:
        """How many distances the similarity table lists: up to the top of the curve's first visible climb when that
        takes SIMILARITY_COLUMNS to MOST_SIMILARITY_COLUMNS of them, else SIMILARITY_COLUMNS (at most the curve's)."""
        rise = visible_rise(curve) if self.PE.shape[1] % 2 == 0 else None
        reaches = rise is not None and SIMILARITY_COLUMNS <= rise[1] + 1 <= MOST_SIMILARITY_COLUMNS
        return min(len(curve), rise[1] + 1 if reaches else SIMILARITY_COLUMNS)

    @staticmethod
    def twin_of(curve: np.ndarray) -> int | None:
        """The other distance of ``curve`` whose similarity is Δ = HAND_DELTA's to within TWIN_GAP (d = 16: Δ = 4,
        5.56 beside 5.54), or None: two distances the similarity alone does not tell apart on screen."""
        if HAND_DELTA >= len(curve):
            return None
        others = [delta for delta in range(len(curve)) if delta != HAND_DELTA]
        twin = min(others, key=lambda delta: abs(curve[delta] - curve[HAND_DELTA]))
        return twin if abs(curve[twin] - curve[HAND_DELTA]) < TWIN_GAP else None

    def three_words(self, curve: np.ndarray) -> str:
        """«three words ago»: Δ = HAND_DELTA's similarity, the same from any start; when another distance of the
        table has nearly the same one, both, and how the hands tell them apart: the fastest one's turns for either
        distance, as step 7 wrote them (review s13: 5.54 was offered as Δ = 3's signature; review s15: «las manecillas
        los separan» said nothing that showed it)."""
        value, twin = curve[HAND_DELTA], self.twin_of(curve)
        if twin is None:
            return self.labels["three_words"].format(value=format_number(value))
        fastest = hand_turns(1, self.PE.shape[1], self.settings.base)[0]
        return self.labels["three_words_twin"].format(value=format_number(value), other=twin,
                                                      twin=format_number(curve[twin]),
                                                      turn=degrees_written(fastest * HAND_DELTA),
                                                      twin_turn=degrees_written(fastest * twin))

    @staticmethod
    def rise_marks(axes: Axes, curve: np.ndarray, rise: tuple[int, int], row: VGroup) -> VGroup:
        """A frame round the curve from Δ = valley to Δ = top, and one round the table row's numbers over those
        distances (as many as the table has)."""
        valley, top = rise
        climb = SurroundingRectangle(VGroup(*[Dot(axes.c2p(delta, curve[delta]), radius=0.05)
                                              for delta in range(valley, top + 1)]),
                                     color=style.HIGHLIGHT, buff=0.08, stroke_width=2.5)
        numbers = row[1 + valley:2 + top]  # row[0] is the row's name, row[1 + Δ] its number at Δ
        frame = [SurroundingRectangle(numbers, color=style.HIGHLIGHT, buff=0.06, stroke_width=2.5)] if len(numbers) else []
        return VGroup(climb, *frame)

    @staticmethod
    def similarity_fields(curve: np.ndarray, rise: tuple[int, int] | None) -> dict:
        """Where the curve climbs again, as the caption says it: from ``low`` at Δ = ``valley`` to ``high`` at
        Δ = ``top`` (the table reaches ``top``)."""
        if rise is None:
            return {}
        valley, top = rise
        return {"valley": valley, "top": top, "low": format_number(curve[valley]), "high": format_number(curve[top])}

    def similarity_caption(self, rise: int | None, wide: int | None) -> str:
        """Odd d: the curves part. Even d: the curve only falls, or it rises again, beside a d whose curve
        only falls, or beside none (a base so small that every frequency is fast)."""
        strings = self.strings["steps"]["similarity"]
        if self.PE.shape[1] % 2:
            return strings[f"caption_{odd_variant(*self.PE.shape, self.settings.base)}"]
        if rise is None:
            return strings["caption_falls"]
        return strings["caption_rises" if wide else "caption_rises_always"]

    def similarity_axes(self, curves: list[np.ndarray], d: int, tag: str, share: float,
                        small: bool = False) -> tuple[Axes, VGroup]:
        """Axes ``share`` of the panel wide for PE_pos · PE_pos+Δ over the distances, labelled 0 and the peak
        d/2 (tagged ``tag``); the main plot is named by the sum of cosines it is (for an even d), a small one
        by its d."""
        n = max(len(curve) for curve in curves)
        left, right, bottom, top = self.panel_region()
        low, peak = min(0.0, *(float(curve.min()) for curve in curves)), max(float(curve.max()) for curve in curves)
        x_ticks = round_ticks(n, most=3 if small else 5)
        width = min(7.0, right - left - 1.6)
        axes = Axes(x_range=[0, max(1, n - 1), x_ticks[1] if len(x_ticks) > 1 else 1],
                    y_range=[low, peak, peak - low],
                    x_length=share * width,
                    y_length=min(3.0, PLOT_SHARE * (top - bottom)), tips=False,
                    axis_config={"color": style.MUTED, "stroke_width": 2},
                    y_axis_config={"include_ticks": False})
        labels = VGroup()
        values = (0.0, peak / 2, peak) if small else (0.0, peak)  # the small plot's half-way too (review s12)
        for k, value in enumerate(values):
            text = number_text(value, style.MUTED, style.CAPTION_SIZE, decimals=0 if small else 2)
            text.tag = (tag, (0, k))
            labels.add(text.next_to(axes.c2p(0, value), LEFT, buff=0.3))  # clear of the curve's Δ = 0 marker
        for tick in x_ticks:
            labels.add(number_text(tick, style.MUTED, style.CAPTION_SIZE, decimals=0)
                       .next_to(axes.c2p(tick, low), DOWN, buff=0.15))
        distance = label_text(self.labels["distance"], style.MUTED, style.CAPTION_SIZE)
        labels.add(distance.next_to(labels[-1], DOWN, buff=0.12).align_to(axes.x_axis, RIGHT))
        if small:
            name = label_text(self.labels["wide_plot"].format(d=d), style.OUTPUT, style.CAPTION_SIZE)
        else:
            name = MathTex(self.similarity_tex(d), font_size=style.BODY_SIZE + 6, color=style.TEXT)
        labels.add(name.next_to(axes.y_axis, UP, buff=0.25).align_to(labels[len(values) - 1], LEFT))
        return axes, labels

    @staticmethod
    def similarity_tex(d: int) -> str:
        """PE_pos · PE_pos+Δ, and for an even d the sum of its d/2 cosines, one per frequency."""
        name = r"PE_{pos} \cdot PE_{pos+\Delta}"
        return name if d % 2 else rf"{name} = \sum\nolimits_{{i=0}}^{{{d // 2 - 1}}} \cos(\omega_i \Delta)"

    @staticmethod
    def peak_identity(d: int) -> MathTex:
        """Why the peak is d/2: at Δ = 0 each of the d/2 pairs adds sin² + cos² = 1 (the curve's title names the
        product; "PE_pos · PE_pos =" written again made the line wider than the panel once its scripts were legible)."""
        return MathTex(rf"\Delta = 0:\ \sum\nolimits_{{i=0}}^{{{d // 2 - 1}}} (\sin^2 + \cos^2) = {d // 2} = d/2",
                       font_size=style.BODY_SIZE + 6, color=style.TEXT)

    @staticmethod
    def curve_line(axes: Axes, values: np.ndarray, colour, dashed: bool = False) -> VMobject:
        """``values`` over Δ = 0, 1, ... as a smooth line on ``axes``."""
        points = [axes.c2p(delta, value) for delta, value in enumerate(values)]
        line = VMobject(stroke_color=colour, stroke_width=3)
        line.set_points_smoothly(points) if len(points) > 1 else line.set_points_as_corners(points * 2)
        return DashedVMobject(line, num_dashes=max(2, 3 * len(points))) if dashed else line

    @staticmethod
    def curve_marker(point, dashed: bool) -> VMobject:
        """A value of the curve from pos 0 (a dot) or of the dashed one from the second start (a ring)."""
        if dashed:
            return Circle(radius=0.09, color=style.MUTED, stroke_width=2.5).move_to(point)
        return Dot(point, radius=0.05, color=style.TEXT)

    def draw_similarity(self, axes: Axes, start: int, similarities: np.ndarray, dashed: bool):
        """Grow the curve Δ by Δ while frames mark rows pos and pos + Δ on the heatmap, its sound in the clear: the
        step's answer is heard, the curve from the second start sounds as the first did."""
        points = [axes.c2p(delta, value) for delta, value in enumerate(similarities)]
        colour = style.MUTED if dashed else style.TEXT
        markers = VGroup(*[self.curve_marker(point, dashed) for point in points])
        tracker = ValueTracker(0)
        anchor = self.heatmap.row_box(start)
        moving = always_redraw(lambda: self.heatmap.row_box(start + int(round(tracker.get_value()))))
        seconds = min(5.0, max(2.0, 0.12 * len(points)))
        self.play(Create(anchor), run_time=0.4)
        self.add(moving)
        with self.listening():
            self.cue("similarity_curve", start=start, deltas=list(range(len(points))),
                     similarities=similarities.tolist(), duration=seconds)
            self.play(Create(self.curve_line(axes, similarities, colour, dashed)),
                      Appear(markers, lag_ratio=1), tracker.animate.set_value(len(points) - 1),
                      run_time=seconds, rate_func=linear)
        moving.clear_updaters()
        self.remove(tracker)
        self.play(Vanish(anchor), Vanish(moving), run_time=0.4)

    def similarity_table(self, starts: tuple[int, int], curves: list[np.ndarray], columns: int) -> VGroup:
        """PE_pos · PE_pos+Δ for the first ``columns`` distances, one row per starting position, each row named
        with its curve's marker (dots from pos 0, rings from the second start): the plot's legend."""
        header = [label_text(self.labels["delta"], style.MUTED, style.CAPTION_SIZE)]
        header += [number_text(delta, style.MUTED, style.CAPTION_SIZE, decimals=0) for delta in range(columns)]
        rows = []
        for k, (start, similarities) in enumerate(zip(starts, curves)):
            colour = style.TEXT  # both rows read alike: the ring or the dot says which curve
            name = label_text(self.labels["from_position"].format(start=start), colour, style.CAPTION_SIZE)
            row = [VGroup(self.curve_marker(ORIGIN, dashed=k > 0), name).arrange(RIGHT, buff=0.15)]
            for delta in range(columns):
                text = number_text(similarities[delta], colour, style.CAPTION_SIZE)
                text.tag = (f"similarity_from_{start}", (0, delta))
                row.append(text)
            rows.append(row)
        grid = VGroup(*[item for row in (header, *rows) for item in row]).arrange_in_grid(
            rows=3, cols=columns + 1, buff=(0.22, 0.15), col_alignments="r" + "c" * columns)
        return VGroup(VGroup(*grid[columns + 1:2 * columns + 2], *grid[:columns + 1]),
                      VGroup(*grid[2 * columns + 2:]))

    # Steps 9-10: three contiguous tokens with d = 4 -------------------------------------------------
    def show_table(self):
        self.enter_step("table", new_numbers=3 * contiguous_tokens_example().x.size)
        example = contiguous_tokens_example()
        self.example = example
        self.table = self.token_table(example)
        self.place(self.table, largest_scale=SUM_LARGEST_SCALE)
        for k, token in enumerate(example.tokens):  # the header with the first token
            self.cue("vector_sum", lands=True, token=token, position=int(example.positions[k]),
                     x=example.x[k].tolist(), pe=example.pe[k].tolist(), x_plus_pe=example.x_plus_pe[k].tolist())
            # the sum lands in its own row, with x and PE: copies of x and PE morphing into it were drawn over the
            # rows they came from (review s11: the rows drawn twice for 0.3 s)
            self.pop(*([Appear(self.table.header)] if k == 0 else []), Appear(VGroup(*self.table.blocks[k])),
                     slot=TABLE_BLOCK_SECONDS)
        self.show_first_encoding()
        self.wait(FIRST_ENCODING_LOOK)

    def show_first_encoding(self):
        """PE(0) as the voice reads it: its sines (0), its cosines (1), then the whole row, not the zero vector."""
        row = self.table.blocks[0][1]
        frames = [VGroup(*[SurroundingRectangle(row.numbers[j], color=style.HIGHLIGHT, buff=0.06, stroke_width=2.5)
                           for j in range(first, len(row.numbers), 2)]) for first in (0, 1)]
        # without a voice, the first two frames share what is left of the step's reading time and the last ends it (a
        # slot after it too held the finished table 6.6 s once its rows landed a token at a time); with one, its
        # phrases space them
        slot = POP_SECONDS if self.spoken() else max(POP_SECONDS,
                                                     self.reveal_seconds(fill_after=FIRST_ENCODING_LOOK) / 2)
        for said, frame in zip(("zero", "cosine"), frames):
            self.beat(said)  # the sines as «el seno vale cero», the cosines as «y el coseno uno»
            self.pop(Create(frame), slot=slot)
        self.beat("nonzero")  # the row and its comment as «no es el vector nulo»
        self.pop(*[Vanish(frame) for frame in frames],
                 Create(SurroundingRectangle(VGroup(row.body, row.comment), color=style.HIGHLIGHT, buff=0.08,
                                             stroke_width=2.5)))

    def token_table(self, example) -> VGroup:
        """Vector | dim 0..3 | comment, three rows (x, PE, x + PE) per token; PE cells in the heatmap's colours.

        x + PE is attention's input X, so it keeps the input's colour (style.OUTPUT is for Z)."""
        labels = self.labels
        header = [label_text(labels["vector"], style.MUTED, style.CAPTION_SIZE)]
        header += [label_text(labels["dim"].format(j=j), style.MUTED, style.CAPTION_SIZE)
                   for j in range(example.x.shape[1])]
        header.append(label_text(labels["comment"], style.MUTED, style.CAPTION_SIZE))
        rows, blocks = [header], []
        for k, (token, pos) in enumerate(zip(self.shown_words(example.tokens), example.positions)):
            block = [TableRow(labels["x_row"].format(token=token), example.x[k], "x", k,
                              labels["comments_x"][k].format(token=token), style.INPUT),
                     TableRow(labels["pe_row"].format(pos=pos), example.pe[k], "pe", k,
                              labels["comments_pe"][k], style.TEXT),
                     TableRow(labels["sum_row"].format(pos=pos), example.x_plus_pe[k], "x_plus_pe", k,
                              labels["comments_sum"][k].format(token=token, pos=pos), style.INPUT)]
            rows.extend(row.items for row in block)
            blocks.append(block)
        cols = len(header)
        VGroup(*[item for row in rows for item in row]).arrange_in_grid(
            rows=len(rows), cols=cols, buff=(0.4, TABLE_ROW_GAP), col_alignments="l" + "r" * (cols - 2) + "l")
        fill_width = max(text.width for row in rows[1:] for text in row[1:-1]) + CELL_PADDING
        for k, (x_row, pe_row, sum_row) in enumerate(blocks):
            VGroup(x_row, pe_row, sum_row).shift(DOWN * BLOCK_GAP * k)
            pe_row.add_fills(self.colour, fill_width)
        table = VGroup(VGroup(*header), *[row for block in blocks for row in block])
        table.header, table.blocks = table[0], blocks
        return table

    def show_sum(self):
        """Each word of the table at each of its positions, read by two projections: w_1 gives a word one number
        wherever it stands, w_2 a position one number whatever word is there (attn_math.positional.separate_readings)."""
        readings = separate_readings(self.example)
        self.enter_step("sum", new_numbers=readings.word_reader.size * 2 + readings.by_word.size * 2)
        words = self.shown_words(self.example.tokens)
        readers = LabelledMatrix(np.column_stack([readings.word_reader, readings.position_reader]), r"w_1 \quad w_2",
                                 style.WEIGHT_MATRIX, "readers", decimals=READER_DECIMALS)
        width = shared_cell_width(readings.by_word, readings.by_position) + POSITION_LABEL_ROOM
        grids = [LabelledMatrix(values, rf"(x + PE)\,w_{index}", style.INPUT, name, cell_width=width)
                 for index, (values, name) in enumerate(((readings.by_word, "by_word"),
                                                         (readings.by_position, "by_position")), start=1)]
        # each note on the lines of its own column: the stage narrower, so it grows to the frame's height
        notes = [wrapped_text(self.labels[key], style.MUTED, style.CAPTION_SIZE, matrix.width + 0.4)
                 for key, matrix in zip(("readers_note", "reads_word", "reads_position"), (readers, *grids))]
        columns = [VGroup(readers, notes[0]).arrange(DOWN, buff=0.3)]
        for grid, note in zip(grids, notes[1:]):
            positions = VGroup(*[label_text(self.labels["pos_column"].format(pos=int(pos)), style.MUTED,
                                            style.CAPTION_SIZE).next_to(grid.cells[-1][j], DOWN, buff=0.25)
                                 for j, pos in enumerate(self.example.positions)])
            columns.append(VGroup(grid, self.row_words(grid, words), positions, note))
            note.next_to(positions, DOWN, buff=0.3)
        stage = VGroup(*columns).arrange(RIGHT, buff=0.6, aligned_edge=UP)
        # what w_1, w_2 are (built to show it can be done) and what that means for attention, under the grids
        # at its own size across the body: scaled with the grids to fit, its letters were 14 px high (review s16)
        left, right, _, _ = self.body()
        learned = wrapped_text(self.labels["readers_built"], style.TEXT, style.BODY_SIZE, right - left)
        self.place(stage, bottom_room=learned.height + CAVEAT_GAP, largest_scale=SUM_LARGEST_SCALE)
        learned.next_to(stage, DOWN, buff=CAVEAT_GAP)
        # the words come with «la suma no borra la palabra», their positions with «en cada posición»
        self.pop(*[Appear(grid.frame) for grid in grids], *[Appear(column[1]) for column in columns[1:]], slot=0.8)
        self.beat("grids")  # every word at every position: the two grids' rows and columns, still empty
        self.pop(*[Appear(column[2]) for column in columns[1:]], slot=0.8)
        self.beat("readers")
        self.pop(Appear(readers.frame), Appear(notes[0]), slot=0.6)
        for j in range(readers.values.shape[1]):  # w_1, then w_2: a column of weights at a time
            self.pop(Appear(VGroup(*[row[j] for row in readers.entries])), slot=1.0)
        closing = (0.6, 0.8, 1.5)  # a note, the two frames, a last look: after the last grid, within the reading time
        scale = float(max(np.abs(grid.values).max() for grid in grids))
        for grid, column, said in zip(grids, columns[1:], ("word", "position")):
            self.beat(said)  # each reading as the voice says what it reads
            last = grid is grids[-1]  # a silent step's reading time is filled by the last reveal, not a long wait
            self.rows_heard(grid, self.reveal_seconds(grid.values.size, fill_after=sum(closing) if last else None),
                            scale)
            self.pop(Appear(column[3]), slot=closing[0])
        middle = len(words) // 2  # one word's row alike, one position's column alike
        self.beat("both")
        # the row's frame with the voice, the column's while it still talks: the section's last screen is not held
        # still for the whole sentence and the replay after it (review s14: 6.3 s)
        self.pop(Create(grids[0].row_box(middle)), Appear(learned), slot=SECOND_FRAME_AFTER)
        self.pop(Create(grids[1].column_box(middle)), slot=closing[1] + closing[2] - SECOND_FRAME_AFTER)

    # Steps 1-2: the permutation argument --------------------------------------------------------
    def show_permutation(self):
        """The weights both sentences share, then each sentence's input X above its output Z = Attention(X), A beside
        B: the same rows in, reordered, give the same rows out, reordered."""
        demo = self.demo = permutation_demo()
        self.demo_scale = float(max(np.abs(values).max() for values in (  # the blips' one scale, both steps
            demo.steps_a.X, demo.steps_a_pe.X, demo.output_a, demo.output_b, demo.output_a_pe, demo.output_b_pe)))
        self.enter_step("permutation", new_numbers=demo.W_Q.size + demo.W_K.size + demo.W_V.size)
        intro = self.show_demo_weights()
        width = padded_cell_width(*(steps.X for steps in self.demo_steps(False) + self.demo_steps(True)),
                                  demo.output_a, demo.output_b, demo.output_a_pe, demo.output_b_pe,
                                  padding=DEMO_CELL_PADDING)
        self.inputs = [self.input_matrix(steps.X, side, False, width) for side, steps in zip("AB", self.demo_steps(False))]
        self.outputs = [self.output_matrix(demo.output_a, "A", False, width),
                        self.output_matrix(demo.output_b, "B", False, width)]
        shown = [self.shown_words(tokens) for tokens in (demo.tokens_a, demo.tokens_b)]
        self.input_words = [self.row_words(matrix, tokens) for matrix, tokens in zip(self.inputs, shown)]
        self.words = [self.row_words(matrix, tokens) for matrix, tokens in zip(self.outputs, shown)]
        sentences = [label_text(self.labels[f"sentence_{side}"].format(sentence=" ".join(tokens)), style.TEXT,
                                style.BODY_SIZE) for side, tokens in zip("ab", shown)]
        columns = [VGroup(sentence, VGroup(source, source_words), VGroup(output, words)).arrange(DOWN, buff=0.3)
                   for sentence, source, source_words, output, words
                   in zip(sentences, self.inputs, self.input_words, self.outputs, self.words)]
        for source, source_words, output in zip(self.inputs, self.input_words, self.outputs):
            # bracket over bracket, whatever the widths of the labels
            VGroup(source, source_words).shift(RIGHT * (output.brackets.get_right()[0] - source.brackets.get_right()[0]))
        stage = VGroup(*columns).arrange(RIGHT, buff=SENTENCES_GAP, aligned_edge=UP)
        # the weights stay beside the sentences, stacked: Z is checked against the W's that made it (review s11)
        weights = self.weights = self.stacked(self.demo_weights())
        layout = VGroup(stage, weights).arrange(RIGHT, buff=WEIGHTS_GAP, aligned_edge=UP)
        verdict_label = self.verdict_label = label_text(self.labels["difference"], style.TEXT, style.BODY_SIZE)
        self.place(layout, bottom_room=verdict_label.height + 0.3)
        # gone, then back in their stack at once: moved, they crossed one another and their names their numbers
        self.play(Vanish(intro), run_time=LEAVING_SECONDS)
        self.pop(Appear(weights), slot=WEIGHTS_SECONDS)
        self.difference = self.difference_number(demo.output_a, demo.output_b)
        VGroup(verdict_label, self.difference).arrange(RIGHT, buff=0.15).next_to(stage, DOWN, buff=0.3)
        links = self.links = self.row_links()
        # what the voice is not talking about steps back: the weights, read, while the sentences come (lit again as
        # the outputs they make come: review s15, Z_A was built beside weights at 1.44:1); weights and inputs while
        # the outputs are compared; all lit again with the verdict (review s12: 129 numbers at once)
        weights_dimmer = self.weights_dimmer = Dimmer(weights)
        inputs_dimmer = Dimmer(*self.inputs, *self.input_words)
        for said, sentence, source, words in zip(("first", "other"), sentences, self.inputs, self.input_words):
            self.beat(said)  # each sentence is named as its rows come, not while the one before is being written
            dimming = [weights_dimmer.to(DIMMED)] if said == "first" else []
            self.pop(Appear(sentence), Appear(source.frame), *dimming, slot=0.6)
            self.reveal_rows(source, words)
        first, second = self.outputs
        self.beat("outputs")
        self.pop(Appear(first.frame), weights_dimmer.to(1.0), slot=0.6)
        self.reveal_rows(first, self.words[0])
        self.beat("pairs")  # "let us compare each word" as the second sentence's outputs come: no result yet
        # Z_B's rows complete the pairs of rows of one token: each pair is compared as it lands
        self.pop(Appear(second.frame), inputs_dimmer.to(DIMMED), weights_dimmer.to(DIMMED), slot=FRAME_SECONDS)
        self.reveal_rows(second, self.words[1], self.cue_pair, seconds=COMPARED_ROW_SECONDS)
        with self.listening():  # the verdict's unison in the clear: with PE (next step) it becomes an interval
            self.cue("outputs_compared", lands=True, with_pe=False,
                     max_difference=self.max_difference(demo.output_a, demo.output_b))
            self.play(Create(links), Appear(verdict_label), Appear(self.difference), weights_dimmer.to(1.0),
                      inputs_dimmer.to(1.0), run_time=POP_SECONDS)  # the lines pairing the rows with the 0.00
        # «the same, only in another order» said (and read in the caption) once every row and the 0.00 are on screen,
        # the moved word's rows framed in both sentences as it is said (review s13: the claim ran 4-7 s ahead)
        self.beat("verdict")
        self.word_frames = self.token_frames(COMPARED_WORD)  # inputs A and B, then outputs A and B
        self.play(Create(self.word_frames), run_time=VERDICT_SECONDS)

    def show_demo_weights(self) -> VGroup:
        """W_Q, W_K and W_V of the demonstration, the same for both sentences, read large before they take their place
        beside the sentences; returns them with the note above them, still on screen."""
        weights = self.demo_weights()
        note = label_text(self.labels["same_weights"], style.TEXT, style.BODY_SIZE)
        stage = VGroup(note, weights.arrange(RIGHT, buff=0.8)).arrange(DOWN, buff=0.5)
        self.place(stage)
        self.pop(Appear(note), *[Appear(matrix.frame) for matrix in weights], slot=0.5)
        scale = float(max(np.abs(matrix.values).max() for matrix in weights))
        for matrix in weights:  # one matrix after another, row by row, each row heard as it lands
            self.rows_heard(matrix, WEIGHT_ROW_SECONDS * len(matrix.entries), scale)
        self.wait(1.0)
        return stage

    def demo_weights(self) -> VGroup:
        """W_Q, W_K, W_V in narrow cells (their fewest decimals, WEIGHT_CELL_PADDING), at the size of X's and Z's
        digits: narrow enough to stay beside the sentences' matrices."""
        demo = self.demo
        places = fewest_decimals(demo.W_Q, demo.W_K, demo.W_V)
        width = padded_cell_width(demo.W_Q, demo.W_K, demo.W_V, padding=WEIGHT_CELL_PADDING, decimals=places)
        return VGroup(*[LabelledMatrix(values, name, style.WEIGHT_MATRIX, name, cell_width=width, decimals=places)
                        for values, name in ((demo.W_Q, "W_Q"), (demo.W_K, "W_K"), (demo.W_V, "W_V"))])

    @staticmethod
    def stacked(weights: VGroup) -> VGroup:
        """``weights`` one over another, each named at its left: no taller than a sentence's X and Z."""
        for matrix in weights:
            matrix.label.next_to(matrix.brackets, LEFT, buff=WEIGHT_NAME_GAP)
        return weights.arrange(DOWN, buff=WEIGHT_STACK_GAP, aligned_edge=RIGHT)

    def demo_steps(self, with_pe: bool) -> list:
        """The attention passes of sentences A and B, on X or on X + PE."""
        demo = self.demo
        return [demo.steps_a_pe, demo.steps_b_pe] if with_pe else [demo.steps_a, demo.steps_b]

    def reveal_rows(self, matrix: LabelledMatrix, words: VGroup, before_row=None, seconds: float = ROW_SECONDS):
        """Each row with its word in ``seconds``, its numbers heard as it lands (``row_cue``), or ``before_row(i)``
        just before row i comes instead (Z_B's rows, compared with Z_A's: each comparison sounds before the next)."""
        for i in range(len(matrix.entries)):
            (before_row or partial(self.row_cue, matrix))(i)
            self.pop(Appear(matrix.row(i)), Appear(words[i]), slot=seconds)

    def cascade(self, pieces, seconds: float):
        """``pieces`` popping in one after another over ``seconds`` (``pop``): a row read left to right."""
        for piece in pieces:
            self.pop(Appear(piece), slot=max(POP_SECONDS, seconds / len(pieces)))

    def pop(self, *animations, slot: float = POP_SECONDS, landing: float = POP_SECONDS):
        """``animations`` played in ``landing`` s, then the screen held for the rest of ``slot``: a build's piece
        lands at once and the next one comes when its slot is over, rather than each fading in over its slot."""
        self.play(*animations, run_time=landing)
        if slot - landing > 1e-6:
            self.wait(slot - landing)

    def row_cue(self, matrix: LabelledMatrix, i: int, scale: float | None = None):
        """Row i's numbers as value blips, pitch as value on one scale (by default the demonstration's inputs' and
        outputs'), as the row lands: a sentence's rows reordered are heard as the same figures in another order."""
        scale = scale or self.demo_scale
        self.cue("values", lands=True, values=np.asarray(matrix.values[i], dtype=float).tolist(),
                 spacing=ROW_BLIP_SPACING, low=-scale, high=scale)

    def rows_heard(self, matrix: LabelledMatrix, seconds: float, scale: float):
        """The matrix's rows one after another over ``seconds``, each heard as it lands (``row_cue``)."""
        for i in range(len(matrix.entries)):
            self.row_cue(matrix, i, scale)
            self.pop(Appear(matrix.row(i)), slot=seconds / len(matrix.entries), landing=ROW_POP_SECONDS)

    @staticmethod
    def input_matrix(X: np.ndarray, side: str, with_pe: bool, width: float) -> LabelledMatrix:
        """X_A, or X_A + PE: what attention is computed from, in the input's colour. The PE added here has the
        embeddings' d (4), which the label says: the steps after it present PE with the section's d (16)."""
        name = rf"X_{side} + PE\ \ (d = {X.shape[1]})" if with_pe else rf"X_{side}"
        return LabelledMatrix(X, name, style.INPUT, f"X_{side}_pe" if with_pe else f"X_{side}", cell_width=width)

    def output_matrix(self, output: np.ndarray, side: str, with_pe: bool, width: float) -> LabelledMatrix:
        source = rf"X_{side} + PE" if with_pe else rf"X_{side}"
        return LabelledMatrix(output, rf"Z_{side} = \text{{Attention}}({source})", style.OUTPUT,
                              f"Z_{side}_pe" if with_pe else f"Z_{side}", cell_width=width)

    @staticmethod
    def row_words(matrix: LabelledMatrix, tokens: list[str]) -> VGroup:
        """Each row's token, right-aligned at the left of the matrix, its letters on the line its row's digits sit
        on (centred by its box, «perro» sat 4 px high: its p's descender counted), at the body's size."""
        edge = matrix.brackets[0].get_left() + LEFT * 0.2
        return VGroup(*[sit_on(label_text(token, style.TEXT, style.BODY_SIZE), baseline(matrix.entries[i][0]))
                        .align_to(edge, RIGHT)
                        for i, token in enumerate(tokens)])

    def row_links(self) -> VGroup:
        """A line from each row of Z_A to the row of Z_B that holds the same token."""
        first, _ = self.outputs
        links = VGroup()
        for i, source in enumerate(self.demo.permutation):
            start = first.cells[source][-1].get_right() + RIGHT * 0.35
            end = self.words[1][i].get_left() + LEFT * 0.15
            links.add(Line(start, end, color=style.HIGHLIGHT, stroke_width=2, stroke_opacity=0.6))
        return links

    def token_frames(self, token: str) -> VGroup:
        """The rows of ``token`` in both sentences, in the inputs and in the outputs."""
        rows = (self.demo.tokens_a.index(token), self.demo.tokens_b.index(token))
        return VGroup(*[self.row_frame(matrix, i) for matrices in (self.inputs, self.outputs)
                        for matrix, i in zip(matrices, rows)])

    @staticmethod
    def row_frame(matrix: LabelledMatrix, i: int) -> Rectangle:
        """A frame round row i, its edges half-way between the row's digits and what is next to them: the digits of
        the rows above and below, the brackets beside the widest number the cells hold (a cell box's frame touched
        «−1.00»). It holds whatever numbers the row takes later (X + PE, with the same cells)."""
        scale = matrix.cells[0][0].width / matrix.cell_width
        pad = DEMO_CELL_PADDING / 2 * scale  # a cell's widest number is this far from its edges
        first, last = matrix.cells[i][0], matrix.cells[i][-1]
        left = (first.get_left()[0] + pad + matrix.brackets[0].get_right()[0]) / 2
        right = (last.get_right()[0] - pad + matrix.brackets[1].get_left()[0]) / 2
        pitch = CELL_HEIGHT * scale  # half a row's pitch either side of its digits' middle: half-way to the next
        frame = Rectangle(width=right - left, height=pitch, color=style.HIGHLIGHT, stroke_width=FRAME_STROKE)
        return frame.move_to(np.array([(left + right) / 2, matrix.row(i).get_y(), 0]))

    def cue_pair(self, i: int):
        """Row i of Z_B beside the row of Z_A that holds the same token, compared as it lands: a unison when
        they are the same numbers."""
        demo = self.demo
        self.cue("outputs_compared", lands=True, with_pe=False, row=i,
                 max_difference=float(np.abs(demo.output_b[i] - demo.output_a[demo.permutation[i]]).max()))

    def row_gaps(self, output_a: np.ndarray, output_b: np.ndarray) -> np.ndarray:
        """Per token of sentence B, the largest gap between its two rows (sentence B's row i is sentence A's
        permutation[i]), from the values, not from the rounded numbers: what a student recomputing gets
        (2.357 − 1.215 = 1.14; the rounded 2.36 − 1.21 gave 1.15, review s13)."""
        return np.abs(output_b - output_a[self.demo.permutation]).max(axis=1)

    def max_difference(self, output_a: np.ndarray, output_b: np.ndarray) -> float:
        """Largest gap between the rows of the same token in the two sentences."""
        return float(self.row_gaps(output_a, output_b).max())

    def most_changed(self, output_a: np.ndarray, output_b: np.ndarray) -> str:
        """The token whose two rows hold that largest gap."""
        return self.demo.tokens_b[int(np.argmax(self.row_gaps(output_a, output_b)))]

    def difference_number(self, output_a: np.ndarray, output_b: np.ndarray):
        """The largest gap, and (when there is one) the word whose rows hold it and the two entries it is the gap of,
        written with the decimals that give it: «1.14 («al»: 2.357 − 1.215)» (review s16: the boxed 2.36 − 1.21 gave
        1.15, and nothing said where 1.14 came from)."""
        largest = self.max_difference(output_a, output_b)
        value = number_text(largest, style.TEXT, style.BODY_SIZE)
        value.tag = ("difference", (0, 0))
        if round(largest, 2) == 0:
            return value
        (row_a, row_b), column = self.largest_place(output_a, output_b)
        larger, smaller = sorted((output_a[row_a, column], output_b[row_b, column]), reverse=True)
        places = gap_decimals(larger, smaller, largest)
        token = self.shown_word(self.most_changed(output_a, output_b))
        word = label_text(self.labels["difference_word"].format(
            token=token, larger=format_number(larger, places), smaller=format_number(smaller, places)),
            style.OUTPUT, style.BODY_SIZE)
        return VGroup(value, word.next_to(value, RIGHT, buff=0.15).align_to(value, DOWN))

    def show_with_pe(self):
        """The inputs become X + PE, row by row, then the outputs computed from them; then the rows that differ are
        pointed at as the voice names them: «perro»'s, those of the words that did not move, the one heard."""
        demo = self.demo
        self.enter_step("with_pe", keep=list(self.mobjects), new_numbers=sum(
            matrix.size for matrix in (demo.steps_a_pe.X, demo.steps_b_pe.X, demo.output_a_pe, demo.output_b_pe)))
        width = self.outputs[0].cell_width
        inputs = [self.in_place(old, self.input_matrix(steps.X, side, True, width))
                  for old, side, steps in zip(self.inputs, "AB", self.demo_steps(True))]
        outputs = [self.in_place(old, self.output_matrix(output, side, True, width))
                   for old, side, output in zip(self.outputs, "AB", (demo.output_a_pe, demo.output_b_pe))]
        difference = self.difference_number(demo.output_a_pe, demo.output_b_pe)
        difference.move_to(self.difference, aligned_edge=LEFT)
        # the outputs' difference no longer holds once the inputs change: it goes with its label (never a label
        # without its number), and both come back computed anew as the voice says the outputs differ
        # the lines that paired each row of Z_A with the same row of Z_B, reordered, go too: with PE the rows are no
        # longer a reordering
        # the weights step back while PE is added to the inputs, and are lit again as they make the outputs
        self.replace_rows(*zip(self.inputs, inputs), with_first=(  # both sentences at once: the same PE rows
            Vanish(self.difference), Vanish(self.verdict_label), Vanish(self.links), self.weights_dimmer.to(DIMMED)))
        self.beat("outputs")  # the outputs computed anew as the voice says so
        self.replace_rows((self.outputs[0], outputs[0]), with_first=(self.weights_dimmer.to(1.0),))
        self.replace_rows((self.outputs[1], outputs[1]))
        self.beat("differ")  # "no longer a reordering" as the number that shows it lands, not before nor after
        self.pop(Appear(self.verdict_label), Appear(difference), slot=DIFFERENCE_SECONDS)
        self.beat("word")  # the word the voice names: its two output rows, which now differ, their frames thickened
        word_frames = VGroup(*self.word_frames[2:])
        self.pop(word_frames.animate.set_stroke(width=FOCUS_STROKE))
        # a flash of colour, not of size: grown, the rows' digits crossed the frames round them (review s13)
        self.play(*[Indicate(matrix.row(tokens.index(COMPARED_WORD)), color=style.HIGHLIGHT, scale_factor=1.0)
                    for matrix, tokens in zip(outputs, (demo.tokens_a, demo.tokens_b))], run_time=1.0)
        self.point_at_differences(outputs, difference, word_frames)

    def point_at_differences(self, outputs: list[LabelledMatrix], difference, word_frames: VGroup):
        """«even the ones that did not move change»: their output rows framed in both sentences as it is said (the
        moved word's frames thin again); «listen to the difference»: the frames narrowed to the word whose rows differ
        most and the two numbers that differ most boxed, all thickened while their interval sounds, the largest
        difference flashing (review s14: 9.5 s of still screen while the voice said all this, the sound with nothing
        to follow)."""
        demo = self.demo
        unmoved = self.unmoved_frames()
        changed = self.most_changed(demo.output_a_pe, demo.output_b_pe)
        leaving = [frames for frames, token in zip(unmoved, self.unmoved_tokens()) if token != changed]
        kept = [frames for frames, token in zip(unmoved, self.unmoved_tokens()) if token == changed]
        cells = self.largest_cells(outputs, demo.output_a_pe, demo.output_b_pe)
        self.beat("unmoved")
        self.play(word_frames.animate.set_stroke(width=FRAME_STROKE), Create(unmoved), run_time=FRAMES_SECONDS)
        self.beat("listen")
        self.play(*[Vanish(frames) for frames in leaving], Create(cells), run_time=FRAMES_SECONDS)
        heard = self.compared_frames = VGroup(*kept, cells)
        with self.listening():  # the interval of outputs that differ, heard in the clear before the voice concludes,
            self.cue("outputs_compared", with_pe=True,  # as the frames round what it compares thicken
                     max_difference=self.max_difference(demo.output_a_pe, demo.output_b_pe))
            self.pop(heard.animate.set_stroke(width=FOCUS_STROKE))
            # a flash of colour, not of size: grown, «1.14» covered the colon of «palabra:» before it (review s14);
            # over as the sound (COMPARISON_SECONDS) rings out a LISTEN_TAIL later: the voice goes on as it ends
            self.play(Indicate(difference, color=style.HIGHLIGHT, scale_factor=1.0),
                      run_time=COMPARISON_SECONDS - POP_SECONDS - LISTEN_TAIL)
        self.beat("counts")  # the frames left thick: what the conclusion rests on, the step's last look
        self.wait(1.0)

    def unmoved_tokens(self) -> list[str]:
        """The words at the same place in both sentences («el», «mordió», «al»)."""
        demo = self.demo
        return [token for i, token in enumerate(demo.tokens_b) if demo.permutation[i] == i]

    def unmoved_frames(self) -> VGroup:
        """Frames, in the outputs' colour, round both output rows of each word that did not move: a pair per word."""
        return VGroup(*[VGroup(*[self.row_frame(matrix, self.demo.tokens_b.index(token)).set_stroke(style.OUTPUT)
                                 for matrix in self.outputs]) for token in self.unmoved_tokens()])

    def largest_cells(self, outputs: list[LabelledMatrix], output_a: np.ndarray, output_b: np.ndarray) -> VGroup:
        """Boxes round the two numbers whose gap is the largest difference (2.36 and 1.21 for «al»), their places
        (sentence, row, column) kept as ``places``."""
        rows, column = self.largest_place(output_a, output_b)
        boxes = VGroup(*[matrix.cell_box(i, column) for matrix, i in zip(outputs, rows)])
        boxes.places = [(side, i, column) for side, i in enumerate(rows)]
        return boxes

    def largest_place(self, output_a: np.ndarray, output_b: np.ndarray) -> tuple[tuple[int, int], int]:
        """(row in Z_A, row in Z_B) of the word whose rows differ most, and the column where they do."""
        token = self.most_changed(output_a, output_b)
        rows = (self.demo.tokens_a.index(token), self.demo.tokens_b.index(token))
        return rows, int(np.argmax(np.abs(output_b[rows[1]] - output_a[rows[0]])))

    @staticmethod
    def in_place(old: LabelledMatrix, new: LabelledMatrix) -> LabelledMatrix:
        """``new`` scaled and moved onto ``old``'s cells, its formula grown back to a legible size."""
        new.scale(old.cell_grid.width / new.cell_grid.width)
        new.shift(old.cell_grid.get_center() - new.cell_grid.get_center())
        enlarge_formulas(new)
        return new

    def replace_rows(self, *pairs: tuple[LabelledMatrix, LabelledMatrix], with_first=()):
        """Each old matrix's numbers give way to its new one's, row by row (ROW_SECONDS each), the old gone before the
        new come; the pairs side by side. With the first new row, ``with_first`` plays, each old matrix takes its new
        one's label and the old rows still to go dim: a label stands over numbers it describes, or over dimmed ones
        on their way out (review s14: «Z_B = Attention(X_B + PE)» over the rows without PE for 6 s)."""
        rows = len(pairs[0][0].entries)
        leaving = Dimmer(*[before.row(i) for before, _ in pairs for i in range(1, rows)])
        for i in range(rows):
            self.row_cue(pairs[0][1], i)  # the first sentence's new row heard as it lands
            first = [*[FadeTransform(before.label, after.label) for before, after in pairs], leaving.to(DIMMED),
                     *with_first] if i == 0 else []
            self.pop(*first, *[Succession(Vanish(before.row(i)), Appear(after.row(i))) for before, after in pairs],
                     slot=ROW_SECONDS)

    # Layout --------------------------------------------------------------------------------------
    def body(self) -> tuple[float, float, float, float]:
        """``style.body_box()``, its bottom raised above the caption when the caption wraps onto two lines."""
        left, right, bottom, top = style.body_box()
        caption = self.header[-1]
        return left, right, max(bottom, caption.get_top()[1] + style.MARGIN / 2), top

    def place(self, group, bottom_room: float = 0.0, largest_scale: float = 1.0):
        """Centre ``group`` in the body (leaving ``bottom_room`` under it), scaled to fit (grown by at most
        ``largest_scale``), its formulas grown back to a legible size."""
        left, right, bottom, top = self.body()
        fit(group, right - left, top - bottom - bottom_room, largest_scale=largest_scale)
        group.move_to(np.array([(left + right) / 2, (top + bottom + bottom_room) / 2, 0]))
        enlarge_formulas(group)

    def panel_region(self) -> tuple[float, float, float, float]:
        """(left, right, bottom, top) of the body to the right of the heatmap and its legend."""
        _, right, bottom, top = self.body()
        return self.legend.get_right()[0] + PANEL_GAP, right, bottom, top

    def under_heatmap_region(self, neighbour) -> tuple[float, float, float, float]:
        """(left, right, bottom, top) of the body under the heatmap and its legend, left of ``neighbour``."""
        left, _, bottom, _ = self.body()
        right = neighbour.get_left()[0] - SIMILARITY_GAP
        return left, right, bottom, VGroup(self.heatmap, self.legend).get_bottom()[1] - NOTES_GAP

    def place_under_heatmap(self, notes: VGroup, neighbour):
        """``notes`` stacked at the top left of ``under_heatmap_region``, their formulas legible (grown about their
        middles before the stacking), scaled down if they do not fit."""
        left, right, bottom, top = self.under_heatmap_region(neighbour)
        enlarge_formulas(notes)
        fit(notes.arrange(DOWN, buff=NOTES_GAP, aligned_edge=LEFT), right - left, top - bottom, largest_scale=1.0)
        notes.align_to(np.array([left, top, 0]), LEFT + UP)

    def place_beside_heatmap(self, group):
        left, right, bottom, top = self.panel_region()
        fit(group, right - left, top - bottom, largest_scale=1.0)
        group.move_to(np.array([(left + right) / 2, (top + bottom) / 2, 0]))
        enlarge_formulas(group)

    def enter_step(self, key: str, keep=(), caption: str | None = None, **fields):
        """Begin the step, then fade out everything on screen but the header and ``keep``."""
        self.begin_step(key, caption=caption, **fields)
        kept = {id(member) for mobject in (self.header, *keep) for member in mobject.get_family()}
        leaving = [mobject for mobject in self.mobjects if id(mobject) not in kept]
        if leaving:  # gone at once: a half-second fade out after the step's hold read as more still screen
            self.play(*[Vanish(mobject) for mobject in leaving], run_time=LEAVING_SECONDS)


class TableRow(VGroup):
    """One row of the token table: its name, one number per dimension, and a comment."""

    def __init__(self, name: str, values: np.ndarray, kind: str, k: int, comment: str, colour):
        super().__init__()
        self.values = values
        self.label = label_text(name, colour, style.CAPTION_SIZE)
        self.numbers = VGroup()
        for j, value in enumerate(values):
            text = number_text(value, colour)
            text.tag = (kind, (k, j))
            self.numbers.add(text)
        self.comment = label_text(comment, style.MUTED, style.CAPTION_SIZE)
        self.fills = VGroup()
        self.items = [self.label, *self.numbers, self.comment]
        self.add(*self.items)

    def add_fills(self, colour, width: float):
        """Heat-coloured squares behind the numbers, the heatmap's colours for the same values."""
        self.fills = VGroup(*[Rectangle(width=width, height=CELL_HEIGHT * 0.8, stroke_width=0,
                                        fill_color=colour(value), fill_opacity=1.0).move_to(text)
                              for value, text in zip(self.values, self.numbers)])
        self.add_to_back(self.fills)

    @property
    def body(self) -> VGroup:
        """The name and the numbers with their fills: the row without its comment."""
        return VGroup(*self.items[:-1], self.fills)
