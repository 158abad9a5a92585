"""Issue 27, positional: the (sin, cos) pairs of PE as clock hands. The hands, the arcs of their turns and the
turns written under them, read off the built mobjects, against the formula PE(pos, 2i) = sin(pos / base^(2i/d)),
PE(pos, 2i + 1) = cos(pos / base^(2i/d)) written again here; at the default and at the largest config."""

import math

import numpy as np
import pytest
from manim import Arc, Create

from attn_math.positional import hand_angles, hand_turns, sinusoidal_encoding
from lesson.numbers import parse_number
from lesson.steps import step_keys
from scenes.lesson_scene import LessonScene
from scenes.positional import PositionalScene
from tests.scene_checks import lecture_problems, recorded, run_scene

LARGEST = ("positional.n_positions=64", "positional.d_model=64", "positional.base=1e9")
SMALLEST_ODD = ("positional.n_positions=2", "positional.d_model=3", "positional.base=1.0001")
FULL_TURN = 2 * math.pi


def pe_pair(pos, i, d, base):
    """(PE[pos, 2i], PE[pos, 2i + 1]) from the formula."""
    angle = pos / base ** (2 * i / d)
    return math.sin(angle), math.cos(angle)


def formula_angle(pos, i, d, base):
    """θ_i(pos) = pos / base^(2i/d), the angle inside sin and cos, in [0, 2π)."""
    return (pos / base ** (2 * i / d)) % FULL_TURN


def clockwise(vector) -> float:
    """The angle of a vector from 12 o'clock, clockwise, in [0, 2π)."""
    return math.atan2(vector[0], vector[1]) % FULL_TURN


def same_angle(a, b, tolerance=1e-6) -> bool:
    return abs((a - b + math.pi) % FULL_TURN - math.pi) < tolerance


class Watched:
    """The positional scene run with a snapshot after every play of the clock_hands step: each dial's hand as
    (tip − pivot) / radius, and the arcs that play drew."""

    def __init__(self, *overrides: str):
        self.states, self.arc_plays = [], []
        play = LessonScene.play
        watched = self

        def snapshot(scene, *animations, **options):
            play(scene, *animations, **options)
            if scene.steps and scene.steps[-1].key == "clock_hands" and hasattr(scene, "hand_row"):
                watched.states.append({i: (dial.hand.get_end() - dial.hand.get_start())[:2] / dial.radius
                                       for i, dial in scene.hand_row.dials.items()})
                arcs = [part for animation in animations if isinstance(animation, Create)
                        for part in animation.mobject.get_family() if type(part) is Arc]  # not Circle, Dot
                if arcs:
                    watched.arc_plays.append(arcs)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(LessonScene, "play", snapshot)
            if overrides:
                self.scene, self.log = run_scene("positional", *overrides), []
            else:
                self.scene, self.log = recorded("positional")
        n, self.d = self.scene.PE.shape
        self.base = self.scene.settings.base
        self.starts, self.delta = self.scene.hand_starts()
        self.twin = self.scene.hand_twin(self.starts[-1], self.delta)  # the hands go on to it after the starts
        self.step = next(step for step in self.scene.steps if step.key == "clock_hands")

    def states_at(self, pos) -> list[int]:
        """The snapshots (their indices) whose every hand points where θ_i(pos) says."""
        return [k for k, state in enumerate(self.states) if all(
            same_angle(clockwise(tip), formula_angle(pos, i, self.d, self.base)) for i, tip in state.items())]


@pytest.fixture(scope="module")
def default():
    return Watched()


@pytest.fixture(scope="module")
def largest():
    return Watched(*LARGEST)


@pytest.fixture(scope="module")
def smallest_odd():
    return Watched(*SMALLEST_ODD)


WATCHED = ["default", "largest"]


