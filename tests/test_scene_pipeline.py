"""Section 6, the AI Visual Lab's pipeline: what is on screen against attn_math.lab, recomputed here."""

from dataclasses import dataclass

import numpy as np
import pytest

from attn_math.lab import LAB_SENTENCES, MAX_TOKENS, LabWeights, lab_attention, lab_weights
from attn_math.sharp import preset_attention, sharp_attention, sharp_weights
from lecture.config import ConfigError, load_config
from scenes import style
from scenes.numbers import parse_number
from scenes.pipeline import LAB_STEPS, NUMBERS_MAX_TOKENS, PipelineScene
from tests.scene_checks import layout_problems, lecture_problems, run_scene

SMALLEST_CAP = 14 / 720 * 8  # 14 px at 720p, in frame units

# 32 words, some of them long: the longest sentence the config accepts.
LONGEST = ("el extraordinariamente complicado mecanismo de autoatención permite que cada palabra observe "
           "directamente a todas las demás y decida cuánta atención prestarles según sus representaciones "
           "internacionalizadas aprendidas durante el entrenamiento masivo con textos")
# The most tokens whose matrices still show their numbers (NUMBERS_MAX_TOKENS), each word long.
EIGHT_LONG = ("electroencefalografistas internacionalizaciones extraordinariamente desproporcionadamente "
              "anticonstitucionalmente otorrinolaringólogos esternocleidomastoideos caleidoscópicamente")
SIX_TEMPERATURES = (0.1, 0.3, 1.0, 2.0, 3.5, 5.0)  # as many as the config accepts, both slider ends
ROUNDING = 0.005 + 1e-9  # numbers are shown with two decimals


@dataclass(frozen=True)
class Run:
    sentence: str
    query: int
    temperature: float
    causal: bool
    temperatures: tuple[float, ...]
    weights: dict | None = None  # custom W_Q, W_K, W_V (lab layout) as lists
    preset: str = "lab"

    def overrides(self) -> tuple[str, ...]:
        overrides = (f"pipeline.preset='{self.preset}'", f"pipeline.sentence='{self.sentence}'",
                     f"pipeline.query={self.query}",
                     f"pipeline.temperature={self.temperature}", f"pipeline.causal={str(self.causal).lower()}",
                     f"pipeline.temperatures={list(self.temperatures)}")
        return overrides + tuple(f"pipeline.{name}={matrix}" for name, matrix in (self.weights or {}).items())

    def lab_weights(self):
        return LabWeights(**{name: np.array(matrix) for name, matrix in self.weights.items()}) if self.weights else None

    def attention(self, temperature=None, causal=None):
        return preset_attention(self.preset, self.sentence, self.temperature if temperature is None else temperature,
                                self.causal if causal is None else causal, self.lab_weights())


def identity_rows(rows: int, scale: float = 1.0) -> list[list[float]]:
    return [[scale if j == i % 8 else 0.0 for j in range(8)] for i in range(rows)]


RUNS = {
    "sharp": Run("el gato se sienta en la mesa", 1, 1.0, False, (0.2, 1.0, 3.0), preset="sharp"),  # the default
    "gato": Run("el gato se sienta en la mesa", 1, 1.0, False, (0.2, 1.0, 3.0)),
    "red causal": Run("la red neuronal aprende rapido", 4, 0.5, True, (0.1, 2.5)),
    "atencion hot": Run("atencion es todo lo que necesitas", 0, 3.0, False, (0.5, 1.0, 5.0)),
    # The extremes at once: 32 words, d_k = d_v = 16 (custom weights), the mask, the coldest T, six temperatures.
    "longest": Run(LONGEST, MAX_TOKENS - 1, 0.1, True, SIX_TEMPERATURES,
                   {"W_Q": identity_rows(16), "W_K": identity_rows(16, 2.0), "W_V": identity_rows(16)}),
    "longest sharp": Run(LONGEST, MAX_TOKENS - 1, 0.1, True, SIX_TEMPERATURES, preset="sharp"),
    # numbers in every cell at the coldest T: the widest scaled scores, and −∞ where masked
    "eight long words": Run(EIGHT_LONG, NUMBERS_MAX_TOKENS - 1, 0.1, True, SIX_TEMPERATURES),
    "eight long words sharp": Run(EIGHT_LONG, 0, 1.0, False, SIX_TEMPERATURES, preset="sharp"),
}
LARGEST_RUNS = ("longest", "longest sharp", "eight long words", "eight long words sharp")
LAB_RUNS = ("gato", "red causal", "atencion hot")
NUMBER_RUNS = ("sharp", *LAB_RUNS)  # short sentences: the matrices show their numbers


