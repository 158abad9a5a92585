"""A narrated step's captions (issue 30): every spoken sentence of every step of every section, in both
languages, is shown in blocks of at most two lines of at most 42 characters, no word lost or moved (the notation
written as the screen writes it), the blocks one after the other across the sentence's time in the recording.
Every text a subtitle shows, spoken or not, writes the notation as the screen does."""

import re
import textwrap
from string import Formatter

import pytest

from lecture.render.captions import section_tracks, subtitle_text
from lesson.locale import languages, load_locale
from lesson.narration_phrases import plain
from lesson.narration_text import sentences
from lesson.records import StepRecord
from lesson.sections import BY_ID

STAND_IN = "\u221212.34"  # a field as wide as a scene's widest number
SECONDS_PER_CHARACTER = 0.06  # about what the draft voice takes


def filled(template: str) -> str:
    """``template`` with each field filled with STAND_IN, or with an index where it is a subscript (q_{i})."""
    return "".join(literal + ("" if field is None else "2" if literal.endswith("_") else STAND_IN)
                   for literal, field, _, _ in Formatter().parse(template))


def step_texts(language: str, kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    """(where, text) of every step string in the locale whose name starts with one of ``kinds``, fields filled."""
    return [(f"{section}.{key}.{name}", filled(template)) for section in BY_ID
            for key, strings in load_locale(language)[section]["steps"].items()
            for name, template in strings.items() if name.startswith(kinds)]


def narrations(language: str) -> list[tuple[str, str]]:
    """(where, text) of every narration variant in the locale, each field filled with STAND_IN."""
    return step_texts(language, ("narration",))


def spoken_step(key: str, text: str) -> StepRecord:
    """A step whose voice said ``text``, each sentence timed by its length, a pause between two."""
    timed, time = [], 1.0
    for part in sentences(text):
        timed.append([part, time, time + SECONDS_PER_CHARACTER * len(part)])
        time = timed[-1][2] + 0.3
    return StepRecord(key=key, title=key, caption=text, start=0.0, end=time + 0.5, narration={"sentences": timed})


@pytest.mark.parametrize("language", languages())
def test_every_narrated_step_is_captioned_in_blocks_of_two_lines_at_most(language):
    long_sentences = 0
    for where, text in narrations(language):
        step = spoken_step(where, text)
        cues = section_tracks([step], step.end, lang=language).cues
        for start, end, caption in cues:
            lines = caption.split("\n")
            assert len(lines) <= 2 and max(map(len, lines)) <= 42, (where, caption)
            assert end > start
        assert " ".join(caption for _, _, caption in cues).split() == subtitle_text(text, language).split(), where
        for part, begin, finish in step.spoken:  # the blocks of a sentence tile its time, in order
            inside = [(start, end) for start, end, _ in cues if begin - 1e-3 <= start < finish]
            assert inside[0][0] == pytest.approx(begin, abs=1e-3) and inside[-1][1] == pytest.approx(finish, abs=1e-3)
            assert all(a[1] == pytest.approx(b[0], abs=1e-3) for a, b in zip(inside, inside[1:]))
            long_sentences += len(textwrap.wrap(part, 42)) > 2
    assert long_sentences > 20  # the check meets sentences that one two-line block cannot hold


# What a subtitle must not show: Markdown or TeX, or a lower-case subscript said in words that Unicode can write
# ("d sub k" is dₖ; "W sub Q" and "d sub model" stay: Unicode has no capital subscripts and no subscript d), or a
# Greek letter by its name (the screen writes μ, σ, ω, Δ; the voice says their names: spoken.signs).
NOT_TYPESET = re.compile(r"[_^\\$`*{}]|\b[a-z] sub [0-9aehijklmnoprstuvx]+\b|\b(?:mu|sigma|omega|delta)\b")


@pytest.mark.parametrize("language", languages())
def test_every_text_a_subtitle_shows_writes_the_notation_as_the_screen_does(language):
    closing = [(f"closing.{section}", filled(card[name]))
               for section, card in load_locale(language)["closing"].items() for name in ("text", "question")]
    texts = step_texts(language, ("caption", "narration", "question")) + closing
    # as subtitled: a narration's [[markers]] (names like same_x) are never shown
    assert [(where, text) for where, text in texts if NOT_TYPESET.search(subtitle_text(plain(text), language))] == []


def test_the_check_finds_what_is_not_typeset():
    assert NOT_TYPESET.findall("d_k y d sub k, W sub Q, d sub model") == ["_", "d sub k"]
    assert NOT_TYPESET.findall("resta su media, mu, y divide por sigma; μ y σ") == ["mu", "sigma"]
