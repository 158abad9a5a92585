"""The positional encoding is a kind of sound of its own (issue 44's last listening review: its scale, 300-2400 Hz
sines, lay over the values' blips and the similarity curve, in the same register and the same timbre).

Every register and timbre is in use, so the encoding is told apart by its envelope: its voices pulse, six times a
second (a hand turning, not a held tone), whatever the encoding's own values do to their loudness over positions;
no held sound of the positional section pulses, and its runs of blips (plucked notes 0.12 s apart, each at its own
pitch) do so less than half as deeply. Measured on the synthesized samples: the amplitude envelope
(Hilbert, of the mono mix) and how deep its 6 Hz component is against the envelope's mean over the sound's middle."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import hilbert

from scene_checks import shared_scene
from sonify.mappings import MAPPINGS
from sonify.synth import SAMPLE_RATE

ENCODING = ("frequencies", "position_sweep", "frequency_contrast", "wave")
PULSE_HZ = 6.0
BLIPS = ("values", "cell", "vector_sum")  # plucked notes one after another


def pulse_depth(sound: np.ndarray) -> float:
    """The 6 Hz component of the envelope against its trend (the envelope over its mean across one period, 167 ms:
    a note's slow decay, an encoding's values over positions, aside): 1 for an envelope that falls to 0 and back
    six times a second, 0 for a steady one; on the sound's middle (its attack and release aside)."""
    mono = sound.mean(axis=1) if sound.ndim == 2 else sound
    amplitude = np.abs(hilbert(mono))
    period = int(SAMPLE_RATE / PULSE_HZ)
    trend = np.convolve(amplitude, np.ones(period) / period, mode="same")
    middle = slice(int(0.1 * len(amplitude)) + period, int(0.9 * len(amplitude)) - period)
    audible = trend[middle] > 0.05 * trend.max()  # where the encoding is silent (-1) there is nothing to pulse
    ratio = (amplitude[middle] / np.maximum(trend[middle], 1e-12))[audible]
    t = (np.arange(len(amplitude))[middle] / SAMPLE_RATE)[audible]
    return float(2 * abs(np.mean(ratio * np.exp(-2j * np.pi * PULSE_HZ * t))))


def positional_cues():
    return [cue for cue in shared_scene("positional").cues
            if len(MAPPINGS[cue.kind](**cue.values)) >= 0.6 * SAMPLE_RATE]


def depths(encoding: bool) -> list[tuple[str, float, float]]:
    return [(cue.kind, round(cue.time, 1), round(pulse_depth(MAPPINGS[cue.kind](**cue.values)), 2))
            for cue in positional_cues() if (cue.kind in ENCODING) == encoding]


def test_every_encoding_sound_pulses_six_times_a_second():
    found = depths(encoding=True)
    assert {kind for kind, _, _ in found} == set(ENCODING)
    assert all(depth >= 0.45 for _, _, depth in found), found


def test_no_other_kind_of_the_section_pulses_as_the_encoding_does():
    encoding = min(depth for _, _, depth in depths(encoding=True))
    others = depths(encoding=False)
    held = [found for found in others if found[0] not in BLIPS]
    blips = [found for found in others if found[0] in BLIPS]
    assert held and all(depth < 0.1 for _, _, depth in held), held
    assert blips and all(depth < 0.5 * encoding for _, _, depth in blips), (blips, encoding)


@pytest.mark.parametrize("value", [1.0, 0.0])
def test_a_steady_encoding_value_still_pulses(value):
    """A dimension held at one value (its loudness steady) is heard pulsing: the pulse is the kind, not the data."""
    sound = MAPPINGS["wave"](angular_frequency=0.01, samples=[value] * 20, duration=2.0)
    assert pulse_depth(sound) >= 0.3
