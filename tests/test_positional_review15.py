"""Review s15 (720p, «04 positional», graded 9), three of its notes:
- «las manecillas los separan» (Δ = 3: 5.54 against Δ = 4: 5.56) was asserted in an unspoken note over 5.2 s of silence,
  and no screen showed the hands for Δ = 4: step 7 now turns the hands on to Δ = 4 and writes those turns under Δ = 3's,
  the note names the fastest hand's two turns, and the voice says it;
- step 6's period labels were shrunk to 15.8 px (their «dim j» to 15.3 px, the exponent of «2.0·10⁴» to 8 px of ink),
  and «2.0·10⁴» sat 5 px lower than the other periods;
- «Ninguna fila se repite» played over the bare heatmap: the two far rows most alike are now framed and lifted out
  beside it, where they differ boxed.
Measured on the built mobjects of the default section (d = 16, 32 positions, base 10000), against numbers worked
out here with numpy."""

import numpy as np
import pytest

from lesson.numbers import parse_number
from lesson.steps import parse_steps
from scenes.heatmap import Heatmap
from scenes.positional import PositionalScene
from scenes.visuals import baseline
from tests.scene_checks import PacedSpeaker, families_at_step_ends, run_scene
from tests.test_positional_review12 import step_of

PIXELS = 720 / 8  # 720p pixels per frame unit
LEGIBLE = 16  # px at 720p: the least cap height of a digit or a label the review accepts
D, N, BASE = 16, 32, 10000.0


def encoding(positions) -> np.ndarray:
    """PE rows worked out here: sin at 2i, cos at 2i + 1 of pos / 10000^(2i/16)."""
    pairs = np.repeat(np.arange(0, D, 2), 2)
    angles = np.asarray(positions, dtype=float)[:, None] / BASE ** (pairs / D)
    return np.where(np.arange(D) % 2 == 0, np.sin(angles), np.cos(angles))


def turns_in_degrees(delta: int) -> np.ndarray:
    return np.degrees(delta / BASE ** (np.arange(0, D, 2) / D))


def as_written(degrees: float) -> float:
    """The readouts' rounding: whole degrees from 10° up, tenths below."""
    return round(degrees) if degrees >= 10 else round(degrees, 1)


@pytest.fixture(scope="module")
def ends():
    return families_at_step_ends(PositionalScene, "positional")


@pytest.fixture(scope="module")
def spoken():
    return run_scene("positional", narration=PacedSpeaker())


def tagged(parts, name: str) -> list:
    return [part for part in parts if getattr(part, "tag", (None,))[0] == name]


def test_the_hands_turn_on_to_four_steps_and_write_those_turns(ends):
    """Step 7 ends with the hands at pos 12, four steps from the second start (8), and a row of turns for Δ = 4 under
    Δ = 3's: 229 72 23 7.2 ..., not 172 54 17 5.4 ...: the same similarity, other hands."""
    scene, seen = ends
    written = step_of(scene, "clock_hands").numbers["turn_to_12"][0]
    shown = [i for i, text in enumerate(written) if text is not None]
    assert len(shown) == 8
    for i in shown:
        assert parse_number(written[i]) == pytest.approx(as_written(turns_in_degrees(4)[i]), abs=1e-9), (i, written)
    assert parse_number(written[0]) == 229 and parse_number(step_of(scene, "clock_hands").numbers["turn_from_8"][0][0]) == 172
    angles = np.arctan2(encoding([12])[0, 0::2], encoding([12])[0, 1::2]) % (2 * np.pi)  # (sin, cos) -> from 12 o'clock
    for i, angle in scene.hand_row.angles.items():
        assert angle == pytest.approx(angles[i], abs=1e-6), i


def test_the_note_names_the_fastest_hands_two_turns(ends):
    """The note under the heatmap writes Δ = 3's and Δ = 4's similarities (5.54, 5.56, worked out here) and the fastest
    hand's turn for each (172°, 229°), the numbers step 7 wrote."""
    scene, _ = ends
    note = " ".join(" ".join(text.text.split()) for text in step_of(scene, "similarity").texts)
    similarity = {delta: float(encoding([0])[0] @ encoding([delta])[0]) for delta in (3, 4)}
    assert f"(Δ = 3): {similarity[3]:.2f}" in note and f"Δ = 4: {similarity[4]:.2f}" in note, note
    fastest = turns_in_degrees(1)[0]
    assert f"manecilla 0: {round(3 * fastest)}° o {round(4 * fastest)}°." in note, note


def test_the_note_is_said_not_left_to_a_silent_screen(spoken):
    """The voice says the note as it lands («tres pasos y cuatro casi empatan, pero sus manecillas no»): the step no
    longer ends on 4.6 s of silence after its last phrase (at most TAIL and a beat's gap)."""
    step = step_of(spoken, "similarity")
    phrases = step.narration["phrases"]
    ago = [phrase for phrase in phrases if phrase[3] == "ago"]
    assert ago and "manecillas" in ago[0][0], phrases
    voice_end = max(end for _, _, end, _ in phrases)
    assert step.end - voice_end <= 1.0, (step.end, voice_end)


