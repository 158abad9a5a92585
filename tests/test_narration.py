"""The narration's pieces without a render: recordings in every format and rate decode to the same tone,
bad ones are refused by name, the draft voice speaks, numbers are written as the locale reads them,
sentences are timed on the recording's pauses, and the tones duck under the voice."""

import os

import numpy as np
import pyloudnorm
import pytest

from audio_files import tone, write_audio
from media_checks import system_program
from lecture.render import narration
from lecture.render.narration import LONGEST_RECORDING, Narration, NarrationError, decode, plan
from lesson.config import load_config
from lesson.locale import load_locale
from lesson.narration_text import sentence_times, sentences, voice_text
from lesson.numbers import written_numbers
from lesson.sections import BY_ID, SECTIONS
from sonify.mix import duck_gain, loudness, with_voices
from sonify.synth import SAMPLE_RATE, pan

FORMATS = [(".wav", 44100, 2), (".flac", 22050, 1), (".mp3", 44100, 2), (".m4a", 32000, 1), (".ogg", 48000, 2)]


def dominant_frequency(samples: np.ndarray) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.argmax(spectrum) * SAMPLE_RATE / len(samples))


@pytest.mark.parametrize(("suffix", "rate", "channels"), FORMATS)
def test_a_recording_in_any_format_rate_and_channels_decodes_to_mono_at_48_khz(tmp_path, suffix, rate, channels):
    path = write_audio(tmp_path / f"step{suffix}", tone(440, 2.0, rate, channels), rate)
    samples = decode(path)
    assert samples.ndim == 1
    assert len(samples) / SAMPLE_RATE == pytest.approx(2.0, abs=0.03)  # AAC adds a few ms of priming
    assert dominant_frequency(samples) == pytest.approx(440, abs=1)


def test_a_file_that_is_not_audio_is_refused_by_name(tmp_path):
    bad = tmp_path / "03-queries.wav"
    bad.write_bytes(b"RIFF\x00\x00\x00\x00WAVEfmt nonsense" * 10)
    with pytest.raises(NarrationError, match="03-queries.wav cannot be decoded"):
        decode(bad)


def test_a_recording_over_3_minutes_is_refused(tmp_path):
    long = write_audio(tmp_path / "long.flac", tone(300, LONGEST_RECORDING + 1, 8000), 8000)
    with pytest.raises(NarrationError, match="lasts over 180 s"):
        decode(long)


def test_a_pipe_in_place_of_a_recording_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "01-formula.wav")
    with pytest.raises(NarrationError, match="not a regular file"):
        decode(tmp_path / "01-formula.wav")


def test_numbers_are_written_with_the_separator_and_said_as_the_locale_reads_them():
    assert written_numbers("pesos 0.34 y -1.5, x-2, v1.2 y 10", ",") == "pesos 0,34 y \u22121,5, x-2, v1.2 y 10"
    assert written_numbers("pesos 0.34 y -1.5", ".") == "pesos 0.34 y \u22121.5"
    spoken = load_locale()["spoken"]
    assert voice_text("de \u22121.5 a \u22122", spoken) == "de menos 1,5 a menos 2"  # written with a point, said "coma"
    assert voice_text("de \u22121,5 a \u22122", spoken) == "de menos 1,5 a menos 2"
    assert voice_text("hasta 2.0·10⁴ en ___", spoken) == "hasta 2 por diez a la 4 en hueco"
    english = load_locale("en")["spoken"]
    assert voice_text("from \u22121.5 to 2.0·10⁴, ___", english) == "from minus 1.5 to 2 times ten to the 4, blank"


def test_sentences_are_timed_on_the_pauses_between_them():
    rate = SAMPLE_RATE
    parts = ["Primera frase bastante larga.", "¿Segunda?", "Tercera."]
    lengths, gap = [2.0, 0.7, 1.1], 0.4
    pieces = []
    for length in lengths:
        pieces += [tone(200, length, rate)[:, 0], np.zeros(int(gap * rate))]
    times = sentence_times(np.concatenate(pieces[:-1]), parts)
    starts = np.cumsum([0, *[length + gap for length in lengths[:-1]]])
    for (start, end), expected_start, length in zip(times, starts, lengths):
        assert expected_start - gap <= start <= expected_start + 1e-9  # cut inside the pause before it
        assert end >= expected_start + length - 1e-9


