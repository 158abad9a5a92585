"""Section 7: attention that was learned. A two-layer attention-only transformer (``attn_math.tiny_transformer``)
trained from a fixed seed on random tokens whose second half repeats the first (``attn_math.induction_task``).

A previous-token head forms in layer 1 and an induction head in layer 2, which reads, through the first, "the
token after the last occurrence of mine" and copies it; the loss on the repeated half then falls abruptly
(Elhage et al. 2021; Olsson et al. 2022). ``train`` keeps checkpoints along the way and measures both heads'
scores (``attn_math.head_scores``) and the two halves' losses on one evaluation batch at each.

    Adam:  m = b1 m + (1 - b1) g,   v = b2 v + (1 - b2) g^2,
           w = w - lr (m / (1 - b1^k)) / (sqrt(v / (1 - b2^k)) + eps)        at update k = 1, 2, ...
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attn_math.head_scores import induction_score, previous_token_score
from attn_math.induction_task import periodic_sequences, repeated_sequences
from attn_math.tiny_transformer import (PARAMETER_NAMES, LearnedShape, Parameters, attention_patterns, forward,
                                        half_losses, initial_parameters, loss_and_gradients)
from attn_math.validation import as_count, as_positive

__all__ = ["LearnedShape", "Training", "drop_step", "induction_head", "moments", "previous_token_head", "train"]

D_MODEL = 32
BATCH = 64
LEARNING_RATE = 2e-3
CHECKPOINTS = 48  # about: half spread over the whole run, half around the drop (some may coincide)
EVALUATION_SEQUENCES = 64
KEPT_WEIGHTS = 200  # weights kept during training, every steps / KEPT_WEIGHTS updates; checkpoints chosen among them
ADAM = (0.9, 0.999, 1e-8)  # b1, b2, eps
MIN_STEPS, MAX_STEPS = 100, 20000
MIN_HALF, MAX_HALF = 4, 16
MAX_VOCABULARY = 64
MAX_HEADS = 4
BUDGET_SECONDS = 60  # CPU seconds training may take at the most, on the reference machine
SECONDS_PER_STEP = 10e-3  # measured at sequence_length 20 and 2 heads, 2026-12-02 (2 cores, numpy 2.4, OpenBLAS)


@dataclass(frozen=True)
class Training:
    """A training run: the loss at every step, and at each checkpoint the weights and what they do."""

    shape: LearnedShape
    steps: np.ndarray  # (C,) the updates done at each checkpoint, from 0 to the last
    losses: np.ndarray  # (steps,) the training batch's loss before each update
    first_half_losses: np.ndarray  # (C,) on the evaluation batch, nats
    repeated_half_losses: np.ndarray  # (C,)
    previous_token_scores: np.ndarray  # (C, H) layer 1's heads
    induction_scores: np.ndarray  # (C, H) layer 2's heads
    checkpoints: list = field(repr=False)  # C Parameters
    example: np.ndarray  # (T,) one repeated sequence: the one the section shows
    evaluation: np.ndarray  # (E, T) the repeated sequences every checkpoint is measured on

    def patterns(self, index: int) -> np.ndarray:
        """(layers, heads, T, T): the attention of checkpoint ``index`` on ``example``."""
        return attention_patterns(self.checkpoints[index], self.example)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Numbers only, for an .npz read back with allow_pickle=False: the checkpoints stacked per parameter."""
        shape = self.shape
        arrays = {"shape": np.array([shape.vocabulary, shape.half, shape.d_model, shape.heads, shape.layers])}
        for name in ("steps", "losses", "first_half_losses", "repeated_half_losses", "previous_token_scores",
                     "induction_scores", "example", "evaluation"):
            arrays[name] = getattr(self, name)
        for name in PARAMETER_NAMES:
            arrays[f"checkpoint_{name}"] = np.stack([checkpoint[name] for checkpoint in self.checkpoints])
        return arrays

    @classmethod
    def from_arrays(cls, arrays) -> "Training":
        """The inverse of ``to_arrays`` (a dict or an open NpzFile)."""
        shape = LearnedShape(*(int(size) for size in arrays["shape"]))
        stacked = {name: np.asarray(arrays[f"checkpoint_{name}"], dtype=float) for name in PARAMETER_NAMES}
        count = len(stacked["W_E"])
        checkpoints = [{name: stacked[name][index] for name in PARAMETER_NAMES} for index in range(count)]
        numbers = {name: np.asarray(arrays[name]) for name in ("steps", "losses", "first_half_losses",
                                                               "repeated_half_losses", "previous_token_scores",
                                                               "induction_scores", "example", "evaluation")}
        training = cls(shape=shape, checkpoints=checkpoints, **numbers)
        training.check()
        return training

    def check(self) -> None:
        """ValueError unless every array has the shape and dtype this run's sizes give it."""
        C, H, T = len(self.checkpoints), self.shape.heads, self.shape.sequence_length
        expected = {"steps": (C,), "first_half_losses": (C,), "repeated_half_losses": (C,),
                    "previous_token_scores": (C, H), "induction_scores": (C, H), "example": (T,),
                    "evaluation": (len(self.evaluation), T), "losses": (len(self.losses),)}
        for name, dims in expected.items():
            if getattr(self, name).shape != dims:
                raise ValueError(f"{name}: expected shape {dims}, got {getattr(self, name).shape}")
        for name in ("steps", "example", "evaluation"):
            if not np.issubdtype(getattr(self, name).dtype, np.integer):
                raise ValueError(f"{name}: expected integers, got {getattr(self, name).dtype}")
        if C < 3 or self.steps[0] != 0 or self.steps[-1] != len(self.losses) or np.any(np.diff(self.steps) <= 0):
            raise ValueError("steps: expected increasing steps from 0 to the number of updates, at least 3")
        for checkpoint in self.checkpoints:
            for name, dims in self.shape.parameter_shapes().items():
                if checkpoint[name].shape != dims:
                    raise ValueError(f"checkpoint {name}: expected shape {dims}, got {checkpoint[name].shape}")


