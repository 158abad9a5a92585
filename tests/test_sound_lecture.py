"""The default lecture as a viewer gets it, measured on a tiny render of every section of the registry: no screen stands
still over 6 s in any section's decoded frames, cards take at most a tenth of each section, every finished
step stays 4 s, landing cues sound as their motion stops; and its sound: every
section and the joined lecture under the speech target (pyloudnorm, ITU-R BS.1770) and -1 dBTP, one gain
for a cue kind in every section, stereo 48 kHz, nothing under 200 Hz, and the lecture's audio under each
section's picture (cross-correlation)."""

import json

import av
import numpy as np
import pyloudnorm
import pytest
from scipy import fft as scipy_fft
from scipy import signal as scipy_signal

from lecture.render.media import video_duration
from lesson.locale import load_locale
from lesson.sections import BY_ID, SECTION_IDS
from media_checks import tiny_lecture
from scene_checks import video_freezes
from scenes.lesson_scene import LONGEST_FREEZE
from sonify.mappings import LEVELS, step_tone
from sonify.mix import read_wav
from sonify.synth import SAMPLE_RATE

TARGET = -16.0  # assets/default.toml: audio.loudness
FPS = 5


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    # The session's tiny render of the whole lecture (test_slides reads it too), read only.
    out = tiny_lecture(tmp_path_factory)
    return out, json.loads((out / "manifest.json").read_text())


@pytest.fixture(scope="module")
def still_stretches(lecture) -> dict[str, list[tuple[float, float]]]:
    """Each section's still stretches (``video_freezes`` of any length), decoded once for this module's tests."""
    return {section: video_freezes(lecture[0] / entry["files"][0], longest=0)
            for section, entry in lecture[1]["sections"].items()}


def test_no_section_stands_still_over_6_s_in_its_decoded_frames(lecture, still_stretches):
    assert sorted(lecture[1]["sections"]) == sorted(SECTION_IDS)
    for section, runs in still_stretches.items():
        assert [(start, end) for start, end in runs if end - start > LONGEST_FREEZE + 1e-6] == [], section


CARD_SHARE = 0.10  # of a section's length, at most
FINISHED_HOLD = 4.0  # seconds a finished step stays on screen before anything replaces or dims it
LANDING = {"capital": {"row"}, "heads": {"head_arcs", "heads_sum"}}  # cues that sound as their motion ends


def test_cards_take_at_most_a_tenth_of_every_section(lecture):
    for section, entry in lecture[1]["sections"].items():
        card_time = sum(card["end"] - card["start"] for card in entry["cards"])
        assert card_time <= CARD_SHARE * entry["duration"], (section, card_time, entry["duration"])
    closings = load_locale()["closing"]
    assert {section for section, entry in lecture[1]["sections"].items()
            if any(card["kind"] == "closing" for card in entry["cards"])} == \
        {section for section in SECTION_IDS if closings[section]["shown"]}


def test_every_finished_step_stays_4_s_still_in_the_decoded_frames(lecture, still_stretches):
    """From the manifest's ``settled`` (its last animation's end) to ``read_until`` at least 4 s, and the
    decoded frames hold still over that span."""
    for section, entry in lecture[1]["sections"].items():
        runs = still_stretches[section]
        for step in entry["steps"]:
            assert step["read_until"] - step["settled"] >= FINISHED_HOLD - 1e-3, (section, step["key"])
            # (a microsecond's tolerance: 211.6 + 1/5 is 211.79999999999998, and the run starts at the frame of 211.8)
            first, last = step["settled"] + 1 / FPS + 1e-6, step["settled"] + FINISHED_HOLD - 1 / FPS - 1e-6
            assert any(start <= first and end >= last for start, end in runs), (section, step["key"], step["settled"])


