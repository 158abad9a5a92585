"""Review 13 of section 03 heads: in the Concat step V was never on screen, so «ella»'s row of Concat («5», «0.05»)
could not be derived from A_h, and one row mixed «5» with «0.05»; the Z blocks had no value scale; «Una sola,
repartida (el promedio)» equated one bigger head with the average; step 5's title named the average 7 s before it came;
step 1's «ella» vector (… 6 36 1) never said what its numbers are; the minus bars were 10 × 2 px."""

from __future__ import annotations

import numpy as np
import pytest
from manim import Line

from attn_math.heads import multi_head_attention
from lesson.heads_answers import choice_token
from lesson.numbers import parse_number
from scene_checks import MIN_CAP_PIXELS, layout_problems, legibility_problems
from scenes import style
from scenes.heads import HeadsScene
from scenes.visuals import cap_height
from test_heads_review10 import recorded_run

PIXELS = 720 / 8  # pixels of the 720p lecture per frame unit
DIGIT_PIXELS = 16  # the least digit height the review asks of the written-out numbers
LINE_WIDTH_UNITS = 0.01  # a manim stroke width of 1 is drawn 0.01 frame units wide (cairo_line_width_multiple)


@pytest.fixture(scope="module")
def with_cards():
    return recorded_run()


@pytest.fixture(scope="module")
def concat_step(with_cards):
    scene, _ = with_cards
    return scene, next(step for step in scene.steps if step.key == "concat")


def _by_hand():
    """Each head's weights A_h and values V_h = X W_V^h, worked out here from X and the projections."""
    result = multi_head_attention()
    weights, values = [], []
    for W_Q, W_K, W_V in zip(result.W_Q, result.W_K, result.W_V):
        scores = (result.X @ W_Q) @ (result.X @ W_K).T / np.sqrt(W_K.shape[1])
        exp = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights.append(exp / exp.sum(axis=1, keepdims=True))
        values.append(result.X @ W_V)
    return result, weights, values


def test_each_heads_row_of_v_for_the_token_it_looks_at_is_written_over_concats_row(concat_step):
    """Review: «ella» en Concat's «5» and «0.05» could not be derived: V was never shown. Over each head's four columns
    of Concat's row stands what they are: the head's largest term, «1.00·V_2(«calmó»)», its weight A_h[ella, j] and its
    token, and, under a weight of 1.00, Concat's columns are V_h of that token; over the head whose row is a sum of
    several terms, the name of that row, «z_1(«ella»)», written out in full above (tests/test_heads_review14.py: its
    V rows and their sum). Review 15 took away the line «V del token atendido», which repeated both."""
    scene, step = concat_step
    result, weights, values = _by_hand()
    focus, d_head = choice_token(result), result.d_head
    attended = [int(np.argmax(A[focus])) for A in weights]
    assert values[0][attended[0], d_head - 1] == result.X[attended[0], 9] == 5  # head 1 brings «y»'s position: the 5
    shown = [parse_number(text) for text in step.numbers["concat_row"][focus]]
    rows = scene.row_numbers  # as placed on screen
    texts = [text.text for text in step.texts]
    for head, (A, V, j) in enumerate(zip(weights, values, attended)):
        label = rows.terms[head]
        under = rows.concat[1 + head * d_head:1 + (head + 1) * d_head]
        assert label.get_bottom()[1] > under.get_top()[1]
        assert under.get_left()[0] - 0.05 <= label.get_x() <= under.get_right()[0] + 0.05
        if round(A[focus, j], 2) < 1:
            assert label[1].shown_text == f"z_{head + 1}(«{result.labels[focus]}»)"
            continue
        term = f"{A[focus, j]:.2f}·V_{head + 1}(«{result.labels[j]}»)"
        assert term in texts and label[1].shown_text == term
        assert shown[head * d_head:(head + 1) * d_head] == pytest.approx(np.round(V[j], 2), abs=0.005)


def test_each_heads_term_opens_with_its_heads_stroke(concat_step):
    """Head 2's ivory alone reads as the body text's white: each term opens with its head's stroke, as the legend's
    lines do."""
    scene, _ = concat_step
    terms = scene.row_product(choice_token(scene.result)).terms
    assert len(terms) == scene.result.n_heads
    for head, (stroke, text) in enumerate(terms):
        assert stroke.get_right()[0] < text.get_left()[0]
        colours = {part.get_stroke_color().to_hex().upper() for part in stroke.get_family() if part.has_points()}
        assert colours == {style.HEADS[head].to_hex().upper()}


