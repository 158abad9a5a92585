"""Vectors of two components as arrows from one origin: a plane with equal units on both axes (angles and lengths
are true), arrows, the shadow one vector casts on another's line, the angle between two, and labels placed
where they cover neither another label nor an arrow.

Points are given in the plane's own coordinates (``attn_math.geometry.in_plane``); ``plane.point(v)`` is where
v is drawn and ``plane.coordinates(point)`` reads a drawn point back (tests compare it with the math).
"""

from __future__ import annotations

import math

import numpy as np
from manim import (DL, DOWN, DR, LEFT, UL, UR, Angle, Arrow, DashedLine, Dot, Line, ManimColor, Polygon, Rectangle,
                   VGroup, VMobject)

from scenes import style
from scenes.visuals import number_text

MOST_TICKS = 3  # grid steps the longer axis's span (its points' and the origin's) takes at most: few numbers
ROOM = 0.5  # of a grid step: the space between the farthest point and the plane's edge (its label goes there)
ARROW_WIDTH = 6
TICK_SIZE = style.CAPTION_SIZE
TICK_GAP = 0.1  # between the grid's edge and its numbers
LABEL_GAPS = (0.12, 0.4, 0.8)  # between an arrow's tip and its label: the places tried, nearest first
DIRECTIONS = 16  # places tried round a tip for its label
BRACKET_GAP = 0.25  # frame units between a line and the bracket beside it that gives a hidden shadow its length
BRACKET_TICK = 0.1  # half the length of the bracket's end ticks, across it


def grid_step(span: float) -> float:
    """A round step (1, 2 or 5 times a power of ten) that divides ``span`` into at most MOST_TICKS parts."""
    power = 10.0 ** math.floor(math.log10(span / MOST_TICKS))
    return next(step * power for step in (1, 2, 5, 10) if span / (step * power) <= MOST_TICKS)


def axis_range(values, step: float) -> tuple[float, float]:
    """From the least of ``values`` and 0 to the largest, ROOM of a step to spare either side."""
    return min(0.0, float(np.min(values))) - ROOM * step, max(0.0, float(np.max(values))) + ROOM * step


