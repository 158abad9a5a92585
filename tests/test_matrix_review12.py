"""The matrix section as the twelfth review (grade 8, "close to 9") saw it: step 9's division line did not check at
the precision it wrote ((0.01, 1.00, 0.12) ÷ 1.13 gives 0.0088, not 0.0127); step 15 said only in the voice that
learned projections break the dominant diagonal, and never drew K = Q; step 6's k₂ name sat on k₂'s arrowhead and the
shadow's bracket had no number; step 8 wrote the variance 12 → 6 while only row 1 was divided, without saying what
it was the variance of."""

import re

import numpy as np
import pytest

from lesson.numbers import parse_number
from lesson.steps import parse_steps
from scene_checks import run_scene
from scenes.matrix import MatrixScene

# The worked example (4.2.6), written here
X, W_Q, W_K = (np.array(matrix, dtype=float) for matrix in ([[1, 0], [0, 2], [1, 1]], [[3, 0], [-1, 2]],
                                                            [[0, 2], [1, 0]]))
Q, K = X @ W_Q, X @ W_K
SCORES = Q @ K.T
SCALED = SCORES / np.sqrt(2)
NUMBER = r"−?\d+(?:\.\d+)?"


def logged_lines(steps: str):
    """Run ``steps`` of the section; every worked line shown, as (step key, its text, the scene time); the scene keeps
    ``ending_lines``: each step's worked line as the step ends, and ``ending_caption``: its caption then."""
    lines, show_line, finish_step = [], MatrixScene.show_line, MatrixScene.finish_step

    def logged(scene, line, *also):
        show_line(scene, line, *also)
        lines.append((scene.steps[-1].key, line.shown_text, scene.renderer.time))

    def ending(scene):
        scene.ending_lines = getattr(scene, "ending_lines", {})
        if scene.steps:  # begin_step finishes the step before, if any
            scene.ending_lines[scene.steps[-1].key] = (scene.line.copy() if scene.line is not None else None,
                                                       scene.header[-1].copy())
        finish_step(scene)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "show_line", logged)
        patch.setattr(MatrixScene, "finish_step", ending)
        scene = run_scene("matrix", steps=parse_steps(steps, list(MatrixScene.STEPS)))
    return scene, lines


@pytest.fixture(scope="module")
def exponentiate():
    return logged_lines("exponentiate")


def numbers(text: str) -> list[float]:
    return [parse_number(number) for number in re.findall(NUMBER, text)]


def test_the_division_line_checks_at_the_precision_it_writes(exponentiate):
    """A₁ⱼ = (e₁, e₂, e₃) ÷ Σ = (w₁, w₂, w₃): each written eⱼ divided by the written Σ, rounded as the weights are
    written, is the written weight; and the weights are softmax(q₁·kⱼ/√2), computed here."""
    _, lines = exponentiate
    [line] = [text for key, text, _ in lines if key == "exponentiate" and "÷" in text and "=" in text
              and text.startswith("A")]
    inside = re.findall(r"\(([^)]*)\)", line)
    exponentials, weights = (numbers(group) for group in (inside[0], inside[-1]))
    total = numbers(line.split("÷")[1].split("=")[0])[0]
    places = len(re.findall(NUMBER, inside[-1])[0].split(".")[1])
    row = SCALED[0]
    expected = np.exp(row) / np.exp(row).sum()
    assert weights == pytest.approx(np.round(expected, places))
    assert np.round(np.array(exponentials) / total, places) == pytest.approx(np.array(weights)), line
    assert total == pytest.approx(np.exp(row - row.max()).sum(), abs=10.0 ** -places)


@pytest.fixture(scope="module")
def shared():
    return logged_lines("shared_projection")


def test_the_learned_projections_are_on_screen_with_the_diagonal(shared):
    """Step 15 ends with the diagonal's line and, under it, the claim the voice makes: learned W_Q ≠ W_K break the
    diagonal's win; both inside the frame, apart, over the caption."""
    scene, lines = shared
    final = [text for key, text, _ in lines if key == "shared_projection"]
    diagonal = ", ".join(f"{value:g}" for value in np.diag(Q @ Q.T))
    assert any(diagonal in text for text in final), final
    ends = " ".join(text.text for text in scene.steps[-1].texts)
    assert "≠" in ends and "aprendidas" in ends, ends
    assert diagonal in ends
    (first, second), caption = scene.ending_lines["shared_projection"]
    assert first.get_bottom()[1] > second.get_top()[1]  # one under the other, not over each other
    assert second.get_bottom()[1] > caption.get_top()[1]
    assert all(abs(part.get_x()) + part.width / 2 <= 7.111 - 0.3 for part in (first, second))


def test_k_equals_q_is_drawn(shared):
    """The change is written as the step opens (W_K = W_Q → K = Q) and the scores are labelled QQᵀ, and they are
    X W_Q (X W_Q)ᵀ, computed here."""
    scene, lines = shared
    texts = [text for key, text, _ in lines if key == "shared_projection"]
    assert "K = X W_K = X W_Q = Q" in texts[0], texts
    ends = " ".join(text.text for text in scene.steps[-1].texts)
    assert "QQ^\\top" in ends and "QK^\\top" not in ends, ends


