"""Review 06 (frames-b.md, «06 pipeline»): the projections drawn with their numbers (q = W_Q x), the side panel never
half empty, step 6's values clear of the uniform line and its digits clear of their cells' edges, one colour scale
with a legend wherever weights are coloured, the entropy's formula on screen, steps 8-9 paced by the voice, and step
14's frame never travelling across the digits between two lines."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from manim import SurroundingRectangle

from attn_math.lab import lab_embedding, lab_weights
from lesson.numbers import parse_number
from lesson.steps import StepRange
from scenes import style
from scenes.fades import Vanish
from scenes.lesson_scene import LessonScene
from tests.scene_checks import PacedSpeaker, render_video, run_scene, video_stills

SENTENCE = ("el", "gato", "se", "sienta", "en", "la", "mesa")
QUERY = 1  # «gato», the configured query


@pytest.fixture(scope="module")
def silent():
    """The silent scene, with every highlight frame's box before and after each play of step 14 logged."""
    moves, left, play = [], SimpleNamespace(texts=[], numbers={}), LessonScene.play

    def logged(self, *animations, **options):
        current = self.steps[-1].key if self.steps else ""
        if current == "output":  # v = W_V x leaves for Z's rows at the step's end (review s9): what it showed as it left
            for animation in animations:
                if isinstance(animation, Vanish):
                    texts, numbers = self._snapshot([animation.mobject])
                    left.texts.extend(texts)
                    left.numbers.update(numbers)
        frames = {id(m): (m.get_center().copy(), m.width, m.height) for m in self.mobjects
                  if isinstance(m, SurroundingRectangle)}
        play(self, *animations, **options)
        if current == "dimensions":
            for mobject in self.mobjects:
                before = frames.get(id(mobject))
                if before is not None:
                    moves.append(float(np.abs(mobject.get_center() - before[0]).max()
                                       + abs(mobject.width - before[1]) + abs(mobject.height - before[2])))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", logged)
        scene = run_scene("pipeline")
    scene.frame_moves, scene.left_in_output = moves, left
    return scene


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def numbers(record, name) -> np.ndarray:
    return np.array([[parse_number(text) for text in row] for row in record.numbers[name]])


@pytest.mark.parametrize("key, role, result", [("queries", "Q", "q"), ("keys", "K", "k"), ("output", "V", "v")])
def test_each_projection_is_drawn_with_its_numbers(silent, key, role, result):
    """Steps 2, 3 and 7 show W (d_k × d, the lab's seeded weights) with every number, the query token's embedding x
    and its product W x: a student checks q's first number from W_Q's first row and x (review: no W on screen, no
    number before step 4)."""
    record = silent.left_in_output if key == "output" else step(silent, key)
    W = getattr(lab_weights(), f"W_{role}")
    x = lab_embedding("gato", QUERY)
    np.testing.assert_allclose(numbers(record, f"W_{role}"), W, atol=0.005 + 1e-9)
    np.testing.assert_allclose(numbers(record, "x")[:, 0], x, atol=0.005 + 1e-9)
    np.testing.assert_allclose(numbers(record, result)[:, 0], W @ x, atol=0.005 + 1e-9)


def test_the_side_panel_says_not_yet_until_a_value_is_known(silent):
    """Step 1: every metric has «n/d» (not yet computed) beside its name (review: «Entropía», «Peso máx.» and «d_k»
    with nothing); from step 2, d_k is 8 and the two others still «n/d»; from step 6 none is."""
    dashes = {key: sum(text.text == "n/d" for text in step(silent, key).texts)
              for key in ("embeddings", "queries", "softmax")}
    assert dashes == {"embeddings": 3, "queries": 2, "softmax": 0}
    for key in ("queries", "keys", "scores", "softmax", "output"):  # d_k once computed, to the panel's last step
        assert numbers(step(silent, key), "d_k").tolist() == [[8]]


def test_the_query_values_stand_clear_of_the_uniform_line(silent):
    """Step 6: the dashed «uniforme 1/7» line runs left of every value beside the bars, and the frames on the lowest
    and highest weights do not reach it (review: the line through the first digit of 0.12, 0.13, 0.14)."""
    fan = silent.fan
    line_x = fan.submobjects[-1][0].get_x()
    ends = fan.submobjects[-2]
    assert min(value.get_left()[0] for value in fan.chart.value_texts) > line_x + 0.05
    assert all(frame.get_left()[0] > line_x for frame in ends)


