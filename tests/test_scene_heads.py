"""Section 3 (heads) as a viewer sees it: the weights on screen against the lesson's formula, the
relations each head is shown finding, the cost and shapes written out, the layout, the config."""

import json
import re

import numpy as np
import pytest

from attn_math.heads import HEAD_NAMES, MAX_TOKENS, multi_head_attention
from lesson.config import ConfigError, load_config
from lesson.locale import languages, load_locale
from scene_checks import layout_problems, lecture_problems, legibility_problems, pacing_problems, run_scene, shared_scene
from lesson.numbers import parse_number
from scenes import style
from scenes.heads import HeadsScene

STEPS = ["sentence", "previous", "subject_verb", "pronoun", "average", "illustrative", "choose", "cost", "concat"]
# 12 words, the most allowed, several of them as long as Spanish words get.
LONGEST = ("la electroencefalografista comprometidísima anticonstitucionalmente reconoció que ella lo "
           "desaprovechó irresponsablemente otra vez")
STRINGS = load_locale()["heads"]


def expected_weights(sentence=None) -> list[np.ndarray]:
    """Each head's softmax(X W_Q (X W_K)^T / sqrt(d_head)), written out from the exposed projections."""
    result = multi_head_attention(sentence) if sentence else multi_head_attention()
    heads = []
    for W_Q, W_K in zip(result.W_Q, result.W_K):
        scores = (result.X @ W_Q) @ (result.X @ W_K).T / np.sqrt(W_Q.shape[1])
        exps = np.exp(scores - scores.max(axis=1, keepdims=True))
        heads.append(exps / exps.sum(axis=1, keepdims=True))
    return heads


def shown_cells(step, name):
    """(i, j, value) of every number tagged ``name`` on screen at the end of ``step``."""
    return [(i, j, parse_number(text)) for i, row in enumerate(step.numbers.get(name, []))
            for j, text in enumerate(row) if text is not None]


def texts(step) -> list[str]:
    return [text.text.replace("\n", " ") for text in step.texts]


@pytest.fixture(scope="module")
def default_scene():
    return shared_scene("heads")


@pytest.fixture(scope="module")
def longest_scene():
    return run_scene("heads", f'heads.sentence="{LONGEST}"')


def test_steps_in_lesson_order(default_scene):
    assert [step.key for step in default_scene.steps] == STEPS
    assert all(step.end > step.start for step in default_scene.steps)


@pytest.mark.parametrize("scene_name", ["default_scene", "longest_scene"])
def test_no_text_overlaps_or_leaves_the_frame(scene_name, request):
    assert layout_problems(request.getfixturevalue(scene_name)) == []


@pytest.mark.parametrize("scene_name, sentence", [("default_scene", None), ("longest_scene", LONGEST)])
def test_weights_on_screen_equal_the_formula(scene_name, sentence, request):
    scene = request.getfixturevalue(scene_name)
    heads = expected_weights(sentence)
    checked = 0
    for step in scene.steps:
        for index, weights in enumerate(heads):
            for i, j, value in shown_cells(step, f"A{index + 1}"):
                assert value == pytest.approx(weights[i, j], abs=0.005), (step.key, index, i, j)
                checked += 1
        for i, j, value in shown_cells(step, "average"):
            assert value == pytest.approx(np.mean([w[i, j] for w in heads]), abs=0.005), (step.key, i, j)
            checked += 1
    assert checked >= 8


def test_each_head_step_shows_its_relation_in_the_default_sentence(default_scene):
    # 0 el 1 perro 2 de 3 María 4 ladró 5 y 6 ella 7 lo 8 calmó: "perro" follows "el", "perro" is the subject
    # of "ladró" (the verb looks back at it, then it at the verb), and "lo" is "perro" (masculine), not the
    # nearer "María".
    steps = {step.key: step for step in default_scene.steps}
    for key, name, (query, attended) in (("previous", "A1", (1, 0)), ("subject_verb", "A2", (1, 4)),
                                         ("pronoun", "A3", (7, 1))):
        cells = {(i, j): value for i, j, value in shown_cells(steps[key], name)}
        assert cells[query, attended] > 0.9, key
        assert all(i == query for i, _ in cells), "only the focused row is read out at the end"
    assert "«perro» → «el»" in steps["previous"].caption
    assert "«perro» → «ladró»" in steps["subject_verb"].caption
    assert "«lo» → «perro»" in steps["pronoun"].caption


