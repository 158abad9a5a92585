"""Section 7 (learned) against review s17 (review-k, «07-learned», graded 8):
- the mechanism was two arcs and a voice: a student could read «D looks at T because D and T match». Layer 1's head now
  writes «antes: D» under «T» as its arc lands, the returning «D»'s query reads «busca: antes = D» as the induction arc
  goes to that «T», both heads are named by layer and number, and the copy arrow starts clear over the pink arc;
- «un transformer de dos capas» was voice only: step 1 draws the two layers and their heads, from the model's shape;
- the loss legend says why the curve settles under the copying floor, and why the first half rises over ln V in the
  drop (both claims checked on the trained model here);
- «durante» showed 0.51 and 0.51 with nothing saying that is chance; A₁-A₃ were 14.3 px tall.
Measured on the built scene (plays logged as they ran) and on the cached training."""

import numpy as np
import pytest
from manim import CurvedArrow, Create, RoundedRectangle, config

from attn_math.induction_task import previous_occurrence, training_sequences
from attn_math.learned import induction_head, moments, previous_token_head
from attn_math.tiny_transformer import forward, log_probabilities
from lesson.config import load_config
from scene_checks import flattened, recorded
from scenes.learned import token_letter

from test_learned_review import training  # noqa: F401 (a fixture: the default training run)
from test_learned_review15 import plays_bringing_in

COPY_CLEARANCE = 0.15  # the copy arrow's start over the previous-token arc's top, at least (frame units)
LEGIBLE_PIXELS = 16  # the review's least cap height at 720p for a name to read (scene_checks' floor is 14)


@pytest.fixture(scope="module")
def logged():
    return recorded("learned")


def texts_of(scene, key: str) -> dict:
    """The step's texts at its end, by what they say (joined onto one line)."""
    step = next(step for step in scene.steps if step.key == key)
    return {text.text.replace("\n", " "): text for text in step.texts}


def said(part) -> str:
    return (getattr(part, "shown_text", None) or getattr(part, "text", "") or "").replace("\n", " ")


def play_with_text(log, wanted: str):
    """The first play that brings in a text reading ``wanted``."""
    return plays_bringing_in(log, lambda part: said(part) == wanted)[0]


def followed(training):
    """(the token whose next one the circuit predicts, its earlier occurrence, the token that followed that), as
    positions of the example: the middle of the repeated half, found again by ``previous_occurrence``."""
    half = len(training.example) // 2
    position = half + half // 2
    seen = int(previous_occurrence(training.example)[position])
    return position, seen, seen + 1


def test_layer_one_tags_the_follower_and_the_query_seeks_that_tag(logged, training):
    """Under «T» (the token after the earlier «D»), in the play that draws layer 1's arc, «antes: D»; under the returning
    «D», in the later play that draws the induction arc, «busca: antes = D»: each centred on its token, under the row,
    clear of every other text."""
    scene, log = logged
    position, seen, follower = followed(training)
    letter = token_letter(int(training.example[seen]))
    assert letter == token_letter(int(training.example[position]))
    texts = texts_of(scene, "mechanism")
    tag, query = f"antes: {letter}", f"busca: antes = {letter}"
    for text, at in ((tag, follower), (query, position)):
        record = texts[text]
        assert abs((record.left + record.right) / 2 - scene.row.centre_x(at)) < scene.row.spacing() / 4, text
        assert record.top < scene.row.bottom(), text
        assert not [other for name, other in texts.items() if name != text and record.overlaps(other)], text
    tagged, sought = play_with_text(log, tag), play_with_text(log, query)
    assert tagged.end <= sought.start
    # each comes with its head's weight: layer 1's over the row, the induction head's under it
    assert any(getattr(part, "tag", ("",))[0] == "mechanism_previous_row" for animation in flattened(tagged.animations)
               for part in getattr(animation, "mobject", None).get_family() if getattr(animation, "mobject", None))
    assert any(getattr(part, "tag", ("",))[0] == "mechanism_induction_row" for animation in flattened(sought.animations)
               for part in getattr(animation, "mobject", None).get_family() if getattr(animation, "mobject", None))


def test_the_mechanism_names_both_heads_by_layer_and_number(logged, training):
    """The two heads' lines say «capa 1, cabeza h» and «capa 2, cabeza h», h the head of each layer that scores highest
    on its pattern after the drop (recomputed from the scores), which is the head whose rows the step draws."""
    scene, _ = logged
    after = moments(training)[-1]
    previous = int(np.argmax(training.previous_token_scores[after][:training.shape.heads]))
    induction = int(np.argmax(training.induction_scores[after][:training.shape.heads]))
    assert (previous, induction) == (previous_token_head(training), induction_head(training))
    lines = list(texts_of(scene, "mechanism"))
    assert any(line.startswith(f"capa 1, cabeza {previous + 1}, token anterior") for line in lines), lines
    assert any(line.startswith(f"capa 2, cabeza {induction + 1}, inducción") for line in lines), lines


def test_the_copy_arrow_starts_over_the_previous_token_arc(logged, training):
    """The «copiar» arrow leaves «T» above the top of layer 1's arc (review: it started where the pink arc ends)."""
    scene, log = logged
    _, seen, follower = followed(training)
    tagged = play_with_text(log, f"antes: {token_letter(int(training.example[seen]))}")
    curves = [animation.mobject for animation in flattened(tagged.animations)
              if isinstance(animation, Create) and not isinstance(animation.mobject, RoundedRectangle)]
    assert len(curves) == 1
    copies = [animation.mobject for kind, play in log if kind == "play" for animation in flattened(play.animations)
              if isinstance(animation, Create) and isinstance(animation.mobject, CurvedArrow)]
    copy = copies[-1]  # the mechanism's, the section's last
    start = copy.get_start()
    assert abs(start[0] - scene.row.centre_x(follower)) < scene.row.spacing() / 4
    assert start[1] >= curves[0].get_top()[1] + COPY_CLEARANCE, (start[1], curves[0].get_top()[1])


