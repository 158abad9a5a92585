"""Section 7 (learned) against review s10 (frames-b, «07 learned», graded 8): «antes» is chosen on the loss curve
before it starts to fall; the copying floor's legend says what it counts (predictions made from a token not seen
before) in plain words; the trained heads' maps are large, their names clear of the frames round them; every weight
written in the mechanism is named; and the mechanism shows what the trained model predicts there."""

import re

import numpy as np
import pytest

from attn_math.induction_task import previous_occurrence, training_sequences
from learned_training import default_training
from lesson.numbers import parse_number
from scene_checks import run_scene

PIXELS_PER_UNIT = 1280 / 14.222  # at 720p


@pytest.fixture(scope="module")
def training():
    return default_training()


@pytest.fixture(scope="module")
def scene():
    return run_scene("learned")


def steps_of(scene) -> dict:
    return {step.key: step for step in scene.steps}


def lines_of(step) -> list[str]:
    return [text.text.replace("\n", " ") for text in step.texts]


def numbers_in(text: str) -> list[float]:
    return [float(number) for number in re.findall(r"\d+(?:\.\d+)?", text.replace("\u2212", "-"))]


def test_before_is_on_the_loss_plateau_not_inside_the_drop(scene, training):
    """The review: «antes, paso 1116» was already inside the drop (loss about 2.83, down from the 3.15 plateau) while
    the voice said «Antes de la caída». Read on the curve itself: the plateau is the median loss over the run's second
    tenth to third tenth, the settled loss the median of its last fifth; around the step written under «antes» (a
    window of a fiftieth of the run) the loss has fallen less than a tenth of the way from the one to the other, and
    the repeated half is no easier than the first there (nothing copied yet)."""
    losses = training.losses
    n = len(losses)
    plateau, settled = np.median(losses[n // 10:3 * n // 10]), np.median(losses[-n // 5:])
    written = [text for text in lines_of(steps_of(scene)["heads_forming"]) if text.startswith("paso ")]
    assert len(written) == 3
    before = int(numbers_in(written[0])[0])
    half_window = n // 100
    around = losses[max(0, before - half_window):before + half_window + 1].mean()
    assert around >= plateau - 0.1 * (plateau - settled), (before, around, plateau, settled)
    checkpoint = int(np.flatnonzero(training.steps == before)[0])
    assert training.repeated_half_losses[checkpoint] >= training.first_half_losses[checkpoint]
    assert before < int(numbers_in(written[1])[0])  # and still before «durante»


def test_the_floor_says_it_counts_predictions_made_from_a_new_token(scene, training):
    """Both reviewers read «16.25 de 29 sin copia» as off by one (position 0 is never a target). It counts predictions
    by the token they are made FROM: the prediction made at position j (of token j + 1) can copy only if token j
    occurred before. Counted here on rows drawn as training draws them; the legend says «predicciones» and «desde un
    token nuevo», its numbers are that count and its two parts (the stray tokens, the period's first pass), in at most
    four lines no wider than the legend's other entries allow (no line over 5 units: the old «+ 3.75 sueltos (0 a 20 −
    periodo)» was 4.7 and read as a formula)."""
    vocabulary, half = training.shape.vocabulary, training.shape.half
    rows = training_sequences(np.random.default_rng(5), 20000, vocabulary, half)
    earlier = previous_occurrence(rows)
    from_new = (earlier[:, :-1] < 0).sum(axis=1)  # predictions made at positions 0..T-2 from a token not seen before
    first_repeat = np.argmax(earlier >= 0, axis=1)
    period = first_repeat - earlier[np.arange(len(rows)), first_repeat]
    stray = first_repeat - period
    loss = steps_of(scene)["loss"]
    texts = [text for text in loss.texts if "predicciones" in text.text or "token nuevo" in text.text
             or "sueltos" in text.text or "copiando" in text.text]
    lines = [text.text.replace("\n", " ") for text in texts]
    assert len(lines) <= 4, lines
    why = [line for line in lines if "predicciones" in line]
    assert len(why) == 1
    counted, predictions = numbers_in(why[0])  # the price of each, ln V, is a number of its own on that line
    assert [parse_number(text) for row in loss.numbers["copying_guess"] for text in row] == [
        pytest.approx(np.log(vocabulary), abs=0.005)]
    assert counted == pytest.approx(from_new.mean(), abs=0.05)
    assert predictions == rows.shape[1] - 1
    assert any("desde un token nuevo" in line for line in lines), lines
    parts = [numbers_in(line) for line in lines if "sueltos" in line and "periodo" in line]
    assert len(parts) == 1
    assert parts[0] == [pytest.approx(stray.mean(), abs=0.1), pytest.approx(period.mean(), abs=0.1)]  # 20000 rows: SE 0.03
    assert sum(parts[0]) == pytest.approx(counted)
    assert max(text.right - text.left for text in texts) <= 5.0
