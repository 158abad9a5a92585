"""The (sin, cos) pairs of a row of PE drawn as clock hands (the positional section's "clock_hands" step).

Pair i of row pos, (PE[pos, 2i], PE[pos, 2i + 1]) = (sin θ_i, cos θ_i), is the tip of a hand of length 1 drawn
with x = sin and y = cos: θ_i = 0 points to 12 o'clock and a growing θ_i turns the hand clockwise, as on a
clock. So the hand's angle on screen is θ_i itself (``angle_of`` reads it back from the points), and its tip's
coordinates are the two cells of the heatmap, whose colours the two swatches above the dial repeat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from manim import ORIGIN, RIGHT, UP, Arc, Circle, Dot, Line, ManimColor, Square, VectorizedPoint, VGroup

from lesson.numbers import format_number
from scenes import style
from scenes.visuals import label_text, number_text

MOST_HANDS = 8  # dials drawn at once: beyond that, the MOST_HANDS // 2 fastest and the as many slowest
GAP_SHARE = 0.5  # of a dial's slot: the width of the "…" between the fastest and the slowest
RADIUS_SHARE = 0.42  # of a dial's slot
SWATCH = 0.26  # side of a swatch, frame units
ARC_SHARE = 0.7  # the turn's arc runs at this share of the radius, inside the tips
ELLIPSIS = "…"


def shown_hands(count: int, most: int = MOST_HANDS) -> list[int | None]:
    """Hands 0 .. count - 1, or the ``most // 2`` fastest and slowest with None (drawn "…") between them."""
    if count <= most:
        return list(range(count))
    half = most // 2
    return [*range(half), None, *range(count - half, count)]


def tip(centre: np.ndarray, radius: float, angle: float) -> np.ndarray:
    """Where a hand at ``angle`` (from 12 o'clock, clockwise) ends: centre + radius · (sin θ, cos θ)."""
    return centre + radius * np.array([np.sin(angle), np.cos(angle), 0.0])


def angle_of(hand: Line) -> float:
    """θ in [0, 2π) of a hand drawn from its pivot to its tip: atan2(x, y), the inverse of ``tip``."""
    x, y, _ = hand.get_end() - hand.get_start()
    return float(np.arctan2(x, y) % (2 * np.pi))


def degrees_decimals(angle: float) -> int:
    """Decimals of an angle in radians written in degrees: none from 10° up, a tenth below (3 rad -> "172", 0.003
    rad -> "0.2"). At most three digits, so eight of them side by side under the dials keep a clear gap."""
    return 0 if abs(np.degrees(angle)) >= 10 else 1


def shown_degrees(angle: float) -> float:
    """``angle`` (radians) in degrees, whole from 10° up (54.4 -> 54: format_number keeps a tenth below 100)."""
    degrees = float(np.degrees(angle))
    return round(degrees) if degrees_decimals(angle) == 0 else degrees


def degrees_written(angle: float) -> str:
    """``angle`` (radians) in degrees as the dials' readouts write it: 4 rad -> "229"."""
    return format_number(shown_degrees(angle), degrees_decimals(angle))


def degrees_text(angle: float, colour: ManimColor, font_size: float = style.CAPTION_SIZE):
    """An angle in radians written in degrees (``degrees_decimals``)."""
    return number_text(shown_degrees(angle), colour, font_size, decimals=degrees_decimals(angle))


class Dial(VGroup):
    """A dial with its 12 o'clock mark, one hand and its pivot; ``set_angle`` turns the hand."""

    def __init__(self, radius: float, angle: float = 0.0):
        super().__init__()
        self.face = Circle(radius=radius, color=style.MUTED, stroke_width=2)
        self.noon = Line(UP * radius, UP * 0.8 * radius, color=style.MUTED, stroke_width=2)
        self.hand = Line(ORIGIN, tip(ORIGIN, radius, angle), color=style.TEXT, stroke_width=4)
        self.pivot = Dot(ORIGIN, radius=0.045, color=style.TEXT)
        self.add(self.face, self.noon, self.hand, self.pivot)

    @property
    def centre(self) -> np.ndarray:
        return self.face.get_center()

    @property
    def radius(self) -> float:
        return self.face.width / 2

    @property
    def angle(self) -> float:
        return angle_of(self.hand)

    def set_angle(self, angle: float) -> "Dial":
        self.hand.put_start_and_end_on(self.centre, tip(self.centre, self.radius, angle))
        return self

    def ghost(self) -> Line:
        """The hand where it is now, dimmed: where a turn started."""
        return self.hand.copy().set_stroke(style.MUTED, width=3, opacity=0.8)

    def turn_arc(self, start: float, end: float) -> Arc:
        """The clockwise arc from angle ``start`` to ``end``: the turn, inside the tips."""
        return Arc(radius=ARC_SHARE * self.radius, start_angle=np.pi / 2 - start, angle=-(end - start),
                   arc_center=self.centre, color=style.TEXT, stroke_width=2.5)


