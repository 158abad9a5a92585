"""Review 10 of section 02 scaling (/tmp/s10/review/frames-a.md «02 scaling», grade 8): what keeps it from a 9.

The old drawing leaves before step 5's title comes and the copied scores are divided as soon as they land; the finished
one-hot and the ÷√d_k view are not near-still for ten seconds (each part lands quickly as the voice names it); the
entropy's formula is on screen where an entropy first appears; step 6 says which deviation is the claim.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from manim import TransformFromCopy

from lesson.locale import load_locale
from lesson.numbers import parse_number
from lesson.steps import StepRange
from scenes.fades import Swap, Vanish
from tests import scene_checks
from tests.scene_checks import PacedSpeaker, flattened, recorded, render_video, run_scene, video_stills
from tests.test_scene_scaling import by_hand

PIXELS = 720 / 8  # 720p pixels per frame unit
NEAR_PIXELS = 200  # the review's near-still: fewer than 200 pixels of a 640 x 360 frame change by more than 24 grey
# levels from one frame to the next at 30 fps (scene_checks.video_stills's measure with 200 pixels for its 40)
NEAR_LONGEST = 6.0  # seconds: issue 43's longest still screen


@pytest.fixture(scope="module")
def paced():
    """The default scene spoken at the narration's pace, every play logged."""
    return recorded("scaling", narration=PacedSpeaker())


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def plays_of(log):
    return [play for kind, play in log if kind == "play"]


def test_the_exponentiate_drawing_is_gone_before_the_divide_title_comes(paced):
    """Review: «the new title «Dividir por √d_k» fades in over the old d_k = 8 chart that still carries «con d_k = 64:
    1.00»». The two moves leave with the old header, in the first half of the header's play (the old title's half),
    and nothing of them is left to fade once the step has begun."""
    scene, log = paced
    record = step(scene, "scaled")
    header = next(play for play in plays_of(log) if abs(play.end - record.start) < 1e-6)
    moves = scene.moves
    leaving = [animation for animation in flattened(header.animations)
               if isinstance(animation, Vanish) and any(part is moves for part in animation.mobject.get_family())]
    assert leaving, "the exponentiate step's drawing does not leave with the header"
    for animation in leaving:  # gone by the middle of the header's play, when the new title starts to come
        assert animation.rate_func(0.5) == pytest.approx(1.0, abs=1e-3)
    later = [play for play in plays_of(log) if record.start - 1e-6 <= play.start < record.end and play.shows(moves)]
    assert not later, [play.kinds for play in later]


def test_the_copied_scores_are_divided_as_soon_as_they_land(paced):
    """Review: «at 111 the lower row briefly repeats the unscaled q·k values before they turn into ÷8 values». The
    play that divides the copied row starts as the copy lands: the unscaled numbers are never held twice on screen."""
    scene, log = paced
    record = step(scene, "scaled")
    plays = [play for play in plays_of(log) if record.start - 1e-6 <= play.start < record.end and not play.waits]
    copy = next(index for index, play in enumerate(plays)
                if any(isinstance(animation, TransformFromCopy) for animation in play.animations))
    division = plays[copy + 1]
    assert any(isinstance(animation, Swap) for animation in division.animations)  # the numbers change to ÷ √d_k
    assert {name for name, _ in division.tags()} >= {"scores_scaled"}
    assert division.start - plays[copy].end < 0.05, division.start - plays[copy].end


def test_the_finished_one_hot_and_the_divided_view_are_not_near_still(tmp_path, monkeypatch):
    """Review: «67.2-77.2 (10 s on the d_k = 64 one-hot, only boxes appear) and 115.3-126.4 (11 s, the ÷8 view, boxes
    one by one)», near-still by its measure (fewer than 200 pixels change a frame; its motion counts list 98.3-107.7,
    the end of step 4, too). Steps 3 to 5 at the narration's pace: each thing the voice names lands quickly enough to
    be seen landing, no stretch lasts 6 s."""
    _, video = render_video("scaling", tmp_path, frame_rate=10, narration=PacedSpeaker(), steps=StepRange(3, 5),
                            pixels=(640, 360))
    monkeypatch.setattr(scene_checks, "VIEWER_PIXELS", NEAR_PIXELS / (640 * 360))  # the review's near-still
    assert video_stills(video, longest=NEAR_LONGEST) == []


@pytest.fixture(scope="module")
def scene():
    return run_scene("scaling")


