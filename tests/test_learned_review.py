"""Section 7 (learned) against issue 43's review: the screen follows the voice (no still over 6 s under a voice at
the narration's pace), each head's arcs over the twenty tokens can be told apart, and the loss's level after the drop
is explained by a number recomputed here from the training task's definition and checked against the trained curve."""

import numpy as np
import pytest
from manim import VMobject

from attn_math.induction_task import previous_occurrence, training_sequences
from learned_training import default_training
from lesson.numbers import parse_number
from scene_checks import LONGEST_FREEZE, PacedSpeaker, run_scene, stills_in
from scenes.attention_arcs import AttentionArc
from scenes.learned import INDUCTION_COLOUR, PREVIOUS_COLOUR

PIXELS_PER_UNIT = 1280 / 14.222  # at 720p


@pytest.fixture(scope="module")
def training():
    return default_training()


@pytest.fixture(scope="module")
def spoken():
    """The section with a stand-in voice at the narration's pace."""
    return run_scene("learned", narration=PacedSpeaker())


def test_no_step_stands_still_over_six_seconds_under_the_voice(spoken):
    assert {step.key: stills_in(spoken, step.key) for step in spoken.steps} == {
        step.key: [] for step in spoken.steps}, f"still stretches over {LONGEST_FREEZE} s"


def test_the_loss_settles_where_copying_every_repeat_and_guessing_the_rest_leaves_it(spoken, training):
    """A training row's target can be copied only when its current token occurred before: count those on many rows
    drawn as the training draws them, and price each other target at ln V (guessing among V tokens)."""
    vocabulary, half = training.shape.vocabulary, training.shape.half
    rows = training_sequences(np.random.default_rng(7), 20000, vocabulary, half)
    uncopyable = (previous_occurrence(rows)[:, :-1] < 0).sum(axis=1)  # targets 1..T-1, by their current token
    floor = uncopyable.mean() / (rows.shape[1] - 1) * np.log(vocabulary)
    assert floor == pytest.approx(1.78, abs=0.01)  # the default task: 16.25 of 29 targets, ln 24 = 3.18 each
    settled = training.losses[-len(training.losses) // 5:].mean()  # the curve's last fifth, after the drop
    assert settled == pytest.approx(floor, abs=0.1)
    step = next(step for step in spoken.steps if step.key == "loss")
    assert [parse_number(text) for row in step.numbers["copying_loss"] for text in row] == [
        pytest.approx(floor, abs=0.006)]
    said = " ".join(text for text, *_ in step.narration["sentences"])
    assert f"{floor:.2f}" in said and f"unos {round(uncopyable.mean())} de cada {rows.shape[1] - 1}" in said


def arcs_of(group, colour) -> list[AttentionArc]:
    return [arc for arc in group.get_family() if isinstance(arc, AttentionArc)
            and arc.tip.get_fill_color().to_hex().lower() == colour.to_hex().lower()]


def ends(arc: AttentionArc) -> tuple[float, float]:
    """(x where the arc leaves, x of its tip's point), in frame units."""
    curve: VMobject = arc.curve
    points = np.concatenate([part.points for part in curve.get_family() if len(part.points)])
    return float(points[0][0]), float(arc.tip.get_vertices()[0][0])


def test_each_heads_arcs_on_the_example_can_be_followed_token_by_token(spoken):
    """At the end of the heads forming: at most one arc leaves each token in each head, no two clear arcs of a head
    land on one token, clear arcs land at least 20 px apart at 720p, and the induction head's arcs, which cross, show
    one arc clearly and the others at most half as opaque."""
    forming = spoken.forming
    row = forming[0]  # the example's tokens the arcs are drawn over
    centres = [row.centre_x(i) for i in range(len(row.words))]
    nearest = lambda x: int(np.argmin(np.abs(np.array(centres) - x)))  # noqa: E731
    for colour in (PREVIOUS_COLOUR, INDUCTION_COLOUR):
        arcs = arcs_of(forming, colour)
        assert len(arcs) >= len(centres) // 2 - 1
        queries = [nearest(ends(arc)[0]) for arc in arcs]
        assert len(set(queries)) == len(queries), "a token with more than one arc"
        clear = sorted(ends(arc)[1] for arc in arcs if arc.tip.get_fill_opacity() >= 0.5)
        assert clear, "no arc to follow"
        assert np.all(np.diff(clear) * PIXELS_PER_UNIT >= 20), "two clear arcs land on one token"
    induction = arcs_of(forming, INDUCTION_COLOUR)
    opacities = sorted(arc.tip.get_fill_opacity() for arc in induction)
    assert opacities[-1] >= 0.5 and opacities[-2] <= opacities[-1] / 2