class HandRow(VGroup):
    """One dial per shown hand, the fastest on the left as the heatmap's columns go; over each dial its index
    i and two swatches in the heatmap's colours of PE[pos, 2i] (left) and PE[pos, 2i + 1] (right).

    ``hands`` comes from ``shown_hands`` (None: a "…" slot); ``dials[i]``, ``swatches[i]`` and ``ticks[i]`` are
    hand i's. The row is at most ``width`` wide, a dial's slot at most ``largest_slot``. ``set_angles(θ)`` takes
    every hand's angle, θ[i] for hand i, and turns the shown ones."""

    def __init__(self, hands: Sequence[int | None], colour: Callable[[float], ManimColor], width: float,
                 largest_slot: float):
        super().__init__()
        self.hands, self.colour = list(hands), colour
        shares = np.array([GAP_SHARE if i is None else 1.0 for i in self.hands])
        slot = min(largest_slot, width / shares.sum())
        xs = slot * (np.cumsum(shares) - shares / 2)
        radius = RADIUS_SHARE * slot
        self.dials, self.swatches, self.ticks = {}, {}, {}
        self.gaps = VGroup()
        self.centres = VGroup(*[VectorizedPoint(RIGHT * x) for x in xs])
        self.add(self.centres)
        for centre, i in zip(xs[:, None] * RIGHT, self.hands):
            if i is None:
                self.gaps.add(label_text(ELLIPSIS, style.MUTED, style.BODY_SIZE).move_to(centre))
                continue
            dial = Dial(radius).move_to(centre)
            pair = VGroup(*[Square(SWATCH, stroke_color=style.MUTED, stroke_width=1, fill_opacity=1.0)
                            for _ in range(2)]).arrange(RIGHT, buff=0.04)
            pair.next_to(dial, UP, buff=0.15)
            tick = number_text(i, style.MUTED, style.CAPTION_SIZE, decimals=0).next_to(pair, UP, buff=0.1)
            self.dials[i], self.swatches[i], self.ticks[i] = dial, pair, tick
            self.add(tick, pair, dial)
        self.add(self.gaps)
        self.set_angles(np.zeros(max(i for i in self.hands if i is not None) + 1))

    def set_angles(self, angles) -> "HandRow":
        for i, dial in self.dials.items():
            dial.set_angle(angles[i])
            for swatch, value in zip(self.swatches[i], (np.sin(angles[i]), np.cos(angles[i]))):
                swatch.set_fill(self.colour(value), opacity=1.0)
        return self

    @property
    def angles(self) -> dict[int, float]:
        """Each shown hand's angle, read from its points."""
        return {i: dial.angle for i, dial in self.dials.items()}

    def ghosts(self) -> VGroup:
        return VGroup(*[dial.ghost() for dial in self.dials.values()])

    def turn_arcs(self, start, end) -> VGroup:
        """Each shown hand's arc from ``start[i]`` to ``end[i]``."""
        return VGroup(*[dial.turn_arc(start[i], end[i]) for i, dial in self.dials.items()])

    def readouts(self, turns, colour: ManimColor, name: str) -> VGroup:
        """Each shown hand's turn in degrees under its slot (tagged ``(name, (0, i))``), "…" under a gap; the
        row's centre at the height of the dials, for the caller to move."""
        texts = VGroup()
        for k, i in enumerate(self.hands):
            if i is None:
                text = label_text(ELLIPSIS, style.MUTED, style.CAPTION_SIZE)
            else:
                text = degrees_text(turns[i], colour)
                text.tag = (name, (0, i))
            texts.add(text.move_to(self.slot_centre(k)))
        return texts

    def slot_centre(self, k: int) -> np.ndarray:
        """Centre of the k-th slot at the dials' height, wherever the row has moved."""
        return self.centres[k].get_center()
