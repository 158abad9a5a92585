"""Levels independent of the data's shape (issue 44): every cue of every section, rendered alone through the
soundtrack's whole chain (levels, room, limiter, 16-bit WAV), reaches its kind's momentary loudness within 1.5 LU,
whatever its row looks like (one-hot or flat, one voice or seven); no section's track passes -18 LUFS momentary.

Loudness is ITU-R BS.1770 as pyloudnorm measures it: momentary, the loudest 400 ms window, 100 ms hops. The levels
expected are the documented ones (docs/sound.md), written here: data cues 6 LU under speech at the -16 LUFS target,
the sentence's arpeggios and a scale's ends 3 LU softer, the step markers 6 LU softer; an attention line as loud as
its weight's share of its row's largest (20 log10(alpha / peak) dB, -60 dB at the faintest)."""

from dataclasses import replace

import numpy as np
import pyloudnorm
import pytest

from lesson.sections import SECTION_IDS
from scene_checks import shared_scene
from scenes.lesson_scene import Cue
from sonify.mappings import MAPPINGS, write_soundtrack
from sonify.mix import read_wav
from sonify.synth import SAMPLE_RATE

TARGET = -16.0  # assets/default.toml: audio.loudness
DATA = TARGET - 6
SOFT, MARKERS = DATA - 3, DATA - 6
KIND_LEVEL = {"step": MARKERS, "reset": MARKERS, "cost": MARKERS, "scale": SOFT, "tokens": SOFT, "concat": SOFT}
TOLERANCE = 1.5  # LU
LOUDEST = -18.0  # LUFS momentary: no cue, and no moment of a track, above it
METER = pyloudnorm.Meter(SAMPLE_RATE)
WINDOW, HOP = int(0.4 * SAMPLE_RATE), int(0.1 * SAMPLE_RATE)


def momentary(samples: np.ndarray) -> float:
    """The loudest 400 ms window (100 ms hops) of ``samples``, each window as pyloudnorm measures it."""
    padded = np.concatenate([samples, np.zeros((WINDOW, 2))])
    return max(METER.integrated_loudness(padded[start:start + WINDOW])
               for start in range(0, len(padded) - WINDOW + 1, HOP))


def expected(cue) -> float:
    if cue.kind == "connection":
        share = cue.values["weight"] / cue.values.get("peak", 1.0)
        return DATA + 20 * np.log10(max(share, 1e-3))
    return KIND_LEVEL.get(cue.kind, DATA)


def heard_alone(cue, folder) -> float:
    """The cue's momentary loudness in a soundtrack of its own (its sound and a second of room after it)."""
    seconds = len(MAPPINGS[cue.kind](**cue.values)) / SAMPLE_RATE + 1.0
    path = folder / "cue.wav"
    write_soundtrack([replace(cue, time=0.0)], seconds, TARGET, path)
    return momentary(read_wav(path))


@pytest.mark.parametrize("section", SECTION_IDS)
def test_every_cue_sounds_at_its_kinds_level(section, tmp_path):
    scene = shared_scene(section)
    wrong = []
    for cue in scene.cues:
        level = heard_alone(cue, tmp_path)
        if abs(level - expected(cue)) > TOLERANCE or level > LOUDEST:
            wrong.append((cue.kind, round(cue.time, 2), round(level, 1), round(expected(cue), 1)))
    assert scene.cues and not wrong, wrong


SHAPES = {  # rows of one distribution: one-hot, peaked, flat
    "one-hot": [1.0, 0, 0, 0, 0, 0, 0],
    "peaked": [0.6, 0.2, 0.1, 0.05, 0.03, 0.01, 0.01],
    "flat": [1 / 7] * 7,
}
CUES = {
    "row": lambda row: {"weights": row},
    "sum_row": lambda row: {"weights": row},
    "head_row": lambda row: {"head": 1, "weights": row},
    "distribution": lambda row: {"weights": [row[0], row[1], *row[2:], 0.0]},
    "masked": lambda row: {"before": [1 / 7] * 7, "after": row},
    "entropy": lambda row: {"free": [row], "masked": [row], "rows": [0]},
    "heads_chord": lambda row: {"weights": [row, SHAPES["flat"], SHAPES["one-hot"]]},
}


@pytest.mark.parametrize("kind", CUES)
def test_a_one_hot_row_and_a_flat_one_sound_equally_loud(kind, tmp_path):
    """The issue's numbers: a one-hot row at -19.5 LUFS, a flat one at -27.5; the 0-bit entropy tone at -13."""
    levels = {shape: heard_alone(Cue(0.0, kind, CUES[kind](row)), tmp_path) for shape, row in SHAPES.items()}
    assert all(abs(level - DATA) <= TOLERANCE for level in levels.values()), levels


@pytest.mark.parametrize("section", SECTION_IDS)
def test_no_moment_of_a_section_passes_minus_18_lufs(section, tmp_path):
    scene = shared_scene(section)
    path = tmp_path / f"{section}.wav"
    write_soundtrack(scene.cues, scene.renderer.time, TARGET, path)
    assert momentary(read_wav(path)) <= LOUDEST