def test_the_average_and_the_choice_look_at_the_token_whose_heads_disagree(default_scene):
    steps = {step.key: step for step in default_scene.steps}
    focus = 6  # "ella": the previous token "y", its verb "calmó" and its antecedent "María"
    assert {i for i, _, _ in shown_cells(steps["average"], "average")} == {focus}
    for name, attended in (("A1", 5), ("A2", 8), ("A3", 3)):
        cells = {(i, j): value for i, j, value in shown_cells(steps["choose"], name)}
        assert {i for i, _ in cells} == {focus}
        assert max(cells, key=cells.get) == (focus, attended), name
    assert "«ella»" in " ".join(texts(steps["choose"]))


def test_the_average_step_says_it_is_an_average_and_names_a_head_whose_row_says_something(default_scene):
    """Its caption names the tokens the focused row shares its weight with, from the heads' own weights, and
    the head whose row for «ella» has one clear maximum, on the noun it refers to («María»), far above uniform."""
    step = next(step for step in default_scene.steps if step.key == "average")
    heads = expected_weights()
    tokens = multi_head_attention().tokens
    row = np.mean([weights[6] for weights in heads], axis=0)
    shared = [tokens[j] for j in range(len(tokens)) if row[j] >= 0.1]
    assert shared == ["María", "y", "calmó"]  # about a third each
    # in the heads' order (head 1 on «y», 2 on «calmó», 3 on «María»): «y» never said between two others
    assert "«ella» reparte su peso entre «y», «calmó» y «María»" in step.caption
    shown_heads = [(index, shown_cells(step, f"A{index + 1}")) for index in range(len(heads))]
    (index, cells), = [(index, cells) for index, cells in shown_heads if cells]
    assert {i for i, _, _ in cells} == {6}
    i, j, value = max(cells, key=lambda cell: cell[2])
    assert tokens[j] == "María" and value >= 3 / len(tokens)  # three times a uniform row's weight
    assert value == pytest.approx(heads[index][6].max(), abs=0.005)
    assert f"cabeza {index + 1} le da {heads[index][6, 3]:.2f} a «María»" in step.caption
    assert f"{row[3]:.2f}" in step.caption  # what the average leaves of it
    assert "Suma" not in step.title  # review 14: «Las cabezas juntas», the average named as it comes


def test_nothing_is_named_before_the_step_that_shows_it(default_scene):
    """No caption, narration or text on screen mentions Concat or W_O before the step that shows them."""
    concat = STEPS.index("concat")
    for step in default_scene.steps[:concat]:
        said = " ".join([step.caption, step.narration.get("text", ""), *texts(step)])
        for name in ("Concat", "W_O", "W sub O"):
            assert name not in said, (step.key, name)


def test_d_model_is_said_before_it_is_used(default_scene):
    """The first step that mentions d_model is the first step, and it says its value: each token's length."""
    d_model = multi_head_attention().X.shape[1]
    mentions = [step for step in default_scene.steps
                if "d_model" in " ".join([step.caption, *texts(step)])]
    assert mentions[0].key == "sentence"
    assert f"d_model = {d_model}" in mentions[0].caption
    assert any(f"d_model = {d_model}" in text for text in texts(mentions[0]))


def test_the_choice_callout_says_where_each_heads_row_goes(default_scene):
    """From «ella» each head goes to another token, three different ones (issue 43: from «lo», head 2 stayed
    on «lo» and the choice set two relations against none); the callout says where each goes."""
    step = next(step for step in default_scene.steps if step.key == "choose")
    tokens = multi_head_attention().tokens
    lines = []
    for number, weights in enumerate(expected_weights(), start=1):
        attended = int(np.argmax(weights[6]))
        lines.append(f"cabeza {number} → «{tokens[attended]}»" + (" (a sí mismo)" if attended == 6 else ""))
    assert lines == ["cabeza 1 → «y»", "cabeza 2 → «calmó»", "cabeza 3 → «María»"]
    assert set(lines) <= set(texts(step))
    assert "«y», «calmó» y «María»" in step.caption


def test_token_labels_of_the_heatmap_are_apart_the_columns_upright_on_one_line(default_scene):
    """Row labels run left to right; column labels read upwards from the top of their column, all on one line
    (staggered on two, they read as a second sentence at 480p: review R, item 17)."""
    heatmap = default_scene.heatmap
    for labels, along, across in ((heatmap.row_labels, 0, 1), (heatmap.column_labels, 1, 0)):
        for label in labels:
            first, last = label[0].get_center(), label[-1].get_center()
            if len(label) > 1:
                assert last[along] - first[along] > 0.05 and abs(last[across] - first[across]) < 0.05, label.shown_text
    columns = list(heatmap.column_labels)
    assert max(label.get_bottom()[1] for label in columns) - min(label.get_bottom()[1] for label in columns) < 0.01
    for first, second in zip(columns, columns[1:]):
        assert first.get_right()[0] < second.get_left()[0]


