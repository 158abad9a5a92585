"""The whole lecture's title card lists its sections, numbered, under the lesson's title: a student sees the road
before the first step (the seeds' lesson is a sequence of sections: clase 04's index). Measured on the card as
drawn at 720p: each section's title as the locale writes it, in the registry's order, legible, inside the frame,
numbers and titles each in a column, no line over another; and the silent lecture's captions carry the list."""

import re
from types import SimpleNamespace

import pytest
from manim import config, tempconfig

from lesson.locale import load_locale
from lesson.references import lecture_cards
from lesson.sections import SECTION_IDS
from scenes import style
from scenes.cards import OpeningCard
from scenes.visuals import baseline

HD = {"pixel_width": 1280, "pixel_height": 720, "frame_rate": 15, "dry_run": True}
PIXELS_PER_UNIT = 720 / 8
SMALLEST_PIXELS = 16  # a digit's or capital's height at 720p, as everywhere in the lecture


def opening(lang: str, sections) -> OpeningCard:
    card = lecture_cards(SimpleNamespace(course="AI Visual Lab", date=""), load_locale(lang), sections)[0]
    with tempconfig(HD):
        scene = OpeningCard(card)
        scene.render()
    return scene


def agenda_lines(scene: OpeningCard):
    """The card's list: each line's (number, title) texts, found by their text."""
    texts = [part for mobject in scene.mobjects for part in mobject.get_family() if hasattr(part, "text")]
    numbers = [text for text in texts if text.text.isdigit()]
    titles = [text for text in texts if not text.text.isdigit()][-len(numbers):] if numbers else []
    return list(zip(numbers, titles))


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_title_card_lists_the_sections_in_order_numbered_legible_and_in_columns(lang):
    locale = load_locale(lang)
    scene = opening(lang, SECTION_IDS)
    lines = agenda_lines(scene)
    assert [number.text for number, _ in lines] == [str(index) for index in range(1, len(SECTION_IDS) + 1)]
    assert ["".join(re.sub(r"<[^>]+>", "", title.text).split()) for _, title in lines] == \
        ["".join(locale[section]["title"].replace("_k", "k").split()) for section in SECTION_IDS]
    half_width, half_height = config.frame_width / 2 - style.MARGIN, config.frame_height / 2 - style.MARGIN
    for number, title in lines:
        assert number.height * PIXELS_PER_UNIT >= SMALLEST_PIXELS - 0.5, number.text  # a digit's whole height
        assert baseline(number) == pytest.approx(baseline(title), abs=1e-3), title.text
        for part in (number, title):
            assert abs(part.get_left()[0]) <= half_width and abs(part.get_right()[0]) <= half_width, part.text
            assert part.get_bottom()[1] >= -half_height and part.get_top()[1] <= half_height, part.text
    rights = [number.get_right()[0] for number, _ in lines]
    lefts = [title.get_left()[0] for _, title in lines]
    assert max(rights) - min(rights) < 1e-3 and min(lefts) > max(rights)
    assert max(lefts) - min(lefts) < 0.05  # glyphs' side bearings apart, one column
    for (_, upper), (_, lower) in zip(lines, lines[1:]):
        assert upper.get_bottom()[1] > lower.get_top()[1], (upper.text, lower.text)


def test_a_lecture_of_one_section_has_no_list_and_the_silent_captions_carry_the_list():
    assert agenda_lines(opening("es", ["matrix"])) == []
    scene = opening("es", SECTION_IDS)
    titles = [load_locale("es")[section]["title"] for section in SECTION_IDS]
    (_, first), (when, listed) = scene.shown
    assert "Atención y Transformers" in first and when > 0
    assert listed == " · ".join(f"{index}. {title}" for index, title in enumerate(titles, 1))
