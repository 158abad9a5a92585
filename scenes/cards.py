"""The joined lecture's title card (course, lesson, date) and end card (the works its sections cite), drawn by
manim at the sections' size, frame rate and format, so their packets join the sections' as they are.

Both are laid out as the slides are: the title card's lines centred, each on one line where it fits the slide's
width, and under them the lecture's sections numbered, the list's block centred (a student sees the road before
the first step); the end card's heading in a step title's place (``style.MARGIN`` from the top-left corner) and its list at
that left margin. The title card comes in within APPEAR_SECONDS and holds OPENING_SECONDS in all; its sections
come in after it as the end card's references do, then hold HOLD_MOST. The end card
brings its references in one after the other, each within LINE_APPEAR (a viewer sees it come), the whole list within
a few seconds, then holds it HOLD_MOST: no still screen over 6 s, as for every card, and no half-minute of a silent
list coming in line by line (a viewer who wants to read seven references pauses on it). With a voice
(``CardVoice``: a narrated lecture), each card's sentence is said as the card comes in, and the card lasts at least
until TAIL after it.
"""

from __future__ import annotations

import logging
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from manim import DOWN, LEFT, RIGHT, UL, Scene, VGroup, config, tempconfig

from lesson.narration_text import TAIL
from lesson.references import Card
from scenes import style
from scenes.fades import Appear
from scenes.visuals import label_text, sit_on
from sonify.synth import SAMPLE_RATE

OPENING_SECONDS = 5.0  # the title card, its coming in included
APPEAR_SECONDS = 0.4  # the title card's text coming in
LINE_APPEAR = 0.25  # seconds: a reference coming in (a viewer sees it come, no slow fade)
LINE_GAP = 0.15  # seconds between one reference in and the next coming
HOLD_MOST = 5.5  # seconds the whole list holds once in (or longer, for the voice): under 6 s of still
TITLE_SCALE = 1.3  # the lesson's title, in step titles' size
AGENDA_GAP = 0.7  # between the title's lines and the list of sections
AGENDA_LINE_GAP = 0.22  # between two sections in the list
NUMBER_GAP = 0.3  # between a section's number and its title
ENTRY_GAP = 0.3  # the end card: between two entries


@dataclass(frozen=True)
class CardVoice:
    """A card's sentence as the voice says it: its text and its mono samples at SAMPLE_RATE."""

    text: str
    samples: np.ndarray

    @property
    def seconds(self) -> float:
        return len(self.samples) / SAMPLE_RATE


class CardScene(Scene):
    """A card on the sections' background. ``shown`` records (time, text): when each text's caption starts (a
    silent lecture's captions carry a card's texts); ``said`` (start, end, text): when the voice says its sentence."""

    def __init__(self, card: Card, voice: CardVoice | None = None, **kwargs):
        self.card, self.voice, self.shown, self.said = card, voice, [], []
        super().__init__(**kwargs)

    def setup(self):
        self.camera.background_color = style.BACKGROUND

    def speak(self) -> float:
        """The card's voice, if it has one, said from now; returns the time the card may end, TAIL after it."""
        now = self.renderer.time
        if self.voice is None:
            return now
        self.said.append((now, now + self.voice.seconds, self.voice.text))
        return now + self.voice.seconds + TAIL

    def hold_until(self, time: float) -> None:
        """Hold the screen until ``time`` (a wait's frames are counted down: a hair more keeps its last one)."""
        if time > self.renderer.time + 1e-6:
            self.wait(time - self.renderer.time + 1e-6)


def slide_width() -> float:
    """The width a slide's text may take: the frame less its margins."""
    return config.frame_width - 2 * style.MARGIN


def centred_lines(text: str, colour, font_size: float, weight: str = "NORMAL") -> VGroup:
    """``text`` on one line if it fits the slide's width, else broken into lines that do, each centred."""
    label = label_text(text, colour, font_size, weight)
    if label.width <= slide_width():
        return VGroup(label)
    lines = textwrap.wrap(text, int(len(text) * slide_width() / label.width))
    labels = [label_text(line, colour, font_size, weight) for line in lines]
    for line in labels:  # one word wider than the slide: scaled down, as wrapped_text does
        line.scale(min(1.0, slide_width() / line.width))
    return VGroup(*labels).arrange(DOWN, buff=0.2)


def agenda_list(titles: tuple[str, ...]) -> VGroup:
    """The sections' titles, one a line, each after its number: the numbers' right edges in one column, the titles'
    left edges in another, number and title on one baseline."""
    numbers = [label_text(f"{index}", style.MUTED, style.BODY_SIZE) for index in range(1, len(titles) + 1)]
    column = max((number.width for number in numbers), default=0)
    lines, line_height = VGroup(), label_text("Ág", style.TEXT, style.BODY_SIZE).height + AGENDA_LINE_GAP
    for row, (number, title) in enumerate(zip(numbers, titles)):
        text = label_text(title, style.TEXT, style.BODY_SIZE)
        sit_on(number.next_to([column, 0, 0], LEFT, buff=0), -row * line_height)
        sit_on(text.next_to([column + NUMBER_GAP, 0, 0], RIGHT, buff=0), -row * line_height)
        lines.add(VGroup(number, text))
    return lines


