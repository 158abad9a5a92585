"""Review s13: the question cards stood still for 6.07 s and 6.67 s (pipeline): the question said, then its two
seconds to think on a still screen. The thinking time is seen passing: a bar under the card runs out over it."""

from __future__ import annotations

import pytest
from manim import Rectangle

from scene_checks import FRAME, freezes
from scenes.lesson_scene import LONGEST_FREEZE, THINK_SECONDS
from test_cards_spoken import heads, matrix  # noqa: F401 (fixtures: the spoken matrix and heads scenes)


def still_within(scene, start: float, end: float) -> list[tuple[float, float]]:
    """The still stretches (waits back to back), cut to ``start``-``end``, that last over two frames there."""
    cut = [(max(begin, start), min(until, end)) for begin, until in freezes(scene)]
    return [(begin, until) for begin, until in cut if until - begin > 2 * FRAME]


def test_a_predictive_cards_thinking_time_is_never_still(matrix):
    scene, _ = matrix
    [card] = [card for card in scene.cards if card.kind == "predictive"]
    voice_end = card.narration["phrases"][-1][2]
    assert card.end - voice_end >= THINK_SECONDS - FRAME  # still time to think
    assert still_within(scene, voice_end + FRAME, card.end) == []  # ... seen passing
    # and the card as a whole: its voice (a few seconds), then the bar: never 6 s of a still card
    assert all(until - begin < LONGEST_FREEZE for begin, until in still_within(scene, card.start, card.end))


def test_a_closing_cards_thinking_time_before_its_answer_is_never_still(heads):
    scene, _ = heads
    [card] = [card for card in scene.cards if card.kind == "closing"]
    question_end, answer_start = card.narration["phrases"][-2][2], card.narration["phrases"][-1][1]
    assert answer_start - question_end == pytest.approx(THINK_SECONDS, abs=2 * FRAME)
    assert still_within(scene, question_end + FRAME, answer_start - FRAME) == []


def test_the_bar_is_gone_when_the_card_is(matrix):
    """It leaves with its thinking time: nothing of it stays on the next step's screen."""
    scene, _ = matrix
    assert not [part for mobject in scene.mobjects for part in mobject.get_family()
                if isinstance(part, Rectangle) and part.height == pytest.approx(0.13)]
