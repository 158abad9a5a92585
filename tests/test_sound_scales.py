"""One scale per quantity and chords without beating notes (issue 30), measured on the synthesized samples.

A value sounds at one pitch wherever it appears in a section (capital: X, Q, K, V and the context share one
scale); the deviation of q . k climbs by one interval per doubling of d_k; no chord holds two notes closer than a
whole tone. Pitches and notes come from the samples' spectrum (numpy's FFT), never from the code's frequency
lists; the expected pitches are the documented formula written here.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import find_peaks

from attn_math.attention import self_attention
from attn_math.positional import angular_frequencies
from attn_math.scaling import score_deviation
from attn_math.worked_example import PRESETS
from scene_checks import shared_scene
from sonify.mappings import MAPPINGS, pulses, shared_scale
from sonify.synth import SAMPLE_RATE

CENTS_SAME = 3.0  # two measured pitches this close are one pitch (the FFT's precision on a 0.14 s blip is < 1 cent)
WHOLE_TONE_CENTS = 200.0
FUSED_HZ = 3.0  # two partials closer than this beat slower than 3 Hz: one note that swells, not roughness


def cents(a, b) -> np.ndarray:
    return 1200 * np.log2(np.asarray(a, dtype=float) / np.asarray(b, dtype=float))


def spectrum(sound: np.ndarray, start: float = 0.0, end: float | None = None):
    """Frequencies and magnitudes of the mono mix of ``sound`` between ``start`` and ``end`` seconds (Hann
    window, zero-padded to 2^18 points: 0.18 Hz bins)."""
    mono = sound.mean(axis=1) if sound.ndim == 2 else sound
    part = mono[int(start * SAMPLE_RATE): None if end is None else int(end * SAMPLE_RATE)]
    size = 1 << 18
    return np.fft.rfftfreq(size, 1 / SAMPLE_RATE), np.abs(np.fft.rfft(part * np.hanning(len(part)), size))


def pitch(sound: np.ndarray, start: float = 0.0, end: float | None = None) -> float:
    """The strongest spectral peak (a triangle's fundamental is 19 dB over its third harmonic), refined by a
    parabola through the peak bin and its neighbours."""
    frequencies, magnitudes = spectrum(sound, start, end)
    k = int(np.argmax(magnitudes))
    a, b, c = np.log(magnitudes[k - 1: k + 2])
    return float(frequencies[k] + 0.5 * (a - c) / (a - 2 * b + c) * (frequencies[1] - frequencies[0]))


def notes(sound: np.ndarray, floor_db: float = -30.0) -> np.ndarray:
    """The notes of a chord: its spectral peaks within ``floor_db`` of the strongest, less those that are a
    harmonic (2x, 3x, ... within 1 %) of a lower note, partials closer than FUSED_HZ counted once."""
    frequencies, magnitudes = spectrum(sound)
    peaks, _ = find_peaks(magnitudes, height=magnitudes.max() * 10 ** (floor_db / 20))
    found: list[float] = []
    for frequency in frequencies[peaks]:
        if found and frequency - found[-1] < FUSED_HZ:
            continue
        if any(abs(frequency / note - round(frequency / note)) < 0.01 * frequency / note
               for note in found if round(frequency / note) >= 2):
            continue
        found.append(float(frequency))
    return np.array(found)


def closest_pair_cents(sound: np.ndarray) -> float:
    found = notes(sound)
    return float(np.min(cents(found[1:], found[:-1]))) if len(found) > 1 else np.inf


@pytest.fixture(scope="module")
def capital():
    return shared_scene("capital")


def step_of(scene, time: float) -> str:
    return next(step.key for step in reversed(scene.steps) if step.start <= time + 1e-9)


def test_capital_values_of_x_q_k_v_and_the_context_sound_on_one_scale(capital):
    """Every blip of X's, Q's, K's and V's country column and of the context sounds at 600 x 4^share Hz with
    share over the range of all five: the same value at the same pitch in any of them."""
    walk = capital.walk
    everything = np.concatenate([np.ravel(m) for m in (walk.X, walk.Q, walk.K, walk.V, walk.context)])
    low, high = everything.min(), everything.max()
    expected = lambda value: 600 * 4 ** ((value - low) / (high - low))
    heard = []  # (value, measured pitch)
    for cue in capital.cues:
        step = step_of(capital, cue.time)
        if step not in ("positional", "projections", "context"):
            continue
        sound = MAPPINGS[cue.kind](**cue.values)
        if cue.kind == "cell":
            heard.append((cue.values["value"], pitch(sound)))
        elif cue.kind == "values":  # blips `spacing` apart: each measured before the next begins
            spacing = cue.values["spacing"]
            heard += [(value, pitch(sound, k * spacing + 0.015, (k + 1) * spacing))
                      for k, value in enumerate(cue.values["values"])]
    values, pitches = np.array(heard).T
    # X's column, Q's, K's, V's but its last row, V's whole column (heard as V's last row lands, since review s14:
    # the step no longer ends on 4 s of a still screen after the voice), the context
    assert len(values) == 5 + 3 * 5 - 1 + 5 + 3
    measured_error = np.abs(cents(pitches, expected(values)))
    assert measured_error.max() < 15, sorted(zip(values, measured_error))
    for value in np.unique(np.round(values, 9)):  # one value, one pitch
        same = pitches[np.isclose(values, value, atol=1e-9)]
        assert np.ptp(cents(same, same[0])) < 15


def test_matrix_value_2_sounds_alike_in_q_and_k_on_the_shared_scale():
    """The issue's example: 2 in Q and 2 in K were 554 Hz and 880 Hz on each matrix's own range; on the
    projections' shared scale both are one pitch, the pitch of the formula over X, Q, K, V and Z."""
    result = self_attention(**vars(PRESETS["default"]))
    scale = shared_scale(result.X, result.Q, result.K, result.V, result.output)
    heard = [pitch(MAPPINGS["cell"](value=2.0, **scale)) for _ in ("Q", "K")]
    everything = np.concatenate([np.ravel(m) for m in (result.X, result.Q, result.K, result.V, result.output)])
    share = (2.0 - everything.min()) / np.ptp(everything)
    assert 2 in result.Q and 2 in result.K
    assert np.abs(cents(heard, 600 * 4**share)).max() < CENTS_SAME


def test_the_deviation_against_d_k_climbs_one_interval_per_doubling():
    """On a logarithmic scale the measured deviation (about sqrt(d_k)) rises by the same interval at each
    doubling of d_k: two octaves over 2 ... 512, so a quarter of an octave per doubling, within 15 cents."""
    dimensions = [2**k for k in range(1, 10)]
    deviations = [score_deviation(d_k) for d_k in dimensions]
    scale = shared_scale(deviations, logarithmic=True)
    heard = np.array([pitch(MAPPINGS["cell"](value=deviation, **scale)) for deviation in deviations])
    steps = cents(heard[1:], heard[:-1])
    assert cents(heard[-1], heard[0]) == pytest.approx(2400, abs=CENTS_SAME)
    assert np.abs(steps - 2400 / 8).max() < 15, steps


def test_capital_distribution_chords_hold_no_two_notes_closer_than_a_whole_tone(capital):
    """Every distribution chord the capital section plays (the drag's too): París, Roma and one rest voice."""
    chords = [MAPPINGS["distribution"](**cue.values) for cue in capital.cues if cue.kind == "distribution"]
    assert len(chords) > 10
    closest = [closest_pair_cents(chord) for chord in chords]
    assert min(closest) >= WHOLE_TONE_CENTS - 2, closest


FLAT, PEAKED = [1 / 8] * 8, [0.5, 0.3, 0.05, 0.05, 0.04, 0.03, 0.02, 0.01]
FREQUENCIES = angular_frequencies(16).tolist()
CHORDS = {
    "distribution even": ("distribution", {"weights": [0.125] * 8}),
    "distribution Roma": ("distribution", {"weights": [0.03, 0.37] + [0.1] * 6}),
    "row flat": ("row", {"weights": FLAT}),
    "row peaked": ("row", {"weights": PEAKED}),
    "sum_row": ("sum_row", {"weights": FLAT}),
    "head_row 0": ("head_row", {"head": 0, "weights": [0.2] * 5}),
    "head_row 2": ("head_row", {"head": 2, "weights": [0.2] * 5}),
    "masked": ("masked", {"before": [0.2] * 5, "after": [0.5, 0.5, 0, 0, 0]}),
    **{f"entropy of ({p}, {1 - p:.2f})": ("entropy", {"free": [[p, 1 - p]], "masked": [[1.0, 0.0]], "rows": [0]})
       for p in (0.97, 0.9, 0.8, 0.5)},  # 0.19 to 1 bit: narrow clusters
    "entropy flat 6": ("entropy", {"free": [[1 / 6] * 6], "masked": [[1.0] + [0.0] * 5], "rows": [0]}),
    **{f"outputs differ by {d}": ("outputs_compared", {"max_difference": d}) for d in (0.0, 0.001, 0.05, 0.4)},
    "frequencies": ("frequencies", {"angular_frequencies": FREQUENCIES}),
    "frequency_contrast": ("frequency_contrast", {"angular_frequencies": [FREQUENCIES[0], FREQUENCIES[-1]],
                                                  "values": [[1.0, 1.0], [1.0, 1.0]]}),
}


@pytest.mark.parametrize("name", CHORDS)
def test_no_chord_holds_two_notes_closer_than_a_whole_tone(name):
    """Notes sounding together (one cue's chord; the entropy cue's clusters one at a time) are a whole tone
    apart or more: nothing beats at 10-30 Hz. The token ladders are exactly a whole tone at their closest."""
    kind, values = CHORDS[name]
    sound = MAPPINGS[kind](**values)
    if kind == "entropy":  # its first cluster, before the second starts
        sound = sound[: int(0.9 * SAMPLE_RATE)]
    if kind in ("frequencies", "frequency_contrast"):  # the encoding's six pulses a second are its envelope, not
        envelope = pulses(len(sound) / SAMPLE_RATE)  # notes 6 Hz apart: the notes are what it pulses
        sound = sound[:len(envelope)] / envelope[:len(sound), None]
    assert closest_pair_cents(sound) >= WHOLE_TONE_CENTS - 2, notes(sound)


def test_the_note_finder_sees_a_semitone_cluster():
    """The measure itself: six sines a semitone apart (capital's old other words) are found as six notes."""
    t = np.arange(SAMPLE_RATE) / SAMPLE_RATE
    cluster = sum(np.sin(2 * np.pi * 220 * 2 ** (j / 12) * t) for j in range(6))
    assert closest_pair_cents(cluster) == pytest.approx(100, abs=2)


def power_centroid(sound: np.ndarray) -> float:
    """Power-weighted spectral centroid: sum f |X(f)|^2 / sum |X(f)|^2 of the mono mix."""
    mono = sound.mean(axis=1) if sound.ndim == 2 else sound
    power = np.abs(np.fft.rfft(mono)) ** 2
    return float(np.sum(np.fft.rfftfreq(len(mono), 1 / SAMPLE_RATE) * power) / np.sum(power))


@pytest.mark.parametrize("key", [0, 1, 2, 3, 4])
def test_temperature_timbre_halves_the_power_weighted_centroid_at_equal_pitch(key):
    """One attention line's note at one key (one pitch): cold (T = 0.2) is at least twice as bright as hot
    (T = 3), power-weighted, and brightness falls at every step of T between."""
    sounds = [MAPPINGS["connection"](weight=0.3, key=key, temperature=temperature)
              for temperature in (0.2, 0.5, 1, 2, 3)]
    assert abs(cents(pitch(sounds[0]), pitch(sounds[-1][: len(sounds[0])]))) < 50  # one pitch, hot's detune aside
    centroids = [power_centroid(sound) for sound in sounds]
    assert all(a > b for a, b in zip(centroids, centroids[1:])), centroids
    assert centroids[0] >= 2 * centroids[-1], centroids


def test_capital_sounds_a_scales_two_ends_where_it_starts(capital):
    """Before the first blip of X's column, of the scores and of the logits: the scale's lowest and highest
    pitch, 600 Hz then 2400 Hz, measured; the blips that follow on that scale lie between them."""
    references = [index for index, cue in enumerate(capital.cues) if cue.kind == "scale"]
    assert [step_of(capital, capital.cues[index].time) for index in references] == ["positional", "scores", "logits"]
    for index in references:
        sound = MAPPINGS["scale"](**capital.cues[index].values)
        assert cents(pitch(sound, 0.0, 0.14), 600) == pytest.approx(0, abs=CENTS_SAME)
        assert cents(pitch(sound, 0.18, 0.32), 2400) == pytest.approx(0, abs=CENTS_SAME)
        following = capital.cues[index + 1]
        assert following.kind in ("cell", "values") and following.time >= capital.cues[index].time + 0.32
