"""The matrix section as the twelfth review (grade 8, "close to 9") saw it: step 9's division line did not check at
the precision it wrote ((0.01, 1.00, 0.12) ÷ 1.13 gives 0.0088, not 0.0127); step 15 said only in the voice that
learned projections break the dominant diagonal, and never drew K = Q; step 6's k₂ name sat on k₂'s arrowhead and the
shadow's bracket had no number; step 8 wrote the variance 12 → 6 while only row 1 was divided, without saying what
it was the variance of."""

import re

import numpy as np
import pytest

from lesson.numbers import parse_number
from lesson.steps import parse_steps
from scene_checks import run_scene
from scenes.matrix import MatrixScene

# The worked example (4.2.6), written here
X, W_Q, W_K = (np.array(matrix, dtype=float) for matrix in ([[1, 0], [0, 2], [1, 1]], [[3, 0], [-1, 2]],
                                                            [[0, 2], [1, 0]]))
Q, K = X @ W_Q, X @ W_K
SCORES = Q @ K.T
SCALED = SCORES / np.sqrt(2)
NUMBER = r"−?\d+(?:\.\d+)?"


def logged_lines(steps: str):
    """Run ``steps`` of the section; every worked line shown, as (step key, its text, the scene time)."""
    lines, show_line = [], MatrixScene.show_line

    def logged(scene, line, *also):
        show_line(scene, line, *also)
        lines.append((scene.steps[-1].key, line.shown_text, scene.renderer.time))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "show_line", logged)
        scene = run_scene("matrix", steps=parse_steps(steps, list(MatrixScene.STEPS)))
    return scene, lines


@pytest.fixture(scope="module")
def exponentiate():
    return logged_lines("exponentiate")


def numbers(text: str) -> list[float]:
    return [parse_number(number) for number in re.findall(NUMBER, text)]


def test_the_division_line_checks_at_the_precision_it_writes(exponentiate):
    """A₁ⱼ = (e₁, e₂, e₃) ÷ Σ = (w₁, w₂, w₃): each written eⱼ divided by the written Σ, rounded as the weights are
    written, is the written weight; and the weights are softmax(q₁·kⱼ/√2), computed here."""
    _, lines = exponentiate
    [line] = [text for key, text, _ in lines if key == "exponentiate" and "÷" in text and "=" in text
              and text.startswith("A")]
    inside = re.findall(r"\(([^)]*)\)", line)
    exponentials, weights = (numbers(group) for group in (inside[0], inside[-1]))
    total = numbers(line.split("÷")[1].split("=")[0])[0]
    places = len(re.findall(NUMBER, inside[-1])[0].split(".")[1])
    row = SCALED[0]
    expected = np.exp(row) / np.exp(row).sum()
    assert weights == pytest.approx(np.round(expected, places))
    assert np.round(np.array(exponentials) / total, places) == pytest.approx(np.array(weights)), line
    assert total == pytest.approx(np.exp(row - row.max()).sum(), abs=10.0 ** -places)
