"""The positional section's questions and answers, filled in from the lecturer's n_positions, d_model and base:
the periods of the waves, which columns change between neighbours, how far the slowest hand turns beside the
fastest, whether the similarity depends on where two positions are (an odd d's lone sine).

Where a claim holds only for some configs (a small base makes every frequency fast, d = 2 has one frequency),
the field ``variant`` (or ``answer_variant``) names the step's ``answer_<variant>`` that holds. The table of three
tokens with d = 4 is the notes' fixed example, the same for every config.
"""

from __future__ import annotations

import numpy as np

from attn_math.positional import angular_frequencies, hand_frequencies, similarity_by_distance, sinusoidal_encoding
from lesson.numbers import format_number
from lesson.questions import LONG_CONTEXT
from lesson.section_config import PositionalConfig

TABLE_ROWS = 6  # positions listed in the "frequencies" table
VISIBLE_CHANGE = 0.05  # a step between neighbours this large shows in two decimals: "cambia en cada paso"
SLOW_SHARE = 0.1  # a hand that turns less than this share of the fastest one's turn "barely moves"
SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten_text(value: float) -> str:
    """A number as the lesson writes it: format_number below 10^4, "2.0·10⁴" from there (not "2.0e4")."""
    if abs(value) < 1e4:
        return format_number(value)
    exponent = int(np.floor(np.log10(abs(value))))
    mantissa = round(value / 10.0 ** exponent, 1)
    if abs(mantissa) >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{format_number(mantissa, 1)}·10{str(exponent).translate(SUPERSCRIPTS)}"


def frequency_columns(d: int) -> tuple[int, ...]:
    """The sin column of the fastest pair and of the slowest one (just one when d < 3)."""
    last = d - 1 - (d - 1) % 2
    return (0, last) if last else (0,)


def visibly_changing(PE: np.ndarray, columns) -> list[bool]:
    """Per column, whether it changes visibly from one of the first TABLE_ROWS positions to the next."""
    steps = np.abs(np.diff(PE[:TABLE_ROWS][:, list(columns)], axis=0))
    return [bool(step.max(initial=0.0) >= VISIBLE_CHANGE) for step in steps.T]


def second_start(n_positions: int) -> int:
    """The second starting position the clock hands and the similarity curves are compared from."""
    return max(1, n_positions // 4)


def question_fields(settings: PositionalConfig) -> dict[str, dict]:
    """Fields for each step's question and answer."""
    n, d, base = settings.n_positions, settings.d_model, settings.base
    return {"frequencies": _frequencies(sinusoidal_encoding(n, d, base), base), "waves": _waves(d, base),
            "clock_hands": _hands(d, base), "similarity": _similarity(n, d, base)}


def _frequencies(PE: np.ndarray, base: float) -> dict:
    """Whether the slowest sin column barely moves between neighbours, as the step's table says."""
    columns = frequency_columns(PE.shape[1])
    variant = "one" if len(columns) == 1 else "all" if visibly_changing(PE, columns)[-1] else ""
    return {"d": PE.shape[1], "base": power_of_ten_text(base), "answer_variant": variant}


def _waves(d: int, base: float) -> dict:
    """The shortest and the longest period, and whether the longest reaches a long text (LONG_CONTEXT tokens)."""
    periods = 2 * np.pi / angular_frequencies(d, base)[::2]  # one per sin column
    variant = "one" if len(periods) == 1 else "" if periods[-1] >= LONG_CONTEXT else "short"
    return {"d": d, "base": power_of_ten_text(base), "count": len(periods), "shortest": power_of_ten_text(periods[0]),
            "longest": power_of_ten_text(periods[-1]), "long": LONG_CONTEXT, "answer_variant": variant}


def _hands(d: int, base: float) -> dict:
    """How far the slowest hand turns for each turn of the fastest: barely ("") or about as far ("close")."""
    omega = hand_frequencies(d, base)
    share = omega[-1] / omega[0]
    variant = "one" if len(omega) == 1 else "" if share < SLOW_SHARE else "close"
    return {"d": d, "base": power_of_ten_text(base), "share": format_number(share), "answer_variant": variant}


def odd_gap(n: int, d: int, base: float) -> float:
    """For an odd d, how far the curves from pos 0 and from the second start part at most (its lone sine's doing)."""
    span = n - second_start(n)
    return float(np.abs(similarity_by_distance(n, d, 0, base)[:span]
                        - similarity_by_distance(n, d, second_start(n), base)).max())


def odd_variant(n: int, d: int, base: float) -> str:
    """"odd" when an odd d's curves visibly part (their gap shows at two decimals), else "odd_close"."""
    return "odd_close" if format_number(odd_gap(n, d, base)) == format_number(0.0) else "odd"


def _similarity(n: int, d: int, base: float) -> dict:
    """For an odd d, how far the curves from pos 0 and from the second start part (its lone sine's doing)."""
    if d % 2 == 0:
        return {}
    return {"d": d, "second": second_start(n), "gap": format_number(odd_gap(n, d, base)),
            "answer_variant": odd_variant(n, d, base)}
