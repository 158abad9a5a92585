"""Issue 27, section 1: the dot product as alignment and Z as a weighted average, drawn in the plane. The arrows,
shadows and points on the built mobjects are read back in the plane's units and compared with numpy written
here from the default X, W_Q, W_K, W_V; the pictures are left out (with a line in the log, and ``--steps``
refusing them) when d_k or d_v is over 2."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from manim import Dot

from attn_math.geometry import alignment, in_plane, weighted_average
from lesson.config import load_config
from lesson.records import steps_of, stored
from lesson.steps import StepRange, StepsError, parse_steps, step_keys
from sonify.mappings import MAPPINGS
from sonify.synth import SAMPLE_RATE
from scenes.matrix import MatrixScene
from scenes.softmax_moves import SoftmaxMoves
from scene_checks import (layout_problems, legibility_problems, notation_problems, pacing_problems, recorded,
                          run_scene)

PICTURES = ("alignment", "weighted_average")
X, W_Q, W_K, W_V = (np.array(matrix, dtype=float) for matrix in
                    ([[1, 0], [0, 2], [1, 1]], [[3, 0], [-1, 2]], [[0, 2], [1, 0]], [[1, 1], [0, 1]]))
# The largest matrices the config accepts: 6 tokens of dimension 4, d_k = d_v = 4 (no picture in the plane).
LARGEST = ("matrix.X=" + str([[1, 0, 2, -1], [0, 1, 1, 0], [2, -1, 0, 1], [1, 1, 1, 1], [-2, 0, 1, 3], [0, 3, -1, 2]]),
           "matrix.W_Q=" + str([[1, 0.5, 0, 0], [0, 1, -0.5, 0], [0.5, 0, 1, 0], [0, 0, 0.5, 1]]),
           "matrix.W_K=" + str([[0.5, -1.25, 0.75, 0.0], [-0.25, 1.5, 0.5, -0.75], [1.0, 0.25, -1.5, 0.5],
                                [-0.5, 0.75, 0.25, 1.25]]),
           "matrix.W_V=" + str([[1, 0.5, 0, 0], [0, 1, -0.5, 0], [0.5, 0, 1, 0], [0, 0, 0.5, 1]]))
# The most tokens with both pictures: six keys and six values in the plane, with decimals.
SIX_IN_THE_PLANE = ("matrix.X=" + str([[1.25, -0.5, 2.75, -1.5], [-9.75, 1.0, 0.25, 3.5], [2.5, -1.25, -0.75, 1.75],
                                       [0.5, 2.25, -3.5, 1.0], [-2.0, 0.75, 1.5, -0.25], [3.25, -2.5, 0.5, 9.5]]),
                    "matrix.W_Q=" + str([[0.5, -1.25], [-0.25, 1.5], [1.0, 0.25], [-0.5, 0.75]]),
                    "matrix.W_K=" + str([[0.25, 0.5], [1.0, -0.5], [-0.75, 0.25], [0.5, 1.0]]),
                    "matrix.W_V=" + str([[1.0, 0.5], [-0.5, 1.0], [0.25, -1.0], [0.75, 0.25]]))


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    exps = np.exp(scores - scores.max(axis=1, keepdims=True))
    return exps / exps.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def default():
    """The default section, every play and cue logged, and what was on screen as the alignment step ended
    (``scene.alignment_end``: the ids of every mobject drawn)."""
    finish_step = MatrixScene.finish_step

    def recording(scene):
        if scene.steps and not scene.steps[-1].end and scene.steps[-1].key == "alignment":
            scene.alignment_end = {id(part) for part in scene.get_mobject_family_members()}
        finish_step(scene)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "finish_step", recording)
        return recorded("matrix")


@pytest.fixture(scope="module")
def want():
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    weights = softmax_rows(Q @ K.T / np.sqrt(2))
    return {"Q": Q, "K": K, "V": V, "scores": Q @ K.T, "weights": weights, "Z": weights @ V}


def tip(picture, arrow) -> np.ndarray:
    return picture.plane.coordinates(arrow.get_end())


def test_the_arrows_are_q1_and_the_keys(default, want):
    picture = default[0].alignment_picture
    np.testing.assert_allclose(tip(picture, picture.arrows["q"][0]), want["Q"][0], atol=1e-9)
    np.testing.assert_allclose([tip(picture, arrow) for arrow in picture.arrows["k"]], want["K"], atol=1e-9)
    for arrow in [*picture.arrows["q"], *picture.arrows["k"]]:
        np.testing.assert_allclose(picture.plane.coordinates(arrow.get_start()), [0, 0], atol=1e-9)


def test_each_shadow_is_q_dot_k_over_the_length_of_k(default, want):
    picture, q = default[0].alignment_picture, want["Q"][0]
    assert len(picture.shadows) == len(want["K"])
    for k, (cast, _) in zip(want["K"], picture.shadows):
        length = q @ k / np.linalg.norm(k)
        if isinstance(cast, Dot):  # k ⟂ q: no shadow, a dot at the origin
            assert length == 0
            np.testing.assert_allclose(picture.plane.coordinates(cast.get_center()), [0, 0], atol=1e-9)
            continue
        start, end = (picture.plane.coordinates(point) for point in (cast.get_start(), cast.get_end()))
        np.testing.assert_allclose(start, [0, 0], atol=1e-9)
        assert np.linalg.norm(end - start) == pytest.approx(abs(length))
        np.testing.assert_allclose(end, length * k / np.linalg.norm(k), atol=1e-9)  # on k's line, on q's side


def test_the_marked_key_has_the_largest_score(default, want):
    picture = default[0].alignment_picture
    best = int(np.argmax(want["scores"][0]))
    assert picture.marked == (best,)
    name = picture.names[1 + best]  # names: q₁, then k₁, k₂, ...
    assert any(np.all(np.abs(frame.get_center() - name.get_center())[:2] < 1e-6) for frame in picture.marks)
    assert np.linalg.norm(picture.plane.coordinates(name.get_center()) - want["K"][best]) < 1.0  # by its tip


def test_the_winning_shadow_stays_on_the_final_alignment_frame(default, want):
    """Each shadow leaves after its row, but the winner's comes back with its frame: the last frame shows why."""
    scene = default[0]
    picture, best = scene.alignment_picture, int(np.argmax(want["scores"][0]))
    for j, shadow in enumerate(picture.shadows):
        drawn = all(id(part) in scene.alignment_end for part in shadow.family_members_with_points())
        assert drawn == (j == best), j
    assert all(part.get_stroke_opacity() > 0.5 for part in picture.shadows[best].family_members_with_points()
               if part.get_stroke_width() > 0)


