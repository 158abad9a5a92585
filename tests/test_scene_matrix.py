"""Section 1 as a viewer sees it: the numbers on screen, the layout, the steps."""

import numpy as np
import pytest
from manim import DL, UR, Line

from attn_math import worked_example
from lesson.locale import load_locale
from scene_checks import layout_problems, legibility_problems, notation_problems, pacing_problems, run_scene
from lesson.numbers import parse_number
from lesson.section_config import MATRIX_WORD_LETTERS
from scenes import style
from scenes.matrix import MatrixScene

STEPS = ["formula", "inputs", "queries", "keys", "values", "alignment", "scores", "scaled", "exponentiate", "softmax",
         "output", "weighted_average", "causal", "large_scores", "shared_projection"]
SIX_BY_FOUR = [[1, 0, 2, -1], [0, 1, 1, 0], [2, -1, 0, 1], [1, 1, 1, 1], [-2, 0, 1, 3], [0, 3, -1, 2]]
W_4x4 = [[1, 0.5, 0, 0], [0, 1, -0.5, 0], [0.5, 0, 1, 0], [0, 0, 0.5, 1]]
X_DECIMALS = [[1.25, -0.5, 2.75, -1.5], [-9.75, 1.0, 0.25, 3.5], [2.5, -1.25, -0.75, 1.75],
              [0.5, 2.25, -3.5, 1.0], [-2.0, 0.75, 1.5, -0.25], [3.25, -2.5, 0.5, 9.5]]
W_DECIMALS = [[0.5, -1.25, 0.75, 0.0], [-0.25, 1.5, 0.5, -0.75], [1.0, 0.25, -1.5, 0.5], [-0.5, 0.75, 0.25, 1.25]]


def shown(step, name) -> np.ndarray:
    return np.array([[parse_number(text) for text in row] for row in step.numbers[name]])


def expected(X, W_Q, W_K, W_V, causal=False, scale=True):
    """The lesson's formulas written out directly with numpy."""
    X, W_Q, W_K, W_V = (np.array(m, dtype=float) for m in (X, W_Q, W_K, W_V))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    scores = Q @ K.T
    scaled = scores / (np.sqrt(W_K.shape[1]) if scale else 1.0)
    if causal:
        scaled[np.triu_indices(len(X), k=1)] = -np.inf
    exps = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    weights = exps / exps.sum(axis=1, keepdims=True)
    return {"Q": Q, "K": K, "V": V, "scores": scores, "scaled": scaled, "weights": weights, "Z": weights @ V}


@pytest.fixture(scope="module")
def default_scene():
    """The default section, with what each step showed at its end as built (``scene.at_end[key]``): every visible
    text with its matrix tag and centre, the map's √d_k (colour, centre), its frame and the strokes on screen."""
    finish_step = MatrixScene.finish_step

    def recording(scene):
        if scene.steps and not scene.steps[-1].end:
            scene.at_end = getattr(scene, "at_end", {})
            scene.at_end[scene.steps[-1].key] = screen_state(scene)
        finish_step(scene)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MatrixScene, "finish_step", recording)
        return run_scene("matrix")


def glyph_colour(mobject) -> str:
    """The fill colour its glyphs are drawn in (a MathTex part's own colour attribute is not what is drawn)."""
    colours = {glyph.get_fill_color().to_hex().upper() for glyph in mobject.family_members_with_points()}
    assert len(colours) == 1
    return colours.pop()


def screen_state(scene) -> dict:
    texts = [(getattr(text, "shown_text", None) or getattr(text, "tex_string", ""), getattr(text, "tag", None),
              text.get_center()) for text in scene._visible_texts(scene.mobjects)]
    sqrt = scene.term(r"\sqrt{d_k}") if scene.map_frame is not None else None
    lines = [mobject for mobject in scene.mobjects if isinstance(mobject, Line)]
    return {"texts": texts, "sqrt": sqrt and (glyph_colour(sqrt), sqrt.get_center()),
            "frame": scene.map_frame and (scene.map_frame.get_corner(DL), scene.map_frame.get_corner(UR)),
            "lines": [(line.get_start(), line.get_end()) for line in lines if line.get_stroke_opacity() > 0.05]}


def test_steps_in_lesson_order(default_scene):
    assert [step.key for step in default_scene.steps] == STEPS
    assert all(step.end > step.start for step in default_scene.steps)


