"""Sounds land with what they announce: a step's tone sounds as its new header lands, not as it starts to fade in."""

from __future__ import annotations

import pytest

from tests.scene_checks import run_scene


@pytest.mark.parametrize("section", ["matrix", "pipeline"])
def test_each_step_tone_sounds_as_its_header_has_landed(section):
    scene = run_scene(section)
    tones = [cue for cue in scene.cues if cue.kind == "step"]
    assert [cue.values["step"] for cue in tones] == list(range(1, len(scene.steps) + 1))
    for tone, step in zip(tones, scene.steps):  # a step starts when its header has landed
        assert tone.time == pytest.approx(step.start, abs=1e-6), step.key
