"""What every section's scene has in common: the step header, the caption, and the step records
that stills, slides, captions and tests are built from."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from manim import DOWN, UL, UR, MarkupText, Scene, SingleStringMathTex, Text, VGroup, config
from PIL import Image

from lecture.config import LectureConfig
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.number_glyphs import NumberText
from scenes.visuals import label_text


@dataclass(frozen=True)
class SceneJob:
    """What a scene needs from outside: the validated config, the strings, and where to put stills."""

    config: LectureConfig
    locale: dict
    stills_dir: Path | None = None
    still_prefix: str = ""
    progress: Callable[[float], None] | None = None


@dataclass(frozen=True)
class TextRecord:
    """A piece of text on screen and its bounding box in frame units."""

    text: str
    left: float
    right: float
    bottom: float
    top: float

    def overlaps(self, other: "TextRecord", tolerance: float = 0.01) -> bool:
        return (self.left < other.right - tolerance and other.left < self.right - tolerance
                and self.bottom < other.top - tolerance and other.bottom < self.top - tolerance)


@dataclass(frozen=True)
class Cue:
    """A sound the soundtrack plays at ``time`` seconds: ``kind`` names the mapping, ``values`` feed it."""

    time: float
    kind: str
    values: dict


@dataclass
class StepRecord:
    """One step as it was rendered: when it starts and ends, and what was on screen at its end."""

    key: str
    title: str
    caption: str
    start: float
    end: float = 0.0
    texts: list[TextRecord] = field(default_factory=list)
    numbers: dict[str, list[list[str | None]]] = field(default_factory=dict)  # tagged numbers, as shown


class LessonScene(Scene):
    """Base of every section: subclasses set ``section_id`` and ``STEPS`` and implement ``lesson``."""

    section_id = ""
    STEPS: tuple[str, ...] = ()

    def __init__(self, job: SceneJob, **kwargs):
        self.job = job
        self.steps: list[StepRecord] = []
        self.cues: list[Cue] = []
        self.header = None
        super().__init__(**kwargs)

    @property
    def settings(self):
        """This section's table of the validated config."""
        return getattr(self.job.config, self.section_id)

    @property
    def strings(self) -> dict:
        """This section's table of the locale."""
        return self.job.locale[self.section_id]

    def setup(self):
        self.camera.background_color = style.BACKGROUND

    def construct(self):
        self.lesson()
        self.finish_step()
        self.wait(0.5)

    def lesson(self):
        raise NotImplementedError

    def begin_step(self, key: str, caption: str | None = None, **fields) -> None:
        """Close the current step and show the header and caption of ``key``."""
        self.finish_step()
        strings = self.strings["steps"][key]
        number = self.STEPS.index(key) + 1
        title = strings["title"]
        caption = (caption or strings["caption"]).format(**fields)
        new_header = self._header(title, number, caption)
        self.cue("step", step=number)
        if self.header is None:
            self.play(Appear(new_header), run_time=0.6)
        else:
            self.play(Vanish(self.header), Appear(new_header), run_time=0.6)
        # Bottom of the drawing order: manim redraws on every frame whatever lies above an animated
        # mobject, and the header overlaps nothing in the body.
        self.bring_to_back(new_header)
        self.header = new_header
        self.steps.append(StepRecord(key=key, title=title, caption=caption, start=self.renderer.time))
        if self.job.progress:
            self.job.progress((number - 1) / len(self.STEPS))

    def cue(self, kind: str, **values) -> None:
        """Mark a sound at the current time; call it just before the ``play`` it belongs to."""
        self.cues.append(Cue(self.renderer.time, kind, values))

    def finish_step(self) -> None:
        if not self.steps or self.steps[-1].end:
            return
        step = self.steps[-1]
        step.end = self.renderer.time
        step.texts, step.numbers = self._snapshot()
        if self.job.stills_dir is not None:
            self._save_still(len(self.steps), step.key)

    def _header(self, title: str, number: int, caption: str):
        counter_text = self.job.locale["lecture"]["step_counter"].format(current=number, total=len(self.STEPS))
        heading = label_text(title, style.TEXT, style.TITLE_SIZE, weight="BOLD")
        counter = label_text(counter_text, style.MUTED, style.CAPTION_SIZE)
        heading.to_corner(UL, buff=style.MARGIN)
        counter.to_corner(UR, buff=style.MARGIN).align_to(heading, DOWN)
        caption_text = self._caption(caption)
        caption_text.to_edge(DOWN, buff=style.MARGIN)
        return VGroup(heading, counter, caption_text)

    @staticmethod
    def _caption(caption: str) -> Text:
        """The caption, wrapped onto a second line when it is wider than the frame."""
        available = config.frame_width - 2 * style.MARGIN
        text = label_text(caption, style.MUTED, style.CAPTION_SIZE)
        if text.width <= available:
            return text
        characters = int(len(caption) * available / text.width)
        text = label_text("\n".join(textwrap.wrap(caption, characters)), style.MUTED, style.CAPTION_SIZE)
        return text.scale_to_fit_width(min(text.width, available))

    def _snapshot(self) -> tuple[list[TextRecord], dict]:
        texts, numbers = [], {}
        for mobject in self._visible_texts():
            texts.append(TextRecord(getattr(mobject, "shown_text", None) or getattr(mobject, "tex_string", ""),
                                    mobject.get_left()[0], mobject.get_right()[0],
                                    mobject.get_bottom()[1], mobject.get_top()[1]))
            if hasattr(mobject, "tag"):
                name, (i, j) = mobject.tag
                numbers.setdefault(name, {})[(i, j)] = mobject.shown_text
        return texts, {name: _as_rows(grid) for name, grid in numbers.items()}

    def _visible_texts(self):
        """Top-level Text, MarkupText, MathTex and NumberText mobjects on screen with a visible fill."""
        found, seen = [], set()
        for mobject in self.mobjects:
            stack = [mobject]
            while stack:
                current = stack.pop()
                if isinstance(current, (Text, MarkupText, SingleStringMathTex, NumberText)):
                    if id(current) not in seen and current.get_fill_opacity() > 0.05:
                        seen.add(id(current))
                        found.append(current)
                    continue
                stack.extend(current.submobjects)
        return found

    def _save_still(self, number: int, key: str) -> None:
        self.renderer.update_frame(self, ignore_skipping=True)
        path = self.job.stills_dir / f"{self.job.still_prefix}{number:02d}-{key}.png"
        Image.fromarray(self.renderer.get_frame()).convert("RGB").save(path)


def _as_rows(grid: dict) -> list[list[str | None]]:
    rows = 1 + max(i for i, _ in grid)
    cols = 1 + max(j for _, j in grid)
    return [[grid.get((i, j)) for j in range(cols)] for i in range(rows)]
