"""Review s13 of the scaling section (graded 8): no closing exercise, a last sweep too fast to compare, boxes everywhere.

- The last step ends on a table of every d_k (tests/test_scene_scaling.py recomputes its numbers) and the guide's
  exercise 5 (d_k from 8 to 64, as in GPT-2) read off its rows: √d_k grows √8 ≈ 2.83 times, the unscaled entropy
  falls to 0 bits.
- Step 3 frames the keys left at ≈ 0 and step 5 the keys the gradient reaches as runs of neighbours, not one box a
  key (eight outlines 12 px apart across the axis).
- The frame round «1 = e^{max}» in step 4 cut the readout's «√d_k» subscript; the side column's frames touched the
  colon of «entropía:».
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from manim import VMobject

from lesson.numbers import parse_number
from tests.scene_checks import flattened, recorded, run_scene
from tests.test_scene_scaling import by_hand

PIXELS = 720 / 8  # pixels a unit at 720p
CLEARANCE = 0.05  # a frame's stroke (2.5 px) and a gap of 2 px at 720p


@pytest.fixture(scope="module")
def scene():
    return run_scene("scaling")


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def entropy_bits(weights) -> float:
    return -math.fsum(w * math.log2(w) for w in weights if w > 0)


def test_the_last_step_reads_the_guides_exercise_five_off_its_table(scene):
    """«La simulación usa d_k = 8. Si se usara d_k = 64 (como en GPT-2), ¿por cuánto cambiaría el factor de escalado
    √d_k? ¿Qué efecto tendría en la nitidez?»: a line under the table answers it, every number recomputed here."""
    record = step(scene, "restored")
    [line] = [text.text for text in record.texts if text.text.startswith("Ejercicio 5")]
    settings = scene.settings
    low, high = (entropy_bits(by_hand(d_k, settings.n_keys, settings.seed)["weights_unscaled"]) for d_k in (8, 64))
    assert "d_k de 8 a 64 (GPT-2)" in line
    assert f"√d_k × {math.sqrt(64 / 8):.2f}" in line
    assert f"{low:.2f} → {abs(high):.2f} bits" in line
    assert high < 0.05 < 1 < low  # the unscaled row collapses on the way (a hundredth of a bit): the line's answer
    # the rows of d_k = 8 and 64 are the table's, so a student finds 2.83 → 8.00 and the two entropies there
    rows = dict(zip(record.numbers["summary_d_k"][0], zip(record.numbers["summary_root"][0],
                                                           record.numbers["summary_entropy_unscaled"][0])))
    assert parse_number(rows["64"][0]) / parse_number(rows["8"][0]) == pytest.approx(math.sqrt(8), abs=0.01)


def test_the_summary_table_stands_where_the_last_sweep_was(scene):
    """The table replaces the panels: at the end no bar, no score cell and no colour bar is on screen with it, and
    its digits are at least 16 px tall at 720p."""
    record = step(scene, "restored")
    assert not {"scores_unscaled", "weights_scaled", "score_legend"} & set(record.numbers)
    digits = [text for text in record.texts if text.text.replace(".", "").isdigit()]
    assert digits and min(text.cap_height for text in digits) * PIXELS >= 16


def test_neighbouring_keys_share_one_frame(scene):
    """Step 3's seven weights ≈ 0 (all keys but k₆, at both sides of it) take two frames; step 5's eight keys the
    gradient reaches, side by side, take one: frames are counted on the scene's marks at those steps' ends."""
    settings = scene.settings
    weights = np.array(by_hand(settings.d_k, settings.n_keys, settings.seed)["weights_unscaled"])
    winner = int(np.argmax(weights))
    runs = (winner > 0) + (winner < len(weights) - 1)  # the keys left of the largest, and those right of it
    # each frame one outline (open at the axis they stand on since review s15: not a SurroundingRectangle)
    assert len(scene.zero_frames) == runs
    assert len(scene.reached_frames) == 1


def test_frames_clear_the_readout_and_the_colons(scene):
    """Step 4's frame round the line of 1 = e^{max} (drawn as the voice says «las dibujamos divididas por la mayor»)
    stays under the readout line: it cut its «√d_k» subscript. A frame round a side number (buff 0.08) clears the
    colon of its words."""
    logged, log = recorded("scaling")
    record = step(logged, "exponentiate")
    texts = record.texts
    [line] = [text for text in texts if text.text.startswith("desviación")]
    middle = (line.top + line.bottom) / 2  # the readout's pieces on that line, subscripts included
    readout_bottom = min(text.bottom for text in texts if abs((text.top + text.bottom) / 2 - middle) < 0.2)
    frames = [animation.mobject for kind, play in log if kind == "play" and record.start <= play.start < record.end
              for animation in flattened(play.animations)
              if type(animation).__name__ == "Create" and isinstance(animation.mobject, VMobject)]  # (standing on
    # the axis since review s15 round 3: not a SurroundingRectangle)
    assert frames
    assert max(frame.get_top()[1] for frame in frames) + CLEARANCE < readout_bottom
    for panel in (scene.unscaled, scene.scaled):
        assert panel.entropy_value.get_left()[0] - 0.08 > panel.entropy_label.get_right()[0] + 0.1
        assert panel.gradient.get_left()[0] - 0.08 > panel.gradient_label[-1].get_right()[0] + 0.1