@pytest.fixture(scope="module")
def alignment():
    return run_scene("matrix", steps=parse_steps("alignment", list(MatrixScene.STEPS))).alignment_picture


def box(mobject, grow: float = 0.0):
    (left, bottom, _), (right, top, _) = mobject.get_corner(np.array([-1, -1, 0])), mobject.get_corner(np.array([1, 1, 0]))
    return left - grow, right + grow, bottom - grow, top + grow


def apart(first, second) -> bool:
    return first[1] <= second[0] or second[1] <= first[0] or first[3] <= second[2] or second[3] <= first[2]


def test_no_name_or_its_frame_sits_on_an_arrowhead(alignment):
    """k₂'s name box overlapped k₂'s own arrowhead by about 10 px: every name, with the frame a winner's name gets
    (0.06 from it, its stroke 3 px), keeps 4 px (0.044 units) from every arrowhead."""
    arrows = [*alignment.arrows["q"], *alignment.arrows["k"]]
    tips = [box(arrow.tip) for arrow in arrows if hasattr(arrow, "tip")]
    assert len(tips) == 4
    frame = 0.06 + 0.015 + 0.044
    hits = [(name.shown_text if hasattr(name, "shown_text") else k, t) for k, name in enumerate(alignment.names)
            for t, tip in enumerate(tips) if not apart(box(name, frame), tip)]
    assert hits == []


def test_the_hidden_shadow_bracket_is_numbered_with_its_length(alignment):
    """The bracket beside the axis gives q₁'s shadow on k₂ its length, q₁·k₂ / |k₂| = 3, written by its middle, clear
    of the names and of the plane's numbers."""
    length = Q[0] @ K[1] / np.linalg.norm(K[1])
    assert length == 3
    number = alignment.shadow_numbers[1]
    assert parse_number(number.shown_text) == pytest.approx(length)
    _, bracket = alignment.shadows[1]
    line = bracket[0]
    middle = line.get_center()
    assert abs(number.get_x() - middle[0]) < 0.2 and 0 < abs(number.get_y() - middle[1]) < 0.5
    assert all(apart(box(number), box(other)) for other in [*alignment.names, *alignment.plane.ticks])
    assert set(alignment.shadow_numbers) == {1}  # the other shadows have their dashed drop: no bracket, no number


@pytest.fixture(scope="module")
def scaled():
    """The scaled step's worked lines, and the time its rows had all been divided."""
    done, replace = [], MatrixScene.replace_row_by_row

    def timed(scene, *args, **options):
        replace(scene, *args, **options)
        done.append(scene.renderer.time)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "replace_row_by_row", timed)
        scene, lines = logged_lines("scaled")
    return [(text, time) for key, text, time in lines if key == "scaled"], done[0]


def test_the_variance_comes_once_every_row_is_divided_and_says_of_what(scaled):
    """The division is written as the rows are divided; the variance of the scores (all 9 cells, population variance:
    12 → 6, computed here) only once the last row is, and the line says it is the 9 scores' variance."""
    lines, rows_done = scaled
    before, after = np.var(SCORES), np.var(SCALED)
    assert (round(before, 2), round(after, 2)) == (12, 6)
    variance = [(text, time) for text, time in lines if f"{before:g} → {after:g}" in text]
    assert variance and all(time >= rows_done for _, time in variance), (lines, rows_done)
    assert f"{SCORES.size} puntajes" in variance[0][0]
    early = [text for text, time in lines if time < rows_done]
    assert early and all("÷ √d_k" in text and "→" not in text for text in early), early


@pytest.fixture(scope="module")
def weighted():
    return run_scene("matrix", steps=parse_steps("weighted_average", list(MatrixScene.STEPS))).weighted_picture


def drawn_length(arrow) -> float:
    return float(np.linalg.norm(arrow.get_end() - arrow.get_start())) if arrow.has_points() else 0.0


def test_every_term_of_z1_is_drawn_long_enough_somewhere(weighted):
    """z₁ = 0.8816·v₂ + 0.1057·v₃ + 0.0127·v₁: the last term was 14 px in the ×9 window, under the arrowhead before it
    and z₁'s ring. Each term is drawn at least 45 px (0.5 units) long in the plane or in a window, and the window that
    shows the shortest keeps clear of the ring in the window it sits in."""
    weights = np.exp(SCALED[0]) / np.exp(SCALED[0]).sum()
    views = [weighted.arrows["terms"], weighted.inset_arrows["terms"], weighted.deep_arrows]
    assert weighted.deep is not None
    longest = [max(drawn_length(view[k]) for view in views) for k in range(len(weights))]
    assert min(longest) >= 0.5, longest
    deep, inset = weighted.deep, weighted.inset
    inner, outer = box(deep.window), box(inset.window)
    assert outer[0] <= inner[0] and inner[1] <= outer[1] and outer[2] <= inner[2] and inner[3] <= outer[3]
    assert apart(inner, box(weighted.z_dot)) and apart(inner, box(deep.region))
    # the window's last term ends on z₁ as the window draws it: its tip is z₁ read back through the window
    last = weighted.deep_arrows[-1]
    z = deep.coordinates(last.get_end())
    assert z == pytest.approx(weights @ np.array([weighted.plane.coordinates(a.get_end()) for a in weighted.arrows["v"]]),
                              abs=1e-3)
