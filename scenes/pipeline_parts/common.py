"""What every part of the pipeline scene uses: the runs of the configured sentence, the pacing of a step's main
reveal, the body's box and fitting a group into a box, and attention lines drawn one after another with their
notes. Mixed into a ``LessonScene`` (``scenes.pipeline.PipelineScene``)."""

from __future__ import annotations

import math

import numpy as np
from manim import AnimationGroup, Create, LaggedStart, ManimColor, ShowPassingFlash, SurroundingRectangle

from attn_math.lab import LabAttention
from lesson.pipeline_answers import attention
from scenes import style
from scenes.lesson_scene import Cue
from scenes.visuals import enlarge_formulas, fit, label_text
from scenes.weight_views import WeightedLines

STEP_SECONDS = 1.2  # one step of the lab's "Animar"
NOTE_SPACING = 0.08  # between two attention notes, so each is heard
FADE_SECONDS = 2.5  # the longest fade in: slower, a frame changes too little to be seen moving
LEAVE_SECONDS = 0.6  # a stage fading out before the next comes in; at most, a frame fading out
ENTER_SECONDS = 0.6  # a stage's frame, names or titles fading in before its numbers
SPLIT_MARGIN = 0.2  # left free each side of the split between a body's (or canvas's) two parts
CAPTION_ROOM = 0.3  # kept free above the body's bottom: a caption may wrap onto a second line
PULSE_WIDTH = 6  # the stroke of the pulse that runs along an attention line (or a bar) as its note sounds: at 2 it
# moved too few pixels to be seen (the listening half of step 6 measured as an 8.4 s still)
PULSE_OPACITY = 0.9
PULSE_LENGTH = 0.4  # of its line: the share the pulse lights at once
BAR_FRAME_GAP = 0.04  # between a bar and the frame a light runs round as its note sounds
VOICE_LEFT = 4.0  # s of the voice a reveal leaves after it ends: as long as a finished step holds (FINISHED_HOLD), so
# the reveal never lengthens its step, and under 6 s with the step's tail
CHART_TOP_STEP = 0.1  # a chart's top value is a multiple of this (``rounded_up``)


def bar_frames(bars) -> list[SurroundingRectangle]:
    """A frame round each bar, for a light to run round as the bar's note sounds."""
    return [SurroundingRectangle(bar, buff=BAR_FRAME_GAP) for bar in bars]


def pulses(paths, colour: ManimColor = style.MUTED) -> list[ShowPassingFlash]:
    """A light running along each path (a line, a bar's frame): the query visiting a token, also where a weight is
    about 0."""
    return [ShowPassingFlash(path.copy().set_fill(opacity=0)
                             .set_stroke(colour, width=PULSE_WIDTH, opacity=PULSE_OPACITY),
                             time_width=PULSE_LENGTH) for path in paths]


