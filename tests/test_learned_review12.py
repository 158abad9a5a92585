"""Section 7 (learned) against review s11 (review-b, «07-learned», graded 8): the strays' mean (3.75) is derived on
screen and a training row shows its strays; the loss legend keeps the training curve and its copying floor apart from
the 10 + 10 test's dots, and its derivation gets time to be read; the induction head's colour is no designed head's
neighbour; the other trained heads are said not to copy (they spread their attention), which the maps bear out; the
score boxes of the forming heads leave room beside the digits; «durante» is said to be a rule's checkpoint."""

import re

import numpy as np
import pytest
from colorspacious import cspace_convert

from attn_math.copy_floor import lead_and_period
from attn_math.induction_task import previous_occurrence, training_sequences
from attn_math.learned import drop_step, moments
from attn_math.tiny_transformer import forward
from lesson.learned_answers import clean_heads
from scene_checks import PacedSpeaker, run_scene
from scenes import style

from test_learned_review import PIXELS_PER_UNIT, training  # noqa: F401 (a fixture: the default training run)
from test_palette import VISIONS, seen


@pytest.fixture(scope="module")
def scene():
    return run_scene("learned")


@pytest.fixture(scope="module")
def spoken():
    return run_scene("learned", narration=PacedSpeaker())


def steps_of(scene) -> dict:
    return {step.key: step for step in scene.steps}


def numbers_in(text: str) -> list[float]:
    return [float(number) for number in re.findall(r"\d+(?:\.\d+)?", text)]


def sampled_rows(training, seed: int = 7, count: int = 20000):
    """Rows drawn as training draws them, with their stray lead m and period p read off the tokens."""
    rows = training_sequences(np.random.default_rng(seed), count, training.shape.vocabulary, training.shape.half)
    earlier = previous_occurrence(rows)
    first_repeat = np.argmax(earlier >= 0, axis=1)
    period = first_repeat - earlier[np.arange(len(rows)), first_repeat]
    return first_repeat - period, period


def test_the_strays_mean_is_derived_on_screen(scene, training):
    """«3.75 sueltos» could not be derived from the screen. A legend line now gives the range m is drawn from (0 to
    2 half − periodo) and its mean, (2 half − E[p]) / 2, whose value is the mean lead of sampled rows."""
    lead, period = sampled_rows(training)
    lines = [text.text.replace("\n", " ") for text in steps_of(scene)["loss"].texts]
    derived = [line for line in lines if "→" in line and "sueltos" in line]
    assert len(derived) == 1, lines
    low, room, room_again, mean_period, halves = numbers_in(derived[0])
    assert (low, room, room_again, halves) == (0, 2 * training.shape.half, 2 * training.shape.half, 2)
    assert mean_period == pytest.approx(period.mean(), abs=0.05)
    assert (room - mean_period) / 2 == pytest.approx(lead.mean(), abs=0.05)
    parts = [numbers_in(line) for line in lines if "sueltos" in line and "periodo" in line and "→" not in line]
    assert parts and parts[0][0] == pytest.approx((room - mean_period) / 2)  # the 3.75 the count adds up


def test_the_legend_puts_the_floor_under_the_training_curve_and_the_test_apart(scene, training):
    """The 1.78 line belongs to the training curve (rows of 3 half tokens), the dots to the 10 + 10 test: the
    curve's entry names its rows' length, the floor's lines sit under it, indented, and a header naming the test
    (its half, twice) comes after them, over the two dots' entries."""
    texts = steps_of(scene)["loss"].texts
    half = training.shape.half

    def one(predicate):
        found = [text for text in texts if predicate(text.text.replace("\n", " "))]
        assert len(found) == 1, [text.text for text in texts]
        return found[0]

    curve = one(lambda line: "entrenamiento" in line and f"{3 * half} tokens" in line)
    floor = one(lambda line: line.startswith("copiando"))
    test = one(lambda line: "prueba" in line and numbers_in(line) == [half, half])
    first, repeated = one(lambda line: line.startswith("primera mitad")), one(lambda line: line.startswith("mitad rep"))
    assert curve.bottom > floor.top > test.top > first.top > repeated.top
    assert floor.left > curve.left + 0.2  # indented: an item of the training curve's entry
    derivation = [text for text in texts if "predicciones" in text.text or "→" in text.text]
    assert all(test.top < text.bottom for text in derivation)  # all of the floor's lines above the test's header


def test_the_floors_lines_are_given_time_to_be_read(spoken):
    """Its lines came in the last 4 s of the step. Now the derivation's lines come one at a time after the voice
    starts «unos 16 de cada 29…», each held, and the step lasts at least 6 s from there."""
    loss = steps_of(spoken)["loss"]
    starts = [start for text, start, end, play in loss.narration["phrases"] if play == "uncopyable"]
    assert len(starts) == 1
    assert loss.end - starts[0] >= 6.0, (loss.end, starts)


