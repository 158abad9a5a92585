"""Review 17 of section 03 heads: the guide's exercise 6 asks two things (d = 512 with h = 8, and with h = 16); step 8
worked out only the first, so its trade-off (more heads, each narrower) was in the pipeline section alone."""

from __future__ import annotations

import re

from test_heads_review10 import recorded_run
from test_heads_review14 import DIGIT_PIXELS, PIXELS, _step


def test_the_cost_step_answers_both_halves_of_exercise_six():
    """d_k = d_model / h for the guide's d_model = 512 with h = 8 and with h = 16, as the guide states them (64, 32),
    and the trade-off in words, in one legible line under the costs."""
    scene, _ = recorded_run()
    step = _step(scene, "cost")
    line = next(text for text in step.texts if "ejercicio 6" in text.text.lower())
    flat = " ".join(line.text.split())
    assert re.search(r"h = 16, d_k = 32\b", flat), flat
    assert re.search(r"h = 8, d_k = 512 / 8 = 64\b", flat), flat
    assert "más cabezas" in flat and "menos dimensiones" in flat
    assert line.cap_height * PIXELS >= DIGIT_PIXELS
