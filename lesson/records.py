"""The records of a rendered section, one type each for everyone who reads them: the scene makes them, the
manifest stores them (``manifest.json``: each section's ``steps`` and ``cards``), and captions, slides, the
storyboard, the script and the lecture page are built from them.

Times are seconds from the start of the section's video (or clip). Text boxes are in Manim's frame units
(the frame is ``FRAME_HEIGHT`` = 8 units high, y upwards, origin at the centre); ``TextRecord.pixels`` gives
a box in the pixels of a render of a given height.
"""

from __future__ import annotations

from dataclasses import asdict, field

from pydantic import ConfigDict, TypeAdapter
from pydantic.dataclasses import dataclass

FRAME_HEIGHT = 8.0  # frame units: Manim's frame height, whatever the aspect ratio
DIGITS = 4  # decimals of the times and boxes kept in the manifest (a tenth of a millisecond)
RECORD = ConfigDict(extra="ignore")  # a manifest of an older version may carry keys we no longer write


@dataclass(frozen=True, config=RECORD)
class TextRecord:
    """A piece of text on screen, its bounding box and the cap height of its smallest type, in frame units."""

    text: str
    left: float
    right: float
    bottom: float
    top: float
    cap_height: float = 0.0

    def overlaps(self, other: "TextRecord", tolerance: float = 0.01) -> bool:
        return (self.left < other.right - tolerance and other.left < self.right - tolerance
                and self.bottom < other.top - tolerance and other.bottom < self.top - tolerance)

    def pixels(self, width: int, height: int) -> tuple[list[float], float]:
        """[left, top, right, bottom] in pixels of a ``width`` x ``height`` frame (origin top left, y down),
        and the cap height in pixels."""
        scale = height / FRAME_HEIGHT
        box = [(self.left * scale + width / 2), (height / 2 - self.top * scale),
               (self.right * scale + width / 2), (height / 2 - self.bottom * scale)]
        return box, self.cap_height * scale


class Narrated:
    """What a voice said of a step or a card, kept in its ``narration`` (see ``StepRecord``)."""

    @property
    def spoken(self) -> list:
        """The narration's sentences as [text, start, end], when a voice spoke them; else empty."""
        return self.narration.get("sentences", [])

    def _shift_narration(self, start: float) -> None:
        """The narration's times counted from ``start`` (in place)."""
        if "start" in self.narration:
            self.narration["start"] = round(self.narration["start"] - start, DIGITS)
            for name in ("sentences", "phrases", "listening"):
                if name in self.narration:
                    self.narration[name] = [shifted_span(span, start) for span in self.narration[name]]


@dataclass(config=RECORD)
class CardRecord(Narrated):
    """A card as it was shown: ``kind`` "question" (after its step), "predictive" (before it) or "closing";
    ``key`` the step it belongs to (the section id for a closing card); on screen from ``start`` to ``end``; a
    closing card's ``answer`` (the end of its ``text``) comes at ``answered``, after time to think. ``narration``:
    with a voice, what it said of the card (a closing card's title, statement and question, then its answer as it
    appears), as a step's (its file, text, start, seconds, sentences and phrases)."""

    kind: str
    key: str
    title: str
    text: str
    start: float
    end: float = 0.0
    texts: list[TextRecord] = field(default_factory=list)
    answer: str = ""
    answered: float = 0.0
    narration: dict = field(default_factory=dict)

    @property
    def caption(self) -> str:
        """What the captions show while the card is up: its text."""
        return self.text

    def subtitles(self) -> list[tuple[float, float, str]]:
        """(start, end, text) of what the card says while it is up: its text, or, when its answer comes later,
        the text before the answer until then and the answer from then (never the answer before it is shown)."""
        if not self.answer or not self.text.endswith(self.answer):
            return [(self.start, self.end, self.text)]
        return [(self.start, self.answered, self.text.removesuffix(self.answer).rstrip()),
                (self.answered, self.end, self.answer)]

    def shifted(self, start: float) -> "CardRecord":
        """The card with its times counted from ``start`` (in place)."""
        self.start, self.end = self.start - start, self.end - start
        if self.answer:
            self.answered -= start
        self._shift_narration(start)
        return self


@dataclass(config=RECORD)
class StepRecord(Narrated):
    """One step as it was rendered: when it starts and ends, and what was on screen at its end.

    ``settled`` is when its last animation ended; ``read_until`` is when the step had been on screen for
    ``reading`` seconds (its caption and its ``new_numbers``) and its finished state long enough; a question
    card, if any, follows until ``end``. ``numbers`` are the tagged numbers as shown (name -> rows);
    ``narration`` its file, text and, when spoken, start, seconds, sentences [text, start, end], phrases
    [text, start, end, the play it started with or ""] and listening moments [start, end]. ``grown``: a caption
    read on screen that came in parts (``lesson.narration_phrases.caption_parts``), [time, the caption shown from
    then] for each part, the first at ``start``; empty when it came whole.
    """

    key: str
    title: str
    caption: str
    start: float
    end: float = 0.0
    texts: list[TextRecord] = field(default_factory=list)
    numbers: dict[str, list[list[str | None]]] = field(default_factory=dict)
    new_numbers: int = 0  # tagged numbers not on screen, or shown differently, at the previous step's end
    reading: float = 0.0
    settled: float = 0.0
    read_until: float = 0.0
    narration: dict = field(default_factory=dict)
    grown: list[tuple[float, str]] = field(default_factory=list)

    def caption_subtitles(self, start: float, end: float) -> list[tuple[float, float, str]]:
        """(start, end, text) of the caption over the step's span from ``start`` to ``end``: as it grew on screen
        (never its later words before they came), or whole."""
        if not self.grown:
            return [(start, end, self.caption)]
        times = [start, *[time for time, _ in self.grown[1:]], end]
        return [(begin, until, text) for begin, until, (_, text) in zip(times, times[1:], self.grown)]

    def shifted(self, start: float) -> "StepRecord":
        """The step with its times, and its narration's, counted from ``start`` (in place)."""
        self.start, self.end, self.read_until = self.start - start, self.end - start, self.read_until - start
        self.settled -= start
        self.grown = [(round(time - start, DIGITS), text) for time, text in self.grown]
        self._shift_narration(start)
        return self


def shifted_span(span: list, start: float) -> list:
    """A narration's [text, begin, end, ...] or [begin, end] with its two times counted from ``start``."""
    at = 0 if isinstance(span[0], (int, float)) else 1
    return [*span[:at], round(span[at] - start, DIGITS), round(span[at + 1] - start, DIGITS), *span[at + 2:]]


STEPS = TypeAdapter(list[StepRecord])
CARDS = TypeAdapter(list[CardRecord])


def stored(record: StepRecord | CardRecord) -> dict:
    """``record`` as the manifest keeps it: plain data, every float rounded to DIGITS decimals."""
    return _rounded(asdict(record))


def steps_of(entry: dict) -> list[StepRecord]:
    """The step records of a manifest's section entry."""
    return STEPS.validate_python(entry.get("steps", []))


def cards_of(entry: dict) -> list[CardRecord]:
    """The card records of a manifest's section entry."""
    return CARDS.validate_python(entry.get("cards", []))


def _rounded(data):
    if isinstance(data, float):
        return round(data, DIGITS)
    if isinstance(data, dict):
        return {key: _rounded(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_rounded(value) for value in data]
    return data
