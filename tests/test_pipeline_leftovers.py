"""The pipeline leaves nothing behind: a piece replaced earlier does not come back to fade out over what replaced it
(step 13's table landing brought step 12's masked scores and their formula back across «Con máscara causal»). Run
narrated by a stand-in voice, as in the lecture. (Its test of the light that ran round a row while a key sound was
replayed after the voice went with that light: review s12, the key sounds are heard in listening moments.)"""

import numpy as np
import pytest

from scenes.fades import Vanish
from scenes.lesson_scene import LessonScene
from tests.scene_checks import PacedSpeaker, flattened, run_scene


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
