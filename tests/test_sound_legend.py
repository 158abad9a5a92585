"""One sound language (issue 44): every section's cues go through one legend, measured on the synthesized samples.

A quantity sounds alike in every kind that carries it: which token is a rung of one ladder (a one-hot row, an
attention line, the sentence's arpeggio and the capital's distribution put key j at one pitch), a value one pitch
on one scale (a cell, a vector's length, a scale's ends, a curve, the loss: 600 x 4^share Hz, the documented
formula written here), an attention weight loudness and never pitch. Every note of every cue of every section
lies at or above 250 Hz; within a step the step markers, the values, the weights (the heads among them) keep registers
apart (the measured ranges of their fundamentals do not overlap). Pitches are spectral peaks (test_sound_scales),
the fundamentals of a cue those of each 100 ms of it."""

from __future__ import annotations

import re

import numpy as np
import pyloudnorm
import pytest
from scipy.signal import butter, find_peaks, sosfilt

from lesson.sections import SECTION_IDS
from scene_checks import shared_scene
from sonify.legend import KIND_REGISTER, TIMBRE_APART
from sonify.mappings import MAPPINGS, heads_turn
from sonify.synth import SAMPLE_RATE
from test_sound_scales import cents, pitch

LOWEST = 250.0  # Hz: a laptop speaker plays what is above
TOKEN_RUNGS = [0, 2, 4, 7, 9, 11, 13, 15, 17, 20]  # the token ladder's rungs from 330 Hz (docs/sound.md)


def rung(j: int) -> float:
    return 330.0 * 2 ** (TOKEN_RUNGS[j % 10] / 12)


def one_hot(j: int, count: int = 7) -> list[float]:
    return [1.0 if k == j else 0.0 for k in range(count)]


TOKEN_KINDS = {  # the sound of key j alone, in each kind that says which token
    "row": lambda j: MAPPINGS["row"](weights=one_hot(j)),
    "sum_row": lambda j: MAPPINGS["sum_row"](weights=one_hot(j)),
    "masked": lambda j: MAPPINGS["masked"](before=one_hot(j), after=one_hot(j)),
    "connection": lambda j: MAPPINGS["connection"](weight=0.3, peak=0.6, key=j, temperature=1.0),
    "tokens": lambda j: MAPPINGS["tokens"](count=7)[int((0.08 * j + 0.01) * SAMPLE_RATE):][:int(0.07 * SAMPLE_RATE)],
}


@pytest.mark.parametrize("kind", TOKEN_KINDS)
@pytest.mark.parametrize("key", [0, 1, 3, 4, 5, 6])
def test_which_token_is_one_rung_of_one_ladder_in_every_kind(kind, key):
    assert abs(cents(pitch(TOKEN_KINDS[kind](key)), rung(key))) < 15


def test_the_capitals_words_stand_on_the_ladders_first_rungs():
    """París is key 0, Roma key 1 (each alone in its chord), as any other row's first two keys."""
    for j in (0, 1):
        weights = [0.0] * 8
        weights[j] = 1.0
        assert abs(cents(pitch(MAPPINGS["distribution"](weights=weights)), rung(j))) < 15


@pytest.mark.parametrize("weight", [0.05, 0.3, 0.9])
def test_an_attention_weight_is_never_pitch(weight):
    """An attention line's pitch is its key's rung, whatever its weight (it was 200 + 600 alpha Hz)."""
    assert abs(cents(pitch(MAPPINGS["connection"](weight=weight, peak=0.9, key=2, temperature=1.0)), rung(2))) < 15


VALUE_KINDS = {  # the sound of the value at share s of its range
    "cell": lambda share: MAPPINGS["cell"](value=share, low=0.0, high=1.0),
    "vector_sum": lambda share: MAPPINGS["vector_sum"](x_plus_pe=[3.0 * share, 0.0]),
    "values": lambda share: MAPPINGS["values"](values=[share], spacing=0.2, low=0.0, high=1.0),
    "curve": lambda share: MAPPINGS["curve"](values=[share] * 4 + [0.0, 1.0], duration=2.0)[:int(0.8 * SAMPLE_RATE)],
    "loss": lambda share: MAPPINGS["loss"](losses=[share * np.log(8)] * 4, guess=np.log(8),
                                           duration=1.0)[:int(0.8 * SAMPLE_RATE)],
}


@pytest.mark.parametrize("kind", VALUE_KINDS)
@pytest.mark.parametrize("share", [0.0, 0.5])
def test_a_value_is_one_pitch_on_one_scale_in_every_kind(kind, share):
    assert abs(cents(pitch(VALUE_KINDS[kind](share)), 600 * 4**share)) < 15


def test_a_scales_two_ends_are_the_values_ends():
    sound = MAPPINGS["scale"]()
    assert abs(cents(pitch(sound, 0.0, 0.14), 600)) < 15 and abs(cents(pitch(sound, 0.18, 0.32), 2400)) < 15


FRAME, FLOOR_DB, QUIET_DB = int(0.1 * SAMPLE_RATE), -20.0, -30.0


