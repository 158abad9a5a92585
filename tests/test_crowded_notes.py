"""Attention notes played close together (a narrated step leaves the pipeline's temperature rows 86 ms a note) sound
at their kind's level, like the same notes spaced out: each note is levelled alone, and seven of them inside one
400 ms momentary window summed to 6 LU over it, as loud as the voice (the sound review: -15.9 LUFS)."""

from __future__ import annotations

import numpy as np
import pyloudnorm
import pytest

from scenes.lesson_scene import Cue
from scenes.pipeline_parts.common import NOTE_SPACING
from sonify.mappings import write_soundtrack
from sonify.mix import read_wav
from sonify.synth import SAMPLE_RATE

SPEECH_LUFS = -16.0
ROW = [0.14, 0.15, 0.12, 0.15, 0.15, 0.16, 0.13]  # a lab row of seven tokens: almost equal weights
SPACED = 0.4  # s: one note per momentary window


def loudest_momentary(path) -> float:
    """The largest BS.1770 loudness of any 400 ms window, 100 ms apart."""
    samples, meter = read_wav(path), pyloudnorm.Meter(SAMPLE_RATE, block_size=0.4)
    window, hop = int(0.4 * SAMPLE_RATE), int(0.1 * SAMPLE_RATE)
    return max(meter.integrated_loudness(samples[start:start + window])
               for start in range(0, len(samples) - window, hop))


def row_loudness(tmp_path, temperature: float, spacing: float) -> float:
    cues = [Cue(0.5 + (k + 1) * spacing, "connection", {"weight": weight, "temperature": temperature,
                                                        "peak": max(ROW), "key": k, "spacing": spacing})
            for k, weight in enumerate(ROW)]
    path = tmp_path / f"row-{temperature}-{spacing}.wav"
    write_soundtrack(cues, 0.5 + 8 * spacing + 1.5, SPEECH_LUFS, path)
    return loudest_momentary(path)


@pytest.mark.parametrize("temperature", [0.2, 1.0, 3.0])
def test_a_row_of_close_notes_sounds_as_loud_as_the_same_row_spaced_out(tmp_path, temperature):
    crowded = row_loudness(tmp_path, temperature, NOTE_SPACING + 0.006)  # the narrated pipeline's 86 ms
    spaced = row_loudness(tmp_path, temperature, SPACED)
    assert abs(crowded - spaced) <= 1.5, (crowded, spaced)
    assert crowded <= -18.0