def test_without_pauses_sentences_share_the_recording_by_their_length():
    times = sentence_times(tone(200, 3.0, SAMPLE_RATE)[:, 0], ["aaaa.", "bb."])
    assert times[0] == (0.0, pytest.approx(3.0 * 5 / 8, abs=0.02))
    assert times[1][1] == pytest.approx(3.0)


def test_sentences_split_after_their_end_marks():
    assert sentences("Uno, dos. ¿Tres? ¡Cuatro! Cinco…  Seis") == ["Uno, dos.", "¿Tres?", "¡Cuatro!", "Cinco…", "Seis"]


def test_the_tones_duck_at_least_10_db_while_a_voice_speaks_and_come_back_after():
    rng = np.random.default_rng(0)
    tones = 0.1 * rng.standard_normal((6 * SAMPLE_RATE, 2))
    voice = tone(150, 2.0, SAMPLE_RATE)[:, 0]
    voice_track = np.zeros_like(tones)
    voice_track[2 * SAMPLE_RATE:4 * SAMPLE_RATE] = pan(voice, 0.0)
    mixed = with_voices(tones, [(2.0, voice)], loudness(voice_track))  # the voice at its own loudness: gain 1
    ducked = mixed - voice_track  # what is left of the tones

    def level(start, end):
        return 10 * np.log10(np.mean(ducked[int(start * SAMPLE_RATE):int(end * SAMPLE_RATE)] ** 2))

    assert level(2.0, 4.0) - level(0.0, 1.8) <= -10
    assert level(4.2, 6.0) == pytest.approx(level(0.0, 1.8), abs=0.5)
    gain = duck_gain([(2.0, 4.0)], len(tones))
    documented_db = -14.0  # docs/narration.md: "the tones duck 14 dB under it"
    assert 20 * np.log10(gain[3 * SAMPLE_RATE]) == pytest.approx(documented_db)
    swing = 1 - 10 ** (documented_db / 20)
    assert np.abs(np.diff(gain)).max() < swing / (0.02 * SAMPLE_RATE)  # ramps slower than 20 ms, not clicks


def test_the_voices_are_brought_to_the_target_and_the_tones_keep_their_level():
    """The voice at the target's integrated loudness (pyloudnorm); away from it the tones are untouched."""
    rng = np.random.default_rng(1)
    tones = 0.01 * rng.standard_normal((8 * SAMPLE_RATE, 2))
    voice = tone(150, 2.0, SAMPLE_RATE)[:, 0]
    for target in (-16.0, -23.0):
        spoken = with_voices(np.zeros_like(tones), [(1.0, voice)], target)
        assert pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(spoken) == pytest.approx(target, abs=0.05)
        mixed = with_voices(tones, [(1.0, voice)], target)
        np.testing.assert_array_equal(mixed[4 * SAMPLE_RATE:], tones[4 * SAMPLE_RATE:])


def narration_config(source: str, *overrides: str):
    return load_config(overrides=(f"narration.source={source!r}", *overrides)).narration


def test_the_fallback_voice_speaks_each_phrase_for_about_as_long_as_its_text():
    system_program("espeak-ng", "espeak-ng")
    short, long = Narration(dialect="es", espeak=True).speak(
        "01-formula", ["Hola.", "Cada fila de Q es una fila de X por W sub Q. " * 3], load_locale()["spoken"])
    assert 0.2 < len(short) / SAMPLE_RATE < 2.0
    assert len(long) / SAMPLE_RATE > 4 * len(short) / SAMPLE_RATE
    assert np.abs(long).max() > 0.05


def test_the_neural_voice_speaks_each_phrase_apart_and_english_with_the_english_voice():
    english = load_locale("en")
    config = narration_config("tts", 'lecture.lang="en"')
    assert (config.voice, config.dialect) == (english["config"]["narration"]["voice"], "en-us")
    plans = plan(config, {BY_ID["matrix"]: ["formula"]}, print)
    phrases = plans["matrix"].speak("01-formula", ["The weight falls from \u22121.5 to 0.25.", "Then it rises."],
                                    english["spoken"])
    assert len(phrases) == 2 and all(np.abs(phrase).max() > 0.05 for phrase in phrases)
    assert 1.0 < len(phrases[0]) / SAMPLE_RATE < 6.0 and len(phrases[1]) < len(phrases[0])


