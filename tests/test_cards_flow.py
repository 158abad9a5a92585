"""A predictive question's card leaves with the last step's drawing (review s11: the card faded out, the last step's
finished screen came back at full brightness for half a second, then left with its header: a flash of an old
screen between the question and the step that answers it). Measured on a tiny video of matrix's two steps around
its card: from the card's arrival to the new header's landing, the last step's bright pixels never come back over
half their brightness."""

from __future__ import annotations

import av
import numpy as np
import pytest

from lesson.steps import StepRange
from lesson.sections import BY_ID
from scene_checks import render_video
from scenes.lesson_scene import HEADER_SECONDS

FRAME_RATE = 15
BRIGHT = 100  # grey level: the last step's drawing (numbers, matrices) on the dark background
COMES_BACK = 0.5  # of their brightness before the card: a dimmed screen under a fading veil stays under it


def grey_frames(path) -> list[tuple[float, np.ndarray]]:
    with av.open(str(path)) as video:
        return [(frame.time, frame.to_ndarray(format="gray").astype(float)) for frame in video.decode(video=0)]


@pytest.fixture(scope="module", params=[("matrix", "large_scores"), ("capital", "other_country")])
def clip(tmp_path_factory, request):
    """A step before a predictive card and the step it asks about, silent (the card held its reading): matrix's, and
    capital's (review s13: its step 9 came back for 0.7 s after the card, its drawing cleared after the header)."""
    section, key = request.param
    number = BY_ID[section].scene().STEPS.index(key) + 1
    scene, path = render_video(section, tmp_path_factory.mktemp("cardflow"), frame_rate=FRAME_RATE,
                               steps=StepRange(number - 1, number))
    return scene, grey_frames(path)


def test_the_last_steps_screen_does_not_come_back_between_the_card_and_the_step(clip):
    scene, frames = clip
    [card] = [card for card in scene.cards if card.kind == "predictive"]
    before = [image for time, image in frames if time < card.start - 1e-6][-1]
    drawing = before > BRIGHT
    drawing[: drawing.shape[0] // 8] = False  # the header's band: the old title leaves as the new one comes
    answered = scene.steps[-1].start
    assert drawing.sum() > 100 and answered == pytest.approx(card.end + HEADER_SECONDS / 2, abs=2 / FRAME_RATE)
    seen = [(round(time, 2), float(np.mean(image[drawing]) / np.mean(before[drawing])))
            for time, image in frames if card.start + 1.0 < time <= answered]
    assert seen and max(level for _, level in seen) < COMES_BACK, seen
