"""The works the sections rest on, in one place, and the joined lecture's two cards: a title card (course,
the locale's lesson title between ``lecture.course`` and ``lecture.date``) and an end card listing the works its sections cite.

Every section's computation is the Transformer's scaled dot-product attention, its sinusoidal positions and its
heads (Vaswani et al. 2017); section 7's trained heads are the induction circuit of Elhage et al. 2021 and
Olsson et al. 2022. Titles stay in their own language, as a reference list writes them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Reference:
    authors: str
    year: int
    title: str
    venue: str

    @property
    def line(self) -> str:
        """The reference as the end card writes it: authors (year). Title. Venue."""
        return f"{self.authors} ({self.year}). {self.title}. {self.venue}."

    @property
    def short(self) -> str:
        """The reference as a slide cites it in passing: first author's surname, et al., year."""
        return f"{self.authors.split(',')[0]} et al., {self.year}"


VASWANI = Reference("Vaswani, A., et al.", 2017, "Attention Is All You Need", "NeurIPS")
ELHAGE = Reference("Elhage, N., et al.", 2021, "A Mathematical Framework for Transformer Circuits",
                   "Transformer Circuits Thread")
OLSSON = Reference("Olsson, C., et al.", 2022, "In-context Learning and Induction Heads",
                   "Transformer Circuits Thread")

CITED = {"matrix": (VASWANI,), "scaling": (VASWANI,), "heads": (VASWANI,), "positional": (VASWANI,),
         "capital": (VASWANI,), "pipeline": (VASWANI,), "learned": (ELHAGE, OLSSON)}


@dataclass(frozen=True)
class Card:
    """A card's text: ``kind`` "opening" (``lines``: course, lesson, date; "" left out) or "references"
    (``lines``: the heading, then a reference each); ``chapter`` names it in the lecture's chapters."""

    kind: str
    chapter: str
    lines: tuple[str, ...]


def lecture_cards(options, strings: dict, sections: Iterable[str]) -> tuple[Card, Card]:
    """The title and end cards of a lecture joining ``sections``, from the config's ``lecture`` table
    (``options``) and the locale's strings (the lecturer's own in them)."""
    names = strings["cards"]
    return (Card("opening", names["opening"], (options.course, strings["lecture"]["title"], options.date)),
            Card("references", names["references"],
                 (names["references"], *(reference.line for reference in cited(sections)))))


def cited(sections: Iterable[str]) -> list[Reference]:
    """The works ``sections`` cite, each once, in the order they are first cited (a section outside the
    project cites none here)."""
    return list(dict.fromkeys(reference for section in sections for reference in CITED.get(section, ())))
