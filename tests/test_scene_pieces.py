"""The speed-ups among the shared scene pieces draw what manim's own pieces draw; the shared layout helpers
place texts where a reader expects them."""

import math

import numpy as np
import pytest
from manim import Circle, FadeIn, FadeOut, MathTex, Scene, Square, Text, VGroup, tempconfig

from lesson.numbers import MINUS, format_number
from scenes import style
from scenes.fades import Appear, Vanish
from scenes.number_glyphs import NumberText, composed_number
from scenes.token_labels import MIN_FONT_SIZE, TokenLabels, abbreviated
from scenes.visuals import (baseline, cap_height, enlarge_formulas, label_text, number_text, probability_decimals,
                            sit_on)

NUMBERS = [0.0, 0.38, -2.69, 7.0, 12.5, -99.99, 1234.0, 3e5, -1e-7, 0.001, 1 / 3]


@pytest.mark.parametrize("size", [style.CELL_SIZE, style.BODY_SIZE, style.CAPTION_SIZE - 2])
def test_numbers_from_cached_glyphs_have_the_points_and_colour_manim_text_gives(size):
    for value in NUMBERS:
        shown = format_number(value, 0 if float(value).is_integer() else 2)
        reference = Text(shown, font=style.NUMBER_FONT, font_size=size, color=style.OUTPUT)
        composed = composed_number(shown, style.NUMBER_FONT, size, style.OUTPUT)
        assert isinstance(composed, NumberText) and composed.shown_text == shown
        assert len(composed) == len(reference)
        if value < 0:  # the minus is ours (next test); the rest must match manim's, shifted alike
            composed, reference = composed[1:], reference[1:]
            composed.shift(reference[0].get_left() - composed[0].get_left())
        for ours, manims in zip(composed, reference):
            np.testing.assert_allclose(ours.points, manims.points, atol=1e-6)
            np.testing.assert_allclose(ours.fill_rgbas, manims.fill_rgbas)
            assert ours.get_stroke_width() == manims.get_stroke_width()


def test_the_minus_sign_is_as_wide_as_the_plus_and_level_with_it():
    """JetBrains Mono draws U+2212 as its hyphen; a minus must be as wide as the plus's bar."""
    minus = composed_number(f"{MINUS}1", style.NUMBER_FONT, style.CELL_SIZE, style.TEXT)[0]
    hyphen, plus = Text("-+", font=style.NUMBER_FONT, font_size=style.CELL_SIZE)
    assert minus.width == pytest.approx(plus.width, rel=1e-6)
    assert minus.width > 1.3 * hyphen.width
    assert minus.height == pytest.approx(hyphen.height, rel=1e-6)
    one = Text(f"{MINUS}1", font=style.NUMBER_FONT, font_size=style.CELL_SIZE)
    assert minus.get_y() == pytest.approx(one[0].get_y(), abs=1e-6)  # at the hyphen's height
    assert "-" not in number_text(-2.5).shown_text and number_text(-2.5).shown_text == f"{MINUS}2.50"


def test_infinity_is_a_glyph_of_the_number_font_and_unknown_characters_fall_back_to_text():
    infinity = number_text(-math.inf)
    assert isinstance(infinity, NumberText) and infinity.shown_text == f"{MINUS}∞"
    assert composed_number("1+x", style.NUMBER_FONT, style.CELL_SIZE, style.TEXT) is None


def test_probability_decimals_make_every_written_row_sum_to_one():
    assert probability_decimals([[1 / 8] * 8]) == 3  # 0.125, not 0.13 (eight of which are 1.04)
    assert probability_decimals([[0.25, 0.75], [0.5, 0.5]]) == 2
    weights = np.array([[0.0126688884, 0.881645411, 0.105685701], [0.163579101, 0.163579101, 0.672841798]])
    decimals = probability_decimals(weights)
    assert decimals == 4  # 0.16 + 0.16 + 0.67 = 0.99 and 0.013 + 0.882 + 0.106 = 1.001
    for row in weights:
        assert sum(float(f"{p:.{decimals}f}") for p in row) == pytest.approx(1.0, abs=1e-9)
    assert probability_decimals([[1 / 3] * 3]) == 4  # never exact: the most decimals allowed


