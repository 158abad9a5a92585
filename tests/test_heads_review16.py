"""Review 16 of section 03 heads (review s15 round 2, a 9): the three heads' overlay kept each head step's focus dimming
under «grosor y opacidad ∝ α_ij»; step 9's worked sum showed three anonymous value vectors; its W_O arrows tangled in a
40 px band, their heads on the digits and on each other, and came after the sentence that describes them."""

from __future__ import annotations

import numpy as np
import pytest

from scene_checks import families_at_step_ends
from scenes.heads import HeadsScene

PIXELS = 720 / 8  # pixels of the 720p lecture per frame unit


@pytest.fixture(scope="module")
def heads():
    """The scene run once, with each head's arcs as the overlay leaves them: (opacity, width, weight) of every arc."""
    overlaid = []
    overlay = HeadsScene.overlay_heads

    def recorded(scene, legend):
        overlay(scene, legend)
        overlaid.extend([[(arc.curve.get_stroke_opacity(), arc.curve.get_stroke_width(), arc.weight)
                          for arc in arcs.arcs.values()] for arcs in scene.head_arcs])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(HeadsScene, "overlay_heads", recorded)
        scene, families = families_at_step_ends(HeadsScene, "heads")
    return scene, families, overlaid


def _step(scene, key):
    return next(step for step in scene.steps if step.key == key)


def test_the_overlays_arcs_are_as_opaque_and_thick_as_their_weight_alone(heads):
    """Review: in the overlay «perro»→«el» (0.95) was drawn in full, «ella»→«y» (0.91) at about 15 %: head 1 and 2 kept
    their steps' last focus. Every arc of every head is as opaque as its weight, and arcs of equal weight are drawn
    alike, whichever head or row they belong to."""
    _, _, overlaid = heads
    assert len(overlaid) == 3
    arcs = [arc for head in overlaid for arc in head]
    for opacity, _, weight in arcs:
        assert opacity == pytest.approx(weight, abs=1e-3)
    for weight in {round(weight, 2) for *_, weight in arcs}:
        alike = [(opacity, width) for opacity, width, other in arcs if round(other, 2) == weight]
        assert np.ptp([opacity for opacity, _ in alike]) < 0.01 and np.ptp([width for _, width in alike]) < 0.1
