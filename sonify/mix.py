"""A stereo timeline of sounds, levelled against speech as broadcasters measure loudness (ITU-R BS.1770, the
K-weighting of pyloudnorm) under a true-peak ceiling kept by a look-ahead limiter; 16-bit WAV I/O.

Levels are set against a voice at the loudness target (``audio.loudness``, -16 LUFS): a narration's voices are
brought to it (integrated), and every data cue is measured and set CUES_UNDER_SPEECH under it (momentary loudness,
400 ms), the same with a voice and without one: its loudness is its kind's, not its data's shape. A track without
a voice is not normalised: it is sparse (most of it silence), so its integrated loudness says little about how
loud a cue sounds, and bringing it to -16 LUFS made every cue louder than a voice at that level.

A section's soundtrack runs for minutes (a float64 copy of 5 minutes is 230 MB), so it is never held whole:
it is built on a ``Track`` (a scratch file), and measured, limited and written ``BLOCK`` samples at a time.
The same functions take numpy arrays (anything sliced like an (n, 2) array), as the tests and short sounds do.
pyloudnorm and scipy are imported where they measure or filter (see ``sonify.synth``).
"""

from __future__ import annotations

import tempfile
import wave
from collections.abc import Iterator
from pathlib import Path

from functools import cache

import numpy as np

from sonify.synth import SAMPLE_RATE, pan

# The limiter's true-peak ceiling. AAC adds up to 0.65 dB to a voice's peaks (measured on the draft-voiced lecture,
# 2026-12-02): the encoded file stays under -1.5 dBTP, 0.5 dB under the -1 dBTP delivery limit.
CEILING_DBTP = -2.2
LOOKAHEAD = 0.005  # seconds the limiter's gain starts falling before a peak
HOLD = 0.08  # seconds it stays down after one, so it does not flutter on a sustained chord
DUCK_DB = -14.0  # the tones under a voice: at least 10 dB quieter, with margin for the limiter
DUCK_RAMP = 0.08  # seconds the tones take to go down before a voice starts and to come back after it ends
CUES_UNDER_SPEECH = 6.0  # LU: a data cue's momentary loudness under a voice at the loudness target
OVERSAMPLING = 4  # true peak: the peak of the signal resampled 4x (BS.1770 annex 2)
PEAK_BLOCK, PEAK_REACH = 1 << 14, 64  # samples oversampled at a time; neighbours each side (filter: 10)
BLOCK = 1 << 18  # samples measured, limited or written at a time (5.5 s, 4 MB as stereo float64)
GATE_BLOCK, GATE_HOP = int(0.4 * SAMPLE_RATE), int(0.1 * SAMPLE_RATE)  # BS.1770's 400 ms blocks, 75 % overlap
ABSOLUTE_GATE, RELATIVE_GATE = -70.0, -10.0  # LUFS, LU
FILTER_STEP, AT_REST = 4096, 1e-30  # samples K-weighted at a time; a filter state this small is silence


class Track:
    """A signal of ``length`` samples (stereo, or mono with ``channels=1``) kept in an anonymous scratch file as
    float32, silent at first: sliced like an (n, 2) or (n,) array (``track[a:b]`` reads float64,
    ``track[a:b] = block`` writes), so ``Timeline`` places sounds on it as on an array while memory holds
    only what is read."""

    def __init__(self, length: int, channels: int = 2):
        self.length, self.channels = length, channels
        self.file = tempfile.TemporaryFile()  # removed when closed, or when the process ends whatever way
        self.file.truncate(length * 4 * channels)  # reads as zeros, takes no disk until written

    @classmethod
    def holding(cls, samples: np.ndarray) -> "Track":
        """A track holding ``samples`` (mono or (n, 2)): a narration's voice kept until the soundtrack is mixed."""
        track = cls(len(samples), 1 if np.ndim(samples) == 1 else 2)
        track[:] = samples
        return track

    @property
    def ndim(self) -> int:
        return 1 if self.channels == 1 else 2

    def __len__(self) -> int:
        return self.length

    def __enter__(self) -> "Track":
        return self

    def __exit__(self, *_) -> None:
        self.file.close()

    def __getitem__(self, span: slice) -> np.ndarray:
        start, stop, _ = span.indices(self.length)
        self.file.seek(start * 4 * self.channels)
        samples = np.fromfile(self.file, "<f4", max(0, stop - start) * self.channels).astype(float)
        return samples if self.channels == 1 else samples.reshape(-1, self.channels)

    def __setitem__(self, span: slice, block: np.ndarray) -> None:
        start, stop, _ = span.indices(self.length)
        shape = (stop - start,) if self.channels == 1 else (stop - start, self.channels)
        self.file.seek(start * 4 * self.channels)
        self.file.write(np.broadcast_to(block, shape).astype("<f4").tobytes())


