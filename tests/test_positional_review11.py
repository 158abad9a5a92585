"""Review s11 (frames, «04 positional», graded 9), its three notes:
- the weight matrices W_Q, W_K, W_V left the screen before Z = Attention(X) came: a student could not check Z
  against what made it; they now stay, legible, beside the sentences in both demonstration steps;
- the similarity plot (PE(p)·PE(q) against the distance) was about 290 x 150 px at 720p: it now takes the room its
  step has;
- around 216 s the token table's rows were drawn twice for 0.3 s: copies of x and PE morphed into x + PE over the
  rows they came from; the sum now lands in its own row.
Measured on the built mobjects and on decoded frames, against numbers worked out here."""

import av
import numpy as np
import pytest
from manim import config

from manim import Axes

from attn_math.positional import permutation_demo
from lesson.numbers import parse_number
from lesson.steps import parse_steps
from scenes import style
from scenes.positional import LEAVING_SECONDS, PositionalScene
from tests.scene_checks import families_at_step_ends, layout_problems, render_video

VIDEO = (640, 360)
PX = 720 / config.frame_height  # pixels of a 720p frame per frame unit
OLD_PLOT_PX = (279, 129)  # the d = 16 similarity axes before, x by y at 720p (the review saw about 290 x 150 px)


@pytest.fixture(scope="module")
def watched():
    """The default section, and at each step's end every mobject on screen (the scene's family)."""
    return families_at_step_ends(PositionalScene, "positional")


def step_of(scene, key):
    return next(step for step in scene.steps if step.key == key)


def test_the_similarity_plot_takes_the_room_of_its_step(watched):
    """The d = 16 plot's axes cover at least twice the area they did (279 x 129 px at 720p), at least 340 px wide and
    200 px high; what made room for them (Δ = 0's sum, «three words ago») sits under the heatmap, over no text and
    clear of the heatmap's cells and the frame's margin."""
    scene, seen = watched
    axes = max((part for part in seen["similarity"] if isinstance(part, Axes)), key=lambda axes: axes.x_axis.width)
    width, height = axes.x_axis.width * PX, axes.y_axis.height * PX
    assert width >= 340 and height >= 200 and width * height >= 2 * OLD_PLOT_PX[0] * OLD_PLOT_PX[1], (width, height)
    step = step_of(scene, "similarity")
    assert [problem for problem in layout_problems(scene) if problem.startswith("similarity")] == []
    grid = scene.heatmap.grid
    notes = [text for text in step.texts if "palabras" in text.text or "sin" in text.text]
    assert len(notes) == 2, [text.text for text in step.texts]
    margin = 0.3
    for text in notes:
        assert text.top <= grid.get_bottom()[1] - 0.1, text.text
        assert text.left >= -config.frame_width / 2 + margin, (text.text, text.left)
        assert text.right <= axes.get_left()[0], text.text


def to_pixels(point, size=VIDEO) -> tuple[float, float]:
    """A frame point's (column, row) in a video of ``size``."""
    scale = size[1] / config.frame_height
    return (point[0] + config.frame_width / 2) * scale, (config.frame_height / 2 - point[1]) * scale


def row_gaps(block) -> list[tuple[float, float, float, float]]:
    """(left, right, top, bottom) in frame units of the middle half of the empty bands between a token's x row and
    its PE row, and between its PE row and its x + PE row, over their numbers' columns."""
    x_row, pe_row, sum_row = block
    left = min(row.numbers.get_left()[0] for row in block)
    right = max(row.numbers.get_right()[0] for row in block)
    gaps = []
    for upper, lower in ((x_row.numbers, pe_row.fills), (pe_row.fills, sum_row.numbers)):
        top, bottom = upper.get_bottom()[1], lower.get_top()[1]
        quarter = (top - bottom) / 4
        assert quarter > 0
        gaps.append((left, right, top - quarter, bottom + quarter))
    return gaps


@pytest.fixture(scope="module")
def table_video(tmp_path_factory):
    """The table step alone, 640 x 360 at 15 fps, silent: its scene and its decoded frames (time, rgb)."""
    scene, path = render_video("positional", tmp_path_factory.mktemp("table"), frame_rate=15, pixels=VIDEO,
                               steps=parse_steps("table", list(PositionalScene.STEPS)))
    with av.open(str(path)) as video:
        frames = [(float(frame.time), frame.to_ndarray(format="rgb24").astype(float))
                  for frame in video.decode(video=0)]
    return scene, frames


def test_the_table_rows_are_never_drawn_twice(table_video):
    """While the rows land, nothing is drawn in the empty bands between a token's x, PE and x + PE rows: copies of
    x's and PE's numbers used to travel down over them into the sum row (and over the PE row itself)."""
    scene, frames = table_video
    sums = [cue.time for cue in scene.cues if cue.kind == "vector_sum"]
    assert len(sums) == 3
    # the clip's records count from the step's start; the similarity step leaves in its first LEAVING_SECONDS
    start = next(step.start for step in scene.steps if step.key == "table") + LEAVING_SECONDS + 0.05
    built = sums[-1] + 1.0  # the last sum has landed (TABLE_BLOCK_SECONDS after its cue)
    background = np.array(style.BACKGROUND.to_rgb()) * 255
    crossed = []
    for k, block in enumerate(scene.table.blocks):
        for left, right, top, bottom in row_gaps(block):
            (x0, y0), (x1, y1) = to_pixels((left, top)), to_pixels((right, bottom))
            for time, image in frames:
                if not start <= time <= built:  # the similarity step leaving, the built table framed
                    continue
                band = image[int(np.ceil(y0)):int(y1), int(x0):int(np.ceil(x1))]
                inked = int((np.abs(band - background).max(axis=2) > 60).sum())
                if inked:
                    crossed.append((k, round(time, 2), inked))
    assert crossed == [], crossed[:10]


