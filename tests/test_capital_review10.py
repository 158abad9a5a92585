"""Capital at the tenth review (grade 9): step 12 said «los ocho logits valen cero» over a chart of probabilities only
(the logits, and why they vanish, were left to the student). Now the line under the chart writes them with step 8's
numbers: LN(r)'s country number times W_out's country row plus b_out, for París and Roma (the other six columns are
null: step 8 says so)."""

import re

import numpy as np
import pytest

from attn_math.capital import capital_walkthrough
from lesson.numbers import format_number, parse_number
from lesson.steps import parse_steps
from scene_checks import PacedSpeaker, run_scene
from scenes.capital import CapitalScene

NUMBER = r"\(?[−-]?\d+\.\d+\)?"


@pytest.fixture(scope="module")
def undecided():
    scene = run_scene("capital", narration=PacedSpeaker(), steps=parse_steps("undecided", list(CapitalScene.STEPS)))
    return next(step for step in scene.steps if step.key == "undecided")


def test_the_tie_writes_its_logits_from_step_eights_numbers(undecided):
    lines = [text.text for text in undecided.texts if "logits:" in text.text]
    assert len(lines) == 1, [text.text for text in undecided.texts]
    sums = re.findall(rf"(París|Roma)=({NUMBER})·({NUMBER})([+−])({NUMBER})([=≈])({NUMBER})", lines[0].replace(" ", ""))
    assert [word for word, *_ in sums] == ["París", "Roma"], lines[0]
    walk = capital_walkthrough(0.0)  # identity 0: no country
    for word, country, weight, sign, bias, relation, logit in sums:
        country, weight, bias, logit = (parse_number(text.strip("()")) for text in (country, weight, bias, logit))
        bias = bias if sign == "+" else -bias
        # step 8's W_out and b_out, and LN(r) at identity 0, recomputed: (r − μ)/σ of the country's residual
        r = walk.residual
        assert country == pytest.approx(((r - r.mean()) / r.std())[2], abs=0.005)
        assert f"LN(r)₂ = {format_number(country)}" in lines[0]
        assert abs(weight) == pytest.approx(3.10) and abs(bias) == pytest.approx(0.684, abs=5e-4)
        assert logit == pytest.approx(0.0, abs=0.005) and country * weight + bias == pytest.approx(logit, abs=0.005)
        assert relation == "="  # the written numbers give the written logit
    assert np.allclose(walk.logits, 0.0)  # all eight, as the line's «0» for the other six says


def test_the_line_comes_as_the_voice_says_the_logits_are_zero(undecided):
    phrase = next(phrase for phrase in undecided.narration["phrases"] if phrase[3] == "zero")
    assert "logits" in phrase[0]