@pytest.fixture(scope="module")
def scene():
    """scene(name): the scene run once per module with RUNS[name]'s settings."""
    done = {}

    def run(name):
        if name not in done:
            done[name] = run_scene("pipeline", *RUNS[name].overrides())
        return done[name]
    return run


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def shown(scene, key, name) -> np.ndarray:
    return np.array([[parse_number(text) for text in row] for row in step(scene, key).numbers[name]])


def close(on_screen, expected):
    on_screen, expected = np.asarray(on_screen, dtype=float), np.asarray(expected, dtype=float)
    assert on_screen.shape == expected.shape
    finite = np.isfinite(expected)
    assert np.array_equal(np.isneginf(on_screen), np.isneginf(expected))
    assert np.all(np.abs(on_screen[finite] - expected[finite]) <= ROUNDING), (on_screen, expected)


# The lab's numbers on screen ------------------------------------------------------------------------
def test_steps_are_the_lab_seven_then_temperature_and_mask(scene):
    assert [record.key for record in scene("gato").steps] == list(PipelineScene.STEPS)
    assert PipelineScene.STEPS[7] == "presets"
    assert PipelineScene.STEPS[:7] == LAB_STEPS == ("embeddings", "queries", "keys", "scores", "scaled",
                                                    "softmax", "output")


def test_the_default_is_the_sharp_preset():
    config, run = load_config().pipeline, RUNS["sharp"]
    assert config.preset == run.preset == "sharp"
    assert (config.sentence, config.query, config.temperature, config.causal, tuple(config.temperatures)) == (
        run.sentence, run.query, run.temperature, run.causal, run.temperatures)


@pytest.mark.parametrize("name", NUMBER_RUNS)
def test_matrices_on_screen_equal_the_lab(scene, name):
    run, expected = RUNS[name], RUNS[name].attention()
    close(shown(scene(name), "scores", "scores"), expected.steps.scores)
    close(shown(scene(name), "scaled", "scaled"), expected.steps.scaled)
    close(shown(scene(name), "softmax", "weights"), expected.weights)
    # scaled is QK^T / (sqrt(8) T), masked cells -inf: checked against the formula, not only attn_math
    n = len(run.sentence.split())
    by_formula = expected.steps.scores / (np.sqrt(8 if run.preset == "lab" else 4) * run.temperature)
    if run.causal:
        by_formula[np.triu_indices(n, 1)] = -np.inf
    close(shown(scene(name), "scaled", "scaled"), by_formula)


@pytest.mark.parametrize("name", NUMBER_RUNS)
def test_panel_metrics_appear_when_computed_and_are_the_query_rows(scene, name):
    run, expected = RUNS[name], RUNS[name].attention()
    row = expected.weights[run.query]
    entropy = -sum(p * np.log2(p) for p in row if p > 0)
    d_k = 8 if run.preset == "lab" else 4
    for number, key in enumerate(LAB_STEPS, start=1):
        numbers = step(scene(name), key).numbers
        assert ("d_k" in numbers) == (number >= 2)  # Q = X W_Q sets d_k
        assert ("entropy" in numbers) == ("max_weight" in numbers) == (number >= 6)  # the softmax's row
        if number >= 2:
            assert numbers["d_k"] == [[str(d_k)]]
        if number >= 6:
            close(shown(scene(name), key, "entropy"), [[entropy]])
            close(shown(scene(name), key, "max_weight"), [[row.max()]])


def test_one_step_counter_and_the_status_bar_says_which_weights(scene):
    for name, weights in (("gato", "pesos del lab"), ("sharp", "pesos diseñados")):
        run = scene(name)
        for number, key in enumerate(LAB_STEPS, start=1):
            texts = [text.text for text in step(run, key).texts]
            assert [text for text in texts if "Paso" in text] == [f"Paso {number}/{len(PipelineScene.STEPS)}"]
            assert f"Q: gato\n{weights}" in texts
            assert run.dot_states[key] == ("completed",) * (number - 1) + ("active",) + ("inactive",) * (7 - number)