K_ZERO = np.array([[0.0, 0.0], [0.0, 2.0], [1.0, 1.0]]) @ W_K


def test_a_zero_query_ties_every_key_and_the_line_says_so():
    """q₁ = 0: every score is 0, no key is framed, and the closing line says they tie (not "the most aligned")."""
    overrides = ("matrix.X=[[0, 0], [0, 2], [1, 1]]",)
    number = step_keys("matrix", load_config(overrides=overrides).matrix.skipped_steps()).index("alignment") + 1
    scene = run_scene("matrix", *overrides, steps=StepRange(number, number))
    picture = scene.alignment_picture
    q = np.array([0.0, 0.0]) @ W_Q  # X's first row is 0, so is q₁, and so is q₁ · kⱼ for every key
    assert [float(text) for text in scene.steps[0].numbers["alignment"][0]] == (K_ZERO @ q).tolist() == [0, 0, 0]
    assert picture.marked == () and len(picture.marks) == 0
    lines = [text.text for text in scene.steps[0].texts]
    assert any(text.startswith("Empate: q") and "todas las claves" in text for text in lines), lines
    assert not any(text.startswith("La más alineada") for text in lines)
    assert layout_problems(scene) == [] and legibility_problems(scene) == []


def test_a_refused_alignment_step_is_one_line_and_exit_status_two(tmp_path):
    """Through the real CLI: --steps alignment with d_k = 3 is refused in one line on stderr (no warning line before
    it), naming why, with exit status 2 and nothing written."""
    out = tmp_path / "out"
    three = "[[1, 0, 0], [0, 1, 0]]"
    run = subprocess.run([sys.executable, "render.py", "render", "matrix", "--steps", "alignment", "-o", str(out),
                          "--set", f"matrix.W_Q={three}", "--set", f"matrix.W_K={three}"],
                         cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --steps 'alignment'"), lines
    assert "step alignment is skipped" in lines[0] and "d_k = 3" in lines[0]
    assert run.stdout == "" and not out.exists()


def test_z1_lands_at_the_weighted_sum_of_the_values(default, want):
    picture = default[0].weighted_picture
    z = want["weights"][0] @ want["V"]
    np.testing.assert_allclose(picture.z_view.coordinates(picture.z_dot.get_center()), z, atol=1e-9)
    np.testing.assert_allclose([tip(picture, arrow) for arrow in picture.arrows["v"]], want["V"], atol=1e-9)
    # The terms w_j v_j tip to tail, the heaviest first (0.8816 v₂, 0.1057 v₃, 0.0127 v₁): from the origin to z.
    order = [1, 2, 0]
    assert want["weights"][0][order].tolist() == sorted(want["weights"][0], reverse=True)
    ends = np.cumsum(want["weights"][0][order, None] * want["V"][order], axis=0)
    starts = np.vstack([[0, 0], ends[:-1]])
    for arrow, start, end in zip(picture.arrows["terms"], starts, ends):
        np.testing.assert_allclose(picture.plane.coordinates(arrow.get_start()), start, atol=1e-9)
        np.testing.assert_allclose(tip(picture, arrow), end, atol=1e-9)
    distances = np.linalg.norm(want["V"] - z, axis=1)
    assert np.argmin(distances) == np.argmax(want["weights"][0])  # nearest the value that weighs most


def test_numbers_shown_and_their_sounds(default, want):
    scene, log = default
    steps = {step.key: step for step in scene.steps}
    assert [int(text) for text in steps["alignment"].numbers["alignment"][0]] == want["scores"][0].tolist()
    shown = [float(text) for text in steps["weighted_average"].numbers["weighted_average"][0]]
    np.testing.assert_allclose(shown, want["weights"][0], atol=5e-5)
    np.testing.assert_allclose([float(text) for text in steps["weighted_average"].numbers["z_row"][0]],
                               want["Z"][0], atol=5e-3)
    # Each cue lands with the play that writes its number.
    landed = {}
    for (kind, index), (play_kind, play) in zip(log, log[1:]):
        if kind == "cue" and play_kind == "play":
            cue = scene.cues[index]
            if cue.kind in ("cell", "values"):
                landed.setdefault(cue.kind, []).append((cue, play))
    alignment_cues = [(cue, play) for cue, play in landed["cell"] if any(tag[0] == "alignment" for tag in play.tags())]
    assert [cue.values["value"] for cue, _ in alignment_cues] == pytest.approx(want["scores"][0].tolist())
    assert all(cue.time == pytest.approx(play.end) for cue, play in alignment_cues)
    weight_cues = [cue for cue, play in landed["cell"] if any(tag[0] == "weighted_average" for tag in play.tags())]
    assert [cue.values["value"] for cue in weight_cues] == pytest.approx(sorted(want["weights"][0], reverse=True))
    (z_cue, z_play), = [(cue, play) for cue, play in landed["values"] if ("z_row", (0, 0)) in play.tags()]
    assert z_cue.values["values"] == pytest.approx(want["Z"][0].tolist()) and z_cue.time == pytest.approx(z_play.end)


# Issue 30: one sound scale per quantity ---------------------------------------------------------------------
VECTORS, SCORES = ("Q", "K", "V", "Z", "z_row"), ("scores", "scaled", "alignment")


def landed_values(scene, log) -> list[tuple[str, object]]:
    """(the tagged numbers' name, the cue) of each cell or values cue with the play that writes its number."""
    found = []
    for (kind, index), (play_kind, play) in zip(log, log[1:]):
        if kind == "cue" and play_kind == "play" and scene.cues[index].kind in ("cell", "values"):
            names = {tag[0] for tag in play.tags()} & {*VECTORS, *SCORES}
            if names:
                found.append((names.pop(), scene.cues[index]))
    return found


def pitch(cue) -> float:
    """The dominant frequency of the blip the cue sounds (a zero-padded FFT: 0.1 Hz resolution)."""
    samples = MAPPINGS["cell"](**cue.values)
    samples = samples.sum(axis=1) if samples.ndim == 2 else samples
    return np.argmax(np.abs(np.fft.rfft(samples * np.hanning(len(samples)), n=10 * SAMPLE_RATE))) / 10


def test_one_sound_scale_per_quantity(default, want):
    """The vectors (X, Q, K, V, Z) share one low..high, the scores (QKᵀ, QKᵀ/√d_k and the alignment's) another: 2
    sounds at one pitch in Q, K and V (with a scale per matrix it was 554 Hz in Q, 880 Hz in K and V)."""
    scene, log = default
    landed = landed_values(scene, log)
    assert {name for name, _ in landed} == {*VECTORS, *SCORES}
    vectors = np.concatenate([np.ravel(matrix) for matrix in (X, want["Q"], want["K"], want["V"], want["Z"])])
    scores = np.concatenate([np.ravel(want["scores"]), np.ravel(want["scores"] / np.sqrt(2))])
    for names, values in ((VECTORS, vectors), (SCORES, scores)):
        scales = {(cue.values["low"], cue.values["high"]) for name, cue in landed if name in names}
        assert len(scales) == 1 and scales.pop() == pytest.approx((values.min(), values.max())), names
    twos = {name: [pitch(cue) for found, cue in landed if found == name and cue.kind == "cell"
                   and cue.values["value"] == 2] for name in ("Q", "K", "V")}
    assert all(twos.values()) and len({p for pitches in twos.values() for p in pitches}) == 1, twos
    share = (2 - vectors.min()) / (vectors.max() - vectors.min())
    assert twos["Q"][0] == pytest.approx(600 * 4 ** share, abs=1.0)  # the legend's value pitch, on the one scale


def test_steps_in_the_records_and_the_manifest(default):
    scene = default[0]
    keys = [step.key for step in steps_of({"steps": [stored(step) for step in scene.steps]})]
    assert keys.index("alignment") == keys.index("scores") - 1
    assert keys.index("weighted_average") == keys.index("output") + 1
    assert keys.index("exponentiate") == keys.index("scaled") + 1 == keys.index("softmax") - 1
    for step in scene.steps:
        if step.key in (*PICTURES, "exponentiate"):
            assert step.caption and step.narration["text"] and step.read_until - step.start >= 4.0
    assert layout_problems(scene) == [] and legibility_problems(scene) == []
    assert notation_problems(scene) == [] and pacing_problems(scene) == []


def test_the_largest_config_skips_both_pictures_and_says_so():
    settings = load_config(overrides=LARGEST).matrix
    assert set(settings.skipped_steps()) == set(PICTURES)
    lines = settings.warnings("es")
    assert len(lines) == 3 and "d_k = 4" in lines[0] and "d_v = 4" in lines[1] and "matrix.tokens" in lines[2]
    keys = step_keys("matrix", settings.skipped_steps())
    assert not set(PICTURES) & set(keys) and keys.index("scores") == keys.index("values") + 1
    with pytest.raises(StepsError, match="step alignment is skipped with this config .*d_k = 4"):
        parse_steps("alignment", keys, "matrix", settings.skipped_steps())
    assert parse_steps("scores", keys, "matrix", settings.skipped_steps()) == StepRange(6, 6)
    scene = run_scene("matrix", *LARGEST, steps=StepRange(5, 6))  # values, then scores: nothing between
    assert [step.key for step in scene.steps] == ["values", "scores"]
    assert not hasattr(scene, "alignment_picture")
    assert scene.shown_steps == tuple(keys)


def test_six_keys_and_values_in_the_plane_lay_out():
    settings = load_config(overrides=SIX_IN_THE_PLANE).matrix
    assert settings.skipped_steps() == {}
    keys = step_keys("matrix", settings.skipped_steps())
    scene = run_scene("matrix", *SIX_IN_THE_PLANE, steps=StepRange(keys.index("alignment") + 1,
                                                                    keys.index("weighted_average") + 1))
    assert [step.key for step in scene.steps][0] == "alignment" and scene.steps[-1].key == "weighted_average"
    X6, W_Q6, W_K6, W_V6 = (np.array(settings.matrices()[name]) for name in ("X", "W_Q", "W_K", "W_V"))
    Q, K = X6 @ W_Q6, X6 @ W_K6
    picture, row = scene.alignment_picture, settings.followed_row()  # the row the walkthrough follows (matrix.row)
    np.testing.assert_allclose([tip(picture, arrow) for arrow in picture.arrows["k"]], K, atol=1e-9)
    assert picture.marked == (int(np.argmax(K @ Q[row])),)
    weights = softmax_rows(Q @ K.T / np.sqrt(2))
    np.testing.assert_allclose(scene.weighted_picture.z_view.coordinates(scene.weighted_picture.z_dot.get_center()),
                               weights[row] @ (X6 @ W_V6), atol=1e-9)
    assert layout_problems(scene) == [] and legibility_problems(scene) == [] and notation_problems(scene) == []


def test_the_math_of_the_pictures():
    """attn_math.geometry against the formulas: |q||k|cos θ is q·k, the shadows, one-component rows on the axis."""
    Q, K = X @ W_Q, X @ W_K
    geometry = alignment(Q, K)
    np.testing.assert_allclose(geometry.query_length * geometry.key_lengths * np.cos(geometry.angles), K @ Q[0],
                               atol=1e-12)
    np.testing.assert_allclose(geometry.projections * geometry.key_lengths, K @ Q[0], atol=1e-12)
    assert geometry.aligned == (1,) and geometry.degrees(0) == pytest.approx(90)
    np.testing.assert_array_equal(in_plane([[2.0], [-1.0]]), [[2, 0], [-1, 0]])
    with pytest.raises(ValueError, match="at most 2 components"):
        in_plane(np.ones((2, 3)))
    zero = alignment([[1.0, 1.0]], [[0.0, 0.0]])
    assert zero.projections[0] == 0 and np.isnan(zero.angles[0])
    mix = weighted_average([0.25, 0.75], [[0.0, 4.0], [4.0, 0.0]])
    np.testing.assert_allclose(mix.z, [3.0, 1.0])
    np.testing.assert_allclose(mix.partial_sums, [[0, 0], [0, 1], [3, 1]])


# Softmax as exponentiate, then normalise: row 1 of the scores entering the softmax -------------------------------
def exponentiated(*overrides):
    """The exponentiate step alone, run with ``overrides``, and the bars' heights as the first move left them."""
    keys = step_keys("matrix", load_config(overrides=overrides).matrix.skipped_steps())
    number = keys.index("exponentiate") + 1
    after_first = []
    normalise = SoftmaxMoves.normalise

    def recording(moves):
        after_first.append(moves.heights())
        return normalise(moves)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SoftmaxMoves, "normalise", recording)
        scene = run_scene("matrix", *overrides, steps=StepRange(number, number))
    return scene, after_first


