"""Capital at the seventeenth review (/tmp/s16/review/review-k.md, «05-capital»): step 14's two number lines had no
zero, and «sin país 0.00» stood over a dot at −0.17 (after ÷σ, −0.22), so a student read the identity as the dot's
coordinate and could not see why ÷σ moved it left; «≈ 5.77» (2.69·2.14 = 5.76) and «≈ 0.55» (0.5556) were explained
only as «the last decimal varies».

Now each line marks its zero where the dots' own scale puts it, each identity is written «identidad 0.00» under
its country's name, and the note under a «≈» line writes what the terms as written give. Measured on the built mobjects, against numbers recomputed here with numpy."""

import numpy as np
import pytest
from manim import Dot, Line

from attn_math.capital import capital_walkthrough
from lesson.steps import parse_steps
from scenes.capital import MIRROR_IDENTITY, CapitalScene
from tests.scene_checks import run_scene

IDENTITY_WORD = "identidad"  # the Spanish lecture's word before each identity
COUNTRY = 2  # the country's dimension, counted from 0
IDENTITIES = (-MIRROR_IDENTITY, 0.0, MIRROR_IDENTITY)
SAME_SPOT = 0.02  # frame units: a tick where zero falls on the line's scale


@pytest.fixture(scope="module")
def asymmetry():
    scene = run_scene("capital", steps=parse_steps("asymmetry", list(CapitalScene.STEPS)))
    return [part for mobject in scene.mobjects for part in mobject.get_family()]


def country_values() -> list[np.ndarray]:
    """(r − μ)₂ and LN(r)₂ (population σ) at −0.90, 0 and +0.90, from the residual by numpy."""
    residuals = np.array([capital_walkthrough(identity).residual for identity in IDENTITIES])
    centred = residuals - residuals.mean(axis=1, keepdims=True)
    return [centred[:, COUNTRY], (centred / residuals.std(axis=1, keepdims=True))[:, COUNTRY]]


def test_each_number_line_marks_its_zero_where_its_dots_scale_puts_it(asymmetry):
    dots = sorted((part for part in asymmetry if isinstance(part, Dot)), key=lambda dot: -dot.get_y())
    assert len(dots) == 6
    rows = [sorted(dots[:3], key=lambda dot: dot.get_x()), sorted(dots[3:], key=lambda dot: dot.get_x())]
    ticks = [part for part in asymmetry if type(part) is Line and abs(part.get_start()[0] - part.get_end()[0]) < 1e-6
             and part.get_length() > 0]
    for row, values in zip(rows, country_values()):
        xs = np.array([dot.get_x() for dot in row])
        slope, intercept = np.polyfit(values, xs, 1)
        assert np.allclose(slope * values + intercept, xs, atol=1e-6)  # the dots stand on one linear scale
        zero, y = intercept, row[0].get_y()
        assert any(abs(tick.get_x() - zero) < SAME_SPOT and tick.get_bottom()[1] < y < tick.get_top()[1]
                   for tick in ticks), "no zero mark across the line"


def test_an_identity_is_written_as_an_identity_not_as_a_position(asymmetry):
    """Each identity's number has «identidad» just before it on its line, and the country's name on a line of its
    own above (before: «sin país 0.00», the name alone before the number, read as the dot's coordinate)."""
    numbers = sorted((part for part in asymmetry if getattr(part, "tag", ("",))[0] == "mirror_identity"),
                     key=lambda number: number.get_x())
    assert [number.shown_text for number in numbers] == ["−0.90", "0.00", "0.90"]
    texts = [part for part in asymmetry if hasattr(part, "text") and not getattr(part, "tag", None)]
    for number in numbers:
        same_line = [text for text in texts if abs(text.get_y() - number.get_y()) < number.height / 2
                     and text.get_right()[0] <= number.get_left()[0] + 1e-6]
        before = max(same_line, key=lambda text: text.get_right()[0])
        assert before.text == IDENTITY_WORD, before.text
        assert number.get_left()[0] - before.get_right()[0] < 0.3


@pytest.fixture(scope="module")
def worked():
    return run_scene("capital", steps=parse_steps("scores..context", list(CapitalScene.STEPS)))


@pytest.mark.parametrize("key", ["scores", "context"])
def test_an_approximate_line_says_what_its_written_terms_give(worked, key):
    """«2.69·2.14 + … ≈ 5.77» and «… + 0.55·1.01 + 0.01·0.01 ≈ 0.55»: the note under each line writes what the terms
    as written give (5.76, 0.56, worked out here from the rounded terms) beside the result shown (before: only «the
    last decimal varies», so a student recomputing could not tell which number to trust)."""
    walk = capital_walkthrough(1.0)
    best = int(np.argmax(walk.scores))
    left, right, result = {"scores": (walk.Q[-1], walk.K[best], walk.scores[best]),
                           "context": (walk.attention_row, walk.V[:, COUNTRY], walk.context[COUNTRY])}[key]
    written = f"{np.round(left, 2) @ np.round(right, 2):.2f}"
    shown = f"{result:.2f}"
    assert written != shown  # the case the note is for
    texts = [text.text for text in next(step for step in worked.steps if step.key == key).texts]
    assert any(text.endswith(f"≈ {shown}") for text in texts), texts
    note = next(text for text in texts if text.startswith("≈"))
    assert written in note and shown in note, note
