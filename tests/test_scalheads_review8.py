"""Review 8 of sections 02 scaling and 03 heads: what a viewer reads must be readable and checkable.

Scaling: a number changing in place never shows two numbers at once; the last sweep of d_k only climbs; the gradient
the voice speaks of is a number on screen (Σ p(1 − p), recomputed here from the draws); the readout says over how many
pairs its typical deviation is measured, and that count reproduces it. Heads: the third head's text keeps 4.5:1 once
rendered; the one-head W_Q and head 1's W_Q¹ read as two colours; the focus is on the row the voice names as it
names it.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from manim import Square, interpolate_color

from lesson.numbers import parse_number
from scenes import style
from scenes.fades import Swap
from scenes.heads import HeadsScene
from scenes.scaling import ScalingScene
from tests.scene_checks import recorded, run_scene
from tests.test_narration_markers import StandIn
from tests.test_palette import ciede2000, cielab, contrast
from tests.test_scene_scaling import by_hand

GRADIENT_LEAST = 0.5  # Σ p(1 − p) of the scaled default row is well above it (0.72); a one-hot row's is 0


def screens(scene_class, section: str):
    """The scene at the default config, and the tagged numbers and the texts on screen as each play lands."""
    seen = []
    original = scene_class.play

    def play(scene, *animations, **kwargs):
        original(scene, *animations, **kwargs)
        texts, numbers = scene._snapshot(scene.mobjects)
        seen.append((scene.renderer.time, texts, numbers))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scene_class, "play", play)
        scene = run_scene(section)
    return scene, seen


@pytest.fixture(scope="module")
def scaling():
    return screens(ScalingScene, "scaling")


def in_step(scene, seen, key):
    record = next(step for step in scene.steps if step.key == key)
    return record, [(time, texts, numbers) for time, texts, numbers in seen if record.start < time <= record.end + 1e-6]


def test_a_swapped_number_is_never_on_screen_with_the_one_it_replaces():
    """Review: "0.02/0.05" and "2.40/2.90" superimposed for about a second while d_k changed."""
    old, new = Square(), Square()
    swap = Swap(old, new)
    for alpha in np.linspace(0, 1, 41):
        swap.interpolate_mobject(alpha)
        shown = [part.get_fill_opacity() + part.get_stroke_opacity() for part in (old, new)]
        assert min(shown) == 0, (alpha, shown)
    swap.interpolate_mobject(0.0)
    assert old.get_stroke_opacity() == 1 and new.get_stroke_opacity() == 0
    swap.interpolate_mobject(1.0)
    assert old.get_stroke_opacity() == 0 and new.get_stroke_opacity() == 1


def test_the_restored_sweep_only_climbs(scaling):
    """Review: step 6 went 64 → 2 → 8 → 512. The d_k the readout shows, play after play, never goes down."""
    scene, seen = scaling
    _, plays = in_step(scene, seen, "restored")
    shown = [parse_number(numbers["d_k"][0][0]) for _, _, numbers in plays if "d_k" in numbers]
    assert shown and shown == sorted(shown), shown
    # from the last step's d_k to the largest (review 13: the smaller ones come back in the summary table)
    assert (shown[0], shown[-1]) == (scene.settings.d_k, 512)


def weights(d_k: int, n_keys: int, seed: int):
    """The default demo's weights, unscaled and divided by sqrt(d_k), straight from its draws (test_scene_scaling)."""
    found = by_hand(d_k, n_keys, seed)
    return found["weights_unscaled"], found["weights_scaled"]


def slopes_sum(weights) -> float:
    return math.fsum(w * (1 - w) for w in weights)


def test_the_gradient_the_voice_names_is_a_number_on_screen(scaling):
    """Review: «gradiente ≈ 0» and «más entropía da gradiente a más claves» had no number. The growing step ends on
    the one-hot row's Σ p(1 − p) ≈ 0; the scaled step shows both rows' sums, the divided one far from 0."""
    scene, _ = scaling
    settings = scene.settings
    growing = next(step for step in scene.steps if step.key == "growing")
    unscaled, _ = weights(settings.d_k, settings.n_keys, settings.seed)
    assert parse_number(growing.numbers["gradient_unscaled"][0][0]) == pytest.approx(slopes_sum(unscaled), abs=0.005)
    assert parse_number(growing.numbers["gradient_unscaled"][0][0]) == 0
    scaled_step = next(step for step in scene.steps if step.key == "scaled")
    unscaled, scaled = weights(settings.d_k, settings.n_keys, settings.seed)
    assert parse_number(scaled_step.numbers["gradient_unscaled"][0][0]) == pytest.approx(slopes_sum(unscaled),
                                                                                          abs=0.005)
    assert parse_number(scaled_step.numbers["gradient_scaled"][0][0]) == pytest.approx(slopes_sum(scaled), abs=0.005)
    assert slopes_sum(scaled) > GRADIENT_LEAST


