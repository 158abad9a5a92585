"""Review 14 of section 03 heads: step 9 wrote head 1's term «0.91·V₁(«y») + …» over V₁(«y») = 0 0 0 5, so a student's
0.91 × 5 = 4.55 disagreed with Concat's 5.00 (the other terms hidden in «+ …»); step 6 called the pronoun head, which
matches by gender and number, «relación semántica»; the guide's exercise 6 (d = 512, h = 8 → d_k = 64) was never
linked here; step 7's «los de cada fila suman ≈ 1» sat under five numbers of three heads that add to 3.01; step 5's title
named the average 7 s before it came; step 7's side column was 15 px."""

from __future__ import annotations

import re

import numpy as np
import pytest

from lesson.heads_answers import choice_token
from lesson.numbers import parse_number
from scene_checks import layout_problems, legibility_problems
from test_heads_review10 import recorded_run

PIXELS = 720 / 8  # pixels of the 720p lecture per frame unit
DIGIT_PIXELS = 16  # the least cap (digit) height the review asks of the lines it named
# one term of a worked sum: «0.0453·«ladró»(0 0 0 4)» (review 16: each V row named by its token)
TERM = re.compile(r"([0-9.]+)·(?:«[^»]*»)?\(([^)]*)\)")


@pytest.fixture(scope="module")
def with_cards():
    return recorded_run()


def _step(scene, key):
    return next(step for step in scene.steps if step.key == key)


def _by_hand(result):
    """Each head's weights A_h, values V_h = X W_V^h and output Z_h = A_h V_h, worked out here from X and the W's."""
    heads = []
    for W_Q, W_K, W_V in zip(result.W_Q, result.W_K, result.W_V):
        scores = (result.X @ W_Q) @ (result.X @ W_K).T / np.sqrt(W_K.shape[1])
        exp = np.exp(scores - scores.max(axis=1, keepdims=True))
        A = exp / exp.sum(axis=1, keepdims=True)
        V = result.X @ W_V
        heads.append((A, V, A @ V))
    return heads


def _numbers(text: str) -> list[float]:
    return [parse_number(number) for number in text.split()]


def test_every_term_of_head_ones_row_of_z_is_written_and_its_hand_sum_gives_concats_row(with_cards):
    """Review: 0.91 × 5 = 4.55, not Concat's 5.00. The head whose row for «ella» weighs more than one token (shown to
    2 decimals) has it written out in full, Z_h = Σ α·V_h: one term per such token, its V_h row as computed here, and the
    sum a student does with the weights as written gives Concat's row as written, column by column."""
    scene, _ = with_cards
    step = _step(scene, "concat")
    result = scene.result
    focus, d_head = choice_token(result), result.d_head
    concat_row = [parse_number(text) for text in step.numbers["concat_row"][focus]]
    worked = {text.text.split(" = ")[0]: text for text in step.texts if re.match(r"z_\d+\(", text.text) and " = " in text.text}
    spread = []
    for head, (A, V, Z) in enumerate(_by_hand(result)):
        tokens = np.flatnonzero(np.round(A[focus], 2))
        if len(tokens) < 2:
            continue
        spread.append(head)
        text = worked.pop(f"z_{head + 1}(«{result.labels[focus]}»)")  # review 15: a row of Z_h, named as one
        terms = TERM.findall(text.text)
        assert [_numbers(values) for _, values in terms] == [list(V[j]) for j in tokens]
        weights = np.array([parse_number(weight) for weight, _ in terms])
        assert weights == pytest.approx(A[focus, tokens], abs=0.5 * 10.0 ** -(len(terms[0][0]) - 2))
        by_hand = weights @ V[tokens]
        columns = concat_row[head * d_head:(head + 1) * d_head]  # the sum, written under the line (review 16)
        assert np.abs(by_hand - columns).max() < 0.005  # 0.05·4 + 0.91·5 + 0.05·6 would give 5.05
        assert text.cap_height * PIXELS >= DIGIT_PIXELS
    assert spread == [0] and worked == {}  # head 1 («y» 0.91 between «ladró» and «ella»); heads 2 and 3 give 1.00


