"""Capital at the fourteenth review (/tmp/s14/review/review-c.md, «05-capital»): when q·k became ÷√3 a copy of the
scores slid and morphed onto the new column («5.5777», «−2−2.04»); step 4's «≈ 5.77» and step 6's «≈ 0.55» do not come
out of the terms written (5.76, 0.56) and nothing on their screens said why; step 10's two panels wrote their words at
two sizes; d = 3 and √3 ≈ 1.73 were only said; σ = 0.76 divides by n, which nothing said; step 3 stood still 4 s after
its voice.

Now the divided scores fade in where they stand, a note under each «≈» line says the result is computed unrounded,
the panels share one label size, d = 3 and √3 ≈ 1.73 are written, σ says «÷ n», and V's country column is framed with
V's frame, not after its last row."""

import math

import numpy as np
import pytest
from manim import Transform

from attn_math.capital import capital_walkthrough
from lesson.locale import load_locale
from lesson.numbers import format_number
from lesson.steps import parse_steps
from scenes.capital import CapitalScene
from scenes.number_glyphs import NumberText
from tests.scene_checks import PacedSpeaker, run_scene
from tests.test_capital_review8 import PIXELS, record

LABELS = load_locale("es")["capital"]["labels"]
COUNTRY = 2  # the country's dimension, counted from 0
SAME_SIZE = 0.5  # px at 720p: one label size in both panels (the review measured 75 vs 82 px for «capital»)
STILL_AFTER_VOICE = 3.0  # s step 3's finished screen stands after its voice at most (was 3.8 under this voice)


def run(steps: str, logged: list | None = None):
    with pytest.MonkeyPatch.context() as patch:
        if logged is not None:
            play = CapitalScene.play

            def logging_play(self, *animations, **options):
                logged.append((self.steps[-1].key if self.steps else None, animations))
                play(self, *animations, **options)
            patch.setattr(CapitalScene, "play", logging_play)
        return run_scene("capital", narration=PacedSpeaker(), steps=parse_steps(steps, list(CapitalScene.STEPS)))


@pytest.fixture(scope="module")
def early():
    """Steps 2-7, with every play's animations."""
    logged = []
    return run("positional..layer_norm", logged), logged


def texts(scene, key: str) -> list[str]:
    return [text.text for text in record(scene, key).texts]


def test_no_number_morphs_into_the_divided_scores(early):
    """A transform of numbers draws its start and end digits over each other on the way (the review's «5.5777»)."""
    _, logged = early
    morphing = [animation for key, animations in logged if key == "softmax" for animation in animations
                if isinstance(animation, Transform) and numbers(animation.mobject) != numbers(animation.target_mobject)]
    assert morphing == []


def numbers(mobject) -> list[str]:
    return [part.shown_text for part in mobject.get_family() if isinstance(part, NumberText)]


@pytest.mark.parametrize("key", ["scores", "context"])
def test_a_worked_line_with_approx_explains_it_on_its_screen(early, key):
    """«2.69·2.14 + … ≈ 5.77»: the terms as written give 5.76 (and step 6's 0.5556 gives 0.56); the note saying the
    result is computed unrounded stands under the line, on the same screen."""
    scene, _ = early
    walk = capital_walkthrough(1.0)
    best = int(np.argmax(walk.scores))
    left, right, result = {"scores": (walk.Q[-1], walk.K[best], walk.scores[best]),
                           "context": (walk.attention_row, walk.V[:, COUNTRY], walk.context[COUNTRY])}[key]
    written = np.round(left, 2) @ np.round(right, 2)
    assert format_number(written) != format_number(result)  # the case the note is for
    shown = record(scene, key).texts
    line = next(text for text in shown if text.text.endswith(f"≈ {format_number(result)}"))
    # review s16: the note writes what the terms give and where the result comes from (was LABELS["approx_values"])
    worked = LABELS["approx_worked"].format(written=format_number(written), result=format_number(result))
    note = next(text for text in shown if text.text == worked)
    assert note.top < line.bottom
    assert note.cap_height * PIXELS >= 14


def test_every_formula_with_approx_has_the_note_on_its_screen(early):
    """LN(r) ≈ (r − μ)/σ too: (1.18 − 0.36)/0.76 is 1.08, LN(r)₀ shows 1.07."""
    scene, _ = early
    walk = capital_walkthrough(1.0)
    written = (np.round(walk.residual, 2) - round(walk.residual_mean, 2)) / round(walk.residual_spread, 2)
    assert format_number(written[0]) != format_number(walk.normalized[0])
    for key in ("scores", "softmax", "context", "layer_norm"):
        shown = texts(scene, key)
        if any(r"\approx" in text and not text.startswith(r"\sqrt") for text in shown):
            worked = LABELS["approx_worked"].split("{")[0]  # review s16: a worked line's note names its numbers
            assert LABELS["approx_values"] in shown or any(text.startswith(worked) for text in shown), key


def test_step_two_writes_d_three(early):
    scene, _ = early
    assert any(text.endswith(r"\qquad d = 3") for text in texts(scene, "positional"))


def test_step_five_writes_root_three_as_a_number(early):
    scene, _ = early
    root = format_number(math.sqrt(capital_walkthrough(1.0).K.shape[1]))
    assert root == "1.73"
    assert rf"\sqrt{{3}} \approx {root}" in texts(scene, "softmax")


def test_sigma_says_it_divides_by_n(early):
    """σ = 0.76 is numpy's std (÷ n); with n − 1 it would be 0.93 and LN(r) would not reproduce."""
    scene, _ = early
    residual = capital_walkthrough(1.0).residual
    step = record(scene, "layer_norm")
    assert step.numbers["spread"] == [[format_number(np.std(residual))]]
    assert format_number(np.std(residual, ddof=1)) != format_number(np.std(residual))
    label = next(text for text in texts(scene, "layer_norm") if text.startswith("σ"))
    assert "÷ n" in label


def test_step_three_ends_sooner_after_its_voice(early):
    scene, _ = early
    step = record(scene, "projections")
    voice_end = step.narration["phrases"][-1][2]
    assert step.read_until - voice_end <= STILL_AFTER_VOICE


def test_step_ten_panels_write_their_words_at_one_size():
    scene = run("other_country")
    shown = record(scene, "other_country").texts
    for word in ("capital", "es", "La"):
        pair = [text for text in shown if text.text == word]
        assert len(pair) == 2
        widths = [(text.right - text.left) * PIXELS for text in pair]
        bottoms = [text.bottom * PIXELS for text in pair]
        assert abs(widths[0] - widths[1]) < SAME_SIZE
        assert abs(bottoms[0] - bottoms[1]) < SAME_SIZE
