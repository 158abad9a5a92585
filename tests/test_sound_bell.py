"""The step bell is heard where a step begins, over the voice (issue 44's last listening review: "taught once and then
rarely heard in the clear").

A narrated step's voice starts as its header lands, with its bell: the tones duck 14 dB under a voice from 80 ms
before it, so the bell sounded at -42 LUFS momentary under a voice at -16, about 28 LU under the voice's first
syllables. The step and reset markers are no longer ducked: the bell sounds at its level (-28 LUFS momentary, 6 LU
under the data), the same with a voice as without one, and never over -18; a data cue under the voice is still ducked.
Measured on written soundtracks: the mix with the cue less the same mix without it (the chain is linear below the
limiter's ceiling) is the cue as heard."""

from __future__ import annotations

import numpy as np
import pytest

from scenes.lesson_scene import Cue
from sonify.mappings import write_soundtrack
from sonify.mix import read_wav
from sonify.synth import SAMPLE_RATE
from test_sound_loudness import momentary

TARGET = -16.0
MARKERS, DATA = TARGET - 12.0, TARGET - 6.0  # docs/sound.md: data 6 LU under speech, the markers 6 LU under the data
TOLERANCE = 1.5
AT = 1.0  # s: the step begins, its voice with it


def voice() -> np.ndarray:
    """A stand-in voice of four seconds: a 180 Hz buzz with its harmonics, in syllables of 0.2 s."""
    t = np.arange(4 * SAMPLE_RATE) / SAMPLE_RATE
    buzz = sum(np.sin(2 * np.pi * 180 * k * t) / k for k in range(1, 12))
    return 0.1 * buzz * (0.6 + 0.4 * np.sin(2 * np.pi * 5 * t) ** 2)


def heard_under_the_voice(kind: str, values: dict, tmp_path) -> float:
    """The cue's momentary loudness in a narrated mix: the mix with it less the mix without it."""
    voices = [(AT, voice())]
    with_cue, without = tmp_path / "with.wav", tmp_path / "without.wav"
    write_soundtrack([Cue(AT, kind, values)], 6.0, TARGET, with_cue, voices=voices)
    write_soundtrack([], 6.0, TARGET, without, voices=voices)
    return momentary(read_wav(with_cue) - read_wav(without))


@pytest.mark.parametrize("kind, values", [("step", {"step": 2}), ("reset", {})])
def test_a_step_bell_sounds_at_its_level_over_the_voice(kind, values, tmp_path):
    level = heard_under_the_voice(kind, values, tmp_path)
    assert abs(level - MARKERS) <= TOLERANCE and level <= -18.0, level


def test_a_data_cue_under_the_voice_is_still_ducked(tmp_path):
    level = heard_under_the_voice("cell", {"value": 0.5, "low": 0.0, "high": 1.0}, tmp_path)
    assert level <= DATA - 10.0, level
