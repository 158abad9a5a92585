"""Every section in English (lecture.lang = "en"), at the default config and at the largest ones the Spanish
scene tests use (English sentences where a section reads one): the checks a lecture must pass (no text
overlapping, nothing out of frame, nothing under 14 px, numbers as the lesson writes them, reading time), and
nothing Spanish left on screen, in a caption or in the narration."""

import re
from dataclasses import replace

import pytest

from attn_math.cross import TRANSLATIONS
from attn_math.lab import LAB_SENTENCES, lab_tokens, spelled
from lesson.sections import SECTIONS

from tests.scene_checks import lecture_problems, records, run_scene
from tests.test_locale_parity import SPANISH_LETTERS, SPANISH_WORDS
from tests.test_scene_matrix import W_4x4, W_DECIMALS, X_DECIMALS
from tests.test_scene_pipeline import RUNS
from tests.test_scene_positional import LARGEST as POSITIONAL_LARGEST
from tests.test_scene_scaling import LARGEST as SCALING_LARGEST

ENGLISH = 'lecture.lang="en"'
# Twelve words, the most the heads accept, long ones among them (as the Spanish test's longest sentence).
HEADS_LONGEST = ("the uncharacteristically overcommitted electroencephalographer acknowledged that she "
                 "had irresponsibly misinterpreted it again")
# 32 words, the most the pipeline accepts, some of them long.
PIPELINE_LONGEST = ("the extraordinarily complicated mechanism of self attention lets every word look "
                    "directly at all the others and decide how much attention it should pay to each of them "
                    "according to internationalized representations")
# The most tokens whose matrices still show their numbers, each word long.
PIPELINE_EIGHT_LONG = ("electroencephalographers internationalizations disproportionately counterrevolutionaries "
                       "incomprehensibilities uncharacteristically otorhinolaryngologists deinstitutionalization")
# Besides its default, each section at its largest configs.
LARGEST = {
    "matrix": [(f"matrix.X={X_DECIMALS}", f"matrix.W_Q={W_DECIMALS}", f"matrix.W_K={W_4x4}",
                f"matrix.W_V={W_DECIMALS}")],
    "scaling": [SCALING_LARGEST],
    "heads": [(f'heads.sentence="{HEADS_LONGEST}"',)],
    "positional": [POSITIONAL_LARGEST],
    "capital": [("capital.identity=-0.37",), ("capital.identity=0.0",)],
    "pipeline": [replace(RUNS["longest"], sentence=PIPELINE_LONGEST).overrides(),
                 replace(RUNS["eight long words"], sentence=PIPELINE_EIGHT_LONG).overrides()],
    "learned": [],  # a larger model trains for a minute: its longest sequence is checked in test_scene_learned
}
# Every section of the registry at its default: a section without larger configs here still runs in English.
CASES = [pytest.param(section.id, overrides, id=f"{section.id}-{'default' if not overrides else f'config{index}'}")
         for section in SECTIONS for index, overrides in enumerate([(), *LARGEST.get(section.id, [])])]
WORD = re.compile(r"[^\W\d_]+")


def test_every_section_is_checked_in_english_at_its_largest_configs_too():
    """A section of the registry missing from LARGEST would be checked at its default only."""
    assert set(LARGEST) == {section.id for section in SECTIONS}


def lab_words(scene) -> set[str]:
    """The names of the lab's sentences (the pipeline's selector shows them with any sentence) and the words of
    all three (exercises 1 and 4 are read on each, in a table, whatever the sentence run): Spanish on purpose (the
    lab is Spanish only)."""
    if scene.section_id != "pipeline":
        return set()
    tokens = [token for sentence in LAB_SENTENCES.values() for token in lab_tokens(sentence)]
    return {spelled(word).lower() for word in (*tokens, *LAB_SENTENCES)}


CITATION_LATIN = "et al."  # "Elhage et al., 2021" in either language: its "al" is Latin, not Spanish


def translation_words(scene) -> set[str]:
    """The heads' cross-attention card of an English lecture translates its sentence into Spanish: the decoder's
    tokens («perro», «María», «ladró») are Spanish on purpose."""
    if scene.section_id != "heads":
        return set()
    return {word.lower() for token, *_ in TRANSLATIONS.get(scene.result.sentence, ()) for word in WORD.findall(token)}


def spanish_left(scene) -> list[str]:
    """Texts on screen, captions and narrations with a Spanish letter or word (the lab's own words aside)."""
    texts = [(record.key, text.text) for record in records(scene) for text in record.texts]
    texts += [(record.key, record.caption) for record in records(scene)]
    texts += [(step.key, step.narration.get("text", "")) for step in scene.steps]
    exempt = lab_words(scene) | translation_words(scene)
    left = []
    for key, text in texts:
        rest = WORD.sub(lambda word: "" if word.group().lower() in exempt else word.group(),
                        text.replace(CITATION_LATIN, ""))
        if SPANISH_LETTERS.search(rest) or {word.lower() for word in WORD.findall(rest)} & SPANISH_WORDS:
            left.append(f"{key}: {text!r}")
    return left


@pytest.mark.parametrize(("section", "overrides"), CASES)
def test_every_section_passes_the_viewer_checks_in_english(section, overrides):
    scene = run_scene(section, ENGLISH, *overrides)
    assert lecture_problems(scene) == []
    assert spanish_left(scene) == []
