"""The narration script in each locale: every step has one for each caption it can show, short enough to
say while the step is on screen, written for the ear, with every number a field the scene fills."""

import re
from string import Formatter

import pytest

from lesson.locale import LOCALES, languages, load_locale
from lesson.narration_phrases import plain
from lesson.sections import BY_ID

SENTENCE_END = re.compile(r"[.?!…]+(?:\s+|$)")
# What a voice cannot say: symbols of the written formulas, and digits typed by hand (numbers come from fields).
# Greek letters that the locale's spoken.signs names (μ, σ, ω, Δ) are said by their names and written as the screen
# writes them in the subtitles; λ and α have no name there.
UNSPEAKABLE = re.compile(r"[\dᵀ√_^×÷·−∞Σλα≈→=+/*<>|\\]")
LANGUAGES = languages()
# How each language says a decimal number aloud: "cero coma tres", "zero point three".
DECIMAL_MARKS = {"es": ",", "en": "."}
STEPS = [(language, section, key, strings) for language in LANGUAGES for section in BY_ID
         for key, strings in load_locale(language)[section]["steps"].items()]


def variants(strings: dict, prefix: str) -> dict[str, str]:
    """``{"": caption, "_tie": caption_tie, ...}``: the texts whose key starts with ``prefix``, by suffix."""
    return {key[len(prefix):]: text for key, text in strings.items() if key.startswith(prefix)}


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(template) if name is not None}


def without_fields(template: str, sentences: frozenset = frozenset()) -> str:
    """The words a narration types itself: each ``{field}`` becomes one placeholder word, or a placeholder
    sentence ("N.") when the field is filled with a whole sentence."""
    return "".join(literal + ("" if name is None else "N." if name in sentences else "N")
                   for literal, name, _, _ in Formatter().parse(template))


# Fields a scene passes to begin_step for the narration alone (a KeyError in any run of the scene would show
# a missing one; every scene runs in its own tests).
NARRATION_ONLY = {("scaling", "growing"): {"low", "high"}, ("heads", "cost"): {"params"},
                  ("heads", "average"): {"spoken_targets"}, ("heads", "choose"): {"spoken_targets"},
                  ("matrix", "exponentiate"): {"total", "top"}, ("scaling", "exponentiate"): {"total", "top"},
                  ("positional", "clock_hands"): {"speeds"}, ("learned", "loss"): {"steps", "about"},
                  ("learned", "messy"): {"clean_said"},
                  ("positional", "similarity"): {"ago"},  # the twin note under the heatmap, written there, said
                  ("heads", "concat"): {"token"},  # the row's token: written on screen by its numbers («ella» en Concat)
                  # the guide's exercise 5: written on screen in its own line under the summary table
                  ("scaling", "restored"): {"exercise_low", "exercise_high", "factor"}}
# Fields filled with whole sentences of the section's pieces (exercise 1's verdict on each preset's weights),
# each of which ends its sentence itself (checked below).
SENTENCE_FIELDS = {("pipeline", "article"): (frozenset({"lab", "sharp"}), "exercise_")}


def narrations():
    return [pytest.param(text, strings | {"narration_only": NARRATION_ONLY.get((section, key), set()),
                                          "sentence_fields": SENTENCE_FIELDS.get((section, key), (frozenset(),))[0]},
                         id=f"{language}.{section}.{key}.narration{suffix}")
            for language, section, key, strings in STEPS for suffix, text in variants(strings, "narration").items()]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_step_of_every_scene_has_a_narration_table(language):
    for section in BY_ID:
        assert set(BY_ID[section].scene().STEPS) == set(load_locale(language)[section]["steps"]), section


@pytest.mark.parametrize(("language", "section", "key", "strings"), STEPS,
                         ids=[f"{language}.{section}.{key}" for language, section, key, _ in STEPS])
def test_each_caption_the_step_can_show_has_its_own_narration(language, section, key, strings):
    """``narration_tie`` beside ``caption_tie``: what the voice says matches what the screen shows."""
    assert set(variants(strings, "narration")) == set(variants(strings, "caption"))


@pytest.mark.parametrize(("text", "strings"), narrations())
def test_a_narration_is_one_to_four_sentences_of_8_to_80_words(text, strings):
    words = without_fields(text, strings["sentence_fields"])
    assert 1 <= len([part for part in SENTENCE_END.split(words) if part.strip()]) <= 4
    assert 8 <= len(words.split()) <= 80
    assert words.rstrip()[-1] in ".?!…", "a narration ends its last sentence"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sentences_a_field_brings_end_themselves(language):
    for (section, _), (_, prefix) in SENTENCE_FIELDS.items():
        sentences = [text for key, text in load_locale(language)[section]["answer_pieces"].items() if key.startswith(prefix)]
        assert sentences and all(text.rstrip()[-1] in ".?!…" for text in sentences), section


@pytest.mark.parametrize(("text", "strings"), narrations())
def test_a_narration_only_uses_fields_its_step_fills(text, strings):
    filled = set().union(*(fields(caption) for caption in variants(strings, "caption").values()))
    assert fields(text) <= filled | strings["narration_only"]


@pytest.mark.parametrize(("text", "strings"), narrations())
def test_a_narration_has_no_typed_digits_or_symbols_a_voice_cannot_say(text, strings):
    assert UNSPEAKABLE.findall(without_fields(plain(text))) == []  # a [[marker]] is never said


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_script_and_the_spoken_numbers_have_their_strings(language):
    script, spoken = load_locale(language)["script"], load_locale(language)["spoken"]
    assert {"title", "intro", "file", "silent", "voice", "step"} <= set(script)
    for audio_format in ("WAV", "FLAC", "MP3", "M4A", "OGG"):
        assert audio_format in script["intro"]
    assert "render.py render --narration" in script["intro"]
    assert set(spoken) == {"decimal_mark", "power_of_ten", "blank", "subscript", "notation", "signs", "terms",
                           "letters"}
    assert spoken["decimal_mark"] == DECIMAL_MARKS[language]


def test_keys_have_one_spanish_word_everywhere():
    """Issue 12: one word for "keys" in every section: "clave", as the lesson's K = XW_K ("claves") says."""
    text = (LOCALES / "es.toml").read_text(encoding="utf-8").lower()
    assert "llave" not in text and "claves" in text
