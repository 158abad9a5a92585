"""Which characters an installed font can draw: Pango falls back on any installed font, so a character
none of them covers is drawn as an empty box. Asked of fontconfig once per process (``fc-list``)."""

from __future__ import annotations

import shutil
import subprocess
from functools import lru_cache


@lru_cache(maxsize=1)
def installed_coverage() -> tuple[tuple[int, int], ...] | None:
    """The code point ranges (first, last) some installed font covers, merged and sorted; None when
    fontconfig is not there to ask (then nothing can be said, and nothing is refused)."""
    if shutil.which("fc-list") is None:
        return None
    listing = subprocess.run(["fc-list", "--format", "%{charset}\n"], capture_output=True, text=True,
                             check=True).stdout
    ranges = []
    for part in listing.split():
        first, _, last = part.partition("-")
        ranges.append((int(first, 16), int(last or first, 16)))
    merged: list[list[int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return tuple((first, last) for first, last in merged)


def undrawable(text: str) -> list[str]:
    """The distinct characters of ``text`` (whitespace aside) no installed font covers, in order of appearance."""
    coverage = installed_coverage()
    if coverage is None:
        return []
    return [character for character in dict.fromkeys(text)
            if not character.isspace() and not any(first <= ord(character) <= last for first, last in coverage)]
