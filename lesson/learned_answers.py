"""The learned section's questions and answers, as true of the lecturer's own training as of the default one.

The answers explain what a trained model does; whether this training got there is measured on it with the functions
the scene draws from (``attn_math.learned``): the field ``answer_variant`` names the ``answer_<variant>`` that holds
(the loss fell but no clean heads formed, the circuit did not form in the steps given, one head or every head
specialised, the model does not copy), and the fields quote its numbers as the screen writes them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from attn_math.learned import Training, drop_step, induction_head, moments, predicted_next, previous_token_head
from lesson.numbers import format_number

CLEAN = 0.5  # a head's score from which it does its job: half its attention where its role says (about 1/T when not)
HUNDREDS = 200  # a drop at this step or later comes after "cientos de pasos"


def question_fields(training: Training, position: int, letter: Callable[[int], str]) -> dict[str, dict]:
    """Fields for each step's question and answer: ``position`` is the token whose next one the mechanism follows
    (its earlier occurrence half a sequence before), ``letter`` writes a token as the screen does."""
    return {"loss": _loss(training), "messy": _specialised(training), "mechanism": _copy(training, position, letter)}


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


def _specialised(training: Training) -> dict:
    """How many of the trained heads do their layer's job (previous token in layer 1, induction in layer 2) with a
    score of CLEAN or more: some, one, all or none."""
    scores = np.concatenate([training.previous_token_scores[-1], training.induction_scores[-1]])
    clean = int(np.sum(scores >= CLEAN))
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