def shown_matrix(step, name) -> np.ndarray:
    """The numbers tagged ``name`` at the step's end, as numbers."""
    return np.array([[parse_number(text) for text in row] for row in step.numbers[name]])


def attention(X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, W_V: np.ndarray) -> np.ndarray:
    """softmax(Q Kᵀ / √d_k) V, row by row, worked out here."""
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    scores = Q @ K.T / np.sqrt(K.shape[1])
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True) @ V


@pytest.mark.parametrize("key, suffix", [("permutation", ""), ("with_pe", "_pe")])
def test_the_weights_stay_beside_the_outputs_they_make(watched, key, suffix):
    """W_Q, W_K, W_V are on screen at the end of both demonstration steps (they left before X and Z came), their
    digits at least 16 px high at 720p, right of sentence B's matrices and over no text; and Z as shown is
    softmax(QKᵀ/√d)V worked out from the X and the W's as shown (to their rounding)."""
    scene, seen = watched
    step = step_of(scene, key)
    names = ("W_Q", "W_K", "W_V")
    assert set(names) <= set(step.numbers), sorted(step.numbers)
    shown = [shown_matrix(step, name) for name in names]
    demo = permutation_demo()
    for values, exact in zip(shown, (demo.W_Q, demo.W_K, demo.W_V)):
        assert np.array_equal(values, exact)
    digits = [part.height * PX for part in seen[key] if getattr(part, "tag", ("",))[0] in names]
    assert len(digits) == 48 and min(digits) >= 16, min(digits)
    b_right = max(matrix.brackets.get_right()[0] for matrix in (scene.inputs[1], scene.outputs[1]))
    assert scene.weights.get_left()[0] > b_right
    assert scene.weights.get_right()[0] <= config.frame_width / 2 - 0.3
    assert [problem for problem in layout_problems(scene) if problem.startswith(key)] == []
    for side in "AB":
        X, Z = shown_matrix(step, f"X_{side}{suffix}"), shown_matrix(step, f"Z_{side}{suffix}")
        assert np.abs(attention(X, *shown) - Z).max() <= 0.02


def test_the_voice_says_what_the_largest_difference_shows_words_that_did_not_move_change_too():
    """Review 11: the voice said «perro» comes out different «según el lugar que ocupa» while the readout's largest
    difference (1.14) is «al»'s, a word at position 3 in both sentences. Recomputed here, softmax(QKᵀ/√d)V of
    X + PE: the words at the same place in both sentences change too (their neighbours moved), «al» the most; the
    voice says so in both languages."""
    from attn_math.positional import permutation_demo
    from lesson.locale import load_locale

    demo = permutation_demo()

    def outputs(X):
        scores = (X @ demo.W_Q) @ (X @ demo.W_K).T / np.sqrt(demo.W_K.shape[1])
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        return (weights / weights.sum(axis=1, keepdims=True)) @ (X @ demo.W_V)

    a, b = outputs(demo.steps_a_pe.X), outputs(demo.steps_b_pe.X)
    change = {token: np.abs(a[i] - b[demo.tokens_b.index(token)]).max() for i, token in enumerate(demo.tokens_a)}
    still = [token for i, token in enumerate(demo.tokens_a) if demo.tokens_b[i] == token]
    assert still == ["el", "mordió", "al"] and min(change[token] for token in still) > 0.5
    assert max(change, key=change.get) in still
    assert "no se movieron" in load_locale("es")["positional"]["steps"]["with_pe"]["narration"]
    assert "did not move" in load_locale("en")["positional"]["steps"]["with_pe"]["narration"]


def test_a_long_periods_exponent_is_read_from_the_back_of_the_room():
    """Review 11: in «λ ≈ 2.0·10⁴» the exponent's ink was 10 px against 17 px for the other digits at 720p (the
    font's superscript digits, 0.59 of a digit): read as «2.0·10». It is drawn at least 0.75 of a digit's height, on
    the same text (its shown text unchanged), raised above the baseline."""
    from lesson.positional_answers import power_of_ten_text
    from scenes import style
    from scenes.positional import period_number

    for value in (19_900.0, 2.5e5):
        label = period_number(value, style.TEXT, style.CAPTION_SIZE)
        assert label.shown_text == power_of_ten_text(value)
        digit, exponent = label.submobjects[0], label.submobjects[-1]
        assert exponent.height >= 0.75 * digit.height, (value, exponent.height / digit.height)
        # raised so it reads as a power: a quarter of a digit read «2.0·104» (review s12: 5 px of 18)
        assert exponent.get_bottom()[1] >= digit.get_bottom()[1] + 0.45 * digit.height
        assert exponent.get_left()[0] >= label.submobjects[-2].get_right()[0] - 1e-3
