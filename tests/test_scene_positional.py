"""Section 4 (positional): the numbers on screen against independent formulas, the layout at the
config extremes, the steps, the sound cues, and the config keys' limits."""

import json
import math

import numpy as np
import pytest

from attn_math.positional import DEMO_W_K, DEMO_W_Q, DEMO_W_V, WORD_EMBEDDINGS
from lesson.config import ConfigError, load_config
from lesson.locale import load_locale
from lesson.numbers import format_number, parse_number
from lesson.steps import parse_steps
from scenes.positional import PositionalScene
from tests.scene_checks import (PacedSpeaker, flattened, lecture_problems, run_scene, shared_recorded, shared_scene,
                               stills_in)

LARGEST = ("positional.n_positions=64", "positional.d_model=64", "positional.base=1e9")
SMALLEST_ODD = ("positional.n_positions=2", "positional.d_model=3", "positional.base=1.0001")


@pytest.fixture(scope="module")
def default_scene():
    return shared_scene("positional")


@pytest.fixture(scope="module")
def largest_scene():
    return run_scene("positional", *LARGEST)


@pytest.fixture(scope="module")
def smallest_scene():
    return run_scene("positional", *SMALLEST_ODD)


def literal_pe(pos, dim, d_model, base):
    angle = pos / base ** ((dim - dim % 2) / d_model)
    return math.sin(angle) if dim % 2 == 0 else math.cos(angle)


SUPERSCRIPT_DIGITS = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def read_number(text: str) -> float:
    """parse_number, and "2.0·10⁴" as a reader reads it (a mantissa times a power of ten)."""
    mantissa, times, power = text.partition("·10")
    if times:
        return float(mantissa) * 10.0 ** int(power.translate(SUPERSCRIPT_DIGITS))
    return parse_number(text)


def shown(step, name):
    """{(i, j): value} of the numbers tagged ``name`` at the end of ``step``."""
    return {(i, j): read_number(text) for (i, j), text in shown_texts(step, name).items()}


def shown_texts(step, name):
    return {(i, j): text for i, row in enumerate(step.numbers[name]) for j, text in enumerate(row) if text is not None}


def rounding_of(text: str) -> float:
    """How far the written number may be from the exact one: half its last digit (5 % with a power of ten)."""
    if "·10" in text:
        return 0.05 * abs(read_number(text))
    decimals = len(text.partition(".")[2])
    return 0.5 * 10.0 ** -decimals + 1e-9


def step_named(scene, key):
    return next(step for step in scene.steps if step.key == key)


def assert_shown(step, name, expected):
    """Every number tagged ``name`` equals ``expected(i, j)`` to the two decimals it is written with."""
    texts = shown_texts(step, name)
    assert texts, f"no {name} numbers in step {step.key}"
    for (i, j), text in texts.items():
        assert read_number(text) == pytest.approx(expected(i, j), abs=rounding_of(text)), (name, i, j, text)


def numpy_attention(X):
    """softmax(X W_Q (X W_K)^T / sqrt(d_k)) X W_V, written out again for the test."""
    Q, K, V = (X @ np.array(W) for W in (DEMO_W_Q, DEMO_W_K, DEMO_W_V))
    scores = Q @ K.T / math.sqrt(Q.shape[1])
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return (weights / weights.sum(axis=1, keepdims=True)) @ V


def sentence_input(sentence, with_pe):
    X = np.array([WORD_EMBEDDINGS[word] for word in sentence.split()])
    if with_pe:
        X = X + [[literal_pe(pos, dim, 4, 10000.0) for dim in range(4)] for pos in range(len(X))]
    return X


# Layout ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("scene_name", ["default_scene", "largest_scene", "smallest_scene"])
def test_every_config_passes_the_lecture_checks(scene_name, request):
    """No overlap or text out of frame, nothing under 14 px cap height (formula scripts included), numbers
    written as a reader writes them, each step its reading time and no still stretch over 6 s."""
    assert lecture_problems(request.getfixturevalue(scene_name)) == []


