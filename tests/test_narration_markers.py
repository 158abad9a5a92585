"""Every marker a section's narration carries is reached: run with a voice (a stand-in of known length, no
synthesis), each phrase tied to a play starts with that play, in both languages' markers alike. A scene that forgot
its beat would say the phrase before or after the picture it describes (test_narration_beats shows how)."""

from __future__ import annotations

import numpy as np
import pytest

from lesson.locale import load_locale
from lesson.narration_phrases import MARKER
from lesson.sections import SECTIONS
from scene_checks import run_scene
from sonify.synth import SAMPLE_RATE

SPANISH, ENGLISH = load_locale("es"), load_locale("en")


class StandIn:
    """Each phrase as 0.3 s of quiet per word."""

    def speak(self, name, phrases, spoken):
        return [np.zeros(int(0.3 * len(phrase.split()) * SAMPLE_RATE), dtype=np.float32) for phrase in phrases]


def markers(text: str) -> list[str]:
    return MARKER.findall(text)


@pytest.mark.parametrize("section", [section.id for section in SECTIONS])
def test_both_languages_tie_the_same_phrases_to_the_same_plays(section):
    for key, strings in SPANISH[section]["steps"].items():
        for name, text in strings.items():
            if name.startswith("narration"):
                assert markers(text) == markers(ENGLISH[section]["steps"][key][name]), (section, key, name)


@pytest.mark.parametrize("section", [section.id for section in SECTIONS])
def test_every_marker_of_the_default_narration_starts_with_its_play(section):
    scene = run_scene(section, narration=StandIn())
    for step in scene.steps:
        expected = markers(SPANISH[section]["steps"][step.key][step.narration["variant"]])
        # A field may carry markers of its own (learned's clean heads, one per layer, each framed as it is said):
        # those are started with their plays too; the locale's own must all be, in order.
        played = [play for *_, play in step.narration["phrases"] if play]
        assert [play for play in played if play in expected] == expected, (section, step.key)
