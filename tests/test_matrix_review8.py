"""The matrix section as the last frame review (grade 8) saw it, narrated: no screen still for over 6 s as a viewer
measures it (frame to frame), the last step's drawing gone before the voice names the next step's, colour bars that
key every score cell on screen, highlight frames that never cross a number, the large-scores change and step 1's
context on screen, and the closing card's n² drawn to scale."""

import re

import numpy as np
import pytest
from manim import DL, UL, UR, RoundedRectangle, SurroundingRectangle, Transform

from scene_checks import (TINY, PacedSpeaker, flattened, layout_problems, legibility_problems, recorded,
                          render_video, run_scene, video_stills)
from scenes import style
from scenes.matrix import MatrixScene
from scenes.number_glyphs import NumberText

# The default example, written here
X, W_Q, W_K = (np.array(matrix, dtype=float) for matrix in ([[1, 0], [0, 2], [1, 1]], [[3, 0], [-1, 2]],
                                                            [[0, 2], [1, 0]]))
ROUND = sorted(step * 10.0 ** power for power in range(-2, 5) for step in (1, 2, 2.5, 5))


def box(mobject) -> tuple[float, float, float, float]:
    (left, bottom, _), (right, top, _) = mobject.get_corner(DL), mobject.get_corner(UR)
    return left, right, bottom, top


def overlap(first, second) -> bool:
    return first[0] < second[1] and second[0] < first[1] and first[2] < second[3] and second[2] < first[3]


def inside(inner, outer) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1] and outer[2] <= inner[2] and inner[3] <= outer[3]


def value(text: str) -> float:
    return float(text.replace("\u2212", "-").replace("\u221e", "inf"))


@pytest.fixture(scope="module")
def paced_video(tmp_path_factory):
    """The whole section and its closing card, spoken by a stand-in voice at the narration's pace, as a video of the
    reviewers' size at 10 frames a second (at 256 x 144 a row of digits is a handful of pixels, under any measure)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(TINY, "pixel_width", 640)
        patch.setitem(TINY, "pixel_height", 360)
        return render_video("matrix", tmp_path_factory.mktemp("matrix"), frame_rate=10, narration=PacedSpeaker())


def test_the_inputs_and_the_closing_card_are_never_still_over_six_seconds(paced_video):
    """Frame to frame (scene_checks.video_stills), nothing stands still over 6 s in the inputs step or on the closing
    card: before, the three weight matrices faded in a row at a time long before the voice said they were fixed
    (12.2 s in the 720p review), and the cost card's lines faded in one by one with no picture (12.7 s)."""
    scene, path = paced_video
    inputs = next(step for step in scene.steps if step.key == "inputs")
    closing = scene.cards[-1]
    spans = [(inputs.start, inputs.end), (closing.start, closing.end)]
    assert [(start, end) for start, end in video_stills(path)
            if any(start < last and first < end for first, last in spans)] == []


def test_the_closing_card_draws_n_squared_to_scale(paced_video):
    """The card's picture: the example's n × n scores cell for cell (QKᵀ's signs as its colours) in the corner of the
    grid of ten times the tokens, drawn at the same cell size: a hundred times the area; named with their counts."""
    scene, _ = paced_video
    cells, small_label, square, rules, large_label = scene.cost_picture
    n = len(X)
    scores = (X @ W_Q) @ (X @ W_K).T
    side = cells[0].width
    assert square.width == pytest.approx(10 * n * side) and square.height == pytest.approx(10 * n * side)
    assert cells.width == pytest.approx(n * side) and np.allclose(cells.get_corner(UL), square.get_corner(UL))
    assert len(rules) == 2 * (10 * n - 1)
    panel = np.array(style.PANEL.to_rgb())
    for cell, score in zip(cells, scores.flat):  # towards the positive colour, the negative one, or the panel's
        shift = np.array(cell.get_fill_color().to_rgb()) - panel
        if score:
            towards = np.array((style.SCORE_POSITIVE if score > 0 else style.SCORE_NEGATIVE).to_rgb()) - panel
            assert np.dot(shift, towards) > 0, score
        else:
            assert np.allclose(shift, 0, atol=0.01)
    assert f"{n}² = {n * n}" in small_label.shown_text
    assert f"{10 * n}² = {(10 * n) ** 2}" in large_label.shown_text
    closing = scene.cards[-1]
    assert closing.kind == "closing" and layout_problems(scene) == [] and legibility_problems(scene) == []


@pytest.fixture(scope="module")
def spoken():
    """The section spoken at the narration's pace, each play logged."""
    return recorded("matrix", narration=PacedSpeaker())


def test_the_last_steps_drawing_is_gone_as_the_voice_starts(spoken):
    """The voice starts as the header settles: by then step 1's sound legend and big formula have left for the inputs
    step, and the alignment picture for the scores step (before: «Empezamos con 3 tokens…» over the legend for
    0.8 s, «Puntajes» over the plot for 0.9 s)."""
    scene, log = spoken
    steps = {step.key: step for step in scene.steps}
    plays = [entry for kind, entry in log if kind == "play"]
    for key, leaving in (("inputs", scene.sound_legend), ("scores", scene.alignment_picture.plane)):
        voice = steps[key].narration["phrases"][0][1]
        gone = max(play.end for play in plays if play.shows(leaving)  # a Vanish, maybe in the header's group
                   and "Vanish" in {type(animation).__name__ for animation in flattened(play.animations)})
        assert gone <= voice + 1e-3, (key, gone, voice)  # phrases are recorded to 0.1 ms