def test_the_heads_terms_over_v_are_16_px(with_cards):
    """Review: «0.91·V₁(«y») + …» was 15.6 px. (Review 15: over a head's columns written out in full above, the row's
    name, «z_1(«ella»)», stands instead of its largest term.)"""
    scene, _ = with_cards
    terms = [text for text in _step(scene, "concat").texts if "·V_" in text.text or text.text == "z_1(«ella»)"]
    assert len(terms) == scene.result.n_heads
    assert min(text.cap_height for text in terms) * PIXELS >= DIGIT_PIXELS


def test_the_pronoun_head_is_not_called_a_semantic_relation_alone(with_cards):
    """Review: head 3 matches by gender and number (step 1), grammatical agreement; «relación semántica» contradicted
    it. Its kind says what it is an example of (coreference, semantic), under its block. (Review 15: «(por concordancia)»
    called agreement semantic; the example is coreference: tests/test_heads_review15.py.)"""
    scene, _ = with_cards
    texts = [text for text in _step(scene, "illustrative").texts]
    kind = next(text for text in texts if "correferencia" in text.text)
    assert "semántica" in kind.text and "relación semántica" not in [text.text for text in texts]
    block = next(text for text in texts if text.text == "A_{3}")
    assert kind.top < block.bottom and kind.left < (block.left + block.right) / 2 < kind.right


def test_the_cost_step_works_out_the_guides_exercise_six(with_cards):
    """Review: exercise 6 (d = 512, h = 8 → d_k = 64) was only in 06-pipeline. Under step 8's costs, one line with the
    guide's sizes and d_k = 512 / 8 = 64, naming the exercise."""
    scene, _ = with_cards
    step = _step(scene, "cost")
    line = next(text for text in step.texts if "ejercicio 6" in text.text.lower())
    d_model, heads = 512, 8
    assert f"d_model = {d_model}" in line.text and f"h = {heads}" in line.text
    assert re.match(rf"{d_model} / {heads} = {d_model // heads}\b", line.text.split("d_k = ")[1])
    costs = [text for text in step.texts if text.text.endswith("144 pesos")]
    assert len(costs) == 2 and all(line.top < cost.bottom for cost in costs)
    assert line.cap_height * PIXELS >= DIGIT_PIXELS
    assert [problem for problem in layout_problems(scene) if problem.startswith("cost")] == []


def test_the_rounded_weights_note_adds_by_colour_and_each_colours_weights_add_to_one(with_cards):
    """Review: «los de cada fila suman ≈ 1» under 1.00, 0.05 0.91 0.05 and 1.00 (three heads on two lines) that add to
    3.01. The note adds the weights of one colour (one head): each head's weights under the row add to 1 (± rounding)."""
    scene, _ = with_cards
    step = _step(scene, "choose")
    note = next(text for text in step.texts if text.text.startswith("Pesos redondeados"))
    assert "color" in note.text and "fila" not in note.text
    focus = choice_token(scene.result)
    for head in range(scene.result.n_heads):
        shown = [parse_number(text) for text in step.numbers[f"A{head + 1}"][focus] if text is not None]
        assert sum(shown) == pytest.approx(1.0, abs=0.02)


def test_step_fives_title_does_not_name_the_average_before_it_comes(with_cards):
    """Review: «Las cabezas juntas y su promedio» was up 7 s before the average came; the title names the heads
    together, the average comes with its own label (⅓ Σ A_h) and the voice."""
    scene, _ = with_cards
    title = _step(scene, "average").title
    assert "juntas" in title and "promedio" not in title


def test_step_sevens_legend_and_spread_line_are_16_px(with_cards):
    """Review: the legend and «Una sola, repartida…: «y» 0.30 «calmó» 0.33 «María» 0.33» were 15.0 px cap height."""
    scene, _ = with_cards
    step = _step(scene, "choose")
    side = [text for text in step.texts if text.text.startswith(("cabeza", "Una sola", "«"))]
    assert len(side) >= 3 + 3 + 1 + 3  # legend, the heads' lines, the spread heading and its weights
    assert min(text.cap_height for text in side) * PIXELS >= DIGIT_PIXELS
    assert [problem for problem in legibility_problems(scene) if problem.startswith("choose")] == []
