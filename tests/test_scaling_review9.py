"""Review 9 of section 02 scaling (frames-a.md «02 scaling»): what a viewer reads in the two-panel steps.

Score cells apart with 16 px digits and taller bars; a colour scale that fits the scores each step shows; step 5 opens
after step 4's picture has left; the last sweep holds each d_k long enough to read and never blanks every number at
once; the silent listening moment says on screen what to listen for; the voice names the keys and the slope as they
are framed; the slope sum is called what it is (a total slope, not «gradiente»).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from manim import SurroundingRectangle, VMobject, config

from lesson.locale import load_locale
from lesson.numbers import parse_number
from scenes.fades import Swap
from scenes.lesson_scene import HEADER_SECONDS
from tests.scene_checks import PacedSpeaker, flattened, recorded, run_scene
from tests.test_scene_scaling import by_hand

PIXELS = 720 / 8  # 720p pixels per frame unit (the frame is 8 units high)
DIGIT_PIXELS = 17  # the review measured 15 px; 16 px is the section's floor: a pixel of margin over it
CELL_GAP_PIXELS = 8  # dark background between two cells: «−3.30 −8.02», not «−3.30−8.02»
BAR_PIXELS = 100  # a weight of 1.00 in a stacked panel (the review: about 70 px, 0.02 a 2 px sliver)
READABLE = 2.0  # seconds each d_k of the last sweep stays unchanged
BLANK = 0.25  # a swapped number under this opacity reads as gone


@pytest.fixture(scope="module")
def paced():
    """The default scene spoken at the narration's pace, every play logged."""
    return recorded("scaling", narration=PacedSpeaker())


@pytest.fixture(scope="module")
def scene():
    return run_scene("scaling")


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def plays_in(scene, log, key):
    record = step(scene, key)
    return [play for kind, play in log if kind == "play" and record.start - 1e-6 <= play.start < record.end]


def digit_pixels(text) -> float:
    from scenes.visuals import cap_height

    return cap_height(text) * PIXELS


def test_score_cells_stand_apart_with_legible_digits_and_the_bars_use_the_room(scene):
    """Review: «the q·k digits are 15 px and the cells touch»; «a weight of 1.00 is about 70 px». At the end of the
    section (both panels, d_k = 512), measured on the cells and bars as placed."""
    assert config.frame_height == 8
    for panel in (scene.unscaled, scene.scaled):
        cells = panel.scores.cells
        gaps = [right.get_left()[0] - left.get_right()[0] for left, right in zip(cells, cells[1:])]
        assert min(gaps) * PIXELS >= CELL_GAP_PIXELS, min(gaps) * PIXELS
        assert min(digit_pixels(number) for number in panel.scores.numbers) >= DIGIT_PIXELS
        for number, cell in zip(panel.scores.numbers, cells):  # each number inside its own cell
            assert cell.get_left()[0] <= number.get_left()[0] and number.get_right()[0] <= cell.get_right()[0]
        chart = panel.chart
        full = chart.chart_height * chart.scale_factor  # the height of a weight of 1
        assert full * PIXELS >= BAR_PIXELS, full * PIXELS
        tallest = max(chart.bars, key=lambda bar: bar.height)
        weight = max(chart.values)
        assert tallest.height == pytest.approx(weight * full, rel=0.02)


def largest_score(scene, d_ks, versions=("unscaled", "scaled")) -> float:
    settings = scene.settings
    return max(abs(value) for d_k in d_ks for version in versions
               for value in by_hand(d_k, settings.n_keys, settings.seed)[f"scores_{version}"])