@pytest.mark.parametrize("scene_name", ["default_scene", "longest_scene"])
def test_steps_are_read_without_frozen_stretches(scene_name, request):
    assert pacing_problems(request.getfixturevalue(scene_name)) == []


@pytest.mark.parametrize("scene_name", ["default_scene", "longest_scene"])
def test_text_is_legible_at_720p(scene_name, request):
    """The longest sentence's words are cut short in the token row ("ele…") rather than shrunk under 14 px."""
    assert legibility_problems(request.getfixturevalue(scene_name)) == []


def test_a_sentence_that_fits_is_written_in_full(default_scene):
    assert [word.shown_text for word in default_scene.row.words] == list(multi_head_attention().tokens)


def test_the_lesson_caveat_is_on_screen(default_scene):
    step = next(step for step in default_scene.steps if step.key == "illustrative")
    assert STRINGS["labels"]["illustrative_note"] in texts(step)


def test_cost_and_shapes_are_computed(default_scene):
    result = multi_head_attention()
    n, d_model = result.X.shape
    h, _, d_head = result.W_Q.shape
    assert h * d_head == d_model
    steps = {step.key: texts(step) for step in default_scene.steps}
    assert f"{d_model} × {d_model} = {d_model * d_model} pesos" in steps["cost"]
    assert f"{h} × ({d_model} × {d_head}) = {h * d_model * d_head} pesos" in steps["cost"]
    assert {f"{n} × {d_model}", f"{d_model} × {d_model}"} <= set(steps["concat"])


def test_cues_carry_the_weights(default_scene):
    heads = expected_weights()
    cues = default_scene.cues
    json.dumps([cue.values for cue in cues])  # plain numbers, lists and strings only
    arcs = [cue for cue in cues if cue.kind == "head_arcs"]
    assert [cue.values["head"] for cue in arcs] == [0, 1, 2]
    for cue in arcs:
        np.testing.assert_allclose(cue.values["weights"], heads[cue.values["head"]], atol=1e-9)
    rows = [cue for cue in cues if cue.kind == "head_row"]
    assert rows and all(np.allclose(cue.values["weights"], heads[cue.values["head"]][cue.values["query"]])
                        for cue in rows)
    kinds = {cue.kind for cue in cues} - {"step"}  # "step": every section's step boundary, from LessonScene
    assert kinds == {"tokens", "head_arcs", "head_row", "heads_overlay", "heads_sum", "sum_row", "heads_chord",
                     "cost", "concat"}
    assert [cue.time for cue in cues] == sorted(cue.time for cue in cues)


def test_duration_is_a_followable_pace(default_scene):
    assert 60 <= default_scene.steps[-1].end <= 180
    assert all(step.end - step.start >= 4 for step in default_scene.steps)


@pytest.mark.parametrize("lang", languages())
def test_every_locale_names_each_head_of_attn_math(lang):
    names = load_locale(lang)["heads"]["labels"]["head_names"]
    assert len(names) == len(HEAD_NAMES) and all(name.strip() for name in names)


@pytest.mark.parametrize("value, problem", [
    ('""', "empty"),
    ('"   "', "only spaces"),
    ('"' + " ".join(["palabra"] * (MAX_TOKENS + 1)) + '"', "one word too many"),
    ("12", "not a string"),
    ("[\"el\", \"perro\"]", "a list"),
])
def test_bad_sentences_are_refused(value, problem):
    with pytest.raises(ConfigError) as error:
        load_config(overrides=(f"heads.sentence={value}",))
    assert str(error.value).startswith("heads.sentence"), problem


def test_unknown_key_is_refused():
    with pytest.raises(ConfigError) as error:
        load_config(overrides=("heads.n_heads=4",))
    assert str(error.value).startswith("heads.n_heads")


def test_the_heads_outputs_in_concat_share_one_brightness_scale():
    """Z_1 | Z_2 | Z_3 is one matrix: equal |values| get equal brightness whichever head they come from."""
    result = multi_head_attention()
    largest = max(float(np.abs(head.output).max()) for head in result.heads)
    grey = [HeadsScene.magnitude_block(head.output, "Z", style.TEXT, style.shared_largest(
        *[other.output for other in result.heads])) for head in result.heads]
    for block, head in zip(grey, result.heads):
        for (i, j), value in np.ndenumerate(head.output):
            brightness = np.asarray(block.cells[i][j].get_fill_color().to_rgb())
            expected = (np.asarray(style.PANEL.to_rgb()) * (1 - abs(value) / largest)
                        + np.asarray(style.TEXT.to_rgb()) * abs(value) / largest)
            np.testing.assert_allclose(brightness, expected, atol=0.01)


