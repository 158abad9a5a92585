"""The matrix section's questions and answers follow the lecturer's example: for random valid configs (their own
X, W_Q, W_K, W_V, with or without scaling and the causal mask, with or without ``matrix.row``), every number in every
answer is one that plain Python arithmetic here gets for that config and the row it follows, and every computed
number the answer should quote is there.

The answers are filled in as the scene fills them for the handout and the notes (lesson.matrix_answers through
lesson.questions.step_question, with the locale's text); the arithmetic below uses neither them nor numpy's
attention code.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attn_math.attention import self_attention
from lesson.locale import load_locale
from lesson.matrix_answers import neutral_names, question_fields
from lesson.questions import step_question
from lesson.section_config import MATRIX_MAX_DIM, MATRIX_MAX_TOKENS, MatrixConfig

NUMBER = re.compile(r"−?\d+(?:\.\d+)?(?:·10⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?")
SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
STEPS = ("inputs", "queries", "keys", "scaled", "softmax", "output", "large_scores")


def parsed(text: str) -> list[tuple[float, float]]:
    """Every number written in ``text`` (a true minus, decimals, and 2.3·10⁻⁵ as a weight too small for four
    decimals is written), with how far from it a value may be and still be written so: half its last digit."""
    values = []
    for found in NUMBER.findall(text):
        mantissa, _, power = found.replace("−", "-").partition("·10")
        decimals = len(mantissa.partition(".")[2])
        scale = 10 ** int(power.translate(SUPERSCRIPT)) if power else 1
        values.append((float(mantissa) * scale, 0.5 * 10 ** -decimals * scale * 1.0001))
    return values


def row_softmax(scores: list[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    return [e / sum(exps) for e in exps]


def walked_row(weights: list[list[float]], seen: list[list[int]], row: int | None) -> int:
    """The row the walkthrough follows, from 0, as docs/config.md states it: ``row`` when given, else the first row
    with more than one key seen whose largest weight is under 0.99, else the first with more than one key seen."""
    if row is not None:
        return row - 1
    choosing = [i for i in range(len(seen)) if len(seen[i]) > 1]
    spread = [i for i in choosing if max(weights[i]) < 0.99]
    return (spread or choosing or [0])[0]


def by_hand(X, W_Q, W_K, W_V, scale: bool, causal: bool, row: int | None = None) -> dict[str, list[float]]:
    """The numbers each answer may quote, with lists and loops."""
    n, d, d_k, d_v = len(X), len(X[0]), len(W_Q[0]), len(W_V[0])
    product = lambda A, B: [[sum(A[i][m] * B[m][j] for m in range(len(B))) for j in range(len(B[0]))]
                            for i in range(len(A))]
    Q, K, V = product(X, W_Q), product(X, W_K), product(X, W_V)
    scores = [[sum(a * b for a, b in zip(q, k)) for k in K] for q in Q]
    seen = [[j for j in range(n) if not causal or j <= i] for i in range(n)]
    root = math.sqrt(d_k) if scale else 1.0
    weights = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j, w in zip(seen[i], row_softmax([scores[i][j] / root for j in seen[i]])):
            weights[i][j] = w
    row = walked_row(weights, seen, row)
    r = min(2, n) - 1
    divided = row_softmax([scores[row][j] / math.sqrt(d_k) for j in seen[row]])
    undivided = row_softmax([scores[row][j] for j in seen[row]])
    own = [sum(v * v for v in q) for q in Q]
    tripled = product([[3 * x for x in line] for line in X], W_Q), product([[3 * x for x in line] for line in X], W_K)
    large = [row_softmax([sum(a * b for a, b in zip(q, k)) for k in tripled[1]]) for q in tripled[0]]
    slope = lambda A: max(p * (1 - p) for line in A for p in line)
    return {"inputs": [n, d, d_k, d_v],
            "queries": [*X[r], *[line[0] for line in W_Q], *[a * b for a, b in zip(X[r], [w[0] for w in W_Q])],
                        Q[r][0]],
            "keys": own,
            "scaled": [*divided, *undivided, *[scores[row][j] for j in seen[row]], d_k],
            "softmax": [max(weights[row]), min(weights[row][j] for j in seen[row])],
            "output": [max(line) for line in weights],
            "large_scores": [slope(weights), slope(large)]}


def matrix(rows: int, columns: int):
    entries = st.one_of(st.integers(-3, 3).map(float), st.integers(-300, 300).map(lambda v: v / 100))
    return st.lists(st.lists(entries, min_size=columns, max_size=columns), min_size=rows, max_size=rows)


@st.composite
def configs(draw):
    n, d = draw(st.integers(1, MATRIX_MAX_TOKENS)), draw(st.integers(1, MATRIX_MAX_DIM))
    d_k, d_v = draw(st.integers(1, MATRIX_MAX_DIM)), draw(st.integers(1, MATRIX_MAX_DIM))
    return MatrixConfig(preset="default", X=draw(matrix(n, d)), W_Q=draw(matrix(d, d_k)), W_K=draw(matrix(d, d_k)),
                        W_V=draw(matrix(d, d_v)), scale=draw(st.booleans()), causal=draw(st.booleans()),
                        row=draw(st.none() | st.integers(1, n)))


def answers(config: MatrixConfig, language: str) -> dict[str, tuple[str, str]]:
    """Each step's question and answer as the handout prints them for ``config`` (the scene's own calls)."""
    locale, inputs = load_locale(language), config.matrices()
    result = self_attention(**inputs, scale=config.scale, causal=config.causal)
    large = self_attention(**{**inputs, "X": 3 * inputs["X"]}, scale=False)
    fields = question_fields(result, inputs["W_Q"], neutral_names(len(result.X)), large,
                             locale["matrix"]["answer_pieces"], config.followed_row())
    return {key: (q.question, q.answer) for key in STEPS if (q := step_question("matrix", key, locale, fields.get(key)))}


def close(written: tuple[float, float], expected: float) -> bool:
    """``expected`` written to the digits shown gives ``written``."""
    value, tolerance = written
    return abs(value - expected) <= tolerance


@pytest.mark.parametrize("language", ["es", "en"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs())
def test_every_number_of_an_answer_is_the_lecturers_example(config, language):
    inputs = {name: value.tolist() for name, value in config.matrices().items()}
    expected = by_hand(**inputs, scale=config.scale, causal=config.causal, row=config.row)
    structural = set(range(0, 7))  # row and column numbers, "never 0", "p(1 − p)"
    for key, (question, answer) in answers(config, language).items():
        written = parsed(f"{question} {answer}")
        strays = [value for value in written if value[0] not in structural
                  and not any(close(value, number) for number in expected[key])]
        assert strays == [], (key, answer, expected[key])
        if key in ("softmax", "output", "keys"):
            for number in expected[key]:
                assert any(close(value, number) for value in written), (key, number, answer)


def test_the_default_example_answers_as_the_lesson_worked_it_out():
    """The default config's answers: the numbers the worked example's docstring derives by hand (Q row 2 = (−2, 4),
    |q_i|² = 9, 20, 8; «el» attends mostly to «gato»)."""
    got = answers(MatrixConfig(preset="default", scale=True, causal=False), "es")
    assert got["queries"][1].endswith("Q[2, 1] = 0 · 3 + 2 · (−1) = −2.")
    assert "aquí 9, 20 y 8, el mayor de cada fila" in got["keys"][1]
    assert got["softmax"][0].startswith("¿A qué token atiende más t₁?")
    assert close(parsed(got["softmax"][1])[0], row_softmax([0, 6 / math.sqrt(2), 3 / math.sqrt(2)])[1])
