"""Review s15 round 3 of the scaling section (graded 8, «a strong 8»).

- 2: «p(1 − p) = ∂p/∂(q·k)» stood on the rows of the key labels and of the scores: «∂p/∂(q·k)  q·k_j  −5.53 …» read
  as if the scores were derivatives; and nothing said why the sum measures the gradient that gets through.
- 4: step 4's frame round «1 = e^{4.35}» and the largest bar ran 10 px under the axis and left k₈'s bar out.
- 6: the exponent «4.35» of «1 = e^{4.35}» was 15-16 px, the 2 of log₂ about 12 px.
- 3: the d_k = 8 row stood 1.5 s, its 17-word line 2.3 s: too short to read.
- 5: the summary table's divided columns (2.57 → 2.23) invited a trend that is one sample's noise.
- the lab's d_k = 8 and ÷ √d_k as a temperature were on no screen.
- 7: «de 2 a 512» was said 1.5 s before the widest cloud came.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from manim import MathTex

from lesson.locale import load_locale
from scenes.lesson_scene import LONGEST_FREEZE
from scenes.scaling import SWEEP_CHANGE
from tests.scene_checks import PacedSpeaker, layout_problems, recorded
from tests.test_scaling_review15 import PIXELS, recorded_scene, scene, step  # noqa: F401 (fixtures)

JACOBIAN = r"\delta_{ij}"
LEAST_PIXELS = 16


def glyphs(tex: MathTex) -> list:
    return [part for part in tex.family_members_with_points()]


def glyph_count(tex_string: str) -> int:
    return len(glyphs(MathTex(tex_string))) if tex_string.strip() else 0


def growing_texts(scene) -> list:
    return step(scene, "growing").texts


def test_no_derivative_stands_on_the_key_or_score_rows(scene):
    """No text of the growing step that writes a derivative shares a row (its vertical span) with the key labels or
    the score label «q·k_j», left of them: nothing reads «∂p/∂(q·k)  q·k_j  −5.53 …»."""
    texts = growing_texts(scene)
    [score_label] = [text for text in texts if text.text == r"q\cdot k_j"]
    keys = [text for text in texts if text.text == "k_1"]
    rows = [score_label, *keys]
    derivatives = [text for text in texts if r"\partial" in text.text]
    assert derivatives
    for derivative in derivatives:
        for row in rows:
            beside = derivative.bottom < row.top and row.bottom < derivative.top and derivative.right <= row.left
            assert not beside, (derivative.text, row.text)


def test_the_jacobian_line_says_why_the_sum_measures_the_gradient(scene):
    """One line under the scores, over the zero-gradient note, 16 px or more, writes the Jacobian p_i(δ_ij − p_j),
    says the sum is its trace (review s16: «diagonal» alone was not the sum) and that with one p ≈ 1 all of it is ≈ 0."""
    texts = growing_texts(scene)
    [formula] = [text for text in texts if JACOBIAN in text.text]
    assert r"p_i(\delta_{ij} - p_j)" in formula.text
    [score_label] = [text for text in texts if text.text == r"q\cdot k_j"]
    [before] = [text for text in texts if text.text.startswith("Σ p(1 − p) = traza")]
    [after] = [text for text in texts if "p ≈ 1" in text.text]
    [note] = [text for text in texts if text.text.startswith("Las demás")]
    for part in (formula, before, after):
        assert part.top < score_label.bottom and note.top < part.bottom
        assert part.cap_height * PIXELS >= LEAST_PIXELS
    assert before.right <= formula.left and formula.right <= after.left


def test_the_jacobian_terms_are_what_the_line_says():
    """For a one-hot-like row every entry p_i(δ_ij − p_j) is ≈ 0 (numpy, by central differences of the softmax), and
    the diagonal's sum is Σ p(1 − p)."""
    scores = np.array([-5.53, 3.48, -3.75, -6.51, -5.71, -6.60, 10.1, -9.62])

    def softmax(values):
        exponentials = np.exp(values - values.max())
        return exponentials / exponentials.sum()

    p, step_size = softmax(scores), 1e-6
    jacobian = np.column_stack([(softmax(scores + step_size * np.eye(8)[j]) - softmax(scores - step_size * np.eye(8)[j]))
                                / (2 * step_size) for j in range(8)])
    assert np.allclose(jacobian, np.diag(p) - np.outer(p, p), atol=1e-6)
    assert np.trace(jacobian) == np.sum(p * (1 - p)).round(8) or abs(np.trace(jacobian) - np.sum(p * (1 - p))) < 1e-6
    assert np.abs(jacobian).max() < 0.005


def frame_plays(log, beat_tex: str):
    return [play for kind, play in log if kind == "play"
            and any(isinstance(part, MathTex) and part.tex_string.startswith(beat_tex)
                    for animated in play.animated for part in animated.get_family())]


def test_the_scale_frame_stands_on_the_axis_round_every_bar(recorded_scene):
    """The frame drawn as the voice says «las dibujamos divididas por la mayor» reaches no lower than the axis, and
    spans every bar and the label «1 = e^{…}» of the line they are drawn against."""
    scene, log = recorded_scene
    moves = scene.moves[0]
    floor = moves.baseline.get_y()
    framed = [play for kind, play in log if kind == "play" and "Create" in play.kinds
              and play.start > step(scene, "exponentiate").start and play.end < step(scene, "exponentiate").end]
    [frame] = [animation.mobject for animation in framed[0].animations if type(animation).__name__ == "Create"]
    points = frame.get_all_points()
    assert points[:, 1].min() >= floor - 1e-6
    assert abs(points[:, 1].min() - floor) < 1e-6  # it stands on the axis
    left, right = points[:, 0].min(), points[:, 0].max()
    assert left <= min(bar.get_left()[0] for bar in moves.bars) and max(bar.get_right()[0] for bar in moves.bars) <= right


