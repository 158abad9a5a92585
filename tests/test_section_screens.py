"""Issue 43, the matrix, scaling and heads sections as a frame review saw them: on every screen, not only at each step's
end (tests/play_checks), no text is drawn over another and every number's digits are at least 16 px high at 720p."""

import pytest

from play_checks import screen_overlaps, screens, small_numbers


@pytest.fixture(scope="module", params=["matrix", "scaling", "heads"])
def shown(request):
    return screens(request.param)


def test_no_text_is_drawn_over_another_on_any_screen(shown):
    assert screen_overlaps(shown) == []


def test_every_number_is_at_least_16_px_high_on_every_screen(shown):
    assert small_numbers(shown) == []
