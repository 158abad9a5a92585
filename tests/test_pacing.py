"""Pacing as a viewer lives it: every step stays its reading time, nothing stands still over 6 s
(from the step records and from the decoded frames of a tiny video), repeats run faster (cards: test_cards)."""

import numpy as np
import pytest

from media_checks import tiny_matrix
from scene_checks import (freezes, layout_problems, legibility_problems, notation_problems, pacing_problems,
                          shared_scene, step_tone_problems, video_freezes)
from scenes.lesson_scene import LONGEST_FREEZE, reading_seconds


def test_reading_time_is_words_at_2_5_per_second_plus_0_4_s_per_new_number_and_at_least_4_s():
    assert reading_seconds("una dos tres", 0) == 4.0
    assert reading_seconds(" ".join(["palabra"] * 15), 0) == pytest.approx(6.0)
    assert reading_seconds(" ".join(["palabra"] * 15), 10) == pytest.approx(10.0)
    assert reading_seconds("", 5) == 4.0
    # a matrix's numbers are scanned, not read one by one: 81 new numbers held positional's first step 32 s
    assert reading_seconds("", 81) == pytest.approx(12.0)
    assert reading_seconds(" ".join(["palabra"] * 15), 49) == pytest.approx(18.0)


@pytest.fixture(scope="module")
def matrix():
    return shared_scene("matrix")


def test_matrix_steps_last_their_reading_time_and_never_stand_still_too_long(matrix):
    assert pacing_problems(matrix) == []
    inputs = next(step for step in matrix.steps if step.key == "inputs")
    assert inputs.new_numbers == 6 + 3 * 4  # X and the three W's of the worked example
    assert inputs.read_until - inputs.start >= reading_seconds(inputs.caption, 18) - 1e-6


def test_matrix_is_legible_and_writes_numbers_as_a_mathematician_would(matrix):
    assert legibility_problems(matrix) == []
    assert notation_problems(matrix) == []
    assert layout_problems(matrix) == []


def cell_times(scene, key):
    step = next(step for step in scene.steps if step.key == key)
    return [cue.time for cue in scene.cues if cue.kind == "cell" and step.start <= cue.time <= step.read_until]


def test_keys_and_values_fill_faster_than_queries_and_the_first_cells_go_slowest(matrix):
    queries, keys, values = (cell_times(matrix, key) for key in ("queries", "keys", "values"))
    assert len(queries) == len(keys) == len(values) == 6
    assert keys[-1] - keys[0] < 0.7 * (queries[-1] - queries[0])
    assert values[-1] - values[0] == pytest.approx(keys[-1] - keys[0])
    gaps = np.diff(queries)
    assert gaps[0] > 2 * gaps[-1]  # the second cell waits for the first's worked line; the last ones hurry


def test_each_step_tone_sounds_as_its_header_has_landed(matrix):
    assert step_tone_problems(matrix) == []  # the pipeline's: test_scene_pipeline


def test_the_decoded_matrix_video_never_freezes_longer_than_6_s(matrix, tmp_path_factory):
    """The session's tiny render of the same scene and config (``tiny_matrix``), against this module's records."""
    video = tiny_matrix(tmp_path_factory)[0] / "01-matrix.mp4"
    assert video_freezes(video, LONGEST_FREEZE) == []
    waits = sorted((end - start for start, end in freezes(matrix)), reverse=True)
    assert waits[0] <= LONGEST_FREEZE
    # The frames agree with the records: a recorded wait of 4 s or more is seen as a still run of frames (not
    # necessarily the longest: the causal step's finished hold, 5.8 s, changes in its frames every 1.6 s at 256x144)
    assert any(video_freezes(video, wait - 0.5) for wait in waits if wait >= 4.0)