def test_numbers_on_screen_equal_the_math(default_scene):
    want = expected(worked_example.X, worked_example.W_Q, worked_example.W_K, worked_example.W_V)
    last = {step.key: step for step in default_scene.steps}
    np.testing.assert_array_equal(shown(last["inputs"], "X"), worked_example.X)
    for name, step in (("Q", "queries"), ("K", "keys"), ("V", "values"), ("scores", "scores"),
                       ("scaled", "scaled"), ("weights", "softmax"), ("Z", "output")):
        np.testing.assert_allclose(shown(last[step], name), want[name], atol=0.005, err_msg=name)


def test_no_overlap_and_nothing_leaves_the_frame(default_scene):
    assert layout_problems(default_scene) == []


def test_six_tokens_of_dimension_four():
    scene = run_scene("matrix", f"matrix.X={SIX_BY_FOUR}", f"matrix.W_Q={W_4x4}", f"matrix.W_K={W_4x4}",
                      f"matrix.W_V={W_4x4}")
    assert layout_problems(scene) == []
    want = expected(SIX_BY_FOUR, W_4x4, W_4x4, W_4x4)
    output = next(step for step in scene.steps if step.key == "output")  # d_k = d_v = 4: no pictures in the plane
    assert shown(output, "Z").shape == (6, 4)
    np.testing.assert_allclose(shown(output, "weights"), want["weights"], atol=0.005)
    np.testing.assert_allclose(shown(output, "Z"), want["Z"], atol=0.005 * (1 + np.abs(want["Z"]).max()))


@pytest.fixture(scope="module")
def largest_scene():
    """The largest matrices the config accepts (6 tokens, dimension 4), with decimals everywhere."""
    return run_scene("matrix", f"matrix.X={X_DECIMALS}", f"matrix.W_Q={W_DECIMALS}", f"matrix.W_K={W_4x4}",
                     f"matrix.W_V={W_DECIMALS}")


def test_largest_inputs_with_decimals_lay_out_without_overlap(largest_scene):
    assert layout_problems(largest_scene) == []
    want = expected(X_DECIMALS, W_DECIMALS, W_4x4, W_DECIMALS)
    steps = {step.key: step for step in largest_scene.steps}
    for name, key in (("Q", "queries"), ("K", "keys"), ("V", "values")):
        np.testing.assert_allclose(shown(steps[key], name), want[name], atol=0.05, err_msg=name)
    assert pacing_problems(largest_scene) == []


def test_largest_inputs_with_decimals_stay_legible(largest_scene):
    assert legibility_problems(largest_scene) == []


def test_the_longest_words_on_the_largest_inputs_stay_legible():
    """Six tokens of the most letters matrix.tokens accepts, left of X's rows and over Kᵀ's columns."""
    words = ", ".join(f'"{letter * MATRIX_WORD_LETTERS}"' for letter in "abcdef")
    scene = run_scene("matrix", f"matrix.X={X_DECIMALS}", f"matrix.W_Q={W_DECIMALS}", f"matrix.W_K={W_4x4}",
                      f"matrix.W_V={W_DECIMALS}", f"matrix.tokens=[{words}]")
    assert legibility_problems(scene) == [] and layout_problems(scene) == []


def test_default_lecture_is_legible_paced_and_uses_a_true_minus(default_scene):
    assert legibility_problems(default_scene) == []
    assert pacing_problems(default_scene) == []
    assert notation_problems(default_scene) == []
    inputs = default_scene.steps[STEPS.index("inputs")]
    assert "−1" in [text.text for text in inputs.texts]  # W_Q[2, 1], with U+2212


def test_scaling_caption_states_the_variances_on_screen(default_scene):
    scores = shown(default_scene.steps[STEPS.index("scores")], "scores")
    caption = default_scene.steps[STEPS.index("scaled")].caption
    assert np.var(scores) == pytest.approx(12.0) and f"de {np.var(scores):.0f} a {np.var(scores) / 2:.0f}" in caption
    assert "a 1." not in caption.split(":")[0]  # no longer claims the division brings it back to 1
    assert "puedes editar" not in default_scene.steps[0].caption


def test_weights_are_written_with_enough_decimals_to_sum_to_one(default_scene):
    for row in default_scene.steps[STEPS.index("softmax")].numbers["weights"]:
        assert sum(parse_number(text) for text in row) == pytest.approx(1.0, abs=1e-9)


