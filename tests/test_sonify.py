"""The synthesizer, the mappings and the mastering, measured on the signals they produce (FFT, RMS,
spectral centroid, ITU-R BS.1770 loudness with pyloudnorm, true peak by 4x oversampling)."""

import tempfile
import wave
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
from scipy import signal as scipy_signal
from scipy.ndimage import minimum_filter1d, uniform_filter1d

from lesson.sections import SECTIONS
from scenes.lesson_scene import Cue
from sonify.mappings import (MAPPINGS, connection_note, distribution_chord, encoding_pitch, followed,
                             placed, reset_tone, staggered, step_tone, value_blip, write_soundtrack)
from sonify.mix import (CEILING_DBTP, CUES_UNDER_SPEECH, LIMITER_AHEAD, in_room, LIMITER_BEHIND, PEAK_BLOCK,
                        Timeline, cue_gain_db, limited_blocks, loudness, read_wav, sample_peaks, write_wav_blocks)
from sonify.synth import (SAMPLE_RATE, chord, envelope, glide, low_pass, organ_wave, pan, saw_wave, seconds,
                          sine_wave, tone, triangle_wave)


PCM_STEP = 1 / 32767  # a 16-bit WAV's step between two values


def soundtrack(cues, duration: float, loudness_lufs: float) -> np.ndarray:
    """The section soundtrack the product writes (``write_soundtrack``) for ``cues``, read back from its WAV."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "track.wav"
        write_soundtrack(cues, duration, loudness_lufs, path)
        return read_wav(path)


def limit(samples: np.ndarray) -> np.ndarray:
    """``samples`` through the limiter, block by block as ``write_soundtrack`` runs it."""
    return np.concatenate([block for _, block in limited_blocks(samples)])


def mono(signal: np.ndarray) -> np.ndarray:
    return signal.sum(axis=1) if signal.ndim == 2 else signal


def pitch(signal: np.ndarray) -> float:
    """Dominant frequency with 0.1 Hz resolution (zero-padded FFT)."""
    signal = mono(signal)
    spectrum = np.abs(np.fft.rfft(signal * np.hanning(len(signal)), n=10 * SAMPLE_RATE))
    return np.argmax(spectrum) / 10


def centroid(signal: np.ndarray) -> float:
    """Spectral centroid: sum f |X(f)| / sum |X(f)|."""
    spectrum = np.abs(np.fft.rfft(mono(signal)))
    frequencies = np.fft.rfftfreq(len(mono(signal)), 1 / SAMPLE_RATE)
    return float(np.sum(frequencies * spectrum) / np.sum(spectrum))


def rms(signal: np.ndarray) -> float:
    return float(np.sqrt(np.mean(signal**2)))


def db(ratio: float) -> float:
    return float(20 * np.log10(ratio))


def measured_loudness(samples: np.ndarray) -> float:
    return pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(samples)


def true_peak(samples: np.ndarray) -> float:
    """dBTP measured independently of the code: resample 4x with scipy's FFT resampler, take the peak."""
    return db(np.abs(scipy_signal.resample(samples, 4 * len(samples), axis=0)).max())


@pytest.mark.parametrize("wave_shape", [sine_wave, triangle_wave, organ_wave, saw_wave])
def test_oscillators_sound_at_their_frequency_with_peak_one(wave_shape):
    signal = tone(440.0, 0.5, wave_shape)
    assert pitch(signal) == pytest.approx(440.0, rel=0.001)
    assert np.abs(signal).max() == pytest.approx(1.0, abs=0.01)


def test_triangle_organ_and_saw_are_richer_than_sine_and_saw_richest():
    sine, triangle, organ, saw = (centroid(tone(300, 0.5, shape)) for shape in
                                  (sine_wave, triangle_wave, organ_wave, saw_wave))
    assert sine < triangle and sine < organ and max(triangle, organ) * 1.5 < saw


def test_envelope_rises_in_15_ms_then_decays_exponentially():
    shaped = envelope(np.ones(SAMPLE_RATE), decay=0.1)
    assert shaped[int(0.0075 * SAMPLE_RATE)] == pytest.approx(0.5, abs=0.01)
    assert shaped[int(0.015 * SAMPLE_RATE)] == pytest.approx(1.0, abs=0.01)
    assert shaped[int(0.115 * SAMPLE_RATE)] == pytest.approx(np.exp(-1), abs=0.01)
    assert shaped[-1] == 0.0


