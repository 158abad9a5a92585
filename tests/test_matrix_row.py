"""``matrix.row``: the walkthrough (the alignment picture, the softmax's two moves, z_i as a point) follows the row
given, or by default the first row whose softmax has a choice and does not make it all or nothing; every number its
captions, narration and worked lines write for that row is the one numpy computes here. The last three steps
change the lecturer's own matrices, say what the change does to them, and a change the example already has is
left out. A row outside 1..n is refused in one line through the CLI."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from lesson.config import load_config
from lesson.section_config import MATRIX_MAX_TOKENS, MatrixConfig
from lesson.steps import StepRange, step_keys
from media_checks import TINY, run_cli
from scene_checks import layout_problems, run_scene
from scenes.matrix import MatrixScene
from test_matrix_answers import close, matrix, parsed

ONE_HOT = 0.99  # docs/config.md: a row whose largest weight is above this is all or nothing
MINE = {"X": [[1, 0, 2], [0, 1, 1], [2, 1, 0], [1, 1, 1]], "W_Q": [[1, 0], [0, 2], [1, -1]],
        "W_K": [[0, 1], [1, 0], [2, 1]], "W_V": [[1, 0], [0, 1], [1, 1]]}


def attention(X, W_Q, W_K, W_V, scale: bool, causal: bool) -> dict[str, np.ndarray]:
    """Every quantity the walkthrough writes, with numpy, independently of attn_math."""
    X, W_Q, W_K, W_V = (np.array(value, dtype=float) for value in (X, W_Q, W_K, W_V))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    n = len(X)
    seen = ~np.triu(np.ones((n, n), dtype=bool), 1) if causal else np.ones((n, n), dtype=bool)
    scaled = np.where(seen, Q @ K.T / (np.sqrt(K.shape[1]) if scale else 1.0), -np.inf)
    exponentials = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    weights = exponentials / exponentials.sum(axis=1, keepdims=True)
    return {"Q": Q, "K": K, "V": V, "scores": Q @ K.T, "scaled": scaled, "seen": seen, "exponentials": exponentials,
            "weights": weights, "Z": weights @ V}


def overrides(inputs: dict, **settings) -> tuple[str, ...]:
    return (*(f"matrix.{name}={value}" for name, value in inputs.items()),
            *(f"matrix.{key}={str(value).lower()}" for key, value in settings.items() if value is not None))


@st.composite
def examples(draw, pictures: bool = False):
    """Matrices of a valid config (d_k, d_v <= 2 with ``pictures``, so both pictures in the plane are drawn)."""
    n, d = draw(st.integers(2, MATRIX_MAX_TOKENS)), draw(st.integers(1, 4))
    d_k, d_v = (draw(st.integers(1, 2 if pictures else 4)) for _ in range(2))
    return {"X": draw(matrix(n, d)), "W_Q": draw(matrix(d, d_k)), "W_K": draw(matrix(d, d_k)),
            "W_V": draw(matrix(d, d_v))}


@settings(max_examples=300, deadline=None)
@given(inputs=examples(), scale=st.booleans(), causal=st.booleans())
def test_the_default_row_has_a_choice_and_does_not_make_it_all_or_nothing(inputs, scale, causal):
    """Never a row that sees only itself (row 1 under the mask) when another has a choice; the first row that
    spreads its weight when one does."""
    row = MatrixConfig(preset="default", **inputs, scale=scale, causal=causal).followed_row()
    want = attention(**inputs, scale=scale, causal=causal)
    choosing = want["seen"].sum(axis=1) > 1
    spreading = choosing & (want["weights"].max(axis=1) < ONE_HOT)
    if spreading.any():
        assert row == np.flatnonzero(spreading)[0]
    elif choosing.any():
        assert row == np.flatnonzero(choosing)[0]
    else:
        assert row == 0


def sentences(step) -> list[str]:
    """What a viewer reads or hears as sentences in ``step``: its caption, its narration and its worked lines (a
    text with a space, not TeX), without the header's counter and title."""
    lines = [text.text for text in step.texts if " " in text.text and "\\" not in text.text
             and text.text not in (step.title, step.caption) and not re.match(r"(Paso|Step) \d+/\d+$", text.text)]
    return [step.caption, step.narration["text"], *lines]


