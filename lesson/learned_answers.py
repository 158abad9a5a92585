"""The learned section's questions and answers, as true of the lecturer's own training as of the default one.

The answers explain what a trained model does; whether this training got there is measured on it with the functions
the scene draws from (``attn_math.learned``): the field ``answer_variant`` names the ``answer_<variant>`` that holds
(the loss fell but no clean heads formed, the circuit did not form in the steps given, one head or every head
specialised, the model does not copy), and the fields quote its numbers as the screen writes them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from attn_math.learned import (Training, drop_step, in_context_gains, induction_head, moments, predicted_next,
                                previous_token_head, rise)
from lesson.numbers import format_number

CLEAN = 0.5  # a head's score from which it does its job: half its attention where its role says (about 1/T when not)
HUNDREDS = 200  # a drop at this step or later comes after "cientos de pasos"
SUDDEN_SPAN = 0.1  # of the run: a fall within this span around the drop step...
SUDDEN_SHARE = 0.5  # ...that is at least this share of the loss's fall from the plateau to the end is "de golpe"


def question_fields(training: Training, position: int, letter: Callable[[int], str]) -> dict[str, dict]:
    """Fields for each step's question and answer: ``position`` is the token whose next one the mechanism follows
    (its earlier occurrence half a sequence before), ``letter`` writes a token as the screen does."""
    return {"loss": _loss(training), "messy": _specialised(training), "mechanism": _copy(training, position, letter)}


def loss_step(training: Training) -> str:
    """The loss step's caption: ``caption`` when the loss falls all at once (``sudden``), else ``caption_gradual``."""
    return "caption" if sudden(training) else "caption_gradual"


def sudden(training: Training) -> bool:
    """Whether the loss falls all at once: averaged over windows of a hundredth of the run (as ``drop_step``), it
    falls over the SUDDEN_SPAN of the run centred on the drop step by at least SUDDEN_SHARE of its fall from where the
    in-context gain starts to rise (the plateau after the first fall to guessing) to the end, and the repeated half
    ends under half the first half's loss (the fall happened: ``_loss``'s "partial" otherwise)."""
    losses = training.losses
    width = max(1, len(losses) // 100)
    means = np.convolve(losses, np.ones(width) / width, mode="valid")
    at = lambda step: float(means[min(max(step, 0), len(means) - 1)])  # noqa: E731
    start, _ = rise(training.steps, in_context_gains(training))
    drop, half_span = drop_step(training), max(1, round(SUDDEN_SPAN * len(losses) / 2))
    fall = at(start) - at(len(means) - 1)
    copied = training.repeated_half_losses[-1] < training.first_half_losses[-1] / 2
    return bool(copied and fall > 0 and at(drop - half_span) - at(drop + half_span) >= SUDDEN_SHARE * fall)


def _loss(training: Training) -> dict:
    """Whether the repeated half came to cost less than half the first half's loss (the model reads the earlier
    copy), through the two clean heads of the circuit, and after how many steps."""
    first, repeated = training.first_half_losses[-1], training.repeated_half_losses[-1]
    previous = training.previous_token_scores[-1, previous_token_head(training)]
    induction = training.induction_scores[-1, induction_head(training)]
    drop = drop_step(training)
    if repeated >= first / 2:
        variant = "partial"
    elif min(previous, induction) < CLEAN:
        variant = "other"
    else:
        variant = "early" if drop < HUNDREDS else None
    return {"steps": len(training.losses), "drop": drop, "first": format_number(first),
            "repeated": format_number(repeated), "previous": format_number(previous),
            "induction": format_number(induction), "answer_variant": variant}


def clean_heads(training: Training) -> tuple[list[int], list[int]]:
    """The heads of layer 1 and of layer 2 (0-based) that do their layer's job at the end of the training (the
    previous-token score in layer 1, the induction score in layer 2) with a score of CLEAN or more."""
    return tuple([int(head) for head in np.flatnonzero(scores[-1] >= CLEAN)]
                 for scores in (training.previous_token_scores, training.induction_scores))


def _specialised(training: Training) -> dict:
    """How many of the trained heads do their layer's job (``clean_heads``): some, one, all or none."""
    scores = np.concatenate([training.previous_token_scores[-1], training.induction_scores[-1]])
    clean = sum(len(heads) for heads in clean_heads(training))
    variant = {0: "none", 1: "one", len(scores): "all"}.get(clean)
    return {"count": len(scores), "best": format_number(scores.max()), "lowest": format_number(scores.min()),
            "answer_variant": variant}


def _copy(training: Training, position: int, letter: Callable[[int], str]) -> dict:
    """What the trained model predicts after ``position``, and what followed that token's earlier occurrence."""
    half = training.shape.half
    follower = training.example[position - half + 1]
    predicted, _ = predicted_next(training, moments(training)[-1], position)
    return {"token": letter(training.example[position]), "next": letter(follower), "predicted": letter(predicted),
            "answer_variant": None if predicted == follower else "miss"}
