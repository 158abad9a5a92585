"""Cue levels set against speech, measured on the rendered, mastered audio (decoded from the video, never
re-synthesized): a clip of the scaling section (spread and growing: eight deviations' blips, then three softmax
rows from flat to nearly one-hot, both steps narrated at length) rendered tiny with and without the draft voice.

Loudness is ITU-R BS.1770 as pyloudnorm measures it (momentary: the loudest 400 ms window, 100 ms hops). The
speech reference is the loudness target (``audio.loudness``, -16 LUFS): without a voice the data cues sit about
6 LU under it (a row's chord is louder the more it is one-hot: none comes within 2 LU of speech), and with the
draft voice the voice sits at it and every cue keeps the same absolute level; a
narrated step's key cue (its last data cue) sounds after the voice has ended, at that same level."""

import json

import av
import numpy as np
import pyloudnorm
import pytest
from scipy import signal as scipy_signal

from media_checks import QUIET, rendered_once
from scenes.lesson_scene import Cue
from sonify.replay import key_cues

TARGET = -16.0  # assets/default.toml: audio.loudness, the speech level
UNDER_SPEECH = 6.0  # LU: the data cues' momentary loudness under it
CLIP = ("render", "scaling", "--steps", "spread..growing", "--resolution", "128x72", "--fps", "5", *QUIET,
        "-j", "1")
NOT_DATA = ("step", "reset", "scale")
RATE = 48000
WINDOW, HOP = 0.4, 0.1  # seconds: BS.1770 momentary loudness
DUCK_RAMP = 0.08  # seconds the ducked tones take to come back after a voice (docs/narration.md: 80 ms ramps)


def rendered(tmp_path_factory, name: str, *more: str):
    out, result = rendered_once(tmp_path_factory, name, *CLIP, *more, timeout=600)
    assert result.returncode == 0, result.stderr
    entry = next(iter(json.loads((out / "manifest.json").read_text())["clips"].values()))
    with av.open(str(out / entry["files"][0])) as container:
        frames = list(container.decode(audio=0))
    samples = np.concatenate([frame.to_ndarray() for frame in frames], axis=1).T.astype(float)
    assert frames[0].sample_rate == RATE
    return entry, samples


@pytest.fixture(scope="module")
def silent(tmp_path_factory):
    return rendered(tmp_path_factory, "scaling-levels-silent")


@pytest.fixture(scope="module")
def spoken(tmp_path_factory):
    return rendered(tmp_path_factory, "scaling-levels-tts", "--narration", "tts")


METER = pyloudnorm.Meter(RATE)


def momentary(samples: np.ndarray, start: float, latest: float) -> float:
    """The loudest momentary loudness of windows starting from ``start`` to ``latest`` seconds."""
    size, levels = int(WINDOW * RATE), []
    for at in np.arange(start, max(start, latest) + 1e-9, HOP):
        window = samples[int(round(at * RATE)):][:size]
        if len(window) == size and window.any():
            levels.append(METER.integrated_loudness(window))
    return max(levels, default=float("-inf"))


def cue_level(entry: dict, samples: np.ndarray, cue: dict) -> float:
    """The cue's loudest moment: windows starting at its time up to 1 s later or up to 400 ms before the next cue."""
    later = [other["time"] for other in entry["cues"] if other["time"] > cue["time"] + 1e-6]
    return momentary(samples, cue["time"], min([cue["time"] + 1.0, *(time - WINDOW for time in later)]))


def data_cues(entry: dict) -> list[dict]:
    return [cue for cue in entry["cues"] if cue["kind"] not in NOT_DATA]


def voice_spans(entry: dict) -> list[tuple[float, float]]:
    return [(step["narration"]["start"], step["narration"]["start"] + step["narration"]["seconds"])
            for step in entry["steps"] if "seconds" in step.get("narration", {})]


def values_of(cue: dict) -> dict:
    return {name: value for name, value in cue.items() if name not in ("time", "replay", "listen")}


def true_peak(samples: np.ndarray) -> float:
    return float(20 * np.log10(max(np.abs(scipy_signal.resample_poly(channel, 4, 1)).max() for channel in samples.T)))


def test_without_a_voice_the_data_cues_sit_about_6_lu_under_speech_at_the_target(silent):
    """The track is not normalised to -16 LUFS integrated (it is mostly silence, and that put every cue louder
    than a voice): its integrated loudness is well under the target, its cues 6 LU under it, none above it."""
    entry, samples = silent
    levels = [cue_level(entry, samples, cue) for cue in data_cues(entry)]
    assert len(levels) >= 10
    assert np.median(levels) == pytest.approx(TARGET - UNDER_SPEECH, abs=1.5), levels
    assert max(levels) <= TARGET - 2, levels
    assert METER.integrated_loudness(samples + 1e-10) < TARGET - 4
    assert true_peak(samples) <= -1.5


