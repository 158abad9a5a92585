"""Review s14 of the scaling section (graded 9): two things a student had to take on faith.

- S1: «pendiente total Σ p(1 − p)» measures the gradient, but nothing said why. Where the column first appears (the
  growing step) a line under it says each term is the softmax's own slope: p(1 − p) = ∂p/∂(q·k).
- S2: the growing step's largest key changes with d_k (k₂ at d_k = 2, k₈ at 8, k₆ at 64) with no reason on screen. From
  the first d_k where it changes, a line under the scores says each q·k_j adds new products (the draws are nested):
  the scores change, they are not stretched, with the former leader's score before and after.
"""

from __future__ import annotations

import numpy as np
import pytest
from manim import MathTex, SurroundingRectangle

from lesson.numbers import format_number, parse_number
from scenes.scaling import ScalingScene
from tests.scene_checks import families_at_step_ends, layout_problems, shared_recorded
from tests.test_scene_scaling import by_hand

PIXELS = 720 / 8  # pixels a unit at 720p
SLOPE = r"\partial p"
NEW_TERMS = "cada q·k_j suma"


@pytest.fixture(scope="module")
def recorded():
    return shared_recorded("scaling")


@pytest.fixture(scope="module")
def scene(recorded):
    return recorded[0]


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def softmax(scores) -> np.ndarray:
    exponentials = np.exp(np.asarray(scores, dtype=float) - np.max(scores))
    return exponentials / exponentials.sum()


def own_slopes(scores, step_size: float = 1e-6) -> np.ndarray:
    """∂p_j/∂s_j by central differences: how key j's weight moves as its own score moves."""
    slopes = []
    for j in range(len(scores)):
        nudge = np.zeros(len(scores))
        nudge[j] = step_size
        slopes.append((softmax(scores + nudge)[j] - softmax(scores - nudge)[j]) / (2 * step_size))
    return np.array(slopes)


def test_the_slope_line_stands_under_the_gradient_sum_where_it_first_appears(scene):
    """One line, p(1 − p) = ∂p/∂(q·k), right under «Σ p(1 − p): …» in the growing step, its letters 16 px or more at
    720p, overlapping no other text; not repeated in the stacked panels after."""
    record = step(scene, "growing")
    [slope] = [text for text in record.texts if SLOPE in text.text]
    assert "p(1-p)" in slope.text and r"\partial (q\cdot k)" in slope.text
    assert slope.cap_height * PIXELS >= 16
    [total] = [text for text in record.texts if text.text.startswith("Σ p(1 − p)")]
    assert 0 < total.bottom - slope.top < 0.4
    assert slope.left < total.right and total.left < slope.right  # under it, not beside it
    assert not [problem for problem in layout_problems(scene) if SLOPE in problem]
    assert not [text for text in step(scene, "scaled").texts if SLOPE in text.text]


def test_the_frames_of_the_growing_step_clear_the_slope_line():
    """The frame drawn round the sum's number as the voice names the gradient stops short of the line under it."""
    _, seen = families_at_step_ends(ScalingScene, "scaling")
    parts = seen["growing"]
    [slope] = [part for part in parts if isinstance(part, MathTex) and SLOPE in part.tex_string]
    frames = [part for part in parts if isinstance(part, SurroundingRectangle)
              and part.get_left()[0] < slope.get_right()[0] and slope.get_left()[0] < part.get_right()[0]]
    assert frames  # the gradient's frame is over the line
    assert min(frame.get_bottom()[1] for frame in frames) - slope.get_top()[1] >= 0.05


def test_the_slope_line_is_what_the_sum_adds_up(scene):
    """Each term p(1 − p) is the weight's slope in its own score, measured by nudging that score; their sum is the
    number the column shows."""
    settings = scene.settings
    for d_k in scene.swept:
        scores = np.array(by_hand(d_k, settings.n_keys, settings.seed)["scores_unscaled"])
        weights = softmax(scores)
        assert own_slopes(scores) == pytest.approx(weights * (1 - weights), abs=1e-6)
    [[shown]] = step(scene, "growing").numbers["gradient_unscaled"]
    assert shown == format_number(own_slopes(scores).sum())


def leaders(scene) -> list[tuple[int, int]]:
    """(d_k, the key with the largest weight) along the growing step's sweep, from the draws themselves."""
    settings = scene.settings
    return [(d_k, int(np.argmax(by_hand(d_k, settings.n_keys, settings.seed)["weights_unscaled"])))
            for d_k in scene.swept]


def test_a_line_says_why_the_largest_key_changes(scene):
    """At the default seed k₂ leads at d_k = 2 and k₈ at 8: the line names d_k = 8, its 6 new products, and k₂'s
    scores at 2 and 8; each is true of the draws: the scores at 8 are those at 2 plus the products of components 3 to
    8, not the ones at 2 times one factor."""
    settings = scene.settings
    (before, led), (after, leads) = leaders(scene)[:2]
    assert led != leads  # the first change of the default sweep is its first step
    record = step(scene, "growing")
    [line] = [text for text in record.texts if NEW_TERMS in text.text]
    old, new = (np.array(by_hand(d_k, settings.n_keys, settings.seed)["scores_unscaled"]) for d_k in (before, after))
    assert line.text.startswith(f"Con d_k = {after}, {NEW_TERMS} {after - before} productos nuevos")
    assert f"(k_{led + 1}: {format_number(old[led])} → {format_number(new[led])})" in line.text
    components = np.random.default_rng(settings.seed).standard_normal((after, 1 + settings.n_keys))
    added = components[before:, 1:].T @ components[before:, 0]
    assert new == pytest.approx(old + added)
    ratios = new / old
    assert ratios.max() - ratios.min() > 1  # not one stretch for all
    assert parse_number(format_number(new[led])) < parse_number(format_number(new[leads]))
    assert line.cap_height * PIXELS >= 16
    assert not [problem for problem in layout_problems(scene) if NEW_TERMS in problem]


def test_the_line_comes_with_the_first_change_and_leaves_with_the_panel(recorded):
    """It fades in with the move to the first d_k where another key leads (the readout's d_k turns to 8 in the same
    play), stays for the rest of the step, and is gone when the exponentiate step ends."""
    scene, log = recorded
    plays = [play for kind, play in log if kind == "play" and play.shows(scene.new_terms)]
    first = plays[0]
    changed = next(d_k for (_, led), (d_k, leads) in zip(leaders(scene), leaders(scene)[1:]) if led != leads)
    shown_d_k = {part.shown_text for animated in first.animated for part in animated.get_family()
                 if getattr(part, "tag", None) == ("d_k", (0, 0))}
    assert str(changed) in shown_d_k
    assert any(NEW_TERMS in text.text for text in step(scene, "growing").texts)
    assert not any(NEW_TERMS in text.text for text in step(scene, "exponentiate").texts)
