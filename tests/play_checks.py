"""What is on screen after every play of a scene, not only at each step's end (scene_checks checks the step records):
a frame review sees the screens in between, where a label grows, a row of numbers changes or a line stays on as the
next caption comes in.

``screens(section_id, *overrides)`` runs the scene in-process (animations skipped, no question cards: a card covers
the step on purpose) and returns one Screen after each play (``scene_and_screens``: the scene too); ``screen_overlaps``
and ``small_numbers`` read them.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from manim import config

from lesson.records import TextRecord
from scenes.lesson_scene import LessonScene
from scenes.visuals import NumberText, cap_height
from scene_checks import run_scene

SMALLEST_DIGIT_PIXELS = 16  # at 720p: the digits of a number a student must read (issue 43)


@dataclass
class Screen:
    time: float
    key: str  # the step on screen
    texts: list[TextRecord]
    digits: list[tuple[str, float]]  # each number's text and its digits' height in frame units


def screens(section_id: str, *overrides: str) -> list[Screen]:
    """The scene run with the texts on screen recorded after every play."""
    return scene_and_screens(section_id, *overrides)[1]


def scene_and_screens(section_id: str, *overrides: str) -> tuple[LessonScene, list[Screen]]:
    """The scene run (its cues and steps) and the texts on screen after every play (``screens``)."""
    shown: list[Screen] = []
    play = LessonScene.play

    def recording(scene, *animations, **options):
        play(scene, *animations, **options)
        texts, _ = scene._snapshot(scene.mobjects)
        digits = [(text.shown_text, cap_height(text)) for text in scene._visible_texts(scene.mobjects)
                  if isinstance(text, NumberText) and any(character.isdigit() for character in text.shown_text)]
        shown.append(Screen(scene.renderer.time, scene.steps[-1].key if scene.steps else "", texts, digits))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", recording)
        scene = run_scene(section_id, "lecture.questions='none'", *overrides)
    return scene, shown


def screen_overlaps(shown: list[Screen]) -> list[str]:
    """Every pair of texts drawn over each other, once, with when it was first seen."""
    problems = {}
    for screen in shown:
        for index, text in enumerate(screen.texts):
            for other in screen.texts[index + 1:]:
                if text.overlaps(other):
                    problems.setdefault((screen.key, text.text, other.text), screen.time)
    return [f"{time:.1f} s, {key}: {first!r} over {second!r}" for (key, first, second), time in problems.items()]


def small_numbers(shown: list[Screen], least: float = SMALLEST_DIGIT_PIXELS) -> list[str]:
    """Every number whose digits are under ``least`` pixels high at 720p (frame height 8 units = 720 px), once."""
    pixels = 720 / config.frame_height
    problems = {}
    for screen in shown:
        for text, height in screen.digits:
            if height * pixels < least - 1e-6:
                problems.setdefault((screen.key, text), (screen.time, height * pixels))
    return [f"{time:.1f} s, {key}: {text!r} {height:.1f} px" for (key, text), (time, height) in problems.items()]
