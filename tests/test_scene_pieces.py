"""The speed-ups among the shared scene pieces draw what manim's own pieces draw."""

import math

import numpy as np
import pytest
from manim import Circle, FadeIn, FadeOut, Scene, Square, Text, VGroup, tempconfig

from scenes import style
from scenes.fades import Appear, Vanish
from scenes.number_glyphs import NumberText, composed_number
from scenes.numbers import format_number
from scenes.visuals import number_text

NUMBERS = [0.0, 0.38, -2.69, 7.0, 12.5, -99.99, 1234.0, 3e5, -1e-7, 0.001, 1 / 3]


@pytest.mark.parametrize("size", [style.CELL_SIZE, style.BODY_SIZE, style.CAPTION_SIZE - 2])
def test_numbers_from_cached_glyphs_have_the_points_and_colour_manim_text_gives(size):
    for value in NUMBERS:
        shown = format_number(value, 0 if float(value).is_integer() else 2)
        reference = Text(shown, font=style.NUMBER_FONT, font_size=size, color=style.OUTPUT)
        composed = composed_number(shown, style.NUMBER_FONT, size, style.OUTPUT)
        assert isinstance(composed, NumberText) and composed.shown_text == shown
        assert len(composed) == len(reference)
        for ours, manims in zip(composed, reference):
            np.testing.assert_allclose(ours.points, manims.points, atol=1e-6)
            np.testing.assert_allclose(ours.fill_rgbas, manims.fill_rgbas)
            assert ours.get_stroke_width() == manims.get_stroke_width()


def test_characters_the_number_font_lacks_fall_back_to_text():
    assert composed_number("−∞", style.NUMBER_FONT, style.CELL_SIZE, style.TEXT) is None
    infinity = number_text(-math.inf)
    assert isinstance(infinity, Text) and infinity.shown_text == "−∞"


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
