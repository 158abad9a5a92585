"""A narration's phrases and the plays they are tied to.

A step's narration (in the locale) may carry markers ``[[name]]``: the words after a marker are said as the play
the scene announces with ``beat("name")`` starts, so no sentence speaks of what is not yet on screen. A marker
opens a sentence (the whole sentence waits for its play) or stands inside one (the sentence is spoken in two
phrases, the second as its play starts). A phrase without a marker follows the one before it.

A caption read on screen may carry them too (``caption_parts``): its words after ``[[name]]`` come once the plays
after ``beat("name")`` are over, so a silent lecture's caption does not state a result before it is drawn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lesson.narration_text import sentences

MARKER = re.compile(r"\s*\[\[([a-z][a-z0-9_]*)\]\]\s*")


@dataclass(frozen=True)
class Phrase:
    """Words spoken in one go: ``text`` (no marker), the index of its ``sentence``, and the ``play`` it waits for
    ("" when it follows the phrase before it)."""

    text: str
    sentence: int
    play: str = ""


def plain(text: str) -> str:
    """The narration as it is read and subtitled: its markers removed."""
    return MARKER.sub(lambda match: " " if match.start() and match.end() < len(text) else "", text).strip()


def phrases(text: str) -> list[Phrase]:
    """The narration's phrases in order: each sentence cut at its markers."""
    found = []
    for number, sentence in enumerate(sentences(text)):
        parts = MARKER.split(sentence)  # words, marker, words, marker, words...
        plays = ["", *parts[1::2]]
        found += [Phrase(words.strip(), number, play) for words, play in zip(parts[::2], plays) if words.strip()]
    return found


def caption_parts(text: str) -> list[tuple[str, str]]:
    """A caption as it grows: (the beat that brings a part, "" for the first; the caption up to that part's end,
    markers removed); one part when it has no marker."""
    markers = list(MARKER.finditer(text))
    return [("", plain(text[:markers[0].start()] if markers else text)),
            *[(marker.group(1), plain(text[:after.start()] if after else text))
              for marker, after in zip(markers, [*markers[1:], None])]]


def spoken_sentences(text: str) -> list[str]:
    """The narration's sentences as they are heard, without markers."""
    return [plain(sentence) for sentence in sentences(text)]