def test_cap_heights_measure_digits_capitals_and_the_smaller_subscripts():
    digit = Text("0", font=style.NUMBER_FONT, font_size=style.CELL_SIZE)
    assert cap_height(number_text(-12.5)) == pytest.approx(digit.height, rel=0.02)
    capital = Text("H", font=style.TEXT_FONT, font_size=style.CAPTION_SIZE)
    assert cap_height(label_text("Hola", font_size=style.CAPTION_SIZE)) == pytest.approx(capital.height, rel=0.02)
    with_subscript = label_text("W_H", font_size=style.CAPTION_SIZE)
    assert cap_height(with_subscript) == pytest.approx(with_subscript[1].height, rel=0.03)  # the H, lowered
    assert cap_height(with_subscript) >= 14 / 720 * 8  # legible at 720p, unlike Pango's <sub>
    shrunk = label_text("Hola", font_size=style.CAPTION_SIZE).scale(0.5)
    assert cap_height(shrunk) == pytest.approx(capital.height / 2, rel=0.02)


def stage() -> VGroup:
    return VGroup(Square().set_fill(style.ATTENTION, opacity=0.8).set_stroke(opacity=0.5),
                  Circle().set_fill(style.OUTPUT, opacity=1.0))


def fill_opacities(group: VGroup) -> list[float]:
    return [float(part.fill_rgbas[0, 3]) for part in group.family_members_with_points()]


@pytest.fixture
def scene(tmp_path):
    with tempconfig({"media_dir": str(tmp_path), "write_to_movie": False, "verbosity": "ERROR"}):
        yield Scene()


@pytest.mark.parametrize("ours, manims", [(Vanish, FadeOut), (Appear, FadeIn)])
def test_opacity_fades_draw_what_manims_fades_draw(ours, manims):
    mine, reference = stage(), stage()
    fast, slow = ours(mine), manims(reference)
    fast.begin()
    slow.begin()
    for alpha in (0.0, 0.25, 0.5, 0.9, 1.0):
        fast.interpolate(alpha)
        slow.interpolate(alpha)
        np.testing.assert_allclose(fill_opacities(mine), fill_opacities(reference), atol=1e-9)
        np.testing.assert_allclose([part.stroke_rgbas[0, 3] for part in mine.family_members_with_points()],
                                   [part.stroke_rgbas[0, 3] for part in reference.family_members_with_points()],
                                   atol=1e-9)


def test_vanish_removes_the_mobject_and_leaves_it_as_it_was(scene):
    group = stage()
    scene.add(group)
    fade = Vanish(group)
    fade.begin()
    fade.interpolate(1.0)
    assert fill_opacities(group) == [0.0, 0.0]
    fade.finish()
    fade.clean_up_from_scene(scene)
    assert group not in scene.mobjects
    assert fill_opacities(group) == pytest.approx([0.8, 1.0])  # ready to be shown again


def test_appear_puts_the_mobject_on_screen_and_staggers_with_lag_ratio(scene):
    group = stage()
    fade = Appear(group, lag_ratio=1.0)
    fade._setup_scene(scene)
    fade.begin()
    assert group in scene.mobjects and fill_opacities(group) == [0.0, 0.0]
    fade.interpolate(0.5)  # with lag_ratio 1 the first part has finished, the second not begun
    assert fill_opacities(group) == pytest.approx([0.8, 0.0])
    fade.interpolate(1.0)
    assert fill_opacities(group) == pytest.approx([0.8, 1.0])


def test_subpath_splits_are_manims_for_glyphs_shapes_and_odd_points():
    from manim import MathTex, Square, Text

    from scenes.speedups import manims_subpath_split_indices, subpath_split_indices

    rng = np.random.default_rng(0)
    shapes = [*Text("Atención 0.38", font=style.TEXT_FONT), *MathTex(r"\sqrt{d_k}")[0], Square(), Circle()]
    arrays = [shape.points for shape in shapes if len(shape.points)]
    joined = np.concatenate([Square().points, Circle().shift(3 * np.array([1, 0, 0])).points])
    odd = rng.normal(size=(40, 3))
    odd[[3, 7, 8], 0] = [np.nan, np.inf, np.inf]
    arrays += [joined, odd, odd[:3], odd[:4], odd[:6], np.empty((0, 3))]
    for points in arrays:
        for n_dims in (2, 3):
            mine = subpath_split_indices(shapes[0], points, n_dims)
            manims = manims_subpath_split_indices(shapes[0], points, n_dims)
            np.testing.assert_array_equal(mine, manims)
            assert mine.shape == manims.shape


