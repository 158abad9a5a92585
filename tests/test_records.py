"""One record type per step and per card: what the scene records is what the manifest keeps and what captions,
slides and the page read back."""

from __future__ import annotations

import json

import pytest

from lecture.render.manifest import Manifest
from lesson.records import CardRecord, StepRecord, TextRecord, cards_of, stored, steps_of


def records_survive_the_manifest(scene) -> None:
    """The scene's step and card records, stored in a manifest entry, validated and read back: the same types,
    keys, captions, titles, times and texts but for rounding. ``scene``: one with question and closing cards
    (test_cards runs the matrix section with every question on a card and checks it)."""
    entry = {"files": [], "fingerprint": "f", "duration": 1.0, "sha256": {}, "quality": "q", "format": "mp4",
             "audio": True, "config": {}, "steps": [stored(step) for step in scene.steps],
             "cards": [stored(card) for card in scene.cards]}
    read = Manifest.model_validate(json.loads(json.dumps({"sections": {"matrix": entry}}))).model_dump()
    steps, cards = steps_of(read["sections"]["matrix"]), cards_of(read["sections"]["matrix"])
    assert scene.cards and all(type(card) is CardRecord for card in cards)
    assert [step.key for step in steps] == [step.key for step in scene.steps]
    for shown, kept in zip([*scene.steps, *scene.cards], [*steps, *cards]):
        assert type(kept) is type(shown)
        assert kept.caption == shown.caption and kept.title == shown.title
        assert kept.start == pytest.approx(shown.start, abs=1e-4) and kept.end == pytest.approx(shown.end, abs=1e-4)
        assert len(kept.texts) == len(shown.texts) and all(type(text) is TextRecord for text in kept.texts)
        for before, after in zip(shown.texts, kept.texts):
            assert after.text == before.text
            assert (after.left, after.top) == pytest.approx((before.left, before.top), abs=1e-4)


def test_a_text_box_in_pixels_has_the_frames_origin_at_the_top_left():
    """Frame units: 8 high, y up, origin at the centre. A box one unit square just right of the centre and
    above it, in a 1280x720 frame (90 px a unit)."""
    box, cap = TextRecord("x", 0.0, 1.0, 0.0, 1.0, cap_height=0.5).pixels(1280, 720)
    assert box == pytest.approx([640.0, 270.0, 730.0, 360.0]) and cap == pytest.approx(45.0)


def test_a_step_without_its_keys_is_refused_with_the_key_named():
    with pytest.raises(ValueError, match="caption"):
        steps_of({"steps": [{"key": "a", "title": "b", "start": 0.0}]})
    with pytest.raises(ValueError, match="start"):
        StepRecord(key="a", title="b", caption="c", start="later")
