"""Pure-numpy synthesis: every function returns a mono float signal at SAMPLE_RATE, peak about 1."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

SAMPLE_RATE = 44100
ATTACK = 0.015  # seconds, the lab's attack
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


def envelope(signal: np.ndarray, decay: float, attack: float = ATTACK) -> np.ndarray:
    """Linear rise over ``attack`` seconds, then exp(-t / decay): a struck, not a held, note."""
    t = np.arange(len(signal)) / SAMPLE_RATE
    rise = np.clip(t / attack, 0.0, 1.0)
    fall = np.exp(-np.maximum(t - attack, 0.0) / decay)
    shaped = signal * rise * fall
    fade = min(len(signal), int(0.005 * SAMPLE_RATE))  # 5 ms to zero: no click at the cut
    shaped[len(signal) - fade:] *= np.linspace(1.0, 0.0, fade)
    return shaped


def low_pass(signal: np.ndarray, cutoff: float, order: int = 2) -> np.ndarray:
    """Butterworth magnitude |H(f)| = 1 / sqrt(1 + (f / cutoff)^(2 order)), applied in the frequency domain."""
    spectrum = np.fft.rfft(signal)
    frequencies = np.fft.rfftfreq(len(signal), 1 / SAMPLE_RATE)
    return np.fft.irfft(spectrum / np.sqrt(1 + (frequencies / cutoff) ** (2 * order)), n=len(signal))


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
