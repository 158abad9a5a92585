"""Capital at the eleventh review: step 2 («X = embeddings + PE») said «senos y cosenos» but wrote no formula (section 4
does). Now it writes PE(pos, 2i) = sin(pos/10000^(2i/3)) and PE(pos, 2i+1) = cos(…) with this section's d = 3 above
the matrices, and works one entry of PE out from it under them, framing that entry in PE, as the voice says why it is
so small."""

import re

import numpy as np
import pytest
from manim import config

from attn_math.capital import D_MODEL, capital_walkthrough
from lesson.numbers import format_number, parse_number
from scenes.capital import CapitalScene
from lesson.steps import parse_steps
from tests.scene_checks import PacedSpeaker, run_scene
from tests.test_capital_review8 import LEAST_DIGIT, PIXELS, clearance, logged_boxes, on_screen, record

MARGIN = 0.3  # frame units every text keeps from the frame's edge
APART = 0.2  # frame units between the formulas and the matrices' labels and digits (about 18 px at 720p)
LEAST_FORMULA_CAP = 14.0  # px at 720p: the formula's smallest glyphs (its subscripts), as scene_checks' legibility


@pytest.fixture(scope="module")
def positional():
    boxes = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CapitalScene, "play", logged_boxes(CapitalScene, boxes))
        scene = run_scene("capital", narration=PacedSpeaker(), steps=parse_steps("positional", list(CapitalScene.STEPS)))
    return scene, record(scene, "positional"), boxes


def formula_texts(step):
    return [text for text in step.texts if text.text.startswith("PE_")]


def test_step_two_writes_the_sinusoidal_formula_with_d_three(positional):
    _, step, _ = positional
    general = [text.text.replace(" ", "") for text in formula_texts(step) if "pos" in text.text]
    assert len(general) == 1, [text.text for text in step.texts]
    assert rf"\sin\left(pos/10000^{{2i/{D_MODEL}}}\right)" in general[0]
    assert rf"\cos\left(pos/10000^{{2i/{D_MODEL}}}\right)" in general[0]
    assert "PE_{(pos,\\,2i)}" in general[0] and "PE_{(pos,\\,2i+1)}" in general[0]


def test_the_worked_entry_is_the_formula_applied_and_the_number_in_pe(positional):
    """PE(4, 2) = sin(4/10000^(2/3)) = sin(0.0086) = 0.01: the angle and the value recomputed here, the value the one PE
    shows in that cell."""
    scene, step, _ = positional
    worked = [text.text.replace(" ", "") for text in formula_texts(step) if "pos" not in text.text]
    assert len(worked) == 1
    found = re.fullmatch(r"PE_\{\((\d),\\,(\d)\)\}=\\(sin|cos)\\left\((\d)/10000\^\{(\d)/(\d)\}\\right\)"
                         r"=\\(sin|cos)\(([\d.]+)\)(=|\\approx)([\d.−-]+)", worked[0])
    assert found, worked[0]
    pos, dim, name, numerator, even, d, again, angle, relation, value = found.groups()
    pos, dim = int(pos), int(dim)
    assert int(numerator) == pos and int(d) == D_MODEL and int(even) == dim - dim % 2 and name == again
    assert name == ("sin" if dim % 2 == 0 else "cos")
    exact = pos / 10000 ** ((dim - dim % 2) / D_MODEL)
    assert parse_number(angle) == pytest.approx(exact, abs=5e-5)
    entry = getattr(np, name)(exact)
    assert parse_number(value) == pytest.approx(entry, abs=0.005)
    PE = on_screen(scene, "positional")
    assert PE.entries[pos][dim].shown_text == value == format_number(capital_walkthrough().positional[pos, dim])
    assert relation == ("=" if format_number(getattr(np, name)(parse_number(angle))) == value else r"\approx")


def test_the_worked_entry_is_framed_in_pe(positional):
    scene, _, boxes = positional
    framed = [corners for key, _, corners, _ in boxes if key == "positional"]
    assert len(framed) == 1
    left, right, bottom, top = framed[0]
    PE = on_screen(scene, "positional")
    inside = [(i, j) for i, row in enumerate(PE.entries) for j, entry in enumerate(row)
              if left < entry.get_x() < right and bottom < entry.get_y() < top]
    assert inside == [(4, 2)]
    _, _, _, glyphs = next(box for box in boxes if box[0] == "positional")
    assert min(clearance(framed[0], glyph) for glyph in glyphs) > 0  # it crosses no digit


def test_the_formulas_stay_clear_of_the_matrices_legible_and_inside_the_frame(positional):
    scene, step, _ = positional
    formulas = formula_texts(step)
    assert len(formulas) == 2
    others = [text for text in step.texts if text not in formulas and text.top < 3.0 and text.bottom > -3.3]
    for formula in formulas:
        for other in others:
            apart = max(formula.bottom - other.top, other.bottom - formula.top,
                        formula.left - other.right, other.left - formula.right)
            assert apart >= APART, (formula.text, other.text)
        assert MARGIN - config.frame_width / 2 <= formula.left and formula.right <= config.frame_width / 2 - MARGIN
        assert formula.cap_height * PIXELS >= LEAST_FORMULA_CAP
    digits = [text for text in step.texts if text.text[-1:].isdigit() and not text.text.startswith("PE_")]
    assert min(text.cap_height * PIXELS for text in digits) >= LEAST_DIGIT  # the matrices did not shrink for them


def test_the_voice_names_the_formula_and_the_entry_as_they_come(positional):
    _, step, _ = positional
    plays = [phrase[3] for phrase in step.narration["phrases"] if phrase[3]]
    assert plays == ["formula", "entry", "sum"]
    entry = next(phrase for phrase in step.narration["phrases"] if phrase[3] == "entry")
    assert "posición cuatro" in entry[0]