def test_the_hand_angles_read_like_the_formula():
    d, base = 16, 10000.0
    PE = sinusoidal_encoding(12, d, base)
    for pos in (0, 3, 11):
        angles = hand_angles(pos, d, base)
        assert np.column_stack([np.sin(angles), np.cos(angles)]) == pytest.approx(PE[pos, :].reshape(-1, 2))
    assert hand_turns(3, d, base) == pytest.approx([3 / base ** (2 * i / d) for i in range(d // 2)])
    assert len(hand_angles(5, 63, 1e9)) == 31  # an odd d's lone sin is no hand


@pytest.mark.parametrize("name", WATCHED)
def test_each_hand_is_its_pair_of_pe_and_points_at_omega_times_pos(name, request):
    """At the end of the step the hands stand at the last position (the last start + Δ, or + Δ's twin distance when
    the hands go on to it, review s15): each tip is (PE[pos, 2i], PE[pos, 2i + 1])."""
    watched = request.getfixturevalue(name)
    last = watched.starts[-1] + (watched.twin or watched.delta)
    final = watched.states[-1]
    for i, tip in final.items():
        assert tuple(tip) == pytest.approx(pe_pair(last, i, watched.d, watched.base), abs=1e-6), i


@pytest.mark.parametrize("name", WATCHED)
def test_the_hands_stand_at_each_start_and_each_start_plus_delta_in_turn(name, request):
    watched = request.getfixturevalue(name)
    positions = [pos for start in watched.starts for pos in (start, start + watched.delta)]
    assert positions == [0, 3, 8, 11] if name == "default" else [0, 3, 16, 19]
    found = [watched.states_at(pos)[0] for pos in positions]
    assert found == sorted(found)


@pytest.mark.parametrize("name", WATCHED)
def test_every_arc_turns_its_hand_by_omega_times_delta_from_either_start(name, request):
    """The arcs of each turn, read from their points: they start at θ_i(start) and sweep clockwise ω_i·Δ, the
    same from both starts."""
    watched = request.getfixturevalue(name)
    row = watched.scene.hand_row
    assert len(watched.arc_plays) == len(watched.starts) + (watched.twin is not None) and len(watched.starts) == 2
    turns = []
    for start, arcs in zip(watched.starts, watched.arc_plays):
        by_hand = {}
        for arc in arcs:  # on the dial it lies in, measured from the dial's pivot
            i = min(row.dials, key=lambda hand: np.linalg.norm(row.dials[hand].centre - arc.points[0]))
            first, last = (point - row.dials[i].centre for point in (arc.points[0], arc.points[-1]))
            assert same_angle(clockwise(first), formula_angle(start, i, watched.d, watched.base))
            by_hand[i] = (clockwise(last) - clockwise(first)) % FULL_TURN
        assert sorted(by_hand) == sorted(row.dials)
        turns.append(by_hand)
    for i in row.dials:
        expected = watched.delta / watched.base ** (2 * i / watched.d)
        assert turns[0][i] == pytest.approx(expected, abs=1e-6) and turns[1][i] == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("name", WATCHED)
def test_the_turns_written_are_the_same_from_both_starts_in_degrees(name, request):
    watched = request.getfixturevalue(name)
    rows = [watched.step.numbers[f"turn_from_{start}"][0] for start in watched.starts]
    assert rows[0] == rows[1]
    for i, text in enumerate(rows[0]):
        if text is not None:
            degrees = math.degrees(watched.delta / watched.base ** (2 * i / watched.d))
            assert parse_number(text) == pytest.approx(degrees, abs=0.5 if degrees >= 10 else 0.05), (i, text)


@pytest.mark.parametrize("name", WATCHED)
def test_the_hands_go_from_fast_on_the_left_to_slow_on_the_right(name, request):
    watched = request.getfixturevalue(name)
    row = watched.scene.hand_row
    hands = sorted(row.dials)
    xs = [row.dials[i].centre[0] for i in hands]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    speeds = [1 / watched.base ** (2 * i / watched.d) for i in hands]
    assert speeds == sorted(speeds, reverse=True)
    assert [row.ticks[i].shown_text for i in hands] == [str(i) for i in hands]
    if name == "largest":  # 32 hands: the 4 fastest and the 4 slowest, and the line under them says so
        assert hands == [0, 1, 2, 3, 28, 29, 30, 31]
        texts = {text.text for text in watched.step.texts}
        assert {"← las 4 más rápidas", "las 4 más lentas →"} <= texts


@pytest.mark.parametrize("name", ["default", "largest", "smallest_odd"])
def test_the_step_passes_the_lecture_checks(name, request):
    """Nothing overlaps or leaves the frame, every text at least 14 px high at 720p, no still screen over 6 s."""
    assert lecture_problems(request.getfixturevalue(name).scene) == []


def test_an_odd_d_says_its_last_column_is_no_hand(smallest_odd):
    assert sorted(smallest_odd.scene.hand_row.dials) == [0]
    assert any("dim 2 es un seno sin su coseno" in " ".join(text.text.split()) for text in smallest_odd.step.texts)
    assert smallest_odd.starts == (0,)  # two positions leave room for one turn only: the caption says so
    assert "no depende de pos" in smallest_odd.step.caption


def test_the_narration_speaks_of_fast_and_slow_hands_only_when_there_are_several(default, smallest_odd):
    """One dial (d = 3) has no hands on the left and on the right to compare."""
    assert "izquierda" in default.step.narration["text"] and "derecha" in default.step.narration["text"]
    alone = smallest_odd.step.narration["text"]
    assert "izquierda" not in alone and "derecha" not in alone and "manecilla" in alone


def test_the_step_comes_between_the_waves_and_the_similarity(default):
    keys = [step.key for step in default.scene.steps]
    assert keys[keys.index("waves") + 1:keys.index("similarity")] == ["clock_hands"]
    assert list(PositionalScene.STEPS) == keys == step_keys("positional")


def test_the_turn_sounds_as_it_is_written(default):
    """The sweep over the positions starts with each turn; the turns' blips land as their numbers are written."""
    scene, log = default.scene, default.log
    plays = [entry[1] for entry in log if entry[0] == "play"]
    step = default.step
    cues = [scene.cues[index] for kind, index in log if kind == "cue" and step.start <= scene.cues[index].time
            and scene.cues[index].kind in ("values", "position_sweep") and scene.cues[index].time <= step.end]
    assert [cue.kind for cue in cues] == ["position_sweep", "values"] * (2 + (default.twin is not None))
    for start, (sweep, blips) in zip(default.starts, zip(cues[::2], cues[1::2])):
        turning = next(play for play in plays if play.start == pytest.approx(sweep.time) and not play.waits)
        assert turning.end - turning.start == pytest.approx(sweep.values["duration"])
        written = next(play for play in plays if (f"turn_from_{start}", (0, 0)) in play.tags())
        assert blips.time == pytest.approx(written.end)
        assert blips.values["values"] == pytest.approx([math.degrees(3 / 10000.0 ** (2 * i / 16)) for i in range(8)])
