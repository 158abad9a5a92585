"""Round numbers on scales (scenes.heatmap): the pipeline's scores scale ends at ``covering_value`` of the largest
score, and its legend ticks at ``round_value`` of that end, so the tick is the scale's very end; both are the round
numbers 1, 2, 2.5 and 5 times a power of ten, found here in a list written out by hand. The scaling section's axis
ticks at 1, 2 or 5 times a power of ten inside its reach."""

import pytest
from hypothesis import given, strategies as st

from scenes.heatmap import covering_value, round_value
from scenes.scaling import nice_tick

ROUND = sorted(step * 10.0 ** power for power in range(-4, 6) for step in (1, 2, 2.5, 5))
ONE_TWO_FIVE = sorted(step * 10.0 ** power for power in range(-4, 6) for step in (1, 2, 5))


@given(st.floats(min_value=1e-3, max_value=1e4))
def test_a_scale_ends_at_the_first_round_number_at_or_above_its_largest_value(largest):
    end = covering_value(largest)
    assert end == pytest.approx(min(value for value in ROUND if value >= largest * (1 - 1e-9)))
    assert round_value(end) == pytest.approx(end)  # the legend's tick is the scale's end


@given(st.floats(min_value=1e-3, max_value=1e4))
def test_a_legend_ticks_at_the_last_round_number_at_or_below_the_scales_end(largest):
    assert round_value(largest) == pytest.approx(max(value for value in ROUND if value <= largest * (1 + 1e-9)))


def test_nothing_to_scale_is_zero():
    assert covering_value(0.0) == round_value(0.0) == 0.0


@given(st.floats(min_value=1e-2, max_value=1e4))
def test_the_scaling_axis_ticks_at_the_last_1_2_5_number_inside_four_fifths_of_its_reach(reach):
    inside = [value for value in ONE_TWO_FIVE if value <= 0.8 * reach * (1 + 1e-9)]
    assert nice_tick(reach) == pytest.approx(max(inside))
