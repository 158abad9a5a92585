"""Issue 43, pipeline: the screen follows the voice (no still over 6 s under a narration's pace) and the last step laid
out on the frame. (The softmax weights are no longer coloured on their own range: review 06 asked for one colour
scale wherever weights are coloured, tests/test_pipeline_review06.py.)"""

import pytest
from manim import Wait

from scenes import style
from scenes.lesson_scene import LessonScene
from tests.scene_checks import PacedSpeaker, layout_problems, run_scene, stills_outside_cards


@pytest.fixture(scope="module")
def paced():
    """The scene at the narration's pace, with the start of each of its plays (waits aside) in ``play_starts``."""
    starts, play = [], LessonScene.play

    def logged(self, *animations, **options):
        if not all(isinstance(animation, Wait) for animation in animations):
            starts.append(self.renderer.time)
        play(self, *animations, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", logged)
        scene = run_scene("pipeline", narration=PacedSpeaker())
    scene.play_starts = starts
    return scene


@pytest.fixture(scope="module")
def silent():
    return run_scene("pipeline")


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def test_nothing_stands_still_over_6_s_under_the_voice(paced):
    """At the narration's pace (166 words a minute), no stretch of the section outside its cards stands still over
    6 s (issue 43: 14 such stretches, up to 15.7 s, where the voice explained a picture finished long before)."""
    assert stills_outside_cards(paced) == []


@pytest.mark.parametrize("marker", ["even", "lab_max", "guide", "last", "first", "fourth", "spread", "tradeoff"])
def test_the_phrases_that_name_something_on_screen_start_with_its_play(paced, marker):
    """Each phrase tied to a play by its marker starts as a play starts: the scene beat it, just before the play that
    shows what the phrase names, so the voice did not run on over a still picture."""
    starts = [start for record in paced.steps for _, start, _, play in record.narration.get("phrases", [])
              if play == marker]
    assert len(starts) == 1
    assert min(abs(starts[0] - play) for play in paced.play_starts) < 1e-3  # records keep 4 decimals


def test_the_last_step_fills_the_body_in_two_panels(silent):
    """Step 14: its lines spread over the body's height (issue 43: seven lines crowded into its top third), in two
    columns, one per exercise, none overlapping or leaving the frame."""
    record = step(silent, "dimensions")
    left, right, bottom, top = style.body_box()
    inside = [text for text in record.texts if text.bottom > bottom and text.top < top and text.text != record.caption
              and text.text not in (record.title,) and not text.text.startswith("Paso")]
    lowest, highest = min(text.bottom for text in inside), max(text.top for text in inside)
    assert highest - lowest > 0.7 * (top - bottom)
    middle = (left + right) / 2
    assert {text.text.split(":")[0] for text in inside if text.right < middle} >= {"Ejercicio 5"}
    assert {text.text.split(":")[0] for text in inside if text.left > middle} >= {"Ejercicio 6"}
    assert [problem for problem in layout_problems(silent) if problem.startswith("dimensions")] == []