def test_the_colour_scale_fits_the_scores_each_step_shows(scene):
    """Review: the legend read ±50 while steps 3 to 5 show scores of 12.8 at most: cells almost uncoloured. Steps 3
    to 5 show d_k = 2, 8 and 64 (the configured one): their bar ends just past their largest |score| (review 12: its
    ticks cover every score, 12.8: ±13); the last sweep goes on to 512, its bar to ±52. Each bar's label names the
    d_k it covers."""
    early, every = (2, 8, 64), (2, 8, 64, 512)
    assert scene.settings.d_k == 64
    for key, d_ks in (("growing", early), ("scaled", early)):
        shown = largest_score(scene, d_ks)
        ticks = [parse_number(text) for text in step(scene, key).numbers["score_legend"][0]]
        assert ticks[1] == 0 and ticks[0] == -ticks[2]
        assert shown <= ticks[2] <= 1.1 * shown, (key, ticks, shown)
        assert any(f"d_k ≤ {max(d_ks)}" in text.text for text in step(scene, key).texts), key
    # the last sweep's bar (it leaves with the panels for the summary table, review 13): to ±52 over d_k ≤ 512
    assert largest_score(scene, every) <= scene.largest_score <= 1.1 * largest_score(scene, every)
    assert scene.scale_high == max(every)
    # both panels on one scale, the bar's: never two scales on one screen
    assert scene.unscaled.scores.largest == scene.scaled.scores.largest
    assert largest_score(scene, every) <= scene.scaled.scores.largest <= 1.1 * largest_score(scene, every)


def test_step_five_opens_once_step_four_has_left(paced):
    """Review: «step 5 opens with a messy crossfade»: the d_k = 8 walk-through and the two-row layout overlapped,
    «con d_k = 64: 1.00» over the new chart. No play of the scaled step shows both, and the old has gone first."""
    scene, log = paced
    record = step(scene, "scaled")  # from its header's play on: the old drawing leaves with the old header
    plays = [play for kind, play in log if kind == "play" and record.start - HEADER_SECONDS - 1e-6 <= play.start < record.end]
    old = [play for play in plays if play.shows(scene.moves)]
    new = [play for play in plays if play.shows(scene.unscaled) or play.shows(scene.legend)]
    assert old and new
    assert not set(map(id, old)) & set(map(id, new))
    assert max(play.end for play in old) <= min(play.start for play in new) + 1e-6


def d_k_changes(scene, log):
    """The plays of the last step that put a new d_k in the readout, with the d_k they land on."""
    plays = plays_in(scene, log, "restored")
    return [play for play in plays if ("d_k", (0, 0)) in play.tags() and "Vanish" not in play.kinds]  # not the readout
    # leaving for the summary table


def test_each_d_k_of_the_last_sweep_stays_long_enough_to_read(paced):
    """Review: the second 64 lasted about 1 s. Every d_k the sweep shows stays unchanged READABLE seconds at least,
    from the play that lands it to the next change (the last until the step ends)."""
    scene, log = paced
    changes = d_k_changes(scene, log)
    assert len(changes) == 2  # 64 (the last step's), 512: the smaller d_k come back in the summary table
    ends = [following.start for following in changes[1:]] + [step(scene, "restored").end]
    held = [end - change.end for change, end in zip(changes, ends)]
    assert min(held) >= READABLE - 1e-6, held


def test_no_moment_of_a_d_k_change_blanks_most_numbers_at_once(paced):
    """Review: «during the swaps all values blank out» (frame at 135). Each number fades out, then its new value in;
    the numbers of one change do so one after the other, so at no moment are over half of them gone."""
    scene, log = paced
    checked = 0
    for play in d_k_changes(scene, log) + [play for play in plays_in(scene, log, "growing")
                                            if ("d_k", (0, 0)) in play.tags()]:
        swaps = [animation for animation in flattened(play.animations) if isinstance(animation, Swap)]
        if len(swaps) < 4:
            continue
        for t in np.linspace(0, 1, 201):
            gone = sum(abs(1 - 2 * swap.rate_func(t)) < BLANK for swap in swaps)
            assert gone <= len(swaps) / 2, (play.start, t, gone, len(swaps))
        checked += 1
    assert checked >= 4


def test_the_silent_listening_moment_says_on_screen_what_to_listen_for(paced):
    """Review: 8.7 s without narration during the d_k sweep, no caption on what to listen for. A line says it from
    before the moment starts until it has ended."""
    scene, log = paced
    record = step(scene, "growing")
    [(start, end)] = record.narration["listening"]
    hint = scene.strings["labels"]["listen"]
    shown = [play for kind, play in log if kind == "play"
             and any(getattr(mobject, "shown_text", None) == hint for mobject in play.animated)]
    assert len(shown) == 2, "one play brings the line, one takes it away"
    assert shown[0].end <= start + 1e-6 and shown[1].start >= end - 0.5
    assert "¿" in hint and "?" in hint and "Escucha" in hint


