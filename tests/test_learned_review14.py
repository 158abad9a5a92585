"""Section 7 (learned) against review s14 (review-b, «07-learned», graded 9):
- «Adivinar cuesta 3.18» was captioned 2.0 s before ln 24 = 3.18 came (the step opened on bare axes while the task
  faded), «la mitad repetida baja a 0.18» 0.6 s before its label: each number is on screen within a quick reveal of
  the caption block that first says it;
- the 1.78 derivation was five lines at 15.7 px, «desde un token nuevo» not saying why the first period's last token
  counts: its lines are at least 16 px, further apart, and one says that nothing followed a new token before;
- step 4 framed the heads that are not clean in white, the brightest marks on the screen: the clean heads are framed
  in their role's colour and the others' maps fade;
- step 5's token row ran from 32 px to 1248 px: it keeps 0.3 units inside the body's sides.
Measured on the built scene (plays logged as they ran, subtitles as the caption files write them, mobjects)."""

import numpy as np
import pytest
from manim import config

from lecture.render.captions import spoken_cues
from scene_checks import PacedSpeaker, recorded, run_scene
from scenes import style

from test_learned_review import training  # noqa: F401 (a fixture: the default training run)
from test_learned_review10 import lines_of, scene, steps_of  # noqa: F401 (scene: a fixture)

BEFORE_END = 107.767  # s: the section's end at the paced stand-in voice before these changes (116.2 s with the real voice)
REVEAL = 0.35  # s: a number may finish arriving this long after the caption block that says it shows
LEAST_CAP_PIXELS = 16  # at 720p: the review's bar for the derivation's lines
MARGIN = 0.3  # frame units: the mechanism's row inside the body's sides
ROLE_COLOURS = (style.HEADS[0], style.INDUCTION)  # the previous-token heads' (section 3's head 1), the induction heads'


@pytest.fixture(scope="module")
def spoken_log():
    return recorded("learned", narration=PacedSpeaker())


def shown_at(log, tag: str) -> float:
    """When the first play that brings in the number tagged ``tag`` ends (it is fully there)."""
    for kind, entry in log:
        if kind == "play" and any(getattr(part, "tag", (None,))[0] == tag for mobject in entry.animated
                                  if mobject is not None for part in mobject.get_family()):
            return entry.end
    raise AssertionError(f"no play shows {tag}")


@pytest.mark.parametrize("tag, field", [("guessing_loss", "guess"), ("repeated_half_loss", "repeated"),
                                        ("copying_loss", "floor")])
def test_no_caption_says_a_number_before_the_screen_shows_it(spoken_log, tag, field):
    """The loss step's numbers (3.18, 0.18, 1.78): the first subtitle block holding each, as the caption files time
    it, starts no earlier than REVEAL before the play that shows it has ended."""
    scene, log = spoken_log
    step = steps_of(scene)["loss"]
    written = [text for text in step.numbers[tag][0]][0]
    blocks = [(start, text) for start, _, text in spoken_cues(step) if written in text]
    assert blocks, (written, spoken_cues(step))
    assert shown_at(log, tag) <= blocks[0][0] + REVEAL, (written, blocks[0], shown_at(log, tag))


def test_the_floor_derivation_is_legible_and_says_why_a_new_token_counts(scene):
    """Every line of the 1.78 entry is at least 16 px high in its capitals at 720p, its lines at least 0.1 units
    apart (0.08 before); one says that nothing followed a new token before (so nothing can be copied from it), and the parts' line
    says the period's last token is one of them."""
    texts = [text for text in steps_of(scene)["loss"].texts if "predicciones" in text.text or text.text.startswith(
        ("copiando", "16.25", "(nada lo siguió", "3.75", "sueltos:"))]  # a line each (its numbers apart: checked as text)
    assert len(texts) == 6, [text.text for text in texts]
    pixels = [text.cap_height * 720 / config.frame_height for text in texts]
    assert min(pixels) >= LEAST_CAP_PIXELS, pixels
    ordered = sorted(texts, key=lambda text: -text.top)
    assert min(upper.bottom - lower.top for upper, lower in zip(ordered, ordered[1:])) >= 0.1
    lines = [text.text.replace("\n", " ") for text in ordered]
    assert any(line.startswith("(nada lo siguió antes") and "copiar" in line for line in lines), lines
    assert any(line.startswith("3.75 sueltos") and "último" in line for line in lines), lines


def test_the_clean_heads_are_the_salient_ones(scene, training):
    """Step 4's last screen: a frame round each clean head (score >= 0.50, worked out here) in its layer's role colour,
    none white and none round the other heads; the other heads' maps are faded, the clean ones' not."""
    after = scene.moments[-1]
    scores = np.concatenate([training.previous_token_scores[after], training.induction_scores[after]])
    heads = len(training.previous_token_scores[after])
    clean = [k for k, score in enumerate(scores) if score >= 0.5]
    others = [k for k in range(len(scores)) if k not in clean]
    assert clean and others
    trained, frames = scene.comparison[1], scene.comparison[3]
    shown = [head for layer in trained[1] for head in layer[1]]
    assert len(frames) == len(clean)
    for frame, k in zip(frames, clean):
        assert frame.get_stroke_color().to_hex().upper() == ROLE_COLOURS[k // heads].to_hex().upper()
        assert frame.get_stroke_color().to_hex().upper() != style.HIGHLIGHT.to_hex().upper()
        assert np.allclose(frame.get_center(), shown[k].get_center(), atol=0.05)  # round that head, not another

    def cells_opacity(k):
        return max(cells.get_fill_opacity() for cells in shown[k][0].grid[1:])

    assert min(cells_opacity(k) for k in clean) == pytest.approx(1.0)
    assert max(cells_opacity(k) for k in others) <= 0.5


def test_the_mechanism_row_keeps_its_margin(scene):
    """Step 5's tokens lie at least MARGIN inside the body's sides (the body is style.body_box's width)."""
    left, right = style.body_box()[:2]
    words = scene.row.words
    assert min(word.get_left()[0] for word in words) >= left + MARGIN - 1e-6
    assert max(word.get_right()[0] for word in words) <= right - MARGIN + 1e-6


def test_the_section_is_no_longer(spoken_log):
    """The length budget, at the paced stand-in voice: the section ends no later than before these changes (the
    halves' sentence of its own costs a phrase gap, paid by a shorter curve and shorter pauses between the floor's
    lines)."""
    scene, _ = spoken_log
    assert scene.steps[-1].end <= BEFORE_END + 1e-3, scene.steps[-1].end

