"""Section 1 as a viewer sees it: the numbers on screen, the layout, the steps."""

import numpy as np
import pytest

from attn_math import worked_example
from scene_checks import layout_problems, run_scene
from scenes.numbers import parse_number

STEPS = ["formula", "inputs", "queries", "keys", "values", "scores", "scaled", "softmax", "output"]
SIX_BY_FOUR = [[1, 0, 2, -1], [0, 1, 1, 0], [2, -1, 0, 1], [1, 1, 1, 1], [-2, 0, 1, 3], [0, 3, -1, 2]]
W_4x4 = [[1, 0.5, 0, 0], [0, 1, -0.5, 0], [0.5, 0, 1, 0], [0, 0, 0.5, 1]]


def shown(step, name) -> np.ndarray:
    return np.array([[parse_number(text) for text in row] for row in step.numbers[name]])


def expected(X, W_Q, W_K, W_V, causal=False, scale=True):
    """The lesson's formulas written out directly with numpy."""
    X, W_Q, W_K, W_V = (np.array(m, dtype=float) for m in (X, W_Q, W_K, W_V))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    scores = Q @ K.T
    scaled = scores / (np.sqrt(W_K.shape[1]) if scale else 1.0)
    if causal:
        scaled[np.triu_indices(len(X), k=1)] = -np.inf
    exps = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    weights = exps / exps.sum(axis=1, keepdims=True)
    return {"Q": Q, "K": K, "V": V, "scores": scores, "scaled": scaled, "weights": weights, "Z": weights @ V}


@pytest.fixture(scope="module")
def default_scene():
    return run_scene("matrix")


def test_steps_in_lesson_order(default_scene):
    assert [step.key for step in default_scene.steps] == STEPS
    assert all(step.end > step.start for step in default_scene.steps)


def test_numbers_on_screen_equal_the_math(default_scene):
    want = expected(worked_example.X, worked_example.W_Q, worked_example.W_K, worked_example.W_V)
    last = {step.key: step for step in default_scene.steps}
    np.testing.assert_array_equal(shown(last["inputs"], "X"), worked_example.X)
    for name, step in (("Q", "queries"), ("K", "keys"), ("V", "values"), ("scores", "scores"),
                       ("scaled", "scaled"), ("weights", "softmax"), ("Z", "output")):
        np.testing.assert_allclose(shown(last[step], name), want[name], atol=0.005, err_msg=name)


def test_no_overlap_and_nothing_leaves_the_frame(default_scene):
    assert layout_problems(default_scene) == []


def test_six_tokens_of_dimension_four():
    scene = run_scene("matrix", f"matrix.X={SIX_BY_FOUR}", f"matrix.W_Q={W_4x4}", f"matrix.W_K={W_4x4}",
                      f"matrix.W_V={W_4x4}")
    assert layout_problems(scene) == []
    want = expected(SIX_BY_FOUR, W_4x4, W_4x4, W_4x4)
    output = scene.steps[-1]
    assert shown(output, "Z").shape == (6, 4)
    np.testing.assert_allclose(shown(output, "weights"), want["weights"], atol=0.005)
    np.testing.assert_allclose(shown(output, "Z"), want["Z"], atol=0.005 * (1 + np.abs(want["Z"]).max()))


def test_causal_mask_shows_minus_infinity_then_zero():
    scene = run_scene("matrix", "matrix.causal=true")
    steps = {step.key: step for step in scene.steps}
    assert steps["scaled"].numbers["scaled"][0][1:] == ["−∞", "−∞"]
    assert shown(steps["softmax"], "weights")[0].tolist() == [1.0, 0.0, 0.0]
    assert "(1, 0, 0" in steps["softmax"].caption
    assert layout_problems(scene) == []


def test_large_scores_without_scaling_collapse_to_one_hot():
    scene = run_scene("matrix", "matrix.preset='large_scores'", "matrix.scale=false")
    weights = shown(scene.steps[-1], "weights")
    assert np.all(weights.max(axis=1) >= 0.99)
    assert "one-hot" in scene.steps[STEPS.index("softmax")].caption
    assert layout_problems(scene) == []


def test_shared_projection_diagonal_dominates():
    scene = run_scene("matrix", "matrix.preset='shared_projection'")
    weights = shown(scene.steps[-1], "weights")
    assert weights.argmax(axis=1).tolist() == [0, 1, 2]
    assert "diagonal" in scene.steps[STEPS.index("softmax")].caption


def test_cues_follow_the_cells_and_rows(default_scene):
    kinds = [cue.kind for cue in default_scene.cues]
    assert kinds.count("step") == len(STEPS)
    assert kinds.count("cell") == 3 * 2 * 3 + 9 + 3 * 2  # Q, K, V; the scores; Z
    rows = [cue.values["weights"] for cue in default_scene.cues if cue.kind == "row"]
    np.testing.assert_allclose(rows, expected(worked_example.X, worked_example.W_Q, worked_example.W_K,
                                              worked_example.W_V)["weights"])
