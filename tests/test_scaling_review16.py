"""Review s15 round 2 of the scaling section (graded 8, «close to a 9»).

- 1: «Con d_k = 8 … (k₂: 2.05 → 1.64)» stayed under the d_k = 64 row for 17 s, where k₂ reads 3.48; the second change
  of leader (k₇ at 64 → k₆ at 512) had no line at all.
- 3: Ejercicio 5's line gave only the unscaled half (1.20 → 0.01 bits); the divided half (2.56 → 2.41) was only boxed.
- 4: the voice said «sin dividir … todo o nada» while the frame moved to the divided column.
"""

from __future__ import annotations

import numpy as np
import pytest

from lesson.locale import load_locale
from lesson.numbers import format_number
from scenes.visuals import cap_height
from tests.scene_checks import PacedSpeaker, layout_problems, recorded
from tests.test_scene_scaling import by_hand
from tests.test_scaling_review15 import NEW_TERMS, PIXELS, recorded_scene, scene, step  # noqa: F401 (fixtures)


def leader(scene, d_k: int) -> int:
    settings = scene.settings
    return int(np.argmax(by_hand(d_k, settings.n_keys, settings.seed)["weights_unscaled"]))


def bits(weights) -> float:
    weights = np.asarray(weights, dtype=float)
    weights = weights[weights > 0]
    return float(-(weights * np.log2(weights)).sum())


def test_the_winner_line_leaves_when_d_k_moves_on(scene):
    """The growing step ends on its last d_k (64), where k₇ still leads as at 8: no line naming an earlier d_k's
    scores is left under that row."""
    last = scene.swept[-1]
    lines = [text.text for text in step(scene, "growing").texts if NEW_TERMS in text.text]
    assert all(line.startswith(f"d_k = {last}:") for line in lines), lines


def test_the_winner_line_goes_in_the_play_that_leaves_its_d_k(recorded_scene):
    """The d_k = 8 line fades out in the play that moves the readout from 8 to 64."""
    scene, log = recorded_scene
    line = scene.new_terms  # the growing step's line, at d_k = 8
    plays = [play for kind, play in log if kind == "play" and play.shows(line)]
    assert len(plays) == 2  # in, then out
    shown_d_k = {part.shown_text for animated in plays[1].animated for part in animated.get_family()
                 if getattr(part, "tag", None) == ("d_k", (0, 0))}
    assert "64" in shown_d_k


def test_the_switch_at_512_has_its_reason_beside_the_new_leader(recorded_scene):
    """k₇ leads at 64 and k₆ at 512 (from the draws): as the last sweep reaches 512, the same line (448 new products,
    k₇'s score at 64 and 512) comes in the unscaled panel, clear of the leading bar, inside the frame, ≥ 16 px."""
    scene, log = recorded_scene
    assert leader(scene, 64) != leader(scene, 512)
    settings = scene.settings
    scores = {d_k: by_hand(d_k, settings.n_keys, settings.seed)["scores_unscaled"] for d_k in (64, 512)}
    led = leader(scene, 64)
    line = scene.winner_lines[512]
    words = scene.winner_reasons[512]
    assert words.startswith("d_k = 512: cada q·k_j suma 448 productos nuevos")
    assert f"(k_{led + 1}: {format_number(scores[64][led])} → {format_number(scores[512][led])})" in words
    bar = scene.unscaled.chart.bars[leader(scene, 512)]
    assert line.get_right()[0] < bar.get_left()[0] or bar.get_right()[0] < line.get_left()[0]
    room = scene.unscaled.room
    assert room.get_bottom()[1] < line.get_bottom()[1] and line.get_top()[1] < scene.readout.get_bottom()[1]
    assert cap_height(line) * PIXELS >= 16
    arrival, *_ = [play for kind, play in log if kind == "play" and play.shows(line)]
    shown_d_k = {part.shown_text for animated in arrival.animated for part in animated.get_family()
                 if getattr(part, "tag", None) == ("d_k", (0, 0))}
    assert "512" in shown_d_k


def test_the_exercise_line_gives_both_halves(scene):
    """Under the summary table: the unscaled 8 → 64 entropies and the divided ones, computed here from the draws, in
    lines inside the frame, no smaller than the one line was, overlapping nothing."""
    settings = scene.settings
    drawn = {d_k: by_hand(d_k, settings.n_keys, settings.seed) for d_k in (8, 64)}
    unscaled = [format_number(bits(drawn[d_k]["weights_unscaled"])) for d_k in (8, 64)]
    scaled = [format_number(bits(drawn[d_k]["weights_scaled"])) for d_k in (8, 64)]
    [line] = [text for text in step(scene, "restored").texts if text.text.startswith("Ejercicio 5")]
    assert f"{unscaled[0]} → {unscaled[1]} bits" in line.text
    assert f"dividiendo, {scaled[0]} → {scaled[1]} bits" in line.text
    # one sample a row: the scaled column's drift is a draw's (since review s15 round 3 said on the line under the
    # table, test_scaling_review17)
    [noise] = [text for text in step(scene, "restored").texts if text.text.startswith("Columnas ÷ √d_k")]
    assert f"{settings.n_keys} claves" in noise.text
    assert line.cap_height * PIXELS >= 14.6
    assert -7.111 + 0.3 <= line.left and line.right <= 7.111 - 0.3 + 1e-3
    assert not [problem for problem in layout_problems(scene) if "Ejercicio" in problem]


@pytest.fixture(scope="module")
def paced():
    return recorded("scaling", narration=PacedSpeaker())


def test_the_divided_column_is_framed_after_the_voice_says_all_or_nothing(paced):
    """The voice's last two phrases: «… sin dividir …, todo o nada» (the undivided column framed with it), then
    the divided column framed with the last phrase, which does not speak of the undivided softmax."""
    scene, log = paced
    narration = load_locale("es")["scaling"]["steps"]["restored"]["narration"]
    collapse, verdict = narration.split("[[collapse]]")[1].split("[[noise]]")[0].split("[[verdict]]")  # (review s16: a
    # last phrase on the divided columns' noise follows)
    assert "todo o nada" in collapse and "sin dividir" in collapse
    assert "todo o nada" not in verdict and "sin dividir" not in verdict
    restored = step(scene, "restored")
    frames = [play for kind, play in log if kind == "play" and restored.start <= play.start
              and "Create" in play.kinds]
    *_, undivided, divided = frames
    starts = sorted(time for time, _ in scene.voices if time >= restored.start)
    assert divided.start == pytest.approx(starts[-2], abs=0.05)
    assert undivided.start == pytest.approx(starts[-3], abs=0.05)


def test_the_slope_line_is_set_large_and_clear_of_the_score_label(scene):
    """Review item 2: «p(1 − p) = ∂p/∂(q·k)» had 11 px lowercase. Since review s15 round 3 (test_scaling_review17) the
    derivative is the softmax's Jacobian in a line of its own under the scores: its scripts ≥ 16 px, under the score
    label (never read as one product with q·k_j, nor as its row's label), inside the frame, overlapping no text."""
    record = step(scene, "growing")
    [slope] = [text for text in record.texts if r"\partial p" in text.text]
    assert slope.cap_height * PIXELS >= 16
    [label] = [text for text in record.texts if text.text.startswith("q\\cdot k_j") or text.text == r"q\cdot k_j"]
    assert slope.top <= label.bottom
    assert slope.left >= -7.111 + 0.3
    assert not [problem for problem in layout_problems(scene) if r"\partial p" in problem]