def train(seed: int, steps: int, vocabulary: int, sequence_length: int, heads: int, *, d_model: int = D_MODEL,
          batch: int = BATCH, learning_rate: float = LEARNING_RATE, checkpoints: int = CHECKPOINTS,
          shortest_period: int | None = None, weight_decay: float = 0.0) -> Training:
    """Train from ``seed`` for ``steps`` Adam updates, each on a fresh batch of sequences that repeat with a period
    from ``shortest_period`` (default: half of a half) to half (``periodic_sequences``); measure about
    ``checkpoints`` checkpoints on repeated sequences. The same arguments give the same arrays, bit for bit."""
    seed = as_count("seed", seed, 0, 2**32 - 1)
    steps = as_count("steps", steps, MIN_STEPS, MAX_STEPS)
    if as_count("sequence_length", sequence_length, 4) % 2:
        raise ValueError(f"sequence_length: expected an even number (two equal halves), got {sequence_length}")
    shape = LearnedShape(vocabulary, sequence_length // 2, d_model, heads)
    batch = as_count("batch", batch)
    learning_rate = as_positive("learning_rate", learning_rate)
    checkpoints = as_count("checkpoints", checkpoints, 3)
    shortest_period = as_count("shortest_period", max(1, shape.half // 2) if shortest_period is None
                               else shortest_period, 1, shape.half)
    weights_rng, data_rng, evaluation_rng = (np.random.default_rng([seed, stream]) for stream in range(3))
    params = initial_parameters(weights_rng, shape)
    interval = max(1, steps // KEPT_WEIGHTS)
    kept = {0: copied(params)}
    losses = np.empty(steps)
    moments_1 = {name: np.zeros_like(value) for name, value in params.items()}
    moments_2 = {name: np.zeros_like(value) for name, value in params.items()}
    b1, b2, eps = ADAM
    for update in range(1, steps + 1):
        tokens = periodic_sequences(data_rng, batch, vocabulary, shape.sequence_length, shortest_period)
        losses[update - 1], grads = loss_and_gradients(params, tokens)
        for name, grad in grads.items():
            moments_1[name] = b1 * moments_1[name] + (1 - b1) * grad
            moments_2[name] = b2 * moments_2[name] + (1 - b2) * grad * grad
            params[name] = params[name] * (1 - learning_rate * weight_decay) - learning_rate * (moments_1[name] / (1 - b1 ** update)) / (
                np.sqrt(moments_2[name] / (1 - b2 ** update)) + eps)
        if update % interval == 0 or update == steps:
            kept[update] = copied(params)
    evaluation = repeated_sequences(evaluation_rng, EVALUATION_SEQUENCES, vocabulary, shape.half)
    chosen = checkpoint_steps(sorted(kept), losses, checkpoints)
    return measured(shape, np.array(chosen), losses, [kept[step] for step in chosen], evaluation)


def estimated_seconds(steps: int, sequence_length: int, heads: int) -> float:
    """CPU seconds ``train`` takes on the reference machine, about: each step's cost grows with the positions and
    the heads (SECONDS_PER_STEP at sequence_length 20 and 2 heads)."""
    return steps * SECONDS_PER_STEP * (sequence_length / 20) * (0.5 + heads / 4)


def copied(params: Parameters) -> Parameters:
    """A copy of the weights, read-only: a checkpoint."""
    result = {name: value.copy() for name, value in params.items()}
    for value in result.values():
        value.setflags(write=False)
    return result


def measured(shape: LearnedShape, steps: np.ndarray, losses: np.ndarray, checkpoints: list,
             evaluation: np.ndarray) -> Training:
    """The Training with each checkpoint's half losses and head scores on the evaluation batch."""
    halves, previous, induction = [], [], []
    for params in checkpoints:
        patterns = forward(params, evaluation).patterns  # (L, E, H, T, T)
        halves.append(half_losses(params, evaluation))
        previous.append(previous_token_score(patterns[0]))
        induction.append(induction_score(patterns[1], evaluation))
    first, repeated = np.array(halves).T
    return Training(shape, steps, losses, first, repeated, np.array(previous), np.array(induction), checkpoints,
                    example=evaluation[0], evaluation=evaluation)


def smoothed_fall(losses: np.ndarray) -> tuple[np.ndarray, int]:
    """The loss averaged over windows of w = steps / 40 updates, and w: fall[k] = mean(losses[k+w : k+2w])
    - mean(losses[k : k+w]) is how much the loss fell between two consecutive windows (negative: it fell)."""
    width = max(1, len(losses) // 40)
    means = np.convolve(losses, np.ones(width) / width, mode="valid")  # means[k] = mean(losses[k : k+w])
    return means[width:] - means[:-width], width


def fastest_fall(losses: np.ndarray) -> int:
    """The step where the smoothed loss falls fastest, after it first stopped falling (the first fall, from the
    random start to guessing among the tokens seen, is not the drop): the middle of the two windows of
    ``smoothed_fall`` that differ most."""
    fall, width = smoothed_fall(losses)
    settled = int(np.argmax(fall > fall.min() / 4))  # the first window pair after the start where the fall slows
    start = settled + int(np.argmax(fall[settled:] >= 0)) if np.any(fall[settled:] >= 0) else settled
    return start + int(np.argmin(fall[start:])) + width


def checkpoint_steps(available: list[int], losses: np.ndarray, count: int) -> list[int]:
    """About ``count`` of the ``available`` steps: half evenly over the run, half around the drop (within a tenth
    of the run on either side), always 0 and the last."""
    available = np.array(available)
    drop, last = fastest_fall(losses), available[-1]
    wanted = np.concatenate([np.linspace(0, last, count - count // 2),
                             np.linspace(drop - last / 10, drop + last / 10, count // 2)])
    nearest = np.abs(available[:, None] - wanted[None, :]).argmin(axis=0)
    return sorted({0, int(last), *available[nearest].tolist()})


def drop_step(training: Training) -> int:
    """The step where the training loss falls fastest (smoothed), after the first fall from the random start."""
    return fastest_fall(training.losses)


def moments(training: Training) -> tuple[int, int, int]:
    """Checkpoint indices before, during and after the drop: the last checkpoint still on the plateau before it
    (the smoothed loss within a tenth of the fall from its level a tenth of the run earlier), the one nearest the
    drop step, the first one after it within a tenth of the fall from the final level."""
    drop = drop_step(training)
    width = max(1, len(training.losses) // 40)
    smoothed = np.convolve(training.losses, np.ones(width) / width, mode="same")
    steps = np.minimum(training.steps, len(smoothed) - 1)
    high = smoothed[max(0, drop - len(smoothed) // 10)]
    low = smoothed[drop:].min()
    during = int(np.argmin(np.abs(training.steps - drop)))
    plateau = np.nonzero((smoothed[steps] >= high - (high - low) / 10) & (training.steps < training.steps[during]))[0]
    settled = np.nonzero((smoothed[steps] <= low + (high - low) / 10) & (training.steps > training.steps[during]))[0]
    before = int(plateau[-1]) if len(plateau) else max(0, during - 1)
    after = int(settled[0]) if len(settled) else min(len(training.steps) - 1, during + 1)
    return before, during, after


def previous_token_head(training: Training) -> int:
    """The layer-1 head with the highest previous-token score at the last checkpoint."""
    return int(np.argmax(training.previous_token_scores[-1]))


def induction_head(training: Training) -> int:
    """The layer-2 head with the highest induction score at the last checkpoint."""
    return int(np.argmax(training.induction_scores[-1]))