def test_a_landing_cue_sounds_as_its_motion_stops(lecture):
    """The bars of capital's attention row and the heads' arcs: their sound comes when the picture stops
    moving (a still stretch of frames begins within a frame of the cue), not as the motion starts."""
    for section, kinds in LANDING.items():
        entry = lecture[1]["sections"][section]
        runs = video_freezes(lecture[0] / entry["files"][0], longest=0, through_key_frames=False)
        # a replay repeats the sound after the voice, over the picture it landed on: it has no motion of its own
        cues = [cue for cue in entry["cues"] if cue["kind"] in kinds and not cue.get("replay")]
        assert cues, section
        for cue in cues:
            assert any(abs(start - cue["time"]) <= 1.5 / FPS and end - start >= 0.5 for start, end in runs), \
                (section, cue["kind"], cue["time"])


def test_each_section_plays_the_cue_kinds_its_record_declares(lecture):
    """The registry's cue kinds are what each scene plays: none undeclared, none declared and never played."""
    played = {section: {cue["kind"] for cue in entry["cues"]} for section, entry in lecture[1]["sections"].items()}
    assert played == {section: set(BY_ID[section].cue_kinds) for section in SECTION_IDS}


def sections(lecture):
    out, manifest = lecture
    for section, entry in manifest["sections"].items():
        yield section, entry, read_wav(out / entry["files"][0].replace(".mp4", ".wav"))


def decoded(path) -> tuple[np.ndarray, int]:
    """Every channel of the first audio stream, as an (n, channels) array (each channel's samples side by side in
    memory), and its rate."""
    with av.open(str(path)) as container:
        frames = list(container.decode(audio=0))
    return np.concatenate([frame.to_ndarray() for frame in frames], axis=1).astype(float).T, frames[0].sample_rate


@pytest.fixture(scope="module")
def heard(lecture) -> tuple[np.ndarray, int]:
    """The lecture's sound as decoded from lecture.mp4, once for this module's tests."""
    return decoded(lecture[0] / "lecture.mp4")


@pytest.fixture(scope="module")
def heard_sections(lecture) -> dict[str, tuple[np.ndarray, int]]:
    """Each section's sound as decoded from its video, once for this module's tests."""
    return {section: decoded(lecture[0] / entry["files"][0]) for section, entry in lecture[1]["sections"].items()}


OVERSAMPLING = 4  # BS.1770's true peak: the peak of the signal resampled 4x
_IMPULSE = scipy_signal.resample_poly(np.eye(1, 257, 128)[0], OVERSAMPLING, 1)  # the resampler's taps, by phase
REACH = int(np.ceil(np.abs(np.flatnonzero(_IMPULSE) / OVERSAMPLING - 128).max())) + 2  # input samples either side
TAPS_GAIN = max(np.abs(_IMPULSE[phase::OVERSAMPLING]).sum() for phase in range(OVERSAMPLING))
STRETCH = SAMPLE_RATE  # input samples resampled at a time


def channel_true_peak(channel: np.ndarray) -> float:
    """The largest |sample| of ``channel`` resampled 4x (scipy's polyphase resampler), found stretch by stretch: a
    resampled sample is a weighted sum of the input within REACH of it, so no sample of a stretch passes TAPS_GAIN
    times the stretch's largest |input| there; stretches are resampled from the largest such bound down, until the
    bound is under the peak found. The same peak as resampling the whole channel (each stretch is resampled with
    2 x REACH samples either side: its own resampled samples are those of the whole channel, bit for bit)."""
    starts = range(0, len(channel), STRETCH)
    bounds = sorted(((TAPS_GAIN * np.abs(channel[max(0, start - REACH):start + STRETCH + REACH]).max(), start)
                     for start in starts), reverse=True)
    peak = 0.0
    for bound, start in bounds:
        if bound <= peak:
            break
        first = max(0, start - 2 * REACH)
        resampled = scipy_signal.resample_poly(channel[first:start + STRETCH + 2 * REACH], OVERSAMPLING, 1)
        own = resampled[(start - first) * OVERSAMPLING:(min(start + STRETCH, len(channel)) - first) * OVERSAMPLING]
        peak = max(peak, float(np.abs(own).max()))
    return peak


