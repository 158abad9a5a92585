"""Section 7 (learned) against review s10 (frames-b, «07 learned», graded 8): «antes» is chosen on the loss curve
before it starts to fall; the copying floor's legend says what it counts (predictions made from a token not seen
before) in plain words; the trained heads' maps are large, their names clear of the frames round them; every weight
written in the mechanism is named; and the mechanism shows what the trained model predicts there."""

import re

import numpy as np
import pytest

from attn_math.induction_task import previous_occurrence, training_sequences
from lesson.numbers import parse_number
from scene_checks import run_scene
from scenes.heatmap import Heatmap
from scenes.learned import token_letter
from test_learned_review import PIXELS_PER_UNIT, training  # noqa: F401 (a fixture: the default training run)


@pytest.fixture(scope="module")
def scene():
    return run_scene("learned")


def steps_of(scene) -> dict:
    return {step.key: step for step in scene.steps}


def lines_of(step) -> list[str]:
    return [text.text.replace("\n", " ") for text in step.texts]


def numbers_in(text: str) -> list[float]:
    return [float(number) for number in re.findall(r"\d+(?:\.\d+)?", text.replace("\u2212", "-"))]


def test_before_is_on_the_loss_plateau_not_inside_the_drop(scene, training):
    """The review: «antes, paso 1116» was already inside the drop (loss about 2.83, down from the 3.15 plateau) while
    the voice said «Antes de la caída». Read on the curve itself: the plateau is the median loss over the run's second
    tenth to third tenth, the settled loss the median of its last fifth; around the step written under «antes» (a
    window of a fiftieth of the run) the loss has fallen less than a tenth of the way from the one to the other, and
    the repeated half is no easier than the first there (nothing copied yet)."""
    losses = training.losses
    n = len(losses)
    plateau, settled = np.median(losses[n // 10:3 * n // 10]), np.median(losses[-n // 5:])
    written = [text for text in lines_of(steps_of(scene)["heads_forming"]) if text.startswith("paso ")]
    assert len(written) == 3
    before = int(numbers_in(written[0])[0])
    half_window = n // 100
    around = losses[max(0, before - half_window):before + half_window + 1].mean()
    assert around >= plateau - 0.1 * (plateau - settled), (before, around, plateau, settled)
    checkpoint = int(np.flatnonzero(training.steps == before)[0])
    assert training.repeated_half_losses[checkpoint] >= training.first_half_losses[checkpoint]
    assert before < int(numbers_in(written[1])[0])  # and still before «durante»


def test_the_floor_says_it_counts_predictions_made_from_a_new_token(scene, training):
    """Both reviewers read «16.25 de 29 sin copia» as off by one (position 0 is never a target). It counts predictions
    by the token they are made FROM: the prediction made at position j (of token j + 1) can copy only if token j
    occurred before. Counted here on rows drawn as training draws them; the legend says «predicciones» and «desde un
    token nuevo», its numbers are that count and its two parts (the stray tokens, the period's first pass), in at most
    five lines (review s11: a fifth derives the strays' mean) no wider than the legend allows (no line over 5.5
    units: the old «+ 3.75 sueltos (0 a 20 −
    periodo)» was 4.7 and read as a formula)."""
    vocabulary, half = training.shape.vocabulary, training.shape.half
    rows = training_sequences(np.random.default_rng(5), 20000, vocabulary, half)
    earlier = previous_occurrence(rows)
    from_new = (earlier[:, :-1] < 0).sum(axis=1)  # predictions made at positions 0..T-2 from a token not seen before
    first_repeat = np.argmax(earlier >= 0, axis=1)
    period = first_repeat - earlier[np.arange(len(rows)), first_repeat]
    stray = first_repeat - period
    loss = steps_of(scene)["loss"]
    texts = [text for text in loss.texts if "predicciones" in text.text or "token nuevo" in text.text
             or "sueltos" in text.text or "copiando" in text.text]
    lines = [text.text.replace("\n", " ") for text in texts]
    assert len(lines) <= 5, lines  # review s11: a fifth, the strays' mean derived from the range they are drawn from
    why = [line for line in lines if "predicciones" in line]
    assert len(why) == 1
    counted, predictions = numbers_in(why[0])  # the price of each, ln V, is a number of its own on that line
    assert [parse_number(text) for row in loss.numbers["copying_guess"] for text in row] == [
        pytest.approx(np.log(vocabulary), abs=0.005)]
    assert counted == pytest.approx(from_new.mean(), abs=0.05)
    assert predictions == rows.shape[1] - 1
    assert any("desde un token nuevo" in line for line in lines), lines
    parts = [numbers_in(line) for line in lines if "sueltos" in line and "periodo" in line and "→" not in line]
    assert len(parts) == 1
    assert parts[0] == [pytest.approx(stray.mean(), abs=0.1), pytest.approx(period.mean(), abs=0.1)]  # 20000 rows: SE 0.03
    assert sum(parts[0]) == pytest.approx(counted)
    # review s13: the legend's column is wider (the plot takes 0.52 of the body, not 0.56) and the strays' line names
    # its mean («→ media (20 − 12.5)/2»); review s14: 0.48, its lines at 17 px (15.7 before): at most 5.9 units
    assert max(text.right - text.left for text in texts) <= 5.9


def test_the_trained_maps_are_large_and_their_names_clear_of_the_frames(scene):
    """The review: the eight trained maps were 72 px for 20x20 tokens (3.6 px cells) at 720p, and the grey «cabeza
    2/3/4» names ran edge to edge inside the highlight frames drawn round the heads. Now each map is at least 100 px
    (5 px cells; the designed heads' legend keeps the room it needs at full size), and no text of the step touches a frame: every text box lies wholly outside every frame drawn
    round the heads, at least 4 px from it (or wholly inside, 4 px from its sides)."""
    designed, trained, _, frames = scene.comparison[:4]
    heatmaps = [mobject for mobject in trained.get_family() if isinstance(mobject, Heatmap)]
    assert len(heatmaps) == 8
    assert min(heatmap.area.width for heatmap in heatmaps) * PIXELS_PER_UNIT >= 100
    margin = 4 / PIXELS_PER_UNIT
    texts = steps_of(scene)["messy"].texts
    assert len(frames) > 0
    touching = []
    for frame in frames:
        x0, y0 = frame.get_left()[0], frame.get_bottom()[1]
        x1, y1 = frame.get_right()[0], frame.get_top()[1]
        for text in texts:
            outside = (text.right <= x0 - margin or text.left >= x1 + margin or text.top <= y0 - margin
                       or text.bottom >= y1 + margin)
            inside = (text.left >= x0 + margin and text.right <= x1 - margin and text.bottom >= y0 + margin
                      and text.top <= y1 - margin)
            if not (outside or inside):
                touching.append(text.text)
    assert touching == []


def mechanism_weights(training):
    """(t, seen, follower, the previous-token head's row at the follower, the induction head's at t, the model's
    next-token probabilities at t), recomputed from the trained weights."""
    from attn_math.induction_task import previous_occurrence as earlier
    from attn_math.learned import induction_head, moments, previous_token_head
    from test_scene_learned import attention_patterns
    tokens = np.asarray(training.example)
    t = len(tokens) // 2 + len(tokens) // 4
    seen = int(earlier(tokens)[t])
    params = training.checkpoints[moments(training)[-1]]
    patterns, X = attention_patterns(params, tokens[None])
    logits = X[0, t] @ params["W_U"]
    probabilities = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    return (t, seen, seen + 1, patterns[0, 0, previous_token_head(training), seen + 1],
            patterns[1, 0, induction_head(training), t], probabilities)


def tagged(scene, name: str) -> dict:
    return {part.tag[1]: part for mobject in scene.mobjects for part in mobject.get_family()
            if getattr(part, "tag", (None,))[0] == name}


def test_every_weight_written_on_the_mechanisms_row_is_one_its_lines_name(scene, training):
    """The review: an orange-green «0.08» under «O» (the induction head's second weight) was written and never
    explained. Each head writes on the row the one weight its line names: the previous-token head's from the follower
    to the earlier occurrence, the induction head's from the return to the follower."""
    t, seen, follower, previous_row, induction_row, _ = mechanism_weights(training)
    written = {name: {key: parse_number(number.shown_text) for key, number in tagged(scene, name).items()}
               for name in ("mechanism_previous_row", "mechanism_induction_row")}
    assert written == {"mechanism_previous_row": {(follower, seen): pytest.approx(previous_row[seen], abs=0.005)},
                       "mechanism_induction_row": {(t, follower): pytest.approx(induction_row[follower], abs=0.005)}}


def test_the_mechanism_shows_the_models_next_token_probabilities(scene, training):
    """The review: thin next to Olsson et al., no view of what the induction head makes the model write, only
    «predice «T» con probabilidad 0.96». Now the likeliest three next tokens at the position followed, as bars: each
    token's probability recomputed here from the trained weights (softmax of the last residual stream times W_U), in
    order, each bar as long as its probability, the likeliest the follower of the earlier occurrence."""
    t, seen, follower, _, _, probabilities = mechanism_weights(training)
    likeliest = np.argsort(-probabilities)[:3]
    shown = {(0, int(likeliest[0])): number for number in tagged(scene, "mechanism_prediction").values()
             if number in scene.chart.get_family()}  # the likeliest's number is the prediction's
    shown.update(tagged(scene, "mechanism_distribution"))
    assert sorted(shown) == [(rank, int(token)) for rank, token in enumerate(likeliest)]
    for (rank, token), number in shown.items():
        assert parse_number(number.shown_text) == pytest.approx(probabilities[token], abs=0.005)
    assert likeliest[0] == training.example[follower]
    rows = scene.chart[1]
    assert [letter.text for letter, _, _ in rows] == [token_letter(int(token)) for token in likeliest]
    widths = np.array([bar.width for _, bar, _ in rows])
    assert widths[0] * PIXELS_PER_UNIT >= 150  # the likeliest bar long: most of the mass at a glance
    assert widths[1:] / widths[0] == pytest.approx(probabilities[likeliest[1:]] / probabilities[likeliest[0]],
                                                   abs=0.02)  # a bar of 0.00 still drawn as a sliver
    # under the induction head's arc, which passes over it, by at least 16 px (its stroke and the title's accents: 10.7
    # px read as touching at 720p)
    from manim import MarkupText, Polygon
    from scenes import style
    curves = [part for mobject in scene.mobjects for part in mobject.get_family()
              if len(part.points) and part.get_stroke_width() > 0 and not isinstance(part, (Polygon, MarkupText))
              and part.get_stroke_color().to_hex().lower() == style.INDUCTION.to_hex().lower()]
    left, right = scene.chart.get_left()[0], scene.chart.get_right()[0]
    drawn = [part.point_from_proportion(a) for part in curves for a in np.linspace(0, 1, 400)]
    over = [point[1] for point in drawn if left <= point[0] <= right]
    assert over and min(over) - scene.chart.get_top()[1] >= 16 / PIXELS_PER_UNIT
    for (_, bar, number), (_, other, _) in zip(rows, rows[1:]):  # the rows apart: a number clear of the next bar
        assert number.get_bottom()[1] - other.get_top()[1] >= 2 / PIXELS_PER_UNIT