class VectorPlane(VGroup):
    """A grid with its axes, numbered along its bottom and left edges (clear of any arrow), sized to hold
    ``points`` ((n, 2), and the origin) in ``width`` x ``height`` frame units with one unit for both axes."""

    def __init__(self, points, width: float, height: float):
        super().__init__()
        points = np.atleast_2d(np.asarray(points, dtype=float))
        step = grid_step(np.ptp(np.vstack([points, np.zeros(2)]), axis=0).max() or 1.0)  # all zero: a unit plane
        (self.x_low, self.x_high), (self.y_low, self.y_high) = (axis_range(points[:, axis], step) for axis in (0, 1))
        room = number_text(0.0, style.MUTED, TICK_SIZE, 2)  # what the numbers take beside and under the grid
        unit = min((width - room.width - TICK_GAP) / (self.x_high - self.x_low),
                   (height - room.height - TICK_GAP) / (self.y_high - self.y_low))
        self.axes = VGroup(Line([self.x_low * unit, 0, 0], [self.x_high * unit, 0, 0]),
                           Line([0, self.y_low * unit, 0], [0, self.y_high * unit, 0]))
        self.axes.set_stroke(style.MUTED, width=2, opacity=0.9)
        xs = step * np.arange(math.ceil(self.x_low / step), math.floor(self.x_high / step) + 1)
        ys = step * np.arange(math.ceil(self.y_low / step), math.floor(self.y_high / step) + 1)
        self.grid = VGroup(*[Line(self.point((x, self.y_low)), self.point((x, self.y_high))) for x in xs],
                           *[Line(self.point((self.x_low, y)), self.point((self.x_high, y))) for y in ys],
                           Polygon(*(self.point(corner) for corner in ((self.x_low, self.y_low), (self.x_high, self.y_low),
                                                                      (self.x_high, self.y_high), (self.x_low, self.y_high)))))
        self.grid.set_stroke(style.MUTED, width=1, opacity=0.3)
        decimals = next(places for places in range(12) if np.isclose(round(step, places), step))  # 0.5, not 0.50
        self.ticks = VGroup(*[number_text(x, style.MUTED, TICK_SIZE, decimals)
                              .next_to(self.point((x, self.y_low)), DOWN, buff=TICK_GAP) for x in xs],
                            *[number_text(y, style.MUTED, TICK_SIZE, decimals)
                              .next_to(self.point((self.x_low, y)), LEFT, buff=TICK_GAP) for y in ys])
        self.add(self.grid, self.axes, self.ticks)

    @property
    def origin(self) -> np.ndarray:
        """Where the axes cross, wherever the plane has been moved."""
        return np.array([self.axes[1].get_x(), self.axes[0].get_y(), 0.0])

    @property
    def unit(self) -> float:
        """Frame units per unit of the plane, however it has been scaled."""
        return self.axes[0].get_length() / (self.x_high - self.x_low)

    def point(self, v) -> np.ndarray:
        """Where the plane's point v = (x, y) is drawn."""
        return self.origin + self.unit * np.array([v[0], v[1], 0.0])

    def coordinates(self, point) -> np.ndarray:
        """The plane's (x, y) of a drawn ``point``: ``point``'s inverse."""
        return (np.asarray(point)[:2] - self.origin[:2]) / self.unit

    def arrow(self, v, colour: ManimColor, start=(0.0, 0.0), width: float = ARROW_WIDTH) -> VMobject:
        """An arrow from ``start`` to ``start`` + v; a dot where v is 0 (it has no direction to point in)."""
        begin, end = self.point(start), self.point(np.add(start, v))
        if np.allclose(begin, end):
            return Dot(end, radius=0.06, color=colour)
        return Arrow(begin, end, buff=0, color=colour, stroke_width=width, max_tip_length_to_length_ratio=0.3,
                     max_stroke_width_to_length_ratio=12, tip_length=0.22)

    def shadow(self, q, foot, colour: ManimColor, side: float = 1.0) -> VGroup:
        """q's shadow on a line through the origin that ends at ``foot``: the shadow itself, thick, from the origin to
        ``foot`` (a dot when it has no length), and the dashed drop from q's tip to ``foot``. When q lies along the
        line, the shadow is hidden under q's arrow and the key's, and there is no drop: in its place a bracket as
        long as the shadow, beside the line on ``side`` (+1 left of the way it points, −1 right)."""
        if np.allclose(foot, 0):
            cast = Dot(self.origin, radius=0.09, color=colour)
        else:
            cast = Line(self.origin, self.point(foot), color=colour, stroke_width=2.2 * ARROW_WIDTH)
        if not np.allclose(q, foot):
            mark = DashedLine(self.point(q), self.point(foot), color=style.MUTED, stroke_width=2, dash_length=0.08)
        elif np.allclose(foot, 0):
            mark = VMobject()
        else:
            mark = self.bracket(foot, colour, side)
        return VGroup(cast, mark)

    def bracket(self, end, colour: ManimColor, side: float) -> VGroup:
        """A dimension line from the origin to ``end``, BRACKET_GAP beside that segment on ``side``, with a tick across
        each end: (the line, its two ticks)."""
        direction = np.array([end[0], end[1], 0.0]) / np.linalg.norm(end)
        normal = side * np.array([-direction[1], direction[0], 0.0])
        start, finish = (point + BRACKET_GAP * normal for point in (self.origin, self.point(end)))
        ticks = [Line(point - BRACKET_TICK * normal, point + BRACKET_TICK * normal, color=colour,
                      stroke_width=ARROW_WIDTH / 2) for point in (start, finish)]
        return VGroup(Line(start, finish, color=colour, stroke_width=ARROW_WIDTH), *ticks)

    def angle(self, u, v, colour: ManimColor = style.TEXT) -> VMobject:
        """The arc of the angle from u to v at the origin (the smaller one); nothing when either is 0 or they lie
        along one line the same way."""
        if np.allclose(u, 0) or np.allclose(v, 0) or np.isclose(cross(u, v), 0) and np.dot(u, v) > 0:
            return VMobject()
        first, second = (Line(self.origin, self.point(w)) for w in (u, v))
        radius = min(0.45, 0.5 * first.get_length(), 0.5 * second.get_length())
        return Angle(first, second, radius=radius, other_angle=bool(cross(u, v) < 0), color=colour,
                     stroke_width=3)

    def hull(self, points, colour: ManimColor = style.MUTED) -> VMobject:
        """The outline of the smallest convex shape holding ``points``, dashed: where a weighted average of them
        can land (a segment for two, nothing for one)."""
        corners = convex_hull(np.asarray(points, dtype=float))
        if len(corners) < 2:
            return VMobject()
        if len(corners) == 2:
            return DashedLine(*(self.point(c) for c in corners), color=colour, stroke_width=2)
        outline = Polygon(*(self.point(c) for c in corners), color=colour, stroke_width=2)
        return outline.set_fill(colour, opacity=0.12)


