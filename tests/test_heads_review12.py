"""Review 12 of section 03 heads: in «ella»'s row of Concat, heads 1 and 2 gave 0 0 0 0 (the designed W_V^h
copied nothing «y» or «calmó» has); step 1 said «un vector de 12 números» and showed none; step 8's one big W_Q wore head 1's
colour and its two «= 144 pesos» sat 3-7 px apart; step 7 opened on an empty heading; «una entrenada es densa» was
voice only."""

from __future__ import annotations

import numpy as np
import pytest
from manim import Rectangle

from attn_math.heads import multi_head_attention, relations
from lesson.heads_answers import choice_token
from lesson.numbers import parse_number
from scene_checks import PacedSpeaker, recorded
from scenes import style
from test_heads_review10 import recorded_run

PIXELS = 720 / 8  # pixels of the 720p lecture per frame unit
CARRIES = 0.5  # a head's row of Z «carries» its attended token when one of its numbers is at least this large
LEVEL = 0.5  # px at 720p: two frames or two baselines this close count as level


def _outputs_by_hand(result) -> list[np.ndarray]:
    """Each head's Z_h = softmax(X W_Q^h (X W_K^h)^T / sqrt(d_k)) X W_V^h, worked out here."""
    outputs = []
    for W_Q, W_K, W_V in zip(result.W_Q, result.W_K, result.W_V):
        scores = (result.X @ W_Q) @ (result.X @ W_K).T / np.sqrt(W_K.shape[1])
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        outputs.append(weights / weights.sum(axis=1, keepdims=True) @ (result.X @ W_V))
    return outputs


@pytest.fixture(scope="module")
def with_cards():
    return recorded_run()


@pytest.fixture(scope="module")
def narrated():
    return recorded("heads", narration=PacedSpeaker())


def test_each_head_brings_something_of_the_token_it_attends_to():
    """Review: Z₁(ella) = [0 0 .05 .05] from the side weights only and Z₂(ella) = [0 0 0 0], though head 1 puts 0.91 on
    «y» and head 2 1.00 on «calmó». In every relation a head finds, the attended token's value is now non-zero, and «ella»'s
    three rows of Z carry something each, three different things."""
    result = multi_head_attention()
    outputs = _outputs_by_hand(result)
    for head, (steps, W_V, pairs) in enumerate(zip(result.heads, result.W_V, relations(result))):
        np.testing.assert_allclose(steps.output, outputs[head], atol=1e-9)
        assert pairs, head
        for query, attended in pairs:  # every relation the head was designed for brings its token's value
            assert np.abs(result.X[attended] @ W_V).max() > 0, (head, result.tokens[query], result.tokens[attended])
    focus = choice_token(result)
    rows = [np.round(output[focus], 2) for output in outputs]
    assert all(np.abs(row).max() >= CARRIES for row in rows), rows
    assert len({tuple(row) for row in rows}) == len(rows), rows
    np.testing.assert_allclose(np.hstack(outputs), result.concat, atol=1e-9)
    np.testing.assert_allclose(np.hstack(outputs) @ result.W_O, result.output, atol=1e-9)


