"""Issue 43, the matrix section as a frame review saw it (overlaps and digit sizes on every screen:
tests/test_section_screens.py): a masked cell's number reads at 4.5:1 on its grey (WCAG 2); the formula map's frame
holds the glyphs it points at and cuts through none of the others; d_k is defined on screen; z₁'s mark leaves the
arrowheads that meet there in sight."""

import numpy as np
from manim import DL, UR, config
import pytest

from lesson.config import load_config
from lesson.steps import StepRange, step_keys
from scene_checks import run_scene
from scenes import style
from scenes.matrix import MatrixScene
from test_palette import contrast  # WCAG 2


@pytest.mark.parametrize("overrides", [(), ("matrix.causal=true",)], ids=["causal step", "causal lecture"])
def test_a_masked_weight_reads_at_4_5_to_1_on_its_grey(overrides):
    """The causal step's A (and A of a lecture run with the mask): each cell the mask zeroes is grey, and its 0 is
    written in a colour 4.5:1 against that grey at least."""
    if overrides:
        A = run_scene("matrix", *overrides).A
    else:
        causal = step_keys("matrix", load_config().matrix.skipped_steps()).index("causal") + 1
        A = run_scene("matrix", steps=StepRange(causal, causal)).stage[-1]  # the scores, then A
    n = len(A.values)
    masked = np.triu(np.ones((n, n), dtype=bool), 1)  # row i sees keys 1..i
    for i, j in zip(*np.nonzero(masked)):
        cell, entry = A.cells[i][j], A.entries[i][j]
        assert cell.get_fill_color() == style.MASKED
        assert contrast(entry.get_fill_color(), cell.get_fill_color()) >= 4.5, (i, j)


def box(mobject) -> tuple[float, float, float, float]:
    """(left, right, bottom, top) in frame units."""
    (left, bottom, _), (right, top, _) = mobject.get_corner(DL), mobject.get_corner(UR)
    return left, right, bottom, top


def inside(inner, outer) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1] and outer[2] <= inner[2] and inner[3] <= outer[3]


def apart(first, second) -> bool:
    return first[1] <= second[0] or second[1] <= first[0] or first[3] <= second[2] or second[3] <= first[2]


@pytest.fixture(scope="module")
def pointings():
    """Each time the formula map's frame moved: the step, the glyphs it was to frame, every glyph of the formula,
    and the frame's stroke (its outer and inner edges: the box less half the stroke's width each way)."""
    seen = []
    point_map_at = MatrixScene.point_map_at

    def recording(scene, *parts, **options):
        point_map_at(scene, *parts, **options)
        frame = scene.map_frame
        half = frame.get_stroke_width() / 100 / 2  # manim draws a stroke of width w as w / 100 frame units
        left, right, bottom, top = box(frame)
        seen.append((scene.steps[-1].key, [box(glyph) for part in parts for glyph in part.family_members_with_points()],
                     [box(glyph) for glyph in scene.formula.family_members_with_points()],
                     (left - half, right + half, bottom - half, top + half),
                     (left + half, right - half, bottom + half, top - half)))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "point_map_at", recording)
        run_scene("matrix")
    return seen


def test_the_map_frame_holds_its_terms_and_cuts_through_no_other_glyph(pointings):
    """Every glyph the frame points at lies inside its stroke; every other glyph of the formula lies wholly inside
    the stroke or wholly clear of it: the frame never runs through a letter (Q, ⊤, a bracket) beside its term."""
    cut = []
    for key, framed, glyphs, outer, inner in pointings:
        assert all(inside(glyph, inner) for glyph in framed), key
        cut += [f"{key}: glyph {index}" for index, glyph in enumerate(glyphs)
                if not inside(glyph, inner) and not apart(glyph, outer)]
    assert not cut, cut


def test_the_map_frame_leaves_its_terms_room(pointings):
    """Each term the frame points at keeps 8 px at 720p from the frame's inner edge on every side (the review saw Q,
    K and √d_k touch it: 4.5 px, and 3.3 above √d_k)."""
    least = 8 * config.frame_width / 1280  # frame units
    for key, framed, _, _, inner in pointings:
        left, right = min(glyph[0] for glyph in framed), max(glyph[1] for glyph in framed)
        bottom, top = min(glyph[2] for glyph in framed), max(glyph[3] for glyph in framed)
        margins = (left - inner[0], inner[1] - right, bottom - inner[2], inner[3] - top)
        assert min(margins) >= least - 1e-6, (key, [round(margin * 1280 / config.frame_width, 1) for margin in margins])


@pytest.fixture(scope="module")
def default():
    return run_scene("matrix")


def test_d_k_is_defined_on_screen_with_its_value_as_the_formula_comes(default):
    """The formula's d_k is said on screen in its first step: what it counts, and its value here (W_K's columns)."""
    d_k = np.array([[0, 2], [1, 0]]).shape[1]  # the default W_K: X's dimension to d_k
    formula = next(step for step in default.steps if step.key == "formula")
    assert any(text.text.startswith("d_k:") and "clave" in text.text and text.text.endswith(f"d_k = {d_k}")
               for text in formula.texts), [text.text for text in formula.texts]


def test_z_is_marked_round_the_arrowheads_that_meet_there_not_over_them(default):
    """z₁ lands on v₂'s tip and on the last term's: its mark hides neither (a ring, no fill over a tip), and its
    name stands clear of every arrow's tip."""
    picture = default.weighted_picture
    drawn_where_z_is = picture.inset_arrows if picture.inset else picture.arrows  # z₁ is marked in the window
    tips = [arrow.get_end() for drawn in drawn_where_z_is.values() for arrow in drawn if arrow.has_points()]
    mark, name = picture.z_dot, picture.names[-1]
    for tip in tips:
        under_mark = np.linalg.norm(tip[:2] - mark.get_center()[:2]) <= mark.width / 2
        assert not (under_mark and mark.get_fill_opacity() > 0), tip
        assert not inside((tip[0], tip[0], tip[1], tip[1]), box(name)), tip
