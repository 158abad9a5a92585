"""Where the learned section's training loss can fall to by copying: the loss of a model that copies every token it
can and guesses the others (``attn_math.induction_task.training_sequences``' rows, the loss the curve plots).

A row of 3 half tokens has a period p, uniform on half/2..2 half, that starts repeating after m + p fresh tokens, m
uniform on 0..2 half - p. Target j (j = 1..3 half - 1) can be copied only when its current token x_{j-1} occurred
before, i.e. j - 1 >= m + p: the first m + p targets cannot, and cost ln V each to a model that guesses them among the
V tokens; the others cost nothing to one that copies.

    uncopyable = E[m + p] = E[m] + E[p] = half + E[p] / 2          floor = uncopyable / (3 half - 1) * ln V

Not a bound: a model can do a little better on the uncopyable targets by not guessing the tokens already seen.
"""

from __future__ import annotations

import numpy as np

from attn_math.induction_task import previous_occurrence, training_sequences, training_shape


def uncopyable_targets(half: int) -> float:
    """E[m + p]: the mean number of a training row's targets whose current token has not occurred before."""
    _, shortest, longest = training_shape(half)
    periods = np.arange(shortest, longest + 1)
    return float(np.mean([np.mean(np.arange(0, 2 * half - period + 1) + period) for period in periods]))


def targets(half: int) -> int:
    """The predictions a training row of 3 half tokens is scored on: every position but the last."""
    length, _, _ = training_shape(half)
    return length - 1


def copying_loss(vocabulary: int, half: int) -> float:
    """The mean loss of a model that copies every target it can and guesses the others uniformly (nats)."""
    return uncopyable_targets(half) / targets(half) * float(np.log(vocabulary))


def mean_period(half: int) -> float:
    """E[p]: the mean period of a training row, p uniform on half/2..2 half (12.5 for half 10)."""
    _, shortest, longest = training_shape(half)
    return (shortest + longest) / 2


def mean_lead(half: int) -> float:
    """E[m]: the mean number of fresh tokens before the period starts, m uniform on 0..2 half - p for each p (3.75
    for half 10). The uncopyable targets are these and the period's first pass: E[m + p] = mean_lead + mean_period."""
    _, shortest, longest = training_shape(half)
    return float(np.mean([(2 * half - period) / 2 for period in range(shortest, longest + 1)]))


def lead_and_period(row) -> tuple[int, int]:
    """(m, p) of one ``training_sequences`` row: its first repeated token's position minus its previous occurrence's
    is the period p, and the tokens before the period's first pass are the m stray ones. (len, 0) if nothing repeats."""
    earlier = previous_occurrence(np.asarray(row))
    repeats = np.flatnonzero(earlier >= 0)
    if not len(repeats):
        return len(earlier), 0
    first = int(repeats[0])
    period = first - int(earlier[first])
    return first - period, period


def typical_row(rng: np.random.Generator, vocabulary: int, half: int, lead: int, period: int,
                candidates: int = 512) -> np.ndarray:
    """A training row (``training_sequences``) whose stray lead and period are as near ``lead`` and ``period`` as
    ``candidates`` rows drawn with ``rng`` allow: one row to show what the means count."""
    rows = training_sequences(rng, candidates, vocabulary, half)
    distance = [abs(m - lead) + abs(p - period) for m, p in map(lead_and_period, rows)]
    return rows[int(np.argmin(distance))]
