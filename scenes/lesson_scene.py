"""What every section's scene has in common: the step header, the caption, the pacing of the steps,
the question and closing cards, and the step records that stills, slides, captions and tests are built from.

Pacing: a step stays on screen at least as long as it takes to read, ``reading_seconds`` of its caption
and of the numbers it newly shows; ``finish_step`` waits out whatever the animations left of that. A caption that
a voice says is not burned in and not read: a spoken step's reading time is its new numbers', and it lasts at least
its voice.
A reveal takes its new numbers' reading time (``reveal_seconds``), or stretches to fill the step's
reading time so the step does not end on a long frozen stretch.
A step's finished state (after its last animation, ``settled``) stays FINISHED_HOLD seconds before anything
replaces or dims it. ``lecture.pace`` multiplies the reading times, FINISHED_HOLD and a card's LONGEST_FREEZE
(``reading_time``), never the voice's.

A step ``lecture.skip`` leaves out (``LectureConfig.skipped_steps``) runs without being drawn and with the clock
stopped (``_omit_step``): what it builds is there for the steps after it, it takes no time, sounds and says nothing,
and leaves no record, so the counter, captions, stills and questions know only the steps shown.

Cards (``lecture.questions``): a *predictive* question (``predictive = true`` in the step's locale table) is
posed on a card just before the step that answers it; with "all", every other step's question follows its
step; a section whose ``closing`` table is ``shown`` ends on a closing card (statement and question, then the
answer). A card holds its reading time, at most LONGEST_FREEZE per still screen; with a voice, the voice reads it
(``say_card``: a closing card's answer as it appears) and it lasts its voice instead (``hold_card``).

Narration: a step's ``narration`` (beside its caption in the locale, the variant matching the caption shown)
is formatted with the caption's fields; with a voice (``SceneJob.narration``) its first phrase starts as the
step's header settles and each next one follows, except a phrase tied to a play (``[[name]]``, see
``lesson.narration_phrases``): it waits for ``beat(name)``, which first lets the voice finish what it is saying
(nothing is replaced while it is being talked about), then starts the phrase with the play. ``listening()``
surrounds plays whose sound is the point: the voice stops, they sound in the clear, the voice goes on after them.
The step lasts at least the voice plus ``narration_text.TAIL``: the scene holds longer, its animations keep their
speed. A recording is one piece from the step's start. When the step's key sound fell under the voice (ducked),
it plays again at full level after the voice (``sonify.replay``) and the step holds until it has ended.
"""

from __future__ import annotations

import textwrap
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np
from manim import (DOWN, LEFT, ORIGIN, UL, UR, AnimationGroup, MarkupText, Rectangle, RoundedRectangle, Scene, SingleStringMathTex, Text,
                   VGroup, VMobject, Wait, config, linear)
from manim.utils.exceptions import EndSceneEarlyException
from PIL import Image

from lesson.config import LectureConfig, load_config
from lesson.formats import PNG
from lesson.locale import load_locale
from lesson.narration_phrases import Phrase, caption_parts, phrases, plain, spoken_sentences
from lesson.narration_text import TAIL, Speaker, sentence_times, step_file_name
from lesson.numbers import use_decimal_separator, written_numbers
from lesson.questions import answer_parts, closing_fields, closing_texts, section_questions, step_question
from lesson.records import CardRecord, StepRecord, TextRecord
from lesson.steps import StepRange
from scenes import style, tex_store
from scenes.fades import Appear, Vanish
from scenes.number_glyphs import NumberText
from scenes.speedups import release_free_memory
from scenes.visuals import cap_height, fit, label_text
from sonify.mix import DUCK_RAMP, Track
from sonify.replay import REPLAY_GAP, key_cues, replay_times, sound_seconds
from sonify.synth import SAMPLE_RATE

WORDS_PER_SECOND = 2.5
SECONDS_PER_NEW_NUMBER = 0.4
NUMBERS_READING_MOST = 12.0  # seconds: a matrix of numbers is scanned for its pattern and the few that are named,
# not read one by one (49 numbers at 0.4 s held the pipeline's matrices 20 s each, filling row by row)
SHORTEST_STEP = 4.0  # seconds
SHORTEST_REVEAL = 0.3  # seconds: a reveal of one number still reads as a movement
FINISHED_HOLD = 4.0  # seconds a step's finished state stays before anything replaces or dims it
FROZEN_TAIL = 1.5  # seconds a reveal that fills its step's reading time leaves before the step's end (after
# ``fill_after``, often a wait): the finished state then lasts at least FINISHED_HOLD, at most LONGEST_FREEZE
LONGEST_FREEZE = 6.0  # seconds of a screen where nothing changes
THINK_SECONDS = 2.0  # after a question said (a predictive card, a closing card): time to guess before the answer comes
CARD_WIDTH = 10.0  # frame units: question and closing cards
CARD_PICTURE_HEIGHT = 3.6  # a closing card's drawing, at most
CARD_GAP = 0.35  # between a card's parts (title, lines, drawing)
CARD_PADDING = (0.8, 0.7)  # a card's panel round its parts, in width and in height
HEADER_SECONDS = 0.6  # a step's new header fades in (its step tone sounds as it has landed)
PHRASE_GAP = 0.3  # seconds of quiet between two phrases of the voice
LISTEN_TAIL = 0.6  # seconds a listening moment lasts at least after its last play, before the voice goes on
CAPTION_GROWS = 0.5  # seconds a caption takes to grow by its next part (``caption_parts``)
THINK_BAR_HEIGHT = 0.13  # the bar that runs out over a thinking time: at 640 x 360, about 50 pixels change a frame
THINK_BAR_INSET = 0.25  # between its ends and its card's sides
THINK_BAR_GAP = 0.15  # between the card's foot and it
THINK_BAR_IN = 0.15
THINK_BAR_LEFT = 1e-3  # its width once run out (a stretch to 0 would lose its shape)
CARD_STILL_MOST = LONGEST_FREEZE - 1.0  # a card said for longer: its bar starts this long after it settled
CARD_LINE_SECONDS = 0.25  # a closing card's line coming as it is said: a slower fade of grey text reads as still


