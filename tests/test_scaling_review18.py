"""Review s16 of the scaling section (graded 8, «a high 8»).

- 1: the last screen brought a 28-number table, the lab line, the noise note and the exercise line within 1.3 s.
- 2: the guide's exercise 5 was answered, never asked: no card, no time to think.
- the boxes framed the d_k = 64 and 512 cells while the exercise line compares 8 → 64.
- 3: the entropy's formula broke «· log₂ α_j» onto a line of its own, a sign first; then over three lines.
- the exercise card stood still 7.4 s while its question was said.
"""

from __future__ import annotations

import pytest
from manim import MathTex

from scenes.lesson_scene import LONGEST_FREEZE
from tests.scene_checks import PacedSpeaker, freezes, recorded
from tests.test_scaling_review15 import recorded_scene, scene, step  # noqa: F401 (fixtures)

GUIDE_EXERCISE = (8, 64)  # «La simulación usa d_k = 8. Si se usara d_k = 64 (como en GPT-2)…» (guide, ejercicio 5)
TOGETHER = 1.5  # seconds: things arriving closer than this arrive together


def plays_after(log, start: float) -> list:
    return [play for kind, play in log if kind == "play" and play.start >= start]


def appears_at(log, mobject, start: float) -> float:
    """When ``mobject`` (or a part of it) is first animated from ``start`` on."""
    family = {id(part) for part in mobject.get_family()}
    return min(play.start for play in plays_after(log, start)
               if family & {id(part) for target in play.animated for part in target.get_family()})


def test_exercise_5_is_posed_on_a_card_before_the_step_that_answers_it(scene):
    """The one predictive card of the section asks the guide's exercise 5 (its d_k, 64 in place of the lab's 8), just
    before the last step, whose table and exercise line answer it; the growing step has no card now (one card)."""
    cards = [card for card in scene.cards if card.kind == "predictive"]
    assert [card.key for card in cards] == ["restored"]
    text = " ".join(cards[0].text.split())
    assert "Ejercicio 5" in text and all(str(size) in text for size in GUIDE_EXERCISE) and "¿" in text
    restored = step(scene, "restored")
    assert cards[0].end <= restored.start


def test_the_last_screen_comes_in_three_moments(recorded_scene):
    """The table (with the lab's line over it), then the exercise line with its rows framed, then the note on the
    divided columns' noise with those columns framed: no two of them within TOGETHER seconds."""
    scene, log = recorded_scene
    start = step(scene, "restored").start
    table_at = appears_at(log, scene.table_lines[0], start)
    noise_at = appears_at(log, scene.table_noise, start)
    exercise_at = appears_at(log, scene.exercise_line, start)
    assert exercise_at - table_at >= TOGETHER and noise_at - exercise_at >= TOGETHER


def test_the_frames_after_the_exercise_line_sit_on_its_rows(recorded_scene):
    """The entropy cells framed under «sin dividir …» and «y dividiendo …» are those of the rows d_k = 8 and 64 the
    exercise line compares (they framed 64 and 512: review s16)."""
    scene, log = recorded_scene
    start = step(scene, "restored").start
    creates = [play for play in plays_after(log, start) if "Create" in play.kinds]
    *_, undivided, divided = creates
    sizes = scene.dimensions
    assert all(size in sizes for size in GUIDE_EXERCISE)
    for play, column in ((undivided, 0), (divided, 1)):
        frame = play.animated[0]
        cells = scene.summary.entropies[column]
        chosen = [cell for cell, size in zip(cells, sizes) if size in GUIDE_EXERCISE]
        others = [cell for cell, size in zip(cells, sizes) if size not in GUIDE_EXERCISE]

        def inside(cell):
            x, y = cell.get_center()[:2]
            return frame.get_left()[0] <= x <= frame.get_right()[0] and frame.get_bottom()[1] <= y <= frame.get_top()[1]

        assert all(inside(cell) for cell in chosen) and not any(inside(cell) for cell in others)


def test_no_line_of_the_entropy_formula_starts_with_a_sign_of_product(recorded_scene):
    """H(α) = −Σ_j α_j log₂ α_j over three lines: the second starts with the sum's minus (it is the sum), no line
    with «·» or «×»."""
    scene, log = recorded_scene
    lines = {part.tex_string for kind, play in log if kind == "play" for target in play.animated
             for part in target.get_family() if isinstance(part, MathTex)
             and any(piece in part.tex_string for piece in (r"H(\alpha)", r"\log", r"\sum_j"))}
    formula = [line for line in lines if r"\sum_j \alpha_j" in line or r"\log" in line]
    assert formula and not [line for line in formula if line.lstrip().startswith((r"\cdot", r"\times"))]


class SlowSpeaker(PacedSpeaker):
    """A stand-in voice at 110 words a minute: the synthetic voice said the card's 15 written words («d_k» as «d sub
    ka», 64 as «sesenta y cuatro») in 7.7 s, which the 166-words pace gives as 5.7."""

    WORD_SECONDS = 60 / 110


@pytest.fixture(scope="module")
def slow():
    return recorded("scaling", narration=SlowSpeaker())


def test_the_exercise_card_never_stands_still_6_s(slow):
    """Its question, said (d sub k, sesenta y cuatro…), took 7.4 s on a still card: the thinking bar runs from the
    card's fifth second when the voice is that long, so no still stretch of the card reaches LONGEST_FREEZE."""
    scene, _ = slow
    [card] = [card for card in scene.cards if card.kind == "predictive"]
    voice = card.narration["phrases"][-1][2] - card.narration["phrases"][0][1]
    assert voice > LONGEST_FREEZE - 1.0  # the case the review found: a question said for longer than that
    stills = [(max(start, card.start), min(end, card.end)) for start, end in freezes(scene)
              if start < card.end and end > card.start]
    assert all(end - start < LONGEST_FREEZE for start, end in stills), stills
