"""Review s12, report C («06 pipeline», grade 8): printed inputs did not reproduce printed outputs at the precision shown,
with no note saying why (q₆, 6 of k's 8, v₁ and v₆; «H = 0.93» beside a designed row whose written weights give 0.90);
step 6's A and the temperature plot's tick numbers were under 16 px; «las 7 filas salen casi iguales» was not quite
what Z's numbers show; «cada fila suma 1», «√d_k ≈ 2.83», «la guía espera uno o dos tokens» and «the designed weights
are not in the lab» were said, never written. Everything is recomputed here from the numbers as the scene draws them."""

import numpy as np
import pytest

from lesson.numbers import format_number, parse_number
from scenes.visuals import cap_height
from tests.scene_checks import run_scene

PIXELS_PER_UNIT = 720 / 8  # at 1280x720: the frame is 8 units tall
LEAST_DIGITS = 16  # px of cap height at 720p: the least for a matrix's digits and a plot's ticks (about 17 px of ink)
ROLES = {"Q": "queries", "K": "keys", "V": "output"}


@pytest.fixture(scope="module")
def scene():
    return run_scene("pipeline", "lecture.questions='none'")


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def texts(scene, key) -> list[str]:
    return [text.text for text in step(scene, key).texts]


def drawn(matrix) -> np.ndarray:
    """A matrix's numbers as its entries write them."""
    return np.array([[parse_number(entry.shown_text) for entry in row] for row in matrix.entries])


def entropy_bits(row) -> float:
    row = np.asarray(row, dtype=float)
    row = row[row > 0]
    return float(-(row * np.log2(row)).sum())


@pytest.mark.parametrize("role", sorted(ROLES))
def test_a_product_is_written_equal_only_when_its_drawn_numbers_reproduce_it(scene, role):
    """q = W_Q x, k = W_K x, v = W_V x redone from W and x as drawn: «=» only where every number comes out as drawn,
    else «≈» (the lab's q₆ −0.42 is −0.40 from the numbers written)."""
    _, band_box = scene.split_box(scene.canvas_box())
    band = scene.projection_band(role, band_box)
    redone = drawn(band.matrix) @ drawn(band.embedding)
    written = drawn(band.result)
    reproduced = [format_number(value) for value in redone.ravel()] == [format_number(value) for value in written.ravel()]
    assert band.equals.tex_string == ("=" if reproduced else r"\approx")
    assert band.approximate == (not reproduced)


def test_the_approximation_is_explained_once_under_the_first_product(scene):
    """The lab's products are written «≈» (q₆, 6 of k's 8 differ as redone): step 2 says why, in one line at a
    readable size, between Q's row and the product; no later step but k's repeats it."""
    _, band_box = scene.split_box(scene.canvas_box())
    assert scene.projection_band("Q", band_box).approximate
    note = scene.labels["approx_note"]
    [record] = [text for text in step(scene, "queries").texts if text.text == note]
    assert record.cap_height * PIXELS_PER_UNIT >= 14
    product = scene.projection_band("Q", band_box)
    assert record.bottom > product.get_top()[1] - 1e-6
    assert record.top < scene.vectors.rows[1].get_bottom()[1] + 1e-6
    # k (step 3) carries its own note since review s15, over its product: no other step repeats it
    assert [key for key in ("scores", "output", "presets") if note in texts(scene, key)] == []


@pytest.mark.parametrize("preset", ["lab", "sharp"])
def test_a_rows_entropy_is_written_equal_only_when_its_drawn_weights_give_it(scene, preset):
    """Step 8: «H = 0.93 bits» stood beside the designed row 0.78 / 0.17 / 0.04 / 0 …, which gives 0.90. H is
    redone from the row as the map draws it: where it does not come out as written, the readout also gives the H of
    the row as written (review s15, which replaced s14's «sin redondear» alone: the student's 0.90 was not on screen)."""
    record = step(scene, "presets")
    row = np.array([parse_number(text) for text in record.numbers[f"weights_{preset}"][scene.query]])
    [[written]] = record.numbers[f"entropy_{preset}"]
    redone = format_number(entropy_bits(row))
    as_written = record.numbers.get(f"entropy_written_{preset}")
    assert as_written == ([[redone]] if redone != written else None), (as_written, redone, written)


def test_the_designed_rows_entropy_is_approximate(scene):
    """The case the review measured: the default sentence's designed row gives 0.90 as written, 0.93 unrounded."""
    record = step(scene, "presets")
    row = np.array([parse_number(text) for text in record.numbers["weights_sharp"][scene.query]])
    assert format_number(entropy_bits(row)) != record.numbers["entropy_sharp"][0][0]
    assert any(text.startswith("sin redondear; con lo escrito, H =") for text in texts(scene, "presets"))


def test_the_temperature_plots_ticks_are_at_least_16_px(scene):
    """The max-weight plot's tick numbers and axis names were 14 px (cap) at 720p."""
    frame = scene.plot.frame
    sizes = [cap_height(part) * PIXELS_PER_UNIT for group in frame[1:3] for part in group]
    sizes += [cap_height(frame[3]) * PIXELS_PER_UNIT, cap_height(frame[4]) * PIXELS_PER_UNIT]
    assert min(sizes) >= LEAST_DIGITS


def test_the_rows_sum_as_written(scene):
    """«Cada fila suma 1», said at step 6, is written under A: «≈ 1» when a row as drawn (rounded) does not sum to
    1.00."""
    record = step(scene, "softmax")
    A = np.array([[parse_number(text) for text in row] for row in record.numbers["weights"]])
    exact = all(format_number(total) == format_number(1.0) for total in A.sum(axis=1))
    expected = scene.labels["rows_sum" if exact else "rows_sum_rounded"]
    assert expected in texts(scene, "softmax")
    assert not exact  # the lab's: row «el» as written sums to 1.01


def test_the_guides_spoken_statements_are_on_screen(scene):
    """√8 ≈ 2.83 (step 5), the guide's «uno o dos tokens» (the T = 0.2 step), and that the designed weights are not
    the lab's (step 8): said by the voice only before."""
    scaled = [text for text in texts(scene, "scaled") if text.startswith("QK^")]
    root = format_number(np.sqrt(8))
    assert len(scaled) == 1 and rf"\sqrt{{8}} \approx {root}" in scaled[0]
    assert scene.labels["guide_expects"] in texts(scene, "temperature")
    assert scene.labels["title_sharp"] in texts(scene, "presets") and "no en el lab" in scene.labels["title_sharp"]


def test_step_7_says_how_far_apart_zs_rows_are_as_written(scene):
    """«Las 7 filas salen casi iguales» was not quite true (rows «se» and «mesa» differ visibly). The step says by how
    much: the widest gap in one column between two rows of Z as drawn."""
    record = step(scene, "output")
    Z = np.array([[parse_number(text) for text in row] for row in record.numbers["Z"]])
    spread = format_number(np.ptp(Z, axis=0).max())
    assert spread == "0.03"
    assert f"difieren en {spread} como mucho" in record.caption
    narration = scene.strings["steps"]["output"]["narration_alike"]
    assert "{spread}" in narration and "casi iguales" not in narration
