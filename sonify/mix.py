"""A stereo timeline of sounds, mastered to a loudness target measured as broadcasters do (ITU-R BS.1770,
pyloudnorm) under a true-peak ceiling kept by a look-ahead limiter; WAV I/O through pydub."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pyloudnorm
from scipy import signal as scipy_signal
from scipy.ndimage import minimum_filter1d, uniform_filter1d

from sonify.synth import SAMPLE_RATE, pan

with warnings.catch_warnings():  # pydub warns that ffmpeg is missing; WAV needs no ffmpeg
    warnings.simplefilter("ignore", RuntimeWarning)
    from pydub import AudioSegment

CEILING_DBTP = -1.5  # the limiter's true-peak ceiling: 0.5 dB under the -1 dBTP delivery limit, for the codec
LOOKAHEAD = 0.005  # seconds the limiter's gain starts falling before a peak
HOLD = 0.08  # seconds it stays down after one, so it does not flutter on a sustained chord
DUCK_DB = -14.0  # the tones under a voice: at least 10 dB quieter, with margin for the limiter
DUCK_RAMP = 0.08  # seconds the tones take to go down before a voice starts and to come back after it ends
TONES_UNDER_VOICE_DB = 3.0  # between voices, the tones sit this much under the voice's loudness
OVERSAMPLING = 4  # true peak: the peak of the signal resampled 4x (BS.1770 annex 2)
PEAK_BLOCK, PEAK_REACH = 1 << 16, 64  # samples oversampled at a time; neighbours each side (filter: 10)


class Timeline:
    """Stereo sounds placed at times on a silent (n, 2) track of fixed length; what runs past the end is cut."""

    def __init__(self, duration: float):
        self.samples = np.zeros((int(round(duration * SAMPLE_RATE)), 2))

    def place(self, sound: np.ndarray, at: float, gain_db: float = 0.0) -> None:
        """Add ``sound`` (stereo, or mono for the centre) at ``at`` seconds, ``gain_db`` louder."""
        stereo = sound if sound.ndim == 2 else pan(sound, 0.0)
        start = int(round(at * SAMPLE_RATE))
        end = min(len(self.samples), start + len(stereo))
        if 0 <= start < end:
            self.samples[start:end] += 10 ** (gain_db / 20) * stereo[:end - start]


def duck_gain(spans, length: int, depth_db: float = DUCK_DB, ramp: float = DUCK_RAMP) -> np.ndarray:
    """Gain per sample: 1, falling linearly to 10^(depth/20) over ``ramp`` s before each (start, end) span,
    held through it, rising back over ``ramp`` s after it."""
    times = np.arange(length) / SAMPLE_RATE
    depth = np.zeros(length)
    for start, end in spans:
        inside = np.clip(np.minimum(times - (start - ramp), (end + ramp) - times) / ramp, 0.0, 1.0)
        depth = np.maximum(depth, inside)
    return 10 ** (depth * depth_db / 20)


def with_voices(tones: np.ndarray, voices) -> np.ndarray:
    """The voices ((start, mono samples) each), centred, over ``tones`` ducked while each voice speaks;
    between voices the tones sit TONES_UNDER_VOICE_DB under the voice's integrated loudness."""
    track = Timeline(len(tones) / SAMPLE_RATE)
    for at, samples in voices:
        track.place(samples, at)
    voice_level, tones_level = loudness(track.samples), loudness(tones)
    if not np.isfinite(voice_level):
        return tones
    gain = 10 ** ((voice_level - TONES_UNDER_VOICE_DB - tones_level) / 20) if np.isfinite(tones_level) else 0.0
    spans = [(at, at + len(samples) / SAMPLE_RATE) for at, samples in voices]
    return track.samples + gain * tones * duck_gain(spans, len(tones))[:, None]