def unexplained(texts: list[str], numbers, structural: set[int]) -> list[tuple[str, float]]:
    """The numbers written in ``texts`` that are neither ``structural`` (indices, d_k) nor one of ``numbers``
    as written to the digits shown."""
    return [(text, value[0]) for text in texts for value in parsed(text)
            if value[0] not in structural and not any(close(value, number) for number in numbers)]


def shown(step, name: str) -> np.ndarray:
    return np.array([[float(text.replace("−", "-")) for text in row] for row in step.numbers[name]])


def written_as(texts: list[str], values) -> bool:
    """Each of ``values`` written to the digits its text shows gives that text (21 for 20.997, −27.7 for −27.68)."""
    return len(texts) == len(values) and all(close(parsed(text)[0], value) for text, value in zip(texts, values))


@pytest.mark.parametrize("language", ["es", "en"])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # a scene per example: shrinking would take minutes
@given(inputs=examples(pictures=True), scale=st.booleans(), causal=st.booleans(), data=st.data())
def test_the_walkthrough_writes_the_numbers_of_its_row(inputs, scale, causal, data, language):
    given_row = data.draw(st.none() | st.integers(1, len(inputs["X"])), label="row")
    want = attention(**inputs, scale=scale, causal=causal)
    config = (*overrides(inputs, scale=scale, causal=causal, row=given_row), f"lecture.lang='{language}'")
    settings_ = load_config(overrides=config).matrix
    keys = step_keys("matrix", settings_.skipped_steps())
    scene = run_scene("matrix", *config,
                      steps=StepRange(keys.index("alignment") + 1, keys.index("weighted_average") + 1))
    row = settings_.followed_row()
    assert given_row is None or row == given_row - 1
    i, n = row + 1, len(inputs["X"])
    structural = {*range(n + 1), want["K"].shape[1]}
    steps = {step.key: step for step in scene.steps}
    seen = np.flatnonzero(want["seen"][row])
    q, K = want["Q"][row], want["K"]

    # Alignment: q_i's arrow, each key's score with its lengths and angle, the most aligned among the keys seen.
    picture, alignment = scene.alignment_picture, steps["alignment"]
    if np.any(q):  # a zero query's arrow keeps a tip of its own
        np.testing.assert_allclose(picture.plane.coordinates(picture.arrows["q"][0].get_end())[:len(q)], q, atol=1e-9)
    assert written_as(alignment.numbers["alignment"][0], want["scores"][row])
    best = want["scores"][row][seen].max()
    if len(seen) > 1 and np.allclose(want["scores"][row][seen], best):
        assert picture.marked == ()
    else:
        assert picture.marked == tuple(j for j in seen if np.isclose(want["scores"][row][j], best))
    lengths = [np.linalg.norm(q), *np.linalg.norm(K, axis=1)]
    angles = [np.degrees(np.arccos(np.clip(q @ k / (np.linalg.norm(q) * np.linalg.norm(k)), -1, 1)))
              for k in K if np.linalg.norm(k) and np.linalg.norm(q)]
    assert unexplained(sentences(alignment), [*want["scores"][row], *lengths, *angles], structural) == []
    assert any(f"q_{i} · k_j" in text for text in sentences(alignment)), sentences(alignment)

    # Exponentiate: row i's bars, the largest score, the exponentials ÷ e^largest and their sum (the worked line the
    # weights come on, review 11) and the weights.
    exponentiate = steps["exponentiate"]
    assert written_as(exponentiate.numbers["softmax_weights"][0], want["weights"][row])
    largest, weights = want["scaled"][row].max(), want["weights"][row]
    numbers = [largest, want["exponentials"][row].sum(), weights.max(), *want["scaled"][row][seen], *weights,
               *want["exponentials"][row]]
    assert unexplained(sentences(exponentiate), numbers, structural) == []
    assert f"q_{i}" in exponentiate.caption
    # the scale the bars are drawn on, e^{largest}: the caption quotes no result before the bars show it
    assert any(close(value, largest) for value in parsed(exponentiate.caption))
    assert any(text.text.startswith(f"q_{{{i}}}") for text in exponentiate.texts)

    # z_i as a point: its terms' weights, its coordinates and the value it lands nearest.
    average = steps["weighted_average"]
    assert written_as(average.numbers["weighted_average"][0], weights)
    assert written_as(average.numbers["z_row"][0], want["Z"][row])
    z_dot = scene.weighted_picture.z_view.coordinates(scene.weighted_picture.z_dot.get_center())
    np.testing.assert_allclose(z_dot[:want["Z"].shape[1]], want["Z"][row], atol=1e-9)
    assert unexplained(sentences(average), [*weights, *want["Z"][row]], structural) == []
    assert f"z_{i}" in average.caption and any(text.text.startswith(f"z_{i} = Σ A_{i}j") for text in average.texts)
    assert layout_problems(scene) == []