def true_peak(samples: np.ndarray) -> float:
    """dBTP: the peak of the signal resampled 4x, a channel at a time."""
    return float(20 * np.log10(max(channel_true_peak(channel) for channel in samples.T)))


def integrated_loudness(samples: np.ndarray, rate: int = SAMPLE_RATE) -> float:
    """pyloudnorm's integrated loudness of ``samples`` under a dither of ±1e-10 at the Nyquist frequency (−200 dBFS):
    in exact silence the decaying tails of its K-weighting filters run through subnormal floats, a hundred times
    slower, for minutes of a sparse track; the dither keeps them normal (the K-weighting passes the Nyquist
    frequency) and lies 130 dB under the absolute gate, so it changes nothing. (Random noise does the same, at
    the cost of drawing 60 million normal numbers for the lecture.)"""
    dithered = samples.copy()
    dithered[::2] += 1e-10
    dithered[1::2] -= 1e-10
    return pyloudnorm.Meter(rate).integrated_loudness(dithered)


def test_every_section_and_the_lecture_sit_under_the_speech_target_under_minus_1_dbtp(lecture, heard):
    """Without a voice nothing is normalised to the target: the cues sit 6 LU under speech at it
    (tests/test_sound_levels.py), so a sparse track's integrated loudness lies well under it."""
    for section, _, samples in sections(lecture):
        assert TARGET - 14 <= integrated_loudness(samples) <= TARGET - 3, section
        assert true_peak(samples) <= -1.0, section
    samples, rate = heard
    assert TARGET - 14 <= integrated_loudness(samples, rate) <= TARGET - 3
    assert true_peak(samples) <= -1.0


def test_sound_is_stereo_48_khz_in_every_file(heard_sections, heard):
    for samples, rate in heard_sections.values():
        assert rate == 48000 and samples.shape[1] == 2
        assert not np.allclose(samples[:, 0], samples[:, 1], atol=1e-3)  # panned sounds: the sides differ
    assert heard[1] == 48000 and heard[0].shape[1] == 2


def step_gain_db(samples: np.ndarray, cue: dict) -> float:
    """How loud a step tone came out relative to its kind's level: the least-squares gain of the
    synthesized tone (centred: each channel carries cos(pi/4) of it) in the track at the cue."""
    reference = 10 ** (LEVELS["step"] / 20) * np.cos(np.pi / 4) * step_tone(cue["step"])
    start = int(round(cue["time"] * SAMPLE_RATE))
    heard = samples[start:start + len(reference)].mean(axis=1)
    reference = reference[:len(heard)]
    return float(20 * np.log10(np.dot(heard, reference) / np.dot(reference, reference)))


def test_a_step_tone_is_equally_loud_in_every_section(lecture):
    """One gain structure: the mastering gain, measured on every step tone, is the same in every section
    within 1 dB of the lecture's median."""
    gains = {section: np.median([step_gain_db(samples, cue) for cue in entry["cues"] if cue["kind"] == "step"])
             for section, entry, samples in sections(lecture)}
    middle = np.median(list(gains.values()))
    assert all(abs(gain - middle) <= 1.0 for gain in gains.values()), gains


WINDOW = 0.4  # seconds: BS.1770 momentary loudness
QUIET = -60.0  # dBFS RMS: the track before an isolated cue, nothing else sounding
LONGEST_LOOK = 1.0  # seconds after a cue at most where its loudest moment is sought


