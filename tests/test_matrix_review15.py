"""The matrix section as the fifteenth review saw it (grade 9): the general shapes the guide gives (X ∈ ℝ^{n×d},
W_Q, W_K ∈ ℝ^{d×d_k}, W_V ∈ ℝ^{d×d_v}) were never on screen, only the concrete numbers; «varianza 12 → 6» was the
population variance without saying so (a calculator's n − 1 gives 13.5 → 6.75), and «1 solo con componentes ...»
read as if the variance were 1."""

import re

import numpy as np
import pytest

from lesson.steps import parse_steps
from scene_checks import run_scene
from scenes.matrix import MatrixScene

from test_matrix_review12 import SCORES, SCALED, logged_lines


def inputs_step(*overrides):
    scene = run_scene("matrix", *overrides, steps=parse_steps("inputs", list(MatrixScene.STEPS)))
    return next(step for step in scene.steps if step.key == "inputs")


@pytest.mark.parametrize("overrides, shapes", [
    ((), {"n × d": (3, 2), "d × d_k": (2, 2), "d × d_v": (2, 2)}),  # the worked example 4.2.6: X 3×2, W's 2×2
    (("matrix.X=[[1,0,2],[0,1,1]]", "matrix.W_Q=[[1,0],[0,1],[1,1]]", "matrix.W_K=[[1,0],[0,1],[1,1]]",
      "matrix.W_V=[[1],[0],[2]]", 'matrix.tokens=["a", "b"]'), {"n × d": (2, 3), "d × d_k": (3, 2), "d × d_v": (3, 1)}),
])
def test_the_inputs_name_every_shape_with_its_numbers(overrides, shapes):
    """The step that shows X and the W's ends with a line drawn on screen (not the caption, which a narrated video
    leaves to its subtitles) writing «n × d = 3 × 2», «d × d_k = 2 × 2» and «d × d_v = 2 × 2», the numbers being the
    given matrices' shapes, for the example and for a lecturer's own."""
    step = inputs_step(*overrides)
    drawn = [text.text for text in step.texts if text.text != step.caption]
    for name, (rows, columns) in shapes.items():
        assert any(f"{name} = {rows} × {columns}" in text for text in drawn), (name, drawn)


def test_the_variance_says_it_divides_by_the_number_of_scores():
    """«varianza de los 9 puntajes (÷ 9): 12 → 6»: the population variance (np.var divides by n; with n − 1 it would be
    13.5 → 6.75), and the unit-variance line says when it would be 1, not that it is."""
    _, lines = logged_lines("scaled")
    texts = [text for key, text, _ in lines if key == "scaled"]
    before, after = np.var(SCORES), np.var(SCALED)
    assert np.var(SCORES, ddof=1) == pytest.approx(13.5)  # why the divisor must be written
    variance = next(text for text in texts if f"{before:g} → {after:g}" in text and "puntajes" in text)
    assert f"(÷ {SCORES.size})" in variance, variance
    unit = next(text for text in texts if text.startswith(f"varianza {before:g} → {after:g};"))
    assert re.search(r"sería 1 con", unit), unit