def test_causal_mask_shows_minus_infinity_then_zero():
    scene = run_scene("matrix", "matrix.causal=true")
    steps = {step.key: step for step in scene.steps}
    assert steps["scaled"].numbers["scaled"][0][1:] == ["−∞", "−∞"]
    assert shown(steps["softmax"], "weights")[0].tolist() == [1.0, 0.0, 0.0]
    assert "(1, 0, 0" in steps["softmax"].caption
    assert layout_problems(scene) == []


def test_large_scores_without_scaling_collapse_to_one_hot():
    scene = run_scene("matrix", "matrix.preset='large_scores'", "matrix.scale=false")
    weights = shown(scene.steps[STEPS.index("output")], "weights")
    assert np.all(weights.max(axis=1) >= 0.99)
    assert "one-hot" in scene.steps[STEPS.index("softmax")].caption
    assert layout_problems(scene) == []


def test_shared_projection_diagonal_dominates():
    scene = run_scene("matrix", "matrix.preset='shared_projection'")
    weights = shown(scene.steps[STEPS.index("output")], "weights")
    assert weights.argmax(axis=1).tolist() == [0, 1, 2]
    assert "diagonal" in scene.steps[STEPS.index("softmax")].caption


def test_cues_follow_the_cells_and_rows(default_scene):
    kinds = [cue.kind for cue in default_scene.cues]
    assert kinds.count("step") == len(STEPS)
    # Q, K, V; the alignment's three keys; the scores; the scaled rows; Z; the weighted average's three terms
    assert kinds.count("cell") == 3 * 2 * 3 + 3 + 9 + 3 + 3 * 2 + 3
    softmax = default_scene.steps[STEPS.index("softmax")]
    rows = [cue.values["weights"] for cue in default_scene.cues if cue.kind == "row" and softmax.start <= cue.time < softmax.end]
    np.testing.assert_allclose(rows, expected(worked_example.X, worked_example.W_Q, worked_example.W_K,
                                              worked_example.W_V)["weights"])


def intensity(cell) -> float:
    """How far a cell's fill is from the neutral PANEL (RGB distance)."""
    return float(np.linalg.norm(np.asarray(cell.get_fill_color().to_rgb()) - np.asarray(style.PANEL.to_rgb())))


@pytest.mark.parametrize("overrides", [(), ("matrix.causal=true",)])
def test_scores_and_scaled_scores_share_one_colour_scale(overrides):
    """Every cell of QKᵀ and of QKᵀ/√d_k is as far from neutral as |value| / max |QKᵀ|, whichever matrix it is
    in: equal values get equal colours and the scaled cells are visibly paler (1/√2 here). With a scale per
    matrix the largest scaled score would be as strong as the largest raw one."""
    scene = run_scene("matrix", *overrides)
    want = expected(worked_example.X, worked_example.W_Q, worked_example.W_K, worked_example.W_V,
                    causal=bool(overrides))
    largest = np.abs(want["scores"]).max()
    end = roundest_covering(largest)  # the scale's end: the colour bar's tick at or over the largest score
    panel = np.asarray(style.PANEL.to_rgb())
    full = {sign: style.SCORE_SATURATION * np.linalg.norm(np.asarray(colour.to_rgb()) - panel)
            for sign, colour in ((1, style.SCORE_POSITIVE), (-1, style.SCORE_NEGATIVE))}
    scores, scaled, _ = scene.score_matrices()  # as built for the scores step (the scaled step recolours S's cells)
    for matrix, values in ((scores, want["scores"]), (scaled, want["scaled"])):
        for (i, j), value in np.ndenumerate(values):
            cell = matrix.cells[i][j]
            if np.isneginf(value):
                assert cell.get_fill_color().to_hex() == style.MASKED.to_hex()
            elif value:
                assert intensity(cell) == pytest.approx(full[np.sign(value)] * abs(value) / end, abs=0.01), \
                    (matrix.name, i, j)
    strongest_scaled = max(abs(value) for value in want["scaled"].flat if np.isfinite(value))
    assert strongest_scaled / largest == pytest.approx(1 / np.sqrt(2))  # the largest scaled cell is paler