def test_the_entropy_formula_is_written_under_the_first_entropy(scene):
    """Review: the guide's H(α_i) = −Σ_j α_ij log₂ α_ij is on no screen, which shows entropies in bits. It is written
    once, in the growing step where an entropy first appears, right under «entropía: … bits», its subscripts 16 px
    at least; and it is the formula of the number beside it: −Σ p log₂ p of the row's weights, recomputed here."""
    record = step(scene, "growing")
    formula = [text for text in record.texts if r"\log_" in text.text]
    assert len(formula) == 1, [text.text for text in record.texts]
    [line] = formula
    # since review s16 on two lines: «H(α) =», then the whole sum −Σ_j α_j log₂ α_j
    assert r"\sum_j \alpha_j" in line.text and line.text.count(r"\alpha_j") == 2
    assert line.cap_height * PIXELS >= 16, line.cap_height * PIXELS
    [label] = [text for text in record.texts if text.text == scene.strings["labels"]["entropy"]]
    [head] = [text for text in record.texts if text.text.startswith(r"H(\alpha)")]  # the formula's first line
    assert head.top < label.bottom and label.bottom - head.top < 1.0  # under its line, not far from it
    for other in ("variance", "spread", "exponentiate", "scaled", "restored"):
        assert not any(r"\log_" in text.text for text in step(scene, other).texts), other
    settings = scene.settings
    weights = np.array(by_hand(settings.d_k, settings.n_keys, settings.seed)["weights_unscaled"])
    with np.errstate(divide="ignore", invalid="ignore"):
        bits = -np.sum(np.where(weights > 0, weights * np.log2(weights), 0.0))
    assert parse_number(record.numbers["entropy_unscaled"][0][0]) == pytest.approx(bits, abs=0.006)


def test_step_six_states_the_many_pairs_deviation_and_calls_the_eight_scores_noisy(scene):
    """Review: «solo 8 puntajes» reads 0.51 / 0.38 / 0.89 / 1.19 under «Varianza 1 para cualquier d_k»: a student sees
    σ = 0.38 under "1". The divided readout gives the many pairs' deviation first (≈ 1 at every d_k, recomputed), then
    the 8 scores' (which do wander that far, recomputed), muted and said to be noisy."""
    settings = scene.settings
    root = {d_k: math.sqrt(d_k) for d_k in (2, 8, 64, 512)}
    samples = [np.std(np.array(by_hand(d_k, settings.n_keys, settings.seed)["scores_unscaled"]) / root[d_k])
               for d_k in root]
    # the few scores' deviation is noisy indeed: it wanders from 1 (about ±1/√(2 · 8) = ±0.25 for 8 scores) far more
    # than the 20 000 pairs' does (about ±0.005)
    assert max(abs(sample - 1) for sample in samples) > 0.15
    readout = scene.readout
    claim, sample = readout.numbers["scaled_deviation"], readout.numbers["scaled_sample"]
    assert abs(parse_number(claim.shown_text) - 1) < 0.05
    assert claim.get_right()[0] < sample.get_left()[0]  # the claim read first
    # the sample dimmer than the claim: a muted number beside a bright one
    assert np.mean(sample.get_fill_color().to_rgb()) < np.mean(claim.get_fill_color().to_rgb()) - 0.1
    for lang, word in (("es", "ruidosa"), ("en", "noisy")):
        labels = load_locale(lang)["scaling"]["labels"]
        assert word in labels["scaled_sample"]
        assert word not in labels["scaled_typical"]


def test_the_stacked_panels_give_the_bars_and_the_scale_label_more_room(scene):
    """Review: «bars for weights 0.02-0.07 are 2-6 px»; «escala de los puntajes» 15 px. The divided panel never shows
    a one-hot (its largest weight at any d_k, recomputed, is under 0.6): its room keeps only what it shows, and the
    height saved goes to both panels' bars (one scale: a weight of 1 over 120 px, was 115) while the score digits stay
    near 18 px; the colour bar's label is 17 px at least. Its side column stays clear of its score label (a frame
    drawn round its last number, 0.12 out, does not touch the label)."""
    from scenes.visuals import cap_height

    settings = scene.settings
    largest = max(max(by_hand(d_k, settings.n_keys, settings.seed)["weights_scaled"]) for d_k in (2, 8, 64, 512))
    assert largest < 0.6
    for panel in (scene.unscaled, scene.scaled):
        chart = panel.chart
        assert chart.chart_height * chart.scale_factor * PIXELS >= 120
        assert min(cap_height(number) for number in panel.scores.numbers) * PIXELS >= 17.5
        for bar, text in zip(chart.bars, chart.value_texts):  # every bar and its value inside the panel's room
            assert text.get_top()[1] <= panel.room.get_top()[1] + 1e-6
    scaled = scene.scaled
    assert scaled.side.get_bottom()[1] - scaled.scores.label.get_top()[1] >= 0.12 * scaled.chart.scale_factor
    assert cap_height(scene.legend.label) * PIXELS >= 17, cap_height(scene.legend.label) * PIXELS
