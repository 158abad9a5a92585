"""The matrix section's layout nits from the ninth frame review (grade 9): in step 2 W_Q's numbers sat 5 px under
W_K's and W_V's (its label's tail lowered the matrix: the row was levelled by the labels' tops), and the frame round
the three W's ended 20 px from the frame's right edge, along W_V's bracket."""

import pytest

from lesson.steps import parse_steps
from scene_checks import run_scene
from scenes import style
from scenes.matrix import MatrixScene
from scenes.visuals import baseline


@pytest.fixture(scope="module")
def inputs_and_queries():
    """The clip of steps 2-3, with the frames the voice's pointer drew (their step, right edge and the matrices
    they framed, level as they stood then)."""
    pointers, point_at = [], MatrixScene.point_at

    def recorded(scene, *mobjects):
        point_at(scene, *mobjects)
        pointers.append((scene.steps[-1].key, scene.pointer.get_right()[0], level(mobjects)))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "point_at", recorded)
        scene = run_scene("matrix", steps=parse_steps("inputs..queries", list(MatrixScene.STEPS)))
    return scene, pointers


def level(row) -> bool:
    """The matrices' brackets' tops level, and their labels on one line."""
    tops = [matrix.brackets.get_top()[1] for matrix in row]
    lines = [baseline(matrix.label) for matrix in row]
    return max(tops) - min(tops) < 1e-3 and max(lines) - min(lines) < 1e-3


def test_matrices_side_by_side_have_their_brackets_and_labels_level(inputs_and_queries):
    scene, pointers = inputs_and_queries
    assert [(key, levelled) for key, _, levelled in pointers] == [("inputs", True)]  # W_Q, W_K, W_V
    assert level([scene.X, scene.W["Q"], scene.products["Q"]])  # the queries' X W_Q = Q


def test_the_frame_round_the_weights_stays_inside_the_margins(inputs_and_queries):
    _, pointers = inputs_and_queries
    _, right, _, _ = style.body_box()
    assert pointers and all(edge <= right for _, edge, _ in pointers), (pointers, right)
