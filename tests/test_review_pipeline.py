"""Review R of the pipeline section (issue 26): what a viewer saw wrong mid-step, checked on the scene's state.

Item 5 needs the states between a step's start and end: every animation of steps 4-6 and of the causal comparison
is sampled at several moments (``sampled``), not only where it ends."""

import numpy as np
import pytest
from manim import DL, UR, Scene

from attn_math.lab import LAB_SENTENCES, lab_attention
from lesson.locale import load_locale
from lesson.numbers import parse_number
from scenes.lesson_scene import LessonScene
from scenes.pipeline import PipelineScene
from scenes.visuals import baseline
from tests.scene_checks import run_scene

GATO = LAB_SENTENCES["gato"]
SAMPLES = (0.15, 0.35, 0.5, 0.65, 0.85)  # moments of every animation, as shares of its run time
SHOWN = 0.5  # a part at more than half its opacity is what the viewer reads
MATRIX_STEPS = ("scores", "scaled", "softmax", "causal")


def in_scene(scene) -> set[int]:
    return {id(mobject) for mobject in scene.get_mobject_family_members()}


def opacity(mobject, family: set[int]) -> float:
    """How visible ``mobject`` is: its most opaque part, 0 when it is not on the scene."""
    if id(mobject) not in family:
        return 0.0
    parts = [part for part in mobject.family_members_with_points()]
    return max((max(part.get_fill_opacity(), part.get_stroke_opacity()) for part in parts), default=0.0)


def heatmaps(scene) -> dict:
    """The section's matrices of a sentence by name (TokenHeatmaps), those built so far."""
    found = {name: getattr(scene, name, None) for name in ("scores", "scaled", "weights")}
    comparison = getattr(scene, "comparison", None)
    if comparison is not None:
        found.update(masked_scores=comparison.masked_scores, masked=comparison.masked)
    return {name: heatmap for name, heatmap in found.items() if heatmap is not None}


def matrix_problems(scene) -> list[str]:
    """What a viewer reads wrong right now: a matrix's numbers under another matrix's formula (or the scores' colour
    bar beside the weights), and numbers or cells over the token names that label the rows."""
    family, maps, key = in_scene(scene), heatmaps(scene), scene.steps[-1].key
    problems = []
    rows_shown = {name for name, heatmap in maps.items()
                  if any(opacity(entry, family) > SHOWN for row in heatmap.matrix.entries for entry in row)}
    labels_shown = {name for name, heatmap in maps.items() if opacity(heatmap.matrix.label, family) > SHOWN}
    for name in rows_shown - labels_shown:
        problems.append(f"{key}: the rows of {name} under {sorted(labels_shown)}'s formula")
    legend = getattr(scene, "score_legend", None)
    if legend is not None and opacity(legend, family) > SHOWN and rows_shown & {"weights", "masked"}:
        problems.append(f"{key}: the scores' colour bar beside the weights")
    problems += crossed_problems(key, maps, family)
    names = [label for heatmap in maps.values() for label in heatmap.row_labels if opacity(label, family) > 0.05]
    pieces = [piece for heatmap in maps.values() for row in (*heatmap.matrix.entries, *getattr(heatmap.matrix, "cells", []))
              for piece in row if opacity(piece, family) > 0.05]
    boxes = {id(mobject): extent(mobject) for mobject in (*names, *pieces)}
    problems += [f"{key}: {piece.__class__.__name__} over the row name {label.shown_text!r}"
                 for label in names for piece in pieces if overlaps(boxes[id(label)], boxes[id(piece)])]
    return problems


def crossed_problems(key: str, maps: dict, family: set[int]) -> list[str]:
    """Two matrices' formulas, or two matrices' numbers, on screen over each other at once: a cross-fade of one
    matrix into the next that reads as neither (issue 43: two titles over each other at 224.5 s)."""
    visible = [(name, part) for name, heatmap in maps.items()
               for part in (heatmap.matrix.label, *(entry for row in heatmap.matrix.entries for entry in row))
               if opacity(part, family) > 0.05]
    boxes = [extent(part) for _, part in visible]
    return [f"{key}: {type(a).__name__} of {first} over one of {second}"
            for k, ((first, a), box) in enumerate(zip(visible, boxes))
            for (second, b), other in zip(visible[k + 1:], boxes[k + 1:]) if first != second and overlaps(box, other)]


def extent(mobject) -> tuple[float, float, float, float]:
    """(left, right, bottom, top) of ``mobject``'s bounding box."""
    (left, bottom, _), (right, top, _) = mobject.get_corner(DL), mobject.get_corner(UR)
    return left, right, bottom, top


def overlaps(a, b, tolerance: float = 0.01) -> bool:
    """Whether the boxes ``a`` and ``b`` (each ``extent``) overlap by more than ``tolerance``."""
    (a_left, a_right, a_bottom, a_top), (b_left, b_right, b_bottom, b_top) = a, b
    return (a_left < b_right - tolerance and b_left < a_right - tolerance
            and a_bottom < b_top - tolerance and b_bottom < a_top - tolerance)