def test_the_reason_for_a_positional_encoding_comes_first(default_scene):
    """Issue 43: the section opened on the formula and gave the reason (attention alone ignores the order) last. The
    first screen now shows it: sentence B's outputs are sentence A's, reordered (numpy here); then with PE they are
    not; then the formula."""
    keys = [step.key for step in default_scene.steps]
    assert keys[:3] == ["permutation", "with_pe", "formula"]
    outputs = both_sentences(with_pe=False)
    assert_shown(step_named(default_scene, keys[0]), "Z_B", lambda i, j: outputs["B"][i, j])
    words = {side: sentence.split() for side, sentence in SENTENCES.items()}
    reordered = [words["A"].index(word) for word in words["B"]]
    np.testing.assert_allclose(outputs["B"], outputs["A"][reordered], atol=1e-12)


def test_steps_come_in_the_lesson_order(default_scene):
    assert [step.key for step in default_scene.steps] == list(PositionalScene.STEPS)
    assert all(step.end - step.start >= 2.0 for step in default_scene.steps)
    assert 60 <= default_scene.steps[-1].end <= 6 * 60  # ten steps at their reading time, with question cards
    assert max(end - start for start, end in default_scene.freezes) <= 6.0


# Numbers on screen -------------------------------------------------------------------------------
@pytest.mark.parametrize("scene_name, n, d, base", [("default_scene", 32, 16, 10000.0),
                                                    ("largest_scene", 64, 64, 1e9),
                                                    ("smallest_scene", 2, 3, 1.0001)])
def test_encoding_numbers_match_the_formula(scene_name, n, d, base, request):
    scene = request.getfixturevalue(scene_name)
    assert_shown(step_named(scene, "frequencies"), "PE", lambda pos, dim: literal_pe(pos, dim, d, base))
    assert_shown(step_named(scene, "heatmap"), "legend", lambda _, k: (-1.0, 0.0, 1.0)[k])
    assert_shown(step_named(scene, "waves"), "period", lambda _, column: 2 * math.pi * base ** (column / d))


def test_a_small_heatmap_writes_every_cell(smallest_scene):
    step = step_named(smallest_scene, "heatmap")
    assert len(shown(step, "PE")) == 2 * 3
    assert_shown(step, "PE", lambda pos, dim: literal_pe(pos, dim, 3, 1.0001))


def test_waves_go_from_the_fastest_to_the_slowest_column(default_scene):
    periods = shown(step_named(default_scene, "waves"), "period")
    columns = sorted(column for _, column in periods)
    assert columns[0] == 0 and columns[-1] == 14 and all(column % 2 == 0 for column in columns)
    assert [periods[(0, column)] for column in columns] == sorted(periods.values())


@pytest.mark.parametrize("scene_name, n, d, base", [("default_scene", 32, 16, 10000.0),
                                                    ("largest_scene", 64, 64, 1e9)])
