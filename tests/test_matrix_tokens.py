"""``matrix.tokens``: the words of the lecturer's own X, on its rows and in the answers; refused in one line when
they do not fit X; an X of the lecturer's without words is shown unlabelled, its answers call the rows t₁, t₂, …, and the CLI says so
once."""

from __future__ import annotations

import json

import pytest

from lesson.config import load_config
from media_checks import TINY, run_cli

MINE = """[matrix]
X = [[1, 0, 2], [0, 1, 1], [2, 1, 0], [1, 1, 1]]
W_Q = [[1, 0], [0, 2], [1, -1]]
W_K = [[0, 1], [1, 0], [2, 1]]
W_V = [[1, 0], [0, 1], [1, 1]]
causal = true
"""


@pytest.mark.parametrize("tokens, message", [
    ('["yo", "veo", "un"]', "matrix.tokens: expected one word for each of the 4 rows of X, got 3"),
    ('["yo veo", "un", "gato", "x"]', "matrix.tokens: expected one word per row, got 'yo veo'"),
    ('["yo", "veo", "un", "supercalifragil"]', "matrix.tokens: expected words of at most 12 letters"),
    ('["yo", "veo", "un", "גמל"]', "matrix.tokens: expected Latin, Greek or Cyrillic letters"),
])
def test_words_that_do_not_fit_x_are_one_line_and_exit_2(tmp_path, tokens, message):
    config = tmp_path / "mine.toml"
    config.write_text(MINE + f"tokens = {tokens}\n")
    result = run_cli("render", "matrix", "-c", str(config), *TINY, "-o", str(tmp_path / "out"), timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: {message}")
    assert not (tmp_path / "out").exists()


def test_an_x_without_words_is_said_once_and_the_preset_x_keeps_its_words(tmp_path):
    config = tmp_path / "mine.toml"
    config.write_text(MINE)
    unlabelled = "X has no words (matrix.tokens): its rows are shown unlabelled, and the answers call them t1 ... t4"
    assert [line for line in load_config(config).matrix.warnings("es") if "words" in line] == [unlabelled]
    config.write_text(MINE + 'tokens = ["yo", "veo", "un", "gato"]\n')
    assert not any("words" in line for line in load_config(config).matrix.warnings("es"))
    assert load_config(None).matrix.warnings("es") == []


def test_the_answers_quote_the_lecturers_words(tmp_path):
    """A clip of the softmax step with the lecturer's words and the causal mask: its question follows «veo» (the
    first row, «yo», sees only itself), and its answer names the word it attends to most."""
    config, out = tmp_path / "mine.toml", tmp_path / "out"
    config.write_text(MINE + 'tokens = ["yo", "veo", "un", "gato"]\n')
    result = run_cli("render", "matrix", "-c", str(config), *TINY, "--steps", "softmax", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "X has no words" not in result.stderr
    (entry,) = json.loads((out / "manifest.json").read_text())["clips"].values()
    (softmax,) = [question for question in entry["questions"] if question["key"] == "softmax"]
    assert softmax["question"].startswith("¿A qué token atiende más «veo»?")
    # Row 2 under the mask: scores (7, 4) / √2 -> weights 0.8930 and 0.1070 (tests/test_matrix_answers.py's arithmetic).
    assert softmax["answer"].startswith("A «yo», con 0.8930. Y sí, por la máscara causal")
