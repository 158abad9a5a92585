"""A timeline of sounds, mastered to a loudness that depends only on the volume setting, never clipping."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from sonify.synth import SAMPLE_RATE

with warnings.catch_warnings():  # pydub warns that ffmpeg is missing; WAV needs no ffmpeg
    warnings.simplefilter("ignore", RuntimeWarning)
    from pydub import AudioSegment

FULL_VOLUME_RMS_DB = -16.0  # loudness (RMS of the sounding parts, dBFS) at volume 100
LIMIT = 0.7  # above this level the limiter bends the signal smoothly towards CEILING
CEILING = 0.95  # the largest sample value ever written: about -0.4 dBFS
ACTIVE_WINDOW = 0.05  # seconds; loudness is measured over the windows where something sounds


class Timeline:
    """Sounds placed at times on a silent track of fixed length; what runs past the end is cut."""

    def __init__(self, duration: float):
        self.samples = np.zeros(int(round(duration * SAMPLE_RATE)))

    def place(self, sound: np.ndarray, at: float, gain: float = 1.0) -> None:
        start = int(round(at * SAMPLE_RATE))
        end = min(len(self.samples), start + len(sound))
        if 0 <= start < end:
            self.samples[start:end] += gain * sound[:end - start]


def active_rms(samples: np.ndarray) -> float:
    """RMS over the 50 ms windows that are not silent, so pauses do not lower the measure."""
    size = int(ACTIVE_WINDOW * SAMPLE_RATE)
    windows = samples[: len(samples) // size * size].reshape(-1, size)
    levels = np.sqrt(np.mean(windows**2, axis=1))
    sounding = levels[levels > 1e-4]
    return float(np.sqrt(np.mean(sounding**2))) if sounding.size else 0.0


def master(samples: np.ndarray, volume: int) -> np.ndarray:
    """Scale to the loudness of ``volume`` (0..100), then a soft limiter: the result never exceeds CEILING."""
    level = active_rms(samples)
    if volume <= 0 or level == 0:
        return np.zeros_like(samples)
    target = 10 ** ((FULL_VOLUME_RMS_DB + 20 * np.log10(volume / 100)) / 20)
    scaled = samples * target / level
    magnitude = np.abs(scaled)
    headroom = CEILING - LIMIT
    bent = LIMIT + headroom * np.tanh((magnitude - LIMIT) / headroom)
    return np.sign(scaled) * np.where(magnitude > LIMIT, bent, magnitude)


def write_wav(samples: np.ndarray, path: Path) -> None:
    """16-bit PCM mono WAV: the format manim's mixer and every player read without ffmpeg."""
    pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767).astype("<i2")
    AudioSegment(data=pcm.tobytes(), sample_width=2, frame_rate=SAMPLE_RATE, channels=1).export(path, format="wav")


def read_wav(path: Path) -> np.ndarray:
    """The samples of a 16-bit PCM mono WAV as floats in [-1, 1]."""
    segment = AudioSegment.from_wav(path)
    return np.array(segment.get_array_of_samples(), dtype=float) / 32768
