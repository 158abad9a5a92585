"""Issue 43, what the pipeline's plays show over time: in the matrix steps a frame walked down the rows of a matrix
already on screen for 20 s and more (scaled 62.5-88 s, softmax 98-121 s, causal 228-252 s), nothing new on screen;
each row is read as it comes instead. The max-weight curve was drawn for 10.9 s with nothing else landing (195.4-
206.3 s), its points gone: its three temperatures are read off as it reaches them."""

import numpy as np
import pytest
from manim import AnimationGroup, Rectangle

from attn_math.lab import LAB_SENTENCES
from scenes.lesson_scene import LessonScene
from tests.scene_checks import run_scene
from tests.test_lab import literal_lab

LONGEST_WALK = 3.0  # s: a frame may move on from row to row this long at most, nothing else changing


def parts(animation) -> list:
    """Every mobject ``animation`` moves, those of a group's animations too (a group's own is emptied as it ends)."""
    if isinstance(animation, AnimationGroup):
        return [part for inner in animation.animations for part in parts(inner)]
    return [part for mobject in (animation.mobject, getattr(animation, "target_mobject", None)) if mobject is not None
            for part in mobject.get_family()]


@pytest.fixture(scope="module")
def plays():
    """The default scene and its plays as (start, end, whether they only move frames: hollow rectangles, the tagged
    numbers they animate, the ids of all they animate)."""
    log = []
    play = LessonScene.play

    def logged(self, *animations, **options):
        start = self.renderer.time
        # hollow as they are to be shown, before the play: a cell's filled light coming and going ends as faded out
        moved = [part for animation in animations for part in parts(animation)]
        frames = bool(moved) and all(isinstance(part, Rectangle) and part.get_fill_opacity() == 0 for part in moved)
        play(self, *animations, **options)
        moved = [part for animation in animations for part in parts(animation)]
        log.append((start, self.renderer.time, frames, {part.tag for part in moved if hasattr(part, "tag")},
                    {id(part) for part in moved}))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", logged)
        scene = run_scene("pipeline")
    return scene, log


def walks(log) -> list[tuple[float, float]]:
    """(start, end) of each run of two or more plays in a row that only move frames, none waiting between."""
    found, run = [], []
    for start, end, frames, *_ in [*log, (float("inf"), float("inf"), False)]:
        if frames and run and abs(start - run[-1][1]) < 1e-6:
            run.append((start, end))
            continue
        if len(run) >= 2:
            found.append((run[0][0], run[-1][1]))
        run = [(start, end)] if frames else []
    return found


def test_no_frame_walks_down_rows_already_on_screen(plays):
    scene, log = plays
    long = [(next(step.key for step in reversed(scene.steps) if step.start <= start + 1e-6), round(start, 1),
             round(end, 1)) for start, end in walks(log) if end - start > LONGEST_WALK]
    assert long == []


def test_the_curve_reaches_each_temperature_as_its_value_is_read_off(plays):
    """Exercise 2: the play that draws the max-weight curve also lands the three values read off it (T = 0.5, 1, 3),
    and the plot's points are never gone: the marks of step 10's rows move to the exercise's temperatures."""
    scene, log = plays
    curve = next(play for play in log if id(scene.plot.curve) in play[4])
    assert {("exercise_max", (0, k)) for k in range(3)} <= curve[3]
    plot_step = next(step for step in scene.steps if step.key == "temperature_plot")
    marks = scene.temperature_marks
    assert len(marks) == 3 and all(scene.plot_stage.get_family().count(mark) == 1 for mark in marks)
    maxima = [max(literal_lab(LAB_SENTENCES["gato"], t, False)["weights"][1]) for t in (0.5, 1.0, 3.0)]
    for mark, t, value in zip(marks, (0.5, 1.0, 3.0), maxima):
        np.testing.assert_allclose(mark.get_center(), scene.plot.point(t, value), atol=1e-6)
    assert plot_step.start < curve[0]
