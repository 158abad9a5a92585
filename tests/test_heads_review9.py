"""Review 9 of section 03 heads: no text faded in over one leaving; the weights under the tokens inside the frame's
margin and the choice's heads on one line where they fit; a voice before the heads' overlay; one row of Concat · W_O
with its numbers, recomputed here; a picture on the cross-attention card."""

from __future__ import annotations

import numpy as np
import pytest
from manim import AnimationGroup, Transform

from attn_math.heads import multi_head_attention
from lesson.heads_answers import choice_token
from lesson.numbers import parse_number
from scene_checks import PacedSpeaker, flattened, run_scene
from scenes import style
from scenes.fades import Swap
from scenes.lesson_scene import LessonScene


def _texts(scene) -> dict:
    """The texts on screen, by their mobject's id: (mobject, its record)."""
    return {id(text): (text, scene._snapshot([text])[0][0]) for text in scene._visible_texts(scene.mobjects)}


def _not_at_once(animations) -> set:
    """(id of a text leaving, id of a text coming) pairs a play never shows together: a transform's source and its
    target (one morphs into the other), a Swap's old and new number, and the parts of a group played in turn."""
    pairs = []
    for animation in flattened(animations):
        if isinstance(animation, Transform) and animation.target_mobject is not None:
            pairs.append((animation.mobject, animation.target_mobject))
        if isinstance(animation, Swap):
            pairs.append((animation.old, animation.mobject))
        if isinstance(animation, AnimationGroup) and animation.lag_ratio >= 1:
            members = list(animation.animations)
            pairs += [(earlier.mobject, later.mobject) for index, earlier in enumerate(members)
                      for later in members[index + 1:]]
    return {(id(leaving), id(coming)) for first, second in pairs
            for leaving in first.get_family() for coming in second.get_family()}


def faded_over(section_id: str, *overrides: str, cards: bool = False) -> tuple[LessonScene, list[str], list]:
    """The scene, every text a play fades in over a text it fades out (both on screen in the middle of the play, one
    over the other: checks after each play, play_checks.screen_overlaps, see only the end of it), and the texts on
    screen after each play, (time, step, records). No question cards (a card covers the step on purpose) unless
    ``cards``."""
    found, seen = [], []
    play = LessonScene.play

    def recording(scene, *animations, **options):
        before = _texts(scene)
        play(scene, *animations, **options)
        after, apart = _texts(scene), _not_at_once(animations)
        seen.append((scene.renderer.time, scene.steps[-1].key if scene.steps else "",
                     [record for _, record in after.values()]))
        for leaving, (_, old) in before.items():
            for coming, (_, new) in after.items():
                if leaving not in after and coming not in before and (leaving, coming) not in apart \
                        and old.overlaps(new):
                    found.append(f"{scene.renderer.time:.1f} s: {new.text!r} faded in over {old.text!r}")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", recording)
        scene = run_scene(section_id, *([] if cards else ["lecture.questions='none'"]), *overrides)
    return scene, found, seen


@pytest.fixture(scope="module")
def heads():
    return faded_over("heads")


def test_no_text_fades_in_over_one_fading_out(heads):
    """Review: at 59.6-60.2 the fading legend («cabeza 1/2/3 …») was drawn over the heat map's row labels; a focused
    row's weights faded in over the ones before them (0.05 over 0.91)."""
    _, found, _ = heads
    assert found == []


def test_the_weights_under_the_tokens_stay_inside_the_margin(heads):
    """Review: «0.95» under «el» started 12 px from the frame's left edge (27.7 s): inside the body's margin."""
    scene, _, _ = heads
    left, right, _, _ = style.body_box()
    for step in scene.steps:
        for text in step.texts:
            assert left - 1e-3 <= text.left and text.right <= right + 1e-3, (step.key, text.text, text.left)


def test_the_choice_writes_the_heads_weights_on_one_line_where_they_do_not_collide(heads):
    """Review: in step 7, head 3's «1.00» sat 30 px lower than head 2's. The default sentence's heads look at
    different tokens from «ella»: their weights share one line."""
    scene, _, _ = heads
    result = multi_head_attention()
    focus = choice_token(result)
    shown = [np.flatnonzero(np.round(head.weights[focus], 2)) for head in result.heads]
    assert len(set(np.concatenate(shown))) == sum(map(len, shown))  # no token gets two heads' weights
    step = next(step for step in scene.steps if step.key == "choose")
    numbers = [text for text in step.texts if text.text in {f"{w:.2f}" for head in result.heads
                                                            for w in head.weights[focus]}]
    assert len(numbers) == sum(map(len, shown))
    assert max(text.top for text in numbers) - min(text.top for text in numbers) < 0.01