def cue_loudness(samples: np.ndarray, time: float, next_time: float) -> float | None:
    """The loudest momentary loudness (400 ms windows, 100 ms hops) of the rendered track from a cue's time up to
    the next cue's (or LONGEST_LOOK): the cue's own sound, as heard. None when the cue is not heard alone: another
    sound still rings in the quarter second before it, or the next cue comes within 400 ms."""
    at = int(round(time * SAMPLE_RATE))
    before = samples[max(0, at - SAMPLE_RATE // 4):at]
    if len(before) == 0 or 20 * np.log10(np.sqrt(np.mean(before**2)) + 1e-12) > QUIET:
        return None
    meter, size = pyloudnorm.Meter(SAMPLE_RATE), int(WINDOW * SAMPLE_RATE)
    starts = np.arange(time, min(time + LONGEST_LOOK, next_time - WINDOW) + 1e-9, 0.1)
    levels = [meter.integrated_loudness(samples[int(round(start * SAMPLE_RATE)):][:size]) for start in starts]
    levels = [level for level in levels if np.isfinite(level)]
    return max(levels) if levels else None


def test_data_sounds_sit_about_6_lu_above_the_step_tones(lecture, heard_sections):
    """Measured on the decoded audio of every section's video: at each cue heard alone (silence before it, the next
    cue at least 400 ms later), the loudest momentary loudness of the track after it. The median over the data
    sounds is 6 +- 2 LU above the median over the step and reset tones."""
    loudness = {"step": [], "data": []}
    for section, entry in lecture[1]["sections"].items():
        samples, rate = heard_sections[section]
        assert rate == SAMPLE_RATE
        times = [cue["time"] for cue in entry["cues"]]
        for index, cue in enumerate(entry["cues"]):
            others = [time for other, time in enumerate(times) if other != index and time >= cue["time"] - 1e-6]
            level = cue_loudness(samples, cue["time"], min(others, default=cue["time"] + LONGEST_LOOK + WINDOW))
            if level is not None:
                loudness["step" if cue["kind"] in ("step", "reset") else "data"].append(level)
    assert len(loudness["step"]) >= 3 * len(SECTION_IDS) and len(loudness["data"]) >= 3 * len(SECTION_IDS), \
        {kind: len(levels) for kind, levels in loudness.items()}
    assert np.median(loudness["data"]) - np.median(loudness["step"]) == pytest.approx(6, abs=2), \
        {kind: np.median(levels) for kind, levels in loudness.items()}


def test_no_section_has_energy_under_200_hz(lecture):
    for section, _, samples in sections(lecture):
        # padded with zeros to a length whose FFT is quick (a prime length is not); the share under 195 Hz is the same
        length = scipy_fft.next_fast_len(len(samples), real=True)
        power = np.abs(scipy_fft.rfft(samples.sum(axis=1), length)) ** 2
        frequencies = np.fft.rfftfreq(length, 1 / SAMPLE_RATE)
        assert power[frequencies < 195].sum() / power.sum() < 0.01, section


def test_the_lecture_plays_each_sections_sound_under_its_picture(lecture, heard):
    """Cross-correlate each section's WAV (its first 20 s) with the decoded lecture around the section's
    video offset: the peak lies within one frame of it (in fact within a millisecond)."""
    out, manifest = lecture
    heard = heard[0].mean(axis=1)
    offset, search = manifest["lecture"]["cards"][0]["duration"], SAMPLE_RATE // 2  # after the title card
    parts = manifest["lecture"]["parts"]
    for name in parts:
        section = read_wav(out / name.replace(".mp4", ".wav")).mean(axis=1)[: 20 * SAMPLE_RATE]
        at = int(round(offset * SAMPLE_RATE))
        window = heard[max(0, at - search): at + len(section) + search]
        correlation = scipy_signal.correlate(window, section, mode="valid", method="fft")
        lag = int(np.argmax(correlation)) - (at - max(0, at - search))
        assert abs(lag) / SAMPLE_RATE <= 1 / FPS and abs(lag) <= SAMPLE_RATE // 1000, (name, lag)
        offset += video_duration(out / name)
    assert len(parts) == len(SECTION_IDS)
