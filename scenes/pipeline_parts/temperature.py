"""The guide's step 8 and exercise 2, temperature: the query's row of weights as bars at each configured
temperature, each maximum marked on the plot of the query's largest weight against T beside; then the rows at the
guide's T = 0.5, 1, 3, the whole curve drawn with its sound, the uniform floor, and the three read off it. Where the
lab's random weights barely concentrate at the coldest T, the designed weights' largest there is written under the
plot: the guide's "1-2 tokens" seen where it holds."""

from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Circle, Create, DashedLine, Dot, FadeIn, GrowFromEdge, Rectangle,
                   ReplacementTransform, SurroundingRectangle, VGroup, linear, smooth, squish_rate_func)

from attn_math.lab import MAX_TEMPERATURE, MIN_TEMPERATURE, LabAttention
from lesson.numbers import format_number, reproduces
from lesson.pipeline_answers import EXERCISE_TEMPERATURES, redone_weights, temperature_caption
from scenes import style
from scenes.curve_plot import CurvePlot
from scenes.fades import Appear, Swap, Vanish
from scenes.pipeline_parts.common import (ENTER_SECONDS, LEAVE_SECONDS, SPLIT_MARGIN, VOICE_LEFT, PipelineCommon, bar_frames,
                                         pulses, rounded_up)
from scenes.token_labels import abbreviated
from scenes.visuals import fit, label_text, tagged_number, text_with_numbers
from scenes.weight_views import token_bar_chart

ROWS_SHARE = 0.58  # of the body's width, for the temperature rows left of the plot
ROW_NUMBERS = 3  # in a temperature's row: T, the query's entropy and its largest weight
EXERCISE_NUMBERS = 4  # for each of the guide's temperatures: its row's three and the value read off the curve
TEMPERATURE_BARS = 1.1  # the height of a temperature's row of bars, for up to TALL_ROWS temperatures
TALL_ROWS = 3
SHORTEST_TEMPERATURE_BARS = 0.55  # with more, lower rows, so that all fit with the token names under the last
ROWS_GAP = 0.35  # between two temperatures' rows
ROW_SIDE_GAP = 0.4  # between a row's bars and its title, and its readout
BARS_MARGIN = 1.0  # of a row's width, neither its title, nor its readout, nor its bars: the gaps either side, a margin
READOUT_LINE_GAP = 0.15  # between a row's entropy and its largest weight
ROWS_SECONDS = 1.2  # every row's "T = ...", baseline and bars drawn, as the voice names them
SHORTEST_SOUNDING = 0.6  # at least, for a row's bars to be heard one after another
ROW_READOUT_SECONDS = 0.6  # a row's readout and its mark on the plot landing
MARK_GROWTH = 2  # a mark or ring lands shrinking from this many times its size
MARK_RADIUS = 0.08  # a row's maximum on the plot
ROWS_CHANGE_SECONDS = 1.2  # the configured temperatures' rows becoming the guide's
CURVE_SAMPLES = 99  # temperatures sampled for the max-weight plot, evenly across the lab's slider
PLOT_WIDTH, PLOT_HEIGHT = 3.6, 2.9  # the max-weight plot's axes, before it is fitted into its box: at 4.4 × 3.6 the
# fitting shrank its tick numbers to 14 px (review s12); at this size they keep their written size
TICK_GROWTH = 1.1  # the plot's tick numbers, once fitted: at their written size, 16.4 px of cap height, their ink
# measured 15 px at 720p (review s14)
PLOT_SIDE_ROOM = 1.2  # of its box's width, left free around the plot
PLOT_READOUT_ROOM = 0.6  # of its box's height, left free under the plot for the values read off it
READ_OFF_SECONDS = 0.6  # a temperature's ring and value landing as the curve reaches it
CURVE_SECONDS = 3.0  # at least, to draw that plot's curve: its tone is heard fading as the curve falls
RING_RADIUS = 0.11  # around a value read off the curve
RING_STROKE = 3
READ_OFF_GAP = 0.45  # between two values read off the curve
READ_OFF_HEIGHT = 1.0  # at most, for the line of values read off the curve
READ_OFF_DROP = 0.25  # between the plot and that line
UNIFORM_STROKE = 2  # the uniform floor's dashed line
UNIFORM_LABEL_GAP = 0.1  # between that line and its label
UNIFORM_CLEARANCE = 0.2  # over its label's height: the room that puts the label under the line rather than over
UNIFORM_SECONDS = 1.5  # the uniform floor and its label drawn, a light running down the curve to it
COLD_FRAME_GAP = 0.08  # round the coldest row, or a row's readout, framed as the voice names it
COLD_STROKE = 3
FRAME_SWAP_SECONDS = 0.3  # a row's readout framed as the voice reads it, the frame before leaving
READ_OUT_LEFT = 1.0  # s of the phrase reading the three maxima left after the last is framed
DESIGNED_ROOM = 1.5  # more of the plot's box left free under it for the designed weights' row of bars
DESIGNED_WIDTH = 0.6  # of the plot's box's width, that row's bars
DESIGNED_BARS = 0.6  # their height at a weight of 1
FRAME_ROOM = 0.2  # the rows start this far right of the body's left edge: room for the coldest row's frame (at the
# edge, it stood 23 px from the frame's, review s13)
NOTE_GAP = 0.25  # between the rows and the note under them on why a maximum is written «≈»