def test_the_period_labels_are_legible_and_on_one_baseline(ends):
    """Step 6: «dim j» and every period at least 16 px cap height at 720p, the exponent of «2.0·10⁴» at least 16 px
    high, and the four periods' digits on one line."""
    scene, seen = ends
    parts = seen["waves"]
    periods = tagged(parts, "period")
    assert len(periods) == 4
    assert {text.shown_text for text in periods} == {"6.28", "62.8", "1987", "2.0·10⁴"}
    names = [text for text in step_of(scene, "waves").texts if text.text.startswith("dim ")]
    assert len(names) == 4
    for text in names:
        assert text.cap_height * PIXELS >= LEGIBLE, (text.text, text.cap_height * PIXELS)
    for text in periods:
        digit = text.submobjects[0]
        assert digit.height * PIXELS >= LEGIBLE, (text.shown_text, digit.height * PIXELS)
    long = next(text for text in periods if "⁴" in text.shown_text)
    assert long.submobjects[-1].height * PIXELS >= LEGIBLE
    lines = [baseline(text) * PIXELS for text in periods]
    assert max(lines) - min(lines) <= 0.5, lines


def test_no_row_repeats_is_shown_on_two_far_rows(ends):
    """Step 4 ends with rows 0 and 19 framed on the heatmap (19: of the rows 16-31, the one whose PE is most like row
    0's, Σ cos(ω_i Δ) worked out here) and lifted out beside it as a two-row heatmap of those values, a box round the
    columns where they differ by 0.5 or more (dims 4-6)."""
    scene, seen = ends
    parts = seen["heatmap"]
    far = 16 + int(np.argmax([np.cos(delta / BASE ** (np.arange(0, D, 2) / D)).sum() for delta in range(16, N)]))
    assert far == 19
    lifted = [part for part in parts if isinstance(part, Heatmap) and part is not scene.heatmap]
    assert len(lifted) == 1
    pair = lifted[0]
    np.testing.assert_allclose(pair.values, encoding([0, far]), atol=1e-12)
    assert pair.get_left()[0] > scene.legend.get_right()[0]  # beside the heatmap, not over it
    frames = [part for part in parts if part.__class__.__name__ == "SurroundingRectangle"]
    rows = sorted((frame for frame in frames if frame.get_right()[0] < pair.get_left()[0]), key=lambda f: -f.get_y())
    assert len(rows) == 2 and all(frame.width > 10 * frame.height for frame in rows)  # two whole rows framed
    cell = rows[0].height - 2 * 0.02  # a row box is its row's cells with 0.02 round them
    assert (rows[0].get_y() - rows[1].get_y()) / cell == pytest.approx(far, abs=1e-3)
    differ = np.flatnonzero(np.abs(encoding([0])[0] - encoding([far])[0]) >= 0.5)
    assert list(differ) == [4, 5, 6]
    block = pair.cell_block(range(2), range(4, 7))
    assert any(abs(frame.get_x() - block.get_x()) < 1e-6 and frame.width > block.width
               and frame.width < block.width + 0.2 for frame in frames)


def test_the_slow_column_shows_that_it_moves(ends):
    """Step 5: «dim 14» under «apenas se mueve» was six times «0.00», read as «does not move at all»; it is now written
    with the decimals that show it creep: sin(pos / 10000^(14/16)) for pos 0-5, worked out here."""
    scene, _ = ends
    table = step_of(scene, "frequencies").numbers["PE"]
    slow = [row[14] for row in table[:6]]
    expected = np.sin(np.arange(6) / BASE ** (14 / D))
    assert slow == [f"{value:.3f}" for value in expected] == ["0.000", "0.000", "0.001", "0.001", "0.001", "0.002"]
    assert [row[0] for row in table[:6]] == [f"{value:.2f}".replace("-", "−") for value in np.sin(np.arange(6))]


def test_the_weights_are_lit_while_the_outputs_they_make_are_built():
    """Step 1 dimmed W_Q, W_K, W_V to 0.3 (1.44:1) from sentence A's first row until the verdict, so Z_A was built
    beside weights a student could barely check it against: they are lit again as Z_A's rows come (and step back
    while Z_B's rows are compared, review s12)."""
    seen = []
    reveal = PositionalScene.reveal_rows

    def watched(scene, matrix, *arguments, **options):
        if getattr(scene, "outputs", None) and matrix is scene.outputs[0] and scene.steps[-1].key == "permutation":
            seen.append(min(float(part.fill_rgbas[:, 3].max()) for weights in scene.weights
                            for part in weights.entry_grid.family_members_with_points()))
        reveal(scene, matrix, *arguments, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PositionalScene, "reveal_rows", watched)
        run_scene("positional", steps=parse_steps("permutation", list(PositionalScene.STEPS)))
    assert seen and min(seen) >= 0.99, seen