def cross(u, v) -> float:
    """u_x v_y - u_y v_x: > 0 when v turns left from u, 0 when they lie along one line."""
    return float(u[0] * v[1] - u[1] * v[0])


def freer_side(direction, points) -> float:
    """+1 when fewer of ``points`` lie left of the line along ``direction`` than right of it, else −1: the side where a
    mark beside the line is least in the way."""
    turns = np.sign([cross(direction, point) for point in points])
    return 1.0 if np.sum(turns > 0) < np.sum(turns < 0) else -1.0


def convex_hull(points: np.ndarray) -> np.ndarray:
    """The corners of the convex hull of (n, 2) ``points``, counter-clockwise (Andrew's monotone chain)."""
    unique = sorted({(float(x), float(y)) for x, y in np.round(points, 9)})
    if len(unique) <= 2:
        return np.array(unique)

    def half(ordered):
        chain = []
        for p in ordered:
            while len(chain) >= 2 and cross(np.subtract(chain[-1], chain[-2]), np.subtract(p, chain[-2])) <= 0:
                chain.pop()
            chain.append(p)
        return chain[:-1]

    return np.array(half(unique) + half(unique[::-1]))


def place_labels(labels: list, anchors: list, directions: list, obstacles: list,
                 bounds: tuple[float, float, float, float], avoid=()) -> None:
    """Put each label by its anchor (an arrow's tip), trying DIRECTIONS places round it (on each ring of
    LABEL_GAPS) from its ``directions`` entry (the arrow's own) outwards, and taking the first that overlaps no label placed before it nor a
    mobject of ``avoid``, crosses no segment of ``obstacles`` ((start, end) points) and stays in ``bounds``
    (left, right, bottom, top); the least crowded place when none is free."""
    placed = [_box(mobject.get_center(), mobject) for mobject in avoid]
    for label, anchor, first in zip(labels, anchors, directions):
        start = math.atan2(first[1], first[0]) if np.any(first) else math.pi / 4
        candidates = []
        for k in range(DIRECTIONS * len(LABEL_GAPS)):
            turn = (k % DIRECTIONS + 1) // 2 * (1 if k % 2 else -1) * 2 * math.pi / DIRECTIONS
            direction = np.array([math.cos(start + turn), math.sin(start + turn), 0.0])
            # the box's nearest corner or side a gap from the anchor: the nearest ring of places first
            centre = anchor + direction * LABEL_GAPS[k // DIRECTIONS] \
                + direction / np.abs(direction).max() * [label.width / 2, label.height / 2, 0]
            box = _box(centre, label)
            # a text over a text, or out of bounds, is worse than a label over an arrow
            crowding = (4 * sum(_overlap(box, other) for other in placed)
                        + sum(crosses(box, segment) for segment in obstacles) + 4 * _outside(box, bounds))
            candidates.append((crowding, k, centre, box))
            if crowding == 0:
                break
        _, _, centre, box = min(candidates, key=lambda candidate: candidate[:2])
        label.move_to(centre)
        placed.append(box)


def _box(centre, label, margin: float = 0.08) -> tuple[float, float, float, float]:
    return (centre[0] - label.width / 2 - margin, centre[0] + label.width / 2 + margin,
            centre[1] - label.height / 2 - margin, centre[1] + label.height / 2 + margin)


def _overlap(a, b) -> int:
    return int(a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3])


def crosses(box, segment, samples: int = 40) -> int:
    """Whether the segment ((start, end) points) passes through ``box`` (left, right, bottom, top)."""
    start, end = (np.asarray(point)[:2] for point in segment)
    points = start + np.linspace(0, 1, samples)[:, None] * (end - start)
    return int(np.any((points[:, 0] > box[0]) & (points[:, 0] < box[1]) & (points[:, 1] > box[2]) & (points[:, 1] < box[3])))


