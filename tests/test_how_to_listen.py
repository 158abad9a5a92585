"""Issue 44's "how to listen" moment: the lecture's first section teaches the sound legend where its first sounds come.

A small legend shows only the kinds the matrix section plays (a step's bell, a value's pitch, a row's weights), each
line heard as it appears, through a cue of the kind it names whose sound is measured on the synthesized samples
against docs/sound.md's table (the formulas written here): the bell at 262 Hz; a value at 600 x 4^share Hz on the
scale the section's cells use, higher for a larger value; a row as one note per key on the token ladder from
330 Hz, in the weights' register, the heaviest key the loudest. All of it before the section's first cell, its weight
line the first weight row heard, in at most BUDGET seconds of the silent section; the voice names each sound."""

from __future__ import annotations

import numpy as np
import pytest
from manim import config

from attn_math.attention import self_attention
from lesson.config import load_config
from lesson.locale import load_locale
from lesson.narration_phrases import MARKER
from play_checks import scene_and_screens
from scene_checks import PacedSpeaker, run_scene
from sonify.mappings import MAPPINGS
from sonify.synth import SAMPLE_RATE
from test_sound_legend import fundamentals
from test_sound_scales import cents, pitch

SPANISH = load_locale("es")
LINES = {"listen_step": "step", "listen_value": "values", "listen_weight": "row"}  # each line: the cue kind it names
BELL = 262.0  # Hz: every step's marker
VALUE_FOOT = 600.0  # Hz: a value's pitch is 600 x 4^share
LADDER = [0, 2, 4, 7, 9]  # semitones over 330 Hz: key j's rung
WEIGHTS_BAND = (300.0, 600.0)  # Hz: the weights' register
BUDGET = 10.0  # seconds the moment adds to the silent section
SMALLEST_PIXELS = 16  # a legend line's capitals at 720p


@pytest.fixture(scope="module")
def recorded():
    return scene_and_screens("matrix")


def first_seen(shown, text: str):
    """The first screen (after a play) that shows ``text``."""
    return next((screen for screen in shown if any(record.text == text for record in screen.texts)), None)


def heard_with(scene, shown, key: str):
    """The cue of the kind line ``key`` names that lands as the line appears, and that screen."""
    screen = first_seen(shown, SPANISH["matrix"]["labels"][key])
    assert screen is not None, f"the legend's line {key!r} is never on screen"
    cues = [cue for cue in scene.cues if cue.kind == LINES[key] and abs(cue.time - screen.time) < 1e-6]
    assert len(cues) == 1, (key, screen.time, [(cue.kind, round(cue.time, 2)) for cue in scene.cues[:6]])
    return cues[0], screen


def test_each_line_of_the_legend_appears_with_its_sound_in_the_first_step(recorded):
    scene, shown = recorded
    for key in LINES:
        cue, screen = heard_with(scene, shown, key)
        first = scene.steps[0]  # the header's play lands as the step starts
        assert first.key == "formula" and first.start - 1e-6 <= screen.time < first.end, (key, screen.time)


def test_the_bell_line_is_the_steps_bell(recorded):
    cue, _ = heard_with(*recorded, "listen_step")
    assert abs(cents(pitch(MAPPINGS[cue.kind](**cue.values)), BELL)) < 15


def blip_pitches(cue) -> list[float]:
    """Each blip of a ``values`` cue, measured over its 0.14 s."""
    sound = MAPPINGS[cue.kind](**cue.values)
    spacing = cue.values["spacing"]
    return [pitch(sound, k * spacing, k * spacing + 0.14) for k in range(len(cue.values["values"]))]


def test_the_value_line_climbs_the_cells_scale_from_600_to_2400_hz(recorded):
    """Its blips run from the smallest to the largest of X, Q, K, V and Z (the cells' one scale, computed here),
    each at 600 x 4^share Hz: the higher, the larger."""
    scene, shown = recorded
    cue, _ = heard_with(scene, shown, "listen_value")
    settings = load_config().matrix
    result = self_attention(**settings.matrices(), scale=settings.scale, causal=settings.causal)
    vectors = np.concatenate([np.ravel(m) for m in (result.X, result.Q, result.K, result.V, result.output)])
    low, high = vectors.min(), vectors.max()
    values = np.array(cue.values["values"])
    assert values[0] == pytest.approx(low) and values[-1] == pytest.approx(high) and np.all(np.diff(values) > 0)
    first_cell = next(other for other in scene.cues if other.kind == "cell")
    assert (first_cell.values["low"], first_cell.values["high"]) == pytest.approx((low, high))
    expected = VALUE_FOOT * 4 ** ((values - low) / (high - low))
    assert np.all(np.abs(cents(blip_pitches(cue), expected)) < 15), (blip_pitches(cue), expected)


