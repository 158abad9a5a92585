"""How a number is written on screen: short, aligned, and the same in every section (no manim here)."""

from __future__ import annotations

import math

MINUS = "\u2212"  # a real minus sign, as wide as a digit in JetBrains Mono


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
    return text.replace("-", MINUS)


def decimals_for(values) -> int:
    """0 when every finite value is a whole number (a matrix of integers stays integers), else 2."""
    return 0 if all(float(v).is_integer() for v in values if math.isfinite(v)) else 2


def parse_number(text: str) -> float:
    """Inverse of format_number, for tests that read numbers back off the screen."""
    text = text.replace(MINUS, "-")
    if text.endswith("∞"):
        return -math.inf if text.startswith("-") else math.inf
    return float(text)