def test_concat_and_the_output_light_each_column_to_its_own_largest(with_cards):
    """A column of positions (up to 7) lit beside columns of ones would leave the ones dim: each non-empty column's
    largest entry is drawn in the block's full colour (the head's in Concat, the output's colour in the output)."""
    scene, _ = with_cards
    result = multi_head_attention()
    d_head = result.d_head
    concat, _, output = scene.product
    rows = [concat.row(i) for i in range(len(result.tokens))]
    blocks = [(rows, result.concat, [style.HEADS[j // d_head] for j in range(result.d_model)]),
              (output.cells, result.output, [style.OUTPUT] * result.d_model)]
    for cells, values, colours in blocks:
        for j, colour in enumerate(colours):
            column = np.abs(values[:, j])
            if column.max() < 1e-9:
                continue
            brightest = cells[int(np.argmax(column))][j].get_fill_color().to_hex().upper()
            assert brightest == colour.to_hex().upper(), (j, brightest, colour.to_hex())


def test_step_one_writes_one_tokens_row_of_x_while_the_voice_says_what_a_token_is(narrated):
    """Review: step 1 (13.7 s) said «cada token: un vector de d_model = 12 números» and never showed one. «ella»'s row
    of X is written out, its twelve numbers those of attn_math's X, and it comes within the first sentence."""
    scene, log = narrated
    result = multi_head_attention()
    focus = choice_token(result)
    step = next(step for step in scene.steps if step.key == "sentence")
    shown = step.numbers["token_vector"]
    np.testing.assert_allclose([parse_number(text) for text in shown[focus]], result.X[focus])
    _, first_start, first_end = step.narration["sentences"][0]
    plays = [entry for kind, entry in log if kind == "play" and entry.start < step.end
             and any(tag[0] == "token_vector" for tag in entry.tags())]
    assert plays and all(first_start - 1e-6 <= play.start and play.end <= first_end + 1e-6 for play in plays), \
        ([(play.start, play.end) for play in plays], first_start, first_end)


def test_the_one_big_w_q_is_no_heads_colour(with_cards):
    """Review: step 8's single W_Q in head 1's orchid read as «one big head = head 1». It is a neutral grey."""
    _, seen = with_cards
    d_model = multi_head_attention().d_model
    whole = next(fills for _, key, _, _, fills, _ in seen if key == "cost" and len(fills) == d_model * d_model)
    grey = [int(muted * 0.9 + panel * 0.1 + 0.5) for muted, panel in
            zip(style.MUTED.to_int_rgb(), style.PANEL.to_int_rgb())]
    assert all(max(abs(int(fill[1 + 2 * k:3 + 2 * k], 16) - grey[k]) for k in range(3)) <= 1 for fill in whole)


def test_the_two_counts_share_a_baseline_and_their_frames_are_level(with_cards):
    """Review: the two «= 144 pesos» boxes' tops at y ≈ 570 and 573 px, their text 7 px apart."""
    scene, _ = with_cards
    costs = list(scene.costs)
    assert len(costs) == 2 and all(text.text.endswith("pesos") for text in costs)
    baselines = [text[-1].get_bottom()[1] for text in costs]
    assert abs(baselines[0] - baselines[1]) * PIXELS < LEVEL
    frames = [frame for frame in scene.cost[1] if isinstance(frame, Rectangle)]
    assert len(frames) == 2
    for edge in ("get_top", "get_bottom"):
        assert abs(getattr(frames[0], edge)()[1] - getattr(frames[1], edge)()[1]) * PIXELS < LEVEL
    for frame, text in zip(frames, costs):  # each still round its count
        assert frame.get_left()[0] < text.get_left()[0] and text.get_right()[0] < frame.get_right()[0]
        assert frame.get_bottom()[1] < text.get_bottom()[1] and text.get_top()[1] < frame.get_top()[1]


def test_step_seven_never_shows_its_heading_without_a_head_under_it(with_cards):
    """Review: step 7 opened 4.7 s on «Desde «ella», el peso mayor de:» over nothing. The heading comes with head 1."""
    _, seen = with_cards
    heading = "Desde «ella», el peso mayor de:"
    shown = [{text.text for text in texts} for _, key, texts, *_ in seen if key == "choose"]
    with_heading = [texts for texts in shown if heading in texts]
    assert with_heading and all("cabeza 1 → «y»" in texts for texts in with_heading)


def test_a_trained_w_o_is_dense_is_written_under_w_o(with_cards):
    """Review: «una entrenada es densa» was voice only (127-130 s): it is now written under W_O's «clara = 1»."""
    _, seen = with_cards
    shown = [{text.text: text for text in texts} for _, key, texts, *_ in seen if key == "concat"]
    texts = [texts for texts in shown if "clara = 1, oscura = 0" in texts][-1]  # the step's end, before the card
    assert "una entrenada es densa" in texts
    assert texts["una entrenada es densa"].top < texts["clara = 1, oscura = 0"].bottom


def test_each_heads_line_in_step_seven_follows_its_heads_stroke(with_cards):
    """Review s12: head 2's ivory (250,255,235 as encoded) reads as the body text's white in step 7's lines «cabeza 2 →
    «calmó»»: each line opens with its head's stroke, in its colour and its arcs' pattern, as the legend's do."""
    scene, _ = with_cards
    result = scene.result
    focus = choice_token(result)
    note = scene.choice_note(focus, scene.heads_targets(focus))
    assert len(note) == 1 + result.n_heads
    for head, line in enumerate(note[1:]):
        stroke, text = line
        assert stroke.get_right()[0] < text.get_left()[0] and abs(stroke.get_y() - text.get_y()) < text.height / 2
        colours = {part.get_stroke_color().to_hex().upper() for part in stroke.get_family() if part.has_points()}
        assert colours == {style.HEADS[head].to_hex().upper()}
        assert (len(stroke.submobjects) > 1) == bool(style.HEAD_DASHES[head])  # dashed where its arcs are
