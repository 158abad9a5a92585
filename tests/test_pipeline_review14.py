"""Review s13, report C («06-pipeline», grade 8): printed numbers that a student cannot redo from the printed inputs
stood with no «≈» and no note (step 5's 0.10 = 0.30 / 2.83, «máx. = 0.24» at T = 0.20, the masked «sienta»·«se»
0.22); exercise 1 was done for «el → gato» alone and exercise 4's other sentences were unnamed white dots; the fan's
values (15 px), the −∞ glyphs (8 px) and the T = 0.20 frame (23 px from the edge) were small or close. Everything
is recomputed here with numpy from the numbers as the scene draws them."""

import numpy as np
import pytest

from lesson.numbers import format_number, parse_number
from scenes.visuals import cap_height
from tests.test_pipeline_review13 import scene, step  # noqa: F401 (scene: a fixture, the same render)

PIXELS_PER_UNIT = 720 / 8  # at 1280x720: the frame is 8 units tall
FRAME_HALF_WIDTH = 8 * 16 / 9 / 2
EDGE_MARGIN = 0.3  # frame units kept free at the frame's edges
LEAST_DIGITS = 16  # px of cap height at 720p


def texts(scene, key) -> list[str]:
    return [text.text.replace("\n", " ") for text in step(scene, key).texts]  # a note may wrap onto two lines


def written(numbers) -> np.ndarray:
    return np.array([[parse_number(text) for text in row] for row in numbers], dtype=float)


def softmax_rows(scores) -> np.ndarray:
    scores = np.asarray(scores, dtype=float)
    exps = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return exps / exps.sum(axis=-1, keepdims=True)


def as_written(values) -> list[str]:
    return [format_number(value) for value in np.ravel(values)]


def test_step_5_is_marked_approximate_where_step_4_over_2_83_does_not_give_it(scene):
    """0.30 / 2.83 = 0.106 is 0.11, the lab writes 0.10: redone from step 4's numbers and the 2.83 written, the
    scaled matrix differs in some cells, so step 5 carries the note that says why."""
    scores, scaled = written(step(scene, "scores").numbers["scores"]), written(step(scene, "scaled").numbers["scaled"])
    redone = scores / float(format_number(np.sqrt(8) * scene.settings.temperature))
    differ = as_written(redone) != as_written(scaled)
    assert differ  # the lab's own numbers: 4 of 49 cells
    assert (scene.labels["approx_note"] in texts(scene, "scaled")) == differ
    assert scene.labels["approx_note"] not in texts(scene, "softmax")  # it leaves with step 5's matrix


def test_the_temperature_rows_largest_weight_is_equal_only_when_step_5s_row_gives_it(scene):
    """At T = 0.20 the lab's 0.244 is written 0.24; step 5's «gato» row as written, divided by 0.20, gives 0.248:
    0.25. That readout says «≈», the others «=», and the note is on the screen."""
    scaled = written(step(scene, "scaled").numbers["scaled"])[scene.query]
    record = step(scene, "temperature")
    temperatures = scene.settings.temperatures
    maxima = [cell for row in record.numbers["temperature_max"] for cell in row]
    readouts = [text.text for text in record.texts if text.text.startswith("máx.")]
    relations = []
    for temperature, shown in zip(temperatures, maxima):
        redone = softmax_rows(scaled * scene.settings.temperature / temperature).max()
        relations.append("=" if format_number(redone) == shown else "≈")
    assert "≈" in relations  # T = 0.20
    assert sorted(relations) == sorted(text.split()[1] for text in readouts)
    assert scene.labels["approx_note"] in texts(scene, "temperature")


