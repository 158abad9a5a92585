"""Review 12 of section 02 scaling (/tmp/s11/review/review-a.md «02-scaling», grade 7): what keeps it from a 9.

Step 2 shows its claim («todas vuelven a la misma anchura») with every divided cloud side by side, each a strip over
one axis where ±1 is wide, and never labels the raw cloud's axis q·k/√d_k; step 4 writes the d_k = 64 mechanism
(gap of the two largest scores, exp of it) from the scores as shown, opens on the last row under its own d_k (never
an empty chart), and says once that its figures are rounded; the colour bar's ticks cover every score shown; the
frame round a table row never sweeps across the digit coming into it.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from manim import MathTex

from attn_math.scaling import score_samples
from lesson.numbers import format_number, parse_number
from tests.scene_checks import families_at_step_ends, flattened, recorded
from tests.test_scene_scaling import by_hand

PIXELS = 720 / 8  # 720p pixels per frame unit
UNIT_PIXELS = 60  # ±1 on the divided clouds' axis: each side at least this wide at 720p (was about 6 px: ±50 axis)
LABEL_PIXELS = 16  # the ±σ label and the strips' names at 720p
POINTS = 400


@pytest.fixture(scope="module")
def logged():
    """The default scene, every play logged, and what is on screen at each play's end in steps 2 and 4."""
    from scenes.lesson_scene import LessonScene
    from scenes.softmax_moves import SoftmaxMoves

    screens, rows = [], []  # rows: every SoftmaxMoves seen (a swap inside one may split it on screen)
    original = LessonScene.play

    def play(scene, *animations, **options):
        original(scene, *animations, **options)
        key = scene.steps[-1].key if scene.steps else None
        if key in ("spread", "exponentiate"):
            family = [part for top in scene.mobjects for part in top.get_family()]
            rows.extend(part for part in family if isinstance(part, SoftmaxMoves) and part not in rows)
            shown = {id(part) for part in family}
            panel = getattr(scene, "unscaled", None)  # the growing step's panel, from step 3 on
            bars = [*(panel.chart.bars if panel else []), *[bar for row in rows for bar in row.bars]]
            screens.append((key, family, any(id(bar) in shown for bar in bars), scene.renderer.time))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", play)
        scene, log = recorded("scaling")
    return scene, log, screens


@pytest.fixture(scope="module")
def ends():
    from scenes.scaling import ScalingScene

    return families_at_step_ends(ScalingScene, "scaling")


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def test_the_divided_clouds_stand_side_by_side_each_as_wide_as_the_others(ends):
    """Review: the four divided clouds flashed by one at a time in 2.2 s, the last ~40 px wide on a ±50 axis with a
    6 px ±σ bar. At the step's end all four are on screen, one strip each over one axis, their dots the draws divided
    by √d_k, their brackets at ±σ ≈ ±1, ±1 wide on screen and ±σ legible."""
    scene, seen = ends
    settings = scene.settings
    family = seen["spread"]
    record = step(scene, "spread")
    table = {int(parse_number(row[0])): parse_number(divided[0])
             for row, divided in zip(record.numbers["table"], record.numbers["scaled_table"])}
    strips = scene.cloud
    assert hasattr(strips, "strips"), type(strips)
    assert set(strips.strips) == {2, 8, 64, 512, settings.d_k}
    bands = []
    for d_k, (dots, bracket, name) in strips.strips.items():
        assert all(part in family for part in (*dots, bracket, name))
        drawn = score_samples(d_k, POINTS, settings.seed) / math.sqrt(d_k)
        values = np.array([strips.value_of(dot.get_x()) for dot in dots])
        assert values == pytest.approx(drawn, abs=0.02)
        half = strips.value_of(bracket[0].get_right()[0])
        assert half == pytest.approx(table[d_k], abs=0.006)  # ±σ as the table beside it says
        assert half == pytest.approx(1.0, abs=0.05)
        assert np.std(values) == pytest.approx(1.0, abs=0.1)
        bands.append((min(dot.get_bottom()[1] for dot in dots), max(dot.get_top()[1] for dot in dots)))
        assert name.height * PIXELS >= LABEL_PIXELS  # «d_k = 512» legible at 720p
    bands.sort()
    assert all(low_top < high_bottom for (_, low_top), (high_bottom, _) in zip(bands, bands[1:]))  # side by side
    unit = (strips.axis.get_length() / (2 * strips.reach)) * PIXELS
    assert unit >= UNIT_PIXELS, unit
    assert strips.sigma.height * PIXELS >= LABEL_PIXELS and strips.sigma in family
    assert "sqrt{d_k}" in strips.label.get_tex_string()


def test_no_axis_says_q_k_over_root_d_k_while_raw_dots_are_drawn(logged):
    """Review: «At 33.2 the axis label already reads q·k/√d_k while the unscaled d_k = 512 cloud (±σ ≈ 22) is still
    drawn». At every play's end in step 2, a divided axis label and the raw cloud are never on screen together."""
    from scenes.scaling import ScoreCloud

    _, _, screens = logged
    divided_seen = False
    for key, family, _, _ in screens:
        if key != "spread":
            continue
        raw = any(isinstance(part, ScoreCloud) for part in family)
        divided = any(isinstance(part, MathTex) and "sqrt{d_k}" in part.get_tex_string() for part in family)
        divided_seen |= divided
        assert not (raw and divided)
    assert divided_seen


