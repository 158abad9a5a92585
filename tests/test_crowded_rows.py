"""A matrix's rows revealed close together sound at their kind's level, like one row alone (issue 44's second sound
review: the pipeline's masked rows fade in 0.2 s apart and each 2 s row's chord piled onto the last, -13.1 LUFS
momentary at 222.75, 9 LU over the data level and louder than the voice). Measured on the narrated pipeline's
causal step (a stand-in voice at the narration's pace), its cues written through the soundtrack, with no voice."""

from __future__ import annotations

import pytest

from lesson.sections import BY_ID
from lesson.steps import StepRange
from scene_checks import PacedSpeaker, run_scene
from sonify.mappings import write_soundtrack
from test_crowded_notes import SPEECH_LUFS, loudest_momentary

CAP = -18.0  # LUFS momentary: no moment of a cue passes it
DATA_LUFS = SPEECH_LUFS - 6.0  # the data cues' level: 6 LU under speech
TOLERANCE = 1.5  # LU


@pytest.fixture(scope="module")
def causal_rows():
    """The causal step's masked rows as the narrated scene cues them, at their own times (not their replays)."""
    number = BY_ID["pipeline"].scene().STEPS.index("causal") + 1
    scene = run_scene("pipeline", steps=StepRange(number, number), narration=PacedSpeaker())
    return [cue for cue in scene.cues if cue.kind == "masked" and not cue.replay]


def test_the_masked_rows_come_close_together(causal_rows):
    times = [cue.time for cue in causal_rows]
    assert len(times) >= 5 and max(b - a for a, b in zip(times, times[1:])) < 0.4  # the review's case: 0.2 s apart


def test_the_masked_rows_together_sound_at_the_data_level(tmp_path, causal_rows):
    start = causal_rows[0].time - 0.5
    cues = [type(cue)(cue.time - start, cue.kind, cue.values) for cue in causal_rows]
    path = tmp_path / "masked.wav"
    write_soundtrack(cues, cues[-1].time + 3.0, SPEECH_LUFS, path)
    loudest = loudest_momentary(path)
    assert loudest <= CAP
    assert abs(loudest - DATA_LUFS) <= TOLERANCE, loudest
