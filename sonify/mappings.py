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
Section 4 (``positional``): each dimension pair sounds at a pitch from its frequency (log omega over four
octaves above 110 Hz: fast dimensions high, slow ones low), loud where its value is high, so the waves
are heard as they are drawn (``frequencies``, ``position_sweep``, ``frequency_contrast``, ``wave``); the
similarity curve is a 440 Hz tone that fades with the similarity; the permutation verdict is a unison
when the outputs are identical and two voices apart when they differ (``outputs_compared``).
Section 5 (``capital``): ``distribution``, the final distribution as a chord: París (C5, organ) and Roma
(G4, triangle) the two voices that move, the six other words low sines, each as loud as its probability.
Section 6 (``pipeline``):
* ``connection``: an attention line, 200 + 600 x alpha Hz, as loud as alpha; the temperature sets the
  timbre: low T is bright and short (high cut-off), high T dull, long and slightly detuned.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sonify.mix import Timeline, master
from sonify.synth import (SAMPLE_RATE, chord, envelope, glide, low_pass, organ_wave, seconds, sine_wave, tone,
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


def encoding_pitches(angular_frequencies) -> np.ndarray:
    """Where each PE frequency sounds: log(omega) mapped onto four octaves above 110 Hz, fastest highest."""
    logs = np.log(np.asarray(angular_frequencies, dtype=float))
    spread = logs.max() - logs.min()
    share = (logs - logs.min()) / spread if spread > 0 else np.full_like(logs, 0.5)
    return 110.0 * 2 ** (4 * share)


def followed(pitches, levels, duration: float) -> np.ndarray:
    """Sines at ``pitches`` whose loudness follows ``levels`` (one row per pitch) across ``duration``."""
    t = seconds(duration)
    levels = np.atleast_2d(np.asarray(levels, dtype=float))
    positions = np.linspace(0, levels.shape[1] - 1, len(t))
    voices = [np.interp(positions, np.arange(levels.shape[1]), row) * np.sin(2 * np.pi * pitch * t)
              for pitch, row in zip(pitches, levels)]
    sound = np.sum(voices, axis=0) / max(1, len(voices)) ** 0.5
    return low_pass(envelope(sound, decay=10 * duration), LAB_CUTOFF)


def sweep(angular_frequencies, values, duration: float) -> np.ndarray:
    """The encoding heard as it is drawn: each dimension at its pitch, loud where its value is high."""
    return followed(encoding_pitches(angular_frequencies), (np.asarray(values) + 1) / 2, duration)


def capital_chord(weights, duration: float = 1.6) -> np.ndarray:
    """París (C5, organ) and Roma (G4, triangle) as the two voices that move; the other six words a
    low sine each, all as loud as their probabilities."""
    weights = np.asarray(weights, dtype=float)
    voices = [weights[0] * tone(523.25, duration, organ_wave), weights[1] * tone(392.0, duration, triangle_wave)]
    voices += [w * tone(130.81 * 2 ** (j / 12), duration) for j, w in enumerate(weights[2:])]
    return low_pass(envelope(np.sum(voices, axis=0), decay=duration / 2), LAB_CUTOFF)


def comparison(max_difference: float, duration: float = 1.5) -> np.ndarray:
    """Two voices: a unison when the outputs are identical, apart (beating, then an interval) when not."""
    cents = 1200 * np.log2(1 + min(1.0, 2 * max_difference))
    voices = tone(330.0, duration, triangle_wave) + tone(330.0, duration, triangle_wave, cents)
    return low_pass(envelope(voices / 2, decay=duration / 2), LAB_CUTOFF)


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
    "frequencies": lambda angular_frequencies, **_: 0.7 * followed(
        encoding_pitches(angular_frequencies[::2]), np.ones((len(angular_frequencies[::2]), 2)), 1.5),
    "position_sweep": lambda rows, angular_frequencies, duration, **_: sweep(
        angular_frequencies[::2], np.asarray(rows)[:, ::2].T, duration),
    "frequency_contrast": lambda angular_frequencies, values, **_: sweep(angular_frequencies, values, 1.5),
    "wave": lambda angular_frequency, samples, duration, **_: followed(
        [110.0 * 2 ** (4 * np.clip(1 + np.log10(angular_frequency) / 4, 0, 1))], [(np.asarray(samples) + 1) / 2],
        duration),
    "similarity_curve": lambda similarities, duration, **_: followed(
        [440.0], [np.asarray(similarities) / max(similarities)], duration),
    "vector_sum": lambda x_plus_pe, **_: 0.6 * value_blip(float(np.linalg.norm(x_plus_pe)), 0, 3),
    "outputs_compared": lambda max_difference, **_: comparison(max_difference),
    "distribution": lambda weights, seconds=1.6, **_: capital_chord(weights, max(0.6, seconds)),
    "concat": lambda heads, **_: 0.5 * token_arpeggio(heads),
}


def soundtrack(cues, duration: float, volume: int) -> np.ndarray:
    """Every cue's sound at its time on a track exactly ``duration`` long, mastered for ``volume``."""
    timeline = Timeline(duration)
    for cue in cues:
        timeline.place(MAPPINGS[cue.kind](**cue.values), cue.time)
    return master(timeline.samples, volume)