# A repeated word and punctuation; an English sentence ---------------------------------------------------
# 0 La₁ 1 niña 2 vio 3 a 4 la₂ 5 gata 6 no 7 y 8 la₃ 9 llamó: "la₃" (before a verb) is a pronoun for "gata"
REPEATED = "La niña vio a la gata, ¿no? y la llamó."
ENGLISH = "the dog near Mary barked and she calmed it"


@pytest.fixture(scope="module")
def repeated_scene():
    return run_scene("heads", f'heads.sentence="{REPEATED}"')


def test_a_repeated_word_and_punctuation_pass_every_viewer_check(repeated_scene):
    assert lecture_problems(repeated_scene) == []


def test_repeated_words_are_told_apart_on_screen_and_in_captions(repeated_scene):
    labels = ["La₁", "niña", "vio", "a", "la₂", "gata", "no", "y", "la₃", "llamó"]
    assert [word.shown_text for word in repeated_scene.row.words] == labels  # no punctuation inside a token
    steps = {step.key: step for step in repeated_scene.steps}
    assert {"La₁", "la₂", "la₃"} <= set(texts(steps["pronoun"]))  # the heatmap's labels
    assert "«la₃» → «gata»" in steps["pronoun"].caption
    for step in repeated_scene.steps:
        assert not re.search(r"«[Ll]a»", step.caption), step.key


def test_the_sentence_keeps_its_punctuation_where_it_is_shown_whole(repeated_scene):
    first = next(step for step in repeated_scene.steps if step.key == "sentence")
    assert f"«{REPEATED}»" in texts(first)


def test_an_english_sentence_shows_its_three_relations():
    scene = run_scene("heads", 'lecture.lang="en"', f'heads.sentence="{ENGLISH}"')
    assert lecture_problems(scene) == []
    steps = {step.key: step for step in scene.steps}
    # 0 the 1 dog 2 near 3 Mary 4 barked 5 and 6 she 7 calmed 8 it
    for key, name, (query, attended) in (("subject_verb", "A2", (1, 4)), ("pronoun", "A3", (8, 1))):
        cells = {(i, j): value for i, j, value in shown_cells(steps[key], name)}
        assert cells[query, attended] > 0.9, key
    assert "“dog” → “barked”" in steps["subject_verb"].caption
    assert "“it” → “dog”" in steps["pronoun"].caption
    weights = multi_head_attention(ENGLISH, lang="en").heads[2].weights
    assert int(np.argmax(weights[6])) == 3  # she -> Mary


def test_the_longest_sentence_with_punctuation_is_written_whole_and_legible():
    """The sentence as typed wraps onto a second line rather than shrinking under 14 px."""
    punctuated = ("la electroencefalografista, comprometidísima, anticonstitucionalmente reconoció: que ella lo "
                  "desaprovechó irresponsablemente, ¿otra vez?")
    scene = run_scene("heads", f'heads.sentence="{punctuated}"')
    assert lecture_problems(scene) == []
    first = next(step for step in scene.steps if step.key == "sentence")
    assert f"«{punctuated}»" in texts(first)


def test_the_closing_card_draws_cross_attention(default_scene):
    """Issue 43: the closing card on cross-attention was text alone for 11 s. It draws where Q, K and V come from:
    the encoder holding the sentence, the decoder, and the formula between them (the card passes the layout and
    legibility checks with every step: records() holds the cards)."""
    card = next(card for card in default_scene.cards if card.kind == "closing")
    labels = STRINGS["labels"]
    shown = [text.text for text in card.texts]
    sentence = multi_head_attention(load_config().heads.sentence).sentence
    assert {labels["cross_encoder"], labels["cross_decoder"], labels["token"].format(token=sentence)} <= set(shown)
    formula = next(text for text in card.texts if "softmax" in text.text)
    assert all(part in formula.text for part in (r"Q_\text{dec}", r"K_\text{enc}", r"V_\text{enc}"))
    encoder, decoder = (next(text for text in card.texts if text.text == labels[key])
                        for key in ("cross_encoder", "cross_decoder"))
    assert encoder.bottom > formula.top and formula.bottom > decoder.top  # K and V come down, Q comes up


def test_the_output_is_named_as_what_the_next_layer_sees(default_scene):
    """Issue 43: the seed's "lo que ve la capa siguiente" was only half there: the mixed output is said to be it,
    under the output block."""
    step = next(step for step in default_scene.steps if step.key == "concat")
    label = next(text for text in step.texts if text.text == STRINGS["labels"]["next_layer"])
    output = next(text for text in step.texts if "salida" in text.text)
    assert label.top < output.bottom and output.left - 0.5 < (label.left + label.right) / 2 < output.right + 0.5