def test_the_frame_reaches_a_row_before_its_new_number_comes(logged):
    """Review: «the highlight box over the d_k = 512 row cuts through the last digit of 1.00». In each play that
    brings a divided deviation into the table, the row's frame has landed by mid-play and the number only comes
    after it."""
    scene, log, _ = logged
    record = step(scene, "spread")
    plays = [play for kind, play in log if kind == "play" and record.start - 1e-6 <= play.start < record.end]
    checked = 0
    for play in plays:
        animations = flattened(play.animations)
        new = [animation for animation in animations
               if any(getattr(part, "tag", (None,))[0] == "scaled_table" for part in animation.mobject.get_family())]
        # the new row's frame fades in (review s15: a frame moved from row to row crossed the digits)
        frames = [animation for animation in animations if type(animation).__name__ == "Appear"
                  and type(animation.mobject).__name__ == "SurroundingRectangle"]
        if not (new and frames):
            continue
        checked += 1
        for frame in frames:
            assert frame.rate_func(0.5) == pytest.approx(1.0, abs=1e-3)
        for animation in new:
            assert animation.rate_func(0.5) == pytest.approx(0.0, abs=1e-3)
    assert checked == len(scene.dimensions)


def test_step_four_writes_the_larger_d_ks_gap_and_its_factor_from_the_shown_scores(logged):
    """Review: «The actual mechanism at d_k = 64 is never computed on screen: a gap of 11.7 − 1.49 = 10.2 becomes a
    factor of e^{10.2} ≈ 27 000 against the runner-up». Written on screen from the two largest scores as step 3
    showed them; the factor is the softmax's own ratio of the two weights."""
    scene, _, _ = logged
    settings = scene.settings
    expected = by_hand(settings.d_k, settings.n_keys, settings.seed)
    record = step(scene, "exponentiate")
    lines = [" ".join(text.text.split()) for text in record.texts if "exp(" in text.text and "→" in text.text]
    assert len(lines) == 1, [text.text for text in record.texts]
    number = r"([−\-]?[\d.]+)"
    found = re.search(rf"{number} − {number} = {number} →\s+exp\({number}\) ≈ ([\d ]+)", lines[0])
    assert found, lines[0]
    first, second, gap, exponent = (parse_number(found[i]) for i in range(1, 5))
    factor = float(found[5].replace(" ", ""))
    second_raw, first_raw = sorted(expected["scores_unscaled"])[-2:]
    assert (found[1], found[2]) == (format_number(first_raw), format_number(second_raw))
    assert gap == exponent == parse_number(format_number(first - second))  # from the numbers as shown
    assert factor == pytest.approx(math.exp(gap), rel=0.05)
    weights = sorted(expected["weights_unscaled"])
    assert factor == pytest.approx(weights[-1] / weights[-2], rel=0.05)


def test_step_four_never_shows_an_empty_chart_under_the_old_d_k(logged):
    """Review: «Step 4 opens (78.0 to about 80.5) on an empty chart still headed d_k = 64». At every play's end of
    step 4 a row is on screen: the last step's (under d_k = 64) until the d_k = 8 row replaces it, under d_k = 8."""
    scene, _, screens = logged
    record = step(scene, "exponentiate")
    opened = [(time, bars) for key, _, bars, time in screens if key == "exponentiate" and time <= record.end + 1e-6]
    assert opened and all(bars for _, bars in opened), opened


def test_a_note_says_the_figures_are_rounded_where_recomputing_them_misses(logged):
    """Review: «From the scores shown, e^{0.05−0.96} = 0.40, but the screen shows 0.41» and «the α row adds up to
    0.99, while Σ = 1.00 is shown». Where recomputing from the shown figures misses a shown result, a note on screen
    says the figures are rounded."""
    scene, _, _ = logged
    record = step(scene, "exponentiate")
    scores = [parse_number(text) for text in np.ravel(record.numbers["scores_unscaled"])]
    weights = [parse_number(text) for text in np.ravel(record.numbers["weights_unscaled"])]
    total = parse_number(np.ravel(record.numbers["weights_unscaled_sum"])[0])
    misses = abs(sum(weights) - total) > 0.005 or any(
        abs(round(math.exp(score - max(scores)) / sum(math.exp(s - max(scores)) for s in scores), 2) - weight) > 0.005
        for score, weight in zip(scores, weights))
    # where nothing misses the note is not needed (review s15: the default row, typical now, has no such miss; the
    # divided scores of step 5 do, 10.1 ÷ 8 on screen against the cell's 1.27, and its corner note says so)
    assert misses == any("redondead" in text.text for text in record.texts)


@pytest.mark.parametrize("key", ["growing", "scaled", "restored"])
def test_the_colour_bar_covers_every_score_shown(logged, key):
    """Review: «The score −12.8 (k₅, d_k = 64) is outside the colour bar's ±10». The bar's end ticks reach the largest
    |score| of the d_k its step shows, and not much past it (the cells keep their colours)."""
    scene, _, _ = logged
    settings = scene.settings
    shown = (2, 8, 64) if key != "restored" else (2, 8, 64, 512)
    largest = max(abs(value) for d_k in shown for version in ("unscaled", "scaled")
                  for value in by_hand(d_k, settings.n_keys, settings.seed)[f"scores_{version}"])
    if key == "restored":  # the bar leaves with the sweep's panels for the summary table: the scale the sweep drew on
        assert largest <= scene.largest_score <= 1.1 * largest, (scene.largest_score, largest)
        return
    ticks = [parse_number(text) for text in step(scene, key).numbers["score_legend"][0]]
    assert ticks[1] == 0 and ticks[0] == -ticks[2]
    assert largest <= ticks[2] <= 1.1 * largest, (ticks, largest)
