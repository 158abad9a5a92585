"""Hints for the usual slips in config input (a misspelt name, a decimal comma, a quoted number), and how an error
line quotes a user's value."""

from __future__ import annotations

import difflib
import re

DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
QUOTE_LIMIT = 80  # characters of a user's value an error line quotes: enough to recognise it, never a screenful


def shown(value: object) -> str:
    """``value`` as an error line quotes it: its repr, clipped (a 250,000-character --set value was once
    echoed whole)."""
    return clipped(repr(value))


def clipped(text: str) -> str:
    """``text``, or past QUOTE_LIMIT characters its start and end around "…" and how long it is."""
    if len(text) <= QUOTE_LIMIT:
        return text
    half = QUOTE_LIMIT // 2
    return f"{text[:half]}…{text[-half:]} ({len(text):,} characters)"


def suggestion(word: str, choices: list[str]) -> str:
    """"; did you mean 'X'?" for the choice that differs only in case, else the closest one; else the list."""
    same = [choice for choice in choices if choice.casefold() == word.casefold()]
    close = same or difflib.get_close_matches(word, choices, n=1, cutoff=0.5)
    return f"; did you mean '{close[0]}'?" if close else f"; expected one of: {', '.join(choices)}"


def number_hint(value: object) -> str:
    """For a string where a number was expected: "; use a decimal point: 0.5" for "0,5", "; write the number
    without quotes: 0.5" for "0.5"; else ""."""
    if isinstance(value, str) and DECIMAL_COMMA.fullmatch(value.strip()):
        return f"; use a decimal point: {clipped(value.strip().replace(',', '.'))}"
    if isinstance(value, str) and NUMBER.fullmatch(value.strip()):
        return f"; write the number without quotes: {clipped(value.strip())}"
    return ""


def decimal_comma_line(text: str, error: Exception, path: object) -> str | None:
    """For a TOML error in file ``path`` at a line such as ``temperature = 0,5``: one line naming the key and
    the fix; None for any other error."""
    where = re.search(r"\(at line (\d+), column \d+\)", str(error))
    lines = text.splitlines()
    if not where or not 1 <= int(where[1]) <= len(lines):
        return None
    number = int(where[1])
    statement = re.fullmatch(r"\s*([\w.-]+)\s*=\s*([+-]?\d+,\d+)\s*(#.*)?", lines[number - 1])
    if not statement:
        return None
    headers = [header[1] for line in lines[:number - 1]
               if (header := re.fullmatch(r"\s*\[\s*([\w.-]+)\s*\]\s*(#.*)?", line))]
    key = ".".join([*headers[-1:], statement[1]])
    return f"{clipped(key)}: {path} line {number} has {clipped(statement[2])}{number_hint(statement[2])}"