class PipelineCommon:
    """Runs, pacing, layout and noted lines for the pipeline's parts."""

    def attention(self, temperature: float, causal: bool, preset: str | None = None) -> LabAttention:
        """The run of ``preset`` (default the configured one, with any custom weights), its roles read in the
        lecture's language."""
        return attention(self.settings, self.job.config.lecture.lang, temperature, causal, preset)

    def fill_seconds(self, still_to_play: float = 0.0) -> float:
        """The step's main reveal: at least a lab step, filling the reading time left after ``still_to_play``, and
        under a voice, the voice placed so far (up to the step's next beat) but VOICE_LEFT: the screen goes on
        building while the voice explains it, and the step's finished state holds FINISHED_HOLD, not longer (a
        reveal over before its sentence was a still of 6-11 s under the voice, issue 43)."""
        return max(self.reveal_seconds(fill_after=still_to_play, shortest=STEP_SECONDS),
                   self.voice_left(still_to_play + VOICE_LEFT))

    @staticmethod
    def body() -> tuple[float, float, float, float]:
        """style.body_box() with room for a two-line caption."""
        left, right, bottom, top = style.body_box()
        return left, right, bottom + CAPTION_ROOM, top

    @staticmethod
    def place(group, box, largest_scale: float = 1.0):
        """``group`` fitted into ``box`` (left, right, bottom, top), at most ``largest_scale``, centred in it."""
        left, right, bottom, top = box
        fit(group, right - left, top - bottom, largest_scale)
        group.move_to(np.array([(left + right) / 2, (bottom + top) / 2, 0]))
        enlarge_formulas(group)
        return group

    def approx_note(self, width: float, split: bool = True, key: str = "approx_note"):
        """«≈: el lab calcula sin redondear: con lo escrito, el último decimal varía», at most ``width`` wide: beside
        numbers written «≈» because, redone from the numbers written before them, a last decimal differs (step 2 said it
        once; the scaled matrix, the temperature's 0.24 and the masked 0.22 were then far from it, review s13).
        ``split``: too wide, on two lines rather than shrunk; else on one line, shrunk (a room one line tall). ``key``:
        the locale's label for another wording of the same rounding."""
        text = self.labels[key]
        note = label_text(text, style.MUTED, style.CAPTION_SIZE)
        if split and note.width > width:  # on two lines, cut at the colon nearest its middle, rather than shrunk
            cuts = [k for k in range(len(text)) if text.startswith(": ", k)]
            if cuts:
                cut = min(cuts, key=lambda k: abs(k - len(text) / 2))
                note = label_text(text[:cut + 1] + "\n" + text[cut + 2:], style.MUTED, style.CAPTION_SIZE)
        return fit(note, width, note.height)

    def draw_lines(self, lines: WeightedLines, temperature: float, seconds: float):
        """One line after another, each with its note: pitch and loudness follow its weight. A pulse runs along
        each line as it is drawn, so the query is seen visiting every token, also where the weight (the line's
        thickness and opacity) is about 0."""
        self.play_with_notes([AnimationGroup(Create(line), pulse) for line, pulse in zip(lines, pulses(lines))],
                             lines.weights, temperature, spacing=seconds / max(1, len(lines)))

    def sound_paths(self, paths, weights, temperature: float, seconds: float, colour: ManimColor = style.MUTED,
                    compared: bool = False):
        """What is already drawn (lines, bars), heard one after another: a light runs along each of ``paths`` and
        its note (pitch and loudness following ``weights``) sounds as the light reaches the path's end (``compared``:
        see ``play_with_notes``)."""
        self.play_with_notes(pulses(paths, colour), weights, temperature, spacing=seconds / max(1, len(paths)),
                             compared=compared)

    def play_with_notes(self, animations: list, weights, temperature: float, spacing: float, compared: bool = False):
        """The animations one after another in one play, each ending with a "connection" cue (a note sounds as its
        line has been drawn, not before). A figure heard before (the same weights at the same temperature: a row
        redrawn at a later step) is recalled, not played again: only its top weight's note sounds; unless it is
        ``compared`` by ear with its neighbours (the temperature step's rows): then every row sounds whole.

        One play rather than one per note keeps long sentences quick to render; the cues carry
        the times the notes start at, ``spacing`` apart (never less than NOTE_SPACING, so each is heard).
        """
        if not animations:
            return
        spacing = max(NOTE_SPACING, spacing)
        start, peak = self.renderer.time, float(max(weights))
        for k in self.keys_to_sound(weights, temperature, compared):
            self.cues.append(Cue(start + (k + 1) * spacing, "connection", {
                "weight": float(weights[k]), "temperature": float(temperature), "peak": peak, "key": k,
                "spacing": spacing}))  # close notes share a loudness: ``sonify.mappings.heard_together``
        self.play(LaggedStart(*animations, lag_ratio=1.0), run_time=spacing * len(animations))

    def keys_to_sound(self, weights, temperature: float, compared: bool = False) -> list[int]:
        """Every key of a figure the section has not played yet, or of one ``compared`` with others; of one it has,
        the top weight's key alone (the first of equal ones), a recall. Kept in ``self.heard_figures``: (weights,
        temperature) already played."""
        figure = (tuple(float(weight) for weight in weights), float(temperature))
        if figure in self.heard_figures and not compared:
            return [int(np.argmax(figure[0]))]
        self.heard_figures.add(figure)
        return list(range(len(figure[0])))


def rounded_up(value: float, step: float = CHART_TOP_STEP) -> float:
    """The next multiple of ``step`` at or above ``value``: a chart's top that leaves its bars readable."""
    return max(step, math.ceil(round(value / step, 9)) * step)
