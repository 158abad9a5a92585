"""Issue 43: in the pipeline's matrix steps a frame walked down the rows of a matrix already on screen for 20 s and
more (scaled 62.5-88 s, softmax 98-121 s, causal 228-252 s), nothing new on screen. Each row is read as it comes
instead: its numbers appear one row after another over the step's reading time, nothing walks over rows read."""

import pytest
from manim import AnimationGroup, Rectangle

from scenes.lesson_scene import LessonScene
from tests.scene_checks import run_scene

LONGEST_WALK = 3.0  # s: a frame may move on from row to row this long at most, nothing else changing


def parts(animation) -> list:
    """Every mobject ``animation`` moves, those of a group's animations too (a group's own is emptied as it ends)."""
    if isinstance(animation, AnimationGroup):
        return [part for inner in animation.animations for part in parts(inner)]
    return [part for mobject in (animation.mobject, getattr(animation, "target_mobject", None)) if mobject is not None
            for part in mobject.get_family()]


@pytest.fixture(scope="module")
def plays():
    """The default scene and its plays as (start, end, whether they only move frames: hollow rectangles)."""
    log = []
    play = LessonScene.play

    def logged(self, *animations, **options):
        start = self.renderer.time
        play(self, *animations, **options)
        moved = [part for animation in animations for part in parts(animation)]
        frames = bool(moved) and all(isinstance(part, Rectangle) and part.get_fill_opacity() == 0 for part in moved)
        log.append((start, self.renderer.time, frames))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", logged)
        scene = run_scene("pipeline")
    return scene, log


def walks(log) -> list[tuple[float, float]]:
    """(start, end) of each run of two or more plays in a row that only move frames, none waiting between."""
    found, run = [], []
    for start, end, frames in [*log, (float("inf"), float("inf"), False)]:
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
