"""Kinds of sound told apart by their envelopes, and the light room around the tones, measured on synthesized
samples: a value's blip is plucked (it starts within a few milliseconds and dies within a tenth of a second), a
distribution's chord swells in and dies away slowly; the room (pedalboard's Reverb) adds a tail that is heard but
stays well under the sound and has died away within a second."""

import numpy as np
import pytest
from scipy import signal as scipy_signal

from sonify.mappings import MAPPINGS
from sonify.mix import in_room
from sonify.synth import SAMPLE_RATE, pan

EXAMPLES = {"cell": {"value": 2.0, "low": -1.0, "high": 5.0}, "row": {"weights": [0.1, 0.6, 0.3]},
            "step": {"step": 3}, "distribution": {"weights": [0.5, 0.3] + [0.2 / 6] * 6}}


def amplitude(sound: np.ndarray) -> np.ndarray:
    """The Hilbert envelope of the mono sum, smoothed over 2 ms."""
    mono = sound.sum(axis=1) if sound.ndim == 2 else sound
    width = int(0.002 * SAMPLE_RATE)
    return np.convolve(np.abs(scipy_signal.hilbert(mono)), np.ones(width) / width, mode="same")


def attack_and_decay(kind: str) -> tuple[float, float]:
    """Seconds from 10 % to 90 % of the peak amplitude, and from the peak down to 10 % (-20 dB)."""
    level = amplitude(MAPPINGS[kind](**EXAMPLES[kind]))
    peak = int(np.argmax(level))
    start = int(np.argmax(level >= 0.1 * level[peak]))
    rise = int(np.argmax(level >= 0.9 * level[peak]))
    fall = peak + int(np.argmax(level[peak:] <= 0.1 * level[peak]))
    return (rise - start) / SAMPLE_RATE, (fall - peak) / SAMPLE_RATE


def test_a_values_blip_is_plucked_and_a_distributions_chord_swells_in():
    blip, chord = attack_and_decay("cell"), attack_and_decay("row")
    assert blip[0] <= 0.005 and blip[1] <= 0.15, blip
    assert chord[0] >= 0.03 and chord[1] >= 0.4, chord
    assert chord[0] >= 6 * blip[0] and chord[1] >= 3 * blip[1]
    assert attack_and_decay("distribution")[0] >= 0.03  # capital's chord, a distribution too
    step = attack_and_decay("step")
    assert blip[0] < step[0] < chord[0], (blip, step, chord)  # the markers' struck attack between the two


def level_db(samples: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(samples ** 2) + 1e-30))


def test_the_room_adds_a_tail_heard_under_the_sound_that_dies_within_a_second():
    blip = pan(MAPPINGS["cell"](**EXAMPLES["cell"]), 0.0)
    start, end = SAMPLE_RATE // 10, SAMPLE_RATE // 10 + len(blip)
    dry = np.zeros((2 * SAMPLE_RATE, 2))
    dry[start:end] = blip
    wet = dry.copy()
    in_room(wet)
    np.testing.assert_array_equal(wet[:start], 0.0)  # nothing before the sound
    sound = level_db(dry[start:end])
    tail = lambda after: level_db(wet[end + int(after * SAMPLE_RATE):][:SAMPLE_RATE // 20])  # 50 ms windows
    assert sound - 20 <= tail(0.0) <= sound - 8  # heard, well under the sound
    assert tail(0.0) > tail(0.2) > tail(0.4)  # dying away
    assert tail(0.8) <= sound - 60
    assert level_db(wet[start:end] - dry[start:end]) <= sound - 8  # the sound itself is barely coloured


@pytest.mark.parametrize("kind", ["cell", "row"])
def test_the_room_keeps_the_sounds_pitch(kind):
    sound = MAPPINGS[kind](**EXAMPLES[kind])
    sound = sound if sound.ndim == 2 else pan(sound, 0.0)
    wet = np.concatenate([sound, np.zeros((SAMPLE_RATE, 2))])
    in_room(wet)
    spectrum = lambda signal: np.abs(np.fft.rfft(signal.sum(axis=1), n=4 * SAMPLE_RATE))
    assert np.argmax(spectrum(wet)) / 4 == pytest.approx(np.argmax(spectrum(sound)) / 4, rel=0.01)  # Hz
