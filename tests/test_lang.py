"""Numbers follow the locale: its ``numbers.decimal_separator`` writes every decimal of a section, in the
figures, the captions, the question cards and the narration's text alike; the lesson's own choice, a point,
is what a default render shows. And the files a language touches name it: caption tracks and decks."""

import copy
import re

import pytest

from lecture.render.captions import lecture_tracks, section_tracks
from lecture.publish.decks import Deck
from lecture.render.jobs import JobResult
from lecture.publish.script import script_markdown
from lesson.locale import load_locale
from lesson.numbers import DECIMAL, use_decimal_separator, written_numbers
from lesson.records import StepRecord
from tests.media_checks import step_record
from tests.scene_checks import records, run_scene, shared_scene

COMMA_DECIMAL = re.compile(r"\d,\d")


@pytest.fixture(scope="module")
def capital():
    """The capital section (numbers in every figure, decimals typed in captions and questions) written with
    the lesson's decimal point, and again with the Spanish locale switched to a decimal comma."""
    comma = copy.deepcopy(load_locale("es"))
    comma["numbers"]["decimal_separator"] = ","
    try:
        switched = run_scene("capital", locale=comma)
    finally:
        use_decimal_separator(".")
    return shared_scene("capital"), switched


def shown_numbers(scene) -> list[str]:
    return [text for step in scene.steps for rows in step.numbers.values() for row in rows for text in row if text]


def test_a_default_render_writes_decimals_with_a_point_everywhere(capital):
    point, _ = capital
    numbers = shown_numbers(point)
    assert sum("." in text for text in numbers) > 50 and not any("," in text for text in numbers)
    texts = [record.caption for record in records(point)] + [step.narration["text"] for step in point.steps]
    assert any(DECIMAL.search(text) for text in texts)
    assert not any(COMMA_DECIMAL.search(text) for text in texts)


def test_a_decimal_comma_changes_figures_captions_cards_and_narration_alike(capital):
    point, comma = capital
    assert [step.key for step in comma.steps] == [step.key for step in point.steps]
    for before, after in zip(point.steps, comma.steps):
        assert after.numbers == {name: [[text and text.replace(".", ",") for text in row] for row in rows]
                                 for name, rows in before.numbers.items()}, before.key
        assert after.caption == written_numbers(before.caption, ","), before.key
        assert after.narration["text"] == written_numbers(before.narration["text"], ","), before.key
    for before, after in zip(point.cards, comma.cards):
        assert after.caption == written_numbers(before.caption, ","), before.key
    changed = [(before.key, part) for before, after in zip(records(point), records(comma))
               for part in ("caption", "numbers") if getattr(before, part, None) != getattr(after, part, None)]
    assert {part for _, part in changed} == {"caption", "numbers"}
    assert any(before.narration["text"] != after.narration["text"] for before, after in zip(point.steps, comma.steps))
    assert any("0,125" in record.caption for record in records(comma))  # a decimal the locale types itself


def test_caption_tracks_and_decks_are_marked_with_the_lecture_language():
    steps = [step_record("T", "C", 1.0)]
    assert section_tracks(steps, 2.0).language == "spa"
    assert section_tracks(steps, 2.0, lang="en").language == "eng"
    assert lecture_tracks([(steps, 2.0, [])], lang="en").language == "eng"
    deck = Deck(title="T", sections=(), width=16, height=9, background="#000000")
    assert deck.language == "es-ES"
    assert Deck(title="T", sections=(), width=16, height=9, background="#000000", lang="en").language == "en-GB"


def test_the_narration_script_is_written_in_the_chosen_language_with_its_decimal_separator():
    step = StepRecord(key="formula", title="The formula", caption="C", start=0.0, read_until=6.3,
                      narration={"file": "01-formula", "text": "This is the attention formula."})
    english = script_markdown([JobResult(section="matrix", steps=[step])], load_locale("en"))
    assert english.startswith("# Narration script\n")
    assert "## 1. From X to Z: attention, cell by cell" in english and "### Step 1: The formula" in english
    assert "- Length without voice: 6.3 s" in english
    comma = copy.deepcopy(load_locale("es"))
    comma["numbers"]["decimal_separator"] = ","
    spanish = script_markdown([JobResult(section="matrix", steps=[step])], comma)
    assert "- Duración sin voz: 6,3 s" in spanish and "> This is the attention formula." in spanish
