"""From a scene's cues to sounds: what each cue kind sounds like (the README's sound table).

Shared by every section:
* ``step``: a step change, a triangle tone at 300 + 80 x step Hz (the lab's table).
* ``reset``: back to the start, a tone gliding down from 200 Hz.
Section 1 (``matrix``):
* ``cell``: a computed cell, a short blip two octaves wide: 220 x 4^((value - low) / (high - low)) Hz.
* ``row``: a softmax row, a chord of one pitch per key, each as loud as its weight.
Section 6 (``pipeline``):
* ``connection``: an attention line, 200 + 600 x alpha Hz, as loud as alpha; the temperature sets the
  timbre: low T is bright and short (high cut-off), high T dull, long and slightly detuned.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sonify.mix import Timeline, master
from sonify.synth import (chord, envelope, glide, low_pass, organ_wave, sine_wave, tone, triangle_wave)

LAB_CUTOFF = 2500.0  # Hz, the lab's low-pass filter
KEY_PITCHES = 330.0 * 2 ** (np.array([0, 2, 4, 7, 9, 12, 14, 16, 19, 21, 24, 26, 28, 31, 33, 36]) / 12)


def step_tone(step: int) -> np.ndarray:
    """300 + 80 step Hz, a quarter second."""
    return low_pass(envelope(tone(300 + 80 * step, 0.3, triangle_wave), decay=0.12), LAB_CUTOFF)


def reset_tone() -> np.ndarray:
    """From 200 Hz down an octave: going back to the start."""
    return low_pass(envelope(glide(200, 100, 0.45, triangle_wave), decay=0.25), LAB_CUTOFF)


def value_blip(value: float, low: float, high: float) -> np.ndarray:
    """A short blip whose pitch follows where ``value`` lies between ``low`` and ``high``."""
    share = 0.5 if high <= low else (value - low) / (high - low)
    return low_pass(envelope(tone(220 * 4 ** share, 0.14, triangle_wave), decay=0.05), LAB_CUTOFF)


def distribution_chord(weights, duration: float = 1.0) -> np.ndarray:
    """One pitch per key (a pentatonic ladder), each as loud as its probability."""
    weights = np.asarray(weights, dtype=float)
    sound = chord(KEY_PITCHES[: len(weights)], weights, duration, organ_wave)
    return low_pass(envelope(sound, decay=duration / 2.5), LAB_CUTOFF)


def timbre(temperature: float) -> tuple[float, float, float]:
    """(cut-off Hz, note length s, detune cents): sharp and bright when cold, diffuse when hot."""
    cutoff = float(np.clip(LAB_CUTOFF / np.sqrt(temperature), 600.0, 8000.0))
    length = float(np.clip(0.25 * np.sqrt(temperature), 0.12, 0.8))
    detune = float(np.clip(8.0 * (temperature - 1.0), 0.0, 30.0))
    return cutoff, length, detune


def connection_note(weight: float, temperature: float = 1.0) -> np.ndarray:
    """200 + 600 alpha Hz, amplitude alpha, timbre from the temperature."""
    cutoff, length, detune = timbre(temperature)
    voices = (tone(200 + 600 * weight, length, sine_wave, detune) + tone(200 + 600 * weight, length, sine_wave, -detune))
    return weight * low_pass(envelope(voices / 2, decay=length / 2.5), cutoff)


MAPPINGS: dict[str, Callable[..., np.ndarray]] = {
    "step": lambda step, **_: 0.6 * step_tone(step),
    "reset": lambda **_: 0.6 * reset_tone(),
    "cell": lambda value, low, high, **_: 0.5 * value_blip(value, low, high),
    "row": lambda weights, **_: distribution_chord(weights, 1.0),
    "connection": lambda weight, temperature=1.0, **_: connection_note(weight, temperature),
}


def soundtrack(cues, duration: float, volume: int) -> np.ndarray:
    """Every cue's sound at its time on a track exactly ``duration`` long, mastered for ``volume``."""
    timeline = Timeline(duration)
    for cue in cues:
        timeline.place(MAPPINGS[cue.kind](**cue.values), cue.time)
    return master(timeline.samples, volume)
