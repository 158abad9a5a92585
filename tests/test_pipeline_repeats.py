"""The pipeline's attention notes (``connection`` cues) never play one figure twice: a later step that redraws a
row already heard (step 7's lines into the output) recalls it with its top weight's note alone (issue 44: the same
7-note figure was heard three times). The temperature step's rows are compared by ear: each sounds whole, the
configured temperature's too."""

from __future__ import annotations

import pytest

from scene_checks import shared_recorded


@pytest.fixture(scope="module")
def pipeline():
    return shared_recorded("pipeline")


def note(cue) -> tuple[int, float, float]:
    """What a listener hears of a connection cue: its key's rung, its weight's level, its temperature's timbre."""
    return cue.values["key"], cue.values["weight"], cue.values["temperature"]


def notes_of_steps(scene) -> dict[str, tuple]:
    """Each step's connection notes, in the order they sound."""
    return {step.key: tuple(note(cue) for cue in scene.cues
                            if cue.kind == "connection" and step.start <= cue.time < step.end) for step in scene.steps}


def figures(scene, log) -> list[tuple[str, tuple]]:
    """(step, notes) for every play that sounds connection notes: the notes of one play are one figure."""
    connections = [cue for cue in scene.cues if cue.kind == "connection"]
    found = []
    for play in (entry for kind, entry in log if kind == "play"):
        notes = tuple(note(cue) for cue in connections if play.start + 1e-9 < cue.time <= play.end + 1e-9)
        if notes:
            found.append((next(step.key for step in scene.steps if step.start <= play.start < step.end), notes))
    return found


def test_no_two_steps_play_the_same_connection_notes(pipeline):
    scene, _ = pipeline
    sounding = [(key, notes) for key, notes in notes_of_steps(scene).items() if notes and key != "temperature"]
    assert len(sounding) >= 2  # the query's lines at steps 6 and 7
    same = [(first, second) for i, (first, notes) in enumerate(sounding) for second, other in sounding[i + 1:]
            if notes == other]
    assert same == []


def test_no_figure_of_several_notes_is_heard_twice(pipeline):
    """A figure (a play's notes) of more than one note sounds once in the section outside the temperature rows'
    comparison; a one-note recall may come back."""
    played = [(key, notes) for key, notes in figures(*pipeline) if len(notes) > 1 and key != "temperature"]
    repeated = [(key, [other for other, again in played[:i] if again == notes])
                for i, (key, notes) in enumerate(played) if notes in [earlier for _, earlier in played[:i]]]
    assert repeated == []


def test_a_row_redrawn_later_is_recalled_by_its_top_note(pipeline):
    """Step 6 plays the query's row whole; step 7 (the same lines, into the output) plays that row's loudest note
    alone; the temperature step's rows, compared by ear, each whole (the configured temperature's, step 6's row,
    too)."""
    scene, log = pipeline
    by_step: dict[str, list[tuple]] = {}
    for key, notes in figures(scene, log):
        by_step.setdefault(key, []).append(notes)
    [row] = by_step["softmax"]
    n = len(scene.tokens)
    assert len(row) == n
    top = max(row, key=lambda played: played[1])
    assert by_step["output"] == [(top,)]
    temperatures = scene.settings.temperatures
    assert scene.settings.temperature in temperatures  # the default config's T = 1 is among its rows
    assert len(by_step["temperature"]) == len(temperatures)
    for t, notes in zip(temperatures, by_step["temperature"]):
        assert len(notes) == n, (t, notes)
    assert row in by_step["temperature"]
