"""Section 7 (learned) against review s15 (review-b, «07-learned», graded 9):
- step 4 wrote «token anterior: cabezas 1 y 4» / «inducción: cabezas 1 y 3» under the layers' names at 80.7 s,
  while the eight scores that decide which heads are clean only came at 84-86.4 s: each role comes with its heads' frames,
  after the last score has arrived;
- the dashed line «copiando lo posible: 1.78» lay above the training curve (which settles near 1.74: the model guesses
  better than at random where nothing repeats), and «no hay qué copiar» is not Spanish: the floor says it copies and
  guesses the rest at random, and the derivation says «no hay nada que copiar».
Measured on the built scene (plays logged as they ran)."""

import pytest

from scene_checks import PacedSpeaker, flattened, recorded
from scenes.fades import Appear

from test_learned_review10 import scene, steps_of  # noqa: F401 (scene: a fixture)

SCORE_TAGS = ("layer1_previous_token_score", "layer2_induction_score")


@pytest.fixture(scope="module")
def spoken_log():
    return recorded("learned", narration=PacedSpeaker())


def plays_bringing_in(log, wanted) -> list:
    """The plays (in order) with an Appear of any part ``wanted`` (a predicate on a mobject) accepts."""
    return [entry for kind, entry in log if kind == "play" and any(
        isinstance(animation, Appear) and any(wanted(part) for part in animation.mobject.get_family())
        for animation in flattened(entry.animations))]


def test_each_role_comes_after_the_scores_that_decide_it(spoken_log):
    """The roles' labels first appear in a play that starts after the last trained head's score has arrived, and
    each arrives with frames round its layer's clean heads."""
    scene, log = spoken_log
    assert scene.layer_roles, "the default training has clean heads in some layer"
    last_score = plays_bringing_in(log, lambda part: getattr(part, "tag", (None,))[0] in SCORE_TAGS)[-1]
    for layer, role in scene.layer_roles.items():
        family = set(role.get_family())
        first = plays_bringing_in(log, lambda part: part in family)[0]
        assert first.start >= last_score.end - 1e-6, (layer, first.start, last_score.end)


def test_the_floor_says_what_it_assumes_in_plain_spanish(scene):
    """The floor's line says that the rest is guessed at random (the curve may go under it), and the derivation
    line reads «no hay nada que copiar»."""
    lines = [text.text.replace("\n", " ") for text in steps_of(scene)["loss"].texts]
    assert any(line.startswith("copiando y adivinando al azar el resto") for line in lines), lines
    assert any("no hay nada que copiar" in line for line in lines), lines
    assert not any("no hay qué copiar" in line for line in lines), lines