def _outside(box, bounds) -> int:
    left, right, bottom, top = bounds
    return int(box[0] < left or box[1] > right or box[2] < bottom or box[3] > top)



class Magnifier(VGroup):
    """A small square region of a plane drawn larger in a window of its own: the region's outline on the plane, the
    window, and two lines joining their nearer corners. ``point``/``coordinates`` work as the plane's do, in the
    window; ``arrow`` and ``segment`` draw the part of a vector or a line that falls inside the region (clipped at
    its edges; an arrowhead only where the tip itself is inside)."""

    def __init__(self, plane: VectorPlane, centre, side: float, size: float):
        super().__init__()
        self.plane, self.low, self.side = plane, np.asarray(centre, dtype=float) - side / 2, float(side)
        corners = [plane.point(self.low), plane.point(self.low + side)]
        self.region = Rectangle(width=side * plane.unit, height=side * plane.unit, color=style.HIGHLIGHT,
                                stroke_width=2).move_to((corners[0] + corners[1]) / 2)
        self.window = Rectangle(width=size, height=size, stroke_color=style.MUTED, stroke_width=2,
                                fill_color=style.PANEL, fill_opacity=1.0)
        self.links = VGroup()
        self.add(self.region, self.window, self.links)

    def join(self) -> "Magnifier":
        """Draw the two lines from the region's corners to the window's nearer ones (once both are in place)."""
        right = self.window.get_x() > self.region.get_x()
        ends = (UR, DR) if right else (UL, DL)
        starts = (UL, DL) if right else (UR, DR)
        self.links.become(VGroup(*[DashedLine(self.region.get_corner(end), self.window.get_corner(start),
                                              color=style.MUTED, stroke_width=1.5, dash_length=0.06)
                                   for end, start in zip(ends, starts)]))
        return self

    @property
    def zoom(self) -> float:
        """How many times larger than on the plane the region is drawn."""
        return self.window.width / (self.side * self.plane.unit)

    @property
    def unit(self) -> float:
        return self.window.width / self.side

    def point(self, v) -> np.ndarray:
        return self.window.get_corner(DL) + self.unit * np.array([v[0] - self.low[0], v[1] - self.low[1], 0.0])

    def coordinates(self, point) -> np.ndarray:
        return (np.asarray(point)[:2] - self.window.get_corner(DL)[:2]) / self.unit + self.low

    def inside(self, v, slack: float = 1e-9) -> bool:
        return bool(np.all(np.asarray(v) >= self.low - slack) and np.all(np.asarray(v) <= self.low + self.side + slack))

    def clipped(self, start, end) -> tuple[np.ndarray, np.ndarray] | None:
        """The part of the segment from ``start`` to ``end`` (plane coordinates) inside the region (Liang-Barsky)."""
        start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
        delta, low, high = end - start, 0.0, 1.0
        for axis in range(2):
            for p, q in ((-delta[axis], start[axis] - self.low[axis]),
                         (delta[axis], self.low[axis] + self.side - start[axis])):
                if abs(p) < 1e-12:
                    if q < 0:
                        return None
                    continue
                t = q / p
                low, high = (max(low, t), high) if p < 0 else (low, min(high, t))
        if low >= high:
            return None
        return start + low * delta, start + high * delta

    def arrow(self, v, colour: ManimColor, start=(0.0, 0.0), width: float = ARROW_WIDTH) -> VMobject:
        """The part of the arrow from ``start`` to ``start`` + v inside the region: with its head when its tip is."""
        end = np.add(start, v)
        part = self.clipped(start, end)
        if part is None:
            return VMobject()
        begin, finish = (self.point(p) for p in part)
        if np.allclose(begin, finish):
            return VMobject()
        if not self.inside(end):
            return Line(begin, finish, color=colour, stroke_width=width)
        return Arrow(begin, finish, buff=0, color=colour, stroke_width=width, max_tip_length_to_length_ratio=0.3,
                     max_stroke_width_to_length_ratio=12, tip_length=0.22)

    def segment(self, start, end, colour: ManimColor = style.MUTED, width: float = 2) -> VMobject:
        part = self.clipped(start, end)
        if part is None:
            return VMobject()
        return DashedLine(*(self.point(p) for p in part), color=colour, stroke_width=width, dash_length=0.08)
