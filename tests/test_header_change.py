"""Review s8: at every step change the old title and step counter and the new ones were cross-faded in one place for
about half a second («two titles overlapping» in every section). The old header now leaves before the new one comes."""

import numpy as np
import pytest

from scene_checks import run_scene
from scenes.lesson_scene import LessonScene


def shown_opacity(parts) -> float:
    return max(float(np.max(part.fill_rgbas[:, 3], initial=0.0)) for part in parts)


def drawn_parts(header) -> list:
    """The header's parts as they are now (a caption that grows later adds parts to it)."""
    return [] if header is None else list(header.family_members_with_points())


@pytest.mark.parametrize("section", ["scaling", "learned"])
def test_a_new_header_never_shows_over_the_last_one(section):
    plays = []  # (the header on screen as the play began, its parts then, the play's animations)
    play = LessonScene.play

    def recording(scene, *animations, **options):
        header = getattr(scene, "header", None)
        plays.append((header, drawn_parts(header), animations))
        play(scene, *animations, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", recording)
        scene = run_scene(section, "lecture.questions='none'")
    plays.append((scene.header, drawn_parts(scene.header), ()))
    # the play that changed the header: the last one begun under the old header
    changes = [(old_parts, new_parts, animations) for (old, old_parts, animations), (new, new_parts, _)
               in zip(plays, plays[1:]) if old is not None and new is not old]
    assert len(changes) == len(scene.steps) - 1
    for old, new, animations in changes:
        both = []
        for alpha in np.linspace(0, 1, 41):
            for animation in animations:
                animation.interpolate(alpha)
            if min(shown_opacity(old), shown_opacity(new)) > 0.02:
                both.append(round(float(alpha), 3))
        assert both == [], both