@pytest.mark.parametrize("fixture", ["default_scene", "largest_scene"])
def test_each_step_shows_only_the_matrices_it_uses(fixture, request):
    """X, one W and its product; then Q, Kᵀ (K's numbers transposed) and the scores; then A, V and Z."""
    steps = {step.key: step for step in request.getfixturevalue(fixture).steps}
    for key, role in (("queries", "Q"), ("keys", "K"), ("values", "V")):
        assert set(steps[key].numbers) == {"X", f"W_{role}", role}, key
    assert set(steps["scores"].numbers) == {"Q", "K^T", "scores", "score_legend"}
    np.testing.assert_array_equal(steps["scores"].numbers["K^T"], np.array(steps["keys"].numbers["K"]).T)
    assert set(steps["softmax"].numbers) == {"Q", "K^T", "weights"}
    assert set(steps["output"].numbers) == {"weights", "V", "Z"}
    assert steps["output"].numbers["weights"] == steps["softmax"].numbers["weights"]


def roundest_covering(largest: float) -> float:
    """1, 2, 2.5 or 5 times a power of ten: the smallest such value at or over ``largest``."""
    power = 10.0 ** np.floor(np.log10(largest))
    return min(step * power * ten for ten in (1, 10) for step in (1, 2, 2.5, 5) if step * power * ten >= largest)


@pytest.mark.parametrize("fixture", ["default_scene", "largest_scene"])
def test_scores_and_scaled_scores_show_one_colour_bar_from_minus_to_plus_the_largest_score(fixture, request):
    """The bar beside QKᵀ stays, unchanged, beside QKᵀ/√d_k: from and to ± the roundest value at or over
    max |QKᵀ|, ticked there and at 0, so that it keys every cell (a bar of the scaled scores alone would end under
    it; the review saw a bar ticked ±5 beside scores of 8). The softmax takes it away: the weights have their own
    scale, 0 to 1."""
    scene = request.getfixturevalue(fixture)
    steps = {step.key: step for step in scene.steps}
    scores = shown(steps["scores"], "scores")
    mark = roundest_covering(np.abs(scores).max())
    for key in ("scores", "scaled"):
        assert shown(steps[key], "score_legend").tolist() == [[-mark, 0.0, mark]], key
        assert [text for text in steps[key].texts if "escala" in text.text] == \
               [text for text in steps["scores"].texts if "escala" in text.text] != []
    bar, ticks = scene.legend.bar, scene.legend.ticks
    for value, tick in zip((-mark, 0.0, mark), ticks):
        share = (tick.get_center()[1] - bar.get_bottom()[1]) / bar.height
        assert share == pytest.approx((value + mark) / (2 * mark), abs=0.01)
    for key in ("softmax", "output"):
        assert "score_legend" not in steps[key].numbers
        assert not any("escala" in text.text for text in steps[key].texts)


# Issue 26: what the seed lesson says, on screen -----------------------------------------------------------
def texts(step) -> list[str]:
    return [text.text for text in step.texts]


def by_key(scene) -> dict:
    return {step.key: step for step in scene.steps}


@pytest.mark.parametrize(("language", "words"), [("es", ["el", "gato", "duerme"]), ("en", ["the", "cat", "sleeps"])])
def test_the_three_tokens_carry_words_left_of_the_rows_of_x(language, words, default_scene):
    """Each row of X has its word beside it, top to bottom, left of every number on screen."""
    scene = default_scene if language == "es" else run_scene("matrix", f"lecture.lang='{language}'")
    for key in ("inputs", "queries", "keys", "values"):
        step = by_key(scene)[key]
        found = {text.text: text for text in step.texts if text.text in words}
        assert list(found) and sorted(found, key=lambda word: -found[word].top) == words, key
        x_rows = [text for text in step.texts if text.text in {"0", "1", "2"}]  # X's entries (and W's, further right)
        assert max(text.right for text in found.values()) < min(text.left for text in x_rows), key


@pytest.mark.parametrize(("key", "role", "word"), [("queries", "Q", "pregunta"), ("keys", "K", "etiqueta"),
                                                   ("values", "V", "contenido")])
def test_each_projection_ends_on_its_part_of_the_library_analogy(default_scene, key, role, word):
    step = by_key(default_scene)[key]
    assert any("Biblioteca" in text and word in text and f" {role} " in text for text in texts(step))


