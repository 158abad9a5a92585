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
    """The causal step's masked rows as the narrated scene cues them, at their own times (not their replays, nor the
    first row heard again in the step's listening moment)."""
    number = BY_ID["pipeline"].scene().STEPS.index("causal") + 1
    scene = run_scene("pipeline", steps=StepRange(number, number), narration=PacedSpeaker())
    return [cue for cue in scene.cues if cue.kind == "masked" and not (cue.replay or cue.listen)]


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


@pytest.fixture(scope="module")
def temperature_rows():
    """The temperature step's rows as the narrated scene cues them: one list of attention lines per temperature
    (86 ms apart at the narration's pace)."""
    number = BY_ID["pipeline"].scene().STEPS.index("temperature") + 1
    scene = run_scene("pipeline", steps=StepRange(number, number), narration=PacedSpeaker())
    lines = [cue for cue in scene.cues if cue.kind == "connection" and cue.listen]
    return [[cue for cue in lines if cue.values["temperature"] == t]
            for t in dict.fromkeys(cue.values["temperature"] for cue in lines)]


def test_each_temperature_row_sounds_at_the_data_level(tmp_path, temperature_rows):
    """The last review: T = 0.2's row at -25.3 LUFS momentary, T = 3's at -22.4 (each line levelled alone and lowered
    by how many lines shared a window: a peaked row's quiet lines do not fill it back up). Each row written alone."""
    assert len(temperature_rows) >= 3 and all(len(row) >= 5 for row in temperature_rows)
    assert max(b.time - a.time for row in temperature_rows for a, b in zip(row, row[1:])) < 0.4  # close together
    levels = {}
    for row in temperature_rows:
        start = row[0].time - 0.5
        cues = [type(cue)(cue.time - start, cue.kind, cue.values) for cue in row]
        path = tmp_path / "row.wav"
        write_soundtrack(cues, cues[-1].time + 2.0, SPEECH_LUFS, path)
        levels[row[0].values["temperature"]] = round(loudest_momentary(path), 1)
    assert all(abs(level - DATA_LUFS) <= TOLERANCE for level in levels.values()), levels


def test_matrix_blips_close_together_sound_at_the_data_level(tmp_path):
    """The last review (720p, 30 fps): matrix's cells blip 0.33 s apart as each row's largest score and each weight
    land, two blips in every 400 ms window, -19.3 LUFS momentary where one blip is -22. Each run of blips closer than
    0.4 s, as the scene cues them at 30 frames a second, written alone."""
    cells = [cue for cue in run_scene("matrix", frame_rate=30).cues if cue.kind == "cell"]
    runs: list[list] = []
    for cue in cells:
        if runs and cue.time - runs[-1][-1].time < 0.4:
            runs[-1].append(cue)
        else:
            runs.append([cue])
    runs = [run for run in runs if len(run) >= 3]
    assert runs  # the review's case
    levels = []
    for run in runs:
        start = run[0].time - 0.5
        cues = [type(cue)(cue.time - start, cue.kind, cue.values) for cue in run]
        path = tmp_path / "blips.wav"
        write_soundtrack(cues, cues[-1].time + 1.5, SPEECH_LUFS, path)
        levels.append((round(run[0].time, 2), round(loudest_momentary(path), 1)))
    assert all(abs(level - DATA_LUFS) <= TOLERANCE for _, level in levels), levels
