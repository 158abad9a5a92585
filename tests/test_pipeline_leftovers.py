"""The pipeline leaves nothing behind: a piece replaced earlier does not come back to fade out over what replaced it
(step 13's table landing brought step 12's masked scores and their formula back across «Con máscara causal»), and
the light that runs round a row while its sound plays again keeps moving to its end (eased, its last piece stood
still for a second beside the row: a stray dash at the end of step 12). Run narrated by a stand-in voice, so the
sounds are replayed after the voice as in the lecture."""

import numpy as np
import pytest
from manim import ShowPassingFlash

from scenes.fades import Vanish
from scenes.lesson_scene import LessonScene
from tests.scene_checks import PacedSpeaker, flattened, run_scene

FRAME_RATE = 30
PIXELS_PER_UNIT = 720 / 8  # at 720p
SLOWEST_LIGHT = 1.0  # px a frame: slower, the light's piece reads as a mark standing beside the row
LONG_PULSE = 2.0  # s: the replayed sounds' lights (4 s here; lines' and curves' pulses last 1-1.5 s, drawn with them)


@pytest.fixture(scope="module")
def played():
    """Each play of the narrated scene: its animations, and the ids of what had points on screen before it."""
    log = []
    play = LessonScene.play

    def logged(scene, *animations, **options):
        shown = {id(part) for mobject in scene.mobjects for part in mobject.family_members_with_points()}
        play(scene, *animations, **options)
        log.append((scene.steps[-1].key if scene.steps else "", shown, flattened(animations)))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", logged)
        run_scene("pipeline", narration=PacedSpeaker())
    return log


def seen(part) -> bool:
    """Drawn with some opacity: an invisible part coming back changes no pixel."""
    return part.get_fill_opacity() > 0.05 or part.get_stroke_opacity() > 0.05 and part.get_stroke_width() > 0


def test_what_fades_out_was_on_screen(played):
    """Whatever a Vanish fades out was on screen as the play began: a part taken off the screen earlier (replaced,
    faded) comes back for the fade, over what replaced it."""
    back = [(key, type(part).__name__, tuple(np.round(part.get_center()[:2], 1)))
            for key, shown, animations in played for animation in animations if isinstance(animation, Vanish)
            for part in animation.mobject.family_members_with_points() if id(part) not in shown and seen(part)]
    assert back == []


def test_the_replayed_light_moves_to_its_end(played):
    pulses = [animation for _, _, animations in played for animation in animations
              if isinstance(animation, ShowPassingFlash) and animation.run_time >= LONG_PULSE]
    assert pulses  # the steps' key sounds are replayed after the voice, each with its light
    for pulse in pulses:
        times = np.arange(0, pulse.run_time + 1e-9, 1 / FRAME_RATE) / pulse.run_time
        lead = np.array([pulse.rate_func(min(t, 1.0)) for t in times]) * (1 + pulse.time_width)
        visible = lead - pulse.time_width < 1 - 1e-9  # the light's tail has not yet reached the path's end (a light
        # gone before its play ends, held at 1 + time_width, is not)
        length = sum(np.linalg.norm(np.diff(part.points, axis=0), axis=1).sum()
                     for part in pulse.mobject.family_members_with_points())
        moved = np.diff(np.minimum(lead, 1.0) + np.minimum(np.maximum(lead - pulse.time_width, 0), 1.0)) / 2
        slowest = (moved[visible[1:]] * length * PIXELS_PER_UNIT).min()
        assert slowest >= SLOWEST_LIGHT, (pulse.run_time, slowest)
