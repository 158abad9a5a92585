"""The joined lecture's title card (course, lesson, date) and end card (the works its sections cite), drawn by
manim at the sections' size, frame rate and format, so their packets join the sections' without re-encoding.

The title card holds OPENING_SECONDS in all; the end card brings each reference in and holds it for its reading
time, then ends on REFERENCES_HOLD: no screen stands still longer than LONGEST_FREEZE.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from manim import DOWN, LEFT, Scene, VGroup, tempconfig

from lesson.references import Card
from scenes import style
from scenes.fades import Appear
from scenes.lesson_scene import LONGEST_FREEZE, WORDS_PER_SECOND, wrapped_text
from scenes.visuals import label_text

OPENING_SECONDS = 5.0  # the title card, its fade-in included
APPEAR_SECONDS = 1.0  # a card's text fading in
REFERENCES_HOLD = 4.0  # the end card's last still, every reference on it
TEXT_WIDTH = 11.0  # frame units


class CardScene(Scene):
    """A card on the sections' background; ``shown`` records (time, text) as each text appears."""

    def __init__(self, card: Card, **kwargs):
        self.card, self.shown = card, []
        super().__init__(**kwargs)

    def setup(self):
        self.camera.background_color = style.BACKGROUND

    def appear(self, mobject, text: str) -> None:
        self.shown.append((self.renderer.time, text))
        self.play(Appear(mobject), run_time=APPEAR_SECONDS)


class OpeningCard(CardScene):
    def construct(self):
        course, title, date = self.card.lines
        parts = [wrapped_text(title, style.TEXT, style.TITLE_SIZE * 1.3, TEXT_WIDTH, weight="BOLD")]
        parts = ([label_text(course, style.MUTED, style.BODY_SIZE)] if course else []) + parts \
            + ([label_text(date, style.MUTED, style.BODY_SIZE)] if date else [])
        self.appear(VGroup(*parts).arrange(DOWN, buff=0.5), " — ".join(filter(None, self.card.lines)))
        self.wait(OPENING_SECONDS - APPEAR_SECONDS)


class ReferencesCard(CardScene):
    def construct(self):
        heading, *references = self.card.lines
        title = label_text(heading, style.TEXT, style.TITLE_SIZE, weight="BOLD")
        lines = [wrapped_text(reference, style.TEXT, style.BODY_SIZE, TEXT_WIDTH) for reference in references]
        VGroup(title, *lines).arrange(DOWN, buff=0.45, aligned_edge=LEFT).move_to((0, 0, 0))
        self.add(title)
        for line, reference in zip(lines, references):
            self.appear(line, reference)
            self.wait(min(len(reference.split()) / WORDS_PER_SECOND, LONGEST_FREEZE))
        self.wait(REFERENCES_HOLD)


SCENES = {"opening": OpeningCard, "references": ReferencesCard}


def render_card(card: Card, size: tuple[int, int, int], video_format: str, folder: Path, stem: str) -> list:
    """Draw ``card`` as ``folder/STEM.<video_format>`` at ``size`` (width, height, frames per second), the way
    a section is drawn (manim's scratch files in ``folder/STEM``); returns when each text appeared, (s, text)."""
    width, height, fps = size
    scratch = folder / stem
    settings = {"media_dir": str(scratch), "video_dir": str(folder), "images_dir": str(scratch),
                "partial_movie_dir": str(scratch / "partial"), "pixel_width": width, "pixel_height": height,
                "frame_rate": fps, "format": video_format, "write_to_movie": True, "save_last_frame": False,
                "output_file": stem, "progress_bar": "none", "verbosity": "ERROR", "disable_caching": True}
    logging.getLogger("manim").setLevel(logging.ERROR)  # as a section's worker: no warning reaches the user
    with tempconfig(settings):
        scene = SCENES[card.kind](card)
        scene.render()
    shutil.rmtree(scratch, ignore_errors=True)
    return scene.shown
