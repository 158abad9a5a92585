"""Review s15 round 2, report E («06-pipeline», grade 9, «a low 9»): step 14's «entropía media de 7 pesos: 2.33 / 2.31
bits» had no stated source and no unscaled contrast (the reviewer's simulation: 1.29 vs 0.42 bits without ÷ √d_k), so
«la misma nitidez» stayed an assertion; the masked weights alone were titled «A ≈ softmax(·)», read as if the mask made
them approximate; step 13's entropy bars had no token names; step 9's query name «gato» stayed blue over the framed
row «el». Measured on the mobjects the scene builds, numbers redone
with numpy from their definitions."""

import math

import numpy as np
import pytest
from manim import ManimColor

from lesson.numbers import parse_number
from scenes import style
from scenes.visuals import cap_height
from tests.scene_checks import layout_problems, legibility_problems
from tests.test_pipeline_review13 import scene, step, texts  # noqa: F401 (scene: a fixture, the default render)

PIXELS_PER_UNIT = 720 / 8  # at 1280x720: the frame is 8 units tall
LEAST_DIGITS = 16  # px of cap height at 720p
LEAST_WORDS = 14  # px of cap height at 720p for words (tests.scene_checks.MIN_CAP_PIXELS)
MARGIN = 0.3  # units of frame kept clear round the ink
SIMULATED_ROWS = 20000  # the reviewer's Monte-Carlo size; another seed than the scene's


def simulated_entropy(d_k: int, divisor: float, n_keys: int, seed: int = 7) -> float:
    """Mean over rows of −Σ α log₂ α, α = softmax(K q / divisor), q and the keys ~ N(0, I_{d_k}): numpy only."""
    rng = np.random.default_rng(seed)
    queries = rng.standard_normal((SIMULATED_ROWS, d_k))
    keys = rng.standard_normal((SIMULATED_ROWS, n_keys, d_k))
    scores = np.einsum("rkd,rd->rk", keys, queries) / divisor
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return float(np.mean(-np.sum(weights * np.log2(np.where(weights > 0, weights, 1.0)), axis=1)))


def is_number(text: str) -> bool:
    try:
        parse_number(text)
    except ValueError:
        return False
    return True


def sharpness_numbers(scene) -> dict:
    """Step 14's mean entropies as written, by row of their tag: 0 divided by √d_k, 1 not."""
    rows = step(scene, "dimensions").numbers["exercise_5_sharpness"]
    return {row: [parse_number(text) for text in values] for row, values in enumerate(rows)}


def test_exercise_5_shows_the_undivided_contrast_it_answers(scene):
    """Without ÷ √d_k the larger d_k's row is far sharper (≈ 1.29 vs 0.43 bits); divided, both ≈ 2.3: «la misma
    nitidez» shown against what it prevents. Every number redone with an independent simulation."""
    shown = sharpness_numbers(scene)
    n = len(scene.tokens)
    assert set(shown) == {0, 1}
    for row, divided in ((0, True), (1, False)):
        expected = [simulated_entropy(d_k, math.sqrt(d_k) if divided else 1.0, n) for d_k in (8, 64)]
        np.testing.assert_allclose(shown[row], expected, atol=0.03)
    (small, large), (unscaled_small, unscaled_large) = shown[0], shown[1]
    assert abs(small - large) < 0.1
    assert unscaled_small - unscaled_large > 0.5 and unscaled_small < small


def test_exercise_5_says_where_its_entropies_come_from(scene):
    """The key over the entropies says they are means of rows of the sentence's n weights, q and k random ~ N(0, 1)."""
    key = next(text for text in texts(scene, "dimensions") if "N(0, 1)" in text)
    assert str(len(scene.tokens)) in key and "media" in key


def test_exercise_5_stays_legible_and_inside_the_frame(scene):
    """The added lines shrink the panel: every number of the step still ≥ 16 px, its words ≥ 14 px (the suite's
    least), nothing overlapping or leaving the frame."""
    record = step(scene, "dimensions")
    numbers = [text.cap_height * PIXELS_PER_UNIT for text in record.texts if is_number(text.text)]
    assert len(numbers) >= 14 and min(numbers) >= LEAST_DIGITS
    assert [problem for problem in legibility_problems(scene) if problem.startswith("dimensions")] == []
    assert [problem for problem in layout_problems(scene) if problem.startswith("dimensions")] == []
    bars = scene.pointed["sharpness"]
    assert bars.get_bottom()[1] > -4 + MARGIN and bars.get_right()[0] < 64 / 9 - MARGIN


def test_the_masked_weights_are_not_titled_approximate(scene):
    """Both maps read «A = softmax(·)»: a «≈» over the masked side alone said the mask approximates. The note under
    them says what rounding does."""
    shown = texts(scene, "causal")
    assert not any(r"A \approx" in text for text in shown)
    assert sum(r"A = \text{softmax}" in text for text in shown) >= 2
    assert scene.labels["masked_note"] in shown


def test_the_entropy_bars_are_named_by_their_tokens(scene):
    """Step 13: under each row's bar, its token; the names clear of each other and of the legend, ≥ 14 px."""
    chart = scene.entropy_stage[1]
    assert [name.text for name in chart.names] == list(scene.tokens)
    for name, bar in zip(chart.names, chart.bars):
        assert name.get_x() == pytest.approx(bar.get_x(), abs=1e-3)
        assert name.get_top()[1] < chart.baseline.get_y()
        assert cap_height(name) * PIXELS_PER_UNIT >= LEAST_WORDS
    for k, name in enumerate(chart.names):
        for other in list(chart.names)[k + 1:]:
            apart_x = name.get_right()[0] < other.get_left()[0] or other.get_right()[0] < name.get_left()[0]
            apart_y = name.get_bottom()[1] > other.get_top()[1] or other.get_bottom()[1] > name.get_top()[1]
            assert apart_x or apart_y, (name.text, other.text)
    assert chart.legend.get_top()[1] < min(name.get_bottom()[1] for name in chart.names)


def test_the_query_name_moves_to_the_article_with_the_frames(scene):
    """Step 9 frames the article's row («el»): its row name is the bold blue one; «gato», the query before, is plain."""
    names = scene.presets_stage.sides[0].heatmap.row_labels
    article = scene.tokens.index("el")
    colours = [ManimColor(name[0].get_fill_color()).to_hex().lower() for name in names]  # a glyph's colour
    assert colours[article] == ManimColor(style.QUERY).to_hex().lower()
    assert colours[scene.query] == ManimColor(style.TEXT).to_hex().lower()
