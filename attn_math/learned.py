"""Section 7: attention that was learned. A two-layer attention-only transformer (``attn_math.tiny_transformer``)
trained from a fixed seed on random tokens that repeat (``attn_math.induction_task``), measured on sequences whose
second half repeats the first.

A previous-token head forms in layer 1 and an induction head in layer 2, which finds, through the first, "the token
after the last occurrence of mine" and copies it; the loss on the repeated half then falls abruptly (Elhage et al.
2021, "A Mathematical Framework for Transformer Circuits"; Olsson et al. 2022, "In-context Learning and Induction
Heads"). ``train`` keeps checkpoints along the way and measures both kinds of heads (``attn_math.head_scores``) and
the two halves' losses on one evaluation batch at each.

Why the training data is not the repeated sequences themselves: with the copy always ``half`` positions back, one
head of layer 1 learned to copy by position alone (induction score 0.9 with no previous-token head, 2026-12-02); and
a period that restarts at position 0 leaves the later positions never read as "the token after" one, so the
previous-token head formed only at the early ones. ``training_sequences`` varies the period and where it starts.

    Adam:  m = b1 m + (1 - b1) g,   v = b2 v + (1 - b2) g^2,
           w = w - lr (m / (1 - b1^k)) / (sqrt(v / (1 - b2^k)) + eps)        at update k = 1, 2, ...
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from attn_math.head_scores import induction_score, previous_token_score
from attn_math.induction_task import repeated_sequences, training_sequences
from attn_math.tiny_transformer import (PARAMETER_NAMES, LearnedShape, Parameters, attention_patterns, forward,
                                        half_losses, initial_parameters, log_probabilities, loss_and_gradients)
from attn_math.validation import as_count, as_positive

__all__ = ["DEFAULTS", "LearnedShape", "Training", "array_shapes", "drop_step", "guessing_loss", "induction_head",
           "drop_start", "moments", "predicted_next", "previous_token_head", "train"]

# The config's defaults (assets/default.toml's [learned]). With them the circuit formed at seeds 0 to 4 alike (previous-
# token scores 0.91-0.98, induction scores 0.88-0.95, the drop between steps 1200 and 1600; 2026-12-02).
DEFAULTS = {"seed": 0, "steps": 2500, "vocabulary": 24, "sequence_length": 20, "heads": 4}
D_MODEL = 32
BATCH = 32
LEARNING_RATE = 4e-3
CHECKPOINTS = 48  # about: half spread over the whole run, half around the drop (some may coincide)
EVALUATION_SEQUENCES = 64
KEPT_WEIGHTS = 200  # weights kept during training, every steps / KEPT_WEIGHTS updates; checkpoints chosen among them
ADAM = (0.9, 0.999, 1e-8)  # b1, b2, eps
MIN_STEPS, MAX_STEPS = 100, 20000
MIN_HALF, MAX_HALF = 4, 16
MAX_VOCABULARY = 64
MAX_HEADS = 4
BUDGET_SECONDS = 60  # CPU seconds training may take at the most, on the reference machine
# CPU milliseconds of one update at sequence_length 20: a fixed part and a part per head, measured on 2026-12-02
# (2 cores shared with other work, numpy 2.4 with OpenBLAS); the attention's cost grows faster than the positions.
MILLISECONDS_PER_STEP, MILLISECONDS_PER_HEAD = 8.0, 0.6
CALM_SHARE = 0.05  # the loss still on its plateau: falling at most this share as fast as at the drop
INTEGER_ARRAYS = ("shape", "steps", "example", "evaluation")  # of Training.to_arrays; the others hold floats

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
        """ValueError unless every array has the shape and dtype this run's sizes give it (``array_shapes``), every
        number is finite, every token is in the vocabulary and the steps go from 0 to the number of updates."""
        arrays = self.to_arrays()
        for name, dims in array_shapes(self.shape, len(self.losses), len(self.checkpoints)).items():
            if arrays[name].shape != dims:
                raise ValueError(f"{name}: expected shape {dims}, got {arrays[name].shape}")
            kind = np.integer if name in INTEGER_ARRAYS else np.floating
            if not np.issubdtype(arrays[name].dtype, kind):
                raise ValueError(f"{name}: expected {kind.__name__} numbers, got {arrays[name].dtype}")
            if kind is np.floating and not np.all(np.isfinite(arrays[name])):
                raise ValueError(f"{name}: expected finite numbers, found NaN or infinity")
        for name in ("example", "evaluation"):
            if np.any(arrays[name] < 0) or np.any(arrays[name] >= self.shape.vocabulary):
                raise ValueError(f"{name}: expected tokens in 0..{self.shape.vocabulary - 1}")
        steps = self.steps
        if len(steps) < 3 or steps[0] != 0 or steps[-1] != len(self.losses) or np.any(np.diff(steps) <= 0):
            raise ValueError("steps: expected increasing steps from 0 to the number of updates, at least 3")


def array_shapes(shape: LearnedShape, updates: int, checkpoints: int) -> dict[str, tuple[int, ...]]:
    """The shape of every array of ``Training.to_arrays`` for a run of ``updates`` updates and ``checkpoints``
    checkpoints (C) of a model of ``shape``."""
    C, H, T = checkpoints, shape.heads, shape.sequence_length
    shapes = {"shape": (len(fields(LearnedShape)),), "steps": (C,), "losses": (updates,), "first_half_losses": (C,),
              "repeated_half_losses": (C,), "previous_token_scores": (C, H), "induction_scores": (C, H),
              "example": (T,), "evaluation": (EVALUATION_SEQUENCES, T)}
    shapes.update({f"checkpoint_{name}": (C, *dims) for name, dims in shape.parameter_shapes().items()})
    return shapes


def train(seed: int, steps: int, vocabulary: int, sequence_length: int, heads: int, *, d_model: int = D_MODEL,
          batch: int = BATCH, learning_rate: float = LEARNING_RATE, checkpoints: int = CHECKPOINTS) -> Training:
    """Train from ``seed`` for ``steps`` Adam updates, each on a fresh batch of ``training_sequences`` (a period
    repeated from a random place, longer than the sequences shown); measure about ``checkpoints`` checkpoints on
    one batch of repeated sequences of ``sequence_length``. The same arguments give the same arrays, bit for bit."""
    seed = as_count("seed", seed, 0, 2**32 - 1)
    steps = as_count("steps", steps, MIN_STEPS, MAX_STEPS)
    if as_count("sequence_length", sequence_length, 4) % 2:
        raise ValueError(f"sequence_length: expected an even number (two equal halves), got {sequence_length}")
    vocabulary = as_count("vocabulary", vocabulary, sequence_length, MAX_VOCABULARY)  # training_sequences' draws
    shape = LearnedShape(vocabulary, sequence_length // 2, d_model, heads)
    batch = as_count("batch", batch)
    learning_rate = as_positive("learning_rate", learning_rate)
    checkpoints = as_count("checkpoints", checkpoints, 3)
    weights_rng, data_rng, evaluation_rng = (np.random.default_rng([seed, stream]) for stream in range(3))
    params = initial_parameters(weights_rng, shape)
    optimizer = Adam(params, learning_rate)
    interval = max(1, steps // KEPT_WEIGHTS)
    kept = {0: copied(params)}
    losses = np.empty(steps)
    for update in range(1, steps + 1):
        losses[update - 1], grads = loss_and_gradients(params, training_sequences(data_rng, batch, vocabulary,
                                                                                  shape.half))
        params = optimizer.step(params, grads)
        if update % interval == 0 or update == steps:
            kept[update] = copied(params)
    evaluation = repeated_sequences(evaluation_rng, EVALUATION_SEQUENCES, vocabulary, shape.half)
    available = np.array(sorted(kept))
    gains = np.array([np.subtract(*half_losses(kept[step], evaluation)) for step in available])
    chosen = checkpoint_steps(available, gains, checkpoints)
    return measured(shape, np.array(chosen), losses, [kept[step] for step in chosen], evaluation)


class Adam:
    """Adam's running moments of every parameter's gradient (the formulas in the module docstring)."""

    def __init__(self, params: Parameters, learning_rate: float):
        self.learning_rate, self.updates = learning_rate, 0
        self.mean = {name: np.zeros_like(value) for name, value in params.items()}  # m
        self.square = {name: np.zeros_like(value) for name, value in params.items()}  # v

    def step(self, params: Parameters, grads: Parameters) -> Parameters:
        """The parameters after one update with the gradients ``grads``."""
        b1, b2, eps = ADAM
        self.updates += 1
        updated = {}
        for name, g in grads.items():
            self.mean[name] = b1 * self.mean[name] + (1 - b1) * g
            self.square[name] = b2 * self.square[name] + (1 - b2) * g * g
            mean, square = self.mean[name] / (1 - b1 ** self.updates), self.square[name] / (1 - b2 ** self.updates)
            updated[name] = params[name] - self.learning_rate * mean / (np.sqrt(square) + eps)
        return updated


def estimated_seconds(steps: int, sequence_length: int, heads: int) -> float:
    """CPU seconds ``train`` takes on the reference machine, about."""
    per_step = (MILLISECONDS_PER_STEP + MILLISECONDS_PER_HEAD * heads) / 1000 * (sequence_length / 20) ** 1.5
    return steps * per_step


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


def rise(steps: np.ndarray, gains: np.ndarray) -> tuple[int, int]:
    """The steps where the in-context gain (first-half loss - repeated-half loss, measured at ``steps``) last was
    below a tenth of its largest value before first reaching nine tenths of it: the drop happens in between. The
    first fall of the loss, from the random start to guessing any token, lowers both halves alike and is not in it."""
    top = gains.max()
    end = int(np.argmax(gains >= 0.9 * top))
    low = np.nonzero(gains[:end + 1] <= 0.1 * top)[0]
    return int(steps[low[-1] if len(low) else 0]), int(steps[end])


def fastest_fall(losses: np.ndarray, start: int, end: int) -> int:
    """The step between ``start`` and ``end`` where the training loss, averaged over windows of w = steps / 100
    updates, falls most from one window to the next (the middle of the two windows)."""
    width = max(1, len(losses) // 100)
    means = np.convolve(losses, np.ones(width) / width, mode="valid")  # means[k] = mean(losses[k : k + w])
    fall = means[width:] - means[:-width]  # fall[k]: from the window at k to the one at k + w; middle k + w
    first, last = max(0, start - width), max(0, min(len(fall) - 1, end - width))
    return first + int(np.argmin(fall[first:last + 1])) + width


def checkpoint_steps(available: np.ndarray, gains: np.ndarray, count: int) -> list[int]:
    """About ``count`` of the ``available`` steps (where ``gains`` was measured): half evenly over the run, half
    over the rise of the gain (``rise``) and a tenth of the run on either side; always 0 and the last."""
    start, end = rise(available, gains)
    last = available[-1]
    wanted = np.concatenate([np.linspace(0, last, count - count // 2),
                             np.linspace(start - last / 10, end + last / 10, count // 2)])
    nearest = np.abs(available[:, None] - wanted[None, :]).argmin(axis=0)
    return sorted({0, int(last), *available[nearest].tolist()})


def in_context_gains(training: Training) -> np.ndarray:
    """(C,) first-half loss - repeated-half loss at each checkpoint: what reading the earlier copy is worth."""
    return training.first_half_losses - training.repeated_half_losses


def drop_step(training: Training) -> int:
    """The step where the training loss falls fastest (smoothed) while the in-context gain rises (``rise``)."""
    return fastest_fall(training.losses, *rise(training.steps, in_context_gains(training)))


def drop_start(training: Training) -> int:
    """The step where the training loss starts to drop: the last before the drop step (``drop_step``) where the loss,
    averaged as ``fastest_fall`` averages it, falls less than CALM_SHARE as fast as at the drop. The in-context gain
    starts rising later than the loss bends (at 1116 with the defaults, the loss already 0.3 nats down)."""
    width = max(1, len(training.losses) // 100)
    means = np.convolve(training.losses, np.ones(width) / width, mode="valid")
    fall = means[width:] - means[:-width]  # fall[k]: from the window at k to the one at k + w; middle k + w
    drop = drop_step(training)
    steepest = fall[max(0, drop - width)]
    calm = np.nonzero(fall[:max(1, drop - width)] > CALM_SHARE * steepest)[0]
    return int(calm[-1]) + width if len(calm) else 0


def moments(training: Training) -> tuple[int, int, int]:
    """Checkpoint indices before, during and after the drop: the last at or before the loss starts to drop
    (``drop_start``) with the in-context gain still below a tenth of its largest, the one nearest the drop step, and
    the trained model (the last checkpoint: the heads as formed)."""
    start, _ = rise(training.steps, in_context_gains(training))
    during = int(np.argmin(np.abs(training.steps - drop_step(training))))
    calm = int(np.nonzero(training.steps <= max(drop_start(training), 0))[0][-1])
    before = min(calm, list(training.steps).index(start), max(0, during - 1))
    return before, during, len(training.steps) - 1


def previous_token_head(training: Training) -> int:
    """The layer-1 head with the highest previous-token score at the last checkpoint."""
    return int(np.argmax(training.previous_token_scores[-1]))


def induction_head(training: Training) -> int:
    """The layer-2 head with the highest induction score at the last checkpoint."""
    return int(np.argmax(training.induction_scores[-1]))


def guessing_loss(vocabulary: int) -> float:
    """ln V nats: the loss of a uniform guess among the V tokens."""
    return float(np.log(vocabulary))


def predicted_next(training: Training, checkpoint: int, position: int) -> tuple[int, float]:
    """The token checkpoint ``checkpoint`` predicts after ``position`` of the example, and its probability: the
    model's own log-probabilities."""
    log_p = log_probabilities(forward(training.checkpoints[checkpoint], training.example[None]).logits[0, position])
    best = int(np.argmax(log_p))
    return best, float(np.exp(log_p[best]))
