"""Capital at the thirteenth review (/tmp/s13/review/review-c.md, «05-capital»): nothing on screen said why «Francia»
gets the top score (Q and K had no column names, so «su consulta pregunta por un lugar» had nothing to point at);
b_out = ±0.684 was never motivated; step 3's digits were 16-17 px, Q's steel blue 5.2:1, its row labels 15 px, and
W_K's rows filled in 4.65 s of silence.

Now W's rows and Q's and K's columns are named (lugar, función, país); step 4 frames the component of q_es that makes
the top score and K's column of that name as the voice says «pregunta por un lugar»; step 8 writes, by b_out, that
without a country LN(r)₂ is not 0 and the bias cancels it (a tie); step 3 is larger, Q lighter, and its voice runs on
while W_K and K fill."""

import numpy as np
import pytest

from attn_math.capital import COUNTRY_POSITION, W_K, W_out, W_Q, capital_walkthrough
from lesson.locale import load_locale
from lesson.numbers import format_number
from lesson.steps import parse_steps
from scenes import style
from scenes.capital import CapitalScene
from tests.scene_checks import PacedSpeaker, run_scene
from tests.test_capital_review8 import PIXELS, corners, logged_boxes, on_screen, record
from tests.test_scene_capital import contrast

LABELS = load_locale("es")["capital"]["labels"]
NAMES = LABELS["dimensions"]
COUNTRY = 2  # the country's dimension, counted from 0
LEAST_DIGIT = 17.0  # px at 720p: step 3's digits were 16.5
LEAST_ROW_LABEL = 16.0  # px at 720p: step 3's token labels were 14.7
LEAST_Q_CONTRAST = 6.5  # WCAG: Q's and W_Q's digits were 5.2:1
LONGEST_PAUSE = 1.0  # s between two phrases of step 3's voice: W_K's rows filled in 6.7 s between them


def run(steps: str):
    boxes = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CapitalScene, "play", logged_boxes(CapitalScene, boxes))
        scene = run_scene("capital", narration=PacedSpeaker(), steps=parse_steps(steps, list(CapitalScene.STEPS)))
    return scene, boxes


@pytest.fixture(scope="module")
def projections():
    return run("projections")


@pytest.fixture(scope="module")
def scores():
    return run("scores")


@pytest.fixture(scope="module")
def logits():
    return run("logits")


def numpy_walk(identity: float = 1.0):
    """X from the model, then Q, K, the scores of «es» and LN(r), recomputed here."""
    walk = capital_walkthrough(identity)
    Q, K = walk.X @ W_Q, walk.X @ W_K
    scores = K @ Q[-1]
    return walk, Q, K, scores


def enclosed(box, matrix) -> set:
    left, right, bottom, top = box
    return {(i, j) for i, row in enumerate(matrix.entries) for j, entry in enumerate(row)
            if left < entry.get_x() < right and bottom < entry.get_y() < top}


def test_q_and_k_name_their_columns_and_the_ws_their_rows(projections):
    scene, _ = projections
    step = record(scene, "projections")
    for role in ("Q", "K"):
        matrix = on_screen(scene, role)
        assert [header.shown_text for header in matrix.headers] == NAMES
        for j, header in enumerate(matrix.headers):
            assert header.get_x() == pytest.approx(matrix.entries[0][j].get_x(), abs=0.02)
            assert matrix.brackets.get_top()[1] < header.get_bottom()[1] < matrix.label.get_bottom()[1]
    weights = on_screen(scene, "W_Q")
    left = weights.brackets[0].get_left()[0]
    for i, name in enumerate(NAMES):  # a W's row i multiplies X's column i: lugar, función, país
        [label] = [text for text in step.texts if text.text == name and text.right <= left
                   and text.bottom < weights.entries[i][0].get_y() < text.top]
        assert left - label.right < 0.4


def test_step_four_frames_the_component_that_makes_the_top_score_as_the_voice_asks_for_it(scores):
    """«Su consulta pregunta por un lugar»: q_es's one non-zero component, and K's column of that name, framed."""
    scene, boxes = scores
    _, Q, K_values, values = numpy_walk()
    best = int(np.argmax(values))
    asked = int(np.argmax(Q[-1] * K_values[best]))
    assert best == COUNTRY_POSITION and NAMES[asked] == "lugar"
    assert values[best] == pytest.approx(Q[-1, asked] * K_values[best, asked])  # the other terms are 0
    query, K = on_screen(scene, "q_es"), on_screen(scene, "K")
    phrase = next(phrase for phrase in record(scene, "scores").narration["phrases"] if phrase[3] == "query")
    framed = [(time - scene.clip_start, box) for key, time, box, _ in boxes if key == "scores"]  # the clip's times
    assert any(enclosed(box, query) == {(0, asked)} and phrase[1] - 1e-6 <= time <= phrase[2] for time, box in framed)
    assert any(enclosed(box, K) == {(i, asked) for i in range(len(K_values))} and phrase[1] - 1e-6 <= time <= phrase[2]
               for time, box in framed)
    assert K.headers[asked].shown_text == "lugar"
    assert K.headers[asked].get_color().to_hex().upper() == style.HIGHLIGHT.to_hex().upper()


def test_step_three_is_larger_and_q_lighter(projections):
    scene, _ = projections
    step = record(scene, "projections")
    digits = [text for text in step.texts if text.text[-1:].isdigit()]
    assert min(text.cap_height * PIXELS for text in digits) >= LEAST_DIGIT
    words = set(load_locale("es")["capital"]["words"].values())
    tokens = [text for text in step.texts if text.text in words]
    assert len(tokens) == 5 and min(text.cap_height * PIXELS for text in tokens) >= LEAST_ROW_LABEL
    for name in ("W_Q", "Q"):
        colour = on_screen(scene, name).entries[0][0].get_fill_color()
        assert contrast(colour, style.BACKGROUND) >= LEAST_Q_CONTRAST


def test_step_three_voice_runs_on_while_w_k_and_k_fill(projections):
    scene, _ = projections
    phrases = record(scene, "projections").narration["phrases"]
    pauses = [following[1] - previous[2] for previous, following in zip(phrases, phrases[1:])]
    assert max(pauses) <= LONGEST_PAUSE, pauses


def test_b_out_is_written_as_what_cancels_the_lean_without_a_country(logits):
    """Without a country LN(r)₂ is −0.22, not 0 (the layer norm subtracts the mean of all three numbers): times W_out's
    ±3.10 it would lean to Roma; b_out is its opposite, so every logit is 0 there. That is written by b_out's row."""
    scene, _ = logits
    blank = capital_walkthrough(0.0)
    residual = blank.residual
    normalized = (residual - residual.mean()) / residual.std()  # population σ, as the section's
    assert blank.identity == 0.0 and normalized[COUNTRY] == pytest.approx(-0.2207, abs=1e-4)
    assert np.allclose(normalized @ W_out + blank.b_out, 0.0)  # what the note says the bias does: a tie
    expected = LABELS["bias_note"].format(country=format_number(normalized[COUNTRY]))
    step = record(scene, "logits")
    [note] = [text for text in step.texts if text.text == expected]
    bias = on_screen(scene, "b_out")
    left, _, bottom, top = corners(bias)
    assert note.right < left and note.bottom < bias.cell_grid.get_y() < note.top
    phrase = next(phrase for phrase in step.narration["phrases"] if phrase[3] == "bias")
    assert "sin país" in phrase[0] and "empate" in phrase[0]