def drawn_frames(run_time: float, frozen: bool) -> int:
    """How many frames a play of ``run_time`` seconds has in a drawn video: manim draws one at every 1/fps from 0 up
    to (not including) the run time, or, for a still wait (``frozen``), its run time's whole frames, rounded down."""
    frame = 1 / config.frame_rate
    return int(run_time / frame) if frozen else len(np.arange(0, run_time, frame))


def reading_seconds(text: str, new_numbers: int = 0) -> float:
    """max(4 s, words / 2.5 words per s + numbers_seconds): the least a step stays on screen."""
    return max(SHORTEST_STEP, len(text.split()) / WORDS_PER_SECOND + numbers_seconds(new_numbers))


def numbers_seconds(new_numbers: int) -> float:
    """min(0.4 s per new number, 12 s): the time to read a step's new numbers."""
    return min(SECONDS_PER_NEW_NUMBER * new_numbers, NUMBERS_READING_MOST)


def wrapped_text(text: str, colour, font_size: float, width: float, weight: str = "NORMAL") -> MarkupText:
    """``text`` broken into lines no wider than ``width`` (and scaled down if one word is wider)."""
    return wrapped_parts([text], colour, font_size, width, weight)[-1]


def wrapped_parts(texts: list[str], colour, font_size: float, width: float, weight: str = "NORMAL") -> list[MarkupText]:
    """The last of ``texts`` as ``wrapped_text`` writes it, and each of the others, which begin it, written on its
    lines and at its size, glyph over glyph: a text that grows word by word without moving."""
    whole = texts[-1]
    label = label_text(whole, colour, font_size, weight)
    lines = [whole] if label.width <= width else balanced(whole, int(len(whole) * width / label.width))
    scale = min(1.0, width / label_text("\n".join(lines), colour, font_size, weight).width)
    labels = [label_text("\n".join(_first_characters(lines, len(text))), colour, font_size, weight).scale(scale)
              for text in texts]
    for part in labels[:-1]:
        part.shift(labels[-1][0].get_center() - part[0].get_center())  # the same first glyph, in the same place
    return labels


def balanced(text: str, characters: int) -> list[str]:
    """``text`` in as few lines of at most ``characters`` as textwrap fills; when its last line would be under half
    the longest (a lone word: «… pueden aprender columnas / así.»), of lengths as even as they can be."""
    lines = textwrap.wrap(text, characters, break_on_hyphens=False)  # a line break stands for a space (_first_characters)
    if len(lines) < 2 or 2 * len(lines[-1]) >= max(map(len, lines)):
        return lines
    while characters > 1:
        shorter = textwrap.wrap(text, characters - 1, break_long_words=False, break_on_hyphens=False)
        if len(shorter) != len(lines) or max(map(len, shorter)) > characters - 1:  # more lines, or a word cut
            break
        lines, characters = shorter, characters - 1
    return lines


def _first_characters(lines: list[str], count: int) -> list[str]:
    """The wrapped ``lines`` cut after the text's first ``count`` characters (a line break stands for a space)."""
    kept = []
    for line in lines:
        if count <= 0:
            break
        kept.append(line[:count])
        count -= len(line) + 1
    return kept


@dataclass(frozen=True)
class SceneJob:
    """What a scene needs from outside: the validated config, the strings, and where to put stills."""

    config: LectureConfig
    locale: dict
    stills_dir: Path | None = None
    still_prefix: str = ""
    progress: Callable[[float], None] | None = None
    narration: Speaker | None = None  # who speaks the steps (a lecture.render.narration.Narration); None: nobody
    steps: StepRange | None = None  # a clip of these steps only (``--steps``); None: the whole section


@dataclass(frozen=True)
class Cue:
    """A sound the soundtrack plays at ``time`` seconds: ``kind`` names the mapping, ``values`` feed it."""

    time: float
    kind: str
    values: dict
    replay: bool = False  # a narrated step's key sound heard again after its voice (``sonify.replay``)
    listen: bool = False  # sounded in a listening moment: the voice stopped for it (``LessonScene.listening``)


