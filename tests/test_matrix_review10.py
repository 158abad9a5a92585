"""The matrix section's layout nits from the ninth frame review (grade 9): in step 2 W_Q's numbers sat 5 px under
W_K's and W_V's (its label's tail lowered the matrix: the row was levelled by the labels' tops), and the frame round
the three W's ended 20 px from the frame's right edge, along W_V's bracket."""

import av
import numpy as np
import pytest
from manim import config

from lesson.steps import parse_steps
from scene_checks import render_video, run_scene
from scenes import style
from scenes.lesson_scene import HEADER_SECONDS, LessonScene
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


def test_a_new_title_never_comes_over_the_last_steps_drawing(tmp_path):
    """Review s10 (scaling ≈108 s, pipeline 112.5, 164.0, 216.7, 265.8): for half a second at a step change the new
    title stood over the old step's drawing, read as its title. Measured on the video of matrix's alignment → scores
    change (the old plane leaves with the header, begin_step's ``with_header``): while the header region already looks
    partly in (a tenth of its ink), the body under the formula map is empty."""
    scene, path = render_video("matrix", tmp_path, frame_rate=10, pixels=(640, 360),
                               steps=parse_steps("alignment..scores", list(MatrixScene.STEPS)))
    start = next(step.start for step in scene.steps if step.key == "scores")  # the clip's records count from it
    background = np.array(style.BACKGROUND.to_rgb()) * 255
    frames = []
    with av.open(str(path)) as video:
        for frame in video.decode(video=0):
            frames.append((float(frame.time), frame.to_ndarray(format="rgb24").astype(float)))
    header = lambda image: image[:40, :]  # the title and the step counter
    body = lambda image: image[120:290, :]  # under the formula map, over the caption band
    old = header(next(image for time, image in reversed(frames) if time < start - HEADER_SECONDS - 0.05))
    new = header(next(image for time, image in frames if time > start + 0.05))
    ink = lambda image: np.abs(image - background).max(axis=2)
    only_new = (ink(new) > 60) & (ink(old) < 20)  # where the new title has ink and the old had none
    crossed = []
    for time, image in frames:
        if not start - HEADER_SECONDS - 0.05 <= time <= start + 0.05:
            continue
        coming = (ink(header(image))[only_new] / ink(new)[only_new]).mean()  # how far the new title has come in
        drawn = int((ink(body(image)) > 40).sum())
        if coming > 0.1 and drawn > 40:
            crossed.append((round(time - start, 2), round(coming, 2), drawn))
    assert crossed == [], crossed
