"""The matrix section as the eleventh review (grade 8) saw it: labels ahead of their contents in steps 8 and 10 (the
matrix headed QKᵀ/√d_k still showed the unscaled scores, the one headed A = softmax(·) still held score rows), the
exponentials and their sum gone when the weights came in step 9 (1.00 / 1.13 = 0.8816 could not be read), and in step
6 k₂ «gato», q₁ and q₁'s shadow on k₂ stacked on the x axis, the q₁ label on the axis line."""

import numpy as np
import pytest
from manim import VGroup

from lesson.steps import parse_steps
from scene_checks import run_scene
from scenes.matrix import MatrixScene

# The worked example (4.2.6), written here
X, W_Q, W_K = (np.array(matrix, dtype=float) for matrix in ([[1, 0], [0, 2], [1, 1]], [[3, 0], [-1, 2]],
                                                            [[0, 2], [1, 0]]))
Q, K = X @ W_Q, X @ W_K
SCORES = Q @ K.T
SCALED = SCORES / np.sqrt(2)
WEIGHTS = np.exp(SCALED) / np.exp(SCALED).sum(axis=1, keepdims=True)


def shown(scene, mobject) -> bool:
    """On the scene and not faded out (a dimmed part counts as shown)."""
    family = scene.get_mobject_family_members()
    return any(part in family for part in mobject.get_family()) and max(
        max(part.get_fill_opacity(), part.get_stroke_opacity()) for part in mobject.family_members_with_points()) > 0


def bright(mobject) -> bool:
    return min(part.get_fill_opacity() for part in mobject.family_members_with_points()) > 0.6


@pytest.fixture(scope="module")
def landings():
    """After each play of the scaled and softmax steps: (step, which of the two labels show, for each row whether
    its old numbers show bright and whether its new ones show)."""
    log, play = [], MatrixScene.play

    def logged(scene, *animations, **options):
        play(scene, *animations, **options)
        key = scene.steps[-1].key if scene.steps else None
        pairs = {"scaled": ("S", "scaled"), "softmax": ("scaled", "A")}
        if key in pairs and hasattr(scene, "A"):
            old, new = (getattr(scene, name) for name in pairs[key])
            rows = [(any(shown(scene, e) and bright(e) for e in old.entries[i]),
                     any(shown(scene, e) for e in new.entries[i])) for i in range(len(old.entries))]
            log.append((key, shown(scene, old.label), shown(scene, new.label), rows))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "play", logged)
        run_scene("matrix", steps=parse_steps("scores..softmax", list(MatrixScene.STEPS)))
    return log


def test_a_matrix_label_never_names_numbers_not_yet_there(landings):
    """While the old label shows, no row holds the new kind of number; once the new label shows, every row is
    either the new kind or dimmed, visibly not yet; never both labels."""
    assert {key for key, *_ in landings} == {"scaled", "softmax"}
    wrong = []
    for key, old_label, new_label, rows in landings:
        if old_label and new_label:
            wrong.append((key, "both labels"))
        if old_label and any(new for _, new in rows):
            wrong.append((key, "old label over new numbers", rows))
        if new_label and any(old for old, _ in rows):
            wrong.append((key, "new label over old numbers", rows))
    assert wrong == []
    for key in ("scaled", "softmax"):  # and each step ends with its new matrix whole under its new label
        _, old_label, new_label, rows = [entry for entry in landings if entry[0] == key][-1]
        assert (old_label, new_label) == (False, True) and all(new and not old for old, new in rows), key


@pytest.fixture(scope="module")
def exponentiate():
    """The exponentiate step, with every worked line it showed."""
    lines, show_line = [], MatrixScene.show_line

    def logged(scene, line, *also):
        show_line(scene, line, *also)
        lines.append((scene.steps[-1].key, line.shown_text))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "show_line", logged)
        scene = run_scene("matrix", steps=parse_steps("exponentiate", list(MatrixScene.STEPS)))
    return scene, [text for key, text in lines if key == "exponentiate"]