def test_the_weights_digits_keep_clear_of_their_cells_edges(silent):
    """Step 6's heatmap: each number leaves at least half its digits' height free either side inside its cell."""
    matrix = silent.weights.matrix
    gaps = [(cell.width - entry.width) / 2 / entry.height for row_cells, row_entries in zip(matrix.cells, matrix.entries)
            for cell, entry in zip(row_cells, row_entries)]
    assert min(gaps) > 0.5


def test_weights_have_one_colour_scale_with_a_legend(silent):
    """One weight, one colour: step 6's map and the unmasked map of step 12 (the same matrix) colour each weight
    alike, on 0 to 1, and every map of weights has a legend saying so; the unmasked map names its rows."""
    six, free = silent.weights.matrix, silent.comparison.free.matrix
    for i in range(len(SENTENCE)):
        for j in range(len(SENTENCE)):
            np.testing.assert_allclose(six.cells[i][j].get_fill_color().to_rgb(),
                                       free.cells[i][j].get_fill_color().to_rgb(), atol=0.01)
    weight = six.values[0, 0]
    np.testing.assert_allclose(six.cells[0][0].get_fill_color().to_rgb(),
                               style.weight_colour(weight).to_rgb(), atol=0.01)
    for key, name in (("softmax", "weights_scale"), ("presets", "presets_scale"), ("causal", "causal_scale")):
        assert numbers(step(silent, key), name).ravel().tolist() == [0, 1]
    assert [label.text for label in silent.comparison.free.row_labels] == list(SENTENCE)


def test_the_entropy_formula_is_on_screen_with_its_largest_value(silent):
    """Step 8, where the voice first speaks of entropy: H = −Σ α log₂ α and its largest value, log₂ 7 = 2.81."""
    written = [text.text for text in step(silent, "presets").texts if r"\log_2 \alpha_j" in text.text]
    assert len(written) == 1 and r"\sum_j" in written[0]
    assert f"\\log_2 7 = {math.log2(7):.2f}" in written[0]


def test_step_14_frames_never_travel_across_the_panels(silent):
    """The frame on the line the voice is on is drawn round each line where it stands: a frame grown from one line
    to the next ran through «64» for 1.5 s (review, 285.0)."""
    assert silent.frame_moves and max(silent.frame_moves) < 1e-6


def test_steps_8_and_9_move_with_the_voice(tmp_path):
    """At the narration's pace, steps 8 and 9 have no still over 6 s as a viewer measures it, frame to frame
    (review: 111.8-132.7 and 133.8-153.7, two near-frozen heat maps)."""
    scene, video = render_video("pipeline", tmp_path, frame_rate=10, narration=PacedSpeaker(), steps=StepRange(8, 9))
    assert video_stills(video) == []


@pytest.mark.parametrize("key, role, result", [("queries", "Q", "q"), ("keys", "K", "k"), ("output", "V", "v")])
def test_a_projection_says_equal_only_where_its_written_numbers_multiply_to_its_result(silent, key, role, result):
    """Review s8: «=» between q and W_Q x where the numbers as written give −0.40 for a written −0.42 (each rounded
    to 2 decimals): a student who checks finds other numbers. The sign is «≈» where the written W times the written
    x, rounded as written, is not the written result; «=» where it is."""
    record = silent.left_in_output if key == "output" else step(silent, key)
    W, x, shown = numbers(record, f"W_{role}"), numbers(record, "x")[:, 0], numbers(record, result)[:, 0]
    decimals = max(len(text.split(".")[-1]) for row in record.numbers[result] for text in row)
    checked = np.round(W @ x, decimals)
    signs = {text.text for text in record.texts if text.text in ("=", r"\approx")}  # as typeset
    assert signs == ({"="} if np.array_equal(checked, shown) else {r"\approx"}), (checked - shown, signs)


def test_exercise_6s_panel_comes_with_its_lines():
    """Review s8: step 14 drew both exercises' panels at once, exercise 6's empty for about 20 s while exercise 5's
    lines came. Each panel now comes with its first line: no play brings a panel's background without a text."""
    from manim import RoundedRectangle

    from scenes.fades import Appear
    bringing, play = [], LessonScene.play

    def logged(self, *animations, **options):
        if self.steps and self.steps[-1].key == "dimensions":
            shown = [a.mobject for a in animations if isinstance(a, Appear)]
            panels = [m for m in shown if isinstance(m, RoundedRectangle) and m.width > 3]
            texts = [part.text for m in shown for part in m.get_family() if hasattr(part, "text")]
            bringing.extend((len(panels), texts) for _ in panels[:1])
        play(self, *animations, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", logged)
        run_scene("pipeline", "lecture.questions='none'")
    assert [count for count, _ in bringing] == [1, 1], bringing
    assert all(texts for _, texts in bringing), bringing
