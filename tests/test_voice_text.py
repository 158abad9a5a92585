"""What the voice is given (``voice_text``), written for the ear: the screen's notation as the narrations say it,
signs as words, English terms respelled so that espeak-ng's Spanish rules (the draft voice's, and the neural
voice's phonemizer) say them as a Spanish lecturer does; and every narration of every section, at the default
config and at configs that fill other numbers and words, reaches the voice with nothing it would skip or spell
out: no Markdown or TeX, no raw symbol."""

import re
import subprocess

import pytest

from media_checks import system_program
from lesson.locale import load_locale
from lesson.narration_phrases import phrases
from lesson.narration_text import voice_text
from lesson.sections import SECTIONS
from scene_checks import run_scene, shared_scene

SPANISH, ENGLISH = load_locale("es")["spoken"], load_locale("en")["spoken"]


@pytest.mark.parametrize("written, given", [
    ("el softmax de QKᵀ", "el sóftmax de cu por ka transpuesta"),  # a lone letter by its name
    ("Softmax, logit y logits", "Sóftmax, lóyit y lóyits"),  # a term that starts a sentence keeps its capital
    ("el preset de un transformer", "el prisét de un transfórmer"),
    ("la matriz PE.", "la matriz pe e."),
    ("PEPE y softmaxes", "PEPE y softmaxes"),  # whole words only
    ("dividido por √d_k", "dividido por la raíz de de sub ka"),
    ("dividido por √dₖ", "dividido por raíz de de sub ka"),  # Unicode's subscripts too
    ("q_1 y z₁; q_2 y kⱼ", "cu uno y zeta 1; cu 2 y ka sub jota"),
    ("la₃ atiende a «gata»", "la 3 atiende a gata"),  # the heads section's repeated word
    ("Q = XW_Q, d_model/h", "cu igual a XW sub cu, de sub módel entre hache"),  # XW: no lone letter
    ("de «el» a «gato»", "de el a gato"),
    ("(−∞) y −0.90", "(menos infinito) y menos 0,9"),
    ("snake_case", "snake_case"),  # a word's underscore is no subscript: said as typed
])
def test_spanish_notation_signs_and_terms_are_given_as_a_spanish_lecturer_says_them(written, given):
    assert voice_text(written, SPANISH) == given


@pytest.mark.parametrize("written, given", [
    ("the softmax of QKᵀ over √d_k", "the softmax of Q times K transpose over the square root of d sub k"),
    ("the PE matrix, q_1 and “the”", "the P E matrix, q one and “the”"),
    ("√2 ≈ 1.41", "the square root of 2 is about 1.41"),
])
def test_english_notation_and_signs_are_given_in_english(written, given):
    assert voice_text(written, ENGLISH) == given


def phonemes(text: str) -> str:
    """espeak-ng's Spanish phonemes for ``text`` (its -x notation: ' before the stressed vowel)."""
    result = subprocess.run([system_program("espeak-ng", "espeak-ng"), "-q", "-v", "es", "-x"], input=text.encode(),
                            capture_output=True, check=True)
    return " ".join(result.stdout.decode().split())


# As a Spanish lecturer says each term, in espeak-ng's notation: stress on the syllable English stresses, Spanish
# vowels ("D" is the d of "nada", "N" the n of "tengo", "**" a tapped r, "J^" the y of "yo").
LECTURER = [("softmax", "s'oftmaks"), ("token", "t'oken"), ("tokens", "t'okens"), ("embedding", "emb'edDiN"),
            ("preset", "p**is'et"), ("logit", "l'oJ^it"), ("transformer", "t**ansf'ormer"), ("PE", "p'e 'e"),
            ("d sub model", "de s'ub m'oDel"), ("W sub Q", "'uBe D'oBle s'ub k'u")]


@pytest.mark.parametrize("term, said", LECTURER)
def test_the_spanish_voice_says_each_term_as_a_lecturer_does(term, said):
    assert phonemes(voice_text(term, SPANISH)) == said


# A voice reads letters, digits and the punctuation that shapes its intonation; anything else it skips, spells out
# ("_" as "guion bajo") or reads in another language (espeak-ng says "≈" in English).
SAYABLE = re.compile(r"[A-Za-zÁÉÍÓÚÜÑáéíóúüñ0-9\s.,;:?!¿¡…()“”'’-]")
# What espeak-ng says wrongly in Spanish unless the locale's terms respell it.
RAW_TERMS = re.compile("|".join(rf"\b{re.escape(form)}\b" for term in SPANISH["terms"]
                                for form in (term, term[:1].upper() + term[1:])))
# Configs that fill the narrations with other numbers and words: larger scores and the causal mask, a d_k whose
# softmax spreads, a sentence with a repeated word (la₁, la₂) and punctuation, an odd d, a negative identity, a
# causal lab sentence at another temperature.
VARIANTS = [("matrix", ("matrix.causal=true", "matrix.preset='large_scores'")), ("scaling", ("scaling.d_k=1",)),
            ("heads", ('heads.sentence="La niña vio a la gata, ¿no? y la llamó."',)),
            ("positional", ("positional.n_positions=2", "positional.d_model=3", "positional.base=1.0001")),
            ("capital", ("capital.identity=-0.37",)),
            ("pipeline", ("pipeline.sentence='la red neuronal aprende rapido'", "pipeline.query=4",
                          "pipeline.temperature=0.5", "pipeline.causal=true"))]


def unsayable(scene, spoken: dict = SPANISH) -> list[str]:
    """Each phrase of a step whose voice text holds characters a voice cannot say (or, in Spanish, a term left as
    written); the voice is given a step's narration phrase by phrase."""
    found = []
    for step in scene.steps:
        for phrase in phrases(step.narration["text"]):
            given = voice_text(phrase.text, spoken)
            raw_terms = RAW_TERMS.findall(given) if spoken is SPANISH else []
            if SAYABLE.sub("", given) or raw_terms:
                found.append(f"{scene.section_id}.{step.key}: {SAYABLE.sub('', given)!r} {raw_terms} in {given!r}")
    return found


@pytest.mark.parametrize("section", [section.id for section in SECTIONS])
def test_every_narration_of_the_default_lecture_is_sayable(section):
    scene = shared_scene(section)
    assert all(step.narration.get("text") for step in scene.steps)
    assert unsayable(scene) == []


@pytest.mark.parametrize("section", [section.id for section in SECTIONS])
def test_every_narration_of_the_english_lecture_is_sayable(section):
    assert unsayable(run_scene(section, 'lecture.lang="en"'), ENGLISH) == []


@pytest.mark.parametrize("section, overrides", VARIANTS, ids=[" ".join(overrides) for _, overrides in VARIANTS])
def test_the_narrations_of_other_configs_are_sayable(section, overrides):
    assert unsayable(run_scene(section, *overrides)) == []


def test_the_check_finds_what_a_voice_cannot_say():
    """The check itself, on what the narrations held before the locale's tables: raw terms and signs."""
    assert SAYABLE.sub("", "hasta 2.0·10⁴ con d_k ≈ 8 y «el»") == "·⁴_≈«»"
    assert RAW_TERMS.findall("El softmax de un Transformer") == ["softmax", "Transformer"]
