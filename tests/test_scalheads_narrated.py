"""Scaling and heads with a voice (review 43): the screen follows the voice, with no still stretch over 6 s outside
cards; the heads' readouts of rounded weights say that they add up to about 1; a short token in a spoken list is
named as a word."""

from functools import cache

import pytest

from lesson.numbers import parse_number
from scenes.heads import HeadsScene
from scenes.lesson_scene import LONGEST_FREEZE
from tests.scene_checks import PacedSpeaker, run_scene, stills_in


@cache
def paced(section: str):
    """The section run with a stand-in voice at the narration's pace (once for the module)."""
    return run_scene(section, narration=PacedSpeaker())


@pytest.fixture(params=["scaling", "heads"])
def narrated(request):
    return paced(request.param)


def test_no_step_stands_still_over_six_seconds_under_the_voice(narrated):
    """A stand-in voice at the narration's pace: every step's still stretches (waits back to back) stay within
    LONGEST_FREEZE; the cards are not steps, and follow their own rules."""
    long = {record.key: stills_in(narrated, record.key) for record in narrated.steps}
    assert not any(long.values()), {key: [(round(a, 1), round(b, 1)) for a, b in stills] for key, stills in long.items()
                                    if stills}
    assert all(record.narration.get("phrases") for record in narrated.steps)  # the voice spoke every step


def heads_screens():
    """The default heads scene, and the texts and tagged numbers on screen as each play lands."""
    screens = []
    original = HeadsScene.play

    def play(scene, *animations, **kwargs):
        original(scene, *animations, **kwargs)
        screens.append((scene.renderer.time, *scene._snapshot(scene.mobjects)))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(HeadsScene, "play", play)
        scene = run_scene("heads")
    return scene, screens


def test_every_readout_of_weights_adds_up_as_the_screen_says():
    """0.05 + 0.91 + 0.05 is 1.01: wherever a row's weights are written under the tokens and their written values
    do not add up to exactly 1, the screen says the weights are rounded and add up to ≈ 1."""
    scene, screens = heads_screens()
    off, checked = [], 0
    for time, texts, numbers in screens:
        says_about_one = any("≈ 1" in text.text for text in texts)
        for name, rows in numbers.items():
            if not (name.startswith("A") or name == "average"):
                continue
            for row in rows:
                values = [parse_number(text) for text in row if text is not None]
                if not values:
                    continue
                checked += 1
                written = round(sum(values), 2)
                if written != 1.0 and not says_about_one:
                    off.append((round(time, 1), name, values, written))
    assert checked and not off, off
    # the default sentence has such a row: "de" in head 1, 0.05 + 0.91 + 0.05
    assert any(round(sum(parse_number(text) for text in row if text is not None), 2) == 1.01
               for _, _, numbers in screens for name, rows in numbers.items() if name == "A1" for row in rows)


@pytest.mark.parametrize("key", ["average", "choose"])
def test_a_short_token_in_a_spoken_list_is_named_as_a_word(key):
    """«elegir entre «y», «calmó» y «María»» is heard as "elegir entre calmó y María" (Whisper base, 2026-12-06):
    the voice says «la palabra «y»», the screen keeps the list as written."""
    scene = paced("heads")
    record = next(step for step in scene.steps if step.key == key)
    assert "la palabra «y»" in record.narration["text"]
    assert "la palabra" not in record.caption and "«y»" in record.caption