def test_the_readout_says_how_many_pairs_its_deviation_is_measured_over(scaling):
    """Review: «estos 8 puntajes 0.72 · muchos pares 1.43» put a sample of 8 beside the spread of many, unexplained.
    The readout names both counts; the deviation of that many pairs, drawn here, is the number shown beside it."""
    scene, seen = scaling
    _, plays = in_step(scene, seen, "growing")
    checked = 0
    for _, texts, numbers in plays:
        if "deviation" not in numbers:
            continue  # the readout not on screen yet
        words = " ".join(text.text for text in texts)
        found = re.search(r"·\s*([\d\s\u00a0]+)\s+pares", words)
        assert found, words
        pairs = int(re.sub(r"\D", "", found.group(1)))
        assert re.search(r"solo 8 puntajes", words)
        d_k = int(parse_number(numbers["d_k"][0][0]))
        # the pairs drawn one after the other, q then k (the growing step's d_k are at most 64: 2.6 M normals)
        q_and_k = np.random.default_rng(scene.settings.seed).standard_normal((pairs, 2, d_k))
        deviation = float(np.std(np.sum(q_and_k[:, 0] * q_and_k[:, 1], axis=1)))
        assert parse_number(numbers["deviation"][0][0]) == pytest.approx(deviation, abs=0.005), (d_k, pairs)
        checked += 1
    assert checked


# Heads ------------------------------------------------------------------------------------------------------------
# Small text is antialiased: its strokes render darker than their colour. The review measured head 3's green
# #219333 (4.6:1 as a colour) at about 3.7:1 on 14 px text; a colour of 5:1 keeps 4.5:1 with that loss.
RENDERED_TEXT_CONTRAST = 5.0


def test_head_three_text_keeps_its_contrast_once_rendered():
    assert contrast(style.HEADS[2], style.BACKGROUND) >= RENDERED_TEXT_CONTRAST


def test_the_cost_views_one_head_and_head_one_are_two_colours():
    """Review: the single-head W_Q (learned W's pink) read as head 1's magenta beside W_Q¹ (lavender). Their cells,
    as filled, differ as much as the palette holds head colours apart from W's (ΔE00 20)."""
    from scenes.heads import SIZE_BLOCK_FILL

    single = interpolate_color(style.PANEL, style.WEIGHT_MATRIX, SIZE_BLOCK_FILL)
    first = interpolate_color(style.PANEL, style.HEADS[0], SIZE_BLOCK_FILL)
    assert ciede2000(cielab(single), cielab(first)) >= 20


def test_the_focus_reaches_the_row_the_voice_names_as_it_starts_naming_it():
    """Review: «Por ejemplo, «perro» atiende a «el»» at 23.7 s while «de» stayed highlighted until 24.5 s: the
    focus took 0.8 s. It now lands within 0.4 s of the phrase's start, before the token is said."""
    scene, log = recorded("heads", narration=StandIn())
    checked = 0
    for key in ("previous", "subject_verb", "pronoun"):
        record = next(step for step in scene.steps if step.key == key)
        [start] = [start for _, start, _, play in record.narration["phrases"] if play == "example"]
        [play] = [play for kind, play in log if kind == "play" and not play.waits
                  and play.start == pytest.approx(start, abs=1e-6)]
        assert play.end - play.start <= 0.4 + 1e-6, (key, play.end - play.start)
        checked += 1
    assert checked == 3


X_HEIGHT = 1118 / 1490  # Inter's x-height over its cap height


@pytest.fixture(scope="module")
def heads():
    return run_scene("heads")


def test_the_heatmaps_column_labels_are_legible_from_the_back_of_the_room(heads):
    """Review: the turned column labels were 11-12 px at 720p (the heatmap was built for labels lying down, then
    shrunk to fit once they stood up). Letters of 16 px at least: the tokens are lower case, whose x-height is 3/4 of
    the cap height in Inter (1118 / 1490 units), so a cap height of 21.5 px."""
    from manim import config

    from scenes.visuals import cap_height

    labels = [*heads.heatmap.column_labels]
    assert labels
    assert min(cap_height(label) for label in labels) * 720 / config.frame_height >= 16 / X_HEIGHT