class Timeline:
    """Stereo sounds placed at times on a track of fixed length; what runs past the end is cut. The track is
    a silent (n, 2) array ``duration`` long, or ``samples`` given (an array or a ``Track``) to add to."""

    def __init__(self, duration: float = 0.0, samples=None):
        self.samples = np.zeros((int(round(duration * SAMPLE_RATE)), 2)) if samples is None else samples

    def place(self, sound: np.ndarray, at: float, gain_db: float = 0.0) -> None:
        """Add ``sound`` (stereo, or mono for the centre; an array or a ``Track``) at ``at`` seconds, ``gain_db``
        louder, a BLOCK at a time: a recorded voice of minutes is never read whole."""
        start, gain = int(round(at * SAMPLE_RATE)), 10 ** (gain_db / 20)
        length = min(len(sound), len(self.samples) - start) if start >= 0 else 0
        for offset in range(0, length, BLOCK):
            piece = sound[offset:min(offset + BLOCK, length)]
            stereo = piece if piece.ndim == 2 else pan(piece, 0.0)
            self.samples[start + offset:start + offset + len(piece)] += gain * stereo


# A light room around the tones (pedalboard's Reverb, JUCE's Freeverb): its reflections fall 60 dB in about half a
# second and start about 12 dB under a short blip; dry_level 0.5 passes the sound itself unchanged.
ROOM = {"room_size": 0.25, "damping": 0.6, "wet_level": 0.15, "dry_level": 0.5, "width": 0.8}


def in_room(samples) -> None:
    """``samples`` (an (n, 2) array or a ``Track``: the tones, before any voice) through a light room, in place, a
    block at a time with the room's state carried from block to block; what rings on past the end is cut."""
    from pedalboard import Reverb

    room = Reverb(**ROOM)
    for start, block in blocks(samples):
        samples[start:start + len(block)] = room.process(block.T.astype(np.float32), SAMPLE_RATE, reset=False).T


def blocks(samples, size: int = BLOCK) -> Iterator[tuple[int, np.ndarray]]:
    """(start, samples[start:start + size]) along ``samples`` (an array or a ``Track``)."""
    for start in range(0, len(samples), size):
        yield start, samples[start:start + size]


def duck_gain(spans, length: int, depth_db: float = DUCK_DB, ramp: float = DUCK_RAMP, start: int = 0) -> np.ndarray:
    """Gain per sample of samples ``start`` to ``start + length``: 1, falling linearly to 10^(depth/20) over
    ``ramp`` s before each (start, end) span in seconds, held through it, rising back over ``ramp`` s after it."""
    times = (start + np.arange(length)) / SAMPLE_RATE
    depth = np.zeros(length)
    for begin, end in spans:
        low, high = np.searchsorted(times, (begin - ramp, end + ramp))  # outside them the span ducks nothing
        near = times[low:high]
        inside = np.clip(np.minimum(near - (begin - ramp), (end + ramp) - near) / ramp, 0.0, 1.0)
        depth[low:high] = np.maximum(depth[low:high], inside)
    return 10 ** (depth * depth_db / 20)


def cue_gain_db(target_lufs: float) -> float:
    """The momentary loudness (LUFS) of a data cue at its kind's level: CUES_UNDER_SPEECH under a voice at
    ``target_lufs``, with or without a voice; -inf (silence) at volume 0."""
    return target_lufs - CUES_UNDER_SPEECH


