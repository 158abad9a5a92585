"""Issue 43: the voice never states what the screen does not show yet. With the stand-in voice of
test_narration_markers (0.3 s a word, no synthesis), the phrase that speaks of a drawing starts no earlier than the
drawing, but SLACK: the pipeline's query lines (softmax step), its temperature rows, and the positional outputs that
the position has changed. Each phrase is found by its words, each drawing by the mobjects a play animates."""

from __future__ import annotations

import pytest

from scene_checks import recorded
from scenes.pipeline import PipelineScene
from test_narration_markers import StandIn

SLACK = 0.5  # seconds a phrase may start before the play it speaks of (a word's onset, a play's fade-in)


@pytest.fixture(scope="module")
def pipeline():
    """The pipeline's scene and log, and the temperature step's rows (the exercise's replace them later)."""
    kept = {}
    show_temperatures = PipelineScene.show_temperatures

    def keeping_rows(scene):
        show_temperatures(scene)
        kept["rows"] = scene.temperature_rows

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PipelineScene, "show_temperatures", keeping_rows)
        scene, log = recorded("pipeline", narration=StandIn())
    return scene, log, kept["rows"]


@pytest.fixture(scope="module")
def positional():
    return recorded("positional", narration=StandIn())


def phrase_start(scene, step_key: str, words: str) -> float:
    """When the first phrase of ``step_key`` holding ``words`` starts."""
    [step] = [step for step in scene.steps if step.key == step_key]
    return next(start for text, start, _, _ in step.narration["phrases"] if words in text)


def plays(log) -> list:
    return [play for kind, play in log if kind == "play" and not play.waits]


def first_play_showing(log, mobjects) -> object:
    """The first play that animates any of ``mobjects``: the one that draws them."""
    return next(play for play in plays(log) if any(play.shows(mobject) for mobject in mobjects))


def test_the_query_lines_are_named_as_they_are_drawn(pipeline):
    """Before: "Escucha las líneas que salen de «gato»" at the softmax step's start, 11 s before any line."""
    scene, log, _ = pipeline
    drawn = first_play_showing(log, scene.fan.lines)
    assert phrase_start(scene, "softmax", "las líneas que salen de") >= drawn.start - SLACK


def test_the_temperature_rows_are_named_as_they_are_drawn(pipeline):
    """Before: "Escucha cada fila" over empty axes, 6 s before the first row's bars."""
    scene, log, rows = pipeline
    drawn = first_play_showing(log, [bar for row in rows for bar in row.chart.bars])
    assert phrase_start(scene, "temperature", "Escucha cada fila") >= drawn.start - SLACK


def test_the_outputs_are_said_to_differ_once_both_have_changed(positional):
    """Before: «ya no son un simple reordenamiento» as Z_B's first new row came, 12 s before its last one (Z_B
    still showing the old values). The changed outputs are drawn when the last row of Z_B + PE's has come."""
    scene, log = positional
    [step] = [step for step in scene.steps if step.key == "with_pe"]
    rows = [play for play in plays(log) if step.start <= play.start < step.end and "Indicate" not in play.kinds
            and any(name == "Z_B_pe" for name, _ in play.tags())]  # drawn, not pointed at as the voice names them
    assert rows
    assert phrase_start(scene, "with_pe", "ya no son un simple reordenamiento") >= rows[-1].end - SLACK


def test_the_hands_are_said_to_turn_alike_as_the_second_turn_is_written(positional):
    """Before: «giran exactamente lo mismo» as the hands went to the second start, 4 s before that start's turns
    were written beside the first's (the readouts ``turn_from_<start>``)."""
    scene, log = positional
    [step] = [step for step in scene.steps if step.key == "clock_hands"]
    written = {}  # each start's readouts: the first play that writes them
    for play in plays(log):
        for name, _ in play.tags():
            if name.startswith("turn_from_") and step.start <= play.start < step.end:
                written.setdefault(name, play)
    assert len(written) == 2
    second = max(written.values(), key=lambda play: play.start)
    assert phrase_start(scene, "clock_hands", "giran igual") >= second.start - SLACK