def contrast_steps(inputs: dict, *settings: str):
    config = (*overrides(inputs), *settings)
    keys = step_keys("matrix", load_config(overrides=config).matrix.skipped_steps())
    first = keys.index("weighted_average") + 2 if "weighted_average" in keys else keys.index("output") + 2
    scene = run_scene("matrix", *config, steps=StepRange(first, len(keys)))
    return keys, {step.key: step for step in scene.steps}, scene


# The default preset's matrices given as the lecturer's own (a collapse, a diagonal that dominates every row); then
# entries too small to collapse, with q_2 = 2 q_1, whose shadow on q_1 is longer than q_1.
OWN_DEFAULT = {"X": [[1, 0], [0, 2], [1, 1]], "W_Q": [[3, 0], [-1, 2]], "W_K": [[0, 2], [1, 0]],
               "W_V": [[1, 1], [0, 1]]}
SOFT = {"X": [[0.1, 0], [0.2, 0], [0, 0.1]], "W_Q": [[1, 0], [0, 1]], "W_K": [[0, 1], [1, 0]],
        "W_V": [[1, 1], [0, 1]]}


@pytest.mark.parametrize("inputs", [MINE, OWN_DEFAULT, SOFT], ids=["mine", "own_default", "soft"])
def test_the_contrasts_change_the_lecturers_matrices_and_say_what_it_does(inputs):
    keys, steps, scene = contrast_steps(inputs)
    assert keys[-3:] == ["causal", "large_scores", "shared_projection"]
    X, W_Q, W_K = (np.array(inputs[name], dtype=float) for name in ("X", "W_Q", "W_K"))
    large = attention(3 * X, W_Q, W_K, inputs["W_V"], scale=False, causal=False)
    np.testing.assert_allclose(shown(steps["large_scores"], "scores"), large["scores"], atol=5e-3)
    np.testing.assert_allclose(shown(steps["large_scores"], "weights"), large["weights"], atol=5e-3)
    collapsed = bool(np.all(large["weights"].max(axis=1) > ONE_HOT))
    assert ("cada fila de A es one-hot" in steps["large_scores"].caption) == collapsed
    assert "preset" not in steps["large_scores"].caption + steps["shared_projection"].caption
    shared = attention(X, W_Q, W_Q, inputs["W_V"], scale=True, causal=False)["scores"]
    np.testing.assert_allclose(shown(steps["shared_projection"], "scores"), shared, atol=5e-3)
    dominant = [str(i + 1) for i in range(len(X)) if shared[i, i] >= shared[i].max()]
    caption = steps["shared_projection"].caption
    if len(dominant) == len(X):
        assert "la diagonal domina" in caption
    elif dominant:
        assert caption.endswith(f"solo es la mayor en las filas {' y '.join(dominant)}.") or \
            caption.endswith(f"solo es la mayor en las filas {', '.join(dominant[:-1])} y {dominant[-1]}."), caption
    else:
        assert "no es la mayor en ninguna fila" in caption
    assert layout_problems(scene) == []