def with_voices(tones, voices, target_lufs: float):
    """The voices ((start, mono samples) each), centred and brought together to ``target_lufs`` integrated
    loudness (one gain: a recording's own ups and downs kept), over ``tones`` (already at their level, see
    ``cue_gain_db``) ducked while each voice speaks.

    ``tones`` is an array (the mix comes back as one) or a ``Track`` (it comes back as a new ``Track``, mixed a
    block at a time, which the caller closes); ``tones`` itself when no voice is heard."""
    mix = Track(len(tones)) if isinstance(tones, Track) else np.zeros_like(tones, dtype=float)
    track = Timeline(samples=mix)
    for at, samples in voices:
        track.place(samples, at)
    voice_level = loudness(mix)
    if not np.isfinite(voice_level):
        return tones
    voice_gain = 10 ** ((target_lufs - voice_level) / 20)
    spans = [(at, at + len(samples) / SAMPLE_RATE) for at, samples in voices]
    for start, block in blocks(tones):
        end = start + len(block)
        mix[start:end] = voice_gain * mix[start:end] + block * duck_gain(spans, len(block), start=start)[:, None]
    return mix


class LoudnessMeter:
    """Integrated loudness (ITU-R BS.1770-4, gated, as pyloudnorm measures it) of a signal fed a block at a
    time: K-weighted with the filters' state carried from block to block, squares summed per 100 ms hop,
    so memory holds a block and two numbers per 100 ms.

    The K-weighting runs FILTER_STEP samples at a time. A sound's tail decays in the filters' state toward
    subnormal floats, on which a CPU computes about a hundred times slower, through the minutes of silence of
    a sparse track; so a state under AT_REST (−600 dB) is set to 0, and silence after it is not filtered (it
    would give zeros): the measure differs from pyloudnorm's by far less than any float can show in LUFS."""

    def __init__(self):
        import pyloudnorm

        filters = pyloudnorm.Meter(SAMPLE_RATE)._filters.values()  # the K-weighting's two stages
        self.stages = [(stage.b, stage.a, stage.passband_gain) for stage in filters]
        self.states: list = [None] * len(self.stages)
        self.rest, self.hops, self.length, self.heard = None, [], 0, False

    def add(self, block: np.ndarray) -> None:
        """Measure ``block`` (mono, or (n, channels)) as the continuation of what came before."""
        block = np.asarray(block, dtype=float).reshape(len(block), -1)
        self.length += len(block)
        self.heard = self.heard or bool(np.any(block))
        if self.states[0] is None:  # at rest before the signal starts
            self.states = [np.zeros((max(len(a), len(b)) - 1, block.shape[1])) for b, a, _ in self.stages]
        weighted = np.zeros_like(block)
        for start in range(0, len(block), FILTER_STEP):
            part = block[start:start + FILTER_STEP]
            if part.any() or any(state.any() for state in self.states):
                weighted[start:start + len(part)] = self.k_weighted(part)
        joined = weighted if self.rest is None else np.concatenate([self.rest, weighted])
        whole = len(joined) // GATE_HOP * GATE_HOP
        self.hops.append((joined[:whole] ** 2).reshape(-1, GATE_HOP, joined.shape[1]).sum(axis=1))
        self.rest = joined[whole:]

    def k_weighted(self, part: np.ndarray) -> np.ndarray:
        """``part`` through both K-weighting stages, continuing their state; a state that has decayed under
        AT_REST is set to rest."""
        from scipy import signal as scipy_signal

        for k, (b, a, gain) in enumerate(self.stages):
            part, self.states[k] = scipy_signal.lfilter(b, a, part, axis=0, zi=self.states[k])
            part = gain * part
            if np.abs(self.states[k]).max() < AT_REST:
                self.states[k][:] = 0.0
        return part

    def block_powers(self) -> np.ndarray:
        """The K-weighted mean square of every 400 ms block (100 ms apart), per channel: (block, channel)."""
        hops = np.concatenate(self.hops + [(self.rest ** 2).sum(axis=0, keepdims=True)])
        count = int(np.round((self.length / SAMPLE_RATE - 0.4) / 0.1)) + 1  # pyloudnorm's number of blocks
        per_block = GATE_BLOCK // GATE_HOP
        hops = np.vstack([hops, np.zeros((count + per_block, hops.shape[1]))])  # a last block runs past the end
        return sum(hops[k:k + count] for k in range(per_block)) / GATE_BLOCK

    @property
    def momentary(self) -> float:
        """The loudest momentary loudness (one 400 ms block) of everything added; -inf for silence."""
        if self.length < GATE_BLOCK or not self.heard:
            return float("-inf")
        with np.errstate(divide="ignore"):
            return float(-0.691 + 10 * np.log10(self.block_powers().sum(axis=1).max()))

    @property
    def lufs(self) -> float:
        """The integrated loudness of everything added; -inf for silence or less than one 400 ms block."""
        if self.length < GATE_BLOCK or not self.heard:
            return float("-inf")
        power = self.block_powers()  # (block, channel) mean squares
        with np.errstate(divide="ignore"):
            levels = -0.691 + 10 * np.log10(power.sum(axis=1))
            if not np.any(levels >= ABSOLUTE_GATE):
                return float("-inf")
            relative = -0.691 + 10 * np.log10(power[levels >= ABSOLUTE_GATE].mean(axis=0).sum()) + RELATIVE_GATE
            gated = (levels > relative) & (levels > ABSOLUTE_GATE)
            return float(-0.691 + 10 * np.log10(power[gated].mean(axis=0).sum())) if gated.any() else float("-inf")