def test_similarity_is_the_same_from_both_starts(scene_name, n, d, base, request):
    step = step_named(request.getfixturevalue(scene_name), "similarity")
    second = max(1, n // 4)
    closed_form = lambda _, delta: sum(math.cos(delta / base ** (2 * i / d)) for i in range(d // 2))
    assert_shown(step, "similarity_from_0", closed_form)
    assert_shown(step, f"similarity_from_{second}", closed_form)
    assert step.numbers["similarity_from_0"] == step.numbers[f"similarity_from_{second}"]
    assert shown(step, "similarity_axis") == {(0, 0): 0.0, (0, 1): d / 2}


def similarity_by_hand(delta, d, base):
    return sum(math.cos(delta / base ** (2 * i / d)) for i in range(d // 2))


def test_the_similarity_caption_says_the_d16_curve_rises_again(default_scene):
    step = step_named(default_scene, "similarity")
    curve = [similarity_by_hand(delta, 16, 1e4) for delta in range(32)]
    rise = next(delta for delta in range(1, 32) if curve[delta] > curve[delta - 1])
    assert rise == 4 and curve[4] > curve[3]  # 5.56 after 5.54: it oscillates, it does not decay smoothly
    assert "vuelve a subir, de 5.54 en Δ = 3 a 6.44 en Δ = 6" in step.caption  # where a plot shows it climb


def test_the_similarity_step_says_why_it_rises_and_shows_a_larger_d_that_only_falls(default_scene):
    """d = 16 has 8 frequencies: the curve is a sum of 8 cosines (said in the caption and written as a sum
    up to i = 7), and beside it the d = 512 curve (peak 256) falls all the way; the peak is d/2 because each
    pair adds sin² + cos² = 1."""
    step = step_named(default_scene, "similarity")
    wide = [similarity_by_hand(delta, 512, 1e4) for delta in range(32 - 8)]  # the distances both curves span
    assert all(later < earlier for earlier, later in zip(wide, wide[1:]))
    assert "8 frecuencias" in step.caption and "d = 512" in step.caption
    assert shown(step, "similarity_wide_axis") == {(0, 0): 0.0, (0, 1): 512 / 4, (0, 2): 512 / 2}  # a half-way
    # tick too (review s12: only «256» and «0»)
    formulas = [text.text for text in step.texts]
    assert any(r"_{i=0}^{7} \cos" in text for text in formulas)
    assert any(r"\Delta = 0" in text and r"(\sin^2 + \cos^2) = 8 = d/2" in text for text in formulas)
    cue = next(cue.values for cue in default_scene.cues if cue.kind == "similarity_curve" and cue.values.get("d_model") == 512)
    assert cue["similarities"] == pytest.approx(wide)


def test_the_similarity_panel_keeps_the_frames_margin(default_scene):
    """The peak's identity, grown to a legible size after the panel was fitted, ended 13 px from the frame's right
    edge at 720p: every text of the step stays inside the body's margin (style.MARGIN)."""
    from manim import config

    from scenes import style

    edge = config.frame_width / 2 - style.MARGIN
    step = step_named(default_scene, "similarity")
    assert [text.text for text in step.texts if text.right > edge + 1e-6 or text.left < -edge - 1e-6] == []


def test_the_similarity_caption_says_a_short_curve_only_falls():
    step = step_named(run_scene("positional", "positional.n_positions=4"), "similarity")
    curve = [similarity_by_hand(delta, 16, 1e4) for delta in range(4)]
    assert all(later < earlier for earlier, later in zip(curve, curve[1:]))
    assert step.caption.startswith("Decae al alejarse")


def test_periods_of_ten_thousand_and_more_are_written_with_a_power_of_ten(default_scene):
    texts = shown_texts(step_named(default_scene, "waves"), "period")
    assert texts[(0, 14)] == "2.0·10⁴" and "e" not in "".join(texts.values())
    caption = step_named(default_scene, "waves").caption
    assert "λ" in caption and "2.0·10⁴" in caption and " T " not in caption  # T is the pipeline's temperature


def test_odd_d_says_the_curves_differ(smallest_scene):
    step = step_named(smallest_scene, "similarity")
    assert step.caption == load_locale()["positional"]["steps"]["similarity"]["caption_odd"]
    pe = lambda pos: [literal_pe(pos, dim, 3, 1.0001) for dim in range(3)]
    assert_shown(step, "similarity_from_1", lambda _, delta: np.dot(pe(1), pe(1 + delta)))
    assert shown(step, "similarity_from_1") != shown(step, "similarity_from_0")


def test_three_token_table_is_x_plus_pe(default_scene):
    step = step_named(default_scene, "table")
    tokens = ("el", "perro", "mordió")
    assert_shown(step, "x", lambda k, dim: WORD_EMBEDDINGS[tokens[k]][dim])
    assert_shown(step, "pe", lambda k, dim: literal_pe(k, dim, 4, 10000.0))
    assert_shown(step, "x_plus_pe", lambda k, dim: WORD_EMBEDDINGS[tokens[k]][dim] + literal_pe(k, dim, 4, 10000.0))


def test_two_projections_read_the_word_and_the_position_apart(default_scene):
    """Issue 43: the sum step argued "(x + PE(1)) − PE(1) = x", which needs the position to subtract it. It now shows
    the seed's claim: each word of the table put at each position, projected on the two columns w_1, w_2 shown (read
    off the screen), gives one number per word along w_1 and one per position along w_2, recomputed here."""
    step = step_named(default_scene, "sum")
    readers = np.array([[read_number(text) for text in row] for row in step.numbers["readers"]])
    tokens = ("el", "perro", "mordió")
    sums = np.array([[np.add(WORD_EMBEDDINGS[token], [literal_pe(pos, dim, 4, 10000.0) for dim in range(4)])
                      for pos in range(3)] for token in tokens])  # (word, position, 4)
    written_word, written_position = (np.array([[read_number(text) for text in row] for row in step.numbers[name]])
                                      for name in ("by_word", "by_position"))
    slack = 0.005 * np.abs(sums).sum(axis=-1) + 0.005  # the readers as written are rounded, and so are the products
    for column, written in enumerate((written_word, written_position)):
        assert np.all(np.abs(written - sums @ readers[:, column]) <= slack)
    assert np.all(written_word == written_word[:, :1]) and len(set(written_word[:, 0])) == len(tokens)
    assert np.all(written_position == written_position[:1]) and len(set(written_position[0])) == 3



def test_the_projections_recomputed_from_the_screen_give_the_screen(default_scene):
    """Review 43: w_1 and w_2 were written with two decimals, and a student who put each word's x and each PE(pos)
    as the table writes them through the w_1, w_2 written got 0.65 where the grid says 0.64, and w_2's rows
    differing by 0.01. Everything here is read off the screen's texts, recomputed, and written as the grids write."""
    table, projections = step_named(default_scene, "table"), step_named(default_scene, "sum")
    as_written = lambda step, name: np.array([[read_number(text) for text in row] for row in step.numbers[name]])
    x, pe, readers = as_written(table, "x"), as_written(table, "pe"), as_written(projections, "readers")
    products = (x[:, None, :] + pe[None, :, :]) @ readers  # (word, position, reader)
    for column, name in enumerate(("by_word", "by_position")):
        recomputed = [[format_number(value) for value in row] for row in products[..., column]]
        assert recomputed == projections.numbers[name], name

SENTENCES = {"A": "el perro mordió al hombre", "B": "el hombre mordió al perro"}


def both_sentences(with_pe: bool) -> dict:
    """Independent attention outputs of the two word orders, keyed "A" and "B" as on screen."""
    return {side: numpy_attention(sentence_input(sentence, with_pe)) for side, sentence in SENTENCES.items()}


def test_without_pe_both_sentences_give_each_word_the_same_row(default_scene):
    step = step_named(default_scene, "permutation")
    outputs = both_sentences(with_pe=False)
    assert_shown(step, "Z_A", lambda i, j: outputs["A"][i, j])
    assert_shown(step, "Z_B", lambda i, j: outputs["B"][i, j])
    rows_a, rows_b = step.numbers["Z_A"], step.numbers["Z_B"]
    assert rows_b == [rows_a[0], rows_a[4], rows_a[2], rows_a[3], rows_a[1]]  # the same strings, reordered
    assert shown(step, "difference") == {(0, 0): 0.0}


def test_with_pe_the_rows_differ(default_scene):
    step = step_named(default_scene, "with_pe")
    outputs = both_sentences(with_pe=True)
    assert_shown(step, "Z_A_pe", lambda i, j: outputs["A"][i, j])
    assert_shown(step, "Z_B_pe", lambda i, j: outputs["B"][i, j])
    # the gap of the values, which a student recomputing gets (review s13: 1.14, not the rounded rows' 1.15)
    largest_gap = np.abs(outputs["B"] - outputs["A"][[0, 4, 2, 3, 1]]).max()
    assert_shown(step, "difference", lambda *_: largest_gap)
    assert largest_gap > 0.1


@pytest.mark.parametrize("key, with_pe", [("permutation", False), ("with_pe", True)])
def test_the_permutation_steps_show_the_inputs_they_compute_from(default_scene, key, with_pe):
    """Each sentence's X (then X + PE) on screen beside its Z: row for row the words' embeddings (plus the PE of
    their positions), every number of them, and no longer the inputs without PE once PE is added."""
    step = step_named(default_scene, key)
    suffix = "_pe" if with_pe else ""
    for side, sentence in (("A", "el perro mordió al hombre"), ("B", "el hombre mordió al perro")):
        X = sentence_input(sentence, with_pe)
        assert_shown(step, f"X_{side}{suffix}", lambda i, j: X[i, j])
        assert len(shown(step, f"X_{side}{suffix}")) == X.size
        assert f"Z_{side}{suffix}" in step.numbers
        assert with_pe is (f"X_{side}" not in step.numbers)


def test_with_pe_the_word_shows_beside_its_position(default_scene):
    """At position 4 sentence A has "hombre" and B "perro": their rows on screen differ by at least 0.10, the
    word is not swamped by the position (with unit-size embeddings they differed by 0.01)."""
    step = step_named(default_scene, "with_pe")
    rows = [[read_number(text) for text in step.numbers[name][4]] for name in ("Z_A_pe", "Z_B_pe")]
    assert max(abs(a - b) for a, b in zip(*rows)) >= 0.1


# Sound cues --------------------------------------------------------------------------------------
def test_cues_carry_plain_numbers_in_time_order(default_scene):
    cues = default_scene.cues
    assert [cue.time for cue in cues] == sorted(cue.time for cue in cues)
    assert {cue.kind for cue in cues} >= {"frequencies", "position_sweep", "frequency_contrast", "wave",
                                          "similarity_curve", "vector_sum", "outputs_compared"}
    json.dumps([cue.values for cue in cues])  # plain floats, ints, lists and strings only


def test_wave_cues_go_from_high_to_low_frequency(default_scene):
    waves = [cue.values for cue in default_scene.cues if cue.kind == "wave"]
    frequencies = [wave["angular_frequency"] for wave in waves]
    assert frequencies == sorted(frequencies, reverse=True) and frequencies[0] == pytest.approx(1.0)
    for wave in waves:
        assert wave["angular_frequency"] == pytest.approx(10000.0 ** (-wave["dimension"] / 16))
        assert len(wave["samples"]) == 32
    start = next(cue for cue in default_scene.cues if cue.kind == "frequencies").values
    assert len(start["angular_frequencies"]) == 16


# Config ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key, value", [("n_positions", "1"), ("n_positions", "65"), ("n_positions", "2.5"),
                                        ("n_positions", '"many"'), ("d_model", "1"), ("d_model", "65"),
                                        ("d_model", "true"), ("base", "1.0"), ("base", "0.5"), ("base", "-3"),
                                        ("base", "nan"), ("base", "inf"), ("base", "1e10"), ("base", '"big"')])
def test_bad_values_are_refused_naming_the_key(key, value):
    with pytest.raises(ConfigError) as error:
        load_config(overrides=(f"positional.{key}={value}",))
    assert str(error.value).startswith(f"positional.{key}")


def test_extreme_values_are_accepted():
    for overrides in (LARGEST, SMALLEST_ODD):
        load_config(overrides=overrides)


def test_the_permutation_shows_the_weights_both_sentences_share():
    """Issue 43: the demonstration's W_Q, W_K and W_V were never shown. They come first in the step, every number
    written as the matrices the test computes with, before sentence A's input (then dimmed while the sentences come,
    review s12: a play that dims or lights them writes nothing)."""
    scene, log = shared_recorded("positional")
    step = step_named(scene, "permutation")
    plays = [play for kind, play in log if kind == "play" and step.start <= play.start < step.end]
    written, weight_plays = {}, []
    for play in plays:
        parts = [part for animation in flattened(play.animations) if animation.is_introducer()
                 for part in animation.mobject.get_family()
                 if getattr(part, "tag", ("",))[0] in ("W_Q", "W_K", "W_V")]
        written.update({part.tag: part.shown_text for part in parts})
        if parts:
            weight_plays.append(play)
    for name, matrix in (("W_Q", DEMO_W_Q), ("W_K", DEMO_W_K), ("W_V", DEMO_W_V)):
        for (i, j), value in np.ndenumerate(np.array(matrix)):
            assert read_number(written[name, (i, j)]) == pytest.approx(value, abs=0.005), (name, i, j)
    first_input = min(play.start for play in plays if any(tag[0] == "X_A" for tag in play.tags()))
    assert max(play.start for play in weight_plays) < first_input


def test_the_sum_step_moves_while_the_voice_speaks():
    """The two readings come as the voice says what each reads: with a voice at the narration's pace, nothing in the
    step stands still over 6 s (the readers then a 7 s wait for the voice before the grids, at first)."""
    scene = run_scene("positional", narration=PacedSpeaker(), steps=parse_steps("table..sum", list(PositionalScene.STEPS)))
    assert stills_in(scene, "sum") == []


@pytest.fixture(scope="module")
def paced():
    """The section with a stand-in voice at the narration's pace, and its plays."""
    from tests.scene_checks import recorded
    return recorded("positional", narration=PacedSpeaker())


def test_no_step_stands_still_over_six_seconds_under_the_voice(paced):
    """Issue 43 (stills under the voice): with the voice, the screen stood still 8.6 s in with_pe (the voice saying
    the outputs differ before the difference came), 8.1 s in clock_hands (what a hand is, over a finished panel) and
    6.5 s and 6.3 s in similarity (the curve's sum, then its climb, said over a still plot). Each sentence now comes
    with the play that shows what it names; no step (cards aside) stands still over 6 s."""
    scene, _ = paced
    assert {step.key: stills_in(scene, step.key) for step in scene.steps} == {step.key: [] for step in scene.steps}


@pytest.mark.parametrize("key", ["permutation", "with_pe"])
def test_the_permutation_steps_fill_while_the_voice_walks_through_them(paced, key):
    """Review 43: 36 of the first step's 48 s were numbers filling with no voice (each matrix at 0.4 s a number,
    far past the voice), and with PE again 19 s. Each matrix now comes as the voice names it: from the step's start
    to its last row, nobody speaks for at most 6 s, and the build ends within 45 s."""
    scene, log = paced
    step = step_named(scene, key)
    rows = [play for kind, play in log if kind == "play" and step.start <= play.start < step.end
            and any(name[0] in "XZW" for name, _ in play.tags())]
    built = rows[-1].end
    spoken = sorted([(start, end) for _, start, end, _ in step.narration["phrases"]]
                    + [tuple(moment) for moment in step.narration.get("listening", [])])
    quiet, heard_until = [], step.start
    for start, end in spoken:
        if start > heard_until:
            quiet.append((heard_until, min(start, built)))
        heard_until = max(heard_until, end)
    quiet.append((heard_until, built))
    assert max(end - start for start, end in quiet) <= 6.0, quiet
    assert built - step.start <= 45.0


@pytest.mark.parametrize("key, matrix, words", [("permutation", "Z_B", "cada palabra sale igual"),
                                                ("with_pe", "Z_B_pe", "ya no son solo un reordenamiento")])
def test_a_read_caption_states_the_outputs_verdict_once_they_are_on_screen(key, matrix, words):
    """Issue 43: the silent lecture's caption said «ya no son solo un reordenamiento» from the step's first second,
    while the old identical Z was still up (and «cada palabra sale igual» before Z_B had come). The caption now
    grows by its verdict once the last row of that output has come."""
    scene, log = shared_recorded("positional")
    step = step_named(scene, key)
    last_row = max(play.end for kind, play in log if kind == "play" and step.start <= play.start < step.end
                   and "Indicate" not in play.kinds and any(name == matrix for name, _ in play.tags()))
    grown = step.grown or [(step.start, step.caption)]  # a caption without parts says it all from the start
    shown_from = min(time for time, text in grown if words in text)
    assert shown_from >= last_row - 1e-6


def wcag_contrast(first, second) -> float:
    """WCAG 2's contrast ratio of two colours (relative luminance of linearised sRGB)."""
    def luminance(colour):
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour.to_rgb()]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    dark, light = sorted((luminance(first), luminance(second)))
    return (light + 0.05) / (dark + 0.05)


def test_the_frequency_table_numbers_read_on_the_background():
    """Review (end frames): the frequencies table wrote 0.00 and 0.14 in the heatmap's near-background colour, 3:1 on
    the background (dim 14's whole column); every number of the table reads at 4.5:1 at least (WCAG AA)."""
    from scenes import style

    scene, log = shared_recorded("positional")
    step = step_named(scene, "frequencies")
    numbers = [part for kind, play in log if kind == "play" and step.start <= play.start < step.end
               for animated in play.animated for part in animated.get_family() if getattr(part, "tag", ("",))[0] == "PE"]
    assert len({part.tag for part in numbers}) == 6 * 2
    assert min(wcag_contrast(part.get_fill_color(), style.BACKGROUND) for part in numbers) >= 4.5
