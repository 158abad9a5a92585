"""Hints for the usual slips in config input: a decimal comma, a quoted number, a --set value the shell split."""

from __future__ import annotations

import re
import shlex

from lecture.sections import SECTION_IDS

DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
TOML_WORDS = {"true", "false", "inf", "nan"}


def number_hint(value: object) -> str:
    """For a string where a number was expected: "; use a decimal point: 0.5" for "0,5", "; write the number
    without quotes: 0.5" for "0.5"; else ""."""
    if isinstance(value, str) and DECIMAL_COMMA.fullmatch(value.strip()):
        return f"; use a decimal point: {value.strip().replace(',', '.')}"
    if isinstance(value, str) and NUMBER.fullmatch(value.strip()):
        return f"; write the number without quotes: {value.strip()}"
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
    return f"{key}: {path} line {number} has {statement[2]}{number_hint(statement[2])}"


def split_set_hint(overrides: tuple[str, ...], sections: tuple[str, ...]) -> str | None:
    """When the shell split an unquoted ``--set`` value at its spaces (``--set matrix.X=[[1, 0], [0, 1]]`` gives
    the value ``matrix.X=[[1,`` and the sections ``0],`` ``[0,`` ``1]]``), the one-line error that shows the
    quoting; None when nothing looks split."""
    pieces = [section for section in sections if section not in SECTION_IDS]
    for override in overrides:
        value = override.partition("=")[2]
        if unbalanced(value):
            taken = []
            while pieces and unbalanced(" ".join([value, *taken])):
                taken.append(pieces.pop(0))
            whole = shlex.quote(" ".join([override, *taken]))
            return f"--set {override}: the shell split the value at its spaces; quote it: --set {whole}"
        if pieces and re.fullmatch(r"[^\W\d_][\w-]*", value) and value not in TOML_WORDS:
            whole = shlex.quote(" ".join([override, *pieces]))
            return (f"section '{pieces[0]}': unknown section; if it belongs to --set {override}, quote the value: "
                    f"--set {whole}")
    return None


def unbalanced(value: str) -> bool:
    """More brackets or braces opened than closed, or an odd number of quotes."""
    return (value.count("[") > value.count("]") or value.count("{") > value.count("}")
            or value.count('"') % 2 == 1 or value.count("'") % 2 == 1)