def test_step_one_draws_the_two_layers_and_their_heads(logged, training):
    """Step 1 writes a box per layer with its heads, «capa l · H cabezas», H from the config, in one row under the
    goal; they come with the goal, in the step's first play."""
    scene, log = logged
    heads = load_config().learned.heads
    texts = texts_of(scene, "task")
    names = [f"capa {layer + 1} · {heads} cabezas" for layer in range(training.shape.layers)]
    assert training.shape.layers == 2 and all(name in texts for name in names), list(texts)
    goal = texts["En cada posición, el modelo predice el token siguiente."]
    boxes = [texts[name] for name in names]
    assert all(box.top < goal.bottom for box in boxes)
    assert boxes[0].right < boxes[1].left and abs(boxes[0].top - boxes[1].top) < 0.01
    first = plays_bringing_in(log, lambda part: said(part) == names[0])[0]
    assert first is play_with_text(log, "En cada posición, el modelo predice el token siguiente.")


def seen_mass(training, checkpoint: int) -> float:
    """The mean probability the model at ``checkpoint`` gives, in the first half of the test rows (distinct tokens),
    to a token already seen in the row: always wrong there."""
    half = training.shape.half
    probabilities = np.exp(log_probabilities(forward(training.checkpoints[checkpoint], training.evaluation).logits))
    rows = training.evaluation
    return float(np.mean([np.take_along_axis(probabilities[:, j], rows[:, :j + 1], axis=1).sum(axis=1).mean()
                          for j in range(half - 1)]))


def test_the_legend_says_why_the_curve_is_under_the_floor(logged, training):
    """The training curve settles under the copying floor (its median over the last 40 % of steps, against
    ln V times the uncopyable share counted on freshly drawn training rows); the legend says why, and the reason is
    true: at the end the model gives already-seen tokens less than a uniform guess would, where none repeats."""
    scene, _ = logged
    vocabulary, half = training.shape.vocabulary, training.shape.half
    rows = training_sequences(np.random.default_rng(7), 4000, vocabulary, half)
    uncopyable = (previous_occurrence(rows)[:, :-1] < 0).mean()  # predictions made from a token not seen before
    floor = uncopyable * np.log(vocabulary)
    losses = training.losses
    assert np.median(losses[int(0.6 * len(losses)):]) < floor - 0.02
    texts = texts_of(scene, "loss")
    note = texts["(la curva, algo menos: descarta los ya vistos)"]
    assert note.top < texts[next(line for line in texts if line.startswith("copiando y adivinando"))].bottom
    uniform = np.mean([(j + 1) / vocabulary for j in range(half - 1)])
    assert seen_mass(training, len(training.steps) - 1) < uniform


def test_the_legend_says_why_the_first_half_rises_in_the_drop(logged, training):
    """The first half's test loss goes over ln V during the drop; the legend says so, and why: the model then gives
    already-seen tokens (wrong in that half) more than it does once trained."""
    scene, _ = logged
    vocabulary = training.shape.vocabulary
    drop = moments(training)[1]
    around = range(max(0, drop - 3), min(len(training.steps), drop + 4))
    worst = max(around, key=lambda k: training.first_half_losses[k])
    assert training.first_half_losses[worst] > np.log(vocabulary)
    texts = texts_of(scene, "loss")
    assert f"(en la caída, > ln {vocabulary}: también copia aquí, y falla)" in texts, list(texts)
    assert seen_mass(training, worst) > seen_mass(training, len(training.steps) - 1)


def test_during_says_when_its_two_scores_alike_are_chance(logged, training):
    """When «durante»'s two scores are written alike, a line under that column says it is a coincidence of the step,
    with that score; it sits under the grid, clear of the other texts and of the scores' frames."""
    scene, _ = logged
    during = moments(training)[1]
    written = [f"{float(scores[during, head]):.2f}" for scores, head in (
        (training.previous_token_scores, previous_token_head(training)),
        (training.induction_scores, induction_head(training)))]
    texts = texts_of(scene, "heads_forming")
    tie = [line for line in texts if "coincidencia" in line]
    if written[0] != written[1]:
        assert not tie
        return
    assert tie == [f"(los dos {written[0]}: coincidencia de este paso)"]
    record = texts[tie[0]]
    assert not [other for name, other in texts.items() if name != tie[0] and record.overlaps(other)]
    rises = scene.forming[5]  # the frames round each head's three scores, drawn last: the line stays clear of them
    assert record.top <= rises.get_bottom()[1] - 0.05, (record.top, rises.get_bottom()[1])
    steps = [texts[line] for line in texts if line.startswith("paso ")]
    assert len(steps) == 3 and steps[0].right < (record.left + record.right) / 2 < steps[2].left


def test_designed_heads_names_are_legible(logged):
    """A₁-A₃ over the designed patterns: at least LEGIBLE_PIXELS of cap height at 720p (review: 14.3 px)."""
    scene, _ = logged
    names = [text for text in texts_of(scene, "messy").values() if text.text.startswith("A_")]
    assert len(names) == 3
    least = LEGIBLE_PIXELS / 720 * config.frame_height
    assert all(name.cap_height >= least for name in names), [name.cap_height * 720 / config.frame_height
                                                               for name in names]