@pytest.fixture(scope="module")
def sampled():
    """Run the scene once per overrides, checking matrix_problems at SAMPLES of every animation of the matrix
    steps and at its end; returns the scene and the problems, without repeats."""
    done = {}

    def run(*overrides):
        if overrides not in done:
            problems = []

            def update_to_time(scene, t):
                if scene.steps and scene.steps[-1].key in MATRIX_STEPS and t > 0:
                    for share in SAMPLES:
                        Scene.update_to_time(scene, share * t)
                        problems.extend(matrix_problems(scene))
                Scene.update_to_time(scene, t)

            def play(scene, *animations, **kwargs):
                LessonScene.play(scene, *animations, **kwargs)
                if scene.steps and scene.steps[-1].key in MATRIX_STEPS:
                    problems.extend(matrix_problems(scene))

            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(PipelineScene, "update_to_time", update_to_time)
                patch.setattr(PipelineScene, "play", play)
                scene = run_scene("pipeline", *overrides)
            done[overrides] = scene, list(dict.fromkeys(problems))
        return done[overrides]
    return run


# Item 5 -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("overrides", [(), ("pipeline.causal=true", f"pipeline.sentence='{LAB_SENTENCES['red']}'")])
def test_the_formula_changes_with_the_rows_and_no_row_covers_its_name(sampled, overrides):
    """Steps 4-6 and the causal comparison: at every sampled moment the formula above a matrix is the one of the
    numbers under it (the scores' colour bar leaves as the weights come), no number or cell runs over a
    token name left of the rows (review R: «en» read «er» at t = 95 s), and the matrix that leaves is gone before
    the next one's formula and numbers show where it stood (issue 43)."""
    _, problems = sampled(*overrides)
    assert problems == []


# Item 10 ----------------------------------------------------------------------------------------------------
def test_the_labs_dimensions_are_numbered_from_zero_as_the_positional_table_does(sampled):
    scene, _ = sampled()
    d = lab_attention(GATO).steps.X.shape[1]
    texts = {text.text for text in next(step for step in scene.steps if step.key == "embeddings").texts}
    positional = load_locale("es")["positional"]["labels"]["dim"]
    assert {positional.format(j=j) for j in range(d)} <= texts
    assert positional.format(j=d) not in texts


# Item 13 ----------------------------------------------------------------------------------------------------
def test_the_rows_beside_the_curve_are_at_the_exercises_temperatures(sampled):
    """Exercise 2 marks T = 0.5, 1, 3 on the curve: the rows beside it are at those temperatures (the default
    config's rows were at 0.2, 1, 3), each with the query row's entropy and maximum from attn_math."""
    scene, _ = sampled()
    plot = next(step for step in scene.steps if step.key == "temperature_plot")
    runs = [lab_attention(GATO, temperature) for temperature in (0.5, 1.0, 3.0)]
    query = 1  # «gato», the default query
    shown = {name: [parse_number(text) for text in plot.numbers[name][0]]
             for name in ("exercise_row", "exercise_row_entropy", "exercise_row_max")}
    assert shown["exercise_row"] == [0.5, 1.0, 3.0]
    np.testing.assert_allclose(shown["exercise_row_entropy"], [run.entropies[query] for run in runs], atol=0.005)
    np.testing.assert_allclose(shown["exercise_row_max"], [run.max_weights[query] for run in runs], atol=0.005)
    assert "temperature" not in plot.numbers  # the configured rows (T = 0.2, 1, 3) are gone


# Item 14 ----------------------------------------------------------------------------------------------------
def test_the_querys_bars_carry_their_weights_and_the_caption_says_they_are_almost_equal(sampled):
    scene, _ = sampled()
    softmax = next(step for step in scene.steps if step.key == "softmax")
    row = lab_attention(GATO).weights[1]
    np.testing.assert_allclose([parse_number(text) for text in softmax.numbers["distribution"][0]], row, atol=0.005)
    assert softmax.numbers["distribution"][0] == softmax.numbers["weights"][1]  # as the matrix writes its row
    assert "casi iguales" in softmax.caption and "aleatorios del lab" in softmax.caption
    assert f"{row.min():.2f}" in softmax.caption and f"{row.max():.2f}" in softmax.caption
    assert "tan gruesas como su peso" not in softmax.caption  # what the screen could not show


def test_every_caption_variant_is_in_both_locales():
    for lang in ("es", "en"):
        steps = load_locale(lang)["pipeline"]["steps"]
        assert {"caption_alike", "narration_alike"} <= set(steps["softmax"])
        assert {"caption_sharp", "narration_sharp"} <= set(steps["temperature"])


# Item 17 ----------------------------------------------------------------------------------------------------
def one_line(labels) -> bool:
    """Token names in one row: no two share a column of the screen, and they all start (or end) level."""
    boxes = sorted((label.get_left()[0], label.get_right()[0], label.get_bottom()[1], label.get_top()[1])
                   for label in labels)
    apart = all(a[1] <= b[0] + 1e-6 for a, b in zip(boxes, boxes[1:]))
    level = len({round(box[2], 3) for box in boxes}) == 1 or len({round(box[3], 3) for box in boxes}) == 1 \
        or len({round(baseline(label), 3) for label in labels}) == 1  # written across, on one baseline
    return apart and level


def test_column_names_above_the_maps_and_under_the_bars_are_one_row(sampled):
    """Staggered on two lines, the token names over a matrix or under a chart read as a second sentence."""
    scene, _ = sampled()
    for side in scene.presets_stage[0]:
        assert len(side[1].column_labels) == 7 and one_line(side[1].column_labels)
    assert len(scene.temperature_rows[-1].chart.labels) == 7 and one_line(scene.temperature_rows[-1].chart.labels)
    fan = scene.fan.chart.labels  # step 6's bars: a token a line, in one column
    assert len(fan) == 7 and len({round(label.get_left()[0], 3) for label in fan}) == 1
