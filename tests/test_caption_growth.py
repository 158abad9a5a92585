"""A caption read on screen never states a number before the screen shows it: a caption's words after a marker
``[[beat]]`` come with the play after that beat, as a voice would say them (lesson.narration_phrases.caption_parts),
on screen and in the subtitles of a clean render alike."""

from __future__ import annotations

import re

import pytest

from lecture.render.captions import section_tracks
from lesson.locale import load_locale
from lesson.narration_phrases import MARKER, caption_parts
from lesson.records import StepRecord
from lesson.sections import SECTIONS
from scene_checks import shared_recorded

NUMBER = re.compile(r"\d+[.,]\d+|\d{2,}")  # results: a "suma 1" states a rule
LEAD = 1.0  # seconds: a caption's words come just before the play that draws their number (CAPTION_GROWS)


def test_a_caption_is_cut_at_its_markers_each_part_the_caption_so_far():
    assert caption_parts("Cada fila suma 1. [[lines]]Los pesos de «gato» van de 0.12 a 0.16.") == [
        ("", "Cada fila suma 1."), ("lines", "Cada fila suma 1. Los pesos de «gato» van de 0.12 a 0.16.")]
    assert caption_parts("A: [[one]]b, [[two]]c.") == [("", "A:"), ("one", "A: b,"), ("two", "A: b, c.")]
    assert caption_parts("Sin marcas.") == [("", "Sin marcas.")]


@pytest.mark.parametrize("section", [section.id for section in SECTIONS])
def test_both_languages_grow_a_caption_at_the_same_beats(section):
    spanish, english = load_locale("es")[section]["steps"], load_locale("en")[section]["steps"]
    for key, strings in spanish.items():
        for name, text in strings.items():
            if name.startswith("caption"):
                assert MARKER.findall(text) == MARKER.findall(english[key][name]), (section, key, name)


def shown_texts(mobjects) -> str:
    """Every text among ``mobjects`` and their parts, as shown."""
    return " ".join(getattr(part, "shown_text", None) or getattr(part, "tex_string", "") or ""
                    for mobject in mobjects for part in mobject.get_family())


def caption_on_screen(step: StepRecord) -> list[tuple[float, str]]:
    """(time, caption shown from then) over the step: as it grew, or whole from the step's start."""
    return getattr(step, "grown", None) or [(step.start, step.caption)]


@pytest.mark.parametrize("section, key", [("pipeline", "softmax"), ("learned", "loss")])
def test_a_silent_caption_states_the_steps_numbers_only_once_they_are_drawn(section, key):
    """The steps two reviews found stating their result 30 s before drawing it: each number the caption states
    that the step draws is on screen when the caption states it (left there by the step before) or being drawn (by
    a play of the step that starts within LEAD of it), as a voice says a result with the play that draws it."""
    scene, log = shared_recorded(section)
    number = next(number for number, step in enumerate(scene.steps) if step.key == key)
    step = scene.steps[number]
    plays = [entry for kind, entry in log if kind == "play" and step.start - 1e-6 <= entry.start < step.end]
    drawn_in_step = set(NUMBER.findall(shown_texts([m for play in plays for m in play.animated])))
    there_before = {found for text in scene.steps[number - 1].texts for found in NUMBER.findall(text.text)}
    assert drawn_in_step, "the step draws numbers: the check has something to check"
    for time, caption in caption_on_screen(step):
        drawn = there_before | set(NUMBER.findall(shown_texts(
            [m for play in plays if play.start <= time + LEAD for m in play.animated])))
        early = (set(NUMBER.findall(caption)) & drawn_in_step) - drawn
        assert not early, f"{section}/{key} at {time - step.start:.1f} s states {sorted(early)} before drawing them"


def test_a_clean_renders_subtitle_grows_as_the_caption_on_screen():
    """A step's subtitle (a silent render without burned captions) shows each part from when it came on screen,
    never the later words before."""
    step = StepRecord(key="loss", title="La pérdida", caption="A. B 3.", start=1.0, end=9.0,
                      grown=[(1.0, "A."), (5.5, "A. B 3.")])
    cues = section_tracks([step], 9.0).cues
    assert [(start, end, text) for start, end, text in cues] == [(0.0, 5.5, "A."), (5.5, 9.0, "A. B 3.")]