def test_small_scripts_are_16_px(recorded_scene):
    """The 2 of log₂ in the entropy's formula and the digits of «1 = e^{4.35}»'s exponent, measured on their glyphs,
    are 16 px tall or more at 720p."""
    scene, log = recorded_scene
    tops = {id(part): part for kind, play in log if kind == "play" for animated in play.animated
            for part in animated.get_family() if isinstance(part, MathTex)}
    entropy = [tex for tex in tops.values() if r"\log_" in tex.tex_string]
    one = [tex for tex in tops.values() if tex.tex_string.startswith("1 = e^")]
    assert entropy and one
    for tex in entropy:
        before = tex.tex_string[:tex.tex_string.index(r"\log_")]
        two = glyphs(tex)[glyph_count(before) + 3]  # l, o, g, then the 2
        assert two.height * PIXELS >= LEAST_PIXELS
    for tex in one:
        digits = glyphs(tex)[3:]  # 1, =, e, then the exponent
        assert min(glyph.height for glyph in digits if glyph.height > 0.05) * PIXELS >= LEAST_PIXELS


@pytest.fixture(scope="module")
def paced():
    """The scene spoken at the narration's pace: its holds are what is left of each step's time after the voice."""
    return recorded("scaling", narration=PacedSpeaker())


def test_the_d_k_8_line_is_short_and_stays_to_be_read(paced):
    """The line on why another key leads at d_k = 8 has at most 13 words and signs (it had 18) and is up 3.5 s or more; the row it explains
    stands settled 2.5 s or more (no still over the longest allowed)."""
    scene, log = paced
    line = scene.new_terms
    assert len(line.shown_text.split()) <= 13, line.shown_text
    arrival, departure = [play for kind, play in log if kind == "play" and play.shows(line)]
    assert departure.start - arrival.start >= 3.5
    settled = departure.start - arrival.end
    assert 2.5 <= settled <= LONGEST_FREEZE


def test_the_table_says_its_divided_columns_are_one_sample_noise(scene):
    """Review item 5: under the summary table a line, 16 px or more, says the divided columns differ by the noise of one
    sample of n_keys keys, with the mean over many rows at each d_k: recomputed here with numpy (another seed), each
    shown bound within 0.05 of it, and the range narrower than the one sample's drift in the divided column."""
    settings = scene.settings
    [line] = [text for text in step(scene, "restored").texts if text.text.startswith("Columnas ÷ √d_k")]
    assert f"una muestra de {settings.n_keys} claves" in line.text
    assert line.cap_height * PIXELS >= LEAST_PIXELS
    rng = np.random.default_rng(12345)
    entropies, slopes = [], []
    for d_k in scene.dimensions:
        q = rng.standard_normal((1000, 1, d_k))
        k = rng.standard_normal((1000, settings.n_keys, d_k))
        scores = (q * k).sum(-1) / np.sqrt(d_k)
        p = np.exp(scores - scores.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        entropies.append(float((-(p * np.log2(p)).sum(axis=1)).mean()))
        slopes.append(float((p * (1 - p)).sum(axis=1).mean()))
    numbers = [float(word) for word in re.findall(r"\d\.\d\d", line.text)]
    low, high, slope_low, slope_high = numbers
    assert abs(low - min(entropies)) < 0.05 and abs(high - max(entropies)) < 0.05
    assert abs(slope_low - min(slopes)) < 0.05 and abs(slope_high - max(slopes)) < 0.05
    shown = [float(value) for row in step(scene, "restored").numbers["summary_entropy_scaled"] for value in row]
    assert high - low < max(shown) - min(shown)


def test_the_lab_line_names_its_d_k_and_the_temperature(scene):
    """Review item 6: over the summary table, 16 px or more, the lab's d_k = 8 (guide §5.1, Paso 5) and ÷ √d_k as a
    temperature T = √d_k (§5.3), overlapping nothing."""
    texts = step(scene, "restored").texts
    [line] = [text for text in texts if text.text.startswith("En el laboratorio")]
    assert "d_k = 8" in line.text and "Paso 5" in line.text and "T = √d_k" in line.text and "§5.3" in line.text
    assert line.cap_height * PIXELS >= LEAST_PIXELS
    [header] = [text for text in texts if text.text == "entropía (bits)"]
    assert header.top < line.bottom
    assert not [problem for problem in layout_problems(scene) if "laboratorio" in problem]


def test_the_largest_d_k_is_said_as_its_cloud_comes(paced):
    """Review item 7: «de 2 a 512» ended 1.5 s before the widest cloud came. The phrase naming the largest d_k starts
    with the play that moves the cloud to it (the last of the sweep's moves)."""
    scene, log = paced
    record = step(scene, "spread")
    phrases = sorted(time for time, _ in scene.voices if record.start <= time < record.end)
    moves = [play for kind, play in log if kind == "play" and record.start <= play.start < record.end
             and not play.waits and abs(play.end - play.start - SWEEP_CHANGE) < 1e-6]
    widest = moves[len(scene.dimensions)]  # after the table's change and the cloud's arrival, one move a d_k
    assert any(abs(time - widest.start) < 0.05 for time in phrases), (phrases, widest.start)
    narration = load_locale("es")["scaling"]["steps"]["spread"]["narration"]
    assert "{high}" in narration.split("[[widest]]")[1].split("[[")[0]
