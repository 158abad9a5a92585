"""What every deck format shows, whatever it is written as: sections of step slides (each a clip with its
title, caption and speaker notes), and, in the lecture's joined deck, a title slide before each section."""

from __future__ import annotations

import tempfile
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import av
from PIL import Image

from lesson.formats import MP4, PNG
from lesson.locale import DEFAULT_LANGUAGE, load_locale

CLIPS = MP4  # every deck's step clips, whatever the section's format: what manim-slides plays


@dataclass(frozen=True)
class StepSlide:
    clip: Path  # the step's video with its sound
    title: str
    caption: str
    notes: str


@dataclass(frozen=True)
class SectionSlides:
    stem: str  # e.g. 01-matrix: names its clips' folder in a deck's assets
    heading: str  # e.g. "1. De X a Z: la atención, celda por celda"
    summary: str
    steps: tuple[StepSlide, ...]
    questions: tuple[tuple[str, str], ...] = ()  # (question, answer): every question for the class, for handouts


@dataclass(frozen=True)
class Deck:
    title: str
    sections: tuple[SectionSlides, ...]
    width: int
    height: int
    background: str  # "#rrggbb", the videos' own background
    joined: bool = False  # the lecture's deck: each section opened by a title slide
    lang: str = DEFAULT_LANGUAGE  # the locale the deck is written from (lecture.lang)

    @property
    def language(self) -> str:
        """The BCP 47 tag of the deck's locale (es-ES, en-GB): what its text is marked with."""
        return load_locale(self.lang)["lecture"]["language"]

    @property
    def slide_count(self) -> int:
        return sum(len(section.steps) + self.joined for section in self.sections)


def last_frame(clip: Path) -> Image.Image:
    """The clip's last frame: what the step ends on, the picture that stands for it on paper."""
    with av.open(str(clip)) as container:
        (frame,) = deque(container.decode(video=0), maxlen=1)
        return frame.to_image()


def slides_in_order(deck: Deck) -> Iterator[SectionSlides | tuple[StepSlide, Path]]:
    """The deck's slides in order: a section (for its title slide, in a joined deck) or a step with its
    last frame as a PNG file of its own name (writers may cache pictures by name), there until the end."""
    with tempfile.TemporaryDirectory() as scratch:
        for section in deck.sections:
            if deck.joined:
                yield section
            for step in section.steps:
                frame = Path(scratch) / f"{section.stem}-{step.clip.stem}{PNG.suffix}"
                last_frame(step.clip).save(frame)
                yield step, frame