class OpeningCard(CardScene):
    def construct(self):
        course, title, date = self.card.lines
        parts = [centred_lines(title, style.TEXT, style.TITLE_SIZE * TITLE_SCALE, weight="BOLD")]
        parts = ([centred_lines(course, style.MUTED, style.BODY_SIZE)] if course else []) + parts \
            + ([centred_lines(date, style.MUTED, style.BODY_SIZE)] if date else [])
        card = VGroup(*parts).arrange(DOWN, buff=0.5)
        agenda = agenda_list(self.card.agenda)
        whole = VGroup(card, agenda).arrange(DOWN, buff=AGENDA_GAP) if len(agenda) else card
        room = config.frame_height - 2 * style.MARGIN
        if whole.height > room or whole.width > slide_width():  # many or long titles: smaller, never off the frame
            whole.scale(min(room / whole.height, slide_width() / whole.width))
        whole.move_to((0, 0, 0))
        self.shown.append((self.renderer.time, " — ".join(filter(None, self.card.lines))))
        ends = self.speak()
        self.play(Appear(card), run_time=APPEAR_SECONDS)
        if len(agenda):  # a silent lecture's captions: the list whole from its first line to the card's end
            self.shown.append((round(float(self.renderer.time), 3),
                               " · ".join(f"{index}. {title}" for index, title in enumerate(self.card.agenda, 1))))
        for line in agenda:
            self.play(Appear(line), run_time=LINE_APPEAR)
            self.hold_until(self.renderer.time + LINE_GAP)
        self.hold_until(max(OPENING_SECONDS, ends, self.renderer.time + HOLD_MOST - LINE_GAP if len(agenda) else 0))


def filled_text(text: str, width: float) -> VGroup:
    """``text`` filled greedily into lines no wider than ``width``: every line but the last as long as it can be, as
    a reference list is set (lines balanced to each entry's own width read ragged beside one another: review s11).
    Each word is measured (a count of characters broke lines at 85 % of the width: review s14)."""
    label = label_text(text, style.TEXT, style.BODY_SIZE)
    if label.width > width:
        label = label_text("\n".join(greedy_lines(text.split(), width)), style.TEXT, style.BODY_SIZE)
    return label.scale(min(1.0, width / label.width))  # one word wider than the slide


def greedy_lines(words: list[str], width: float) -> list[str]:
    """``words`` into lines, each as many as fit in ``width``: a line's width is its words' widths and a space's
    between them (kerning across words is under a pixel)."""
    space = label_text("a a", style.TEXT, style.BODY_SIZE).width - label_text("aa", style.TEXT, style.BODY_SIZE).width
    lines, current, used = [], [], 0.0
    for word in words:
        size = label_text(word, style.TEXT, style.BODY_SIZE).width
        if current and used + space + size > width:
            lines.append(" ".join(current))
            current, used = [], 0.0
        used += (space if current else 0.0) + size
        current.append(word)
    return [*lines, " ".join(current)]


def reference_list(references: list[str], width: float, room: float) -> VGroup:
    """The entries filled into ``width`` and stacked; a list taller than ``room`` is made smaller, its entries filled
    again into the width it then has (filled first and shrunk after, its lines ended short of the slide's edge)."""
    def stacked(fill_width: float) -> VGroup:
        return VGroup(*[filled_text(reference, fill_width) for reference in references]).arrange(
            DOWN, buff=ENTRY_GAP, aligned_edge=LEFT)

    lines = stacked(width)
    if lines.height > room:  # a list longer than the slide's body: smaller, never off the frame
        lines = stacked(width * lines.height / room)
        lines.scale(min(room / lines.height, width / lines.width))
    return lines


class ReferencesCard(CardScene):
    def construct(self):
        heading, *references = self.card.lines
        title = label_text(heading, style.TEXT, style.TITLE_SIZE, weight="BOLD").to_corner(UL, buff=style.MARGIN)
        room = title.get_bottom()[1] - 0.4 - (-config.frame_height / 2 + style.MARGIN)
        lines = reference_list(references, slide_width(), room)
        lines.next_to(title, DOWN, buff=0.4, aligned_edge=LEFT)
        self.add(title)
        ends = self.speak()
        shown = []  # a silent lecture's captions: each reference as it comes
        for reference, line in zip(references, lines):
            shown.append((round(float(self.renderer.time), 3), reference))
            self.play(Appear(line), run_time=LINE_APPEAR)
            self.hold_until(self.renderer.time + LINE_GAP)
        self.hold_until(max(ends, self.renderer.time + HOLD_MOST - LINE_GAP))
        self.shown = shown


SCENES = {"opening": OpeningCard, "references": ReferencesCard}


def render_card(card: Card, size: tuple[int, int, int], video_format: str, folder: Path, stem: str,
                voice: CardVoice | None = None) -> tuple[list, list]:
    """Draw ``card`` as ``folder/STEM.<video_format>`` at ``size`` (width, height, frames per second), the way
    a section is drawn (manim's scratch files in ``folder/STEM``), said by ``voice`` if given; returns when each
    text's caption starts, (s, text), and when the voice says its sentence, (start, end, text)."""
    width, height, fps = size
    scratch = folder / stem
    settings = {"media_dir": str(scratch), "video_dir": str(folder), "images_dir": str(scratch),
                "partial_movie_dir": str(scratch / "partial"), "pixel_width": width, "pixel_height": height,
                "frame_rate": fps, "format": video_format, "write_to_movie": True, "save_last_frame": False,
                "output_file": stem, "progress_bar": "none", "verbosity": "ERROR", "disable_caching": True}
    logging.getLogger("manim").setLevel(logging.ERROR)  # as a section's worker: no warning reaches the user
    with tempconfig(settings):
        scene = SCENES[card.kind](card, voice)
        scene.render()
    shutil.rmtree(scratch, ignore_errors=True)
    return scene.shown, scene.said