@pytest.mark.parametrize("overrides", [(), LARGEST, ("matrix.causal=true",), ("matrix.causal=true", "matrix.row=1")],
                         ids=["default", "largest", "causal", "causal_row_one"])
def test_the_bars_of_the_followed_row_exponentiate_then_normalise(overrides):
    """The bars after e^x (on the scale where the largest is 1: e^(x - max x)), then after ÷ their sum: the
    softmax of the followed row of QKᵀ/√d_k (matrix.row's), summing to 1, as numpy computes it here; the numbers
    under them agree."""
    settings = load_config(overrides=overrides).matrix
    matrices = {name: np.array(matrix, dtype=float) for name, matrix in settings.matrices().items()}
    Q, K = matrices["X"] @ matrices["W_Q"], matrices["X"] @ matrices["W_K"]
    followed = settings.followed_row()
    row = (Q @ K.T)[followed] / np.sqrt(K.shape[1])
    if settings.causal:
        row[followed + 1:] = -np.inf
    exponentials = np.exp(row - row.max())
    weights = exponentials / exponentials.sum()
    scene, after_first = exponentiated(*overrides)
    assert [step.key for step in scene.steps] == ["exponentiate"]
    moves = scene.moves
    np.testing.assert_allclose(after_first[0], exponentials, atol=1e-3)  # a bar of 0 keeps a hairline
    assert after_first[0].max() == pytest.approx(1.0)
    np.testing.assert_allclose(moves.heights(), weights, atol=1e-3)
    assert moves.heights().sum() == pytest.approx(1.0, abs=len(row) * 1e-3)
    step = scene.steps[0]
    np.testing.assert_allclose([float(text) for text in step.numbers["softmax_weights"][0]], weights, atol=5e-3)
    assert float(step.numbers["softmax_weights_sum"][0][0]) == pytest.approx(1.0)
    assert layout_problems(scene) == [] and legibility_problems(scene) == [] and notation_problems(scene) == []


