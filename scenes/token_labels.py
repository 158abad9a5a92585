"""A sentence's tokens as labels: ``token_text`` writes one (the query in bold QUERY blue), ``TokenLabels``
centres them on their columns, always horizontal: on two or three staggered lines when they do not fit side by side
(``readable`` says whether they are still large enough to read); ``abbreviated`` shortens a long one."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
import regex
from manim import DOWN, LEFT, ORIGIN, RIGHT, VGroup

from scenes import style
from scenes.visuals import label_text, sit_on

MIN_FONT_SIZE = 16  # smallest label that still reads in a 720p frame: a capital 14.5 px tall
COLUMN_ROOM = 0.9  # share of a column's width a label may take
MATRIX_LETTERS = 10  # longest token a matrix's rows and columns are named by in full


def token_text(token: str, is_query: bool = False, font_size: float = style.CAPTION_SIZE):
    """A token as every lab piece writes it: the query token in bold QUERY blue."""
    return label_text(token, style.QUERY if is_query else style.TEXT, font_size,
                      weight="BOLD" if is_query else "NORMAL")


@cache
def smallest_line_height() -> float:
    """Height of a line of text (ascender to descender) at MIN_FONT_SIZE."""
    return label_text("Ag", font_size=MIN_FONT_SIZE).height


class TokenLabels(VGroup):
    """Tokens centred on the x positions ``centres``, sitting on y = 0; the query in bold QUERY.

    Side by side when they fit ``spacing``, shrunk by at most SHRINK if needed; else token j drops to
    line j % lines of two staggered lines, or of MOST_LINES when two would leave them unreadable, each token
    then having ``lines`` columns of room, shrunk as needed. With ``turned``, tokens that do not fit side by
    side are turned a quarter to read upwards instead, still one row (staggered lines above a matrix's columns
    or under a chart's bars read as a second sentence): their starts on y = 0, or their ends when ``hanging``
    (under a chart); unless the longest is over LONGEST_TURNED, which would take a long word's height from
    what they label. ``font_size`` is the size they ended up at, ``readable`` whether it still reads.
    """

    LINE_GAP = 0.08
    SHRINK = 0.85
    MOST_LINES = 3
    LONGEST_TURNED = 1.4  # frame units: the lab's longest word, «necesitas», turns; a 10-letter one does not

    def __init__(self, tokens: Sequence[str], centres: Sequence[float], spacing: float, query: int | None = None,
                 font_size: float = style.CAPTION_SIZE, turned: bool = False, hanging: bool = False):
        super().__init__()
        labels = [token_text(token, index == query, font_size) for index, token in enumerate(tokens)]
        widest = max(label.width for label in labels)
        room = spacing * COLUMN_ROOM / widest  # the scale one line allows
        most = min(self.MOST_LINES, len(tokens))
        self.lines = (1 if room >= self.SHRINK or most == 1 else
                      2 if font_size * 2 * room >= MIN_FONT_SIZE or most == 2 else most)
        turned_room = spacing * COLUMN_ROOM / (smallest_line_height() * font_size / MIN_FONT_SIZE)
        self.turned = turned and self.lines > 1 and widest * min(1.0, turned_room) <= self.LONGEST_TURNED
        if self.turned:
            self.lines, room = 1, turned_room
        scale = min(1.0, room * self.lines)
        self.font_size = font_size * scale
        self.readable = self.font_size >= MIN_FONT_SIZE
        if not self.readable:  # too small to read even on MOST_LINES lines: build nothing
            return
        if self.turned:
            self._turn(labels, centres, scale, hanging)
            return
        line_height = smallest_line_height() * self.font_size / MIN_FONT_SIZE + self.LINE_GAP
        for index, (label, x) in enumerate(zip(labels, centres)):
            label.scale(scale).move_to([x, 0, 0])
            sit_on(label, -line_height * (index % self.lines))
        self.add(*labels)

    def _turn(self, labels, centres, scale: float, hanging: bool) -> None:
        """Each label turned to read upwards, its baseline a vertical line just right of its column's centre so
        that its small letters are centred on it, whatever its ascenders and descenders; all start on y = 0,
        or all end there when ``hanging``."""
        letter = token_text("x", font_size=self.font_size).height
        for label, x in zip(labels, centres):
            label.scale(scale)
            sit_on(label, 0.0)
            label.shift(LEFT * label.get_left()[0])
            label.rotate(np.pi / 2, about_point=ORIGIN).shift(RIGHT * (x + letter / 2))
            if hanging:
                label.shift(DOWN * label.get_top()[1])
        self.add(*labels)


def abbreviated(token: str, letters: int = MATRIX_LETTERS) -> str:
    """``token`` as a matrix names its rows and columns: its first ``letters`` - 1 letters and "…" when longer
    (letters are grapheme clusters, so an accent stays on its letter)."""
    clusters = regex.findall(r"\X", token)
    return token if len(clusters) <= letters else "".join(clusters[:letters - 1]) + "…"