def test_every_score_cell_on_screen_has_a_colour_bar_that_reaches_it(spoken):
    """Each step that shows coloured scores (QKᵀ, QKᵀ/√d_k, the contrast steps' scores) shows a colour bar, ticked at
    a round number at or beyond its largest |score| (before: ticked ±5 with scores up to 8, and no bar at all beside
    the large scores, up to 72)."""
    scene, _ = spoken
    checked = []
    for step in scene.steps:
        shown = [value(text) for name in ("scores", "scaled") for row in step.numbers.get(name, []) for text in row]
        finite = [abs(number) for number in shown if np.isfinite(number)]
        if not finite:
            continue
        ticks = [value(text) for row in step.numbers.get("score_legend", []) for text in row]
        assert ticks, step.key
        largest = max(finite)
        assert max(ticks) == pytest.approx(min(value for value in ROUND if value >= largest)), step.key
        assert min(ticks) == -max(ticks), step.key
        checked.append(step.key)
    assert {"scores", "scaled", "causal", "large_scores", "shared_projection"} <= set(checked)


def number_boxes(scene) -> list:
    return [box(text) for text in scene._visible_texts(scene.mobjects) if isinstance(text, NumberText)]


def highlight_frame(mobject) -> bool:
    return isinstance(mobject, (SurroundingRectangle, RoundedRectangle)) and \
        mobject.get_stroke_color().to_hex().lower() == style.HIGHLIGHT.to_hex().lower()


def test_no_highlight_frame_ever_runs_through_a_number():
    """The white frames of rows, columns and what the voice names never cross a number on screen: not where they
    settle, and not on their way (before: a row's frame slid down across row 2's digits and a column's across V's,
    «0.8043 0.0002 0.1955» struck through at 210 s)."""
    crossings = []
    play = MatrixScene.play

    def checked(scene, *animations, **options):
        numbers = number_boxes(scene)
        for animation in animations:
            frames = []
            if isinstance(animation, Transform) and highlight_frame(animation.mobject):
                middle = animation.mobject.copy()
                middle.points = (animation.mobject.points + animation.target_mobject.points) / 2
                frames += [middle, animation.target_mobject]
            elif type(animation).__name__ in ("Create", "Appear") and highlight_frame(animation.mobject):
                frames.append(animation.mobject)
            for frame in frames:
                crossings.extend((scene.steps[-1].key, number) for number in numbers
                                 if overlap(number, box(frame)) and not inside(number, box(frame)))
        play(scene, *animations, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "play", checked)
        run_scene("matrix")
    assert crossings == []


def test_the_large_scores_change_is_on_screen(spoken):
    """«X × 3, scores × 9» is said and written: a worked line as the step opens, and the scores' label 9·QKᵀ, which
    A's label repeats (before: only the voice said it)."""
    scene, log = spoken
    step = next(step for step in scene.steps if step.key == "large_scores")
    lines = [part.shown_text for kind, play in log if kind == "play" and step.start <= play.start < step.end
             for animated in play.animated for part in animated.get_family() if hasattr(part, "shown_text")]
    assert any("X × 3" in line and "× 9" in line for line in lines), lines
    labels = [text.text for text in step.texts if "QK" in text.text]
    assert any(re.search(r"9\\,QK", label) for label in labels), labels
    shown = np.array([[value(text) for text in row] for row in step.numbers["scores"]])
    np.testing.assert_allclose(shown, 9 * (X @ W_Q) @ (X @ W_K).T)


def test_step_one_says_on_screen_what_the_voice_leaves_to_the_caption(spoken):
    """Spoken, step 1's caption is not on screen: its context (GPT and BERT, every token looks at all directly, no
    RNN's step by step, and the paper) is, once; silent, the caption says it and no second line repeats it."""
    scene, _ = spoken
    formula = next(step for step in scene.steps if step.key == "formula")
    context = [text.text for text in formula.texts if "GPT" in text.text]
    assert len(context) == 1 and all(word in context[0] for word in ("BERT", "RNN", "Vaswani et al., 2017")), context
    assert layout_problems(scene) == [] and legibility_problems(scene) == []
    silent = next(step for step in run_scene("matrix").steps if step.key == "formula")
    said = [" ".join(text.text.split()) for text in silent.texts if "GPT" in text.text]
    assert said == [silent.caption]  # the caption alone (wrapped on two lines)


def test_small_matrices_fill_the_body(spoken):
    """A projection's three 2-column matrices (X, W_Q, Q) are drawn up to twice their natural size: their numbers
    span at least 60 % of the body's width (before, at 1.4 times, they kept to the middle half of the frame)."""
    scene, _ = spoken
    queries = next(step for step in scene.steps if step.key == "queries")
    numbers = [text for text in queries.texts if re.fullmatch(r"[\u2212-]?\d+(\.\d+)?", text.text)]
    left, right, _, _ = style.body_box()
    span = max(text.right for text in numbers) - min(text.left for text in numbers)
    assert len(numbers) == 3 * 2 + 2 * 2 + 3 * 2 and span >= 0.6 * (right - left), span / (right - left)
