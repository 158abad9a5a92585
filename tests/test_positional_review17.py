"""Review s16 (/tmp/s16/review/review-k.md, «04-positional», graded 9), five of its notes:
- the opener dimmed W_Q, W_K and W_V to 1.44-1.50:1 contrast while the voice said «comparemos cada palabra»: a dimmed
  part now reads at 3:1 at least, and still less than lit;
- «1.14» could not be had from the boxed cells on screen (2.36 − 1.21 = 1.15): the two entries it is the gap of are
  now written after it with the decimals that give it (2.357 − 1.215);
- the closing caveat «w₁ y w₂ están construidas a mano…» was 14.1 px high: 16 px at least;
- the hands' turn on to Δ = 4 («229») came after step 7's voice, in silence: it is now said as it turns;
- step 8 opened on 4 s of empty axes while its voice began: the sum of cosines is written as it does.
Measured on the built mobjects, against numbers worked out here with numpy."""

import re

import numpy as np
import pytest
from manim import interpolate_color

from lesson.numbers import parse_number
from scenes import style
from scenes.positional import Dimmer
from scenes.lesson_scene import LessonScene
from tests.scene_checks import PacedSpeaker, Play, run_scene
from tests.test_positional_review12 import step_of
from tests.test_positional_review13 import PERMUTATION
from tests.test_scene_positional import both_sentences, wcag_contrast

PIXELS = 720 / 8  # 720p pixels per frame unit
LEGIBLE = 16  # px at 720p: the least cap height of a text the review accepts
CHECKABLE = 3.0  # WCAG contrast a dimmed number keeps on the background (the review measured 1.44:1)


@pytest.fixture(scope="module")
def spoken():
    """The default section spoken at the narration's pace, with every play and every dimming (its parts with their own
    colours and opacities, and the share it goes to)."""
    plays, dimmings = [], []
    play, to = LessonScene.play, Dimmer.to

    def logged_play(scene, *animations, **options):
        start = scene.renderer.time
        play(scene, *animations, **options)
        plays.append(Play(start, scene.renderer.time, animations))

    def logged_to(dimmer, share):
        dimmings.append((dimmer, share))
        return to(dimmer, share)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", logged_play)
        patch.setattr(Dimmer, "to", logged_to)
        scene = run_scene("positional", narration=PacedSpeaker())
    return scene, plays, dimmings


def test_a_dimmed_number_can_still_be_read(spoken):
    _, _, dimmings = spoken
    dimmed = [(dimmer, share) for dimmer, share in dimmings if share < 1.0]
    assert dimmed
    for dimmer, share in dimmed:
        for part, fill, _ in dimmer.parts:
            if not fill.size or fill.max() == 0:
                continue
            colour = part.get_fill_color()
            seen = interpolate_color(style.BACKGROUND, colour, float(fill.max()) * share)
            lit = wcag_contrast(colour, style.BACKGROUND)
            assert CHECKABLE <= wcag_contrast(seen, style.BACKGROUND) < lit, (colour, share)


def test_the_largest_difference_is_written_with_the_entries_that_give_it(spoken):
    scene, _, _ = spoken
    step = step_of(scene, "with_pe")
    outputs = both_sentences(with_pe=True)
    gaps = np.abs(outputs["B"] - outputs["A"][PERMUTATION])
    row_b, column = np.unravel_index(np.argmax(gaps), gaps.shape)
    entries = sorted((outputs["A"][PERMUTATION[row_b], column], outputs["B"][row_b, column]), reverse=True)
    shown = step.numbers["difference"][0][0]
    assert shown == f"{gaps.max():.2f}"
    word = next((text.text for text in step.texts if "«" in text.text and "−" in text.text), "")
    assert word, "the difference's word comes with no entries"
    written = [parse_number(number) for number in re.findall(r"\d+\.\d+", word)]
    assert len(written) == 2, word
    places = len(re.findall(r"\d+\.(\d+)", word)[0])
    assert written == pytest.approx([round(entry, places) for entry in entries], abs=1e-9)
    assert f"{written[0] - written[1]:.2f}" == shown  # a student's subtraction of what is written gives the 1.14
    boxed = [row[column] for row in (step.numbers["Z_A_pe"][PERMUTATION[row_b]], step.numbers["Z_B_pe"][row_b])]
    assert sorted(parse_number(cell) for cell in boxed) == sorted(round(entry, 2) for entry in entries)


def test_the_closing_caveat_is_legible(spoken):
    scene, _, _ = spoken
    caveat = [text for text in step_of(scene, "sum").texts if "a mano" in text.text]
    assert caveat
    assert min(text.cap_height for text in caveat) * PIXELS >= LEGIBLE


def phrases(step) -> list[tuple[str, float, float]]:
    return [(text, start, end) for text, start, end, *_ in step.narration["phrases"]]


def test_the_turn_on_to_delta_four_is_said_as_it_turns(spoken):
    """The fastest hand (ω = 1) turns 229° over Δ = 4, from pos 8 to pos 12: those turns land while a phrase saying
    «229» is spoken (before: after the step's voice, then 3.45 s of silence)."""
    scene, plays, _ = spoken
    step = step_of(scene, "clock_hands")
    fastest = f"{np.degrees(4 * 10000.0 ** 0):.0f}"
    assert fastest == "229"
    landing = min(play.start for play in plays if step.start <= play.start < step.end
                  and any(name == "turn_to_12" for name, _ in play.tags()))
    said = [(start, end) for text, start, end in phrases(step) if fastest in text and "12" in text]
    assert said, phrases(step)
    assert any(start - 0.05 <= landing <= end for start, end in said), (landing, said)


def test_the_similarity_step_writes_its_sum_while_its_first_phrase_is_said(spoken):
    """Step 8 opened on empty axes for 4 s while the voice said «Entre dos posiciones a Δ pasos, el producto punto»:
    the product, written as a sum of cosines, is on screen before that phrase ends."""
    scene, plays, _ = spoken
    step = step_of(scene, "similarity")
    written = min(play.end for play in plays if step.start <= play.start < step.end and "Write" in play.kinds)
    first = next(end for text, _, end in phrases(step) if "producto punto" in text)
    assert written <= first, (written - step.start, first - step.start)