def fundamentals(sound: np.ndarray) -> np.ndarray:
    """The notes of each 100 ms (50 ms apart) within 30 dB of the sound's loudest: the spectral peaks within 20 dB of
    the frame's strongest, less those at a whole multiple (within 1.5 %) of a lower one (its harmonics)."""
    mono = sound.mean(axis=1) if sound.ndim == 2 else sound
    frames = [mono[start:start + FRAME] for start in range(0, max(1, len(mono) - FRAME + 1), FRAME // 2)]
    energies = np.array([np.sum(frame ** 2) for frame in frames])
    found: set[float] = set()
    frequencies = np.fft.rfftfreq(1 << 14, 1 / SAMPLE_RATE)
    for frame, energy in zip(frames, energies):
        if energy < energies.max() * 10 ** (QUIET_DB / 10):
            continue
        magnitudes = np.abs(np.fft.rfft(frame * np.hanning(len(frame)), 1 << 14))
        peaks, _ = find_peaks(magnitudes, height=magnitudes.max() * 10 ** (FLOOR_DB / 20))
        notes: list[float] = []
        for frequency in frequencies[peaks]:
            if not any(round(frequency / note) >= 2 and abs(frequency / note - round(frequency / note)) < 0.015
                       * frequency / note for note in notes):
                notes.append(float(frequency))
        found.update(notes)
    return np.array(sorted(found))


def step_of(scene, time: float) -> str:
    return next(step.key for step in reversed(scene.steps) if step.start <= time + 1e-9)


def registers_heard(cue) -> list[tuple[str, np.ndarray]]:
    """(register, the fundamentals measured) of a cue's sound; a heads cue's three heads one at a time."""
    sound = MAPPINGS[cue.kind](**cue.values)
    if cue.kind in ("heads_overlay", "heads_chord"):
        beat = int(heads_turn(cue.kind) * SAMPLE_RATE)
        return [(KIND_REGISTER[cue.kind], fundamentals(sound[head * beat:(head + 1) * beat])) for head in range(3)]
    return [(KIND_REGISTER[cue.kind], fundamentals(sound))] if cue.kind in KIND_REGISTER else []


@pytest.mark.parametrize("section", SECTION_IDS)
def test_every_note_is_above_250_hz_and_kinds_keep_their_registers_apart_in_a_step(section):
    """Within each step, the ranges of the fundamentals each register group sounds (the markers, the values, the
    weights, the heads' rows on the weights' token ladder) do not overlap: a step tone never sounds like a value (but
    for the weights' second octave, ``TIMBRE_APART``)."""
    scene = shared_scene(section)
    heard: dict[str, dict[str, list[float]]] = {}
    for cue in scene.cues:
        for register, found in registers_heard(cue):
            assert found.min() >= LOWEST, (cue.kind, cue.time, found.min())
            heard.setdefault(step_of(scene, cue.time), {}).setdefault(register, []).extend(found)
    clashes = []
    for step, registers in heard.items():
        spans = sorted((min(found), max(found), name) for name, found in registers.items())
        clashes += [(step, name, other) for (_, high, name), (low, _, other) in zip(spans, spans[1:])
                    if low <= high and frozenset({name, other}) not in TIMBRE_APART]
    assert heard and clashes == [], clashes


def test_the_permutations_pairs_climb_the_ladder_not_one_pitch_six_times():
    """Positional's permutation compares the rows of each token as they land: each pair's unison on its row's rung
    (six identical 330 Hz unisons 1.6 s apart before), so two pairs in a row never share a pitch."""
    scene = shared_scene("positional")
    pairs = [cue for cue in scene.cues if cue.kind == "outputs_compared" and "row" in cue.values]
    heard = [pitch(MAPPINGS[cue.kind](**cue.values)[:, 0]) for cue in pairs]  # the left voice
    assert len(pairs) >= 5
    assert all(abs(cents(found, rung(cue.values["row"]))) < 15 for cue, found in zip(pairs, heard)), heard
    assert all(abs(cents(first, second)) > 100 for first, second in zip(heard, heard[1:])), heard


LAPTOP = 400.0  # Hz: a laptop speaker's low end, as a 4th-order Butterworth high-pass
LAPTOP_LOSS = 6.0  # LU at most: a 220 Hz blip lost 10


@pytest.mark.parametrize("section", SECTION_IDS)
def test_every_cue_keeps_its_loudness_on_a_laptop_speaker(section):
    """Every cue's momentary loudness (pyloudnorm, 400 ms windows) through a 400 Hz high-pass, against without it:
    a note under the speaker's band is heard by its harmonics, not lost."""
    meter = pyloudnorm.Meter(SAMPLE_RATE)
    speaker = butter(4, LAPTOP, "highpass", fs=SAMPLE_RATE, output="sos")
    window, hop = int(0.4 * SAMPLE_RATE), int(0.1 * SAMPLE_RATE)

    def loudest(sound: np.ndarray) -> float:
        padded = np.concatenate([sound, np.zeros((window, 2))])
        return max(meter.integrated_loudness(padded[start:start + window])
                   for start in range(0, len(padded) - window + 1, hop))

    lost = {}
    for cue in shared_scene(section).cues:
        sound = MAPPINGS[cue.kind](**cue.values)
        sound = sound if sound.ndim == 2 else np.column_stack([sound, sound])
        lost[cue.kind] = max(lost.get(cue.kind, 0.0), loudest(sound) - loudest(sosfilt(speaker, sound, axis=0)))
    assert max(lost.values()) <= LAPTOP_LOSS, lost


def test_no_narration_says_a_weight_sounds_higher():
    """The legend: a weight is loudness, the token its pitch. The pipeline's voice said the lines sound «más aguda y
    fuerte cuanto más pesa» while the heaviest key could be the lowest note (the sound review)."""
    from lesson.locale import load_locale

    higher = {"es": re.compile(r"más agud\w*[^.]*cuanto más pes"), "en": re.compile(r"higher[^.]*the more it weighs")}
    for lang, pattern in higher.items():
        locale = load_locale(lang)
        said = [text for section in locale.values() if isinstance(section, dict)
                for step in section.get("steps", {}).values() if isinstance(step, dict)
                for name, text in step.items() if name.startswith("narration") and isinstance(text, str)]
        assert said and not [text for text in said if pattern.search(text)], lang
