"""A replay repeats what the voice has just said (issue 44's second sound review): after «En la cabeza 3 pone 1.00 en
«María»; el promedio lo diluye a 0.33» the heads' clear replay played head 3's undiluted row, the opposite of the
sentence, and the mean row was never heard in the clear. Measured on the narrated heads scene (a stand-in voice at
the narration's pace)."""

from __future__ import annotations

import numpy as np
import pytest

from lesson.sections import BY_ID
from lesson.steps import StepRange
from scene_checks import PacedSpeaker, run_scene


def narrated_step(section: str, key: str):
    number = BY_ID[section].scene().STEPS.index(key) + 1
    return run_scene(section, steps=StepRange(number, number), narration=PacedSpeaker())


@pytest.fixture(scope="module")
def average():
    return narrated_step("heads", "average")


def test_the_average_steps_replay_is_the_mean_row_the_voice_ends_on(average):
    result = average.result
    telling = [cue for cue in average.cues if cue.kind == "head_row" and not cue.replay]
    assert telling, "the step draws the telling head's row under the voice"
    focus = telling[-1].values["query"]
    mean = np.mean([head.weights[focus] for head in result.heads], axis=0)  # the heads' average, by hand
    replayed = [cue for cue in average.cues if cue.replay]
    assert [cue.kind for cue in replayed] == ["sum_row"]
    np.testing.assert_allclose(replayed[0].values["weights"], mean, atol=1e-9)
    assert max(replayed[0].values["weights"]) < max(telling[-1].values["weights"])  # diluted: the voice's 0.33 < 1.00
