"""The pipeline section's questions and answers, filled in from the lecturer's own sentence, weights, query and
temperatures: the runs are the scene's (``attention``), so the handout quotes the numbers on screen.

Where a claim holds only for some examples (the lab's random weights leave a row flat, a low temperature
concentrates it, the fourth token spreads its weight), the field ``variant`` (or ``answer_variant``) names the
step's ``question_<variant>`` / ``answer_<variant>`` that holds for this one. Tokens are quoted as the screen
writes them (``attn_math.lab.spelled``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attn_math.dimensions import GUIDE_D_MODEL, GUIDE_HEADS, head_dimension, mean_row_entropy
from attn_math.lab import LAB_SENTENCES, LabAttention, lab_attention, output_spread, spelled
from attn_math.sharp import article_and_noun, preset_attention
from attn_math.attention import softmax
from lesson.numbers import as_read, format_number, parse_number, reproduces
from lesson.scaling_answers import root
from lesson.section_config import PipelineConfig

ALIKE_SPREAD = 0.25  # outputs closer than this (attn_math.lab.output_spread) are "almost identical"
ALIKE_RATIO = 1.5  # a row of weights whose largest is at most this times its smallest (of those not masked) looks flat
EXERCISE_TEMPERATURES = (0.5, 1.0, 3.0)  # the guide's exercise 2
CONCENTRATED = 0.5  # a row that gives one token at least this much has concentrated on it
NEARLY_ALL = 0.9  # a row that gives one token at least this much puts "nearly all" its weight on it
NEAR_MOST = 0.9  # of log₂ of the keys seen: an entropy this high spreads the weight about evenly
FOURTH = 3  # the guide's exercise 4 compares the first token with the fourth (the texts say so: four tokens seen)
SAME = 5e-3  # weights closer than this print the same with two decimals


def attention(settings: PipelineConfig, lang: str, temperature: float, causal: bool,
              preset: str | None = None) -> LabAttention:
    """The run of ``preset`` (default the configured one, with any custom weights), its roles read in ``lang``."""
    if preset is not None and preset != settings.preset:
        return preset_attention(preset, settings.sentence, temperature, causal, lang=lang)
    return preset_attention(settings.preset, settings.sentence, temperature, causal, settings.lab_weights(), lang=lang)


def question_fields(settings: PipelineConfig, lang: str, pieces: dict) -> dict[str, dict]:
    """Fields for each step's question and answer; ``pieces``: the locale's ``pipeline.answer_pieces``."""
    names = [spelled(token) for token in settings.tokens]
    run = attention(settings, lang, settings.temperature, settings.causal)
    kind, weights = weights_kind(settings, settings.preset), weights_name(settings, settings.preset, pieces)
    temperatures = _temperatures(settings, lang, names, pieces)
    little = kind == "lab" and not temperatures["concentrated"]  # step 5's "with the lab's random ones, little"
    return {"queries": {"answer_variant": kind},
            "scaled": {"answer_variant": "" if little else "others", "weights": weights},
            "scores": _scores(run, names, weights),
            "softmax": _exercise_1(settings, lang, names, pieces),
            "output": _output(run, names, settings.query),
            "temperature": temperatures,
            "temperature_plot": _exercise_2(settings, lang, names),
            "causal": _exercise_3(len(names)),
            "entropy": _exercise_4(attention(settings, lang, settings.temperature, True), names)}


def scaled_step(settings: PipelineConfig, d_k: int, divisor: float) -> tuple[str, dict]:
    """Step 5's caption (``caption_causal`` under the mask) and its fields: √d_k and √d_k · T written with "="
    when the number shown is exact, "≈" when it is rounded."""
    relation, root_written = root(d_k)
    written = format_number(divisor)
    return ("caption_causal" if settings.causal else "caption",
            {"d_k": d_k, "root": root_written, "relation": relation, "temperature": format_number(settings.temperature),
             "divisor": written, "divisor_relation": "=" if parse_number(written) == divisor else "≈"})


def temperature_caption(settings: PipelineConfig, coldest_max: float) -> str:
    """Step 9's caption: the lab's "low T barely concentrates it" while the coldest T leaves the query's top weight
    under CONCENTRATED, the designed weights' "nearly all on one token" once it reaches NEARLY_ALL (and a higher T
    is shown); else what the numbers show, of ``weights_name``'s weights (the lecturer's own: "your weights")."""
    kind = weights_kind(settings, settings.preset)
    if kind == "lab" and coldest_max < CONCENTRATED:
        return "caption"
    if kind == "sharp" and coldest_max >= NEARLY_ALL and len(set(settings.temperatures)) > 1:
        return "caption_sharp"
    return "caption_measured"


def written(value: float) -> float:
    """A number as the screen writes it (two decimals): √8 · T is written 2.83, and a student divides by that."""
    return parse_number(format_number(value))


def scaled_reproduces(steps) -> bool:
    """Whether step 5's scaled scores as written are step 4's scores as written divided by √d_k · T as written (the
    caption's ÷ 2.83), in every cell not masked: the lab divides unrounded numbers, so 0.296 / 2.828 is written 0.10
    where a student redoes 0.30 / 2.83 = 0.106, 0.11 (review s13: 4 of 49 cells, with no «≈» on screen)."""
    shown = ~np.asarray(steps.mask, dtype=bool)
    return reproduces(steps.scaled[shown], (as_read(steps.scores) / written(steps.divisor))[shown])


def redone_weights(scaled, temperature: float = 1.0, shown_at: float = 1.0) -> np.ndarray:
    """The softmax a student redoes from scaled scores as written (−∞ where masked) at T = ``shown_at``, taken to T =
    ``temperature`` (× shown_at / temperature, both as written): the masked «sienta» row's 0.02, 0.08, −0.12, 0.11
    give 0.21 to «se», where the lab's unrounded scores give 0.22; step 5's «gato» row at T = 0.20 gives a largest
    weight of 0.25, the lab's 0.24 (review s13)."""
    scores = np.asarray(scaled, dtype=float)
    finite = np.isfinite(scores)
    read = np.where(finite, as_read(np.where(finite, scores, 0.0)), -np.inf)
    return softmax(read * written(shown_at) / written(temperature))


@dataclass(frozen=True)
class Dimensions:
    """The guide's exercises 5 and 6 for a run of key size ``d_k``: its divisor √d_k against a real head's, d_model / h
    (64: the guide's d = 512, h = 8, and GPT-2's), and the head's d_k with twice the heads."""

    d_k: int
    d_model: int = GUIDE_D_MODEL
    heads: int = GUIDE_HEADS

    @property
    def model_d_k(self) -> int:
        return head_dimension(self.d_model, self.heads)

    @property
    def more_heads(self) -> int:
        return 2 * self.heads

    @property
    def more_heads_d_k(self) -> int:
        return head_dimension(self.d_model, self.more_heads)

    @property
    def growth(self) -> float:
        """How many times the real head's divisor is the run's: √(model d_k / d_k)."""
        return math.sqrt(self.model_d_k / self.d_k)

    def sharpness(self, n_keys: int, divided: bool = True) -> tuple[float, float]:
        """The mean entropy in bits of a row of ``n_keys`` weights, over rows whose q and keys are random
        ~ N(0, 1), scores divided by √d_k (``divided``) or not: at the run's d_k, and at the real head's
        (``attn_math.dimensions.mean_row_entropy``). Divided, about equal: each divisor undoes its own spread
        (exercise 5's "the same sharpness"); undivided, the larger d_k's wider scores give a much sharper row."""
        return tuple(mean_row_entropy(d_k, math.sqrt(d_k) if divided else 1.0, n_keys)
                     for d_k in (self.d_k, self.model_d_k))

    def fields(self) -> dict:
        """The step's caption and narration fields, √ written with "=" when exact, "≈" when rounded."""
        relation, written = root(self.d_k)
        return {"d_k": self.d_k, "relation": relation, "root": written, "model_d_k": self.model_d_k,
                "model_root": root(self.model_d_k)[1], "growth": format_number(self.growth),
                "d_model": self.d_model, "heads": self.heads, "more_heads": self.more_heads,
                "more_heads_d_k": self.more_heads_d_k}


@dataclass(frozen=True)
class SentenceReading:
    """Exercises 1 and 4 ("en cada oración") on one of the lab's sentences with the lab's weights: the article's
    weight on its noun and its row's largest (None without an article followed by a noun; no mask), and under the
    mask the entropy H = -Σ α log₂ α of the first token's row and of the fourth's (or the last)."""

    tokens: tuple[str, ...]
    article: tuple[int, int] | None
    article_weight: float | None
    article_max: float | None
    fourth: int
    first_bits: float
    fourth_bits: float


def lab_sentence_readings(temperature: float) -> list[SentenceReading]:
    """``SentenceReading`` of each of the lab's three sentences (attn_math.lab, seed 42) at ``temperature``."""
    readings = []
    for sentence in LAB_SENTENCES.values():
        free, masked = lab_attention(sentence, temperature), lab_attention(sentence, temperature, causal=True)
        pair = article_and_noun(sentence)
        fourth = min(FOURTH, len(free.tokens) - 1)
        readings.append(SentenceReading(
            tokens=tuple(spelled(token) for token in free.tokens), article=pair,
            article_weight=None if pair is None else float(free.weights[pair]),
            article_max=None if pair is None else float(free.max_weights[pair[0]]),
            fourth=fourth, first_bits=float(masked.entropies[0]), fourth_bits=float(masked.entropies[fourth])))
    return readings


def presets_caption(settings: PipelineConfig, lab_bits: float, most_bits: float) -> str:
    """Step 8's caption: "the lab is random, almost uniform" while the lab's side is its random weights and the
    query's row is near the most bits; the lecturer's own weights on either side (``caption_own_lab``,
    ``caption_own_sharp``), or a lab's row that is not flat (``caption_measured``), say only the numbers."""
    if settings.given_weights():
        return f"caption_own_{settings.preset}"
    return "caption" if lab_bits >= NEAR_MOST * most_bits else "caption_measured"


def article_caption(settings: PipelineConfig, exercise: dict) -> str:
    """Exercise 1's caption: "random weights cannot show it, the designed ones do" only when those are the two
    sides and the verdicts (``_exercise_1``) say so; else the two verdicts themselves."""
    random_fails = exercise["lab_kind"] != "yes" and exercise["sharp_kind"] == "yes"
    return "caption_measured" if settings.given_weights() or not random_fails else "caption"


def weights_kind(settings: PipelineConfig, preset: str) -> str:
    """Whose a preset's weights are: the lab's, the designed ones, or the lecturer's own ("own") in their place."""
    return "own" if preset == settings.preset and settings.given_weights() else preset


def weights_name(settings: PipelineConfig, preset: str, pieces: dict) -> str:
    """How the answers name a preset's weights: the lab's, the designed ones, or the lecturer's own."""
    return pieces[f"weights_{weights_kind(settings, preset)}"]


def flat(weights: np.ndarray) -> bool:
    """A row of weights (none masked) whose largest is at most ALIKE_RATIO times its smallest: it looks flat."""
    return bool(weights.max() <= ALIKE_RATIO * weights.min())


def temperature_text(value: float) -> str:
    """A temperature as the guide writes it: 0.2, 1, 3 (at most two decimals, no trailing zeros)."""
    return format_number(round(value, 2)).rstrip("0").rstrip(".") if value % 1 else format_number(value, 0)


def _scores(run: LabAttention, names: list[str], weights: str) -> dict:
    """The most compatible pair, the range of QKᵀ, and whether any pair stands out: "flat" when no row's scores,
    divided by √d_k, span more than ln ALIKE_RATIO (at T = 1 no key would get ALIKE_RATIO times another's weight)."""
    scores = run.steps.scores
    row, column = np.unravel_index(int(np.argmax(scores)), scores.shape)
    top, low = format_number(scores.max()), format_number(scores.min())
    spans = np.ptp(scores, axis=1).max() / math.sqrt(run.steps.d_k)
    variant = "equal" if top == low else "" if spans <= math.log(ALIKE_RATIO) else "spread"
    return {"row": names[row], "column": names[column], "top": top, "low": low, "weights": weights,
            "answer_variant": variant}


def _exercise_1(settings: PipelineConfig, lang: str, names: list[str], pieces: dict) -> dict:
    """Does the article attend to its noun? On each preset's weights (the lab's first), as step 6 asks."""
    pair = article_and_noun(settings.sentence, lang)
    if pair is None:
        return {"answer_variant": "none"}
    article, noun = pair
    sides = [_article_side(attention(settings, lang, settings.temperature, False, preset).weights[article],
                           article, noun, names, weights_name(settings, preset, pieces), pieces, first=k == 0)
             for k, preset in enumerate(("lab", "sharp"))]
    return {"lab": sides[0][1], "sharp": sides[1][1], "lab_kind": sides[0][0], "sharp_kind": sides[1][0]}


def _article_side(row: np.ndarray, article: int, noun: int, names: list[str], weights: str, pieces: dict,
                  first: bool) -> tuple[str, str]:
    """One preset's verdict, yes (the noun has the row's largest weight), flat (no, with a flat row) or no, and
    its sentence."""
    top = int(np.argmax(row))
    kind = "yes" if row[top] - row[noun] < SAME else "flat" if flat(row) else "no"
    template = pieces[f"exercise_{kind}" if first else f"exercise_also_{kind}"]
    return kind, template.format(weights=weights, article=names[article], noun=names[noun], top=names[top],
                                 weight=format_number(row[noun]), largest=format_number(row[top]))


def outputs_alike(run: LabAttention) -> bool:
    """Almost identical outputs (output_spread under ALIKE_SPREAD) of weights that look flat in every row, as step 7's
    ``_alike`` texts say: outputs alike because every row attends to one same token are not of uniform weights."""
    rows = [row[~masked] for row, masked in zip(run.weights, run.steps.mask)]
    return len(rows) > 1 and output_spread(run.steps) < ALIKE_SPREAD and all(map(flat, rows))


def _output(run: LabAttention, names: list[str], query: int) -> dict:
    """Almost identical outputs (as step 7's caption says), or where the query's output comes from."""
    row = run.weights[query]
    source = int(np.argmax(row))
    return {"query": names[query], "source": names[source], "share": format_number(row[source]),
            "answer_variant": "" if outputs_alike(run) else "spread"}


def _uniform(run: LabAttention, query: int) -> dict:
    """The uniform weight over the keys the query sees: 1/visible."""
    visible = int(np.count_nonzero(~run.steps.mask[query]))
    return {"visible": visible, "uniform": format_number(1 / visible)}


def _temperatures(settings: PipelineConfig, lang: str, names: list[str], pieces: dict) -> dict:
    """The query's largest weight at the coldest and the hottest configured temperature: whether the cold one
    concentrates it, on the lab's random weights or on others."""
    q, temperatures = settings.query, settings.temperatures
    coldest, hottest = min(temperatures), max(temperatures)
    cold, hot = (attention(settings, lang, t, settings.causal).max_weights[q] for t in (coldest, hottest))
    uniform = _uniform(attention(settings, lang, coldest, settings.causal), q)
    concentrated = cold >= CONCENTRATED
    random = settings.preset == "lab" and not settings.given_weights()
    near = hot <= ALIKE_RATIO / uniform["visible"]
    if coldest == hottest:
        variant = "single"
    elif format_number(cold) == format_number(hot):
        variant = "fixed"
    else:
        variant = "yes" if concentrated else "" if random else "no"
    return {"query": names[q], "coldest": temperature_text(coldest), "hottest": temperature_text(hottest),
            "coldest_max": format_number(cold), "hottest_max": format_number(hot), **uniform,
            "weights": weights_name(settings, settings.preset, pieces),
            "verdict": pieces["yes" if concentrated else "no"],
            "toward": pieces["near_uniform" if near else "toward_uniform"], "answer_variant": variant,
            "concentrated": concentrated}


def _exercise_2(settings: PipelineConfig, lang: str, names: list[str]) -> dict:
    """The query's largest weight at the guide's T = 0.5, 1 and 3."""
    q = settings.query
    runs = [attention(settings, lang, t, settings.causal) for t in EXERCISE_TEMPERATURES]
    values = [format_number(run.max_weights[q]) for run in runs]
    return {"query": names[q], **{f"max_{k}": value for k, value in enumerate(values)}, **_uniform(runs[0], q),
            "answer_variant": "fixed" if values[0] == values[-1] else ""}


def _exercise_3(n: int) -> dict:
    """Under the causal mask the first token loses every weight but its own; the last, none."""
    return {"first": n - 1, "n": n, "answer_variant": "one" if n == 1 else ""}


def _exercise_4(masked: LabAttention, names: list[str]) -> dict:
    """The first token's entropy (0 bits: it sees itself alone) against the fourth's (or the last's, in a shorter
    sentence), under the mask."""
    n = len(names)
    fourth = min(FOURTH, n - 1)
    seen = fourth + 1
    bits, most = float(masked.entropies[fourth]), math.log2(seen)
    if n == 1:
        variant = "one"
    elif n <= FOURTH:
        variant = "short"
    elif format_number(bits) == format_number(0.0):
        variant = "zero"
    else:
        variant = "" if bits >= NEAR_MOST * most else "concentrated"
    return {"first": names[0], "fourth": names[fourth], "seen": seen, "bits": format_number(bits),
            "most": format_number(most, 0 if most.is_integer() else 2), "answer_variant": variant}
