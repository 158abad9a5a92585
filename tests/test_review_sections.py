"""Review R's items on the matrix, scaling, positional, capital and heads sections (issue 26), as a viewer
would check them on screen: the similarity table reaches the visible rise and says which curve is which,
every period fits on one line, the heads' column labels sit on one line, dimensions are counted from 0
everywhere, one precision per quantity within a section, and a row's or a cell's sound lands with it."""

import math
import re
from collections import defaultdict

import numpy as np
import pytest

from attn_math.positional import visible_rise
from lesson.locale import load_locale
from lesson.numbers import parse_number
from scene_checks import layout_problems, legibility_problems, shared_recorded, shared_scene

LANDING = 0.3  # s: an animation at least this long has a visual that lands after it starts


@pytest.fixture(scope="module")
def matrix():
    return shared_recorded("matrix")


@pytest.fixture(scope="module")
def scaling():
    return shared_recorded("scaling")


@pytest.fixture(scope="module")
def capital():
    return shared_scene("capital")


@pytest.fixture(scope="module")
def positional():
    return shared_scene("positional")


@pytest.fixture(scope="module")
def heads():
    return shared_scene("heads")


def step_named(scene, key):
    return next(step for step in scene.steps if step.key == key)


def decimals(text: str) -> int | None:
    """Digits after the decimal point of a number as written ("0.125" 3, "14" 0); None for "−∞"."""
    if not re.fullmatch(r"[−-]?\d+(\.\d+)?", text):
        return None
    return len(text.partition(".")[2])


def precisions(scene, tags) -> dict[str, set[int]]:
    """For each tag in ``tags`` (all when None), the decimals its numbers are written with, over every step."""
    found = defaultdict(set)
    for step in scene.steps:
        for tag, rows in step.numbers.items():
            if tags is None or tag in tags:
                found[tag] |= {decimals(text) for row in rows for text in row if text is not None} - {None}
    return found


def late_cues(scene, log, skip=("step",)) -> list[str]:
    """Cues struck as an animation of LANDING s or more starts, rather than as it ends: a cue marked just
    before such a play must sound at that play's end (one before a shorter play may sound at either end; one
    marked after its animation, before a wait, already sounds as its visual stands)."""
    problems = []
    for index, entry in enumerate(log):
        if entry[0] != "cue" or scene.cues[entry[1]].kind in skip:
            continue
        cue = scene.cues[entry[1]]
        following = next((later[1] for later in log[index + 1:] if later[0] == "play"), None)
        if following is None or following.waits:
            continue
        start, end = following.start, following.end
        allowed = (end,) if end - start >= LANDING - 1e-9 else (start, end)
        if all(abs(cue.time - time) > 1e-6 for time in allowed):
            problems.append(f"{cue.kind} at {cue.time:.2f} s, its animation runs {start:.2f}-{end:.2f} s")
    return problems