def test_the_weights_come_beside_the_exponentials_and_their_sum(exponentiate):
    """Step 9 ends with the row of A and, on one line, the exponentials ÷ e^max (as the bars wrote them), their sum
    and the weights: 1.00 / 1.13 = 0.8816 can be read."""
    scene, _ = exponentiate
    row = SCALED[0]
    drawn = np.exp(row - row.max())
    weights = drawn / drawn.sum()
    # written with the decimals at which the division checks (review 12): 0.01 / 1.13 gave 0.0088, not 0.0127
    expected = (", ".join(f"{value:.5f}" for value in drawn), f"{drawn.sum():.5f}",
                ", ".join(f"{value:.4f}" for value in weights))
    assert expected == ("0.01437, 1.00000, 0.11987", "1.13424", "0.0127, 0.8816, 0.1057")
    texts = [text.text for text in scene.steps[-1].texts]
    assert any(all(part in text for part in expected) and "÷" in text for text in texts), texts


def test_the_cancelled_factor_is_said_on_screen(exponentiate):
    """«Se cancela al normalizar»: why drawing e^x ÷ e^{max} is harmless, on a line of its own before the division."""
    _, lines = exponentiate
    largest = f"{SCALED[0].max():.2f}"
    said = [k for k, text in enumerate(lines) if "se cancela al normalizar" in text and largest in text]
    divided = [k for k, text in enumerate(lines) if "1.13" in text]
    assert said and divided and said[0] < divided[0], lines


@pytest.fixture(scope="module")
def alignment():
    return run_scene("matrix", steps=parse_steps("alignment", list(MatrixScene.STEPS))).alignment_picture


def stroke_half_width(line) -> float:
    return line.get_stroke_width() / 200  # a stroke of width w is w / 100 frame units wide


def test_a_shadow_along_its_key_is_drawn_beside_it_as_long_as_the_shadow(alignment):
    """q₁ = (3, 0) and k₂ = (2, 0) lie on the x axis, and so does q₁'s shadow on k₂: a bracket beside the axis, clear of
    the thick shadow under the arrows, as long as the shadow (q₁·k₂ / |k₂| = 3)."""
    plane = alignment.plane
    k = K[1]
    along = Q[0] @ k / np.linalg.norm(k)
    cast, mark = alignment.shadows[1]
    lines = [part for part in mark.family_members_with_points()]
    assert lines, "no mark for the shadow hidden under q₁ and k₂"
    bracket = max(lines, key=lambda line: np.linalg.norm(line.get_end() - line.get_start()))
    start, end = (plane.coordinates(point) for point in (bracket.get_start(), bracket.get_end()))
    assert np.linalg.norm(end - start) == pytest.approx(abs(along))
    assert abs((end - start) @ np.array([-k[1], k[0]])) < 1e-9  # parallel to k₂
    gap = abs(start @ np.array([-k[1], k[0]]) / np.linalg.norm(k)) * plane.unit  # from k₂'s line, frame units
    clear = stroke_half_width(cast) + stroke_half_width(bracket) + 0.1  # 9 px at 720p between the two strokes
    assert gap >= clear, (gap, clear)


def crossed(box, start, end) -> bool:
    points = np.asarray(start)[:2] + np.linspace(0, 1, 200)[:, None] * (np.asarray(end)[:2] - np.asarray(start)[:2])
    left, right, bottom, top = box
    return bool(np.any((points[:, 0] > left) & (points[:, 0] < right) & (points[:, 1] > bottom) & (points[:, 1] < top)))


def test_the_vectors_names_stay_off_the_lines(alignment):
    """q₁'s name sat on the x axis: no name's box is crossed by an arrow, an axis, a shadow's bracket or its drop."""
    marks = [mark if isinstance(mark, VGroup) else [mark] for _, mark in alignment.shadows]
    lines = [*alignment.arrows["q"], *alignment.arrows["k"], *alignment.plane.axes,
             *[line for mark in marks for line in mark if line.family_members_with_points()]]
    hit = []
    for name in alignment.names:
        (left, bottom, _), (right, top, _) = name.get_corner(np.array([-1, -1, 0])), name.get_corner(np.array([1, 1, 0]))
        hit += [name.original_text if hasattr(name, "original_text") else str(name)
                for line in lines if crossed((left, right, bottom, top), line.get_start(), line.get_end())]
    assert hit == []
