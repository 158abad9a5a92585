"""The works the sections rest on, in one place, and the joined lecture's two cards: a title card (course,
the locale's lesson title between ``lecture.course`` and ``lecture.date``) and an end card listing the works its sections cite
and the lab guide's reading list.

Every section's computation is the Transformer's scaled dot-product attention, its sinusoidal positions and its
heads (Vaswani et al. 2017); section 7's trained heads are the induction circuit of Elhage et al. 2021 and
Olsson et al. 2022. Titles stay in their own language, as a reference list writes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Reference:
    authors: str  # as cited: the surnames of one or two authors, else the first one's and "et al."
    year: int
    title: str
    venue: str

    @property
    def line(self) -> str:
        """The reference as the end card writes it: authors (year). Title. Venue. (no stop after a title's own ! or ?)"""
        stop = "" if self.title.endswith(("!", "?")) else "."
        return f"{self.authors} ({self.year}). {self.title}{stop} {self.venue}."

    @property
    def short(self) -> str:
        """The reference as a slide cites it in passing: authors, year."""
        return f"{self.authors}, {self.year}"


VASWANI = Reference("Vaswani et al.", 2017, "Attention Is All You Need", "NeurIPS")
ELHAGE = Reference("Elhage et al.", 2021, "A Mathematical Framework for Transformer Circuits",
                   "Transformer Circuits Thread")
OLSSON = Reference("Olsson et al.", 2022, "In-context Learning and Induction Heads",
                   "Transformer Circuits Thread")
# The lab guide's reading list (its section 11) besides Vaswani et al.: every end card lists it after the works cited.
PHUONG = Reference("Phuong & Hutter", 2022, "Formal Algorithms for Transformers", "arXiv:2207.09238")
DAO = Reference("Dao et al.", 2022, "FlashAttention: Fast and Memory-Efficient Exact Attention", "NeurIPS")
ALAMMAR = Reference("Alammar", 2018, "The Illustrated Transformer", "jalammar.github.io")
# the guide cites the post as updated (2023; first published 2018): a student checking the guide finds the same year
WENG = Reference("Weng", 2023, "Attention? Attention!", "lilianweng.github.io")
GUIDE_READING = (VASWANI, PHUONG, DAO, ALAMMAR, WENG)

CITED = {"matrix": (VASWANI,), "scaling": (VASWANI,), "heads": (VASWANI,), "positional": (VASWANI,),
         "capital": (VASWANI,), "pipeline": (VASWANI,), "learned": (ELHAGE, OLSSON)}


@dataclass(frozen=True)
class Card:
    """A card's text: ``kind`` "opening" (``lines``: course, lesson, date; "" left out) or "references"
    (``lines``: the heading, then a reference each); ``chapter`` names it in the lecture's chapters; ``said``, the
    sentence a narrated lecture's voice says as it comes in; ``agenda``, the opening's list of the lecture's sections
    (their titles, in order; none for a lecture of one section)."""

    kind: str
    chapter: str
    lines: tuple[str, ...]
    said: str = ""
    agenda: tuple[str, ...] = ()


def lecture_cards(options, strings: dict, sections: Iterable[str]) -> tuple[Card, Card]:
    """The title and end cards of a lecture joining ``sections``, from the config's ``lecture`` table
    (``options``) and the locale's strings (the lecturer's own in them); the end card lists the course's own
    materials (``cards.materials``: the lesson page and its notes, the lab's guide) before the works. The title card
    says the title and, over its list of sections, how many there are (``cards.agenda_said``: 6.8 s of a still card
    had no voice, review s14)."""
    names, title, sections = strings["cards"], strings["lecture"]["title"], list(sections)
    titles = tuple(strings[section]["title"] for section in sections if "title" in strings.get(section, {}))
    agenda = titles if len(titles) > 1 else ()
    said = " ".join([said_title(title), *([names["agenda_said"].format(count=len(agenda))] if agenda else [])])
    return (Card("opening", names["opening"], (options.course, title, options.date), said, agenda),
            Card("references", names["references"],
                 (names["references"], *names["materials"], *(reference.line for reference in listed(sections))),
                 names["references_said"]))



def said_title(title: str) -> str:
    """The lesson's title as the voice says it: a number without its leading zeros, a dash a pause, a full stop at
    its end ("Clase 04 — Atención y Transformers" is said "Clase 4: Atención y Transformers.")."""
    said = re.sub(r"\s+[—–-]\s+", ": ", re.sub(r"\b0+(\d)", r"\1", title.strip()))
    return said if said.endswith((".", "!", "?")) else f"{said}."


def cited(sections: Iterable[str]) -> list[Reference]:
    """The works ``sections`` cite, each once, in the order they are first cited (a section outside the
    project cites none here)."""
    return list(dict.fromkeys(reference for section in sections for reference in CITED.get(section, ())))


def listed(sections: Iterable[str]) -> list[Reference]:
    """The end card's works: those ``sections`` cite, then the rest of the lab guide's reading (GUIDE_READING)."""
    return list(dict.fromkeys([*cited(sections), *GUIDE_READING]))