# Item 12: the similarity table and its legend ------------------------------------------------------------
def cosine_sum(delta: int, d: int = 16, base: float = 1e4) -> float:
    return sum(math.cos(delta / base ** (2 * i / d)) for i in range(d // 2))


@pytest.mark.parametrize("curve, expected", [
    ([8, 7, 5.5, 5.52, 6.2, 6.4, 6.0], (2, 5)),  # +0.02 is no rise to see; from 5.5 up to 6.4 (5 % of 8 is 0.4)
    ([8, 7, 7.2, 7.1, 6.0], None),  # +0.2: under 0.4
    ([3, 2, 1], None), ([4, 1, 3, 2, 0.5, 4], (1, 2))])
def test_a_visible_rise_climbs_5_percent_of_the_peak_from_the_lowest_point_so_far(curve, expected):
    assert visible_rise(curve) == expected


def test_the_similarity_table_reaches_where_the_curve_visibly_rises_and_the_caption_says_so(positional):
    step = step_named(positional, "similarity")
    shown = step.numbers["similarity_from_0"][0]
    assert len(shown) == 7  # Δ = 0 … 6
    assert [parse_number(text) for text in shown] == pytest.approx([cosine_sum(delta) for delta in range(7)], abs=0.005)
    # From Δ = 3 to Δ = 6 the curve climbs by 0.9 of its 8: a rise a plot shows (at Δ = 4 it climbed 0.02).
    assert cosine_sum(6) - cosine_sum(3) > 0.1 * cosine_sum(0) > cosine_sum(4) - cosine_sum(3)
    assert "5.54 en Δ = 3" in step.caption and "6.44 en Δ = 6" in step.caption
    assert "sube en Δ = 4" not in step.caption


def test_the_two_similarity_curves_span_the_same_distances_and_the_table_names_their_markers(positional):
    curves = [cue.values for cue in positional.cues if cue.kind == "similarity_curve" and "d_model" not in cue.values]
    assert [curve["start"] for curve in curves] == [0, 8]
    assert curves[0]["deltas"] == curves[1]["deltas"]  # the one from pos 8 does not stop short of the other
    table = positional.similarity_table((0, 8), [np.array(curve["similarities"]) for curve in curves], 7)
    markers = [row[0][0] for row in table]  # each row opens with its curve's marker, then its name
    plotted = [type(positional.curve_marker(np.zeros(3), dashed)) for dashed in (False, True)]
    assert [type(marker) for marker in markers] == plotted and plotted[0] is not plotted[1]


# Item 17: periods on one line, the heads' column labels on one line ------------------------------------------
def test_every_period_is_written_on_one_line_at_one_size(positional):
    step = step_named(positional, "waves")
    periods = {text for row in step.numbers["period"] for text in row if text}
    assert "2.0·10⁴" in periods
    shown = [text for text in step.texts if text.text in periods]
    signs = [text for text in step.texts if text.text == "λ ≈"]
    assert len(shown) == len(signs) == 4
    for number in shown:  # its "λ ≈" over it (review s15: beside it, the four no longer fitted at 16 px)
        sign = min(signs, key=lambda sign: abs((sign.left + sign.right) - (number.left + number.right)))
        assert number.top < sign.bottom < number.top + 0.3, number.text
        assert abs((sign.left + sign.right) - (number.left + number.right)) / 2 < 0.05, number.text
    assert max(number.bottom for number in shown) - min(number.bottom for number in shown) < 0.01  # one baseline
    assert max(text.cap_height for text in shown) == pytest.approx(min(text.cap_height for text in shown), rel=0.05)
    assert legibility_problems(positional) == [] and layout_problems(positional) == []


def test_the_heads_column_labels_stand_on_one_line(heads):
    for key in ("previous", "subject_verb", "pronoun", "average"):
        step = step_named(heads, key)
        words = {text.text for text in step.texts if text.left > 0 and text.text.isalpha()}
        columns = [max((text for text in step.texts if text.text == word and text.left > 0), key=lambda t: t.top)
                   for word in words]
        assert len(columns) == 9
        assert max(text.bottom for text in columns) - min(text.bottom for text in columns) < 0.01, key
    assert layout_problems(heads) == [] and legibility_problems(heads) == []


# Item 10: dimensions counted from 0 --------------------------------------------------------------------------
def test_capital_counts_dimensions_from_zero_as_the_pe_table_does(capital, positional):
    assert any(text.text == "dim 0" for text in step_named(positional, "table").texts)
    for lang, wrong in (("es", r"tercera dimensión|dimensión 3|la tercera:|tercera fila"),
                        ("en", r"third dimension|dimension 3|is the third|third row|Row 3")):
        strings = str(load_locale(lang)["capital"])
        assert not re.search(wrong, strings), lang
    captions = " ".join(step.caption for step in capital.steps)
    assert "dim 2" in captions and "Dimensiones 0, 1 y 2" in captions
    formulas = [text.text for text in step_named(capital, "asymmetry").texts]
    assert r"(r - \mu)_2" in formulas and r"\mathrm{LN}(r)_2" in formulas


# Item 16: one precision per quantity ---------------------------------------------------------------------------
def test_the_matrix_section_writes_each_quantity_with_one_precision(matrix):
    scene, _ = matrix
    found = precisions(scene, None)
    assert {tag: places for tag, places in found.items() if len(places) > 1} == {}
    assert found["weights"] == {4} and found["scaled"] == {2} and found["scores"] == {0}


def test_the_capital_section_writes_each_quantity_with_one_precision(capital):
    quantities = {"next word's probability": {"probs", "probability", "other_probability", "mirror_paris_reading",
                                              "mirror_roma_reading", "winner"},
                  "projection weights": {"W_Q", "W_K", "W_V"}, "attention": {"attention", "other_attention"}}
    found = precisions(capital, None)
    assert {tag: places for tag, places in found.items() if len(places) > 1} == {}
    for quantity, tags in quantities.items():
        assert len(set().union(*(found[tag] for tag in tags))) == 1, quantity
    assert found["probability"] == {3}  # 0.416 in step 9 and in step 10, 1/8 as 0.125
    assert "0.416" in str(step_named(capital, "other_country").numbers["probability"])


def test_capital_writes_approx_only_where_the_numbers_shown_do_not_reproduce_and_says_why(capital):
    step = step_named(capital, "projections")
    shown = {tag: np.array([[parse_number(text) for text in row] for row in rows]) for tag, rows in step.numbers.items()}
    labels = [text.text for text in step.texts if "XW_" in text.text]
    for role in "QKV":
        reproduced = np.round(shown["X"] @ shown[f"W_{role}"], 2)
        relation = "=" if np.array_equal(reproduced, shown[role]) else r"\approx"
        assert f"{role} {relation} XW_{role}" in labels
    assert any(r"\approx" in label for label in labels)
    assert any(text.text.startswith("≈:") for text in step.texts)  # the reason, under the matrices


# Sound lands with the picture ------------------------------------------------------------------------------------
def test_the_matrix_rows_and_cells_sound_as_they_land(matrix):
    scene, log = matrix
    assert {cue.kind for cue in scene.cues} >= {"row", "cell", "masked"}
    assert late_cues(scene, log) == []


def test_the_scaling_rows_and_cells_sound_as_they_land(scaling):
    scene, log = scaling
    assert {cue.kind for cue in scene.cues} >= {"row", "cell"}
    assert late_cues(scene, log) == []
