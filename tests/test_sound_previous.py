"""The previous-token head sounds "previous" (issue 44: it was a flat cluster with nothing that said so).

A head's row for one token is that token's own note, then the chord of where it looks: for the heads section's
previous-token head (head 1, a sine on the token ladder: 330 Hz x 2^(rung / 12), rungs 0 2 4 7 9 11 13 15 17 20) every
focused row is heard as the token's rung followed by the rung of the token before it. Pitches measured on the synthesized
samples; the rungs are docs/sound.md's formula written here."""

from __future__ import annotations

import numpy as np
import pytest

from scene_checks import shared_scene
from sonify.mappings import MAPPINGS
from sonify.synth import SAMPLE_RATE
from test_sound_scales import cents, pitch

TOKEN_RUNGS = [0, 2, 4, 7, 9, 11, 13, 15, 17, 20]


def head_one_rung(j: int) -> float:
    return 330.0 * 2 ** (TOKEN_RUNGS[j % 10] / 12)


def previous_rows():
    """The previous-token head's focused rows in the heads section: (query, the cue's values)."""
    scene = shared_scene("heads")
    rows = [cue for cue in scene.cues if cue.kind == "head_row" and cue.values["head"] == 0]
    return [(cue.values["query"], cue.values) for cue in rows]


def test_the_previous_token_heads_rows_are_its_token_then_the_one_before():
    rows = previous_rows()
    assert rows
    for query, values in rows:
        assert int(np.argmax(values["weights"])) == query - 1  # the data: each row looks one token back
        sound = MAPPINGS["head_row"](**values)
        own, looked_at = pitch(sound, 0.0, 0.12), pitch(sound, 0.3, 0.9)
        assert abs(cents(own, head_one_rung(query))) < 15, (query, own)
        assert abs(cents(looked_at, head_one_rung(query - 1))) < 15, (query, looked_at)


@pytest.mark.parametrize("query", [1, 2, 5])
def test_a_row_sounds_its_own_token_at_its_place_before_where_it_looks(query):
    """The token's note at its column's pan (left of centre for an early token), before the chord."""
    weights = [1.0 if k == query - 1 else 0.0 for k in range(9)]
    sound = MAPPINGS["head_row"](head=0, weights=weights, query=query)
    start = sound[: int(0.12 * SAMPLE_RATE)]
    left, right = np.sqrt(np.mean(start[:, 0] ** 2)), np.sqrt(np.mean(start[:, 1] ** 2))
    assert abs(cents(pitch(start), head_one_rung(query))) < 15
    assert (left > right) == (query < 4)  # nine columns: the fifth is the centre