def loudness(samples) -> float:
    """Integrated loudness in LUFS (ITU-R BS.1770-4, gated) of an array or a ``Track``; -inf for silence."""
    meter = LoudnessMeter()
    for _, block in blocks(samples):
        meter.add(block)
    return meter.lufs


def levelled(sound: np.ndarray, lufs: float, roomed: bool = False) -> np.ndarray:
    """``sound`` scaled so that its loudest momentary loudness is ``lufs`` (silence stays silence), as heard in
    the room when ``roomed`` (its reflections add up to 2.3 LU, more at some pitches than at others): how loud a
    sound is, set by measuring it, whatever the data made it (one voice or seven, a flat row or a one-hot one)."""
    measured = momentary_loudness(sound, roomed)
    return sound * 10 ** ((lufs - measured) / 20) if np.isfinite(measured) else sound


ROOM_TAIL = 0.5  # seconds: the room's reflections have fallen 60 dB by then


def momentary_loudness(sound: np.ndarray, roomed: bool = False) -> float:
    """The loudest momentary loudness (BS.1770, 400 ms, 100 ms apart) of a short sound (mono is heard centred, as
    ``Timeline.place`` puts it), padded with silence to one block; in the room (``in_room``) when ``roomed``; -inf
    for silence."""
    stereo = sound if sound.ndim == 2 else pan(sound, 0.0)
    padded = np.concatenate([stereo, np.zeros((max(GATE_BLOCK - len(stereo), int(roomed * ROOM_TAIL * SAMPLE_RATE)),
                                               2))])
    if roomed:
        in_room(padded)
    meter = LoudnessMeter()
    meter.add(padded)
    return meter.momentary


@cache
def peak_bound() -> float:
    """The most an oversampled value can exceed the largest |sample|: each output of the 4x resampling is one
    polyphase branch of its filter applied to the samples, so it is at most max |x| times the branch's sum of
    |taps| (the largest of the four), read off the resampled unit impulse."""
    from scipy import signal as scipy_signal

    impulse = np.zeros(8 * PEAK_REACH)
    impulse[4 * PEAK_REACH] = 1.0
    taps = np.abs(scipy_signal.resample_poly(impulse, OVERSAMPLING, 1))
    return max(taps[phase::OVERSAMPLING].sum() for phase in range(OVERSAMPLING)) * (1 + 1e-9)



def sample_peaks(samples: np.ndarray, above: float = 0.0) -> np.ndarray:
    """For each sample, the largest |value| of the 4x oversampled signal around it, over both channels; 0
    where no oversampled value can exceed ``above`` (``peak_bound()`` times the largest |sample| near it).

    Oversampled a block at a time, each with PEAK_REACH samples of its neighbours on either side (more than
    the resampling filter's reach), so the result equals oversampling the whole signal at once without
    holding four copies of it."""
    from scipy import signal as scipy_signal

    channels = np.ascontiguousarray(np.atleast_2d(samples.T))
    length = channels.shape[1]
    peaks = np.zeros(length)
    for start in range(0, length, PEAK_BLOCK):
        end = min(start + PEAK_BLOCK, length)
        low, high = max(0, start - PEAK_REACH), min(length, end + PEAK_REACH)
        if np.abs(channels[:, low:high]).max(initial=0.0) * peak_bound() <= above:
            continue
        upsampled = scipy_signal.resample_poly(channels[:, low:high], OVERSAMPLING, 1, axis=1)
        block = np.abs(upsampled).max(axis=0).reshape(-1, OVERSAMPLING).max(axis=1)
        peaks[start:end] = block[start - low:end - low]
    return peaks


