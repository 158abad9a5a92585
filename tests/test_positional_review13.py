"""Review s13 (frames, «04 positional», graded 9), four of its notes:
- the voice said «exactamente igual … solo en otro orden» 4.4 s before the moved word's row of Z_B came and 7.3 s
  before the «0.00» that proves it: the claim is now said once every row and the 0.00 are on screen;
- «1.15 («al»)» was the difference of the rounded entries (2.36 − 1.21); a student recomputing gets 2.357 − 1.215 =
  1.14: the largest difference is now the values';
- «hace tres palabras»: 5.54 was offered as Δ = 3's signature while Δ = 4 gives 5.56 in the same table: the note writes
  both and says the hands tell them apart;
- a pulse grew «perro»'s output rows past the frames round them for 1.2 s: it is now a flash of colour.
Measured on the built mobjects, spoken by the stand-in voice, against numbers worked out here."""

import numpy as np
import pytest
from manim import Indicate, Rectangle

from lesson.numbers import parse_number
from scenes import style
from scenes.positional import PositionalScene
from tests.scene_checks import PacedSpeaker, run_scene
from tests.test_scene_positional import both_sentences

PERMUTATION = [0, 4, 2, 3, 1]  # sentence B's row i holds sentence A's row PERMUTATION[i]


@pytest.fixture(scope="module")
def watched():
    """The default section spoken at the narration's pace; the time each comparison of rows lands, and, for each
    pulse of an output row in the with-PE step, the row at its largest beside the highlight frames on screen."""
    pulses = []
    play = PositionalScene.play

    def watched_play(scene, *animations, **options):
        if scene.steps and scene.steps[-1].key == "with_pe":
            frames = [part for top in scene.mobjects for part in top.get_family() if isinstance(part, Rectangle)
                      and part.get_stroke_color().to_hex().upper() == style.HIGHLIGHT.to_hex().upper()]
            for animation in animations:
                if isinstance(animation, Indicate) and any(getattr(part, "tag", ("",))[0].startswith("Z_")
                                                           for part in animation.mobject.get_family()):
                    pulses.append((animation.create_target(), frames))
        return play(scene, *animations, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PositionalScene, "play", watched_play)
        scene = run_scene("positional", narration=PacedSpeaker())
    return scene, pulses


def step_of(scene, key):
    return next(step for step in scene.steps if step.key == key)


def test_the_verdict_is_said_once_the_screen_shows_it(watched):
    """Every phrase that says the outputs are the same («igual») starts after the last row of Z_B has landed and after
    the 0.00 has landed with its sound; no phrase before says it; the caption grows with «sale igual» no earlier."""
    scene, _ = watched
    step = step_of(scene, "permutation")
    compared = [cue.time for cue in scene.cues if cue.kind == "outputs_compared" and not cue.values["with_pe"]
                and step.start <= cue.time < step.end]
    rows, verdict = compared[:-1], compared[-1]
    assert len(rows) == 5 and verdict > max(rows)
    said = [(text, start) for text, start, _, _ in step.narration["phrases"] if "igual" in text]
    assert said, step.narration["phrases"]
    for text, start in said:
        assert start >= verdict - 1e-6 and start >= max(rows) - 1e-6, (text, start, rows, verdict)
    grown = [time for time, text in step.grown if "igual" in text]
    assert all(time >= verdict - 1e-6 for time in grown), (grown, verdict)


def test_the_largest_difference_is_the_values(watched):
    """With PE, the largest difference between a word's two output rows is written as a student recomputing it in
    numpy gets it (1.14: 2.357 − 1.215), not as the difference of the rounded entries (1.15)."""
    scene, _ = watched
    outputs = both_sentences(with_pe=True)
    exact = np.abs(outputs["B"] - outputs["A"][PERMUTATION]).max()
    rounded = np.abs(np.round(outputs["B"], 2) - np.round(outputs["A"], 2)[PERMUTATION]).max()
    assert f"{exact:.2f}" != f"{rounded:.2f}"  # the demonstration's numbers tell the two conventions apart
    written = step_of(scene, "with_pe").numbers["difference"][0][0]
    assert parse_number(written) == pytest.approx(round(exact, 2)), written


def test_three_words_ago_is_not_said_to_be_told_apart_from_four(watched):
    """Δ = 3's similarity (5.54) and Δ = 4's (5.56) differ by less than 0.1: the note under the heatmap writes both,
    each worked out here as Σ cos(ω_i Δ) with ω_i = 10000^(−2i/16), and the fastest hand's turns that tell them apart."""
    scene, _ = watched
    omegas = 10000.0 ** (-2 * np.arange(8) / 16)
    similarity = {delta: np.cos(omegas * delta).sum() for delta in (3, 4)}
    assert abs(similarity[3] - similarity[4]) < 0.1
    note = " ".join(" ".join(text.text.split()) for text in step_of(scene, "similarity").texts)  # lines joined
    assert f"(Δ = 3): {similarity[3]:.2f}" in note and f"Δ = 4: {similarity[4]:.2f}" in note, note
    assert "manecilla 0: 172° o 229°" in note  # review s15: the hands' turns that tell them apart (step 7's)


def test_the_pulse_stays_inside_its_frames(watched):
    """At its largest, each pulse of «perro»'s output rows stays inside the highlight frame round that row (the
    frames drawn in step 1 stay on screen): no digit is cut by a frame's edge."""
    _, pulses = watched
    assert len(pulses) == 2
    for target, frames in pulses:
        frame = min(frames, key=lambda frame: np.linalg.norm(frame.get_center() - target.get_center()))
        assert frame.get_left()[0] < target.get_left()[0] and target.get_right()[0] < frame.get_right()[0], (
            frame.get_left()[0], target.get_left()[0], target.get_right()[0], frame.get_right()[0])
        assert frame.get_bottom()[1] < target.get_bottom()[1] and target.get_top()[1] < frame.get_top()[1]
