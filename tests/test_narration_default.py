"""The lecture speaks by default: a user without a settings file who runs `render.py render` gets the neural voice,
phrase by phrase in the manifest, heard in the soundtrack; `--narration none` gives the silent version."""

from __future__ import annotations

import numpy as np
import pytest

from media_checks import TINY, decoded_audio, manifest, run_cli


def band_level(samples: np.ndarray, rate: int, start: float, end: float) -> float:
    """RMS of the 300-3400 Hz band (speech) between ``start`` and ``end`` seconds of the (mono-mixed) track."""
    mono = samples.mean(axis=1) if samples.ndim == 2 else samples
    part = mono[int(start * rate):int(end * rate)]
    spectrum = np.fft.rfft(part)
    frequencies = np.fft.rfftfreq(len(part), 1 / rate)
    spectrum[(frequencies < 300) | (frequencies > 3400)] = 0
    return float(np.sqrt(np.mean(np.fft.irfft(spectrum, len(part)) ** 2)))


@pytest.fixture(scope="module")
def renders(tmp_path_factory):
    """The scaling section's first step rendered by a user with no settings file, with and without --narration."""
    settings = tmp_path_factory.mktemp("no-settings")  # an empty XDG_CONFIG_HOME: no user settings at all
    outs = {}
    for name, extra in (("spoken", ()), ("silent", ("--narration", "none"))):
        outs[name] = tmp_path_factory.mktemp(name)
        result = run_cli("render", "scaling", "--steps", "1", *TINY, *extra, "-o", str(outs[name]), "-j", "1",
                         env={"XDG_CONFIG_HOME": str(settings)}, timeout=600)
        assert result.returncode == 0, result.stderr
        assert "espeak-ng" not in result.stderr  # the neural voice spoke, not its fallback
    return outs


def only_step(out) -> tuple[dict, dict]:
    """The clip's manifest entry and its one step."""
    [entry] = manifest(out)["clips"].values()
    return entry, entry["steps"][0]


def test_by_default_every_phrase_of_the_step_is_spoken_and_heard(renders):
    entry, step = only_step(renders["spoken"])
    phrases = step["narration"]["phrases"]
    assert len(phrases) >= 2 and " ".join(text for text, *_ in phrases) == step["narration"]["text"]
    assert manifest(renders["spoken"])["config"]["narration"]["source"] == "tts"
    samples, rate = decoded_audio(renders["spoken"] / entry["files"][0])
    quiet = band_level(samples, rate, 0.0, phrases[0][1])  # the header's fade, before the voice
    for text, start, end, _ in phrases:
        assert band_level(samples, rate, start + 0.2, end - 0.2) > 4 * max(quiet, 1e-4), text


def test_narration_none_gives_the_silent_step_with_its_caption(renders):
    entry, step = only_step(renders["silent"])
    assert "phrases" not in step["narration"] and "seconds" not in step["narration"]
    spoken_entry, spoken = only_step(renders["spoken"])
    assert step["caption"] in [text["text"] for text in step["texts"]]
    assert spoken["caption"] not in [text["text"] for text in spoken["texts"]]  # the subtitles carry the voice instead
    assert spoken_entry["duration"] > entry["duration"]  # the step holds until its voice is done