def test_the_variance_before_and_after_scaling_is_on_screen_as_numbers(default_scene):
    scores = shown(by_key(default_scene)["scores"], "scores")
    d_k = np.array(worked_example.W_K).shape[1]
    before, after = np.var(scores), np.var(scores) / d_k
    assert (before, after) == (12.0, 6.0)
    assert any(f"{before:g} → {after:g}" in text for text in texts(by_key(default_scene)["scaled"]))


def test_the_causal_step_masks_the_future_and_row_one_becomes_one_zero_zero(default_scene):
    step = by_key(default_scene)["causal"]
    want = expected(worked_example.X, worked_example.W_Q, worked_example.W_K, worked_example.W_V, causal=True)
    assert [row[i + 1:] for i, row in enumerate(step.numbers["scaled"])] == [["−∞", "−∞"], ["−∞"], []]
    np.testing.assert_allclose(shown(step, "weights"), want["weights"], atol=5e-5)
    assert shown(step, "weights")[0].tolist() == [1.0, 0.0, 0.0]
    assert any("(1, 0, 0)" in text and "el" in text for text in texts(step))
    masked = [cue for cue in default_scene.cues if cue.kind == "masked"]
    assert len(masked) == 1 and step.start <= masked[0].time < step.end
    np.testing.assert_allclose(masked[0].values["after"], [1.0, 0.0, 0.0])


def test_the_large_scores_preset_unscaled_is_one_hot_and_its_slope_vanishes(default_scene):
    """X tripled (the preset), no division: scores nine times the example's, every row of A one-hot, and
    the softmax's largest slope p(1 − p) (its Jacobian's largest entry) 0.00 against the example's."""
    step = by_key(default_scene)["large_scores"]
    X = 3 * np.array(worked_example.X)
    want = expected(X, worked_example.W_Q, worked_example.W_K, worked_example.W_V, scale=False)
    np.testing.assert_array_equal(shown(step, "scores"), want["scores"])
    np.testing.assert_allclose(shown(step, "weights"), want["weights"], atol=5e-3)
    assert np.all(shown(step, "weights").max(axis=1) == 1.0)
    example = expected(worked_example.X, worked_example.W_Q, worked_example.W_K, worked_example.W_V)["weights"]

    def slope(weights):  # the largest entry of the softmax's Jacobian diag(p) − p pᵀ, over the rows
        return max(np.abs(np.diag(p) - np.outer(p, p)).max() for p in weights)

    line = f"{slope(example):.2f} en el ejemplo, {slope(want['weights']):.2f} aquí"
    assert line == "0.22 en el ejemplo, 0.00 aquí"
    assert any(line in text for text in texts(step))
    assert "9\\,QK^\\top" in texts(step) and "QK^\\top / \\sqrt{d_k}" not in texts(step)  # X × 3: scores × 9


def test_the_shared_projection_preset_has_the_diagonal_dominate(default_scene):
    step = by_key(default_scene)["shared_projection"]
    want = expected(worked_example.X, worked_example.W_Q, worked_example.W_Q, worked_example.W_V)
    np.testing.assert_array_equal(shown(step, "scores"), want["scores"])  # QKᵀ undivided: its diagonal as the line reads it
    weights = shown(step, "weights")
    np.testing.assert_allclose(weights, want["weights"], atol=5e-3)
    assert weights.argmax(axis=1).tolist() == [0, 1, 2]
    diagonal = np.diag(want["scores"])  # q_i · q_i, before the division
    assert diagonal.tolist() == np.max(want["scores"], axis=1).tolist()
    assert any(f"|q_i|² = {', '.join(f'{value:g}' for value in diagonal)}," in text for text in texts(step))


def test_the_three_variants_are_short_steps_with_sound_and_no_question_after_them(default_scene):
    """Reading time only (no card after them; large_scores's question is predictive, posed before it), each
    row of A sounding as it comes."""
    spanish = load_locale("es")["matrix"]["steps"]
    for key in ("causal", "large_scores", "shared_projection"):
        step = by_key(default_scene)[key]
        assert "question" not in spanish[key] or spanish[key].get("predictive")
        assert not any(card.key == key and card.start >= step.start for card in default_scene.cards)
        assert step.end - step.start <= 20, key
        rows = [cue for cue in default_scene.cues if cue.kind == "row" and step.start <= cue.time < step.end]
        np.testing.assert_allclose([cue.values["weights"] for cue in rows], shown(step, "weights"), atol=5e-4)


