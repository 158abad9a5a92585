"""A figure is heard once in the clear (issue 44: no identical figure within 10 s unless the data repeats).

The sound review heard scaling's last two d_k replayed as two identical pairs 2.6 s apart over a frame that shows
only the last, the heads' three rows for «lo» drawn under the voice and then played again in the listening moment
(five rows for three heads), and matrix's followed row replayed 9 s before the softmax's listening moment plays it
again. Measured on the narrated scenes' cues (a stand-in voice at the narration's pace): a chord's figure is its
panel (a compared version, a head) and its weights to 0.02; the heads' chord cue is its three heads, each on its
beat."""

from __future__ import annotations

from itertools import combinations

import pytest

from scene_checks import PacedSpeaker, run_scene
from sonify.mappings import heads_turn

APART = 10.0  # seconds: the same figure twice in the clear, at least this far apart
CHORDS = ("row", "sum_row", "head_row", "distribution")


def figure(panel, weights) -> tuple:
    return panel, tuple(round(float(weight) / 0.02) for weight in weights)


def heard(scene) -> list[tuple[float, tuple, bool, str, bool]]:
    """(start, figure, in the clear, step, in a listening moment) of every chord the scene sounds: in the clear
    when replayed after the voice or in a listening moment."""
    steps = [(step.start, step.key) for step in scene.steps]
    found = []
    for cue in scene.cues:
        step = next(key for start, key in reversed(steps) if start <= cue.time + 1e-9)
        clear = cue.replay or cue.listen
        if cue.kind == "heads_chord":
            found += [(cue.time + head * heads_turn("heads_chord"), figure(head, row), clear, step, cue.listen)
                      for head, row in enumerate(cue.values["weights"])]
        elif cue.kind in CHORDS:
            panel = cue.values.get("version", cue.values.get("head"))
            found.append((cue.time, figure(panel, cue.values["weights"]), clear, step, cue.listen))
    return found


@pytest.fixture(scope="module", params=["matrix", "scaling", "heads"])
def narrated(request):
    return heard(run_scene(request.param, narration=PacedSpeaker()))


def test_no_figure_sounds_twice_in_the_clear_within_ten_seconds(narrated):
    twice = [(round(a[0], 2), round(b[0], 2)) for a, b in combinations(narrated, 2)
             if a[1] == b[1] and a[2] and b[2] and abs(a[0] - b[0]) < APART]
    assert twice == []


def test_a_listening_moments_figure_is_not_also_played_under_the_voice_in_its_step(narrated):
    listened = {(sound[1], sound[3]) for sound in narrated if sound[4]}
    under = [round(sound[0], 2) for sound in narrated if not sound[2] and (sound[1], sound[3]) in listened]
    assert under == []
