"""The palette as viewers see it: every two colours that mean different things stay apart for normal vision and
for the two common red-green deficiencies, and text stays legible on the background and on coloured cells.

Distances are CAM02-UCS ΔE (colorspacious), a space where 1 is about a just-noticeable difference. Colour-vision
deficiency is Machado et al.'s simulation at full severity (deuteranopia, protanopia: about 1 in 16 men together).
"""

import itertools
import math

import numpy as np
import pytest
from colorspacious import cspace_convert
from manim import ManimColor

from scenes import style
from scenes.heatmap import readable_text_colour

# ΔE 12: twelve just-noticeable steps, clear side by side for thin lines and small labels. The old palette's
# confusions sat under it (K and head 2 at 2.6 for deuteranopes, X and Z at 3.4, attention and head 1 at 8.8
# for protanopes, the cream head and the text at 11.6), and 14 colours on a dark background cannot all be much
# further apart for deuteranopes: a search for the palette found no set whose closest pair passed 14.
MIN_DISTANCE = 12.0
# Hues at least 15° apart (CAM02-UCS hue angle, normal vision) for colours with some colour (chroma over 15):
# otherwise two colours read as a light and a dark shade of one, as the old Q blue and negative-score blue did.
MIN_HUE_GAP = 15.0
CHROMATIC = 15.0
MIN_TEXT_CONTRAST = 4.5  # WCAG 2 AA for normal-size text
# Numbers in cells are large text (cap height about 20 px at 720p): WCAG 2 AA asks 3:1. Some mid-bright cells
# cannot reach 4.5:1 with either the dark or the light text colour (the best is about 4.0 for both).
MIN_CELL_CONTRAST = 3.0
VISIONS = {"normal": None, "deuteranopia": "deuteranomaly", "protanopia": "protanomaly"}


def seen(colour, vision: str) -> np.ndarray:
    """The colour as CAM02-UCS (J', a', b') for a viewer with ``vision``."""
    rgb = np.asarray(colour.to_rgb(), dtype=float)
    if VISIONS[vision]:
        simulation = {"name": "sRGB1+CVD", "cvd_type": VISIONS[vision], "severity": 100}
        rgb = np.clip(cspace_convert(rgb, simulation, "sRGB1"), 0, 1)
    return cspace_convert(rgb, "sRGB1", "CAM02-UCS")


def relative_luminance(colour) -> float:
    """WCAG 2: linearised sRGB weighted 0.2126, 0.7152, 0.0722."""
    channels = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour.to_rgb()]
    return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]


def contrast(first, second) -> float:
    dark, light = sorted((relative_luminance(first), relative_luminance(second)))
    return (light + 0.05) / (dark + 0.05)


# Meanings no screen shows together, so a dichromat never has to tell them apart: the induction head lives in the
# learned section, which shows no K and no V (test_no_key_or_value_colour_in_the_learned_section).
NEVER_TOGETHER = {("K", "induction head"), ("V", "induction head")}
PAIRS = [pair for pair in itertools.combinations(style.MEANINGS, 2) if pair not in NEVER_TOGETHER]
# Review 14: the heads must read as colours, not as the text (tests/test_palette_review14.py). A joint search of the
# three heads found no triple that does so and keeps every pair here at 12 for all three visions: in the lightness
# the text contrast leaves them (L 0.24 to 0.56), a red-green dichromat has room for two heads beside Q, K, V, Z, the
# scores and the secondary text, not three. The least shortfall, 10 (for protanopes only), is allowed to these pairs.
PROTANOPIA_FLOOR = 10.0
PROTANOPIA_SHORTFALLS = {("secondary text", "head 2"), ("output Z", "head 2"), ("score < 0", "head 1")}


@pytest.mark.parametrize("vision", VISIONS)
def test_every_two_meanings_are_apart(vision):
    too_close = []
    for first, second in PAIRS:
        distance = float(np.linalg.norm(seen(style.MEANINGS[first], vision) - seen(style.MEANINGS[second], vision)))
        floor = PROTANOPIA_FLOOR if vision == "protanopia" and (first, second) in PROTANOPIA_SHORTFALLS else MIN_DISTANCE
        if distance < floor:
            too_close.append(f"{first} / {second}: ΔE {distance:.1f}")
    assert too_close == []


def test_coloured_meanings_have_their_own_hue():
    hues = {}
    for name, colour in style.MEANINGS.items():
        _, a, b = seen(colour, "normal")
        if math.hypot(a, b) > CHROMATIC:
            hues[name] = math.degrees(math.atan2(b, a)) % 360
    assert len(hues) >= 10, "the test would be empty if the palette lost its colours"
    gaps = {(first, second): min(abs(hues[first] - hues[second]), 360 - abs(hues[first] - hues[second]))
            for first, second in itertools.combinations(hues, 2)}
    assert {pair: round(gap) for pair, gap in gaps.items() if gap < MIN_HUE_GAP} == {}