# Review R: the map's √d_k where the scores are not divided by it; the tokens' words beside S, A and Z -------------
def inside(point, corners) -> bool:
    (left, bottom, _), (right, top, _) = corners
    return left <= point[0] <= right and bottom <= point[1] <= top


def struck_through(point, lines) -> bool:
    """Whether a stroke on screen crosses ``point``'s box from corner to corner (its box holds the point)."""
    return any(inside(point, (np.minimum(start, end), np.maximum(start, end))) for start, end in lines)


def test_the_map_strikes_out_sqrt_dk_where_the_scores_are_not_divided(default_scene):
    """large_scores runs without ÷√d_k: the map greys √d_k with a stroke across it and frames another term; the
    steps around it, scaled, show √d_k in the text colour, unstruck."""
    for key, struck in (("scaled", False), ("softmax", False), ("causal", False), ("large_scores", True),
                        ("shared_projection", False)):
        state = default_scene.at_end[key]
        colour, centre = state["sqrt"]
        assert colour == (style.MUTED if struck else style.TEXT).to_hex().upper(), key
        assert struck_through(centre, state["lines"]) == struck, key
        if struck:
            assert not inside(centre, state["frame"]), key


def test_the_unscaled_section_strikes_out_sqrt_dk_from_the_scaling_step():
    scene = run_scene("matrix", "matrix.scale=false")
    scaled = by_key(scene)["scaled"]
    assert glyph_colour(scene.term(r"\sqrt{d_k}")) == style.MUTED.to_hex().upper()
    assert scene.sqrt_strike is not None and scene.map_frame is not None
    assert "QK^\\top" in texts(scaled)


WORDS = ["el", "gato", "duerme"]


@pytest.mark.parametrize(("key", "matrix"), [("scores", "scores"), ("scaled", "scaled"), ("softmax", "weights"),
                                              ("output", "weights")])
def test_the_scores_weights_and_output_carry_the_tokens_words_on_their_rows(default_scene, key, matrix):
    """Each row of QKᵀ, QKᵀ/√d_k and A has its token's word level with it, left of the matrix."""
    texts_at_end = default_scene.at_end[key]["texts"]
    entries = {tag[1]: centre for _, tag, centre in texts_at_end if tag and tag[0] == matrix}
    leftmost = min(centre[0] for centre in entries.values())
    row_words = {}
    for text, _, centre in texts_at_end:
        if text in WORDS and centre[0] < leftmost:
            row_words.setdefault(text, []).append(centre)
    for i, word in enumerate(WORDS):
        level = [centre for centre in row_words.get(word, []) if abs(centre[1] - entries[(i, 0)][1]) < 0.05]
        assert level, (key, matrix, word)


@pytest.mark.parametrize("key", ["scores", "scaled", "softmax"])
def test_the_columns_of_the_scores_and_weights_carry_the_tokens_words(default_scene, key):
    """Above Kᵀ, each key's word over its column, in line with the column of the scores (then of A) below."""
    matrix = {"scores": "scores", "scaled": "scaled", "softmax": "weights"}[key]
    texts_at_end = default_scene.at_end[key]["texts"]
    entries = {tag[1]: centre for _, tag, centre in texts_at_end if tag and tag[0] == matrix}
    key_top = max(centre[1] for _, tag, centre in texts_at_end if tag and tag[0] == "K^T")
    for j, word in enumerate(WORDS):
        above = [centre for text, _, centre in texts_at_end
                 if text == word and centre[1] > key_top and abs(centre[0] - entries[(0, j)][0]) < 0.05]
        assert above, (key, word)


def test_the_lecture_opens_on_what_attention_is_for_and_closes_on_the_answers_to_its_cost(default_scene):
    """Review 43: the guide's opening claims (the mechanism of GPT and BERT; long-range dependencies without an RNN's
    sequential steps) and its section 8.2 (Sparse, Linear and Flash attention as answers to O(n²)) were on no frame.
    The formula step's caption says the first; the closing card's answer about O(n²·d_k), the second."""
    opening = default_scene.steps[0].caption
    assert all(word in opening for word in ("GPT", "BERT", "RNN")), opening
    (closing,) = [card for card in default_scene.cards if card.kind == "closing"]
    assert all(variant in closing.answer for variant in ("dispersa", "lineal", "FlashAttention")), closing.answer
    assert "n²" in closing.answer
