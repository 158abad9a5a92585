"""Review 10 of section 03 heads: the cross-attention card's weights filled in (the decoder's tokens, illustrative
weights that look at the words they translate); the sign of Concat's and the output's entries drawn; the heads'
overlay tied to the voice and the average's row showing what the voice names; the telling head's weights apart
from the framed average. (Its test that the single head's W_Q wore head 1's colour went with review 12, which asked for
a neutral one: tests/test_heads_review12.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from manim import Line, Square, SurroundingRectangle

from attn_math.heads import multi_head_attention
from lesson.heads_answers import choice_token
from scene_checks import PacedSpeaker, flattened, run_scene
from scenes import style
from scenes.heads import HeadsScene
from scenes.lesson_scene import LessonScene


def _luminance(colour) -> float:
    red, green, blue = colour.to_rgb()
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def recorded_run(*overrides: str, narration=None):
    """The scene, and after each play: (time, step key, texts on screen, squares crossed by a bar, the fill colours of
    the squares on screen, the play's mobjects)."""
    seen = []
    play = LessonScene.play

    def recording(scene, *animations, **options):
        start = scene.renderer.time
        play(scene, *animations, **options)
        squares = [mobject for top in scene.mobjects for mobject in top.get_family() if isinstance(mobject, Square)]
        crossed = [square for square in squares if any(isinstance(part, Line) for part in square.submobjects)]
        texts = scene._snapshot(scene._visible_texts(scene.mobjects))[0]
        played = [animation.mobject for animation in flattened(animations)]
        seen.append((start, scene.steps[-1].key if scene.steps else "", texts, crossed,
                     [square.get_fill_color().to_hex() for square in squares], played))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", recording)
        scene = run_scene("heads", *overrides, narration=narration)
    return scene, seen


@pytest.fixture(scope="module")
def with_cards():
    return recorded_run()


def test_the_cross_attention_card_names_the_decoder_tokens_and_lights_the_words_they_translate(with_cards):
    """Review: «sus pesos, en esquema» was an empty grid (137-148 s). Each row is now a token of the English
    translation the decoder writes, its cells lit by illustrative weights (said to be: the title) that look at the
    Spanish words it translates: «Maria's» at «María» (and «de»), «dog» at «perro» (and «el»), «barked» at «ladró»."""
    scene, _ = with_cards
    card = next(card for card in scene.cards if card.kind == "closing")
    texts = {text.text: text for text in card.texts}
    assert any("ilustrativos" in text for text in texts)
    tokens = list(multi_head_attention().labels)
    expected = {"Maria's": ("María", "de"), "dog": ("perro", "el"), "barked": ("ladró",)}
    rows = scene.cross_weights.rows
    assert [texts[name].text for name in expected] == list(expected)
    for (name, words), (cells, label) in zip(expected.items(), rows):
        assert abs(label.get_y() - cells.get_y()) < 1e-6  # the token names its row
        lights = np.array([_luminance(cell.get_fill_color()) for cell in cells])
        order = [tokens[j] for j in np.argsort(-lights)]
        assert tuple(order[:len(words)]) == words  # the word it translates the lightest, then the one it draws on
        # the rest alike and dim: a softmax of hand-written scores (3 for the word, 1.5 for the other, 0 elsewhere)
        rest = np.delete(lights, [tokens.index(word) for word in words])
        panel, attention = _luminance(style.PANEL), _luminance(style.ATTENTION)
        assert np.ptp(rest) < 1e-6 and rest.max() - panel < 0.2 * (lights.max() - panel)
        scores = np.array([3.0 if token == words[0] else 1.5 if token in words[1:] else 0.0 for token in tokens])
        weights = np.exp(scores) / np.exp(scores).sum()
        assert np.allclose(lights, panel + (attention - panel) * weights, atol=0.01)
        # its column's word over the lightest cell
        column = scene.cross_weights.columns[tokens.index(words[0])]
        assert abs(column.get_x() - cells[int(np.argmax(lights))].get_x()) < 1e-6


def test_the_english_lecture_translates_its_sentence_into_spanish():
    """The English lecture's sentence is English: the decoder writes Spanish, «perro» looking at "dog"."""
    scene = run_scene("heads", "lecture.lang='en'")
    card = next(card for card in scene.cards if card.kind == "closing")
    texts = {text.text for text in card.texts}
    assert {"perro", "María", "ladró", "illustrative weights (lighter = more):"} <= texts
    tokens = list(multi_head_attention(scene.result.sentence, lang="en").labels)
    for (cells, _), word in zip(scene.cross_weights.rows, ("dog", "Mary", "barked")):
        lights = [_luminance(cell.get_fill_color()) for cell in cells]
        assert tokens[int(np.argmax(lights))] == word


def test_another_sentence_keeps_the_blank_sketch():
    """No translation is written for another sentence: its rows are q₁, q₂, q₃ over blank cells, never weights that
    would pass for its translation's."""
    scene = run_scene("heads", "heads.sentence='el gato come y luego duerme'")
    card = next(card for card in scene.cards if card.kind == "closing")
    texts = {text.text for text in card.texts}
    assert {"q_{1}", "q_{2}", "q_{3}"} <= texts and not any("ilustrativos" in text for text in texts)
    fills = {cell.get_fill_color().to_hex() for cells, _ in scene.cross_weights.rows for cell in cells}
    assert fills == {style.PANEL.to_hex()}


def test_negative_entries_are_crossed_and_the_legend_says_so(with_cards):
    """Review: the −1 in concat(ella)[10] and salida(ella)[6] was drawn as bright as a +1. Every entry that is
    negative to 2 decimals, in Concat and in the output, is now a cell crossed by a minus bar, and a legend under
    Concat says what the bar means."""
    _, seen = with_cards
    result = multi_head_attention()
    negatives = int((np.round(result.concat, 2) < 0).sum() + (np.round(result.output, 2) < 0).sum())
    assert negatives >= 2  # the row of «ella» has one in each
    # the step's end, before the closing card clears it
    _, _, texts, crossed, _, _ = [entry for entry in seen if entry[1] == "concat" and entry[3]][-1]
    assert "= valor negativo" in {text.text for text in texts}
    assert len(crossed) == negatives + 1  # and the legend's sample cell


def test_a_cell_is_crossed_only_when_its_value_shows_negative():
    block = HeadsScene.magnitude_block(np.array([[1.0, -1.0, -0.004, 0.5, -0.3]]), "X", style.OUTPUT)
    crossed = [any(isinstance(part, Line) for part in cell.submobjects) for cell in block.cells[0]]
    assert crossed == [False, True, False, False, True]
    bars = [part for cell in block.cells[0] for part in cell.submobjects]
    # dark on the bright −1, light on the dim −0.3: the bar stands out of its cell either way
    assert _luminance(bars[0].get_color()) < 0.1 and _luminance(bars[1].get_color()) > 0.8


@pytest.fixture(scope="module")
def narrated():
    return recorded_run("lecture.questions='none'", narration=PacedSpeaker())


def test_the_heads_are_named_during_the_announcement_and_the_first_chord_lands_as_it_ends(narrated):
    """Review: «Escucha las 3 juntas, un acorde cada una» ended at 57.7 and the first head came after it. The legend's
    three lines now come while it is said, and the first head's chord lands (its arcs drawn) as the sentence ends."""
    narrated, _ = narrated
    steps = {step.key: step for step in narrated.steps}
    sentence_end = steps["average"].narration["sentences"][0][2]
    overlay = next(cue for cue in narrated.cues if cue.kind == "heads_overlay")
    assert overlay.listen
    assert sentence_end - 0.05 <= overlay.time <= sentence_end + 1 / 30 + 1e-6
    listening = steps["average"].narration["listening"][0]
    assert listening[0] >= sentence_end - 1e-6  # the voice never runs into the listening moment


def test_the_average_row_frames_each_token_as_it_is_named(narrated):
    """Review: 11.5 s near-still (64.7-76.2) on the average's «ella» row. «entre la palabra «y», «calmó» y «María»»
    now comes with its play: the tokens the row shares its weight with (10 % of it or more, the row's own token
    framed already) framed in yellow one by one as they are said, each within the phrase that names it."""
    scene, seen = narrated
    result = multi_head_attention()
    focus = choice_token(result)
    named = [j for j in range(len(result.tokens)) if result.mean_weights[focus, j] >= 0.1 and j != focus]
    steps = {step.key: step for step in scene.steps}
    shared = next(phrase for phrase in steps["average"].narration["phrases"] if phrase[3] == "shared")
    assert shared[0].startswith("entre ")
    yellow = style.ATTENTION.to_hex()
    framed = [(start, mobject) for start, key, *_, played in seen if key == "average" for mobject in played
              if isinstance(mobject, SurroundingRectangle) and mobject.get_stroke_color().to_hex() == yellow]
    assert len(framed) == len(named)
    assert sorted(round(mobject.get_x(), 6) for _, mobject in framed) == \
        sorted(round(scene.row.words[j].get_x(), 6) for j in named)
    assert all(shared[1] - 1e-3 <= start <= shared[2] for start, _ in framed), (shared, [start for start, _ in framed])
    assert len({start for start, _ in framed}) == len(named)  # one after the other
