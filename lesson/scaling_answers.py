"""The scaling section's questions and answers, filled in from the numbers of the lecturer's own d_k, seed and keys.

The scene computes, for every d_k it shows (``dimensions``: its sweep and the configured one), the demo of
``attn_math.scaling.scaling_demo`` and the measured deviation of ``score_deviation``; the answers quote those, as the
table and the panels write them. Where a claim holds only for some configs (the softmax growing sharper at every
step, a collapse to 1.00), the field ``answer_variant`` names the ``answer_<variant>`` that holds for this one.
"""

from __future__ import annotations

import math
from itertools import pairwise

from attn_math.scaling import ScalingDemo
from lesson.numbers import format_number, parse_number

SHRUNK_DECIMALS = 3  # q·k divided by d_k: 8/64 = 0.125
COLLAPSED = 0.99  # a largest weight above this is shown as 1.00: one key takes it all
EXERCISE = (8, 64)  # the guide's exercise 5: the lab's d_k, then GPT-2's


def root(value: float) -> tuple[str, str]:
    """(relation, √value as written): ("=", "8") for a perfect square, else ("≈", "7.07") as the table writes it."""
    whole = math.isqrt(int(value)) if float(value).is_integer() else -1
    if whole * whole == value:
        return "=", str(whole)
    return "≈", format_number(math.sqrt(value))


def scaled_step(d_k: int, demo: ScalingDemo) -> tuple[str, dict]:
    """The scaled step's caption (``caption``: √d_k exact; ``caption_rounded``: rounded, "≈") and its fields."""
    relation, written = root(d_k)
    return ("caption" if relation == "=" else "caption_rounded",
            {"d_k": d_k, "root": written, "before": format_number(demo.entropy_unscaled),
             "after": format_number(demo.entropy_scaled)})


def exercise_fields(demos: dict[int, ScalingDemo]) -> dict:
    """The guide's exercise 5 read off the sweep's rows d_k = 8 and 64: √d_k grows √(64/8) ≈ 2.83 times, as the
    deviation of q·k does, and each softmax's entropy (bits), unscaled and divided, from its row at 8 to its row at
    64: one row of ``n_keys`` random keys each, a sample (its entropy varies from draw to draw)."""
    low, high = EXERCISE
    return {"exercise_low": low, "exercise_high": high, "factor": root(high // low)[1],
            "unscaled_low": format_number(demos[low].entropy_unscaled),
            "unscaled_high": format_number(demos[high].entropy_unscaled),
            "scaled_low": format_number(demos[low].entropy_scaled),
            "scaled_high": format_number(demos[high].entropy_scaled), "n_keys": len(demos[low].scores)}


def question_fields(d_k: int, demos: dict[int, ScalingDemo], deviations: dict[int, float]) -> dict[str, dict]:
    """Fields for each step's question and answer: ``demos`` and ``deviations`` by d_k, every d_k the section
    shows (the configured ``d_k`` among them)."""
    growing = {size: demos[size] for size in swept(d_k, demos)}
    return {"variance": _measured(d_k, deviations), "growing": _sharpening(growing),
            "scaled": _divided_by_d_k(d_k), "restored": exercise_fields(demos)}


def swept(d_k: int, demos: dict[int, ScalingDemo]) -> list[int]:
    """The d_k the unscaled softmax is swept through, smallest first: up to the configured ``d_k`` if its softmax
    collapses there (COLLAPSED), else on to the first larger one that does (none: every one), so the sweep ends on
    the collapse the next step frames; past the first d_k at least, so that d_k grows once."""
    dimensions = sorted(demos)
    collapsing = [size for size in dimensions[1:] if size >= d_k and demos[size].weights_unscaled.max() > COLLAPSED]
    end = collapsing[0] if collapsing else dimensions[-1]
    return dimensions[:dimensions.index(end) + 1]


def _measured(d_k: int, deviations: dict[int, float]) -> dict:
    """The table's measured deviation at the configured d_k, beside √d_k."""
    relation, written = root(d_k)
    return {"d_k": d_k, "deviation": format_number(deviations[d_k]), "relation": relation, "root": written}


def _sharpening(demos: dict[int, ScalingDemo]) -> dict:
    """The largest unscaled weight, as the bars write it, at the sweep's first and last d_k; and whether it grew at
    every step (to 1.00, all of it, or not), only overall, or not at all."""
    dimensions = sorted(demos)
    tops = [format_number(demos[size].weights_unscaled.max()) for size in dimensions]
    values = [parse_number(top) for top in tops]
    if values[-1] <= values[0]:
        variant = "flat"
    elif any(later < earlier for earlier, later in pairwise(values)):
        variant = "uneven"
    else:
        variant = None if values[-1] == 1 else "most"
    return {"low": dimensions[0], "high": dimensions[-1], "top_low": tops[0], "top": tops[-1],
            "answer_variant": variant}


def _divided_by_d_k(d_k: int) -> dict:
    """The deviation √d_k divided by d_k instead: 8/64 = 0.125 (nothing changes at d_k = 1)."""
    relation, written = root(d_k)
    exact = float(written) / d_k if relation == "=" else 1 / math.sqrt(d_k)
    shrunk = round(exact, SHRUNK_DECIMALS)
    return {"d_k": d_k, "root": written, "shrunk": f"{shrunk:.{SHRUNK_DECIMALS}f}",
            "shrink_relation": "=" if relation == "=" and math.isclose(exact, shrunk) else "≈",
            "answer_variant": "one" if d_k == 1 else None}
