"""Review s16 (/tmp/s16/review/review-k.md, «04-positional», graded 9), three of its notes:
- the opener dimmed W_Q, W_K and W_V to 1.44-1.50:1 contrast while the voice said «comparemos cada palabra»: a dimmed
  part now reads at 3:1 at least, and still less than lit;
- «1.14» could not be had from the boxed cells on screen (2.36 − 1.21 = 1.15): the two entries it is the gap of are
  now written after it with the decimals that give it (2.357 − 1.215);
- the closing caveat «w₁ y w₂ están construidas a mano…» was 14.1 px high: 16 px at least.
Measured on the built mobjects, against numbers worked out here with numpy."""

import re

import numpy as np
import pytest
from manim import interpolate_color

from lesson.numbers import parse_number
from lesson.steps import parse_steps
from scenes import style
from scenes.positional import Dimmer, PositionalScene
from tests.scene_checks import run_scene
from tests.test_positional_review12 import step_of
from tests.test_positional_review13 import PERMUTATION
from tests.test_scene_positional import both_sentences, wcag_contrast

PIXELS = 720 / 8  # 720p pixels per frame unit
LEGIBLE = 16  # px at 720p: the least cap height of a text the review accepts
CHECKABLE = 3.0  # WCAG contrast a dimmed number keeps on the background (the review measured 1.44:1)
STEPS = list(PositionalScene.STEPS)


@pytest.fixture(scope="module")
def opener():
    """Steps 1-2, and every dimming (its parts with their own colours and opacities, and the share it goes to)."""
    dimmings = []
    to = Dimmer.to

    def recorded_to(dimmer, share):
        dimmings.append((dimmer, share))
        return to(dimmer, share)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Dimmer, "to", recorded_to)
        scene = run_scene("positional", steps=parse_steps("permutation..with_pe", STEPS))
    return scene, dimmings


def test_a_dimmed_number_can_still_be_read(opener):
    _, dimmings = opener
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


def test_the_largest_difference_is_written_with_the_entries_that_give_it(opener):
    scene, _ = opener
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


def test_the_closing_caveat_is_legible():
    scene = run_scene("positional", steps=parse_steps("sum", STEPS))
    caveat = [text for text in step_of(scene, "sum").texts if "a mano" in text.text]
    assert caveat
    assert min(text.cap_height for text in caveat) * PIXELS >= LEGIBLE
