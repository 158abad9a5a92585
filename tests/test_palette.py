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


PAIRS = list(itertools.combinations(style.MEANINGS, 2))


@pytest.mark.parametrize("vision", VISIONS)
def test_every_two_meanings_are_apart(vision):
    too_close = []
    for first, second in PAIRS:
        distance = float(np.linalg.norm(seen(style.MEANINGS[first], vision) - seen(style.MEANINGS[second], vision)))
        if distance < MIN_DISTANCE:
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