def test_the_voice_names_the_key_as_it_is_framed(paced):
    """Review: 13 s on the one-hot with one box. The phrase «una sola clave se lleva casi todo el peso» starts with
    the play that frames that key, not 2-3 s before it under «Se afila hasta que …»."""
    scene, _ = paced
    record = step(scene, "growing")
    phrases = {play: (start, end) for _, start, end, play in record.narration["phrases"] if play}
    assert {"sharp", "one"} <= set(phrases)
    assert phrases["one"][0] > phrases["sharp"][1]


def test_the_gradient_reaches_more_keys_is_drawn_key_by_key(paced):
    """Review: 15.9 s of the two-row view with only boxes on two numbers. As the voice says the gradient reaches more
    keys, each divided bar whose slope p(1 − p) shows (over 0.005) is framed: recomputed here from the draws."""
    scene, log = paced
    settings = scene.settings
    weights = np.array(by_hand(settings.d_k, settings.n_keys, settings.seed)["weights_scaled"])
    expected = int(np.sum(weights * (1 - weights) >= 0.005))
    assert expected >= 6
    record = step(scene, "scaled")
    [start] = [start for _, start, _, play in record.narration["phrases"] if play == "gradient"]
    [play] = [play for play in plays_in(scene, log, "scaled") if play.start == pytest.approx(start, abs=1e-3)]
    # review 13: a frame a bar made eight outlines 12 px apart; one frame round each run of neighbouring keys reached
    frames = [animation.mobject for animation in flattened(play.animations)
              if type(animation).__name__ in ("Create", "Appear") and isinstance(animation.mobject, VMobject)
              and not animation.mobject.submobjects and animation.mobject.height > 0.5]  # (open at the axis: s15)
    framed = [bar for bar in scene.scaled.chart.bars
              if any(frame.get_left()[0] < bar.get_x() < frame.get_right()[0] for frame in frames)]
    assert len(framed) == expected
    assert len(frames) <= expected


@pytest.mark.parametrize("lang, words", [("es", "pendiente total"), ("en", "total slope")])
def test_the_slope_sum_is_called_a_total_slope_in_a_narrow_column(lang, words):
    """Review: «gradiente, Σ p(1−p)» is a proxy (the trace of the softmax Jacobian); the matrix section calls p(1 − p)
    «pendiente». The label says so, and its lines are no wider than the entropy's line beside them: the side column
    stays narrow (its panels' numbers at 16 px, tests/test_section_screens.py)."""
    scene = run_scene("scaling", f'lecture.lang="{lang}"')
    label = load_locale(lang)["scaling"]["labels"]["gradient"]
    assert label.startswith(words) and "Σ p(1 − p)" in label
    texts = [text.text for text in step(scene, "scaled").texts]
    assert words in texts and "gradiente, Σ p(1−p):" not in texts
    panel = scene.scaled
    entropy_line = width_of(panel.entropy_label, panel.entropy_value)
    assert max(line.width for line in panel.gradient_label[:-1]) <= entropy_line
    assert panel.gradient_line.width <= entropy_line


def width_of(*mobjects) -> float:
    return max(m.get_right()[0] for m in mobjects) - min(m.get_left()[0] for m in mobjects)


def test_the_keys_framed_in_step_five_leave_with_its_marks(scene):
    """The frames round the divided bars the gradient reaches belong to step 5's d_k: they go with its other marks
    when the last sweep starts, and do not stand round other d_k's bars. At the end only the two frames of the last
    phrase are on screen: the summary table's undivided entropies that collapsed, and the divided ones beside them."""
    from manim import SurroundingRectangle

    shown = {id(part): part for mobject in scene.mobjects for part in mobject.get_family()
             if isinstance(part, SurroundingRectangle) and part.get_stroke_opacity() > 0}
    assert len(shown) == 2, len(shown)
