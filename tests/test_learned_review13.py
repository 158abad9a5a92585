"""Section 7 (learned) against review s13 (review-b, «07-learned», graded 9):
- «primera mitad: 3.10» sat under «adivinar: ln 24 = 3.18» with nothing saying why, and V = 24 was never written: the
  guessing entry names V and the first half's says that no token of that half repeats;
- «Capa 1 / token anterior» and «Capa 2 / inducción» stood before all four heads of their rows while two heads of each
  play the role: the row says its layer, then the role with the heads that play it, in their colour;
- the maps of step 3 had no «fila = consulta» legend until step 4: step 3 writes it with its first maps;
- the 1.78 derivation was four terse lines: its lines now read as a chain (= 3.18 × 16.25 / 29; 16.25 = the
  predictions made from a new token = strays + period; the strays' range and its mean), in the same time.
Measured on the built scene against numbers worked out here."""


import numpy as np
import pytest

from attn_math.induction_task import training_shape
from scene_checks import legibility_problems, layout_problems
from scenes import style

from test_learned_review import training  # noqa: F401 (a fixture: the default training run)
from test_learned_review10 import lines_of, numbers_in, scene, steps_of  # noqa: F401 (scene: a fixture)

CLEAN = 0.5  # a head is clean from this score up (the step's «puntaje ≥ 0.50»)


def test_the_vocabulary_is_written_and_the_first_half_beats_guessing_for_a_reason(scene, training):
    """The guessing entry writes V = 24 beside ln 24; the first half's loss, under ln 24 (worked out here), has a line
    saying that no token of that half repeats, which the example's first half bears out (its tokens all differ)."""
    vocabulary, half = training.shape.vocabulary, training.shape.half
    lines = lines_of(steps_of(scene)["loss"])
    assert any(f"V = {vocabulary}" in line and f"ln {vocabulary}" in line for line in lines), lines
    assert training.first_half_losses[-1] < np.log(vocabulary)
    why = [line for line in lines if line.startswith(f"(< ln {vocabulary}")]
    assert len(why) == 1 and "se repite" in why[0], lines
    assert len(set(scene.tokens[:half])) == half


def test_each_row_names_the_heads_that_play_its_role(scene, training):
    """Each layer's row label is «Capa k», then, in the colour of its clean heads' frames, the role and the heads whose
    score (last checkpoint, worked out here from the training's scores) is at least 0.50: «cabezas 1 y 4»; the
    label says no role of its own beside the other heads."""
    after = scene.moments[-1]
    texts = {text.text.replace("\n", " "): text for text in steps_of(scene)["messy"].texts}
    for layer, (scores, role) in enumerate(((training.previous_token_scores[after], "token anterior:"),
                                            (training.induction_scores[after], "inducción:"))):
        clean = [str(head + 1) for head, score in enumerate(scores) if score >= CLEAN]
        assert 0 < len(clean) < len(scores)  # some heads of the layer play the role, not all
        assert f"Capa {layer + 1}" in texts, list(texts)
        roles = [text for text in texts if text.startswith(role)]
        assert len(roles) == 1, list(texts)
        assert numbers_in(roles[0]) == [float(head) for head in clean], roles[0]
    labels = [part for part in scene.comparison[1][1].get_family() if hasattr(part, "text")]
    coloured = {part.text: part[0].get_fill_color().to_hex().upper() for part in labels}  # text without spaces
    for role, colour in (("tokenanterior:", style.HEADS[0]), ("inducción:", style.INDUCTION)):
        assert coloured[next(text for text in coloured if text.startswith(role))] == colour.to_hex().upper()


def test_the_first_maps_say_how_they_are_read(scene):
    """Step 3, where the first 20 × 20 maps come, writes «fila = consulta, columna = clave», clear of the rest."""
    step = steps_of(scene)["heads_forming"]
    assert any("fila = consulta" in line and "columna = clave" in line for line in lines_of(step)), lines_of(step)
    assert [problem for problem in layout_problems(scene) if problem.startswith("heads_forming")] == []


def test_the_floor_is_derived_as_a_chain(scene, training):
    """The floor's lines: «= 3.18 × 16.25 / 29 predicciones», then «16.25 = las hechas desde un token nuevo», whose
    parts are 3.75 strays and 12.5 of the period, the strays' mean named a mean: 16.25 worked out here as
    (2 half − E[p]) / 2 + E[p] with p uniform on its range; legible, clear of the rest."""
    half = training.shape.half
    length, shortest, longest = training_shape(half)
    period = np.mean(np.arange(shortest, longest + 1))
    strays = (2 * half - period) / 2
    lines = lines_of(steps_of(scene)["loss"])
    why = [line for line in lines if "predicciones" in line]
    assert len(why) == 1 and "/" in why[0] and numbers_in(why[0]) == [strays + period, length - 1], why
    chain = [line for line in lines if "desde un token nuevo" in line]
    assert len(chain) == 1 and numbers_in(chain[0]) == [strays + period], lines
    mean = [line for line in lines if "→" in line]
    assert len(mean) == 1 and "media" in mean[0], lines
    assert [problem for problem in legibility_problems(scene) if problem.startswith("loss")] == []
    assert [problem for problem in layout_problems(scene) if problem.startswith("loss")] == []
