"""The text side of narration: what a step's voice says (its numbers and signs as the locale reads them), its
sentences and their times in the recording, the step's file name, and what a scene asks of a voice. The voice
itself (the lecturer's recordings, the espeak-ng draft voice) is ``lecture.render.narration``."""

from __future__ import annotations

import re
from typing import Protocol

import numpy as np

from lesson.numbers import MINUS
from sonify.synth import SAMPLE_RATE

TAIL = 0.5  # seconds a narrated step stays on screen after its voice ends
PAUSE = 0.15  # seconds of quiet that may separate two sentences
QUIET_DB = -35.0  # a 20 ms frame this far under the loudest frame is a pause
FRAME = 0.02  # seconds
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
SENTENCE_END = re.compile(r"(?<=[.?!…])\s+")
# A decimal in a narration, with a point or a comma (the locale may write 0,34) between digits: 0.34, not 1.2.3,
# v1.2 or the list "0,50, 0,30".
SPOKEN_DECIMAL = re.compile(r"(?<![\w.,])(\d+)[.,](\d+)(?![\w]|[.,]\d)")


class Speaker(Protocol):
    """What speaks a section's steps, as a scene asks it (``lecture.render.narration.Narration`` is one)."""

    def speak(self, name: str, text: str, spoken: dict) -> np.ndarray | None:
        """The step ``name``'s voice saying ``text`` as mono samples at SAMPLE_RATE, or None: not spoken."""


def step_file_name(number: int, key: str) -> str:
    """``03-queries``: the step's still and recording name, without the extension."""
    return f"{number:02d}-{key}"


def spoken_decimal(units: str, decimals: str, mark: str) -> str:
    """A decimal as a teacher says it: trailing zeros dropped ("8.00" is "8", "0.50" is "0,5" in Spanish)."""
    decimals = decimals.rstrip("0")
    return f"{units}{mark}{decimals}" if decimals else units


def voice_text(text: str, spoken: dict) -> str:
    """What the draft voice is given, with the locale's ``spoken`` words for what it cannot read: a decimal as
    the language says it, without trailing zeros ("0.34" read "0,34" in Spanish, "8.00" read "8"), a minus sign
    before a number ("menos 0,34"), infinity ("menos infinito"), a power of ten ("2 por diez a la 4"), a blank
    "___" ("hueco")."""
    text = SPOKEN_DECIMAL.sub(lambda match: spoken_decimal(match[1], match[2], spoken["decimal_mark"]), text)
    text = re.sub(rf"{MINUS}(?=[\d∞])", spoken["minus"], text)
    text = text.replace("∞", spoken["infinity"])
    text = re.sub(r"\s*[·×]\s*10([⁰¹²³⁴⁵⁶⁷⁸⁹]+)",
                  lambda match: spoken["power_of_ten"].format(exponent=match[1].translate(SUPERSCRIPTS)), text)
    return re.sub(r"_{2,}", spoken["blank"], text)


def sentences(text: str) -> list[str]:
    """The text's sentences, split after . ? ! or …"""
    return [part for part in SENTENCE_END.split(text.strip()) if part]


def sentence_times(samples: np.ndarray, parts: list[str]) -> list[tuple[float, float]]:
    """(start, end) in seconds of each of ``parts`` in the recording: cut at the longest pauses inside the
    speech when there are enough, otherwise in proportion to each sentence's length in characters."""
    duration = len(samples) / SAMPLE_RATE
    if len(parts) <= 1:
        return [(0.0, duration)]
    width = int(FRAME * SAMPLE_RATE)
    frames = samples[:len(samples) // width * width].reshape(-1, width)
    level = np.sqrt(np.mean(frames ** 2, axis=1))
    loud = np.flatnonzero(level > level.max(initial=0.0) * 10 ** (QUIET_DB / 20))
    pauses = _pauses(level, loud) if len(loud) else []
    if len(pauses) >= len(parts) - 1:
        longest = sorted(pauses, key=lambda pause: pause[1] - pause[0], reverse=True)[:len(parts) - 1]
        cuts = sorted((start + end) / 2 * FRAME for start, end in longest)
    else:
        first, last = (loud[0] * FRAME, (loud[-1] + 1) * FRAME) if len(loud) else (0.0, duration)
        shares = np.cumsum([len(part) for part in parts])[:-1] / sum(len(part) for part in parts)
        cuts = list(first + shares * (last - first))
    bounds = [0.0, *cuts, duration]
    return list(zip(bounds[:-1], bounds[1:]))


def _pauses(level: np.ndarray, loud: np.ndarray) -> list[tuple[int, int]]:
    """(first, last + 1) frame of each quiet run at least PAUSE long between the first and last loud frame."""
    gaps = np.diff(loud)
    return [(int(loud[i]) + 1, int(loud[i + 1])) for i in np.flatnonzero(gaps * FRAME > PAUSE)]
