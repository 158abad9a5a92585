"""The learned section says the loss "cae de golpe" only of a training whose loss does: for random small trainings
the loss step's caption and narration (the variant ``lesson.learned_answers.loss_step`` picks, as the scene does)
against the definition computed here with plain loops: averaged over windows of a hundredth of the run, the loss
falls over the tenth of the run centred on the drop step by at least half of its fall from the plateau (where the
in-context gain was last under a tenth of its largest) to the end, and the repeated half ends under half the first
half's loss. "ln V = …" is never exact: the caption says "≈"."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from attn_math import learned
from learned_training import default_training
from lesson.learned_answers import loss_step
from lesson.locale import load_locale
from lesson.narration_phrases import plain
from lesson.section_config import LearnedConfig
from test_learned_answers import SMALL, training_of

SUDDEN = {"es": "de golpe", "en": "drops suddenly"}
NOT_SUDDEN = {"es": "no cae de golpe", "en": "does not drop suddenly"}


def sudden_by_hand(training: learned.Training) -> bool:
    losses, steps = training.losses.tolist(), training.steps.tolist()
    gains = [a - b for a, b in zip(training.first_half_losses.tolist(), training.repeated_half_losses.tolist())]
    if max(gains) <= 0:  # the repeated half never cost less than the first: nothing was copied, nothing dropped
        return False
    end = next(k for k, gain in enumerate(gains) if gain >= 0.9 * max(gains))
    lows = [k for k in range(end + 1) if gains[k] <= 0.1 * max(gains)]
    plateau = steps[lows[-1] if lows else 0]
    width = max(1, len(losses) // 100)
    windows = len(losses) - width + 1

    def mean(step: int) -> float:  # of losses[step : step + width], the step kept inside the run
        step = min(max(step, 0), windows - 1)
        return sum(losses[step:step + width]) / width

    half = max(1, round(len(losses) / 20))
    drop = learned.drop_step(training)  # where it is: test_learned_answers checks it by hand
    fall = mean(plateau) - mean(windows - 1)
    copied = training.repeated_half_losses[-1] < training.first_half_losses[-1] / 2
    return bool(copied and fall > 0 and mean(drop - half) - mean(drop + half) >= 0.5 * fall)


def loss_texts(training: learned.Training, language: str) -> tuple[str, str]:
    strings = load_locale(language)["learned"]["steps"]["loss"]
    key = loss_step(training)
    return plain(strings[key]), plain(strings[key.replace("caption", "narration", 1)])  # as read and said


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=SMALL, language=st.sampled_from(sorted(SUDDEN)))
@example(config=LearnedConfig(seed=975, steps=500, vocabulary=18, sequence_length=8, heads=1), language="es")
@example(config=LearnedConfig(seed=914, steps=100, vocabulary=9, sequence_length=8, heads=2), language="en")
@example(config=LearnedConfig(seed=36830, steps=100, vocabulary=9, sequence_length=8, heads=1), language="en")
def test_the_loss_drops_suddenly_only_where_it_does(config, language):
    training = training_of(config)
    caption, narration = loss_texts(training, language)
    if sudden_by_hand(training):
        assert SUDDEN[language] in caption and SUDDEN[language] in narration
        assert NOT_SUDDEN[language] not in narration
    else:
        assert SUDDEN[language] not in caption and NOT_SUDDEN[language] in narration
    assert f"ln {{vocabulary}} ≈" in caption


def test_the_default_training_drops_suddenly():
    assert sudden_by_hand(default_training()) and loss_step(default_training()) == "caption"
