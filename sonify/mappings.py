"""From a scene's cues to sounds: what each cue kind sounds like (the README's sound table).

Shared by every section:
* ``step``: a step change, a triangle tone at 300 + 80 x step Hz (the lab's table).
* ``reset``: back to the start, a tone gliding down from 200 Hz.
Section 1 (``matrix``):
* ``cell``: a computed cell, a short blip two octaves wide: 220 x 4^((value - low) / (high - low)) Hz.
* ``row``: a softmax row, a chord of one pitch per key, each as loud as its weight.
Section 3 (``heads``): each head its own register and timbre (low sine, middle triangle, high organ),
its weights as loudness: ``head_arcs`` (what each token receives), ``head_row`` (one token's row),
``heads_overlay`` and ``heads_chord`` (the three together), ``heads_sum``/``sum_row`` (the mean, in the
middle register); ``tokens`` and ``concat`` a soft rising arpeggio, ``cost`` a neutral tone.
Section 6 (``pipeline``):
* ``connection``: an attention line, 200 + 600 x alpha Hz, as loud as alpha; the temperature sets the
  timbre: low T is bright and short (high cut-off), high T dull, long and slightly detuned.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sonify.mix import Timeline, master
from sonify.synth import (SAMPLE_RATE, chord, envelope, glide, low_pass, organ_wave, sine_wave, tone,
                          triangle_wave)

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


HEAD_REGISTERS = ((165.0, sine_wave), (330.0, triangle_wave), (660.0, organ_wave))  # low, middle, high


def head_chord(head: int, weights, duration: float = 0.9) -> np.ndarray:
    """A distribution in head ``head``'s own register and timbre: one pitch per token, loud as its weight."""
    base, wave = HEAD_REGISTERS[head % len(HEAD_REGISTERS)]
    weights = np.asarray(weights, dtype=float)
    pitches = base * 2 ** (np.array([0, 2, 4, 7, 9, 12, 14, 16, 19, 21, 24, 26, 28, 31, 33, 36])[: len(weights)] / 12)
    return low_pass(envelope(chord(pitches, weights, duration, wave), decay=duration / 2.5), LAB_CUTOFF)


def attended(weights) -> np.ndarray:
    """How much attention each token receives: the column sums of a weight matrix, as a distribution."""
    received = np.asarray(weights, dtype=float).sum(axis=0)
    return received / received.sum()


def token_arpeggio(count: int) -> np.ndarray:
    """One soft note per token, rising, 80 ms apart: the sentence laid out."""
    notes = [np.pad(0.4 * value_blip(j, 0, max(count - 1, 1)), (int(0.08 * j * SAMPLE_RATE), 0)) for j in range(count)]
    length = max(len(note) for note in notes)
    return np.sum([np.pad(note, (0, length - len(note))) for note in notes], axis=0)


MAPPINGS: dict[str, Callable[..., np.ndarray]] = {
    "step": lambda step, **_: 0.6 * step_tone(step),
    "reset": lambda **_: 0.6 * reset_tone(),
    "cell": lambda value, low, high, **_: 0.5 * value_blip(value, low, high),
    "row": lambda weights, **_: distribution_chord(weights, 1.0),
    "connection": lambda weight, temperature=1.0, **_: connection_note(weight, temperature),
    "tokens": lambda count, **_: token_arpeggio(count),
    "head_arcs": lambda head, weights, **_: head_chord(head, attended(weights)),
    "head_row": lambda head, weights, **_: head_chord(head, weights),
    "heads_overlay": lambda weights, **_: sum(head_chord(h, attended(w)) for h, w in enumerate(weights)) / 3,
    "heads_sum": lambda weights, **_: distribution_chord(attended(weights)),
    "sum_row": lambda weights, **_: distribution_chord(weights),
    "heads_chord": lambda weights, **_: sum(head_chord(h, row, 1.4) for h, row in enumerate(weights)) / 3,
    "cost": lambda **_: 0.5 * step_tone(0),
    "concat": lambda heads, **_: 0.5 * token_arpeggio(heads),
}


def soundtrack(cues, duration: float, volume: int) -> np.ndarray:
    """Every cue's sound at its time on a track exactly ``duration`` long, mastered for ``volume``."""
    timeline = Timeline(duration)
    for cue in cues:
        timeline.place(MAPPINGS[cue.kind](**cue.values), cue.time)
    return master(timeline.samples, volume)
