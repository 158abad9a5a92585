"""The synthesizer and the mappings, measured on the signals they produce (FFT, RMS, peaks)."""

import wave

import numpy as np
import pytest

from scenes.lesson_scene import Cue
from sonify.mappings import (connection_note, distribution_chord, reset_tone, soundtrack, step_tone, value_blip)
from sonify.mix import CEILING, Timeline, active_rms, master, read_wav, write_wav
from sonify.synth import (SAMPLE_RATE, chord, envelope, glide, low_pass, organ_wave, seconds, sine_wave, tone,
                          triangle_wave)


def pitch(signal: np.ndarray) -> float:
    """Dominant frequency with 0.1 Hz resolution (zero-padded FFT)."""
    spectrum = np.abs(np.fft.rfft(signal * np.hanning(len(signal)), n=10 * SAMPLE_RATE))
    return np.argmax(spectrum) / 10


def centroid(signal: np.ndarray) -> float:
    """Spectral centroid: sum f |X(f)| / sum |X(f)|."""
    spectrum = np.abs(np.fft.rfft(signal))
    frequencies = np.fft.rfftfreq(len(signal), 1 / SAMPLE_RATE)
    return float(np.sum(frequencies * spectrum) / np.sum(spectrum))


def rms(signal: np.ndarray) -> float:
    return float(np.sqrt(np.mean(signal**2)))


@pytest.mark.parametrize("wave_shape", [sine_wave, triangle_wave, organ_wave])
def test_oscillators_sound_at_their_frequency_with_peak_one(wave_shape):
    signal = tone(440.0, 0.5, wave_shape)
    assert pitch(signal) == pytest.approx(440.0, rel=0.001)
    assert np.abs(signal).max() == pytest.approx(1.0, abs=0.01)


def test_triangle_and_organ_are_richer_than_sine():
    assert centroid(tone(300, 0.5, sine_wave)) < centroid(tone(300, 0.5, triangle_wave))
    assert centroid(tone(300, 0.5, sine_wave)) < centroid(tone(300, 0.5, organ_wave))


def test_envelope_rises_in_15_ms_then_decays_exponentially():
    shaped = envelope(np.ones(SAMPLE_RATE), decay=0.1)
    assert shaped[int(0.0075 * SAMPLE_RATE)] == pytest.approx(0.5, abs=0.01)
    assert shaped[int(0.015 * SAMPLE_RATE)] == pytest.approx(1.0, abs=0.01)
    assert shaped[int(0.115 * SAMPLE_RATE)] == pytest.approx(np.exp(-1), abs=0.01)
    assert shaped[-1] == 0.0


def test_low_pass_keeps_low_and_cuts_high_frequencies():
    low, high = tone(500, 0.5), tone(10000, 0.5)
    assert rms(low_pass(low, 2500)) / rms(low) > 0.95
    assert rms(low_pass(high, 2500)) / rms(high) < 0.1
    assert rms(low_pass(tone(2500, 0.5), 2500)) / rms(tone(2500, 0.5)) == pytest.approx(2**-0.5, rel=0.02)