LIMITER_AHEAD, LIMITER_BEHIND = int(LOOKAHEAD * SAMPLE_RATE), int(HOLD * SAMPLE_RATE)
# How far a sample's limited value depends on its neighbours: peaks, then the hold's minimum, then the mean.
LIMITER_REACH = PEAK_REACH + LIMITER_AHEAD + LIMITER_BEHIND + LIMITER_AHEAD // 2 + 1


def limited(samples: np.ndarray, ceiling_db: float = CEILING_DBTP) -> np.ndarray:
    """Look-ahead limiter on a whole array: gain g(t) = mean over +-LOOKAHEAD/2 of min over [t - HOLD,
    t + LOOKAHEAD] of ceiling / peak, so g falls smoothly before each peak and |g x| never exceeds the ceiling.
    Where even ``peak_bound()`` times the largest |sample| is under the ceiling, nothing is oversampled: g = 1."""
    from scipy.ndimage import minimum_filter1d, uniform_filter1d

    ceiling = 10 ** (ceiling_db / 20)
    if np.abs(samples).max(initial=0.0) * peak_bound() <= ceiling:
        return samples
    needed = np.minimum(1.0, ceiling / np.maximum(sample_peaks(samples, above=ceiling), 1e-12))
    if needed.min() >= 1.0:
        return samples
    size = LIMITER_AHEAD + LIMITER_BEHIND + 1
    held = minimum_filter1d(needed, size=size, origin=LIMITER_BEHIND - size // 2, mode="nearest")
    gain = uniform_filter1d(held, size=LIMITER_AHEAD // 2 * 2 + 1, mode="nearest")
    return samples * gain[:, None]


def limited_blocks(samples, ceiling_db: float = CEILING_DBTP) -> Iterator[tuple[int, np.ndarray]]:
    """(start, block) of ``samples`` (an array or a ``Track``) through the limiter, BLOCK samples at a
    time, each limited with LIMITER_REACH samples of context on either side: the blocks equal the whole
    signal limited at once."""
    length = len(samples)
    for start in range(0, length, BLOCK):
        end = min(start + BLOCK, length)
        low, high = max(0, start - LIMITER_REACH), min(length, end + LIMITER_REACH)
        yield start, limited(samples[low:high], ceiling_db)[start - low:end - low]


def pcm16(samples: np.ndarray) -> np.ndarray:
    """Floats in [-1, 1] as 16-bit PCM (clipped)."""
    return np.round(np.clip(samples, -1.0, 1.0) * 32767).astype("<i2")


def write_wav_blocks(pieces, path: Path) -> None:
    """16-bit PCM stereo WAV at SAMPLE_RATE, written a block of (n, 2) floats at a time: the format every
    player and manim's mixer read without ffmpeg."""
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(2)
        writer.setsampwidth(2)
        writer.setframerate(SAMPLE_RATE)
        for block in pieces:
            writer.writeframes(pcm16(block).tobytes())


def wav_blocks(path: Path, size: int = BLOCK) -> Iterator[np.ndarray]:
    """The samples of a 16-bit PCM WAV as (n, channels) arrays of floats in [-1, 1], ``size`` at a time."""
    with wave.open(str(path)) as reader:
        channels = reader.getnchannels()
        while frames := reader.readframes(size):
            yield np.frombuffer(frames, "<i2").reshape(-1, channels) / 32768


def read_wav(path: Path) -> np.ndarray:
    """The samples of a 16-bit PCM stereo WAV as an (n, 2) array of floats in [-1, 1]."""
    return np.concatenate([np.zeros((0, 2)), *wav_blocks(path)])