def test_boundary_points_are_manims_for_glyphs_groups_points_and_empty_mobjects():
    """The anchors every placement measures: the same array as manim's for a caption, a formula, a group with a
    square twice, a dot of one point, an empty group, and a shape of five points (manim's error)."""
    from manim import VMobject

    from scenes.speedups import boundary_points, manims_boundary_points

    square = Square()
    one_point = VMobject().set_points(np.array([[1.0, 2.0, 0.0]]))
    shapes = [Text("Atención 0.38", font=style.TEXT_FONT), MathTex(r"\sqrt{d_k}", "=", "2"),
              VGroup(square, VGroup(square, Circle().shift(np.array([2.0, 1.0, 0.0])))), one_point,
              VGroup(one_point, Square()), VGroup(), VGroup(VGroup(), Circle())]
    for shape in shapes:
        mine, manims = boundary_points(shape), manims_boundary_points(shape)
        assert mine.shape == manims.shape and mine.dtype == manims.dtype
        np.testing.assert_array_equal(mine, manims)
    five = VMobject().set_points(np.random.default_rng(2).normal(size=(5, 3)))
    with pytest.raises(ValueError):
        manims_boundary_points(five)
    with pytest.raises(ValueError):
        boundary_points(five)


def test_families_are_manims_for_trees_with_shared_parts():
    """Random graphs of groups built from the bottom up, each group holding up to four earlier ones (so a group is
    often below several others, which manim keeps at its last place), plus a caption and a formula: the same
    list, in the same order."""
    from manim import MathTex, Mobject, Text

    from scenes.speedups import family_in_one_walk, manims_get_family

    rng = np.random.default_rng(1)
    with_repeats = 0
    for _ in range(60):
        made = []
        for _ in range(int(rng.integers(1, 25))):
            group = VGroup()
            group.submobjects = [made[int(index)] for index in rng.integers(0, len(made), int(rng.integers(0, 5)))] \
                if made else []
            made.append(group)
        family = manims_get_family(made[-1])
        with_repeats += len(family) < len(family_walked_with_repeats(made[-1]))
        assert family_in_one_walk(made[-1]) == family
    assert with_repeats > 20
    for tree in (Text("Atención 0.38", font=style.TEXT_FONT), MathTex(r"\sqrt{d_k}", "=", "2"), Mobject()):
        assert family_in_one_walk(tree) == manims_get_family(tree)


def same_copies(mine, manims, original, pairs: dict) -> None:
    """``mine`` and ``manims`` (copies of ``original``) alike: the same types and values, numeric arrays equal and
    never the original's, and shared in the same places (``pairs`` maps the id of each object of one copy to the
    other's)."""
    from manim import ManimColor, Mobject

    if isinstance(mine, (Mobject, ManimColor, list, np.ndarray)):
        assert pairs.setdefault(id(mine), id(manims)) == id(manims)  # shared where manim's copy shares
        if pairs.get(("seen", id(mine))):
            return
        pairs[("seen", id(mine))] = True
    assert type(mine) is type(manims)
    if isinstance(mine, np.ndarray):
        np.testing.assert_array_equal(mine, manims)
        assert mine is not original and mine.dtype == manims.dtype
    elif isinstance(mine, (list, tuple)):
        assert len(mine) == len(manims)
        for a, b, c in zip(mine, manims, original):
            same_copies(a, b, c, pairs)
    elif isinstance(mine, dict):
        assert mine.keys() == manims.keys()
        for key in mine:
            same_copies(mine[key], manims[key], original[key], pairs)
    elif isinstance(mine, (Mobject, ManimColor)):
        assert mine is not original and vars(mine).keys() == vars(manims).keys()
        for name in vars(mine):
            if name == "original_id":  # what a copy says it was copied from
                assert mine.original_id == manims.original_id == str(id(original))
            else:
                same_copies(vars(mine)[name], vars(manims)[name], vars(original)[name], pairs)
    else:
        assert mine == manims or (callable(mine) and mine is manims)


def test_mobject_copies_are_manims_with_the_same_sharing():
    """Copies of a caption, a formula, a group holding one square twice, a coloured shape with an updater: the same
    attributes, values and sharing as manim's own deep copy."""
    import copy

    from manim import Circle, MathTex, Mobject, Square, Text

    from scenes.speedups import manims_deepcopy

    square = Square().set_fill(style.ATTENTION, 0.5)
    shared = VGroup(square, VGroup(square, Circle()))
    updated = Circle().add_updater(lambda mobject, dt: None)
    for original in (Text("Atención 0.38", font=style.TEXT_FONT), MathTex(r"\sqrt{d_k}", "=", "2"), shared, updated):
        mine = copy.deepcopy(original)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Mobject, "__deepcopy__", manims_deepcopy)
            manims = copy.deepcopy(original)
        same_copies(mine, manims, original, {})
    copied = copy.deepcopy(shared)
    assert copied[0] is copied[1][0] and copied[0] is not square


def family_walked_with_repeats(mobject) -> list:
    return [mobject, *(member for child in mobject.submobjects for member in family_walked_with_repeats(child))]