class LessonScene(Scene):
    """Base of every section: subclasses set ``section_id`` and ``STEPS`` and implement ``lesson``."""

    section_id = ""
    STEPS: tuple[str, ...] = ()

    def __init__(self, job: SceneJob | None = None, **kwargs):
        # No job: run by manim's own CLI (`manim -ql scenes/matrix.py MatrixScene`): the default config.
        self.job = job or default_job()
        use_decimal_separator(self.separator)
        tex_store.install()  # formulas typeset by an earlier render, in any output folder, are not typeset again
        self.steps: list[StepRecord] = []
        self.cards: list[CardRecord] = []
        self.cues: list[Cue] = []
        self.freezes: list[tuple[float, float]] = []  # (start, end) of every wait: nothing moves
        self.voices: list[tuple[float, Track]] = []  # (start, mono samples) of each phrase of the voice, on disk
        self._unspoken: list[tuple[Phrase, np.ndarray]] = []  # the step's phrases not yet placed, with their voice
        self._spoken: list[tuple[Phrase, float, float]] = []  # the step's phrases placed: (phrase, start, end)
        self._voice_until = 0.0  # when the voice placed so far falls silent
        self.header = None
        self._settled = 0.0  # when the last animation ended
        self._caption_read = True  # the current step's caption is burned in, to be read (no voice says it)
        self._caption_later: list[tuple[str, str, MarkupText]] = []  # its parts to come: (beat, caption, label)
        self._caption_read_until = 0.0  # when the words the caption last grew by have been read
        self._landing: list[int] = []  # cues (their indices) that sound as the next play ends
        self._numbers_shown: set = set()
        self.clip_start = 0.0  # scene time the clip's first step begins at (0 for a whole section)
        self._drawing_after_omission: bool | None = None  # while a left-out step runs: skipping as it was before
        super().__init__(**kwargs)
        self._skipping = self.renderer._original_skipping_status  # the job's own: stills and records draw nothing
        if self.job.steps and self.job.steps.first > 1:
            self._skip_animations(True)

    @property
    def settings(self):
        """This section's table of the validated config."""
        return getattr(self.job.config, self.section_id)

    @property
    def shown_steps(self) -> tuple[str, ...]:
        """``STEPS`` less those the config skips (``LectureConfig.skipped_steps``): what the section shows, numbered
        1, 2, ..."""
        skipped = self.job.config.skipped_steps(self.section_id)
        return tuple(key for key in self.STEPS if key not in skipped)

    def shows(self, key: str) -> bool:
        """Whether step ``key`` is part of the section with this config."""
        return key in self.shown_steps

    @property
    def strings(self) -> dict:
        """This section's table of the locale."""
        return self.job.locale[self.section_id]

    @property
    def separator(self) -> str:
        """The locale's decimal separator: numbers in figures, captions, cards and narration are written with it."""
        return self.job.locale["numbers"]["decimal_separator"]

    def in_locale(self, text: str) -> str:
        """A text from the locale, filled in, with its decimals written as the locale writes them."""
        return written_numbers(text, self.separator)

    def shown_word(self, token: str) -> str:
        """A word of the section's model as the locale's ``<section>.words`` writes it; a word not listed as it is."""
        return self.strings.get("words", {}).get(token, token)

    def shown_words(self, tokens) -> list[str]:
        return [self.shown_word(token) for token in tokens]

    def setup(self):
        self.camera.background_color = style.BACKGROUND

    def construct(self):
        self.lesson()
        self.finish_step()
        if self.job.steps is None:
            self.close_section()
        self.wait(0.5)
        if self.cards and self.cards[-1].kind == "closing":
            self.cards[-1].end = self.renderer.time  # it stays up to the last frame

    def tear_down(self):
        """A clip's records, cues and voices start at 0 with its first step; earlier ones are dropped."""
        if not self.clip_start:
            return
        start = self.clip_start
        self.steps = [step.shifted(start) for step in self.steps if step.start >= start]
        self.cards = [card.shifted(start) for card in self.cards if card.start >= start]
        self.cues = [replace(cue, time=cue.time - start) for cue in self.cues if cue.time >= start]
        self.freezes = [(begin - start, end - start) for begin, end in self.freezes if begin >= start]
        self.voices = [(time - start, voice) for time, voice in self.voices if time >= start]

    @property
    def seconds(self) -> float:
        """How long the rendered scene (or clip) runs."""
        return self.renderer.time - self.clip_start

    def in_clip(self, number: int) -> bool:
        """Whether step ``number`` is drawn: always, unless the job asks for a clip of other steps."""
        return self.job.steps is None or number in self.job.steps

    def _skip_animations(self, skip: bool) -> None:
        """Skip (or draw again) every play from now on: manim resets skipping to its original state per play."""
        self.renderer.skip_animations = self.renderer._original_skipping_status = skip

    def play(self, *animations, **kwargs):
        """Play, or while animations are skipped jump each to its end without drawing anything (manim would still
        draw the frame of every skipped play, and sort what moves from what stays still for it), moving the clock
        on as the drawn play would (``_move_clock_as_drawn``): stills, step records and a clip's start come faster,
        and records made without drawing time each step as the video at the same frame rate does."""
        if not self.renderer._original_skipping_status:
            super().play(*animations, **kwargs)
        else:
            self.compile_animation_data(*animations, **kwargs)
            for animation in self.animations:  # manim's begin_animations, without sorting out what moves for drawing
                animation._setup_scene(self)
                animation.begin()
            self.moving_mobjects, self.static_mobjects = [], []
            frozen = self.is_current_animation_frozen_frame()
            self.play_internal(skip_rendering=True)
            if not self.omitting:
                self._move_clock_as_drawn(frozen)
            self.renderer.file_writer.add_partial_movie_file(None)  # one entry per play, as manim keeps them
            self.renderer.num_plays += 1
        if not all(isinstance(animation, Wait) for animation in animations):  # manim's wait plays a Wait
            self._settled = self.renderer.time
            for index in self._landing:
                self.cues[index] = replace(self.cues[index], time=self.renderer.time)
        self._landing = []

    def _move_clock_as_drawn(self, frozen: bool) -> None:
        """Add the current play's frames to the clock as manim does when it draws them: a still wait's frames at
        once, a play's one by one (the same sums, to the last bit)."""
        frame, frames = 1 / config.frame_rate, drawn_frames(self.duration, frozen)
        if frozen:
            self.renderer.time += frames * frame
        else:
            for _ in range(frames):
                self.renderer.time += frame

    def wait(self, duration: float = 1.0, *args, **kwargs):
        start = self.renderer.time
        super().wait(duration, *args, **kwargs)
        if not self.omitting:
            self.freezes.append((start, self.renderer.time))

    def lesson(self):
        raise NotImplementedError

    def begin_step(self, key: str, caption: str | None = None, new_numbers: int = 0, arriving=(), with_header=(),
                   **fields) -> None:
        """Close the current step and show the header and caption of ``key``, and with it ``arriving`` (mobjects
        that land with its step tone) and ``with_header`` (animations: the last step's drawing clearing away, so
        the voice, which starts as the header settles, never speaks over it); its reading time is planned for about
        ``new_numbers`` new numbers (finish_step counts the ones actually shown)."""
        self.finish_step()
        release_free_memory()  # what the last step freed: the peak stays that of one step, not of the section
        strings = self.strings["steps"][key]
        if key not in self.shown_steps:
            self._omit_step(key, plain(self.in_locale((caption or strings["caption"]).format(**fields))), new_numbers)
            if with_header:  # undrawn, untimed: what they leave is there for the steps after
                self.play(*with_header)
            return
        number = self.shown_steps.index(key) + 1
        if self.job.steps and number > self.job.steps.last:
            self.wait(0.5)  # the clip ends as a section does
            raise EndSceneEarlyException()  # its last step is done: manim finishes the file here
        if self.job.steps and number == self.job.steps.first > 1:
            self._skip_animations(self._skipping)
            self.clip_start = self.renderer.time
        card = None  # a predictive question's card, up until the header play's first half takes it with the last step
        if strings.get("predictive") and self.asks("predictive") and self.in_clip(number):
            card = self.pose_question(key, "predictive", self.in_locale(self.step_question(key).question),
                                      dismiss=False)
        title = strings["title"]
        template = caption or strings["caption"]
        caption = self.in_locale(template.format(**fields))
        speech = self.speech(number, key, strings, template, fields)
        self._caption_read = not (speech and speech[3])  # a voice says the caption instead: it is not burned in
        parts = caption_parts(caption) if self._caption_read else [("", plain(caption))]
        caption = parts[-1][1]
        new_header, later = self._header(title, number, [text for _, text in parts], burned=self._caption_read)
        self.cue("step", lands=True, step=number)  # as the new header lands
        # the old header and the last step's drawing (``with_header``) leave in the first half, the new header comes
        # in the second: two titles (and step counters) cross-faded in one place read as neither, and a new title
        # over the old drawing reads as a title for it
        # in the clear: the card leaves with them, so the last step's screen never comes back between card and step
        # (last: a play draws its mobjects in its order, and the veil keeps the drawing under it dimmed as both fade)
        leaving = [Vanish(self.header)] if self.header is not None else []
        leaving = [*leaving, *with_header, *([Vanish(card)] if card is not None else [])]
        heading = AnimationGroup(AnimationGroup(*leaving), Appear(new_header), lag_ratio=1.0) if leaving \
            else Appear(new_header)
        self.play(heading, *map(Appear, arriving), run_time=HEADER_SECONDS)
        if card is not None:
            self.remove(card)
            self.cards[-1].end = self.renderer.time - HEADER_SECONDS / 2
        # Bottom of the drawing order: manim redraws on every frame whatever lies above an animated
        # mobject, and the header overlaps nothing in the body.
        self.bring_to_back(new_header)
        self.header = new_header
        self.steps.append(StepRecord(key=key, title=title, caption=caption, start=self.renderer.time,
                                     reading=self.reading_time(self.read_caption(caption), new_numbers)))
        if later:
            self.steps[-1].grown = [(self.renderer.time, parts[0][1])]
        self._caption_later = [(play, text, label) for (play, text), label in zip(parts[1:], later)]
        self.narrate(number, speech)
        if self.job.progress:
            self.job.progress((number - 1) / len(self.shown_steps))

    def _omit_step(self, key: str, caption: str, new_numbers: int) -> None:
        """Run a step ``lecture.skip`` leaves out without drawing it and with the clock stopped, so later steps find
        what it built: it takes no time, sounds and says nothing, and its record is dropped at its end."""
        self._drawing_after_omission = self.renderer._original_skipping_status
        self._skip_animations(True)
        self._unspoken, self._spoken = [], []
        self.steps.append(StepRecord(key=key, title="", caption=caption, start=self.renderer.time,
                                     reading=self.reading_time(caption, new_numbers)))

    @property
    def omitting(self) -> bool:
        """Whether a step ``lecture.skip`` leaves out is running (``_omit_step``)."""
        return self._drawing_after_omission is not None

    def _end_omission(self) -> None:
        self.steps.pop()
        self._skip_animations(self._drawing_after_omission)
        self._drawing_after_omission = None

    def read_caption(self, caption: str) -> str:
        """What of the current step's caption is read on screen: all of it, or nothing when a voice says it (its
        time is the voice's, and the subtitles follow the voice)."""
        return caption if self._caption_read else ""

    def reading_time(self, text: str, new_numbers: int = 0) -> float:
        """``reading_seconds`` at the lecture's pace (``lecture.pace``)."""
        return reading_seconds(text, new_numbers) * self.job.config.lecture.pace

    def speech(self, number: int, key: str, strings: dict, caption_template: str,
               fields: dict) -> tuple[str, str, list[Phrase], list[np.ndarray] | None] | None:
        """Which narration the step says (the ``narration`` of the caption shown: ``narration_tie`` beside
        ``caption_tie``), what it says (numbers as the locale reads them), its phrases and, with a voice, each
        phrase's sound; None when the step has no narration."""
        variant = next((name for name, text in strings.items() if name.startswith("caption") and text == caption_template),
                       "caption")
        variant = variant.replace("caption", "narration", 1) if variant.replace("caption", "narration", 1) in strings \
            else "narration"
        template = strings.get(variant)
        if template is None:
            return None
        text = self.in_locale(template.format(**fields))
        parts = phrases(text)
        voices = self.job.narration.speak(step_file_name(number, key), [part.text for part in parts],
                                          self.job.locale["spoken"]) if self.job.narration and self.in_clip(number) else None
        return variant, text, parts, voices

    def narrate(self, number: int, speech: tuple[str, str, list[Phrase], list[np.ndarray] | None] | None) -> None:
        """Record what the step's narration says and, with a voice, start it now; its phrases tied to plays wait
        for their ``beat``."""
        self._unspoken, self._spoken = [], []
        if speech is None:
            return
        variant, text, parts, voices = speech
        step = self.steps[-1]
        step.narration = {"file": step_file_name(number, step.key), "text": plain(text), "variant": variant}
        if voices is None:
            return
        step.narration["start"] = round(step.start, 4)
        self._voice_until = step.start - PHRASE_GAP
        if len(voices) == len(parts):
            self._unspoken = list(zip(parts, voices))
            self._speak_untied()
        else:  # a recording: one piece from the step's start, its sentences found in it
            self._place_recording(voices[0], spoken_sentences(text))

    def _place(self, phrase: Phrase, voice: np.ndarray, start: float, with_its_play: bool = False) -> None:
        """The phrase's voice from ``start``; recorded with the play it waits for only when it started with it
        (a phrase whose beat never came is said in order, tied to nothing)."""
        end = start + len(voice) / SAMPLE_RATE
        self.voices.append((start, Track.holding(voice)))  # not in memory: a section may speak for minutes
        self._spoken.append((phrase if with_its_play else replace(phrase, play=""), start, end))
        self._voice_until = end

    def _speak_untied(self) -> None:
        """Place the next phrases that wait for no play, each after the one before."""
        while self._unspoken and not self._unspoken[0][0].play:
            self._place(*self._unspoken.pop(0), max(self._voice_until + PHRASE_GAP, self.renderer.time))

    def _place_recording(self, voice: np.ndarray, parts: list[str]) -> None:
        start = self.renderer.time
        self.voices.append((start, Track.holding(voice)))
        self._voice_until = start + len(voice) / SAMPLE_RATE
        self._spoken = [(Phrase(part, number), start + begin, start + end)
                        for number, (part, (begin, end)) in enumerate(zip(parts, sentence_times(voice, parts)))]

    def beat(self, name: str) -> None:
        """Call just before the play that the narration's phrase ``[[name]]`` describes: the voice first finishes
        the phrases before it, then that phrase starts with the play. Nothing when no phrase waits for it.
        A caption read on screen grows by its words after ``[[name]]`` now, just before that play, as a voice would
        say them."""
        if not name:
            raise ValueError("beat: a phrase's marker needs a name, e.g. beat(\"scores\")")
        waiting = [play for play, _, _ in self._caption_later]
        if name in waiting:
            self._grow_caption(waiting.index(name) + 1)
        if not any(phrase.play == name for phrase, _ in self._unspoken):
            return
        while self._unspoken[0][0].play != name:  # tied to a play that did not come: said in order all the same
            self._place(*self._unspoken.pop(0), max(self._voice_until + PHRASE_GAP, self.renderer.time))
        self.wait_until(self._voice_until + PHRASE_GAP)
        self._place(*self._unspoken.pop(0), self.renderer.time, with_its_play=True)
        self._speak_untied()

    def _grow_caption(self, parts: int) -> None:
        """The caption grows by its next ``parts`` parts at once (the header's caption becomes the longer one), and
        the step lasts until the words added have been read."""
        if not parts:
            return
        (_, text, label), self._caption_later = self._caption_later[parts - 1], self._caption_later[parts:]
        shown, step = self.header[2], self.steps[-1]
        added = len(text.split()) - len(step.grown[-1][1].split())
        step.grown.append((self.renderer.time, text))
        self.play(Vanish(shown), Appear(label), run_time=CAPTION_GROWS)
        self.remove(shown)
        self.header.remove(shown).add(label)
        self.bring_to_back(label)
        self._caption_read_until = self.renderer.time + added / WORDS_PER_SECOND * self.job.config.lecture.pace

    @contextmanager
    def listening(self, lead: float = 0.0):
        """Plays whose sound is the point: the voice stops before them, they sound in the clear at their level
        (their cues are marked ``listen``), and the voice goes on once their last sound has rung out, at least
        LISTEN_TAIL after the last play. ``lead``: the first play may start this much earlier than PHRASE_GAP after
        the voice (a sound landing at its end then lands as the voice stops, not a gap later)."""
        if not (self._spoken or self._unspoken):  # no voice in this step: nothing to stop
            yield
            return
        self.wait_until(self._voice_until + PHRASE_GAP - lead)
        start, first = max(self.renderer.time, self._voice_until), len(self.cues)
        yield
        self.cues[first:] = [replace(cue, listen=True) for cue in self.cues[first:]]
        end = max([self.renderer.time + LISTEN_TAIL, *(cue.time + sound_seconds(cue) for cue in self.cues[first:])])
        self.steps[-1].narration.setdefault("listening", []).append([round(start, 4), round(end, 4)])
        self._voice_until = max(self._voice_until, end - PHRASE_GAP)

    def _record_spoken(self, step: StepRecord | CardRecord) -> None:
        """The step's (or card's) phrases whose play never came, said in order; then its sentences and phrases with
        their times (and the play each phrase started with) into its record."""
        while self._unspoken:
            self._place(*self._unspoken.pop(0), max(self._voice_until + PHRASE_GAP, self.renderer.time))
        if not self._spoken:
            return
        texts = spoken_sentences(step.narration["text"])
        bounds: dict[int, list[float]] = {}
        for phrase, start, end in self._spoken:
            bounds.setdefault(phrase.sentence, [start, end])[1] = end
        step.narration |= {
            "seconds": round(self._voice_until - step.start, 4),
            "sentences": [[texts[number], round(start, 4), round(end, 4)] for number, (start, end) in bounds.items()],
            "phrases": [[phrase.text, round(start, 4), round(end, 4), phrase.play]
                        for phrase, start, end in self._spoken]}

    def reveal_seconds(self, new_numbers: int = 0, fill_after: float | None = None,
                       shortest: float = SHORTEST_REVEAL) -> float:
        """How long a reveal runs: the time to read its ``new_numbers`` (``numbers_seconds``; at least ``shortest``).

        With ``fill_after`` (seconds of animation the step still plays after it) the reveal also stretches
        over the step's planned reading time, all but a FROZEN_TAIL."""
        seconds = max(shortest, numbers_seconds(new_numbers))
        if fill_after is None:
            return seconds
        step = self.steps[-1]
        return max(seconds, step.start + step.reading - self.renderer.time - fill_after - FROZEN_TAIL)

    def cue(self, kind: str, lands: bool = False, **values) -> None:
        """Mark a sound at the current time; call it just before the ``play`` it belongs to. A cue that
        ``lands`` sounds as that play ends (bars at their height, arcs at their token), not as it starts. A step
        left out (``omitting``) sounds nothing."""
        if self.omitting:
            return
        self.cues.append(Cue(self.renderer.time, kind, values))
        if lands:
            self._landing.append(len(self.cues) - 1)

    def finish_step(self) -> None:
        """Record what the step shows, keep it until it has been read, then pose its question."""
        if self.omitting:
            self._end_omission()
            return
        if not self.steps or self.steps[-1].end:
            return
        self._grow_caption(len(self._caption_later))  # a part whose beat never came: still read before the step ends
        step = self.steps[-1]
        step.texts, step.numbers = self._snapshot(self.mobjects)
        shown = numbers_on_screen(step.numbers)
        step.new_numbers, self._numbers_shown = len(shown - self._numbers_shown), shown
        step.reading = self.reading_time(self.read_caption(step.caption), step.new_numbers)
        step.settled = max(self._settled, step.start)
        self._record_spoken(step)
        self.wait_until(max(step.start + max(step.reading, step.narration.get("seconds", -TAIL) + TAIL),
                            step.settled + FINISHED_HOLD * self.job.config.lecture.pace, self.replay_key_sound(step),
                            self._caption_read_until))
        step.read_until = self.renderer.time
        if self.job.stills_dir is not None and self.in_clip(len(self.steps)):
            self._save_still(len(self.steps), step.key)
        strings = self.strings["steps"][step.key]
        if "question" in strings and not strings.get("predictive") and self.asks("all") \
                and self.in_clip(len(self.steps)):
            self.pose_question(step.key, "question", self.in_locale(self.step_question(step.key).question))
        step.end = self.renderer.time

    def count_as_read(self, numbers: dict) -> None:
        """``numbers`` (a step record's) come back to the screen as an earlier step showed them: the reading time
        of the step that shows them again does not count them as new."""
        self._numbers_shown |= numbers_on_screen(numbers)

    def replay_key_sound(self, step: StepRecord) -> float:
        """A spoken step whose key sound (``sonify.replay.key_cues``) fell under its voice (a phrase, not a
        listening moment): those cues again, one after the other from REPLAY_GAP after the voice's end; returns when the step may end after them (TAIL
        later), 0 when nothing is replayed."""
        if "seconds" not in step.narration:
            return 0.0
        voice_end = step.start + step.narration["seconds"]
        key = key_cues([cue for cue in self.cues if cue.time >= step.start])
        if not any(start - DUCK_RAMP <= cue.time <= end + DUCK_RAMP for cue in key for _, start, end in self._spoken):
            return 0.0
        times, end = replay_times(key, max(voice_end + REPLAY_GAP, self.renderer.time))
        self.cues += [replace(cue, time=time, replay=True) for cue, time in zip(key, times)]
        return end + TAIL

    def spoken(self) -> bool:
        """Whether a voice speaks the current step."""
        return bool(self._spoken or self._unspoken)

    def voice_left(self, left: float = 0.0) -> float:
        """Seconds until the voice placed so far (to the step's next beat) falls silent, but ``left``; 0 without one."""
        return max(0.0, self._voice_until - self.renderer.time - left)

    def wait_until(self, time: float) -> None:
        """Wait, if needed, until at least ``time`` seconds into the scene: a drawn wait counts whole frames,
        rounded down, so a last frame is added when one is missing. A step left out waits for nothing."""
        while not self.omitting and time - self.renderer.time > 1e-6:
            self.wait(max(time - self.renderer.time, 1 / config.frame_rate))

    # Cards ---------------------------------------------------------------------------------------
    def asks(self, kind: str) -> bool:
        """Whether ``lecture.questions`` shows cards of ``kind``: "predictive" ones (and closing cards) unless
        it is "none", the others only with "all"."""
        chosen = self.job.config.lecture.questions
        return chosen == "all" or (kind == "predictive" and chosen == "predictive")

    def pose_question(self, key: str, kind: str, question: str, dismiss: bool = True) -> VGroup:
        """The question of step ``key`` on a card over the dimmed screen, for its reading time, or said by the voice
        (``hold_card``), a predictive one with THINK_SECONDS after its voice to think; returns the card, taken away
        unless not ``dismiss`` (then the next step's header play takes it, and sets its record's end)."""
        title = self.job.locale["lecture"]["question"]
        card = self.card(title, [wrapped_text(question, style.TEXT, style.BODY_SIZE, CARD_WIDTH)])
        record = CardRecord(kind=kind, key=key, title=title, text=question, start=self.renderer.time)
        self.say_card(record, f"{step_file_name(self.shown_steps.index(key) + 1, key)}-{kind}", question)
        self.play(Appear(card), run_time=0.5)
        record.texts, _ = self._snapshot([card])
        self.hold_card(self.reading_time(question), think=THINK_SECONDS if kind == "predictive" else TAIL,
                       panel=card[1])
        self._record_spoken(record)
        self.cards.append(record)
        if dismiss:
            self.play(Vanish(card), run_time=0.4)
            self.remove(card)
            record.end = self.renderer.time
        return card

    def close_section(self) -> None:
        """What the sources say but the section does not show: a statement and a question, time to think,
        then the answer (strings in the locale's ``closing.<section>``, on a card when it is ``shown``)."""
        shown = self.job.locale.get("closing", {}).get(self.section_id, {}).get("shown")
        if not shown or not self.asks("predictive"):
            return
        texts = closing_texts(self.section_id, self.job.locale, self.closing_fields())
        title, statement, question, answer = (texts[part] for part in ("title", "text", "question", "answer"))
        parts = answer_parts(answer, texts["narration"])
        picture = self.closing_picture()
        lines = [wrapped_text(statement, style.TEXT, style.BODY_SIZE, CARD_WIDTH),
                 wrapped_text(question, style.TEXT, style.BODY_SIZE, CARD_WIDTH, weight="BOLD"),
                 VGroup(*[wrapped_text(words, style.MUTED, style.BODY_SIZE, CARD_WIDTH)
                          for _, words in parts]).arrange(DOWN, buff=0.15, aligned_edge=LEFT)]
        if picture:  # under the statement, as tall as the frame's margins leave the card (it came 10 px from them)
            words = self.card(title, lines)[1].height
            room = config.frame_height - 2 * style.MARGIN - words - CARD_GAP
            lines.insert(1, fit(picture, CARD_WIDTH, min(CARD_PICTURE_HEIGHT, room)))
        card = self.card(title, lines)
        if picture:
            picture.set_x(card[1].get_x())  # centred on the card's panel; the text keeps its left edge
        question_line, answer_line = lines[-2:]
        self.play(Vanish(*[mobject for mobject in self.mobjects if isinstance(mobject, VMobject)]), run_time=0.6)
        self.clear()  # trackers and other invisible helpers too
        self.header = None
        record = CardRecord(kind="closing", key=self.section_id, title=title,
                            text=" ".join((statement, question, answer)), start=self.renderer.time)
        spoken = self.say_card(record, step_file_name(len(self.shown_steps) + 1, "closing"), texts["narration"])
        later = (question_line, answer_line) if spoken else (answer_line,)  # said: each line comes as it is said
        drawn_later = self.closing_hidden() if picture else []  # the drawing's parts its moves bring
        first = [part for part in card if part not in later and part is not picture]
        self.play(Appear(VGroup(*first, *[part for part in (picture or []) if part not in drawn_later])), run_time=0.6)
        moved_from = self.renderer.time
        for line in ("card",) if spoken else ("card", "question"):
            self.closing_moves(line)
        if spoken:
            self.beat("question")
            self.play(Appear(question_line), run_time=CARD_LINE_SECONDS)
            self.closing_moves("question")
        else:  # the drawing's moves were read through: the card's reading time counts them
            self.hold_card(self.reading_time(f"{statement} {question}"), already=self.renderer.time - moved_from)
        record.answer = answer
        if spoken:  # time to think between the question said and its answer (it came 0.3 s after: review s12)
            self.think_until(self._voice_until + THINK_SECONDS * self.job.config.lecture.pace, card[1])
        for (beat, _), part in zip(parts, list(answer_line) if spoken else [answer_line]):  # said: as it is said
            self.beat(beat)
            record.answered = record.answered or self.renderer.time  # the answer's subtitle as it appears
            self.play(Appear(part), run_time=CARD_LINE_SECONDS)
            self.closing_moves(beat)
        record.texts, _ = self._snapshot([card])
        self.hold_card(self.reading_time(answer))
        self._record_spoken(record)
        record.end = self.renderer.time
        self.cards.append(record)

    def closing_picture(self) -> VMobject | None:
        """A drawing of the closing statement, under it on the card (a section draws its own); None: text alone."""
        return None

    def closing_hidden(self) -> list:
        """Parts of the closing drawing (its submobjects) not shown as the card comes: ``closing_moves`` brings them."""
        return []

    def closing_moves(self, line: str) -> None:
        """Plays of the closing drawing as the card's ``line`` has come: "card" (the card, without its hidden parts),
        "question", then each part of the answer by its beat ("answer", ...); a spoken card's moves may wait for
        beats of their own. None by default: the drawing comes whole with the card."""

    def closing_fields(self) -> dict:
        """Numbers the closing strings may quote (a section adds its own)."""
        return closing_fields()

    def question_fields(self, key: str) -> dict:
        """Numbers the question and answer of step ``key`` quote, computed for this config: ``self.answers``, which
        a section whose answers quote its example sets in ``lesson()`` (lesson/<section>_answers.py; see
        lesson.questions.step_question)."""
        return getattr(self, "answers", {}).get(key, {})

    def step_question(self, key: str):
        return step_question(self.section_id, key, self.job.locale, self.question_fields(key))

    def class_questions(self) -> list[dict]:
        """Every question of the steps shown, with its answer, and the closing's (of a whole section, not a
        clip): for notes and handouts."""
        questions = section_questions(self.section_id, [step.key for step in self.steps], self.job.locale,
                                      self.closing_fields(), self.question_fields)
        return [asdict(question) for question in questions if self.job.steps is None or question.key != "closing"]

    def card(self, title: str, lines: list) -> VGroup:
        """A panel over a veil that dims the step: ``title``, then ``lines``."""
        heading = label_text(title, style.TEXT, style.TITLE_SIZE, weight="BOLD")
        content = VGroup(heading, *lines).arrange(DOWN, buff=CARD_GAP, aligned_edge=LEFT)
        panel = RoundedRectangle(width=content.width + CARD_PADDING[0], height=content.height + CARD_PADDING[1],
                                 corner_radius=0.15,
                                 fill_color=style.PANEL, fill_opacity=1.0, stroke_color=style.MUTED, stroke_width=1.5)
        panel.move_to(content)
        veil = Rectangle(width=config.frame_width, height=config.frame_height, stroke_width=0,
                         fill_color=style.BACKGROUND, fill_opacity=0.85)
        VGroup(panel, content).move_to(ORIGIN)
        return VGroup(veil, panel, *content)

    def say_card(self, record: CardRecord, name: str, text: str) -> bool:
        """With a voice, ``text`` (the card's words, or the locale's shorter spoken form, its phrases tied to plays by
        ``[[name]]`` markers) said from now, as the card fades in, a phrase after the other, as a step's narration
        is (``name``: its file, as a step's); the card's ``narration`` records it. Returns whether a voice says it:
        cards are the synthetic voice's, a recording is a step's."""
        self._unspoken, self._spoken = [], []
        if not self.job.narration:
            return False
        parts = phrases(text)
        voices = self.job.narration.speak(name, [part.text for part in parts], self.job.locale["spoken"])
        if voices is None:
            return False
        record.narration = {"file": name, "text": plain(text), "start": round(self.renderer.time, 4)}
        self._voice_until = self.renderer.time - PHRASE_GAP
        self._unspoken = list(zip(parts, voices, strict=True))
        self._speak_untied()
        return True

    def hold_card(self, seconds: float, already: float = 0.0, think: float = TAIL, panel=None) -> None:
        """Keep a card up while the voice says it (``say_card``), until ``think`` after it and at least FINISHED_HOLD
        after it settled, as a step (a thinking time ticks away on the card's ``panel``); a card not spoken for
        ``seconds`` of reading, at most LONGEST_FREEZE at the lecture's pace: no silent screen stands still longer (the
        captions carry the card's text for a viewer who pauses)."""
        pace = self.job.config.lecture.pace
        if self._spoken:
            until = max(self._voice_until + think * pace, self._settled + FINISHED_HOLD * pace)
            if think > TAIL and panel is not None:
                self.think_until(until, panel)
            self.wait_until(until)
        elif min(seconds, LONGEST_FREEZE * pace) - already > 1e-6:  # ``already`` of it shown while a drawing moved
            self.wait(min(seconds, LONGEST_FREEZE * pace) - already)

    def think_until(self, until: float, panel) -> None:
        """The time to think after a question is said, seen passing: once the voice has ended, a bar under the card's
        ``panel`` runs out until ``until`` (a card said, then held for its thinking time, stood still for
        over 6 s: review s13); sooner, CARD_STILL_MOST after the card settled, when its question takes longer to say
        (scaling's exercise 5 was said for 7.4 s on a still card: review s16)."""
        self.wait_until(min(self._voice_until, self._settled + CARD_STILL_MOST * self.job.config.lecture.pace))
        seconds = until - self.renderer.time
        if seconds < THINK_BAR_IN + 1 / config.frame_rate:
            self.wait_until(until)
            return
        bar = Rectangle(width=panel.width - 2 * THINK_BAR_INSET, height=THINK_BAR_HEIGHT, stroke_width=0,
                        fill_color=style.MUTED, fill_opacity=1.0)
        bar.move_to(panel.get_bottom() + DOWN * (THINK_BAR_GAP + THINK_BAR_HEIGHT / 2))  # under the card, on the veil
        self.play(Appear(bar), run_time=THINK_BAR_IN)
        self.play(bar.animate(rate_func=linear).stretch(THINK_BAR_LEFT / bar.width, 0, about_edge=LEFT),
                  run_time=until - self.renderer.time)
        self.remove(bar)

    def _header(self, title: str, number: int, captions: list[str], burned: bool = True) -> tuple[VGroup, list]:
        """The step's title, its counter and, ``burned`` in, its caption: a spoken step's caption is kept invisible
        (its place stays the subtitles' band; the subtitles carry the spoken words), so no viewer reads a step's
        text twice. With ``lecture.clean`` all three are invisible, in their places: a picture of the content alone
        to embed in a lecturer's slide. ``captions``: the caption as it grows (``caption_parts``), the header
        showing the first; returns the header and the labels of the later ones, in their places."""
        counter_text = self.job.locale["lecture"]["step_counter"].format(current=number, total=len(self.shown_steps))
        heading = label_text(title, style.TEXT, style.TITLE_SIZE, weight="BOLD")
        counter = label_text(counter_text, style.MUTED, style.CAPTION_SIZE)
        heading.to_corner(UL, buff=style.MARGIN)
        counter.to_corner(UR, buff=style.MARGIN).align_to(heading, DOWN)
        caption_texts = self._caption_parts(captions)
        VGroup(*caption_texts).to_edge(DOWN, buff=style.MARGIN)
        clean = self.job.config.lecture.clean
        for part in (heading, counter) if clean else ():
            part.set_opacity(0)
        for caption_text in caption_texts if clean or not burned else ():
            caption_text.set_opacity(0)
        return VGroup(heading, counter, caption_texts[0]), caption_texts[1:]

    @classmethod
    def _caption(cls, caption: str) -> MarkupText:
        """The caption whole (its markers removed), wrapped onto a second line when it is wider than the frame."""
        return cls._caption_parts([plain(caption)])[0]

    @staticmethod
    def _caption_parts(captions: list[str]) -> list[MarkupText]:
        """The caption as it grows (``wrapped_parts``), wrapped onto a second line when it is wider than the frame."""
        return wrapped_parts(captions, style.MUTED, style.CAPTION_SIZE, config.frame_width - 2 * style.MARGIN)

    def _snapshot(self, mobjects) -> tuple[list[TextRecord], dict]:
        texts, numbers = [], {}
        for mobject in self._visible_texts(mobjects):
            texts.append(TextRecord(getattr(mobject, "shown_text", None) or getattr(mobject, "tex_string", ""),
                                    mobject.get_left()[0], mobject.get_right()[0],
                                    mobject.get_bottom()[1], mobject.get_top()[1], cap_height(mobject)))
            if hasattr(mobject, "tag"):
                name, (i, j) = mobject.tag
                numbers.setdefault(name, {})[(i, j)] = mobject.shown_text
        return texts, {name: _as_rows(grid) for name, grid in numbers.items()}

    @staticmethod
    def _visible_texts(mobjects):
        """Top-level Text, MarkupText, MathTex and NumberText mobjects among ``mobjects`` with a visible fill."""
        found, seen = [], set()
        for mobject in mobjects:
            stack = [mobject]
            while stack:
                current = stack.pop()
                if isinstance(current, (Text, MarkupText, SingleStringMathTex, NumberText)):
                    if id(current) not in seen and _fill_opacity(current) > 0.05:
                        seen.add(id(current))
                        found.append(current)
                    continue
                stack.extend(current.submobjects)
        return found

    def _save_still(self, number: int, key: str) -> None:
        self.renderer.update_frame(self, ignore_skipping=True)
        path = self.job.stills_dir / f"{self.job.still_prefix}{number:02d}-{key}{PNG.suffix}"
        Image.fromarray(self.renderer.get_frame()).convert("RGB").save(path)


def default_job() -> SceneJob:
    """The default config and the locale of its ``lecture.lang``."""
    lecture_config = load_config()
    return SceneJob(config=lecture_config, locale=load_locale(lecture_config.lecture.lang))


def _fill_opacity(text: VMobject) -> float:
    """The most opaque fill among ``text``'s glyphs (a MathTex keeps its fill on its parts, not itself)."""
    return max((part.get_fill_opacity() for part in text.family_members_with_points()), default=0.0)


def _as_rows(grid: dict) -> list[list[str | None]]:
    rows = 1 + max(i for i, _ in grid)
    cols = 1 + max(j for _, j in grid)
    return [[grid.get((i, j)) for j in range(cols)] for i in range(rows)]


def numbers_on_screen(numbers: dict) -> set:
    """Each number of a step record's ``numbers`` (matrix name -> rows of texts, None where no number) as
    (name, row, column, text)."""
    return {(name, i, j, text) for name, rows in numbers.items()
            for i, row in enumerate(rows) for j, text in enumerate(row) if text is not None}