def test_the_masked_weights_say_what_rounding_does_when_the_minus_infinity_matrix_does_not_give_them(scene):
    """The masked «sienta» row's 0.02, 0.08, −0.12, 0.11 give 0.21 to «se»; the lab writes 0.22: a note on the causal
    step says so. (Review s15 round 2: the title stays «A = softmax(·)», as on the unmasked side; a «≈» there alone
    read as if the mask made the weights approximate.)"""
    drawn = [[[entry.shown_text for entry in row] for row in heatmap.matrix.entries]
             for heatmap in (scene.comparison.masked_scores, scene.comparison.masked)]
    scores, weights = (written(matrix) for matrix in drawn)
    redone = softmax_rows(np.where(np.isfinite(scores), scores, -np.inf))
    assert as_written(redone) != as_written(weights)
    assert not any(r"A \approx" in text for text in texts(scene, "causal"))
    assert scene.labels["masked_note"] in texts(scene, "causal")


def test_exercise_4_names_each_other_sentence_and_marks_each_of_its_rows(scene):
    """Every other sentence has its own mark (a dot, a diamond), one per row it has, and is named with its rows
    and its first and fourth rows' entropy: «atención es todo lo que necesitas» has six words, so six marks, none at the
    7th."""
    from attn_math.lab import LAB_SENTENCES, lab_attention
    chart = scene.entropy_stage[1]
    others = [lab_attention(sentence, 1.0, causal=True) for name, sentence in LAB_SENTENCES.items() if name != "gato"]
    assert len(chart.others) == sum(len(run.tokens) for run in others)
    shown = texts(scene, "entropy")
    assert "«atención es todo lo que necesitas»" in shown and "«la red neuronal aprende rápido»" in shown
    bits = step(scene, "entropy").numbers["entropy_others"]  # review s15: the first and the fourth row's, each
    assert bits == [[format_number(run.entropies[row]) for row in (0, 3)] for run in others]
    kinds = {type(mark).__name__ for mark in chart.others}
    assert len(kinds) == len(others)  # told apart by their marks


def test_exercise_1_rings_la_mesa_on_both_maps(scene):
    """Exercise 1 on every article of the sentence: «la → mesa» ringed on each map, beside «el → gato»."""
    la, mesa = scene.tokens.index("la"), scene.tokens.index("mesa")
    rings = scene.presets_stage.rings.get_family()
    for side in scene.presets_stage.sides:
        cell = side.heatmap.matrix.cells[la][mesa]
        assert any(np.allclose(ring.get_center(), cell.get_center(), atol=0.05)
                   and cell.width <= ring.width < 1.5 * cell.width for ring in rings)


def test_the_fan_values_are_as_tall_as_the_matrix_digits(scene):
    values = scene.fan.chart.value_texts
    assert len(values) == len(scene.tokens)
    assert min(cap_height(value) for value in values) * PIXELS_PER_UNIT >= LEAST_DIGITS - 0.05


def test_minus_infinity_is_as_tall_as_a_digit(scene):
    """The font's ∞ is a lower-case glyph: 8 px beside 16 px digits; it is grown to a digit's height."""
    matrix = scene.comparison.masked_scores.matrix
    mask = np.triu(np.ones((len(scene.tokens),) * 2, dtype=bool), 1)
    digit = max(glyph.height for glyph, c in zip(matrix.entries[1][0], matrix.entries[1][0].shown_text) if c.isdigit())
    for i, j in np.argwhere(mask):
        entry = matrix.entries[i][j]
        assert entry.shown_text.endswith("∞")
        assert entry[-1].height >= 0.95 * digit or entry.width >= 0.85 * matrix.cells[i][j].width


def test_the_cold_rows_frame_keeps_off_the_frame_edge(scene):
    cold = scene.designed_cold[0]
    assert cold.get_left()[0] >= -FRAME_HALF_WIDTH + EDGE_MARGIN


def test_the_temperature_note_leaves_when_no_maximum_is_approximate(scene):
    """The guide's T = 0.5, 1, 3 redo from step 5's row as written: «=» everywhere, so exercise 2's screen drops
    the note that stood for T = 0.20's «≈»."""
    record = step(scene, "temperature_plot")
    assert [text.text.split()[1] for text in record.texts if text.text.startswith("máx.")] == ["="] * 3
    assert scene.labels["approx_note"] not in texts(scene, "temperature_plot")
