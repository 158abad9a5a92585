"""Reading a printed answer back: which of its step's locale texts it is, and what was filled into each field.

The tests of the sections whose answers follow the lecturer's example (tests/test_<section>_answers.py) check
what an answer says, field by field, against their own arithmetic: this turns the answer back into those fields
from the locale's text alone, without the code that filled it in.
"""

from __future__ import annotations

import re
from string import Formatter

from lesson.numbers import written_numbers

NUMBER = re.compile(r"−?\d+(?:\.\d+)?(?:·10⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?")
SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def pattern(template: str, separator: str = ".") -> re.Pattern:
    """``template`` as a regular expression: each ``{field}`` a group (a field used twice must read the same)."""
    parts, seen = [], set()
    for literal, name, _, _ in Formatter().parse(template):
        parts.append(re.escape(written_numbers(literal, separator)))
        if name is not None:
            parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
            seen.add(name)
    return re.compile("".join(parts), re.DOTALL)


def read_back(text: str, strings: dict, part: str = "answer") -> tuple[str, dict[str, str]]:
    """(variant, fields) of the step's ``part`` texts (``answer``, ``answer_<variant>``) that reads as ``text``;
    variant "" for the plain ``answer``. Fails when none does."""
    for key, template in strings.items():
        if key == part or key.startswith(f"{part}_"):
            found = pattern(template).fullmatch(text)
            if found:
                return key[len(part) + 1:], found.groupdict()
    raise AssertionError(f"no {part} text of the step reads as: {text}")


def numbers(text: str) -> list[tuple[float, float]]:
    """Every number written in ``text`` (2.0·10⁴ too), with how far from it a value may be and still be written so."""
    values = []
    for found in NUMBER.findall(text):
        mantissa, _, power = found.replace("−", "-").partition("·10")
        scale = 10.0 ** int(power.translate(SUPERSCRIPT)) if power else 1.0
        values.append((float(mantissa) * scale, 0.5 * 10 ** -len(mantissa.partition(".")[2]) * scale * 1.0001))
    return values


def written_as(written: tuple[float, float], value: float) -> bool:
    """``value`` written to the digits shown gives ``written``."""
    return abs(written[0] - value) <= written[1]