def test_low_pass_keeps_low_cuts_high_and_is_3_db_down_at_its_cut_off():
    low, high, edge = tone(500, 0.5), tone(10000, 0.5), tone(2500, 0.5)
    steady = slice(SAMPLE_RATE // 10, None)  # after the filter's start-up
    assert rms(low_pass(low, 2500)[steady]) / rms(low[steady]) > 0.95
    assert rms(low_pass(high, 2500)[steady]) / rms(high[steady]) < 0.01
    assert rms(low_pass(edge, 2500)[steady]) / rms(edge[steady]) == pytest.approx(2**-0.5, rel=0.02)


def test_glide_goes_down_from_its_start():
    signal = glide(200, 100, 1.0)
    assert pitch(signal[: SAMPLE_RATE // 10]) == pytest.approx(200 * 2 ** -0.05, rel=0.03)
    assert pitch(signal[-SAMPLE_RATE // 10:]) == pytest.approx(100 * 2 ** 0.05, rel=0.03)


def test_chord_partials_are_as_loud_as_their_weights():
    signal = chord([300, 500], [0.75, 0.25], 1.0)
    spectrum = np.abs(np.fft.rfft(signal))
    assert spectrum[500] / spectrum[300] == pytest.approx(1 / 3, rel=0.02)  # 1 s: bin k is k Hz


def test_pan_keeps_the_power_and_puts_the_sound_where_it_says():
    sound = tone(440, 0.5)
    for position in (-1, -0.5, 0, 0.5, 1):
        left, right = pan(sound, position).T
        assert rms(left) ** 2 + rms(right) ** 2 == pytest.approx(rms(sound) ** 2, rel=1e-6)
    assert rms(pan(sound, -1)[:, 1]) < 1e-12 and rms(pan(sound, 1)[:, 0]) < 1e-12
    assert rms(pan(sound, 0)[:, 0]) == pytest.approx(rms(pan(sound, 0)[:, 1]))


@pytest.mark.parametrize("step", range(1, 8))
def test_every_step_tone_is_the_markers_bell_at_262_hz(step):
    """A marker, under every register of data (docs/sound.md): the same pitch at every step."""
    assert pitch(step_tone(step)) == pytest.approx(262, rel=0.01)


def test_larger_weights_are_louder():
    """An attention line as loud as its weight's share of its row's largest: 20 log10(alpha / peak) dB."""
    notes = [placed(Timeline(1.0), [Cue(0.0, "connection", {"weight": weight, "temperature": 1.0, "peak": 0.9,
                                                                     "key": 0})],
                    -22.0).samples for weight in (0.1, 0.3, 0.5, 0.9)]
    for note in notes:
        in_room(note)  # as heard: the room's reflections are louder at some pitches than at others
    loudness = np.array([momentary_loudness(note) for note in notes])
    assert loudness - loudness[-1] == pytest.approx([20 * np.log10(weight / 0.9) for weight in (0.1, 0.3, 0.5, 0.9)],
                                                    abs=0.5)


def test_high_temperature_notes_are_longer_and_detuned():
    cold, hot = connection_note(3, 0.2), connection_note(3, 4.0)  # key 3: the ladder's fourth rung, 330 x 2^(7/12)
    assert len(hot) > len(cold)
    spectrum = np.abs(np.fft.rfft(hot, n=10 * SAMPLE_RATE))
    peak = np.argmax(spectrum) / 10
    assert abs(peak - 330 * 2 ** (7 / 12)) > 1.0  # two voices detuned apart: the peak is not at the nominal pitch


def test_reset_glides_down_a_whole_tone_to_the_markers_bell():
    signal = reset_tone()
    start = pitch(signal[: int(0.06 * SAMPLE_RATE)])
    end = pitch(signal[int(0.3 * SAMPLE_RATE): int(0.4 * SAMPLE_RATE)])
    assert start == pytest.approx(262 * 2 ** (2 / 12), rel=0.03) and 250 <= end < start * 0.95


def test_value_blip_pitch_rises_with_the_value():
    pitches = [pitch(value_blip(value, 0, 4)) for value in (0, 2, 4)]
    assert pitches == pytest.approx([600, 1200, 2400], rel=0.02)


def test_values_on_a_shared_scale_sound_narrower_when_divided():
    """A row of scores and the same row divided by 2.83 (÷√8): on their own ranges they sound alike, on one
    scale the divided row's blips lie in a pitch span about 2.83 times narrower (in octaves)."""
    scores = np.array([0.5, -1.5, 2.0, 0.2])
    spans = {}
    for name, row in (("scores", scores), ("scaled", scores / 2.83)):
        for scale in ({}, {"low": -2.0, "high": 2.0}):
            sound = mono(MAPPINGS["values"](values=row.tolist(), spacing=0.2, **scale))
            blips = [pitch(sound[int(k * 0.2 * SAMPLE_RATE): int((k * 0.2 + 0.12) * SAMPLE_RATE)])
                     for k in range(len(row))]
            spans[name, bool(scale)] = np.log2(max(blips) / min(blips))
    assert spans["scaled", False] == pytest.approx(spans["scores", False], rel=0.05)
    assert spans["scores", True] / spans["scaled", True] == pytest.approx(2.83, rel=0.1)


def test_peaked_distribution_is_one_clear_tone_and_flat_one_a_chord():
    spectrum_peaked = np.abs(np.fft.rfft(mono(distribution_chord([0.97] + [0.03 / 7] * 7))))
    spectrum_flat = np.abs(np.fft.rfft(mono(distribution_chord([1 / 8] * 8))))
    strong = lambda spectrum: int(np.sum(spectrum > 0.2 * spectrum.max()))
    assert strong(spectrum_peaked) < strong(spectrum_flat)


OMEGA = (1 / 10000 ** (np.arange(0, 16, 2) / 16)).repeat(2)  # d = 16, each pair's angular frequency twice
PE = np.array([[np.sin(p * w) if j % 2 == 0 else np.cos(p * w) for j, w in enumerate(OMEGA)] for p in range(6)])
WEIGHTS = np.array([[0.5, 0.3, 0.2], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]])
EXAMPLES = {  # one cue of every kind, with values like the scenes'
    "step": {"step": 3}, "reset": {}, "cell": {"value": 2.0, "low": -1.0, "high": 5.0},
    "values": {"values": [0.4, -1.2, 2.5, 0.0], "spacing": 0.35},
    "row": {"weights": [0.1, 0.6, 0.3]}, "connection": {"weight": 0.02, "temperature": 1.0, "peak": 0.5, "key": 1},
    "masked": {"before": [0.2, 0.5, 0.3], "after": [1.0, 0.0, 0.0]},
    "entropy": {"free": WEIGHTS.tolist(), "masked": [[1, 0, 0], [0.5, 0.5, 0], [0.3, 0.3, 0.4]], "rows": [0, 2]},
    "tokens": {"count": 7},
    "head_arcs": {"head": 0, "weights": WEIGHTS.tolist()}, "head_row": {"head": 0, "weights": [0.2, 0.5, 0.3]},
    "heads_overlay": {"weights": [WEIGHTS.tolist()] * 3}, "heads_sum": {"weights": WEIGHTS.tolist()},
    "sum_row": {"weights": [0.2, 0.5, 0.3]}, "heads_chord": {"weights": WEIGHTS.tolist()}, "cost": {},
    "frequencies": {"angular_frequencies": OMEGA.tolist()},
    "position_sweep": {"rows": PE.tolist(), "angular_frequencies": OMEGA.tolist(), "duration": 2.0},
    "frequency_contrast": {"angular_frequencies": [OMEGA[0], OMEGA[-1]], "values": [PE[:, 0], PE[:, -1]]},
    "wave": {"angular_frequency": OMEGA[-1], "samples": PE[:, -1].tolist(), "duration": 2.0},
    "similarity_curve": {"similarities": [1.0, 0.8, 0.5, 0.6], "duration": 2.0},
    "curve": {"values": [0.9, 0.5, 0.3, 0.2], "duration": 2.0},
    "vector_sum": {"x_plus_pe": [0.1, 0.2]}, "outputs_compared": {"max_difference": 0.0},
    "distribution": {"weights": [0.5, 0.3, 0.05, 0.05, 0.04, 0.03, 0.02, 0.01], "seconds": 1.0},
    "concat": {"heads": 3}, "scale": {"low": -1.0, "high": 2.0},
    "loss": {"losses": [2.8, 2.7, 2.7, 1.2, 0.4, 0.3], "guess": 2.77, "duration": 2.0},
}


PLAYED = sorted({kind for section in SECTIONS for kind in section.cue_kinds})  # what the sections' records play


def test_every_cue_kind_has_an_example_here_and_some_section_plays_it():
    assert set(EXAMPLES) == set(MAPPINGS) == set(PLAYED)


@pytest.mark.parametrize("kind", PLAYED)
def test_no_sound_has_energy_under_200_hz(kind):
    """Laptop speakers drop what is under 200 Hz: at most 1 % of any sound's energy lies there."""
    sound = mono(MAPPINGS[kind](**EXAMPLES[kind]))
    power = np.abs(np.fft.rfft(sound)) ** 2
    frequencies = np.fft.rfftfreq(len(sound), 1 / SAMPLE_RATE)
    assert power[frequencies < 195].sum() / power.sum() < 0.01


def test_positional_scale_is_fixed_a_dimension_sounds_at_one_pitch_in_every_step():
    """Dimension 14 (omega = 1e-3.5) alone, with its neighbour, or among all: the same pitch."""
    slow = OMEGA[14]
    alone = pitch(MAPPINGS["wave"](angular_frequency=slow, samples=[1.0] * 4, duration=1.0))
    contrasted = MAPPINGS["frequency_contrast"](angular_frequencies=[OMEGA[0], slow], values=[[-1.0] * 4, [1.0] * 4])
    assert alone == pytest.approx(300 * 8 ** (1 - 3.5 / 4), rel=0.005)
    assert pitch(contrasted) == pytest.approx(alone, rel=0.005)
    assert encoding_pitch(OMEGA[:4]) == pytest.approx(encoding_pitch(OMEGA)[:4])


def left_share(sound: np.ndarray) -> float:
    """Share of the power in the left channel: 1 hard left, 0.5 centre, 0 hard right."""
    return float(np.sum(sound[:, 0] ** 2) / np.sum(sound**2))


def test_keys_sound_where_their_columns_are():
    first = MAPPINGS["row"](weights=[1.0, 0.0, 0.0, 0.0])
    last = MAPPINGS["row"](weights=[0.0, 0.0, 0.0, 1.0])
    assert left_share(first) > 0.99 and left_share(last) < 0.01


def test_a_row_longer_than_the_ladder_sounds_every_token_past_the_sixteenth():
    """The learned section's 20 tokens: token 18 is heard (it was dropped), on the token ladder's ninth rung (its
    rungs 0, 2, 4, 7, 9, 11, 13, 15, 17, 20 semitones from 330 Hz, then again), and on the right, where its column
    is."""
    weights = np.zeros(20)
    weights[18] = 1.0
    sound = MAPPINGS["head_row"](head=0, weights=weights.tolist())
    assert rms(sound) > 0.01
    assert pitch(sound) == pytest.approx(330.0 * 2 ** (17 / 12), abs=1.0)
    assert left_share(sound) < 0.1


def test_scaling_compares_unscaled_and_scaled_one_after_the_other_at_their_columns():
    """The two panels stand one above the other: their keys share their columns' pan (a flat row centred, the
    first key on the left), and the scaled row follows the unscaled one."""
    weights = [0.25, 0.25, 0.25, 0.25]
    unscaled, scaled = (MAPPINGS["row"](weights=weights, version=version) for version in ("unscaled", "scaled"))
    assert left_share(unscaled) == pytest.approx(0.5, abs=0.05) and left_share(scaled) == pytest.approx(0.5, abs=0.05)
    for version in ("unscaled", "scaled"):
        assert left_share(MAPPINGS["row"](weights=[1.0, 0, 0, 0], version=version)) > 0.99
    cues = [Cue(0.5, "row", {"weights": weights, "version": "unscaled"}),
            Cue(0.5, "row", {"weights": weights, "version": "scaled"})]
    first_end = 0.5 + len(unscaled) / SAMPLE_RATE
    assert staggered(cues)[0] == 0.5 and staggered(cues)[1] >= first_end + 0.2
    track = soundtrack(cues, 4.0, -16.0)
    window = lambda start, end: track[int(start * SAMPLE_RATE): int(end * SAMPLE_RATE)]
    assert not window(0.0, 0.5).any()
    assert window(0.5, first_end).any() and window(first_end + 0.2, 4.0).any()


def test_outputs_compared_are_two_voices_left_and_right():
    sound = MAPPINGS["outputs_compared"](max_difference=0.25)  # a fifth apart: 330 Hz and 1.5 x 330 Hz
    assert pitch(sound[:, 0] - 0.2 * sound[:, 1]) == pytest.approx(330, rel=0.01)
    assert pitch(sound[:, 1] - 0.2 * sound[:, 0]) == pytest.approx(495, rel=0.01)


def heard_spans(sound: np.ndarray, pitches) -> list[tuple[float, float]]:
    """(first, last) second at which each pitch is heard: its short-time spectrum (43 ms Hann windows, 5 ms
    hops) within 40 dB of its own peak. The window's length blurs both ends outwards by up to 21 ms."""
    frequencies, times, spectrum = scipy_signal.stft(mono(sound), SAMPLE_RATE, nperseg=2048, noverlap=2048 - 240,
                                                     boundary="zeros")
    spans = []
    for frequency in pitches:
        level = np.abs(spectrum[np.argmin(np.abs(frequencies - frequency))])
        heard = times[level > 0.01 * level.max()]
        spans.append((float(heard.min()), float(heard.max())))
    return spans


def test_heads_overlay_plays_the_three_heads_one_after_the_other():
    weights = [[[1.0 if k == head else 0.0 for k in range(3)]] * 3 for head in range(3)]  # head h to token h
    sound = mono(MAPPINGS["heads_overlay"](weights=weights))
    assert pitch(sound[: int(0.25 * SAMPLE_RATE)]) == pytest.approx(330, rel=0.02)  # head 1 (token 1) alone first


@pytest.mark.parametrize("kind", ["heads_overlay", "heads_chord"])
def test_each_heads_chord_starts_after_the_one_before_has_ended(kind):
    """Heads 1, 2, 3 each looking at its own token of nine (tokens 1, 5 and 9: 330, 555 and 881 Hz on the token
    ladder): each one's first moment comes at least 0.15 s (measured through the blur of the analysis window) after
    the last of the one before."""
    rows = [[1.0 if k == 4 * head else 0.0 for k in range(9)] for head in range(3)]
    weights = {"heads_overlay": [[row] * 9 for row in rows], "heads_chord": rows}[kind]
    spans = heard_spans(MAPPINGS[kind](weights=weights), (330, 555, 881))
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert start - end >= 0.15, spans


# sounds that follow a drawing and are cut while still loud; of one or two voices, so that their amplitude is smooth
FOLLOWED = {kind: lambda kind=kind: MAPPINGS[kind](**EXAMPLES[kind])
            for kind in ("masked", "curve", "wave", "similarity_curve", "frequency_contrast", "loss")}
FOLLOWED["steady 440 Hz"] = lambda: followed([440.0], [[1.0, 1.0]], 1.0, [0.0])


@pytest.mark.parametrize("kind", FOLLOWED)
def test_a_followed_sound_fades_out_over_its_last_60_ms_without_a_click(kind):
    """Their amplitude (Hilbert envelope averaged over 4 ms, 20 ms of silence after) falls to zero over the last
    60 ms, no 5 ms of it by more than a quarter of the level it had 80 ms before the cut; a 5 ms fade drops it all
    at once, a click."""
    sound = np.concatenate([mono(FOLLOWED[kind]()), np.zeros(SAMPLE_RATE // 50)])
    period = int(0.004 * SAMPLE_RATE)  # the lowest note's period: a voice with harmonics ripples within it
    amplitude = np.convolve(np.abs(scipy_signal.hilbert(sound)), np.ones(period) / period, mode="same")
    cut, span = len(sound) - SAMPLE_RATE // 50, int(0.005 * SAMPLE_RATE)
    before = amplitude[cut - int(0.08 * SAMPLE_RATE)]
    tail = amplitude[cut - int(0.06 * SAMPLE_RATE):]
    steepest = max(tail[i] - tail[i + span] for i in range(len(tail) - span))
    assert steepest <= 0.25 * before, (steepest, before)
    assert amplitude[cut - 1] < 0.05 * before


def test_the_loss_is_heard_as_a_pitch_that_falls_with_it():
    """Guessing (loss = ln V) sounds at 2400 Hz, a loss of 0 at 600 Hz, 600 x 4^(loss / ln V) between (the values'
    scale): a loss flat at guessing, then dropping to a tenth of it, is heard at 2400 Hz, then at 2400 / 4^0.9 Hz
    (the left, then the right)."""
    guess = np.log(16)
    sound = MAPPINGS["loss"](losses=[guess] * 50 + [guess / 10] * 50, guess=guess, duration=2.0)
    first, last = sound[: SAMPLE_RATE // 2], sound[-SAMPLE_RATE // 2 - SAMPLE_RATE // 10: -SAMPLE_RATE // 10]
    assert pitch(first) == pytest.approx(2400.0, rel=0.01)
    assert pitch(last) == pytest.approx(600.0 * 4 ** 0.1, rel=0.01)
    assert rms(first[:, 0]) > 2 * rms(first[:, 1]) and rms(last[:, 1]) > 2 * rms(last[:, 0])


def test_masked_keys_fall_silent():
    sound = mono(MAPPINGS["masked"](before=[0.4, 0.6, 0.0], after=[1.0, 0.0, 0.0]))
    spectrum = lambda part: np.abs(np.fft.rfft(part, n=SAMPLE_RATE))  # 1 Hz bins
    start, end = spectrum(sound[: SAMPLE_RATE // 2]), spectrum(sound[-SAMPLE_RATE // 2:])
    first, second = 330, round(330 * 2 ** (2 / 12))
    assert start[second] > 0.5 * start[first] and end[second] < 0.05 * end[first]


def test_entropy_is_heard_as_the_spread_of_a_cluster():
    one_hot, flat = [[1.0] + [0.0] * 5], [[1 / 6] * 6]  # 0 bits and log2(6) = 2.58 bits
    low, high = (MAPPINGS["entropy"](free=row, masked=row, rows=[0]) for row in (one_hot, flat))
    spectrum = lambda sound: np.abs(np.fft.rfft(mono(sound)[: SAMPLE_RATE // 2], n=SAMPLE_RATE))
    strong = lambda sound: np.flatnonzero(spectrum(sound) > 0.3 * spectrum(sound).max())
    assert np.ptp(strong(low)) < 10 and strong(low).mean() == pytest.approx(850, abs=5)
    assert strong(high).min() < 850 / 2 and strong(high).max() > 850 * 2  # 2.5 octaves wide


@pytest.mark.parametrize("kind, values, pitches", [
    ("cell", [{"value": 0.0, "low": 0.0, "high": 1.0}, {"value": 1.0, "low": 0.0, "high": 1.0}], (600, 2400)),
    ("row", [{"weights": [1.0, 0.0, 0.0, 0.0, 0.0], "version": "lab"},
             {"weights": [0.0, 0.0, 0.0, 0.0, 1.0], "version": "sharp"}], (330, 330 * 2 ** (9 / 12)))])
def test_comparisons_at_one_instant_play_one_after_the_other(kind, values, pitches):
    """Cues of one kind at one instant (two panels compared): the second is first heard at least 0.15 s after
    the first has ended (a row's chord is longer than a blip: the pause follows the sound, not a fixed beat);
    a cue at another instant keeps its time."""
    cues = [Cue(0.5, kind, value) for value in values]
    spans = heard_spans(placed(Timeline(4.0), cues, -22.0).samples, pitches)  # dry: the room's tail would blur the ends
    assert spans[0][0] == pytest.approx(0.5, abs=0.03) and spans[1][0] - spans[0][1] >= 0.15, spans
    assert staggered([*cues, Cue(3.0, kind, values[0])])[2] == 3.0


def busy_and_sparse_tracks():
    """A sparse track (a step tone every 2 s) and a busy one (chords every 0.25 s), 20 s each."""
    rng = np.random.default_rng(0)
    sparse, busy = Timeline(20.0), Timeline(20.0)
    for time in np.arange(0, 19.5, 2.0):
        sparse.place(0.05 * step_tone(3), time)
    for time in np.arange(0, 19.5, 0.25):
        busy.place(pan(5.0 * chord(rng.uniform(200, 900, 6), rng.uniform(0, 1, 6), 0.4), rng.uniform(-1, 1)), time)
    return sparse.samples, busy.samples


@pytest.mark.parametrize("target", [-16.0, -23.0])
def test_a_cue_sits_at_its_kinds_level_against_speech_at_the_target(target):
    """Every data cue, measured, comes out CUES_UNDER_SPEECH under the target, whatever else the track holds: the
    track is not normalised (a sparse track and a busy one give each cue the same gain)."""
    row = EXAMPLES["row"]
    alone = soundtrack([Cue(0.5, "row", row)], 3.0, target)
    assert momentary_loudness(alone) == pytest.approx(target - CUES_UNDER_SPEECH, abs=0.5)
    crowded = soundtrack([Cue(0.5, "row", row), *(Cue(1.8 + 0.3 * k, "cell", EXAMPLES["cell"]) for k in range(3))],
                         3.0, target)
    np.testing.assert_allclose(crowded[:int(1.75 * SAMPLE_RATE)], alone[:int(1.75 * SAMPLE_RATE)], atol=1e-6)


def test_the_limiter_keeps_loud_tracks_under_the_ceiling():
    for track in busy_and_sparse_tracks():
        assert true_peak(limit(30 * track)) <= CEILING_DBTP + 0.05


def test_a_loud_soundtrack_is_written_under_the_ceiling():
    """Every cue of EXAMPLES at once, at the loudest volume a config allows (-10 LUFS): placed at their levels
    they peak over the ceiling; the WAV the product writes does not (it goes through the limiter)."""
    cues = [Cue(0.5 + 0.05 * k, kind, values) for k, (kind, values) in enumerate(EXAMPLES.items())]
    placed_only = placed(Timeline(4.0), cues, cue_gain_db(-10.0)).samples
    assert true_peak(placed_only) > CEILING_DBTP + 1.0
    assert true_peak(soundtrack(cues, 4.0, -10.0)) <= CEILING_DBTP + 0.1  # 16-bit rounding


def test_sample_peaks_catch_the_peak_between_samples_and_equal_oversampling_the_whole_signal_at_once():
    """A sine at a quarter of the rate, 45 degrees off: every sample is at 0.707 of the amplitude, the wave
    itself reaches 1.0 between them. Over several blocks, the blockwise peaks equal those of the whole signal
    oversampled at once (scipy), also at the block edges."""
    n = np.arange(3 * PEAK_BLOCK + 1234)
    quarter = np.sin(np.pi / 2 * n + np.pi / 4)
    assert np.abs(quarter).max() == pytest.approx(np.sqrt(0.5))
    peaks = sample_peaks(np.column_stack([quarter, quarter]))[1000:-1000]
    assert peaks.max() == pytest.approx(1.0, abs=0.01)  # each crest, half a sample after an even sample
    assert np.all(peaks >= np.sqrt(0.5) - 1e-3)
    noise = np.random.default_rng(7).normal(size=(len(n), 2))
    whole = np.abs(scipy_signal.resample_poly(noise, 4, 1, axis=0)).max(axis=1).reshape(-1, 4).max(axis=1)
    np.testing.assert_allclose(sample_peaks(noise), whole, rtol=1e-12)


def sparse_minutes() -> np.ndarray:
    """Two minutes of a lecture's kind of track: short decaying notes seconds apart, exact silence between."""
    track = Timeline(120.0)
    for k, at in enumerate(np.arange(0.5, 118.0, 2.7)):
        track.place(pan((0.05 + 0.3 * (k % 4)) * tone(220 * (1 + k % 5), 0.4), -0.5 + 0.25 * (k % 5)), at)
    return track.samples


def test_the_loudness_of_a_sparse_track_is_pyloudnorms_though_silence_is_not_filtered():
    """The meter skips silence once the K-weighting's state has decayed (a sound's tail would otherwise run
    through subnormal floats for minutes); pyloudnorm filters every sample: the two agree."""
    sparse = sparse_minutes()
    assert loudness(sparse) == pytest.approx(measured_loudness(sparse), abs=1e-9)


def test_the_limiter_oversamples_only_where_the_ceiling_can_be_passed_and_gives_the_same_gain():
    """Away from the loud notes no oversampled value can reach the ceiling and the limiter skips them; the
    result equals its formula applied with the true peaks of every sample (``sample_peaks`` of the whole)."""
    sparse = 4.0 * sparse_minutes()
    ceiling = 10 ** (CEILING_DBTP / 20)
    needed = np.minimum(1.0, ceiling / np.maximum(sample_peaks(sparse), 1e-12))
    assert needed.min() < 0.5 and (needed == 1.0).mean() > 0.5  # loud notes, and most of the track untouched
    size = LIMITER_AHEAD + LIMITER_BEHIND + 1
    held = minimum_filter1d(needed, size=size, origin=LIMITER_BEHIND - size // 2, mode="nearest")
    gain = uniform_filter1d(held, size=LIMITER_AHEAD // 2 * 2 + 1, mode="nearest")
    np.testing.assert_allclose(limit(sparse), sparse * gain[:, None], rtol=0, atol=1e-12)


def test_the_limiter_only_turns_down_never_distorts():
    """Under the ceiling it does nothing; over it, the result is the input times a smooth gain <= 1."""
    quiet = pan(0.3 * tone(440, 1.0), 0.0)
    assert np.array_equal(limit(quiet), quiet)
    loud = pan(np.concatenate([0.3 * tone(440, 0.5), 2.0 * tone(440, 0.5), 0.3 * tone(440, 0.5)]), 0.0)
    limited = limit(loud)
    gain = limited[:, 0] / np.where(np.abs(loud[:, 0]) > 1e-3, loud[:, 0], np.nan)
    gain = gain[np.isfinite(gain)]
    assert gain.max() <= 1.0 + 1e-9 and true_peak(limited) <= -1.0
    spectrum = np.abs(np.fft.rfft(limited[SAMPLE_RATE // 2 + 2400: SAMPLE_RATE - 2400, 0]))
    harmonics = spectrum[np.round(np.fft.rfftfreq(SAMPLE_RATE // 2 - 4800, 1 / SAMPLE_RATE)) % 440 != 0]
    assert harmonics.max() < 0.01 * spectrum.max()  # a steady gain on a sine: no new partials


def test_volume_halves_the_amplitude_at_50_and_silences_at_0():
    cues = [Cue(0.5, "row", EXAMPLES["row"]), Cue(1.5, "step", EXAMPLES["step"])]
    full = soundtrack(cues, 3.0, -16.0)
    np.testing.assert_allclose(soundtrack(cues, 3.0, -16.0 + db(0.5)), 0.5 * full, atol=PCM_STEP)
    assert not soundtrack(cues, 3.0, float("-inf")).any()


def momentary_loudness(sound: np.ndarray) -> float:
    """The loudest 400 ms window (BS.1770 momentary loudness), 100 ms hops."""
    sound = np.concatenate([sound if sound.ndim == 2 else pan(sound, 0.0), np.zeros((SAMPLE_RATE // 2, 2))])
    size, hop = int(0.4 * SAMPLE_RATE), int(0.1 * SAMPLE_RATE)
    return max(measured_loudness(sound[i:i + size]) for i in range(0, len(sound) - size, hop)
               if np.any(sound[i:i + size]))


def at_level(kind: str, values: dict) -> float:
    """The momentary loudness of a cue's sound placed at its kind's level."""
    seconds = len(MAPPINGS[kind](**values)) / SAMPLE_RATE
    return momentary_loudness(placed(Timeline(seconds), [Cue(0.0, kind, values)], -22.0).samples)


def test_every_data_sound_is_louder_than_a_step_tone_at_its_kinds_level():
    """(On the whole lecture the data sit about 6 LU above the steps: tests/test_sound_lecture.py.)"""
    step = at_level("step", EXAMPLES["step"])
    typical = EXAMPLES | {"connection": {"weight": 0.6, "temperature": 1.0, "peak": 0.6, "key": 1}}  # the row's largest
    data = {kind: at_level(kind, values) for kind, values in typical.items() if kind not in ("step", "reset", "cost")}
    assert all(step + 2 <= loudness <= step + 14 for loudness in data.values()), (step, sorted(data.items()))
    assert at_level("reset", {}) == pytest.approx(step, abs=1.5)


def test_soundtrack_is_stereo_exactly_as_long_as_the_video_and_places_cues_on_time():
    cues = [Cue(0.5, "step", {"step": 1}), Cue(2.0, "connection", {"weight": 0.8, "temperature": 1.0, "key": 2}),
            Cue(2.95, "step", {"step": 7})]  # the last one runs past the end: cut, not lengthened
    track = soundtrack(cues, 3.0, -16.0)
    assert track.shape == (3 * SAMPLE_RATE, 2)
    assert not track[: int(0.49 * SAMPLE_RATE)].any()
    assert np.abs(track[int(0.5 * SAMPLE_RATE): int(0.52 * SAMPLE_RATE)]).max() > 0


def test_wav_is_16_bit_pcm_stereo_48_khz_and_round_trips(tmp_path):
    path = tmp_path / "track.wav"
    samples = pan(0.5 * tone(440, 0.25), -0.3)
    write_wav_blocks([samples], path)
    with wave.open(str(path)) as reader:
        assert (reader.getsampwidth(), reader.getnchannels(), reader.getframerate()) == (2, 2, 48000)
        assert reader.getnframes() == len(samples)
    np.testing.assert_allclose(read_wav(path), samples, atol=PCM_STEP)
    assert len(seconds(1.0)) == 48000
