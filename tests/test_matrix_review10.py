"""The matrix section's layout nits from the ninth frame review (grade 9): in step 2 W_Q's numbers sat 5 px under
W_K's and W_V's (its label's tail lowered the matrix: the row was levelled by the labels' tops), and the frame round
the three W's ended 20 px from the frame's right edge, along W_V's bracket."""

import pytest
from manim import config

from lesson.steps import parse_steps
from scene_checks import run_scene
from scenes import style
from scenes.lesson_scene import LessonScene
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


def test_the_worked_examples_origin_is_on_screen_only_for_its_numbers(inputs_and_queries):
    """Clase 04: «Los valores de fábrica son los del ejemplo trabajado 4.2.6 del apunte, así que puedes comprobar cada
    número contra el texto» (the voice alone said where to check them). Written for those numbers, whatever the
    words; never over a lecturer's own matrices."""
    scene, _ = inputs_and_queries
    inputs = next(step for step in scene.steps if step.key == "inputs")
    assert sum("4.2.6" in text.text for text in inputs.texts) == 1
    for override in ('matrix.tokens=["yo", "tú", "él"]', 'matrix.preset="large_scores"', "matrix.X=[[1,0],[0,1],[2,1]]"):
        own = run_scene("matrix", override, steps=parse_steps("inputs", list(MatrixScene.STEPS)))
        texts = next(step for step in own.steps if step.key == "inputs").texts
        assert sum("4.2.6" in text.text for text in texts) == (1 if "tokens" in override else 0), override


def test_a_closing_card_with_a_drawing_keeps_the_frames_margins():
    """The matrix's cost card, with its n² grid, ran from 10 px under the frame's top to 10 px over its bottom: a card
    with a drawing (matrix's, heads') gives the drawing only the height the margins leave."""
    panels, card = [], LessonScene.card

    def recorded(scene, title, lines):
        group = card(scene, title, lines)
        panels.append((scene.section_id, group[1]))
        return group

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "card", recorded)
        for section in ("matrix", "heads"):
            assert run_scene(section).cards[-1].kind == "closing"
    top = config.frame_height / 2 - style.MARGIN + 1e-3
    assert {section for section, _ in panels} == {"matrix", "heads"}
    assert [(section, round(panel.get_top()[1], 2), round(panel.get_bottom()[1], 2)) for section, panel in panels
            if panel.get_top()[1] > top or panel.get_bottom()[1] < -top] == []