def test_the_weight_line_is_the_first_weight_row_on_the_ladder_its_heaviest_key_loudest(recorded):
    """One note per key on the ladder, in the weights' band; the loudest the heaviest key's rung. It is the row the
    walkthrough follows, which the softmax's two moves sound again."""
    scene, shown = recorded
    cue, _ = heard_with(scene, shown, "listen_weight")
    rows = [other for other in scene.cues if other.kind == "row"]
    assert rows[0] is cue and rows[1].values["weights"] == pytest.approx(cue.values["weights"])
    sound = MAPPINGS[cue.kind](**cue.values)
    heaviest = int(np.argmax(cue.values["weights"]))
    assert abs(cents(pitch(sound), 330 * 2 ** (LADDER[heaviest] / 12))) < 15
    found = fundamentals(sound)
    assert WEIGHTS_BAND[0] <= found.min() and found.max() < WEIGHTS_BAND[1], found


def test_the_moment_comes_before_the_sections_first_cell_and_fits_its_budget(recorded):
    """Every line is on screen before the first cell sounds. Without the legend the step wrote the formula as it
    began and d_k's line right after: what the moment adds is the time from the step's start to d_k's line less the
    formula's writing (both measured on the screens), at most BUDGET seconds."""
    scene, shown = recorded
    first_cell = min(cue.time for cue in scene.cues if cue.kind == "cell")
    assert all(first_seen(shown, SPANISH["matrix"]["labels"][key]).time < first_cell for key in LINES)
    formula, d_k_line = (next(index for index, screen in enumerate(shown) if any(shows(record.text) for record in
                                                                                 screen.texts))
                         for shows in (lambda text: "Attention" in text, lambda text: text.startswith("d_k:")))
    writing = shown[formula].time - shown[formula - 1].time
    added = shown[d_k_line - 1].time - scene.steps[0].start - writing
    assert 0 < added <= BUDGET, added


def test_the_legend_is_legible_and_inside_the_frame(recorded):
    _, shown = recorded
    texts = set(SPANISH["matrix"]["labels"][key] for key in ("listen_heading", *LINES))
    half_width, half_height = config.frame_width / 2, config.frame_height / 2
    pixels = 720 / config.frame_height
    seen = set()
    for screen in shown:
        for record in screen.texts:
            if record.text in texts:
                seen.add(record.text)
                assert record.cap_height * pixels >= SMALLEST_PIXELS, (record.text, record.cap_height * pixels)
                assert -half_width <= record.left and record.right <= half_width, record.text
                assert -half_height <= record.bottom and record.top <= half_height, record.text
    assert seen == texts


def test_the_voice_names_each_sound_after_it_has_rung_out():
    """With a voice (a stand-in at 166 words a minute) each line's sound is heard in the clear, and the phrase that
    names it starts after it: the bell's, the values', the weights'."""
    scene = run_scene("matrix", narration=PacedSpeaker())
    formula = scene.steps[0]
    phrases = {play: start for _, start, _, play in formula.narration["phrases"] if play}
    assert list(phrases)[:3] == MARKER.findall(SPANISH["matrix"]["steps"]["formula"]["narration"])[:3]
    sounds = [cue for cue in scene.cues if formula.start - 1e-6 <= cue.time < formula.end][:3]
    assert [cue.kind for cue in sounds] == list(LINES.values())
    for cue, play in zip(sounds, phrases):
        rung_out = cue.time + len(MAPPINGS[cue.kind](**cue.values)) / SAMPLE_RATE
        assert rung_out <= phrases[play] + 1e-4, (cue.kind, rung_out, play, phrases[play])  # times kept to 0.1 ms
    assert all(cue.listen for cue in sounds[1:])  # the voice stopped for them