def test_a_recording_is_one_piece_whatever_the_phrases(tmp_path):
    write_audio(tmp_path / "01-matrix" / "01-formula.flac", tone(300, 1.0, 22050), 22050)
    plans = plan(narration_config(str(tmp_path)), {BY_ID["matrix"]: ["formula"]}, print)
    pieces = plans["matrix"].speak("01-formula", ["Una.", "Dos."], load_locale()["spoken"])
    assert len(pieces) == 1 and len(pieces[0]) / SAMPLE_RATE == pytest.approx(1.0, abs=0.01)


def test_recordings_are_found_by_step_name_and_missing_ones_are_named_in_one_line(tmp_path):
    write_audio(tmp_path / "01-matrix" / "02-inputs.flac", tone(300, 1.0, 22050), 22050)
    write_audio(tmp_path / "01-matrix" / "03-queries.wav", tone(300, 1.0, 44100, 2), 44100)
    lines = []
    plans = plan(narration_config(str(tmp_path)), {BY_ID["matrix"]: ["formula", "inputs", "queries", "keys"]},
                 lines.append)
    assert set(plans["matrix"].recordings) == {"02-inputs", "03-queries"}
    assert len(lines) == 1 and "01-matrix/01-formula" in lines[0] and "01-matrix/04-keys" in lines[0]


def test_two_recordings_of_one_step_or_a_missing_folder_are_refused(tmp_path):
    write_audio(tmp_path / "01-matrix" / "01-formula.wav", tone(300, 1.0, 8000), 8000)
    write_audio(tmp_path / "01-matrix" / "01-formula.mp3", tone(300, 1.0, 8000), 8000)
    with pytest.raises(NarrationError, match="01-formula has 2 recordings"):
        plan(narration_config(str(tmp_path)), {BY_ID["matrix"]: ["formula"]}, print)
    with pytest.raises(NarrationError, match="is not a folder of recordings"):
        plan(narration_config(str(tmp_path / "nowhere")), {BY_ID["matrix"]: ["formula"]}, print)


def test_nobody_speaks_with_none_or_an_empty_source():
    assert plan(narration_config("none"), {BY_ID["matrix"]: ["formula"]}, print) == {}
    assert plan(narration_config(""), {BY_ID["matrix"]: ["formula"]}, print) == {}


def test_without_the_neural_voice_espeak_speaks_and_one_line_says_why(monkeypatch):
    monkeypatch.setattr(narration, "voice_problem", lambda: "Kokoro-82M is not set up in /nowhere")
    lines = []
    plans = plan(narration_config("tts", "narration.dialect='es-419'"), {BY_ID["matrix"]: ["formula"]}, lines.append)
    assert plans["matrix"].espeak and plans["matrix"].dialect == "es-419"
    assert lines == ["narration: the neural voice cannot load (Kokoro-82M is not set up in /nowhere); "
                     "espeak-ng es-419 speaks instead"]


def test_without_either_voice_the_render_stops_naming_both(monkeypatch):
    monkeypatch.setattr(narration, "voice_problem", lambda: "kokoro-onnx is not installed")
    monkeypatch.setattr(narration.shutil, "which", lambda program: None)
    with pytest.raises(NarrationError, match="kokoro-onnx is not installed.*install the Debian package espeak-ng"):
        plan(narration_config("tts"), {BY_ID["matrix"]: ["formula"]}, print)


def test_a_voice_that_is_not_installed_is_refused_by_its_key():
    with pytest.raises(NarrationError, match="narration.voice: 'zz_nobody' is not an installed Kokoro voice"):
        plan(narration_config("tts", "narration.voice='zz_nobody'"), {BY_ID["matrix"]: ["formula"]}, print)


def test_the_locale_lists_each_sections_steps_in_the_order_the_scene_shows_them():
    locale = load_locale()  # recordings are named NN-step from this order (the parent never imports manim)
    for section in SECTIONS:
        assert list(locale[section.id]["steps"]) == list(section.scene().STEPS), section.id