# Shared layout helpers ------------------------------------------------------------------------------
def test_a_number_without_digits_is_as_tall_as_a_number_of_its_size():
    """«−∞» holds no digit to measure: it counts as tall as the digits typeset with it (it was 0 px before)."""
    for size in (style.CELL_SIZE, style.CAPTION_SIZE):
        assert cap_height(number_text(-math.inf, font_size=size)) == pytest.approx(
            cap_height(number_text(2.5, font_size=size)), rel=0.02)


def test_enlarge_formulas_grows_only_formulas_under_the_legible_size_about_their_bottom():
    small, large = MathTex(r"W_{\text{out}}", font_size=30).scale(0.4), MathTex(r"W_{\text{out}}", font_size=48)
    bottom, untouched = small.get_bottom().copy(), large.height
    assert cap_height(small) < style.SMALLEST_CAP_HEIGHT
    enlarge_formulas(VGroup(VGroup(small), large))
    assert style.SMALLEST_CAP_HEIGHT <= cap_height(small) <= 1.05 * style.SMALLEST_CAP_HEIGHT
    np.testing.assert_allclose(small.get_bottom(), bottom, atol=1e-9)
    assert large.height == untouched


def test_baseline_ignores_descenders_and_raised_signs():
    """«p =» and «T =» sit on their letters' line, as «Hx» does."""
    for text in ("p =", "T =", "gap"):
        label, reference = label_text(text), label_text("Hx")
        sit_on(label, 0.0)
        sit_on(reference, 0.0)
        assert baseline(label) == pytest.approx(0.0, abs=1e-6)
        assert reference[0].get_bottom()[1] == pytest.approx(0.0, abs=0.01)


@pytest.mark.parametrize("sign", ["μ", "p", "γ", "ρ"])
def test_a_sign_with_a_descender_sits_on_the_line_of_one_without(sign):
    """«μ =» beside its value stood higher than «σ =» (μ's tail was taken for the line): placed on one line, the
    "=" of «μ =» is where the "=" of «x =» is."""
    label, reference = label_text(f"{sign} ="), label_text("x =")  # lower case: Inter raises "=" after a capital
    sit_on(label, 0.0)
    sit_on(reference, 0.0)
    assert label[-1].get_center()[1] == pytest.approx(reference[-1].get_center()[1], abs=0.005)


def test_abbreviated_keeps_short_tokens_and_cuts_long_ones_at_a_letter():
    assert abbreviated("sienta") == "sienta" and abbreviated("desafortun") == "desafortun"  # 10 letters: in full
    assert abbreviated("internacionalización") == "internaci…"
    assert abbreviated("e\u0301lectroencefalograma") == "e\u0301lectroen…"  # é as e + accent: one letter


@pytest.mark.parametrize("tokens, spacing, lines", [
    (["el", "gato", "se"], 1.0, 1),  # side by side
    (["sienta", "mesa", "gato", "la"], 0.6, 2),  # every other one a line down
    (["internacionalización"] * 8, 0.85, 3),  # two lines would be under MIN_FONT_SIZE: a third
])
def test_token_labels_take_a_second_line_then_a_third_only_when_needed(tokens, spacing, lines):
    centres = [spacing * j for j in range(len(tokens))]
    labels = TokenLabels(tokens, centres, spacing)
    assert labels.lines == lines and labels.readable and labels.font_size >= MIN_FONT_SIZE
    for label, x in zip(labels, centres):
        assert label.get_x() == pytest.approx(x, abs=1e-6)  # centred on its column
    rows = sorted({round(baseline(label), 6) for label in labels}, reverse=True)
    assert len(rows) == lines
    assert all(baseline(label) == pytest.approx(rows[j % lines], abs=1e-6) for j, label in enumerate(labels))
    for line in range(lines):  # labels on one line never touch
        same = [label for j, label in enumerate(labels) if j % lines == line]
        assert all(a.get_right()[0] < b.get_left()[0] for a, b in zip(same, same[1:]))


def test_a_bar_charts_labels_keep_one_size_when_one_word_needs_less():
    """«Francia» was shrunk to its bar's width while «La», «capital», «de» kept theirs: one size for all."""
    from scenes.bar_chart import BarChart

    words = ["La", "capital", "de", "Francia", "es"]
    chart = BarChart([0.02, 0.34, 0.08, 0.55, 0.01], words, bar_width=0.6, gap=0.35)
    shares = [label.height / label_text(word, style.TEXT, style.CAPTION_SIZE).height
              for label, word in zip(chart.labels, words)]
    assert max(shares) == pytest.approx(min(shares), rel=1e-6)
    step = 0.6 + 0.35
    assert all(label.width <= step * 0.95 + 1e-9 for label in chart.labels)