@pytest.mark.parametrize("name", [name for name in style.MEANINGS if name != "masked"])  # masked: a fill only
def test_colours_written_as_text_are_legible_on_the_background(name):
    assert contrast(style.MEANINGS[name], style.BACKGROUND) >= MIN_TEXT_CONTRAST


def test_masked_cells_stand_out_from_empty_ones_but_stay_dark():
    assert 1.3 <= contrast(style.MASKED, style.PANEL) and contrast(style.MASKED, style.BACKGROUND) < 3


@pytest.mark.parametrize("fill", [style.weight_colour(w) for w in np.linspace(0, 1, 21)]
                         + [style.score_colour(s, 1.0) for s in np.linspace(-1, 1, 41)])
def test_numbers_in_heatmap_cells_are_legible_whatever_the_fill(fill):
    assert contrast(readable_text_colour(fill), fill) >= MIN_CELL_CONTRAST


def test_the_diverging_map_keeps_sign_and_size_apart():
    """Opposite signs differ for every viewer; a larger |score| is further from the neutral cell."""
    for vision in VISIONS:
        neutral = seen(style.score_colour(0.0, 1.0), vision)
        for size in (0.5, 1.0):
            positive, negative = (seen(style.score_colour(sign * size, 1.0), vision) for sign in (1, -1))
            assert np.linalg.norm(positive - negative) >= MIN_DISTANCE, (vision, size)
        far, near = (np.linalg.norm(seen(style.score_colour(value, 1.0), vision) - neutral) for value in (1.0, 0.25))
        assert far > near + MIN_DISTANCE, vision


# Issue (review R, item 6): the heads' colours are their own, not shades of the letters every section shows -------
# Checked with a second colour-difference formula, CIEDE2000 on CIELAB (D65), computed here from sRGB, so a
# palette tuned to colorspacious's CAM02-UCS alone cannot pass by a quirk of that space.
EVERY_SECTION = {"Q": style.QUERY, "K": style.KEY, "V": style.VALUE, "A": style.ATTENTION, "Z": style.OUTPUT,
                 "W": style.WEIGHT_MATRIX}
# ΔE00 20: two different named colours. The old heads sat under it: pale green / V 16.0, lavender / Q 14.2.
MIN_HEAD_DISTANCE = 20.0


def cielab(colour) -> tuple[float, float, float]:
    """sRGB → linear → XYZ (D65) → CIELAB."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour.to_rgb()]
    rows = ((0.4124, 0.3576, 0.1805), (0.2126, 0.7152, 0.0722), (0.0193, 0.1192, 0.9505))
    white = (0.95047, 1.0, 1.08883)
    x, y, z = (sum(m * c for m, c in zip(row, linear)) / w for row, w in zip(rows, white))
    f = [t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def ciede2000(first, second) -> float:
    """CIEDE2000 colour difference of two CIELAB colours (Sharma, Wu and Dalal 2005, kL = kC = kH = 1)."""
    (l1, a1, b1), (l2, a2, b2) = first, second
    chroma_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(chroma_mean ** 7 / (chroma_mean ** 7 + 25 ** 7)))
    c1, c2 = math.hypot((1 + g) * a1, b1), math.hypot((1 + g) * a2, b2)
    h1, h2 = (math.degrees(math.atan2(b, (1 + g) * a)) % 360 if c else 0.0 for a, b, c in ((a1, b1, c1), (a2, b2, c2)))
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    big_dh = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c, s_h = 1 + 0.045 * c_mean, 1 + 0.015 * c_mean * t
    r_t = (-2 * math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7))
           * math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2)))))
    dl, dc, dhh = (l2 - l1) / s_l, (c2 - c1) / s_c, big_dh / s_h
    return math.sqrt(dl ** 2 + dc ** 2 + dhh ** 2 + r_t * dc * dhh)


@pytest.mark.parametrize(("first", "second", "want"), [  # Sharma et al.'s test data, pairs 1, 7, 17 and 25
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644)])
def test_the_colour_difference_formula_matches_its_published_test_data(first, second, want):
    assert ciede2000(first, second) == pytest.approx(want, abs=1e-4)


def test_cielab_of_white_and_of_the_srgb_primaries():
    assert cielab(ManimColor("#FFFFFF")) == pytest.approx((100.0, 0.0, 0.0), abs=0.02)
    assert cielab(ManimColor("#FF0000")) == pytest.approx((53.24, 80.09, 67.20), abs=0.05)


@pytest.mark.parametrize("head", range(len(style.HEADS)))
def test_head_colours_are_clearly_not_the_colours_of_q_k_v_a_z_or_w(head):
    colour = cielab(style.HEADS[head])
    distances = {name: round(ciede2000(colour, cielab(other)), 1) for name, other in EVERY_SECTION.items()}
    assert {name: distance for name, distance in distances.items() if distance < MIN_HEAD_DISTANCE} == {}


# Issue 43: heads 2 and 3 shared a luminance (about 0.21), so a viewer who cannot tell red from green, or a grey
# projector, could not tell them apart in the average, choose and concat views. Every two heads now differ in
# lightness, and stay two different colours under a simulation of the two red-green deficiencies computed here.
MIN_HEAD_LUMINANCE_GAP = 0.1
# Machado, Oliveira and Fernandes, "A Physiologically-based Model for Simulation of Color Vision Deficiency", IEEE
# TVCG 15(6), 2009: the severity-1.0 matrices of their table, applied to linear sRGB.
DICHROMACY = {
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
}


def as_dichromat_sees(colour, matrix: np.ndarray) -> ManimColor:
    """sRGB → linear → the deficiency's matrix → clipped → sRGB."""
    encoded = np.asarray(colour.to_rgb(), dtype=float)
    linear = np.where(encoded <= 0.04045, encoded / 12.92, ((encoded + 0.055) / 1.055) ** 2.4)
    simulated = np.clip(matrix @ linear, 0, 1)
    return ManimColor(np.where(simulated <= 0.0031308, 12.92 * simulated, 1.055 * simulated ** (1 / 2.4) - 0.055))


