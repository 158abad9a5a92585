"""Synthesis: every function returns a mono float signal at SAMPLE_RATE, peak about 1, except ``pan``,
which places a mono signal in the stereo field (an (n, 2) array: left, right).

scipy is imported where a filter is made, not with the module: the CLI's own process reads the sound kinds
(``lesson.sections``) but never synthesizes, and importing scipy.signal costs it a second per command."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

SAMPLE_RATE = 48000  # the rate of video soundtracks: no resampling when muxed as AAC or Opus
# An envelope per kind of sound, so that kinds are told apart before their pitch is: the step tones and other
# markers are struck (the lab's 15 ms attack), a value's blip is plucked (it starts at once and dies fast), a
# distribution's chord swells in (and dies away over the chord's length).
ATTACK = 0.015  # seconds, the lab's attack: markers
PLUCK = 0.005  # seconds: a value's blip
SWELL = 0.06  # seconds: a distribution's chord
RELEASE = 0.005  # seconds, a struck note's fade at its cut (it has decayed by then)
Wave = Callable[[np.ndarray], np.ndarray]  # phase in cycles -> amplitude


def sine_wave(phase: np.ndarray) -> np.ndarray:
    """sin(2 pi phase)."""
    return np.sin(2 * np.pi * phase)


def triangle_wave(phase: np.ndarray) -> np.ndarray:
    """A triangle: 4 |frac(phase - 1/4) - 1/2| - 1, softer than a square, brighter than a sine."""
    return 4 * np.abs(np.mod(phase - 0.25, 1.0) - 0.5) - 1


def organ_wave(phase: np.ndarray) -> np.ndarray:
    """The richer wave: harmonics 1..6 with amplitudes 1/k^1.5, normalised to peak 1."""
    harmonics = sum(np.sin(2 * np.pi * k * phase) / k**1.5 for k in range(1, 7))
    return harmonics / 1.1541  # the sum's peak over one cycle


def saw_wave(phase: np.ndarray) -> np.ndarray:
    """A band-limited sawtooth, harmonics 1..28 at 1/k (all under the 24 kHz Nyquist limit up to 850 Hz):
    bright enough that a low-pass filter's cut-off is heard."""
    harmonics = sum(np.sin(2 * np.pi * k * phase) / k for k in range(1, 29))
    return harmonics / 1.8  # the sum's peak over one cycle is about 1.80 (the Gibbs overshoot)


def seconds(duration: float) -> np.ndarray:
    """Sample times 0, 1/SR, ... for ``duration`` seconds."""
    return np.arange(int(round(duration * SAMPLE_RATE))) / SAMPLE_RATE


def tone(frequency: float, duration: float, wave: Wave = sine_wave, detune_cents: float = 0.0) -> np.ndarray:
    """wave(f t), optionally detuned by ``detune_cents`` (100 cents = one semitone)."""
    return wave(frequency * 2 ** (detune_cents / 1200) * seconds(duration))


def glide(start: float, end: float, duration: float, wave: Wave = sine_wave) -> np.ndarray:
    """A tone whose pitch slides exponentially from ``start`` to ``end`` Hz."""
    t = seconds(duration)
    ratio = end / start
    # phase = integral of f(t) = start * ratio^(t/T)
    phase = start * duration * (ratio ** (t / duration) - 1) / np.log(ratio) if ratio != 1 else start * t
    return wave(phase)


def envelope(signal: np.ndarray, decay: float, attack: float = ATTACK, release: float = RELEASE) -> np.ndarray:
    """Linear rise over ``attack`` seconds, then exp(-t / decay): a struck, not a held, note (mono or stereo);
    its last ``release`` seconds fade to zero along a raised cosine (1 + cos(pi x)) / 2."""
    t = np.arange(len(signal)) / SAMPLE_RATE
    shape = np.clip(t / attack, 0.0, 1.0) * np.exp(-np.maximum(t - attack, 0.0) / decay)
    fade = min(len(signal), int(round(release * SAMPLE_RATE)))
    # zero at the last sample, and no corner where the fade begins: no click at the cut
    shape[len(signal) - fade:] *= (1 + np.cos(np.pi * np.arange(1, fade + 1) / max(fade, 1))) / 2
    return signal * (shape[:, None] if signal.ndim == 2 else shape)


def low_pass(signal: np.ndarray, cutoff: float, order: int = 4) -> np.ndarray:
    """Butterworth low-pass, |H(f)| = 1 / sqrt(1 + (f / cutoff)^(2 order)), as second-order sections."""
    from scipy import signal as scipy_signal

    sections = scipy_signal.butter(order, min(cutoff, 0.45 * SAMPLE_RATE), fs=SAMPLE_RATE, output="sos")
    return scipy_signal.sosfilt(sections, signal, axis=0)


def chord(frequencies: Sequence[float], weights: Sequence[float], duration: float, wave: Wave = sine_wave,
          detune_cents: float = 0.0) -> np.ndarray:
    """sum_j w_j wave(f_j t) / sum_j w_j: louder partials for larger weights, peak at most 1."""
    weights = np.asarray(weights, dtype=float)
    total = weights.sum()
    if total <= 0:
        return np.zeros(len(seconds(duration)))
    voices = [w * tone(f, duration, wave, detune_cents * (-1) ** j)
              for j, (f, w) in enumerate(zip(frequencies, weights)) if w > 0]
    return np.sum(voices, axis=0) / total


def pan(sound: np.ndarray, position: float) -> np.ndarray:
    """Constant-power pan, position -1 (left) .. 0 (centre) .. 1 (right): (cos a, sin a) x sound, a = (p + 1) pi / 4."""
    angle = (np.clip(position, -1.0, 1.0) + 1) * np.pi / 4
    return np.column_stack([np.cos(angle) * sound, np.sin(angle) * sound])
