"""The matrix section as the eleventh review (grade 8) saw it: labels ahead of their contents in steps 8 and 10 (the
matrix headed QKᵀ/√d_k still showed the unscaled scores, the one headed A = softmax(·) still held score rows), the
exponentials and their sum gone when the weights came in step 9 (1.00 / 1.13 = 0.8816 could not be read), and in step
6 k₂ «gato», q₁ and q₁'s shadow on k₂ stacked on the x axis, the q₁ label on the axis line."""

import numpy as np
import pytest

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
    expected = (", ".join(f"{value:.2f}" for value in drawn), f"{drawn.sum():.2f}",
                ", ".join(f"{value:.4f}" for value in weights))
    assert expected == ("0.01, 1.00, 0.12", "1.13", "0.0127, 0.8816, 0.1057")  # the review's numbers
    texts = [text.text for text in scene.steps[-1].texts]
    assert any(all(part in text for part in expected) and "÷" in text for text in texts), texts


def test_the_cancelled_factor_is_said_on_screen(exponentiate):
    """«Se cancela al normalizar»: why drawing e^x ÷ e^{max} is harmless, on a line of its own before the division."""
    _, lines = exponentiate
    largest = f"{SCALED[0].max():.2f}"
    said = [k for k, text in enumerate(lines) if "se cancela al normalizar" in text and largest in text]
    divided = [k for k, text in enumerate(lines) if "1.13" in text]
    assert said and divided and said[0] < divided[0], lines
