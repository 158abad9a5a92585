"""Capital's distribution chord: the word that wins is the loudest voice. The six other words share one quiet voice
as loud as one of them; as loud as their summed probability it was the loudest voice in every state of the drag
(the sound review: «the ear hears the wrong word winning»)."""

from __future__ import annotations

import numpy as np
import pytest

from sonify.legend import ladder
from sonify.mappings import capital_chord
from sonify.synth import SAMPLE_RATE


def voice_levels(weights) -> np.ndarray:
    """dB of each voice's fundamental (París, Roma, the rest, on the ladder's first three rungs) in the chord."""
    chord = np.asarray(capital_chord(np.asarray(weights, dtype=float)), dtype=float)
    mono = chord.sum(axis=1) if chord.ndim == 2 else chord
    spectrum = np.abs(np.fft.rfft(mono * np.hanning(len(mono))))
    frequencies = np.fft.rfftfreq(len(mono), 1 / SAMPLE_RATE)
    return np.array([20 * np.log10(spectrum[np.argmin(np.abs(frequencies - pitch))]) for pitch in ladder(3)])


def softmax(logits) -> np.ndarray:
    exps = np.exp(np.asarray(logits, dtype=float))
    return exps / exps.sum()


@pytest.mark.parametrize("country", [1.0, 0.5, 0.0, -0.5, -1.0])
def test_the_word_with_the_most_probability_is_the_loudest_voice(country):
    """The drag's states: París's logit +country, Roma's -country (0 for the six others, as on screen)."""
    weights = softmax([1.49 * country, -1.49 * country, 0, 0, 0, 0, 0, 0])
    levels = voice_levels(weights)
    winner = int(np.argmax(weights[:2]))
    if weights[winner] > 2 * weights[2:].max():  # a clear winner: its fundamental alone (an organ's or a triangle's
        # harmonics add to its loudness) stands over the sine of the rest
        assert levels[winner] >= levels[2] + 2, (weights.round(3), levels.round(1))
    assert levels[2] < max(levels[:2]) or weights[2] >= weights[:2].max(), (weights.round(3), levels.round(1))