def test_glide_goes_down_from_its_start():
    signal = glide(200, 100, 1.0)
    assert pitch(signal[: SAMPLE_RATE // 10]) == pytest.approx(200 * 2 ** -0.05, rel=0.03)
    assert pitch(signal[-SAMPLE_RATE // 10:]) == pytest.approx(100 * 2 ** 0.05, rel=0.03)


def test_chord_partials_are_as_loud_as_their_weights():
    signal = chord([300, 500], [0.75, 0.25], 1.0)
    spectrum = np.abs(np.fft.rfft(signal))
    assert spectrum[500] / spectrum[300] == pytest.approx(1 / 3, rel=0.02)  # 1 s: bin k is k Hz


@pytest.mark.parametrize("step", range(1, 8))
def test_step_tone_follows_the_labs_table(step):
    assert pitch(step_tone(step)) == pytest.approx(300 + 80 * step, rel=0.01)


@pytest.mark.parametrize("weight", [0.05, 0.3, 0.6, 0.95])
def test_connection_note_pitch_is_200_plus_600_alpha(weight):
    assert pitch(connection_note(weight)) == pytest.approx(200 + 600 * weight, rel=0.01)


def test_larger_weights_are_louder():
    loudness = [rms(connection_note(weight)) for weight in (0.1, 0.3, 0.5, 0.9)]
    assert loudness == sorted(loudness) and loudness[0] < loudness[-1] / 5


def test_spectral_centroid_falls_as_temperature_rises():
    centroids = [centroid(connection_note(0.5, temperature)) for temperature in (0.1, 0.5, 1.0, 2.0, 5.0)]
    assert all(a > b for a, b in zip(centroids, centroids[1:])), centroids


def test_high_temperature_notes_are_longer_and_detuned():
    cold, hot = connection_note(0.5, 0.2), connection_note(0.5, 4.0)
    assert len(hot) > len(cold)
    spectrum = np.abs(np.fft.rfft(hot, n=10 * SAMPLE_RATE))
    peak = np.argmax(spectrum) / 10
    assert abs(peak - 500) > 1.0  # two voices detuned apart: the peak is not at the nominal pitch


def test_reset_starts_at_200_hz_and_descends():
    signal = reset_tone()
    start = pitch(signal[: int(0.06 * SAMPLE_RATE)])
    end = pitch(signal[int(0.3 * SAMPLE_RATE): int(0.4 * SAMPLE_RATE)])
    assert start == pytest.approx(200, rel=0.06) and end < start * 0.85


def test_value_blip_pitch_rises_with_the_value():
    pitches = [pitch(value_blip(value, 0, 4)) for value in (0, 2, 4)]
    assert pitches == pytest.approx([220, 440, 880], rel=0.02)


def test_peaked_distribution_is_one_clear_tone_and_flat_one_a_chord():
    peaked = distribution_chord([0.97] + [0.03 / 7] * 7)
    flat = distribution_chord([1 / 8] * 8)
    spectrum_peaked = np.abs(np.fft.rfft(peaked))
    spectrum_flat = np.abs(np.fft.rfft(flat))
    strong = lambda spectrum: int(np.sum(spectrum > 0.2 * spectrum.max()))
    assert strong(spectrum_peaked) < strong(spectrum_flat)


def test_master_never_clips_and_loudness_depends_only_on_volume():
    rng = np.random.default_rng(0)
    quiet_track = Timeline(4.0)
    loud_track = Timeline(4.0)
    for time in np.arange(0, 3.5, 0.25):
        quiet_track.place(0.05 * step_tone(3), time)
        loud_track.place(5.0 * chord(rng.uniform(200, 900, 6), rng.uniform(0, 1, 6), 0.4), time)
    for volume in (30, 100):
        quiet, loud = master(quiet_track.samples, volume), master(loud_track.samples, volume)
        assert np.abs(loud).max() <= CEILING and np.abs(quiet).max() <= CEILING
        assert 20 * np.log10(active_rms(loud) / active_rms(quiet)) == pytest.approx(0, abs=1.0)
    ratio = active_rms(master(quiet_track.samples, 60)) / active_rms(master(quiet_track.samples, 30))
    assert 20 * np.log10(ratio) == pytest.approx(6.02, abs=0.3)
    assert not master(quiet_track.samples, 0).any()


def test_soundtrack_is_exactly_as_long_as_the_video_and_places_cues_on_time():
    cues = [Cue(0.5, "step", {"step": 1}), Cue(2.0, "connection", {"weight": 0.8, "temperature": 1.0}),
            Cue(2.95, "step", {"step": 7})]  # the last one runs past the end: cut, not lengthened
    track = soundtrack(cues, 3.0, volume=30)
    assert len(track) == 3 * SAMPLE_RATE
    assert not track[: int(0.49 * SAMPLE_RATE)].any()
    assert np.abs(track[int(0.5 * SAMPLE_RATE): int(0.52 * SAMPLE_RATE)]).max() > 0


def test_wav_is_16_bit_pcm_and_round_trips(tmp_path):
    path = tmp_path / "track.wav"
    samples = 0.5 * tone(440, 0.25)
    write_wav(samples, path)
    with wave.open(str(path)) as reader:
        assert (reader.getsampwidth(), reader.getnchannels(), reader.getframerate()) == (2, 1, SAMPLE_RATE)
        assert reader.getnframes() == len(samples)
    np.testing.assert_allclose(read_wav(path), samples, atol=1 / 32767)