def test_the_panel_formula_divides_by_the_temperature(scene):
    formula = "".join(part.tex_string for part in scene("gato").panel.equation[1])
    assert r"\sqrt{d_k}\, T}" in formula


def test_mask_blocks_the_future_exactly(scene):
    run = RUNS["red causal"]
    weights = run.attention().weights
    n = len(weights)
    assert np.all(weights[np.triu_indices(n, 1)] == 0.0)
    assert weights[0].tolist() == [1.0] + [0.0] * (n - 1)
    on_screen = step(scene("red causal"), "softmax").numbers["weights"]
    assert [on_screen[i][j] for i in range(n) for j in range(i + 1, n)] == ["0.00"] * (n * (n - 1) // 2)
    assert on_screen[0] == ["1.00"] + ["0.00"] * (n - 1)
    assert all(text == "−∞" for i, row in enumerate(step(scene("red causal"), "scaled").numbers["scaled"])
               for text in row[i + 1:])


def test_the_causal_step_shows_minus_infinity_before_the_softmax_makes_it_zero(scene):
    run = RUNS["sharp"]  # the default lecture has no mask in steps 1-7: the comparison shows it
    masked = run.attention(causal=True)
    n = len(masked.tokens)
    causal = scene("sharp").causal_scores
    texts = [[entry.shown_text for entry in row] for row in causal.entries]
    assert all(texts[i][j] == "−∞" for i in range(n) for j in range(i + 1, n))
    finite = [[parse_number(texts[i][j]) for j in range(i + 1)] for i in range(n)]
    for i in range(n):
        np.testing.assert_allclose(finite[i], masked.steps.scores[i, :i + 1] / (2 * run.temperature), atol=ROUNDING)
    assert step(scene("sharp"), "causal").numbers["weights_causal"][0] == ["1.00"] + ["0.00"] * (n - 1)


def test_distribution_bars_and_lines_follow_the_query_row(scene):
    gato, run = scene("gato"), RUNS["gato"]
    row = run.attention().weights[run.query]
    connections = [cue for cue in gato.cues if cue.kind == "connection"]
    softmax, output = step(gato, "softmax"), step(gato, "output")
    in_softmax = [cue.values["weight"] for cue in connections if softmax.start <= cue.time < softmax.end]
    in_output = [cue.values["weight"] for cue in connections if output.start <= cue.time < output.end]
    np.testing.assert_allclose(in_softmax, row)
    np.testing.assert_allclose(in_output, row)
    assert all(cue.values["temperature"] == 1.0 for cue in connections if cue.time < output.end)


def intensity(cell) -> float:
    """How far a cell's fill is from the neutral PANEL (RGB distance)."""
    return float(np.linalg.norm(np.asarray(cell.get_fill_color().to_rgb()) - np.asarray(style.PANEL.to_rgb())))


@pytest.mark.parametrize("name", ["sharp", "gato", "red causal"])
def test_scores_and_scaled_scores_share_one_colour_scale(scene, name):
    """QKᵀ (step 4) and QKᵀ/(√d_k T) (step 5) on one scale, the largest |score| of either: every cell is as far
    from neutral as |value| / that largest, so equal values get equal colours and dividing by √d_k T > 1 shows
    as paler cells. The colour bar of steps 4-5 is ticked at 0 and ± the roundest value within the scale,
    and leaves with the scores (the weights are on another scale)."""
    expected, shown_scene = RUNS[name].attention(), scene(name)
    scores, scaled = expected.steps.scores, expected.steps.scaled
    largest = max(np.abs(scores).max(), np.abs(scaled[np.isfinite(scaled)]).max())
    panel = np.asarray(style.PANEL.to_rgb())
    full = {sign: style.SCORE_SATURATION * np.linalg.norm(np.asarray(colour.to_rgb()) - panel)
            for sign, colour in ((1, style.SCORE_POSITIVE), (-1, style.SCORE_NEGATIVE))}
    colours = {}
    for matrix, values in ((shown_scene.scores.matrix, scores), (shown_scene.scaled.matrix, scaled)):
        for (i, j), value in np.ndenumerate(values):
            if np.isfinite(value):
                cell = matrix.cells[i][j]
                assert intensity(cell) == pytest.approx(abs(value) / largest * full[1 if value > 0 else -1], abs=0.01)
                colours.setdefault(round(float(value), 9), set()).add(cell.get_fill_color().to_hex())
    assert all(len(hexes) == 1 for hexes in colours.values())  # one value, one colour, whichever matrix
    if name == "sharp":  # 4 / √4 = 2 is in both matrices: the same colour in each
        assert np.isin(scores, scaled).any()
    roundest = [step * 10.0 ** power for power in range(-3, 4) for step in (1, 2, 2.5, 5)]
    mark = max(value for value in roundest if value <= largest)
    for key in ("scores", "scaled"):
        close(shown(shown_scene, key, "score_legend"), [[-mark, 0.0, mark]])
    assert "score_legend" not in step(shown_scene, "softmax").numbers


# Temperature ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", LAB_RUNS)
def test_temperature_readouts_are_the_query_row_at_each_temperature(scene, name):
    run = RUNS[name]
    expected = [run.attention(temperature) for temperature in run.temperatures]
    key = "temperature"
    close(shown(scene(name), key, "temperature")[0], run.temperatures)
    close(shown(scene(name), key, "temperature_entropy")[0], [e.entropies[run.query] for e in expected])
    close(shown(scene(name), key, "temperature_max")[0], [e.max_weights[run.query] for e in expected])


@pytest.mark.parametrize("name", ["sharp", "gato"])
def test_exercise_two_marks_the_guides_temperatures(scene, name):
    run = RUNS[name]
    expected = [run.attention(temperature).max_weights[run.query] for temperature in (0.5, 1.0, 3.0)]
    close(shown(scene(name), "temperature_plot", "exercise_max"), [expected])
    caption = step(scene(name), "temperature_plot").caption
    assert "T = 0.5, 1 y 3" in caption and all(f"{value:.2f}" in caption for value in expected)
    assert expected[0] > expected[1] > expected[2]  # what the caption says: the maximum falls as T rises


def test_max_weight_curve_is_sampled_from_the_lab(scene):
    run = RUNS["gato"]
    temperatures, maxima = scene("gato").max_weight_curve
    assert temperatures[0] == 0.1 and temperatures[-1] == 5.0 and len(temperatures) >= 50
    np.testing.assert_array_equal(maxima, [run.attention(float(t)).max_weights[run.query] for t in temperatures])
    # p_max(T) = 1 / sum_j exp((s_j - s_max) / T): every term grows with T, so the curve only falls
    assert np.all(np.diff(maxima) <= 1e-15)
    assert maxima[-1] > 1 / 7


# The two presets side by side; captions that say what the screen shows ------------------------------------
@pytest.mark.parametrize("name", ["sharp", "gato"])
def test_presets_step_shows_the_labs_flat_weights_beside_the_designed_ones(scene, name):
    run = RUNS[name]
    lab = lab_attention(run.sentence, run.temperature)
    sharp = sharp_attention(run.sentence, run.temperature)
    presets = step(scene(name), "presets")
    maps = scene(name).preset_maps  # colours only: flat against peaked
    np.testing.assert_array_equal(maps["lab"].matrix.values, lab.weights)
    np.testing.assert_array_equal(maps["sharp"].matrix.values, sharp.weights)
    row_lab, row_sharp = lab.weights[run.query], sharp.weights[run.query]
    bits_lab = -sum(p * np.log2(p) for p in row_lab)
    close(shown(scene(name), "presets", "entropy_lab"), [[bits_lab]])
    close(shown(scene(name), "presets", "max_sharp"), [[row_sharp.max()]])
    # the caption's claims: the lab's row is within 1 % of the uniform's log2(7) bits, the designed one is not
    assert bits_lab > 0.99 * np.log2(7) and row_sharp.max() >= 0.5
    assert f"{bits_lab:.2f} de {np.log2(7):.2f} bits" in presets.caption
    assert "aleatorios, sin entrenar" in presets.caption and f"{row_sharp.max():.2f} a «el»" in presets.caption


def test_output_caption_says_whether_the_outputs_differ(scene):
    for name in ("sharp", "gato"):
        expected = RUNS[name].attention()
        Z, V = expected.output, expected.steps.V
        widest = lambda M: max(np.linalg.norm(a - b) for a in M for b in M)  # noqa: E731
        caption = step(scene(name), "output").caption
        if name == "gato":  # uniform-ish weights: the seven outputs lie within a tenth of the values' spread
            assert widest(Z) < 0.1 * widest(V) and "casi iguales" in caption
        else:
            row = expected.weights[1]
            assert widest(Z) > 0.5 * widest(V) and f"{row.max():.2f} viene de «el»" in caption


# The causal comparison (exercises 3 and 4) --------------------------------------------------------------
@pytest.mark.parametrize("name", LAB_RUNS)
def test_comparison_counts_nulled_weights_and_compares_entropies(scene, name):
    run = RUNS[name]
    free, masked = run.attention(causal=False), run.attention(causal=True)
    n, fourth = len(free.tokens), 3
    causal = step(scene(name), "causal")
    np.testing.assert_array_equal(scene(name).comparison.free.matrix.values, free.weights)  # colours only
    close(shown(scene(name), "causal", "weights_causal"), masked.weights)
    assert causal.numbers["nulled"] == [[str(n - 1 - i)] for i in range(n)]  # row i loses the n - 1 - i after it
    assert causal.numbers["nulled_first_last"] == [[str(n - 1), "0"]]
    close(shown(scene(name), "entropy", "entropy_free"), [[free.entropies[0], free.entropies[fourth]]])
    close(shown(scene(name), "entropy", "entropy_causal"), [[0.0, masked.entropies[fourth]]])
    assert step(scene(name), "entropy").numbers["entropy_causal"][0][0] == "0.00"


# Sound cues ---------------------------------------------------------------------------------------------
def test_cues_step_tones_connections_and_reset(scene):
    gato = scene("gato")
    steps = [cue for cue in gato.cues if cue.kind == "step"]  # cued by begin_step: the lab's 1..7, then 8..12
    assert [cue.values["step"] for cue in steps] == list(range(1, len(PipelineScene.STEPS) + 1))
    resets = [cue for cue in gato.cues if cue.kind == "reset"]
    assert len(resets) == 1 and step(gato, "presets").start <= resets[0].time < step(gato, "presets").end
    kinds = {"step": {"step"}, "connection": {"weight", "temperature"}, "reset": set(),
             "masked": {"before", "after"}, "entropy": {"rows", "free", "masked"}, "row": {"weights", "version"},
             "curve": {"values", "duration"}}
    for cue in gato.cues:
        assert kinds[cue.kind] == set(cue.values)
        assert all(isinstance(value, (int, float, list, str)) for value in cue.values.values())
    weights = [cue.values["weight"] for cue in gato.cues if cue.kind == "connection"]
    assert all(0 < weight <= 1 for weight in weights)
    times = [cue.time for cue in gato.cues]
    assert times == sorted(times)


# Layout -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(RUNS))
def test_no_text_overlaps_or_leaves_the_frame(scene, name):
    assert layout_problems(scene(name)) == []


@pytest.mark.parametrize("name", list(RUNS))
def test_numbers_and_labels_are_at_least_14_px_tall_at_720p(scene, name):
    """A box is at least as tall as its capitals or digits: a text holding one must reach 14 px (not t, shorter
    than a capital in the text font)."""
    tall = set("ABCDEFGHIJKLMNOPQRSTUVWXYZÁÉÍÓÚ0123456789bdfhkl")
    small = [(record.key, text.text, round(text.top - text.bottom, 3)) for record in scene(name).steps
             for text in record.texts if tall & set(text.text) and text.top - text.bottom < SMALLEST_CAP
             or 0 < text.cap_height < SMALLEST_CAP]
    assert small == []


@pytest.mark.parametrize("name", list(RUNS))
def test_no_screen_stands_still_over_six_seconds(scene, name):
    assert max(end - start for start, end in scene(name).freezes) <= 6.0


@pytest.mark.parametrize("name", ["sharp", "gato"])
def test_core_steps_last_their_reading_time(scene, name):
    """max(4 s, words / 2.5 + 0.4 s per new number), counting the numbers a step adds to the screen."""
    seen = set()
    for record in scene(name).steps[:7]:
        shown_now = {(tag, i, j) for tag, rows in record.numbers.items()
                     for i, row in enumerate(rows) for j, text in enumerate(row) if text is not None}
        new = shown_now - seen
        seen |= shown_now
        reading = max(4.0, len(record.caption.split()) / 2.5 + 0.4 * len(new))
        assert record.end - record.start >= reading - 0.05, (record.key, record.end - record.start, reading)


def test_longest_sentence_with_custom_weights(scene):
    run, longest = RUNS["longest"], scene("longest")
    expected = run.attention()
    assert expected.steps.d_k == 16 and len(expected.tokens) == MAX_TOKENS
    assert step(longest, "queries").numbers["d_k"] == [["16"]]
    close(shown(longest, "softmax", "entropy"), [[expected.entropies[run.query]]])
    close(shown(longest, "softmax", "max_weight"), [[expected.max_weights[run.query]]])
    assert "scores" not in step(longest, "scores").numbers  # 32 x 32 cells: colour only, as in the lab
    assert step(longest, "causal").numbers["nulled_first_last"] == [[str(MAX_TOKENS - 1), "0"]]
    assert "Q: textos\npesos del lab" in [text.text for text in step(longest, "keys").texts]


@pytest.mark.parametrize("name", LARGEST_RUNS)
def test_largest_configs_lay_out_read_at_720p_and_keep_moving(scene, name):
    """The largest configs (most tokens, longest words, both presets, custom d_k = 16, the mask, the coldest T,
    six temperatures): no overlap, nothing under 14 px cap height, each step its reading time, no still over 6 s."""
    assert lecture_problems(scene(name)) == []


def test_custom_weights_replace_the_presets():
    designed = load_config(overrides=("pipeline.W_V=" + str(identity_rows(3)),)).pipeline.lab_weights()
    np.testing.assert_array_equal(designed.W_Q, sharp_weights().W_Q)
    seeded = lab_weights()
    config = load_config(overrides=("pipeline.preset='lab'", "pipeline.W_V=" + str(identity_rows(3)))).pipeline
    weights = config.lab_weights()
    np.testing.assert_array_equal(weights.W_Q, seeded.W_Q)
    np.testing.assert_array_equal(weights.W_V, identity_rows(3))
    assert lab_attention(LAB_SENTENCES["gato"], weights=weights).output.shape == (7, 3)
    assert load_config().pipeline.lab_weights() is None


# Bad values -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("override, key", [
    ("pipeline.temperature=0", "pipeline.temperature"),
    ("pipeline.temperature=-0.5", "pipeline.temperature"),
    ("pipeline.temperature=5.01", "pipeline.temperature"),
    ("pipeline.sentence=''", "pipeline.sentence"),
    ("pipeline.sentence='   '", "pipeline.sentence"),
    ("pipeline.sentence='" + "palabra " * (MAX_TOKENS + 1) + "'", "pipeline.sentence"),
    ("pipeline.query=7", "pipeline.query"),
    ("pipeline.query=-1", "pipeline.query"),
    ("pipeline.temperatures=[]", "pipeline.temperatures"),
    ("pipeline.temperatures=[0.05]", "pipeline.temperatures"),
    ("pipeline.W_Q=[[1, 0, 0, 0, 0, 0, 0, 0], [1, 0]]", "pipeline.W_Q"),
    ("pipeline.W_Q=[[1, 0, 0, 0, 0, 0, 0]]", "pipeline.W_Q"),
    ("pipeline.W_Q=[]", "pipeline.W_Q"),
    ("pipeline.W_Q=" + str(identity_rows(17)), "pipeline.W_Q"),
    ("pipeline.W_Q=[[1, 0, 0, 0, 0, 0, 0, nan]]", "pipeline.W_Q"),
    ("pipeline.W_Q=[[100, 0, 0, 0, 0, 0, 0, 0]]", "pipeline.W_Q"),
    ("pipeline.W_Q=" + str(identity_rows(2)), "pipeline.W_Q"),  # the given W_Q is blamed: the preset's W_K has 4 rows
    ("pipeline.preset='random'", "pipeline.preset"),
    ("pipeline.W_V=[[1, 0, 0, 0, 0, 0, 0, 0, 0]]", "pipeline.W_V"),
])
def test_bad_values_are_refused_naming_the_key(override, key):
    with pytest.raises(ConfigError) as error:
        load_config(overrides=(override,))
    assert str(error.value).startswith(key + ":"), str(error.value)

