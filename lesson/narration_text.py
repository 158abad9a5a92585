"""The text side of narration: what a step's voice says (its numbers and signs as the locale reads them), its
sentences and their times in the recording, the step's file name, and what a scene asks of a voice. The voice
itself (the lecturer's recordings, the espeak-ng draft voice) is ``lecture.render.narration``."""

from __future__ import annotations

import re
from typing import Protocol

import numpy as np

from sonify.synth import SAMPLE_RATE

TAIL = 0.5  # seconds a narrated step stays on screen after its voice ends
PAUSE = 0.15  # seconds of quiet that may separate two sentences
QUIET_DB = -35.0  # a 20 ms frame this far under the loudest frame is a pause
FRAME = 0.02  # seconds
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
POWER_OF_TEN = re.compile(r"(?<![\d.,])10([⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
SENTENCE_END = re.compile(r"(?<=[.?!…])\s+")
BLANK = re.compile(r"_{2,}")  # the blank of "La capital de ___ es"
# Unicode's subscripts, as the subtitles write them (it has no capitals, and no b, c, d, f, g, q, w, y, z).
SUBSCRIPT_GLYPHS = dict(zip("0123456789aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
FROM_SUBSCRIPT_GLYPHS = str.maketrans({glyph: character for character, glyph in SUBSCRIPT_GLYPHS.items()})
SUBSCRIPT_GLYPH_RUN = re.compile(f"[{''.join(SUBSCRIPT_GLYPHS.values())}]+")
# A symbol with a subscript in the lesson's notation: one letter (W in XW_Q, not the word in snake_case), "_" and
# its index (d_k, q_1, W_Q, d_model).
WRITTEN_SUBSCRIPT = re.compile(r"(?<![a-zñáéíóúü])([A-Za-zΑ-Ωα-ω])_([A-Za-z0-9]+)")
# Closing punctuation takes no space before it, opening punctuation none after it.
SPACE_BEFORE_CLOSING = re.compile(r"\s+(?=[,.;:?!…)\]»”])")
SPACE_AFTER_OPENING = re.compile(r"(?<=[(\[¿¡«“])\s+")
LONE_LETTER = re.compile(r"(?<![\w'’-])[A-Za-z](?![\w'’-])")  # "k" in "d sub k", not the "d" of "d'Alembert"
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
    """What the voice is given, with the locale's ``spoken`` words for what it would misread, skip or spell out:
    the notation as the narrations say it (``notation``: "√d_k" is "la raíz de d sub k", "q_1" "q uno"; any other
    subscript after "sub", "d_k" and "dₖ" as "d sub k", an index in digits after its symbol, "la₃" as "la 3"), a
    decimal as the language says it, without trailing zeros ("0.34" read "0,34" in Spanish, "8.00" read "8"), a
    power of ten ("diez a la 4"), a blank "___" ("hueco"), each sign as a word (``signs``: "−" "menos", "≈"
    "aproximadamente"; guillemets dropped) and each English term respelled as a Spanish lecturer says it
    (``terms``: "softmax" is "sóftmax"), and a letter standing alone by its name (``letters``: "k" is "ka")."""
    text = said_numbers(replaced_words(text, spoken["notation"]), spoken)
    text = said_subscripts(BLANK.sub(spoken["blank"], text), spoken["subscript"])
    for sign, word in spoken["signs"].items():
        text = text.replace(sign, f" {word} ")
    return tidy(said_letters(replaced_words(text, spoken["terms"]), spoken["letters"]))


def said_letters(text: str, letters: dict[str, str]) -> str:
    """Each letter standing alone, in either case, said by its name (``letters``: "k" is "ka" in Spanish)."""
    def name(match: re.Match) -> str:
        said = letters.get(match[0].lower(), match[0])
        return match[0] if said == match[0].lower() else said  # a language whose voice names letters itself
    return LONE_LETTER.sub(name, text)


def said_numbers(text: str, spoken: dict) -> str:
    """Decimals with the language's mark and without trailing zeros, powers of ten in words."""
    text = SPOKEN_DECIMAL.sub(lambda match: spoken_decimal(match[1], match[2], spoken["decimal_mark"]), text)
    return POWER_OF_TEN.sub(lambda match: spoken["power_of_ten"].format(exponent=match[1].translate(SUPERSCRIPTS)),
                            text)


def said_subscripts(text: str, subscript_word: str) -> str:
    """Each subscript after its symbol as ``said_index`` says it: d_k and dₖ as "d sub k", la₃ as "la 3"."""
    text = WRITTEN_SUBSCRIPT.sub(lambda match: f"{match[1]} {said_index(match[2], subscript_word)}", text)
    return SUBSCRIPT_GLYPH_RUN.sub(
        lambda match: f" {said_index(match[0].translate(FROM_SUBSCRIPT_GLYPHS), subscript_word)}", text)


def said_index(index: str, subscript_word: str) -> str:
    """A subscript as a lecturer says it after its symbol: a number as it is ("q 1"), letters after "sub"
    ("d sub k")."""
    return index if index.isdigit() else f"{subscript_word} {index}"


def replaced_words(text: str, table: dict[str, str]) -> str:
    """``text`` with each key of ``table`` that stands as a whole word or phrase (capitalized too, at a sentence's
    start) replaced by its value; the longest first, so that a phrase wins over a word inside it."""
    forms = {}
    for old, new in table.items():
        forms[old] = new
        forms.setdefault(old[:1].upper() + old[1:], new[:1].upper() + new[1:])
    if not forms:
        return text
    keys = "|".join(re.escape(old) for old in sorted(forms, key=len, reverse=True))
    return re.sub(rf"(?<!\w)(?:{keys})(?!\w)", lambda match: forms[match[0]], text)


def tidy(text: str) -> str:
    """One space between words and none inside punctuation, after signs were replaced by spaced words."""
    text = " ".join(text.split())
    return SPACE_AFTER_OPENING.sub("", SPACE_BEFORE_CLOSING.sub("", text))


def sentences(text: str) -> list[str]:
    """The text's sentences, split after . ? ! or …"""
    return [part for part in SENTENCE_END.split(text.strip()) if part]


def as_sentence(text: str) -> str:
    """``text`` (a title) said as a sentence of its own: a full stop added unless it ends in . ? ! or …"""
    return text if text.rstrip().endswith((".", "?", "!", "…")) else f"{text.rstrip()}."


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