def loudness(samples: np.ndarray) -> float:
    """Integrated loudness in LUFS (ITU-R BS.1770-4, gated); -inf for silence."""
    if len(samples) < int(0.4 * SAMPLE_RATE) or not np.any(samples):
        return float("-inf")
    with warnings.catch_warnings():  # pyloudnorm warns on clipping, which the limiter prevents
        warnings.simplefilter("ignore")
        return float(pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(samples))


def sample_peaks(samples: np.ndarray) -> np.ndarray:
    """For each sample, the largest |value| of the 4x oversampled signal around it, over both channels.

    Oversampled a block at a time, each with PEAK_REACH samples of its neighbours on either side (more than
    the resampling filter's reach), so the result equals oversampling the whole signal at once without
    holding four copies of it: a section's soundtrack is over 20 million samples."""
    channels = np.ascontiguousarray(np.atleast_2d(samples.T))
    length = channels.shape[1]
    peaks = np.empty(length)
    for start in range(0, length, PEAK_BLOCK):
        end = min(start + PEAK_BLOCK, length)
        low, high = max(0, start - PEAK_REACH), min(length, end + PEAK_REACH)
        upsampled = scipy_signal.resample_poly(channels[:, low:high], OVERSAMPLING, 1, axis=1)
        block = np.abs(upsampled).max(axis=0).reshape(-1, OVERSAMPLING).max(axis=1)
        peaks[start:end] = block[start - low:end - low]
    return peaks


def true_peak_db(samples: np.ndarray) -> float:
    """True peak in dBTP: 20 log10 of the largest oversampled |value|."""
    peak = sample_peaks(samples).max(initial=0.0)
    return float(20 * np.log10(peak)) if peak > 0 else float("-inf")


def limit(samples: np.ndarray, ceiling_db: float = CEILING_DBTP) -> np.ndarray:
    """Look-ahead limiter: gain g(t) = mean over +-LOOKAHEAD/2 of min over [t - HOLD, t + LOOKAHEAD] of
    ceiling / peak, so g falls smoothly before each peak and |g x| never exceeds the ceiling."""
    needed = np.minimum(1.0, 10 ** (ceiling_db / 20) / np.maximum(sample_peaks(samples), 1e-12))
    if needed.min() >= 1.0:
        return samples
    ahead, behind = int(LOOKAHEAD * SAMPLE_RATE), int(HOLD * SAMPLE_RATE)
    size = ahead + behind + 1
    held = minimum_filter1d(needed, size=size, origin=behind - size // 2, mode="nearest")
    gain = uniform_filter1d(held, size=ahead // 2 * 2 + 1, mode="nearest")
    return samples * gain[:, None]


def master(samples: np.ndarray, target_lufs: float) -> np.ndarray:
    """``samples`` brought to ``target_lufs`` integrated loudness by one gain, then limited under the ceiling."""
    measured = loudness(samples)
    if not np.isfinite(measured) or not np.isfinite(target_lufs):  # nothing to hear, or volume 0
        return np.zeros_like(samples)
    mastered = limit(samples * 10 ** ((target_lufs - measured) / 20))
    correction = target_lufs - loudness(mastered)  # what the limiter took off the loudest passages
    return limit(mastered * 10 ** (correction / 20)) if abs(correction) > 0.1 else mastered


def write_wav(samples: np.ndarray, path: Path) -> None:
    """16-bit PCM stereo WAV at SAMPLE_RATE: the format every player and manim's mixer read without ffmpeg."""
    pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767).astype("<i2")
    AudioSegment(data=pcm.tobytes(), sample_width=2, frame_rate=SAMPLE_RATE, channels=2).export(path, format="wav")


def read_wav(path: Path) -> np.ndarray:
    """The samples of a 16-bit PCM stereo WAV as an (n, 2) array of floats in [-1, 1]."""
    segment = AudioSegment.from_wav(path)
    return np.array(segment.get_array_of_samples(), dtype=float).reshape(-1, segment.channels) / 32768
