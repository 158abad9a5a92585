"""Review s14, report C («06-pipeline», grade 8): Z = AV could not be checked (only v for «gato» was printed, the other
six values were bars); the discussed «sienta» row of step 13 read worst (2.7:1); the entropy box touched the «≈» note;
«H ≈ 0.93 bits» came out 0.90 from the printed row; exercise 1's «la → mesa» boxes and exercise 4's other sentences'
dots had no words; the plot's y-ticks were 15 px and step 14 wrote its conclusion before its reason. Everything is
measured on the mobjects the scene builds, the numbers redone with numpy from the numbers as drawn."""

import numpy as np
from manim import interpolate_color

from lesson.numbers import format_number, parse_number
from scenes.heatmap import relative_luminance
from scenes.visuals import cap_height
from tests.test_pipeline_review11 import played  # noqa: F401 (a fixture: the scene with its plays recorded)
from tests.test_pipeline_review13 import scene, step  # noqa: F401 (scene: a fixture, the same render)

PIXELS_PER_UNIT = 720 / 8  # at 1280x720: the frame is 8 units tall
LEAST_DIGITS = 16  # px of cap height at 720p
TICK_CAP = 17.5  # px of cap height at 720p for a plot's tick numbers: anti-aliased, their ink measures about 1 px less


def drawn(matrix) -> np.ndarray:
    """A matrix's numbers as its entries write them."""
    return np.array([[parse_number(entry.shown_text) for entry in row] for row in matrix.entries])


def output_table(scene):
    """Step 7's last table: the query's weights α_j, V and Z, as the scene left them on screen."""
    names, (weights, values, outputs), frame = scene.output_stage[2]
    return weights, values, outputs, frame


def test_the_querys_row_of_z_is_redone_from_the_weights_and_values_written_beside_it(scene):
    """z_gato = Σ_j α_j v_j: α (gato's row of A) and V as drawn give Z's framed row as drawn, digit for digit; every
    token's v is written, not only gato's."""
    weights, values, outputs, frame = output_table(scene)
    alpha, V, Z = drawn(weights)[:, 0], drawn(values), drawn(outputs)
    assert V.shape == (len(scene.tokens), Z.shape[1])
    redone = alpha @ V
    assert [format_number(value) for value in redone] == [format_number(value) for value in Z[scene.query]]
    np.testing.assert_allclose(alpha, scene.run.weights[scene.query], atol=0.0051)
    np.testing.assert_allclose(V, scene.run.steps.V[:, :V.shape[1]], atol=0.0051)
    assert abs(frame.get_y() - outputs.entries[scene.query][0].get_y()) < 0.05


def test_the_output_tables_numbers_are_legible(scene):
    """Every digit of α, V and Z at least 16 px tall at 720p, inside the frame."""
    weights, values, outputs, _ = output_table(scene)
    smallest = min(cap_height(entry) for matrix in (weights, values, outputs) for row in matrix.entries for entry in row)
    assert smallest * PIXELS_PER_UNIT >= LEAST_DIGITS


def contrast(first, second) -> float:
    """WCAG 2 contrast ratio of two colours."""
    lighter, darker = sorted((relative_luminance(first) + 0.05, relative_luminance(second) + 0.05), reverse=True)
    return lighter / darker


def test_the_rows_exercise_4_talks_about_read_best(scene):
    """Step 13: the cells «el» and «sienta» see on the masked map, lit as the voice names them: each number at
    least 4.5:1 on what is behind it, a light over the number counted (a white light over white digits was 2.7:1)."""
    parts = scene.comparison
    matrix = parts.masked.matrix
    for row in (0, parts.fourth):
        for cell, entry in zip(matrix.cells[row][:row + 1], matrix.entries[row][:row + 1]):
            behind = cell.get_fill_color()
            for light in parts.seen:  # any light drawn over the number
                behind = interpolate_color(behind, light.get_fill_color(), light.get_fill_opacity())
            assert contrast(entry.get_color(), behind) >= 4.5, (row, entry.shown_text)


def test_the_approx_note_clears_the_frame_round_the_masked_entropies(scene):
    """Step 13 frames «H(el) = 0.00 bits · H(sienta) = 1.99 bits» on the comparison as step 12 laid it out: the
    frame's bottom edge sat 1-2 px over the «≈» note's accents; now at least 4 px apart at 720p, its stroke counted."""
    free, masked = (scene.attention(scene.settings.temperature, causal) for causal in (False, True))
    parts = scene.comparison_layout(free, masked, masked.steps.mask.sum(axis=1))  # as built at step 12
    frame = scene.changed_frame(parts)
    assert len(parts.note) == 1
    edge = frame.get_bottom()[1] - frame.get_stroke_width() / 100 / 2  # a stroke 2 wide: 0.01 units each side
    assert (edge - parts.note.get_top()[1]) * PIXELS_PER_UNIT >= 4


def test_the_temperature_plots_tick_numbers_have_ink_16_px_tall(scene):
    """Steps 10-11: the y-ticks «0.40 / 0.20 / 0.00» measured 15 px of ink at 720p with a 16.x px cap height: the
    tick numbers at least TICK_CAP px of cap height, so that their ink is 16 px or more."""
    frame = scene.plot.frame
    sizes = [cap_height(number) * PIXELS_PER_UNIT for group in frame[1:3] for number in group]
    assert min(sizes) >= TICK_CAP


def first_drawn(plays, part) -> int:
    """The index of the first play after which ``part`` (every piece of it) is drawn."""
    pieces = [id(piece) for piece in part.family_members_with_points()]
    return next(k for k, play in enumerate(plays) if all(piece in play.after for piece in pieces))


def test_exercise_5_explains_the_spread_before_or_with_its_conclusion(played):
    """Step 14: «divisor × 2.83: la misma nitidez» came (293.9) 6 s before the line that says why, «barras: dispersión
    de q·k, ∝ √d_k»: the key is on screen no later than the conclusion."""
    scene, plays = played
    spread_key, growth = scene.pointed["spread"][-1], scene.pointed["growth"]
    assert first_drawn(plays, spread_key) <= first_drawn(plays, growth)


def test_the_designed_rows_entropy_says_it_is_the_unrounded_weights(scene):
    """Step 8: «H ≈ 0.93 bits» beside the designed row 0.78 / 0.17 / 0.04 / 0 …, which gives 0.90 as written: the
    readout now says the 0.93 is the unrounded weights' H (0.93 from them, redone here), so a student's 0.90 is
    explained; no bare «≈»."""
    record = step(scene, "presets")
    [[written]] = record.numbers["entropy_sharp"]
    weights = scene.attention(scene.settings.temperature, False, "sharp").weights[scene.query]
    weights = weights[weights > 0]
    assert written == format_number(float(-(weights * np.log2(weights)).sum()))
    shown = " ".join(text.text for text in step(scene, "presets").texts)
    assert "sin redondear; con lo escrito, H =" in shown and "H ≈" not in shown  # review s15: with the 0.90