def test_with_the_draft_voice_the_voice_sits_at_the_target_and_the_cues_keep_their_level(silent, spoken):
    """The voice (its spans, where the cues are ducked 14 dB) at -16 LUFS integrated; every data cue heard
    outside the voice as loud as the same cue without a voice (one absolute cue level), so 6 LU under it."""
    entry, samples = spoken
    spans = voice_spans(entry)
    assert len(spans) == 2
    voice = np.concatenate([samples[int(start * RATE):int(end * RATE)] for start, end in spans])
    speech = METER.integrated_loudness(voice)
    assert speech == pytest.approx(TARGET, abs=1.0)
    silent_entry, silent_samples = silent
    outside = [cue for cue in data_cues(entry) if not any(start - 0.5 <= cue["time"] <= end + DUCK_RAMP
                                                         for start, end in spans)]
    assert len(outside) >= 8
    levels = [cue_level(entry, samples, cue) for cue in outside]
    for cue, level in zip(outside, levels):
        twin = next(other for other in data_cues(silent_entry) if values_of(other) == values_of(cue))
        assert level == pytest.approx(cue_level(silent_entry, silent_samples, twin), abs=1.0), cue["kind"]
        assert level <= speech - 2, cue["kind"]
    assert np.median(levels) - speech == pytest.approx(-UNDER_SPEECH, abs=1.5)
    assert true_peak(samples) <= -1.5


def test_every_narrated_step_has_its_key_cue_at_full_level_in_the_clear(silent, spoken):
    """Each spoken step's last data cue sounds as loud as that cue without a voice, in the clear: in a listening
    moment (the voice stopped for it: no phrase overlaps it) or replayed after the voice has ended (and the ducking
    come back), before the step ends, after it had sounded under the voice (ducked)."""
    entry, samples = spoken
    silent_entry, silent_samples = silent
    narrated = [step for step in entry["steps"] if "seconds" in step.get("narration", {})]
    assert len(narrated) == 2
    for step in narrated:
        voice_end = step["narration"]["start"] + step["narration"]["seconds"]
        own = [cue for cue in data_cues(entry) if step["start"] <= cue["time"] < step["end"]]
        key = own[-1]
        twin = next(other for other in data_cues(silent_entry) if values_of(other) == values_of(key))
        full = cue_level(silent_entry, silent_samples, twin)
        assert cue_level(entry, samples, key) == pytest.approx(full, abs=1.0), step["key"]
        if key.get("listen"):
            assert any(begin <= key["time"] <= end for begin, end in step["narration"]["listening"]), step["key"]
            assert not [text for text, begin, end, _ in step["narration"]["phrases"]
                        if begin - DUCK_RAMP < key["time"] < end + DUCK_RAMP], step["key"]
        else:
            assert voice_end + DUCK_RAMP <= key["time"] < step["end"], step["key"]
            under = [cue for cue in own if values_of(cue) == values_of(key) and cue["time"] < voice_end]
            assert under, step["key"]


def test_the_replay_repeats_only_what_the_finished_picture_shows():
    """Computed cells stay written: the step's cells sound again (as many as fit in 5 s, the latest). A row's bars
    are redrawn in place: only the last row, with a row heard back to back with it (two panels compared)."""
    cells = [Cue(float(t), "cell", {"value": float(t), "low": 0.0, "high": 20.0}) for t in range(20)]
    assert [cue.time for cue in key_cues(cells)] == [float(t) for t in range(20 - len(key_cues(cells)), 20)]
    assert 8 <= len(key_cues(cells)) <= 12
    rows = [Cue(t, "row", {"weights": [0.25] * 4, "version": version})
            for t, version in ((10.0, "unscaled"), (11.2, "scaled"), (14.0, "unscaled"), (15.2, "scaled"))]
    assert key_cues(rows) == rows[2:]
    assert key_cues([*rows, Cue(16.0, "step", {"step": 3})]) == rows[2:]
    apart = [Cue(t, "row", {"weights": [0.25] * 4}) for t in (1.0, 5.0, 9.0)]
    assert key_cues(apart) == apart[2:]
    # a matrix's rows each heard as they came: the one the scene marks (the query's) is replayed, not the last
    marked = [Cue(t, "values", {"values": [0.0, 1.0], "spacing": 0.2, **({"replayed": True} if t == 5.0 else {})})
              for t in (1.0, 5.0, 9.0)]
    assert key_cues(marked) == [marked[1]]
    assert key_cues([*marked, Cue(12.0, "row", {"weights": [0.5, 0.5]})])[-1].kind == "row"  # a later kind wins
