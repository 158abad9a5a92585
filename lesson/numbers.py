"""How a number is written on screen: short, aligned, and the same in every section (no manim here).

The decimal separator is the locale's ``numbers.decimal_separator`` ("." in both locales: the lesson writes
decimals as its sources do); every scene sets it from its job's locale before writing a number.
"""

from __future__ import annotations

import math
import re

import numpy as np

MINUS = "\u2212"  # a real minus sign, as wide as a digit in JetBrains Mono
DECIMAL = re.compile(r"(?<![\w.,])(\d+)\.(\d+)(?!\w)")  # 0.34 in a text, not 1.2.3 nor v1.2
HYPHEN_MINUS = re.compile(r"(?<![\w\u2212-])-(?=\d)")
_separator = "."


def use_decimal_separator(separator: str) -> None:
    """Write every number from now on with ``separator`` between its units and its decimals."""
    global _separator
    _separator = separator


def written_numbers(text: str, separator: str) -> str:
    """A text's decimals written with ``separator`` (0.34 -> 0,34 with ",") and a true minus before numbers."""
    return DECIMAL.sub(lambda match: f"{match[1]}{separator}{match[2]}", HYPHEN_MINUS.sub(MINUS, text))


def format_number(value: float, decimals: int = 2) -> str:
    """At most about five characters: -inf as −∞, large values shortened; ``decimals=0`` for integers."""
    if math.isinf(value):
        return f"{MINUS if value < 0 else ''}∞"
    if float(value).is_integer() and abs(value) < 1e4 and decimals == 0:
        text = f"{int(value)}"
    elif abs(value) < 10:
        text = f"{value:.{decimals}f}"
    elif abs(value) < 100:
        text = f"{value:.1f}"
    elif abs(value) < 1e4:
        text = f"{value:.0f}"
    else:
        text = f"{value:.1e}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")
    if text.lstrip("-").strip("0.") == "":
        text = text.lstrip("-")  # no "-0.00"
    return text.replace("-", MINUS).replace(".", _separator)


def decimals_for(values) -> int:
    """0 when every finite value is a whole number (a matrix of integers stays integers), else 2."""
    return 0 if all(float(v).is_integer() for v in values if math.isfinite(v)) else 2


def parse_number(text: str) -> float:
    """Inverse of format_number (with either separator), for tests that read numbers back off the screen."""
    text = text.replace(MINUS, "-").replace(",", ".")
    if text.endswith("∞"):
        return -math.inf if text.startswith("-") else math.inf
    return float(text)


def as_read(values, decimals: int | None = None) -> np.ndarray:
    """``values`` as a reader takes them off the screen: rounded as a matrix of them is written (with ``decimals``,
    or as many as the values need)."""
    values = np.asarray(values, dtype=float)
    decimals = decimals_for(values.flat) if decimals is None else decimals
    return np.vectorize(lambda value: parse_number(format_number(value, decimals)))(values)


def reproduces(result, reproduced, decimals: int | None = None) -> bool:
    """Whether the arithmetic redone on the numbers shown (``reproduced``) is written as the ``result`` shown is
    (both with ``decimals``, or as many as each needs): a student who checks an equation by hand finds it true, or
    else is told ≈."""
    return bool(np.array_equal(as_read(result, decimals), as_read(reproduced, decimals)))


def tex_relation(result, reproduced, decimals: int | None = None) -> str:
    """"=" or, when the numbers shown do not reproduce ``result`` (2 · 1.35 is 2.70, Q shows 2.69), "≈" (LaTeX)."""
    return "=" if reproduces(result, reproduced, decimals) else r"\approx"