def written(part) -> list[str]:
    """What ``part`` writes, its texts and numbers as written."""
    return [getattr(piece, "shown_text", None) or piece.text for piece in part.get_family()
            if hasattr(piece, "shown_text") or hasattr(piece, "text")]


class TemperatureRow(VGroup):
    """A temperature's row: its ``title`` ('T = 0.2'), the query's weights as a bar ``chart``, its ``readout``
    (entropy and largest weight); ``approximate``: that largest is written «≈» (``largest_reproduces``)."""

    def __init__(self, title, chart, readout, approximate: bool = False):
        super().__init__(title, chart, readout)
        self.title, self.chart, self.readout, self.approximate = title, chart, readout, approximate


class TemperatureSteps(PipelineCommon):
    """The temperature steps; ``self.temperature_rows`` (TemperatureRow) and ``self.temperature_marks`` are on
    screen beside ``self.plot`` through both, and ``self.plot_stage`` after them."""

    def show_temperatures(self):
        """The query's row at each temperature, a row of bars each, drawn together; then each row heard, a note a bar,
        as its maximum lands on the plot beside. The caption says what the rows show
        (lesson.pipeline_answers.temperature_caption)."""
        temperatures, q = self.settings.temperatures, self.query
        runs = [self.attention(t, self.settings.causal) for t in temperatures]
        coldest, hottest = int(np.argmin(temperatures)), int(np.argmax(temperatures))
        strings = self.strings["steps"]["temperature"]
        caption = temperature_caption(self.settings, runs[coldest].max_weights[q])
        shows_designed = caption == "caption"  # the lab's random weights barely concentrate: the designed ones do
        designed = self.attention(temperatures[coldest], self.settings.causal, "sharp") if shows_designed else None
        self.begin_step("temperature", strings[caption],
                        new_numbers=ROW_NUMBERS * len(temperatures) + (designed is not None), query=self.tokens[q],
                        weights=self.answers["temperature"]["weights"],
                        temperatures=", ".join(format_number(t) for t in temperatures),
                        coldest=format_number(temperatures[coldest]),
                        coldest_max=format_number(runs[coldest].max_weights[q]),
                        hottest=format_number(temperatures[hottest]),
                        hottest_max=format_number(runs[hottest].max_weights[q]),
                        with_header=[Vanish(VGroup(self.presets_stage, self.presets_extras))])
        left, right, bottom, top = self.body()
        split = left + ROWS_SHARE * (right - left)
        exercise = [self.attention(t, self.settings.causal) for t in EXERCISE_TEMPERATURES]  # their rows follow
        self.temperature_note = self.rows_note([*temperatures, *EXERCISE_TEMPERATURES], [*runs, *exercise],
                                               (left + FRAME_ROOM, split - SPLIT_MARGIN, bottom, top))
        room = self.temperature_note.height + NOTE_GAP if len(self.temperature_note) else 0.0
        self.temperature_box = (left + FRAME_ROOM, split - SPLIT_MARGIN, bottom + room, top)
        self.temperature_largest = rounded_up(max(run.weights[q].max() for run in (*runs, *exercise)))
        rows = self.temperature_rows_of(temperatures, runs, "temperature")
        self.plot = self.max_weight_plot((split + SPLIT_MARGIN, right, bottom, top),
                                         PLOT_READOUT_ROOM + (DESIGNED_ROOM if designed is not None else 0.0))
        marks = self.marks(temperatures, [run.max_weights[q] for run in runs])
        self.play(Appear(self.plot.frame), Appear(rows[-1].chart.labels), run_time=ENTER_SECONDS)
        self.beat("rows")  # "listen to each row" is said as the rows are drawn, not over empty axes
        self.play(*[Appear(VGroup(row.title, row.chart.baseline)) for row in rows],
                  *[GrowFromEdge(bar, DOWN) for row in rows for bar in row.chart.bars], run_time=ROWS_SECONDS)
        with self.listening():  # each row's notes, bright when cold and dull when hot: the temperature heard
            each = self.fill_seconds() / len(rows)
            for row, mark, temperature in zip(rows, marks, temperatures):
                self.sound_paths(bar_frames(row.chart.bars), row.chart.values, temperature,  # a frame round each bar as its note sounds
                                 max(SHORTEST_SOUNDING, each - ROW_READOUT_SECONDS), colour=style.HIGHLIGHT,
                                 compared=True)  # every row whole, the configured temperature's too
                note = [Appear(self.temperature_note)] if row.approximate and self.temperature_note not in self.mobjects \
                    else []  # with the first maximum written «≈»
                self.play(Appear(row.readout), FadeIn(mark, scale=MARK_GROWTH), *note, run_time=ROW_READOUT_SECONDS)
        self.beat("heard")  # "a low temperature barely concentrates the row": the coldest row framed
        cold = SurroundingRectangle(rows[coldest], color=style.HIGHLIGHT, buff=COLD_FRAME_GAP, stroke_width=COLD_STROKE)
        self.play(Create(cold), run_time=max(ROW_READOUT_SECONDS, self.voice_left(VOICE_LEFT)))
        self.designed_cold = VGroup(cold)
        if designed is not None:  # "that happens with trained or designed weights", shown
            self.beat("guide")
            line = self.designed_row(temperatures[coldest], designed)
            # the line first, then its bars growing: the one or two tokens the guide expects seen taking the row
            self.play(Appear(line.readout), run_time=ROW_READOUT_SECONDS)
            self.play(*[GrowFromEdge(bar, DOWN) for bar in line.chart.bars], Appear(line.chart.baseline),
                      Appear(line.chart.slots),
                      Appear(line.title), run_time=ROW_READOUT_SECONDS)  # quickly: a slow growth reads as still
            self.designed_cold.add(line)
        self.temperature_rows, self.temperature_marks = rows, marks

    def largest_reproduces(self, temperature: float, run: LabAttention) -> bool:
        """Whether the query's largest weight at ``temperature``, as written, is what a student redoes from step 5's
        row as written (``redone_weights``): at T = 0.20 the lab's 0.244 is written 0.24, the row written gives 0.25."""
        q = self.query
        redone = redone_weights(self.run.steps.scaled[q], temperature, self.settings.temperature)
        return reproduces(run.max_weights[q], redone.max())

    def rows_note(self, temperatures, runs: list[LabAttention], box) -> VGroup:
        """At the bottom left of ``box``, the note on «≈» when a row's largest weight is written «≈» (at the
        configured temperatures or the guide's); nothing when none is."""
        if all(self.largest_reproduces(t, run) for t, run in zip(temperatures, runs)):
            return VGroup()
        left, right, bottom, _ = box
        note = self.approx_note(right - left)
        return VGroup(note.move_to([left, bottom, 0], aligned_edge=LEFT + DOWN))

    def designed_row(self, temperature: float, run: LabAttention) -> TemperatureRow:
        """Under the plot, where exercise 2 reads its values off: 'pesos diseñados, T = 0.20: máx. = 1.00' over the
        query's row of designed weights as bars (on a scale of 1), the largest one's token named under it: the guide's
        «1-2 tokens» seen."""
        q, largest = self.query, run.max_weights[self.query]
        designed = text_with_numbers(self.labels["designed_cold"], {
            "largest": tagged_number(largest, "designed_cold", colour=style.ATTENTION, font_size=style.CAPTION_SIZE)},
            style.ATTENTION, style.CAPTION_SIZE, temperature=format_number(temperature))
        # over it, what the guide expects, said by the voice only until review s12
        expected = label_text(self.labels["guide_expects"], style.ATTENTION, style.CAPTION_SIZE)
        line = VGroup(expected, designed).arrange(DOWN, buff=READOUT_LINE_GAP)
        left, right, _, _ = self.plot_box
        fit(line, right - left, READ_OFF_HEIGHT)
        chart = token_bar_chart(run.weights[q], [abbreviated(token) for token in self.tokens],
                                DESIGNED_WIDTH * (right - left), DESIGNED_BARS, query=q, show_values=False,
                                name="designed_cold_bars")
        chart.remove(chart.labels)
        slots = VGroup(*[Rectangle(width=bar.width, height=DESIGNED_BARS, stroke_color=style.MUTED, stroke_width=1.5,
                                   fill_opacity=0).move_to(bar.get_bottom(), aligned_edge=DOWN) for bar in chart.bars])
        chart.slots = slots
        chart.add(slots)  # each weight out of 1: the frame a bar would fill with all the row's weight
        top = int(np.argmax(run.weights[q]))
        name = label_text(abbreviated(self.tokens[top]), style.ATTENTION, style.CAPTION_SIZE)
        name.next_to(chart.baseline, DOWN, buff=READOUT_LINE_GAP).set_x(chart.bars[top].get_x())
        chart.labels = VGroup(name)
        chart.add(name)
        line.next_to(self.plot, DOWN, buff=READ_OFF_DROP).set_x((left + right) / 2)
        chart.next_to(line, DOWN, buff=READ_OFF_DROP).set_x((left + right) / 2)
        return TemperatureRow(name, chart, line)

    def temperature_rows_of(self, temperatures, runs: list[LabAttention], name: str) -> VGroup:
        """A ``temperature_row`` per temperature, stacked in the left part of the body (``temperature_box``), every
        row's bars on one scale (``temperature_largest``); their numbers tagged ``name``, ``name``_entropy and
        ``name``_max."""
        left, right, _, _ = box = self.temperature_box
        height = max(SHORTEST_TEMPERATURE_BARS, TEMPERATURE_BARS * min(1.0, TALL_ROWS / len(runs)))  # many rows: lower
        rows = VGroup(*[self.temperature_row(k, t, run, self.temperature_largest, right + SPLIT_MARGIN - left,
                                             height,
                                             labelled=k == len(runs) - 1, name=name)
                        for k, (t, run) in enumerate(zip(temperatures, runs))])
        rows.arrange(DOWN, buff=ROWS_GAP, aligned_edge=LEFT)
        return self.place(rows, box)

    def temperature_row(self, k: int, temperature: float, run: LabAttention, largest: float, width: float,
                        height: float, labelled: bool, name: str) -> TemperatureRow:
        """'T = 0.2' | the query's row of weights as bars (tokens under the last row only) | its entropy and maximum."""
        labels, q, small = self.labels, self.query, style.CAPTION_SIZE
        title = text_with_numbers(labels["temperature_value"],
                                  {"value": tagged_number(temperature, name, (0, k))})
        entropy = tagged_number(run.entropies[q], f"{name}_entropy", (0, k), font_size=small)
        largest_weight = tagged_number(run.max_weights[q], f"{name}_max", (0, k), font_size=small)
        exact = self.largest_reproduces(temperature, run)
        readout = VGroup(text_with_numbers(labels["entropy_value"], {"value": entropy}, font_size=small),
                         text_with_numbers(labels["max_weight_value"], {"value": largest_weight}, font_size=small,
                                           relation="=" if exact else "≈"),
                         ).arrange(DOWN, aligned_edge=LEFT, buff=READOUT_LINE_GAP)
        names = [abbreviated(token) for token in self.tokens]  # as the maps name them: turned, a long word runs long
        chart = token_bar_chart(run.weights[q], names, width - title.width - readout.width - BARS_MARGIN, height,
                                query=q, show_values=False, max_value=largest, name=f"{name}_bars_{k}")
        if not labelled:  # the columns are the same tokens in every row: named once, under the last
            chart.remove(chart.labels)
            chart.labels = VGroup()
        bars = VGroup(chart.bars, chart.baseline)  # not the token names under the last row: every row alike
        title.next_to(bars, LEFT, buff=ROW_SIDE_GAP)
        readout.next_to(bars, RIGHT, buff=ROW_SIDE_GAP)
        return TemperatureRow(title, chart, readout, approximate=not exact)

    def max_weight_plot(self, box, room: float = PLOT_READOUT_ROOM) -> CurvePlot:
        """The query's maximum weight against T over the lab's slider, sampled at CURVE_SAMPLES temperatures; ``room``
        of the box's height left free under it."""
        q = self.query
        temperatures = np.linspace(MIN_TEMPERATURE, MAX_TEMPERATURE, CURVE_SAMPLES)
        maxima = np.array([self.attention(float(t), self.settings.causal).max_weights[q] for t in temperatures])
        self.max_weight_curve = (temperatures, maxima)
        top_value = rounded_up(maxima.max())
        plot = CurvePlot(temperatures, maxima, x_ticks=list(range(int(MAX_TEMPERATURE) + 1)),
                         y_ticks=[0.0, top_value / 2, top_value], width=PLOT_WIDTH, height=PLOT_HEIGHT,
                         x_name=self.labels["axis_temperature"],
                         y_name=self.labels["axis_max_weight"].format(query=abbreviated(self.tokens[q])))
        left, right, bottom, top = self.plot_box = box
        fit(plot, right - left - PLOT_SIDE_ROOM, top - bottom - room)
        x_numbers, y_numbers = plot.frame[1:3]
        for number in x_numbers:  # each grown from its side by its axis, kept clear of it
            number.scale(TICK_GROWTH, about_edge=UP)
        for number in y_numbers:
            number.scale(TICK_GROWTH, about_edge=RIGHT)
        low = bottom if room == PLOT_READOUT_ROOM else bottom + room  # room for more than the values read off: kept
        return plot.move_to(np.array([(left + right) / 2, (low + top) / 2, 0]))

    def show_temperature_plot(self):
        """Exercise 2: the rows at the guide's T = 0.5, 1, 3 in place of the configured ones, the whole curve, the
        uniform floor, and the three read off it; "it falls" only when the three differ as written (else ``_fixed``)."""
        q, plot = self.query, self.plot
        runs = [self.attention(t, self.settings.causal) for t in EXERCISE_TEMPERATURES]
        values = [run.max_weights[q] for run in runs]
        caption = "caption_fixed" if self.answers["temperature_plot"]["answer_variant"] == "fixed" else "caption"
        # with the header: the designed weights' line (its place is the values read off the curve) and the configured
        # rows beyond the guide's three
        leaving = [Vanish(part) for part in (*self.surplus_rows(), *([self.designed_cold] if len(self.designed_cold)
                                                                      else []))]
        approximate = not all(self.largest_reproduces(t, run) for t, run in zip(EXERCISE_TEMPERATURES, runs))
        shown = self.temperature_note in self.mobjects
        if shown and not approximate:  # no «≈» left among the guide's rows: the note goes with the others
            leaving.append(Vanish(self.temperature_note))
        self.begin_step("temperature_plot", self.strings["steps"]["temperature_plot"][caption],
                        new_numbers=EXERCISE_NUMBERS * len(values), query=self.tokens[q], with_header=leaving,
                        **{f"max_{k}": format_number(value) for k, value in enumerate(values)})
        self.exercise_rows(runs, values, [Appear(self.temperature_note)] if approximate and not shown else [])
        self.read_rows_out()  # each row's largest weight framed in turn as the voice reads the three
        visible = int(np.count_nonzero(~self.run.steps.mask[q]))
        uniform = DashedLine(plot.point(0, 1 / visible), plot.point(MAX_TEMPERATURE, 1 / visible),
                             color=style.MUTED, stroke_width=UNIFORM_STROKE)
        uniform_label = label_text(self.labels["uniform"], style.MUTED, style.CAPTION_SIZE)
        # at its line's end, inside the plot: under it, where the curve (a row's largest weight, at least 1/visible)
        # never goes, when the room down to the axis takes it (the plot's edge is the body's: right of it, the frame's)
        below = uniform.get_y() - plot.point(0, 0)[1] > uniform_label.height + UNIFORM_CLEARANCE
        uniform_label.next_to(uniform, DOWN if below else UP, buff=UNIFORM_LABEL_GAP).align_to(uniform, RIGHT)
        rings = VGroup(*[Circle(radius=RING_RADIUS, color=style.ATTENTION, stroke_width=RING_STROKE)
                         .move_to(plot.point(t, value)) for t, value in zip(EXERCISE_TEMPERATURES, values)])
        readout = VGroup(*[text_with_numbers(f"T = {format_number(t, 1)}: {{value}}", {
            "value": tagged_number(value, "exercise_max", (0, k), style.ATTENTION, style.CAPTION_SIZE)},
            style.ATTENTION, style.CAPTION_SIZE) for k, (t, value) in enumerate(zip(EXERCISE_TEMPERATURES, values))])
        left, right, _, _ = self.plot_box
        fit(readout.arrange(RIGHT, buff=READ_OFF_GAP), right - left, READ_OFF_HEIGHT)
        readout.next_to(plot, DOWN, buff=READ_OFF_DROP)
        readout.set_x((left + right) / 2)
        with self.listening():  # the curve heard as drawn, in the clear: under the voice it would sound again whole
            reveal = max(CURVE_SECONDS, self.fill_seconds(UNIFORM_SECONDS))
            self.cue("curve", values=self.max_weight_curve[1].tolist(), duration=reveal)
            # each temperature ringed and read off as the curve, drawn at an even pace along T, reaches it
            reached = [(t - MIN_TEMPERATURE) / (MAX_TEMPERATURE - MIN_TEMPERATURE) for t in EXERCISE_TEMPERATURES]
            landing = [squish_rate_func(smooth, at, min(1.0, at + READ_OFF_SECONDS / reveal)) for at in reached]
            self.play(Create(plot.curve, rate_func=linear),
                      *[FadeIn(ring, scale=MARK_GROWTH, rate_func=rate) for ring, rate in zip(rings, landing)],
                      *[Appear(part, rate_func=rate) for part, rate in zip(readout, landing)], run_time=reveal)
        self.beat("uniform")  # "as T rises the largest weight falls towards the uniform": a light down the curve as
        # the floor it falls to is drawn (a thin dashed line alone was too small a change to be seen moving)
        self.play(Create(uniform), Appear(uniform_label), *pulses([plot.curve], style.HIGHLIGHT),
                  run_time=UNIFORM_SECONDS)
        self.plot_stage = VGroup(plot, self.temperature_marks, uniform, uniform_label, rings, readout,
                                 *([self.temperature_note] if approximate else []))

    def read_rows_out(self):
        """Under a voice that reads the rows' largest weights one after another, a frame on each row's readout in
        turn over what is left of that phrase; nothing in a silent render (its caption is read, not heard)."""
        seconds = self.voice_left(READ_OUT_LEFT)
        if not seconds:
            return
        rows = self.temperature_rows
        each = seconds / len(rows)
        frame = None
        # each frame lands quickly where the voice is, the one before leaving in place: one frame sliding from row to
        # row cut through the readouts between (review s10, 195: across «H = 2.80 bits»)
        for row in rows:
            framed = self.readout_frame(row)
            self.play(Appear(framed), *([Vanish(frame)] if frame is not None else []),
                      run_time=min(each, FRAME_SWAP_SECONDS))
            self.wait(max(0.0, each - FRAME_SWAP_SECONDS))
            frame = framed
        self.play(Vanish(frame), run_time=LEAVE_SECONDS)

    @staticmethod
    def readout_frame(row) -> SurroundingRectangle:
        return SurroundingRectangle(row.readout, color=style.HIGHLIGHT, buff=COLD_FRAME_GAP, stroke_width=COLD_STROKE)

    def surplus_rows(self) -> list:
        """The configured temperatures' rows (with their marks) beyond the guide's exercise 2 ones: they have none to
        become, and leave with its header."""
        pairs = len(EXERCISE_TEMPERATURES)
        return [*self.temperature_rows[pairs:], *self.temperature_marks[pairs:]]

    def exercise_rows(self, runs: list[LabAttention], values: list[float], with_rows=()):
        """The configured temperatures' rows become the guide's exercise 2 ones, row into row (a row more fades in;
        one more has left, ``surplus_rows``), so that the rows beside the curve are the temperatures it marks; their
        maxima's marks on the plot move with them to ``values``, each row's own."""
        old, new = self.temperature_rows, self.temperature_rows_of(EXERCISE_TEMPERATURES, runs, "exercise_row")
        marks = self.marks(EXERCISE_TEMPERATURES, values)
        pairs = min(len(old), len(new))
        self.remove(*[part for row in old[:pairs] for part in row.get_family()])  # each row as one piece, then
        self.play(*[change for before, after in zip(old[:pairs], new[:pairs]) for change in self.row_changes(before, after)],
                  *[ReplacementTransform(before, after) for before, after in zip(self.temperature_marks, marks)],
                  *[Appear(part) for part in (*new[pairs:], *marks[pairs:])], *with_rows, run_time=ROWS_CHANGE_SECONDS)
        for row in new[:pairs]:  # each new row one piece on the scene, as the rows that fade in
            self.remove(row.chart, row.title, row.readout)
            self.add(row)
        self.temperature_rows, self.temperature_marks = new, marks

    def row_changes(self, before: TemperatureRow, after: TemperatureRow) -> list:
        """A temperature's row into another: its bars reshaped, its numbers («T = 0.20», «H = 2.67 bits», «máx.»)
        swapped, the old out then the new in: morphed, two numbers' digits drew over each other («H = 2.◆◆», review
        s15); a part that writes the same moves in place. A swapped part stands on the scene, hidden until its
        half of the play."""
        changes = [ReplacementTransform(before.chart, after.chart)]
        for old, new in ((before.title, after.title), (before.readout, after.readout)):
            if written(old) == written(new):
                changes.append(ReplacementTransform(old, new))
            else:
                self.add(new)
                changes.append(Swap(old, new))
        return changes

    def marks(self, temperatures, maxima) -> VGroup:
        """A dot on the max-weight plot at each (temperature, maximum)."""
        return VGroup(*[Dot(self.plot.point(t, value), radius=MARK_RADIUS, color=style.HIGHLIGHT)
                        for t, value in zip(temperatures, maxima)])