def _by_hand():
    """Each head's Z_h = A_h V_h from the exposed projections, Concat = [Z_1 | Z_2 | Z_3] and Concat · W_O, written out
    here (softmax of the scaled scores, then the values), not read from the result's own concat and output."""
    result = multi_head_attention()
    outputs = []
    for W_Q, W_K, W_V in zip(result.W_Q, result.W_K, result.W_V):
        scores = (result.X @ W_Q) @ (result.X @ W_K).T / np.sqrt(W_Q.shape[1])
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        outputs.append(weights / weights.sum(axis=1, keepdims=True) @ (result.X @ W_V))
    concat = np.hstack(outputs)
    return result, concat, concat @ result.W_O


def test_one_row_of_concat_and_of_its_product_with_w_o_is_written_in_numbers(heads):
    """Review: Concat, W_O and «salida» were lit and unlit grids with no numbers, the one step a student could not
    recompute. The token the last steps followed («ella») has its Concat row and its output row on screen, every
    number equal to the product worked out here, the output's under the Concat's; W_O's cells are said to be 1 or 0
    (they are), so the output row can be checked by hand."""
    scene, _, _ = heads
    result, concat, output = _by_hand()
    focus = choice_token(result)
    step = next(step for step in scene.steps if step.key == "concat")
    for name, expected in (("concat_row", concat[focus]), ("output_row", output[focus])):
        shown = step.numbers[name][focus]
        assert len(shown) == result.d_model, name
        assert [parse_number(text) for text in shown] == pytest.approx(np.round(expected, 2), abs=0.005), name
    assert np.isin(result.W_O, (0, 1)).all()
    assert any(text.text == "clara = 1, oscura = 0" for text in step.texts)
    token = result.labels[focus]
    concat_name, output_name = (next(text for text in step.texts if text.text == f"«{token}» en {place}:")
                                for place in ("Concat", "la salida"))
    assert concat_name.bottom > output_name.top  # the output row under Concat's


def test_each_heads_output_is_linked_to_its_weights_times_its_values(heads):
    """Review: Z₁, Z₂ and Z₃ were never linked to the A_h·V_h that produced them: each comes labelled Z_h = A_h V_h
    (the A_h of the head steps' heatmaps) before they are joined."""
    _, _, seen = heads
    shown = {text.text for _, key, texts in seen if key == "concat" for text in texts}
    assert {f"Z_{{{h}}} = A_{{{h}}} V_{{{h}}}" for h in (1, 2, 3)} <= shown


@pytest.fixture(scope="module")
def with_cards():
    return faded_over("heads", cards=True)


def test_the_cross_attention_card_draws_decoder_rows_by_encoder_columns(with_cards):
    """Review: the cross-attention card (135-146.7) was text and formula only. Beside the formula, a sketch (said to
    be one) of its weights: a row per token the decoder has written (q₁, q₂, q₃: its queries, the rows coming one by
    one as it writes), a column per word of the encoder's sentence (its keys)."""
    scene, _, seen = with_cards
    card = next(card for card in scene.cards if card.kind == "closing")
    texts = {text.text: text for text in card.texts}
    assert "pesos ilustrativos (claro = más peso):" in texts  # review 10: the rows the translation's tokens
    rows = [texts[name] for name in ("Maria's", "dog", "barked")]
    assert rows[0].bottom > rows[1].top and rows[1].bottom > rows[2].top
    tokens = multi_head_attention().labels
    columns = [texts[token] for token in tokens]
    assert all(column.bottom > rows[0].top for column in columns)  # over the rows
    assert all(left.right <= right.left for left, right in zip(columns, columns[1:]))  # one column a word, in order
    formula = next(text for text in card.texts if "softmax" in text.text)
    assert min(text.left for text in columns) > formula.right  # beside the formula
    comes = [min(time for time, _, shown in seen if any(text.text == row.text for text in shown)) for row in rows]
    assert comes == sorted(comes) and len(set(comes)) == 3


@pytest.fixture(scope="module")
def narrated():
    return run_scene("heads", "lecture.questions='none'", narration=PacedSpeaker())


def test_the_heads_overlay_is_announced_and_heard_in_the_clear(narrated):
    """Review: 51.4-59.0, 7.6 s of tones and no words while the legend and the three heads' overlay built. The voice
    now says what to listen for first; the chords then sound in a listening moment, and no stretch from the last
    head's example to the average is over 5 s without words."""
    steps = {step.key: step for step in narrated.steps}
    overlay = next(cue for cue in narrated.cues if cue.kind == "heads_overlay")
    assert overlay.listen
    phrases = [phrase for key in ("pronoun", "average") for phrase in steps[key].narration["phrases"]]
    assert any(end <= overlay.time for _, _, end, _ in steps["average"].narration["phrases"])  # a lead-in
    silences = [later[1] - earlier[2] for earlier, later in zip(phrases, phrases[1:])]
    assert max(silences) < 5.0, silences
