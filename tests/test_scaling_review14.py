"""Review s14 of the scaling section (graded 9): two things a student checks on screen and finds different.

- Steps 5 and 6 divide the rounded scores: 11.7 ÷ 8 on screen is 1.46, the cell says 1.47 (from 11.76), and the
  rounding note had left with step 4. It comes back under the colour bar while divided scores are on screen.
- The last step's voice said «de 2 a 512, la desviación se queda cerca de uno» over a sweep that starts at the
  configured d_k (64): d_k = 2 and 8 came only with the table, 10 s later. It names the sweep's own first d_k.
"""

from __future__ import annotations

import math

import pytest

from lesson.numbers import format_number, parse_number
from tests.scene_checks import layout_problems, run_scene

ROUNDING = "Cifras redondeadas"


@pytest.fixture(scope="module")
def scene():
    return run_scene("scaling")


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def recomputed_from_screen(record) -> list[tuple[str, str, str]]:
    """(unscaled cell, divided cell, what the unscaled cell ÷ the readout's √d_k gives) where the two differ."""
    [unscaled], [scaled] = record.numbers["scores_unscaled"], record.numbers["scores_scaled"]
    root = math.sqrt(scene_d_k(record))
    return [(shown, divided, format_number(parse_number(shown) / root))
            for shown, divided in zip(unscaled, scaled) if format_number(parse_number(shown) / root) != divided]


def scene_d_k(record) -> int:
    return int(record.numbers["d_k"][0][0])


def test_divided_cells_that_do_not_recompute_from_the_screen_come_with_the_rounding_note(scene):
    record = step(scene, "scaled")
    differing = recomputed_from_screen(record)
    assert differing, "the default scores would need no note: the test would pass for nothing"
    notes = [text for text in record.texts if text.text.replace("\n", " ").startswith(ROUNDING)]
    assert len(notes) == 1, differing
    assert not [problem for problem in layout_problems(scene) if ROUNDING in problem]


def test_the_note_leaves_with_the_panels(scene):
    """Step 6 shows divided cells until the summary table takes the panels' place; the table has its own rows."""
    record = step(scene, "restored")
    assert "scores_scaled" not in record.numbers
    assert not [text for text in record.texts if text.text.replace("\n", " ").startswith(ROUNDING)]
    assert not set(scene.rounded.get_family()) & set(scene.mobjects)


def test_the_last_steps_voice_starts_where_its_sweep_starts(scene):
    """The caption (and the voice it matches) names the d_k the readout shows first in step 6, not the table's
    first row, which is on screen only 10 s later."""
    record = step(scene, "restored")
    first_shown = scene.settings.d_k
    assert record.caption.startswith(f"De d_k = {first_shown} a {scene.dimensions[-1]},")
    assert first_shown != scene.dimensions[0]  # the default sweeps past smaller d_k: the old text said 2