def test_row_one_of_a_is_written_with_the_precision_of_a(default):
    """One precision per quantity: the exponentiate step writes row 1 of A as the softmax step writes A."""
    scene, _ = default
    written = {step.key: step.numbers for step in scene.steps}
    in_bars = written["exponentiate"]["softmax_weights"][0]
    assert in_bars == written["softmax"]["weights"][0]  # the same texts: 0.8816 in both, not 0.88 in one


def test_the_exponentiate_sounds_land_with_their_moves(default, want):
    """The exponentials as blips as the bars reach e^x, row 1 of A as the bars shrink to it."""
    scene, log = default
    step = next(step for step in scene.steps if step.key == "exponentiate")
    landed = {scene.cues[index].kind: (scene.cues[index], play) for (kind, index), (play_kind, play) in zip(log, log[1:])
              if kind == "cue" and play_kind == "play" and step.start <= scene.cues[index].time < step.end}
    row = want["scores"][0] / np.sqrt(2)
    values, first = landed["values"]
    assert values.values["values"] == pytest.approx(np.exp(row - row.max()).tolist())
    assert first.shows(scene.moves.top_line) and values.time == pytest.approx(first.end)  # the line at 1 comes with e^x
    weights, second = landed["row"]
    assert weights.values["weights"] == pytest.approx(want["weights"][0].tolist())
    assert ("softmax_weights", (0, 0)) in second.tags() and weights.time == pytest.approx(second.end)
