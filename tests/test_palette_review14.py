"""Review 14 (03-heads, item 2, third round): head 2's cream (#FFFFDC) was the body text's white, 1.13:1 against TEXT,
so its labels and its numbers in «ella» en Concat read as plain text. Every head now reads as a colour: some chroma
(CAM02-UCS, as test_palette measures it) and a luminance the text's own is clearly apart from."""

import math

import pytest

from scenes import style
from test_palette import CHROMATIC, contrast, seen

MIN_CONTRAST_TO_TEXT = 1.5  # lighter or darker than the text by half its luminance (+0.05): not read as the text


@pytest.mark.parametrize("head", range(len(style.HEADS)))
def test_every_head_reads_as_a_colour_and_not_as_the_text(head):
    colour = style.HEADS[head]
    _, a, b = seen(colour, "normal")
    assert math.hypot(a, b) > CHROMATIC, (head, colour.to_hex())
    assert contrast(colour, style.TEXT) >= MIN_CONTRAST_TO_TEXT, (head, colour.to_hex())


@pytest.mark.parametrize("head", range(len(style.HEADS)))
def test_no_head_is_a_grey_projectors_text(head):
    """On a grey projector only luminance is left: each head's sits at least 0.3 below the text's (the cream's was
    0.12 above it), three times the gap test_palette keeps between two heads."""
    from test_palette import relative_luminance

    assert relative_luminance(style.TEXT) - relative_luminance(style.HEADS[head]) >= 0.3
