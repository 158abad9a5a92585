"""Review 11 of section 02 scaling (grade 7): «con d_k = 64: 1.00» was written over the framed bar of the d_k = 8 row
(k₈), while at d_k = 64 the weight 1.00 went to another key (k₆, step 3's end): a student comparing the two frames
reads the keys as changed or the video as wrong. The note now says the larger d_k's q and k have more components (review s12) and gives
only its largest weight, written from the row's first bar, not over the framed one."""

from __future__ import annotations

import re

import numpy as np
import pytest

from lesson.numbers import parse_number
from tests.scene_checks import run_scene
from tests.test_scene_scaling import by_hand


@pytest.fixture(scope="module")
def scene():
    return run_scene("scaling")


def test_the_larger_d_ks_weight_is_not_written_over_another_keys_bar(scene):
    record = next(step for step in scene.steps if step.key == "exponentiate")
    d_k = scene.settings.d_k
    [note] = [text for text in record.texts if text.text.startswith("con d")]
    # its q and k are the shown d_k's with more components (scaling_demo's nested draws: review s12 found «otros q y k
    # al azar» untrue): as many more as the two d_k differ, the shown one read off the step's caption
    shown = int(re.search(r"Con d_k = (\d+) aún", record.caption).group(1))
    assert f"(+{d_k - shown} componentes)" in note.text and "la mayor" in note.text and shown < d_k
    settings = scene.settings
    top = max(by_hand(d_k, settings.n_keys, settings.seed)["weights_unscaled"])
    assert parse_number(note.text.rsplit(",", 1)[1]) == pytest.approx(top, abs=0.005)
    keys = sorted((text for text in record.texts if text.text.startswith("k_")), key=lambda text: text.left)
    shown = [parse_number(value) for value in np.ravel(record.numbers["weights_unscaled"])]
    winner = keys[int(np.argmax(shown))]
    assert note.left < keys[0].right  # from the row's first bar
    assert not (winner.left - 0.2 <= note.left and note.right <= winner.right + 0.2)  # not the framed bar's label


def test_the_premises_of_var_equal_d_k_are_on_screen_in_step_one(scene):
    """Review 11: «componentes independientes de varianza 1» was voice only, «media 0» (which Var(q_i k_i) = 1 needs:
    E[q_i² k_i²] − E[q_i k_i]² = 1 · 1 − 0) said nowhere. Written beside 1 + 1 + ⋯ + 1, inside the frame, over
    nothing else."""
    from manim import config

    record = next(step for step in scene.steps if step.key == "variance")
    [premise] = [text for text in record.texts if "media 0" in text.text]
    assert "independientes" in premise.text and "varianza 1" in premise.text
    assert premise.right <= config.frame_width / 2 - 0.3 and premise.bottom >= -config.frame_height / 2 + 0.3
    assert not any(premise.overlaps(other) for other in record.texts if other is not premise)