def test_the_induction_colour_is_no_designed_heads_neighbour():
    """On the comparison screen green meant the designed pronoun head (head 3, olive) and the induction head (mint).
    The induction head's colour is now far from every designed head in all three visions (ΔE ≥ 15) and, in normal
    vision, of another hue family than head 3 (≥ 60° apart)."""
    for vision in VISIONS:
        for head in style.HEADS:
            assert np.linalg.norm(seen(style.INDUCTION, vision) - seen(head, vision)) >= 15, (vision, head)

    def hue(colour):
        _, a, b = cspace_convert(np.asarray(colour.to_rgb()), "sRGB1", "CAM02-UCS")
        return np.degrees(np.arctan2(b, a)) % 360

    gap = abs(hue(style.INDUCTION) - hue(style.HEADS[2])) % 360
    assert min(gap, 360 - gap) >= 60


def test_the_other_heads_are_said_not_to_copy_and_spread_their_attention(scene, training):
    """«Las otras 4 no tienen un papel claro» read as false next to two maps with stripes. The voice and caption now
    say they follow no pattern and spread their attention over the earlier tokens (review s15: «no copian» was false
    praise of the clean layer-1 heads, which do not copy either); on the evaluation batch, each of them
    gives its strongest key (from the sixth query on) under 0.35 on average, where every clean head gives over 0.7."""
    messy = steps_of(scene)["messy"]
    said = messy.narration["text"]
    assert "no siguen un patrón" in said and "reparten su atención" in said
    assert "papel claro" not in said and "no copian" not in said
    after = moments(training)[-1]
    patterns = forward(training.checkpoints[after], training.evaluation).patterns  # (L, E, H, T, T)
    strongest = patterns[..., 5:, :].max(axis=-1).mean(axis=(1, 3))  # (L, H)
    clean = clean_heads(training)
    for layer in range(strongest.shape[0]):
        for head in range(strongest.shape[1]):
            if head in clean[layer]:
                assert strongest[layer, head] > 0.7, (layer, head)
            else:
                assert strongest[layer, head] < 0.35, (layer, head)


def test_the_score_boxes_leave_room_beside_the_digits(scene):
    """«0.21» started 4 px and «0.91» ended 3 px from their box's sides. Each box round a head's three scores now
    leaves at least 9 px at 720p between its sides and the digits."""
    rises = scene.forming[5]
    grid = scene.forming[2]
    assert len(rises) == 2
    for head, box in enumerate(rises):
        scores = [column[head][2] for column in grid]
        left_gap = min(score.get_left()[0] for score in scores) - box.get_left()[0]
        right_gap = box.get_right()[0] - max(score.get_right()[0] for score in scores)
        assert min(left_gap, right_gap) * PIXELS_PER_UNIT >= 9, (left_gap, right_gap)


def test_during_is_said_to_be_the_checkpoint_nearest_the_drop(scene, training):
    """Both «durante, paso 1200» scores were 0.51, which looked chosen. The screen now says «durante» is the saved
    checkpoint nearest the drop, naming the drop's step, and that is the step written under «durante»."""
    texts = [text.text.replace("\n", " ") for text in steps_of(scene)["heads_forming"].texts]
    drop = drop_step(training)
    rule = [line for line in texts if "durante" in line.lower() and "caída" in line and str(drop) in line]
    assert len(rule) == 1, texts
    nearest = int(training.steps[np.argmin(np.abs(training.steps - drop))])
    written = [int(numbers_in(line)[0]) for line in texts if line.startswith("paso ")]
    assert written[1] == nearest


def test_the_task_shows_a_training_row_with_its_strays(scene, training):
    """The strays the floor counts were only in the text. The task step now shows one training row (3 half
    letters) under the note; read off its letters, its strays and period are the ones named under it, its first
    m + p letters are all different, and the rest repeat with that period."""
    texts = steps_of(scene)["task"].texts
    note = [text for text in texts if text.text.startswith("Entrenado")]
    assert len(note) == 1
    letters = sorted([text for text in texts if len(text.text) <= 2 and text.text.isalpha()
                      and text.top < note[0].bottom], key=lambda text: text.left)
    length = 3 * training.shape.half
    assert len(letters) == length
    tokens = np.array([sum(ord(c) << 8 * k for k, c in enumerate(text.text)) for text in letters])  # one int a name
    lead, period = lead_and_period(tokens)
    assert period > 0 and len(set(tokens[:lead + period])) == lead + period
    assert all(tokens[j] == tokens[j - period] for j in range(lead + period, length))
    named = " ".join(text.text for text in texts)
    assert f"{lead} sueltos" in named and f"periodo de {period}" in named


def test_the_comparison_says_how_a_map_is_read(scene):
    """Review s12: on the comparison screen the 20×20 maps had no axes, so the induction pattern could not be read:
    one line says a map's rows are the queries and its columns the keys, as legible as the rest."""
    from tests.scene_checks import legibility_problems

    texts = [text.text for text in steps_of(scene)["messy"].texts]
    assert any("fila = consulta" in text and "columna = clave" in text for text in texts), texts
    assert [problem for problem in legibility_problems(scene) if problem.startswith("messy")] == []