def test_every_written_row_keeps_one_rounding_and_its_digits_16_px(concat_step):
    """Review: «5» beside «0.05» in one row. Each written-out row shows all its numbers with one number of decimals,
    and its digits are at least 16 px tall at 720p."""
    scene, step = concat_step
    focus = choice_token(multi_head_attention())
    for name in ("concat_row", "output_row"):
        shown = step.numbers[name][focus]
        decimals = {len(text.partition(".")[2]) for text in shown}
        assert len(decimals) == 1, (name, shown)
    assert set(step.numbers["concat_row"][focus]) >= {"5.00", "0.05"}
    for line in (scene.row_numbers.concat, scene.row_numbers.output):
        assert min(cap_height(number) for number in line[1:]) * PIXELS >= DIGIT_PIXELS


def test_concat_says_what_its_cells_brightness_is(concat_step):
    """Review: the Z heatmaps had no value scale. Under Concat: brightness is |value| over its column's largest (as
    drawn: each column's largest entry in the full colour, tests/test_heads_review12.py)."""
    scene, step = concat_step
    note = next(text for text in step.texts if text.text == "brillo: |valor| / máximo de su columna")
    concat = scene.product[0]
    assert note.top < concat.cell_grid.get_bottom()[1] and note.cap_height * PIXELS >= MIN_CAP_PIXELS


def test_the_concat_step_stays_legible_and_clear(concat_step):
    scene, _ = concat_step
    assert [problem for problem in layout_problems(scene) if problem.startswith("concat")] == []
    assert [problem for problem in legibility_problems(scene) if problem.startswith("concat")] == []


def test_one_distribution_is_not_equated_with_the_average():
    """Review: «Una sola, repartida (el promedio)»: one bigger head would not give the heads' average. The average is
    an example of a spread distribution."""
    from lesson.locale import load_locale

    spread = load_locale("es")["heads"]["labels"]["choice_spread"]
    assert "por ejemplo" in spread and "(el promedio)" not in spread


def test_step_fives_title_names_what_comes_first_the_heads_together(with_cards):
    """Review: «Promedio de las cabezas» was up 7 s over the three heads' arcs superimposed before the average came. The
    title names the heads together (review 14: and no longer the average, tests/test_heads_review14.py)."""
    scene, _ = with_cards
    title = next(step for step in scene.steps if step.key == "average").title
    assert "juntas" in title


def test_step_one_says_what_the_tokens_numbers_are(with_cards):
    """Review: «ella» en X: 0 0 1 0 1 0 0 1 −1 6 36 1 never said what 6 and 36 are. Under it, the features in order,
    its position i and i² those of the row shown."""
    scene, _ = with_cards
    result = multi_head_attention()
    focus = choice_token(result)
    step = next(step for step in scene.steps if step.key == "sentence")
    shown = [parse_number(text) for text in step.numbers["token_vector"][focus]]
    note = next(text for text in step.texts if text.text.startswith("en orden:"))
    assert f"posición i = {shown[9]:.0f}, i² = {shown[10]:.0f}" in note.text and shown[10] == shown[9] ** 2
    for feature in ("determinante", "sustantivo", "pronombre", "verbo", "sujeto", "género y número"):
        assert feature in note.text
    vector = next(text for text in step.texts if text.text.startswith("«ella» en X"))
    assert note.top < vector.bottom


def test_a_minus_bar_reads_as_a_minus():
    """Review: the minus marks in Z and the output were 10 px wide and 2-3 px high. At 720p a bar is now at least 14 px
    wide and 5 px thick."""
    block = HeadsScene.magnitude_block(np.array([[1.0, -1.0]]), "X", style.OUTPUT)
    bar = next(part for part in block.cells[0][1].submobjects if isinstance(part, Line))
    assert bar.width * PIXELS >= 14
    assert bar.get_stroke_width() * LINE_WIDTH_UNITS * PIXELS >= 5


def test_the_illustrative_step_names_each_heads_kind_of_relation(with_cards):
    """Review: the guide's heads specialise in syntactic, semantic and positional relations; the three words were never
    written. Under each head's weights in step 6, its kind, in its colour."""
    _, seen = with_cards
    texts = [{text.text: text for text in shown} for _, key, shown, *_ in seen if key == "illustrative"][-1]
    # review 14: head 3's kind, coreference (semantic), says it is found by agreement: on two lines
    kinds = [texts[f"relación {kind}"] for kind in ("posicional", "sintáctica")] + \
        [next(text for name, text in texts.items() if "semántica" in name)]
    blocks = [texts[f"A_{{{head}}}"] for head in (1, 2, 3)]
    for kind, block in zip(kinds, blocks):  # under its block, left to right
        assert kind.top < block.bottom and kind.left < (block.left + block.right) / 2 < kind.right
