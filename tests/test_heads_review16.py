"""Review 16 of section 03 heads (review s15 round 2, a 9): the three heads' overlay kept each head step's focus dimming
under «grosor y opacidad ∝ α_ij»; step 9's worked sum showed three anonymous value vectors; its W_O arrows tangled in a
40 px band, their heads on the digits and on each other, and came after the sentence that describes them."""

from __future__ import annotations

import re

import numpy as np
import pytest

from scene_checks import families_at_step_ends, flattened
from lesson.heads_answers import choice_token
from lesson.numbers import parse_number
from scenes.heads import HeadsScene
from scenes.visuals import cap_height

PIXELS = 720 / 8  # pixels of the 720p lecture per frame unit
NAMED_TERM = re.compile(r"([0-9.]+)·«([^»]+)»\(([^)]*)\)")  # «0.0453·«ladró»(0 0 0 4)»


@pytest.fixture(scope="module")
def heads():
    """The scene run once, with each head's arcs as the overlay leaves them: (opacity, width, weight) of every arc."""
    overlaid, plays, dimmed = [], [], []
    overlay, play = HeadsScene.overlay_heads, HeadsScene.play

    def recorded(scene, legend):
        scene.overlaying = True
        overlay(scene, legend)
        scene.overlaying = False
        overlaid.extend([[(arc.curve.get_stroke_opacity(), arc.curve.get_stroke_width(), arc.weight)
                          for arc in arcs.arcs.values()] for arcs in scene.head_arcs])
        overlaid.append(scene.sum_note in [part for top in scene.mobjects for part in top.get_family()])

    def played(scene, *animations, **options):
        start = scene.renderer.time
        play(scene, *animations, **options)
        if getattr(scene, "overlaying", False):  # each head's arcs on screen after each play of the overlay
            shown = {id(part) for top in scene.mobjects for part in top.get_family()}
            dimmed.extend(arc.curve.get_stroke_opacity() / arc.weight for arcs in scene.head_arcs
                          for arc in arcs.arcs.values() if id(arc.curve) in shown)
        plays.append((start, scene.renderer.time, [part for animation in flattened(animations)
                                                    if hasattr(animation, "mobject")
                                                    for part in animation.mobject.get_family()]))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(HeadsScene, "overlay_heads", recorded)
        patch.setattr(HeadsScene, "play", played)
        scene, families = families_at_step_ends(HeadsScene, "heads")
    overlaid.append(dimmed)
    return scene, families, overlaid, plays


def _step(scene, key):
    return next(step for step in scene.steps if step.key == key)


def test_the_overlays_arcs_are_as_opaque_and_thick_as_their_weight_alone(heads):
    """Review: in the overlay «perro»→«el» (0.95) was drawn in full, «ella»→«y» (0.91) at about 15 %: heads 1 and 2
    kept their steps' last focus, and head 3 stayed dimmed until its chord. Every arc on screen in the overlay is as
    opaque as its weight, and arcs of equal weight are drawn alike, whichever head or row they belong to."""
    _, _, overlaid, _ = heads
    assert len(overlaid) == 5
    assert overlaid[4] and min(overlaid[4]) > 0.99  # on screen at any moment of the overlay, no arc dimmed
    arcs = [arc for head in overlaid[:3] for arc in head]
    for opacity, _, weight in arcs:
        assert opacity == pytest.approx(weight, abs=1e-3)
    for weight in {round(weight, 2) for *_, weight in arcs}:
        alike = [(opacity, width) for opacity, width, other in arcs if round(other, 2) == weight]
        assert np.ptp([opacity for opacity, _ in alike]) < 0.01 and np.ptp([width for _, width in alike]) < 0.1


CLEAR_PIXELS = 4  # between an arrow and any digit


def _samples(link, count=200):
    """Points along a link's curve and its head's corners."""
    curve = np.array([link.point_from_proportion(t) for t in np.linspace(0, 1, count)])
    return curve, link.submobjects[0].get_vertices()


def _outside(points, box, margin):
    (left, bottom), (right, top) = box
    return ((points[:, 0] < left - margin) | (points[:, 0] > right + margin)
            | (points[:, 1] < bottom - margin) | (points[:, 1] > top + margin)).all()


def _box(mobject):
    return mobject.get_corner([-1, -1, 0])[:2], mobject.get_corner([1, 1, 0])[:2]


def test_w_os_arrows_keep_off_the_digits_and_off_each_others_heads(heads):
    """Review: the six arrows tangled in a 40 px band: the 3→9 arrow started on the underside of «5.00», four heads
    touched the output's digits and the 0.05→0.05 head sat on the 8→1 arrow. Every arrow, head included, keeps 4 px from
    every number of both rows, and no arrow runs through another's head (1 px round it)."""
    scene, *_ = heads
    rows = scene.row_numbers
    numbers = [*rows.concat[1:], *rows.output[1:]]
    links = list(rows.links[1])
    assert len(links) == 6
    for link in links:
        curve, tip = _samples(link)
        for number in numbers:
            assert _outside(np.vstack([curve, tip])[:, :2], _box(number), CLEAR_PIXELS / PIXELS), number.text
    for link in links:
        head = link.submobjects[0]
        for other in links:
            if other is not link:
                assert _outside(_samples(other)[0][:, :2], _box(head), 1 / PIXELS)


def test_the_arrows_come_with_the_output_row_at_once(heads):
    """Review: «cada salida suma lo que marcan los unos de su columna» began 0.46 s before the row and its arrows, drawn
    one after the other over 0.6 s. The arrows and the output's row come in one play of at most 0.3 s."""
    scene, _, _, plays = heads
    rows = scene.row_numbers
    start, end, parts = next(play for play in plays if rows.links[1][0] in play[2])  # then only their leaving
    assert rows.output[1] in parts and end - start <= 0.31


def test_the_worked_rows_value_vectors_are_named_by_their_tokens(heads):
    """Review: «z₁(«ella») = 0.0453·(0 0 0 4) + 0.9094·(0 0 0 5) + 0.0453·(0 0 1 6)» never said these are V₁(«ladró»),
    V₁(«y») and V₁(«ella»). Each vector follows its token's name; the vectors are those tokens' rows of X W_V¹ (worked
    out here), their weights head 1's row of «ella», and the line stays 16 px tall and inside the frame."""
    scene, *_ = heads
    result = scene.result
    focus = choice_token(result)
    worked = scene.row_numbers.worked[0]
    line, = [text.text for text in _step(scene, "concat").texts if text.text.startswith("z_1(«ella») = ")]
    terms = NAMED_TERM.findall(line)
    values = result.X @ result.W_V[0]
    weights = result.heads[0].weights[focus]
    tokens = [result.labels.index(token) for _, token, _ in terms]
    assert [result.labels[j] for j in tokens] == ["ladró", "y", "ella"]
    for (weight, _, vector), j in zip(terms, tokens):
        assert [parse_number(number) for number in vector.split()] == pytest.approx(values[j])
        assert parse_number(weight) == pytest.approx(weights[j], abs=5e-5)
    assert cap_height(worked) * PIXELS >= 16
    assert -7.11 + 0.3 <= worked.get_left()[0] and worked.get_right()[0] <= 7.11 - 0.3


def test_the_rounded_weights_note_leaves_the_overlay_which_shows_no_weight(heads):
    """Review: «Pesos redondeados: los de un mismo color suman ≈ 1» stood over the three heads' arcs, with no weight on
    screen. It leaves with the last head's weights and comes back with the average's."""
    scene, families, overlaid, _ = heads
    assert overlaid[3] is False
    assert scene.sum_note.submobjects[0] in families["average"]