def test_a_change_the_example_already_has_is_left_out():
    """The mask already on: no causal step; W_K = W_Q already: no shared-projection step; each said once."""
    settings_ = load_config(overrides=(*overrides({**MINE, "W_K": MINE["W_Q"]}), "matrix.causal=true")).matrix
    keys = step_keys("matrix", settings_.skipped_steps())
    assert "causal" not in keys and "shared_projection" not in keys and keys[-1] == "large_scores"
    warnings = settings_.warnings("es")
    assert sum("step causal skipped" in line for line in warnings) == 1
    assert sum("step shared_projection skipped" in line for line in warnings) == 1


@pytest.mark.parametrize("row", ["0", "5", '"x"'])
def test_a_row_outside_x_is_one_line_exit_2_and_out_untouched(tmp_path, row):
    config, out = tmp_path / "mine.toml", tmp_path / "out"
    config.write_text("[matrix]\n" + "".join(f"{name} = {value}\n" for name, value in MINE.items()) + f"row = {row}\n")
    out.mkdir()
    earlier = out / "manifest.json"
    earlier.write_text(json.dumps({"earlier": True}))
    result = run_cli("render", "matrix", "-c", str(config), *TINY, "-o", str(out), timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    shown_row = row if row != '"x"' else "'x'"
    assert result.stderr == f"error: matrix.row: expected a whole number from 1 to 4 (a row of X), got {shown_row}\n"
    assert [path.name for path in out.iterdir()] == ["manifest.json"]
    assert json.loads(earlier.read_text()) == {"earlier": True}


def test_an_x_whose_scores_are_all_zero_renders(tmp_path):
    """Every score 0 (X all zeros): the scores' colour bar spans no range; it divided by it and the section failed."""
    out = tmp_path / "out"
    result = run_cli("render", "matrix", "--steps", "scores", "--format", "png", *TINY, "--set",
                     "matrix.X=[[0, 0], [0, 0], [0, 0]]", "-o", str(out), timeout=300)
    assert result.returncode == 0, result.stderr
    [still] = out.glob("01-matrix-steps-*/*-scores.png")
    assert still.stat().st_size > 0


@pytest.mark.parametrize("causal", [False, True])
def test_the_scaled_steps_variance_is_of_the_scores_on_screen(causal):
    """Under the mask a masked cell shows −∞, no score: the variance written is the visible scores' (it counted the
    hidden ones, 4.69 → 2.34 where the screen's give 6.36 → 3.18); a root that is exact is written with "="."""
    inputs = {**MINE, "W_Q": [[1, 0, 0, 1], [0, 2, 1, 0], [1, -1, 0, 0]], "W_K": [[0, 1, 1, 0], [1, 0, 0, 1],
                                                                                 [2, 1, 0, 0]]}  # d_k = 4
    want = attention(**inputs, scale=True, causal=causal)
    raw = np.array(inputs["X"]) @ np.array(inputs["W_Q"]) @ (np.array(inputs["X"]) @ np.array(inputs["W_K"])).T
    visible = raw[np.tril(np.ones_like(raw, dtype=bool))] if causal else raw.ravel()
    config = overrides(inputs, causal=causal)
    number = step_keys("matrix", load_config(overrides=config).matrix.skipped_steps()).index("scaled") + 1
    # the division is written as the rows are divided, then with the variance once they all are (review 12): the line
    # with both is read back as it was shown
    lines, show_line = [], MatrixScene.show_line

    def logged(scene, line, *also):
        lines.append(line.shown_text)
        show_line(scene, line, *also)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "show_line", logged)
        run_scene("matrix", *config, steps=StepRange(number, number))
    [note] = [text for text in lines if "√4" in text and "→" in text]
    assert "√4 = 2 " in note
    for written, wanted in zip(re.findall(r"(\d+(?:\.\d+)?) → (\d+(?:\.\d+)?)", note)[0],
                               (np.var(visible), np.var(visible) / 4)):
        decimals = len(written.partition(".")[2])
        assert float(written) == pytest.approx(wanted, abs=0.5 * 10 ** -decimals + 1e-9), note
    assert want["scores"].shape == raw.shape