def test_the_dichromacy_simulation_keeps_grey_and_loses_the_red_green_axis():
    """Machado's matrices leave neutral greys as they are; pure red and green keep almost no CIELAB a* (red-green)."""
    for matrix in DICHROMACY.values():
        assert as_dichromat_sees(ManimColor("#808080"), matrix).to_rgb() == pytest.approx((0.5, 0.5, 0.5), abs=0.01)
        for primary in ("#FF0000", "#00FF00"):
            assert abs(cielab(ManimColor(primary))[1]) > 60
            assert abs(cielab(as_dichromat_sees(ManimColor(primary), matrix))[1]) < 10


HEAD_PAIRS = list(itertools.combinations(range(len(style.HEADS)), 2))


@pytest.mark.parametrize(("first", "second"), HEAD_PAIRS)
def test_every_two_heads_differ_in_lightness(first, second):
    gap = abs(relative_luminance(style.HEADS[first]) - relative_luminance(style.HEADS[second]))
    assert gap >= MIN_HEAD_LUMINANCE_GAP


@pytest.mark.parametrize("deficiency", DICHROMACY)
@pytest.mark.parametrize(("first", "second"), HEAD_PAIRS)
def test_every_two_heads_stay_two_colours_for_a_dichromat(first, second, deficiency):
    seen_first, seen_second = (cielab(as_dichromat_sees(style.HEADS[head], DICHROMACY[deficiency]))
                               for head in (first, second))
    assert ciede2000(seen_first, seen_second) >= MIN_HEAD_DISTANCE


@pytest.mark.parametrize("head", range(len(style.HEADS)))
def test_a_heads_arcs_are_drawn_in_its_pattern(head):
    from scenes.attention_arcs import AttentionArcs, TokenRow

    arcs = AttentionArcs(TokenRow(["el", "perro", "de", "María", "ladró"]), np.full((5, 5), 0.2), style.HEADS[head],
                         dash=style.HEAD_DASHES[head])
    for arc in arcs.arcs.values():
        pieces = arc.curve.submobjects or [arc.curve]
        if style.HEAD_DASHES[head]:  # dashes about as long as the pattern says
            lengths = [piece.get_arc_length() for piece in pieces]
            assert len(pieces) >= 2 and np.median(lengths) == pytest.approx(style.HEAD_DASHES[head], rel=0.5)
        else:
            assert len(pieces) == 1


def test_no_key_or_value_colour_in_the_learned_section():
    """NEVER_TOGETHER's reason: at no step's end does the learned section draw anything in K's or V's colour."""
    from scenes.learned import LearnedScene
    from scene_checks import families_at_step_ends

    _, seen = families_at_step_ends(LearnedScene, "learned")
    kept_out = {style.KEY.to_hex().upper(), style.VALUE.to_hex().upper()}
    used = {key: [part for part in parts if part.has_points() and kept_out &
                  {part.get_fill_color().to_hex().upper(), part.get_stroke_color().to_hex().upper()}]
            for key, parts in seen.items()}
    assert seen and not any(used.values()), {key: len(parts) for key, parts in used.items() if parts}
