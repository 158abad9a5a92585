"""Section 6, the AI Visual Lab's pipeline: what is on screen against attn_math.lab, recomputed here."""

import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import pytest
from manim import DL, UR

from attn_math.lab import LAB_SENTENCES, MAX_TOKENS, LabWeights, lab_attention, lab_weights
from attn_math.sharp import preset_attention, sharp_attention, sharp_weights
from lesson.config import ConfigError, load_config
from lesson.locale import load_locale
from lesson.sections import BY_ID
from lesson.numbers import parse_number
from scenes import style
from scenes.lesson_scene import LessonScene
from scenes.pipeline import LAB_STEPS, PipelineScene
from scenes.pipeline_parts.matrices import NUMBERS_MAX_TOKENS
from tests.scene_checks import layout_problems, lecture_problems, run_scene, step_tone_problems
from tests.test_lab import GATO_ROLES, literal_lab, sharp_score_by_hand, softmax_by_hand

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
    "sharp": Run("el gato se sienta en la mesa", 1, 1.0, False, (0.2, 1.0, 3.0), preset="sharp"),
    "gato": Run("el gato se sienta en la mesa", 1, 1.0, False, (0.2, 1.0, 3.0)),  # the default, run without overrides
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
DEFAULT = "gato"
LARGEST_RUNS = ("longest", "longest sharp", "eight long words", "eight long words sharp")
LAB_RUNS = ("gato", "red causal", "atencion hot")
NUMBER_RUNS = ("sharp", *LAB_RUNS)  # short sentences: the matrices show their numbers


ROW_BUILD_RUNS = ("gato", "sharp")  # checked after every animation as they run (test_row_builds_stay_inside...)


@pytest.fixture(scope="module")
def scene():
    """scene(name): the scene run once per module with RUNS[name]'s settings; a run of ROW_BUILD_RUNS also keeps,
    in ``scene.outside_brackets[name]``, what ``outside_brackets`` found after each of its animations."""
    done, found = {}, {}

    def run(name):
        if name not in done:
            problems = []

            def checked_play(scene, *animations, **kwargs):
                LessonScene.play(scene, *animations, **kwargs)
                problems.extend(outside_brackets(scene))

            with pytest.MonkeyPatch.context() as patch:
                if name in ROW_BUILD_RUNS:
                    patch.setattr(PipelineScene, "play", checked_play)
                done[name] = run_scene("pipeline", *(() if name == DEFAULT else RUNS[name].overrides()))
            found[name] = problems
        return done[name]
    run.outside_brackets = found
    return run


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def test_each_step_tone_sounds_as_its_header_has_landed(scene):
    assert step_tone_problems(scene(DEFAULT)) == []  # the matrix's: test_pacing


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
    assert PipelineScene.STEPS[7:9] == ("presets", "article")
    assert PipelineScene.STEPS[:7] == LAB_STEPS == ("embeddings", "queries", "keys", "scores", "scaled",
                                                    "softmax", "output")


def test_the_default_is_the_labs_own_sentence_and_weights():
    config, run = load_config().pipeline, RUNS[DEFAULT]
    assert config.preset == run.preset == "lab" and config.lab_weights() is None
    assert (config.sentence, config.query, config.temperature, config.causal, tuple(config.temperatures)) == (
        run.sentence, run.query, run.temperature, run.causal, run.temperatures)
    assert config.sentence == LAB_SENTENCES["gato"]
    assert load_config(overrides=("lecture.lang='en'",)).pipeline.preset == "lab"  # the lab's weights in English too


def test_the_default_lecture_shows_the_numbers_the_lab_shows(scene):
    """Steps 1-7 and exercises 2-4 of the default lecture, against a plain-Python lab (seed 42, d_k = 8)."""
    default = scene(DEFAULT)
    sentence = LAB_SENTENCES["gato"]
    lab, masked = literal_lab(sentence, 1.0, False), literal_lab(sentence, 1.0, True)
    Q, K = np.array(lab["Q"]), np.array(lab["K"])
    close(shown(default, "scores", "scores"), Q @ K.T)
    close(shown(default, "scaled", "scaled"), Q @ K.T / np.sqrt(8))
    close(shown(default, "softmax", "weights"), lab["weights"])
    assert step(default, "queries").numbers["d_k"] == [["8"]]
    assert "√8 ≈ 2.83" in step(default, "scaled").caption
    close(shown(default, "softmax", "max_weight"), [[lab["max_weights"][1]]])  # the row of «gato»
    exercise_two = [literal_lab(sentence, temperature, False)["max_weights"][1] for temperature in (0.5, 1.0, 3.0)]
    close(shown(default, "temperature_plot", "exercise_max"), [exercise_two])
    close(shown(default, "causal", "weights_causal"), masked["weights"])
    close(shown(default, "entropy", "entropy_free"), [[lab["entropies"][0], lab["entropies"][3]]])
    close(shown(default, "entropy", "entropy_causal"), [[masked["entropies"][0], masked["entropies"][3]]])


def test_in_english_the_labs_sentence_keeps_its_tokens_and_numbers_and_says_what_it_means():
    """lecture.lang = "en" on the lab's sentence: the lab's Spanish tokens and its own numbers (the lab is Spanish
    only), and above the tokens in step 1 what the sentence means, in English; the checks a lecture must pass."""
    run = run_scene("pipeline", 'lecture.lang="en"', "pipeline.sentence='gato'")
    sentence = LAB_SENTENCES["gato"]
    lab = literal_lab(sentence, 1.0, False)
    close(shown(run, "softmax", "weights"), lab["weights"])
    close(shown(run, "temperature_plot", "exercise_max"),
          [[literal_lab(sentence, temperature, False)["max_weights"][1] for temperature in (0.5, 1.0, 3.0)]])
    texts = {text.text: text for text in step(run, "embeddings").texts}
    meaning = texts[load_locale("en")["pipeline"]["meanings"]["gato"]]
    assert set(sentence.split()) <= set(texts)
    assert all(meaning.bottom > texts[token].top for token in sentence.split())
    assert meaning.text not in {text.text for text in step(run, "queries").texts}
    assert lecture_problems(run) == []


def test_in_spanish_the_labs_sentence_needs_no_meaning(scene):
    assert set(load_locale("es")["pipeline"]["meanings"]) == set(LAB_SENTENCES)
    texts = {text.text for text in step(scene(DEFAULT), "embeddings").texts}
    assert not texts & set(load_locale("en")["pipeline"]["meanings"].values())


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


@pytest.mark.parametrize("name", ["gato", "sharp"])
def test_one_step_counter_the_headers(scene, name):
    """One step counter, the header's "Paso k/13", on every step: the lab's status bar names only the query (it
    counted "Paso: k/7" beside the header's "Paso 8/13" later: two counters, review of issue 43); the panel's dots
    light the lab's step."""
    run = scene(name)
    total = len(run.steps)
    for number, record in enumerate(run.steps, start=1):
        counters = [text.text for text in record.texts if re.search(r"\d+\s*/\s*\d+", text.text) and "Paso" in text.text]
        assert counters == [f"Paso {number}/{total}"], record.key
    for number, key in enumerate(LAB_STEPS, start=1):
        assert "Q: gato" in [text.text for text in step(run, key).texts]
        assert run.dot_states[key] == ("completed",) * (number - 1) + ("active",) + ("inactive",) * (7 - number)


def strings_of(table) -> list[str]:
    """Every string in a locale table, however nested."""
    if isinstance(table, dict):
        return [text for value in table.values() for text in strings_of(value)]
    if isinstance(table, list):
        return [text for value in table for text in strings_of(value)]
    return [table] if isinstance(table, str) else []


@pytest.mark.parametrize("language", ["es", "en"])
def test_one_projection_convention_the_labs(scene, language):
    """The lab projects column vectors, q = W_Q x (its W_Q is d_k x 8, attn_math.lab): the section says so, once, at
    step 2, and no caption, narration, question or answer of it writes Q = XW_Q, the other sections' row form, which
    with the lab's W_Q does not even multiply (issue 43: captions said Q = XW_Q, the answers q = W_Q x); but one line
    at step 2, which says the guide's Q = X W_Q is this product in rows, its W_Q this one transposed (review s9)."""
    pipeline = load_locale(language)["pipeline"]
    note = pipeline["labels"]["convention"]  # review s9: one line at step 2 says the guide's Q = X W_Q is this transposed
    assert [text for text in strings_of(pipeline) if re.search(r"X\s*W_[QKV]", text)] == [note]
    assert pipeline["steps"]["queries"]["caption"].startswith("q = W_Q x")
    assert pipeline["steps"]["keys"]["caption"].startswith("k = W_K x")
    assert lab_weights().W_Q.shape == (8, 8) and lab_attention(LAB_SENTENCES["gato"]).steps.d_k == 8
    default = scene(DEFAULT)
    assert step(default, "queries").caption.startswith("q = W_Q x")
    assert [record.key for record in default.steps for text in record.texts
            if re.search(r"X\s*W_[QKV]", text.text)] == ["queries"]


@pytest.mark.parametrize("name, lit", [("gato", "gato"), ("red causal", "red"), ("longest", None)])
def test_the_panel_names_the_labs_three_sentences_and_lights_the_chosen_one(scene, name, lit):
    selector = scene(name).panel.selector
    names = [chip[1].shown_text for chip in selector.chips]
    assert names == ["gato", "red", "atención"]
    assert [chip[0].get_fill_opacity() > 0.5 for chip in selector.chips] == [chip_name == lit for chip_name in names]
    assert selector.title.shown_text == ("Oración" if lit else "Oración: una propia")
    assert {"gato", "red", "atención"} <= {text.text for text in step(scene(name), "embeddings").texts}


# The lab's sentences as Spanish writes them: the lab types them without accents.
SPELLED_SENTENCES = ("el gato se sienta en la mesa", "la red neuronal aprende rápido",
                     "atención es todo lo que necesitas")
WORD = re.compile(r"[^\W\d_]+")


def without_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c)).lower()


def misspelled(run) -> list[str]:
    """Words of the lab's sentences written without their accent on screen, in a caption or in the narration
    ("atencion" for "atención"; "que" stays "que" there, "qué" elsewhere)."""
    spelling = {without_accents(word): word for sentence in SPELLED_SENTENCES for word in sentence.split()}
    accented = {bare for bare, word in spelling.items() if word != bare}
    texts = [(record.key, text.text) for record in run.steps for text in record.texts]
    texts += [(record.key, record.caption) for record in run.steps]
    texts += [(record.key, record.narration.get("text", "")) for record in run.steps]
    return [f"{key}: {word!r} in {text!r}" for key, text in texts for word in WORD.findall(text)
            if word.lower() in accented]


@pytest.mark.parametrize("name", LAB_RUNS)
def test_the_labs_words_are_shown_with_their_accents(scene, name):
    """The lab types «atencion» and «rapido»; the screen, the captions and the narration write Spanish (the
    numbers are still the lab's, checked on these runs above)."""
    run = scene(name)
    assert misspelled(run) == []
    sentence = next(spelled for spelled in SPELLED_SENTENCES if without_accents(spelled) == RUNS[name].sentence)
    assert set(sentence.split()) <= {text.text for text in step(run, "embeddings").texts}


@pytest.mark.parametrize("name, features", [
    ("gato", [f"dim {number}" for number in range(8)]),
    ("sharp", ["determinante", "sustantivo", "verbo", "pronombre", "otra", "posición/10", "(posición/10)²", "1"])])
def test_the_embedding_bars_are_labelled_with_their_features(scene, name, features):
    """Step 1 names the embedding's d numbers, top to bottom as its bars, and only step 1 (Q and K have none)."""
    texts = {text.text: text for text in step(scene(name), "embeddings").texts}
    assert set(features) <= set(texts)
    heights = [(texts[feature].top + texts[feature].bottom) / 2 for feature in features]
    assert heights == sorted(heights, reverse=True)
    assert not set(features) & {text.text for text in step(scene(name), "queries").texts}


def test_feature_names_sit_level_with_their_bars_left_of_the_first_vector():
    from scenes.vector_stage import VectorStage
    X = np.array(literal_lab(LAB_SENTENCES["gato"], 1.0, False)["X"])
    names = [f"dim {number}" for number in range(8)]
    stage = VectorStage(LAB_SENTENCES["gato"].split(), [(X, style.INPUT, "X")], 9.0, 5.0, features=names)
    first = stage.rows[0].vectors[0]
    assert [label.shown_text for label in stage.features] == names
    for label, bar in zip(stage.features, first.bars):
        assert abs(label.get_y() - bar.get_y()) < 0.02 and label.get_right()[0] < first.get_left()[0]
    assert stage.rows[0].name.get_right()[0] < stage.features.get_left()[0]


def test_temperature_and_designed_weights_are_explained_before_they_are_used(scene):
    """No T on screen before step 5, whose caption says what the lab's temperature does; the designed weights
    are named first in the step whose caption says what they are."""
    default = scene(DEFAULT)
    assert "T" not in "".join(part.tex_string for part in default.panel.equation)  # the lab's panel equation
    first_t = next(record for record in default.steps
                   if any("T =" in text.text or r"\, T" in text.text for text in record.texts))
    assert first_t.key == "scaled"
    assert "la temperatura del lab" in first_t.caption and "concentra" not in first_t.caption
    first_designed = next(record for record in default.steps
                          if any("diseñados" in text.text for text in record.texts if text.text != record.caption))
    assert first_designed.key == "presets" and "escritos a mano" in first_designed.caption


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
    np.testing.assert_allclose(in_output, [row.max()])  # the same lines again: recalled by their top note
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
    most = max(np.abs(scores).max(), np.abs(scaled[np.isfinite(scaled)]).max())
    # the scale ends at the smallest round value (1, 2, 2.5, 5 times a power of ten) that covers every score
    largest = min(step * 10.0 ** power for power in range(-3, 4) for step in (1, 2, 2.5, 5)
                  if step * 10.0 ** power >= most)
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
    for key in ("scores", "scaled"):  # the bar's end ticks cover every score: no cell is past the legend
        close(shown(shown_scene, key, "score_legend"), [[-largest, 0.0, largest]])
        assert largest >= most
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


@pytest.mark.parametrize("name", ["gato", "sharp", "longest"])
def test_the_uniform_line_is_named_inside_the_plot_at_its_end(scene, name):
    """«uniforme» at the right end of its dashed line, inside the plot's axes (it stood past the axis' end, at the
    frame's edge: issue 43), at the height of 1/n of the query's row (n the keys it sees)."""
    run = RUNS[name]
    plot, texts = scene(name).plot, step(scene(name), "temperature_plot").texts
    label = next(text for text in texts if text.text == "uniforme")
    (left, bottom, _), (right, top, _) = plot.axes.get_corner(DL), plot.axes.get_corner(UR)
    assert left < label.left and label.right <= right + 1e-6 and bottom < label.bottom and label.top < top
    visible = run.query + 1 if run.causal else len(run.sentence.split())
    line_y = plot.point(0, 1 / visible)[1]
    assert abs((label.top if label.top < line_y else label.bottom) - line_y) < 0.2


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


def sharp_by_hand() -> np.ndarray:
    """The designed preset's weights on «el gato se sienta en la mesa» at T = 1 from its closed form
    (tests/test_lab.py), not from attn_math."""
    n = len(GATO_ROLES)
    return np.array([softmax_by_hand([sharp_score_by_hand(GATO_ROLES, i, j) / 2 for j in range(n)])
                     for i in range(n)])


@pytest.mark.parametrize("name, article, noun", [("gato", 0, 1), ("red causal", 0, 1)])
def test_exercise_one_on_both_presets_the_lab_cannot_show_it_the_designed_can(scene, name, article, noun):
    """The article's row on the lab's weights and on the designed ones: «el» → «gato» is no larger than the rest
    of a flat row in the lab, and the designed row's maximum."""
    run = RUNS[name]
    lab = np.array(literal_lab(run.sentence, run.temperature, False)["weights"])  # exercise 1: no mask
    designed = preset_attention("sharp", run.sentence, run.temperature, False).weights
    if name == "gato":
        np.testing.assert_allclose(designed, sharp_by_hand(), atol=1e-12)
    close(shown(scene(name), "article", "article_lab"), [[lab[article, noun], lab[article].max()]])
    close(shown(scene(name), "article", "article_sharp"), [[designed[article, noun], designed[article].max()]])
    assert designed[article].argmax() == noun and lab[article, noun] < 0.5 < designed[article, noun]
    caption = step(scene(name), "article").caption
    tokens = run.sentence.split()
    assert caption.startswith("Ejercicio 1") and "no pueden mostrarlo" in caption
    assert f"«{tokens[article]}» da {lab[article, noun]:.2f} a «{tokens[noun]}»" in caption
    assert f"{designed[article, noun]:.2f}" in caption


def test_exercise_one_says_when_the_sentence_has_no_article(scene):
    caption = step(scene("atencion hot"), "article").caption
    assert caption.startswith("Ejercicio 1") and "no tiene un artículo" in caption


@pytest.mark.parametrize("name", ["gato", "sharp"])
def test_compared_rows_sound_one_after_the_other_with_their_pictures(scene, name):
    """The lab's row and the designed one (presets, exercise 1) are chords of 1 s: each starts as its map or
    readout appears, the second after the first has ended, never together."""
    run = scene(name)
    for key in ("presets", "article"):
        record = step(run, key)
        rows = [cue for cue in run.cues if cue.kind == "row" and record.start <= cue.time < record.end]
        assert [cue.values["version"] for cue in rows] == ["lab", "sharp"]
        assert rows[1].time - rows[0].time >= 1.0


def test_output_caption_says_whether_the_outputs_differ(scene):
    for name in ("sharp", "gato"):
        expected = RUNS[name].attention()
        Z, V = expected.output, expected.steps.V
        widest = lambda M: max(np.linalg.norm(a - b) for a in M for b in M)  # noqa: E731
        caption = step(scene(name), "output").caption
        if name == "gato":  # uniform-ish weights: the seven outputs lie within a tenth of the values' spread
            assert widest(Z) < 0.1 * widest(V) and "como mucho" in caption  # how far apart, as written (review s12)
        else:
            row = expected.weights[1]
            assert widest(Z) > 0.5 * widest(V) and f"{row.max():.2f} viene de «el»" in caption


# The guide's exercises 5 and 6 ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["gato", "sharp"])
def test_exercises_5_and_6_are_answered_on_screen(scene, name):
    """Exercise 5: the run's √d_k against a d_k = 64 head's (the guide, for the lab's d_k = 8: ÷ √8 ≈ 2.83, and ÷ 8
    with 64); exercise 6: d = 512 in h = 8 heads gives d_k = 64, in 16 heads 32 (issue 43: neither was in the video)."""
    d_k = 8 if RUNS[name].preset == "lab" else 4  # the designed weights' d_k (attn_math.sharp)
    record = step(scene(name), "dimensions")
    rows = [[parse_number(text) for text in row if text is not None] for row in record.numbers["exercise_5"]]
    np.testing.assert_allclose(rows[0] + rows[1] + rows[2],
                               [d_k, np.sqrt(d_k), 512 / 8, np.sqrt(512 / 8), np.sqrt(64 / d_k)], atol=ROUNDING)
    if name == "gato":  # the guide's own answers
        assert rows == [[8, 2.83], [64, 8], [2.83]]
    assert [[parse_number(text) for text in row if text is not None] for row in record.numbers["exercise_6"]] == \
        [[512], [8, 64], [16, 32]]
    assert f"√{d_k}" in record.caption and "d_k = 64" in record.caption


# The causal comparison (exercises 3 and 4) --------------------------------------------------------------
@pytest.mark.parametrize("name", LAB_RUNS)
def test_the_unmasked_weights_show_their_numbers_under_their_columns(scene, name):
    """«Sin máscara» is read as «Con máscara causal» is: its numbers (the weights without the mask, from the plain
    lab) and its columns named over it; its rows are the masked map's, named between the two (issue 43: it was
    colours only, nothing to compare the masked numbers with)."""
    run = RUNS[name]
    free = literal_lab(run.sentence, run.temperature, False)
    close(shown(scene(name), "causal", "weights_free"), free["weights"])
    comparison, texts = scene(name).comparison, step(scene(name), "causal").texts
    grid = comparison.free.matrix.cell_grid
    for token in scene(name).tokens:
        over_free = [text for text in texts if text.text == token and grid.get_left()[0] < (text.left + text.right) / 2
                     < grid.get_right()[0] and text.bottom > grid.get_top()[1]]
        assert len(over_free) == 1, token


@pytest.mark.parametrize("name", LAB_RUNS)
def test_comparison_counts_nulled_weights_and_compares_entropies(scene, name):
    run = RUNS[name]
    free, masked = run.attention(causal=False), run.attention(causal=True)
    n, fourth = len(free.tokens), 3
    causal = step(scene(name), "causal")
    np.testing.assert_array_equal(scene(name).comparison.free.matrix.values, free.weights)
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
    kinds = {"step": {"step"}, "connection": {"weight", "temperature", "peak", "key", "spacing"}, "reset": set(),
             "masked": {"before", "after"}, "entropy": {"rows", "free", "masked"}, "row": {"weights", "version"},
             "curve": {"values", "duration"}, "tokens": {"count"}, "values": {"values", "spacing", "low", "high"}}
    assert kinds.keys() == set(BY_ID["pipeline"].cue_kinds)  # the values of every kind the record says it plays
    for cue in gato.cues:  # a row's version only where two panels' rows are compared (steps 8-9); "replayed" on
        # the query's row among a matrix's rows (sonify.replay.key_cues), "row_spacing" on each of a matrix's rows
        # revealed one after another (sonify.mappings.heard_together)
        assert set(cue.values) - {"replayed", "row_spacing"} in (kinds[cue.kind], kinds[cue.kind] - {"version"})
        assert all(isinstance(value, (int, float, list, str)) for value in cue.values.values())
    marked = {kind: [cue for cue in gato.cues if cue.kind == kind and cue.values.get("replayed")]
              for kind in ("values", "row")}  # the query's row of each revealed matrix is the one replayed
    steps_of_run = gato.run.steps
    np.testing.assert_allclose([cue.values["values"] for cue in marked["values"]],
                               [steps_of_run.scores[gato.query], steps_of_run.scaled[gato.query]])
    np.testing.assert_allclose([cue.values["weights"] for cue in marked["row"]], [steps_of_run.weights[gato.query]])
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


PRODUCTS = {"W_Q", "W_K", "W_V", "x", "q", "k", "v", "Z", "V", "alpha"}  # the tags of the projections' products
# (scenes.pipeline_parts.projection), and of Z's rows written at step 7 to check «casi iguales» (review s9), beside
# the query's weights α and V that redo its row (review s14)


@pytest.mark.parametrize("name", ["sharp", "gato"])
def test_core_steps_last_their_reading_time(scene, name):
    """max(4 s, words / 2.5 + min(0.4 s per new number, 12 s)), counting the numbers a step adds to the screen (a
    matrix's numbers are scanned, not read one by one); but the projections' products (W, x and the query's q, k or
    v, review 06): there to be checked, not read, they leave the section's budgeted length as it was."""
    seen = set()
    for record in scene(name).steps[:7]:
        shown_now = {(tag, i, j) for tag, rows in record.numbers.items() if tag not in PRODUCTS
                     for i, row in enumerate(rows) for j, text in enumerate(row) if text is not None}
        new = shown_now - seen
        seen |= shown_now
        reading = max(4.0, len(record.caption.split()) / 2.5 + min(0.4 * len(new), 12.0))
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
    assert "Q: textos" in [text.text for text in step(longest, "keys").texts]


@pytest.mark.parametrize("name", LARGEST_RUNS)
def test_largest_configs_lay_out_read_at_720p_and_keep_moving(scene, name):
    """The largest configs (most tokens, longest words, both presets, custom d_k = 16, the mask, the coldest T,
    six temperatures): no overlap, nothing under 14 px cap height, each step its reading time, no still over 6 s."""
    assert lecture_problems(scene(name)) == []


def test_custom_weights_replace_the_presets():
    designed = load_config(overrides=("pipeline.preset='sharp'", "pipeline.W_V=" + str(identity_rows(3)))).pipeline
    np.testing.assert_array_equal(designed.lab_weights().W_Q, sharp_weights().W_Q)
    seeded = lab_weights()
    config = load_config(overrides=("pipeline.W_V=" + str(identity_rows(3)),)).pipeline  # the default: the lab's
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
    ("pipeline.W_Q=" + str(identity_rows(2)), "pipeline.W_Q"),  # the given W_Q is blamed: the preset's W_K has 8 rows
    ("pipeline.preset='random'", "pipeline.preset"),
    ("pipeline.W_V=[[1, 0, 0, 0, 0, 0, 0, 0, 0]]", "pipeline.W_V"),
])
def test_bad_values_are_refused_naming_the_key(override, key):
    with pytest.raises(ConfigError) as error:
        load_config(overrides=(override,))
    assert str(error.value).startswith(key + ":"), str(error.value)



# Row builds -----------------------------------------------------------------------------------------------
def outside_brackets(scene) -> list[str]:
    """Numbers of the section's matrices on screen now that lie outside every pair of brackets on screen."""
    family = {id(mobject) for mobject in scene.get_mobject_family_members()}
    matrices = [getattr(holder, "matrix", None) for holder in (getattr(scene, "scores", None),
                                                               getattr(scene, "scaled", None),
                                                               getattr(scene, "weights", None))]
    comparison = getattr(scene, "comparison", None)
    if comparison is not None:
        matrices += [comparison.masked_scores.matrix, comparison.masked.matrix]
    matrices = [matrix for matrix in matrices if matrix is not None and hasattr(matrix, "entries")]
    spans = [(pair[0].get_right()[0], pair[1].get_left()[0], pair[0].get_bottom()[1], pair[0].get_top()[1])
             for pair in (matrix.brackets for matrix in matrices) if all(id(part) in family for part in pair)]
    problems = []
    for matrix in matrices:
        for entry in (entry for row in matrix.entries for entry in row):
            if id(entry) not in family or entry.get_fill_opacity() < 0.05:
                continue
            inside = any(left - 1e-3 <= entry.get_left()[0] and entry.get_right()[0] <= right + 1e-3
                         and bottom <= entry.get_y() <= top for left, right, bottom, top in spans)
            if not inside:
                problems.append(f"{scene.steps[-1].key}: {matrix.name} {entry.shown_text!r} outside the brackets")
    return problems


@pytest.mark.parametrize("name", ROW_BUILD_RUNS)
def test_row_builds_stay_inside_their_brackets(scene, name):
    """After every animation of the section, each number of a matrix on screen lies inside brackets on screen:
    at step 6 (scaled scores -> weights) and in the causal comparison (masked scores -> weights) the narrower
    matrix's frame comes only after its wider rows have gone. (Checked as the module's run of ``name`` played.)"""
    scene(name)
    assert scene.outside_brackets[name] == []


def test_designed_weights_keep_the_thickness_caption_with_the_largest_weight(scene):
    """(Review item of test_review_pipeline, on this module's run of the designed weights: the default config
    but for the preset, test_the_default_is_the_labs_own_sentence_and_weights.)"""
    designed = scene("sharp")
    softmax = next(step for step in designed.steps if step.key == "softmax")
    row = preset_attention("sharp", RUNS["sharp"].sentence, 1.0, False).weights[1]
    assert "casi iguales" not in softmax.caption and f"{row.max():.2f}" in softmax.caption
    assert softmax.numbers["distribution"][0] == softmax.numbers["weights"][1]  # as the matrix writes its row
    temperature = next(step for step in designed.steps if step.key == "temperature")
    coldest = preset_attention("sharp", RUNS["sharp"].sentence, 0.2, False).max_weights[1]
    assert f"{coldest:.2f}" in temperature.caption and "diseñados" in temperature.caption
    assert "apenas" not in temperature.caption and "apenas" not in temperature.narration["text"]


# Review 43's pipeline items: every sentence, the designed weights when cold, the heads' trade-off, W's shapes -----
def test_exercise_4_is_read_on_each_of_the_labs_sentences(scene):
    """"Selecciona cada oración" / "en cada oración": the entropy step ends on a chart of every masked row's H (its
    numbers the literal lab's, tests/test_lab.py), the lab's other two sentences' rows as dots at their H on the same
    scale. (Review s10: the table of the three sentences, text only, became this picture; exercise 1's numbers are
    step 9's, with its reason under them.)"""
    sentences = list(LAB_SENTENCES.values())
    masked = [literal_lab(sentence, 1.0, True)["entropies"] for sentence in sentences]
    close(shown(scene(DEFAULT), "entropy", "entropy_rows"), [list(masked[0])])
    chart = scene(DEFAULT).entropy_stage[1]
    base, scale = chart.bars[0].get_bottom()[1], chart.bars[-1].height / masked[0][-1]
    heights = sorted((dot.get_y() - base) / scale for dot in chart.others)
    assert heights == pytest.approx(sorted(h for entropies in masked[1:] for h in entropies), abs=0.02)


@pytest.mark.parametrize("name", ["gato", "sharp"])
def test_the_guides_cold_claim_is_shown_with_designed_weights(scene, name):
    """Step 8 of the guide (T = 0.2: one or two tokens) is false on the lab's random weights (max 0.24); the caption's
    "eso pasa con pesos diseñados" is shown: the designed weights' largest in «gato»'s row at the coldest T, from
    their closed form (tests/test_lab.py: q_i · k_j, ÷ √4 · T), nearly one-hot. Not when the designed weights are
    the ones shown: their rows already say it."""
    numbers = step(scene(name), "temperature").numbers
    if name == "sharp":
        assert "designed_cold" not in numbers
        return
    coldest = min(RUNS[name].temperatures)
    row = softmax_by_hand([sharp_score_by_hand(GATO_ROLES, 1, j) / (2 * coldest) for j in range(len(GATO_ROLES))])
    close(shown(scene(name), "temperature", "designed_cold"), [[max(row)]])
    assert max(row) > 0.99
    assert "designed_cold" not in step(scene(name), "temperature_plot").numbers  # its place is exercise 2's values


@pytest.mark.parametrize("name", ["gato", "sharp"])
def test_exercise_6_trade_off_is_on_screen(scene, name):
    """Exercise 6: twice the heads, each narrower: the trade-off (specialisation against capacity per head) is
    written, not only said (review 43)."""
    texts = [text.text for text in step(scene(name), "dimensions").texts]
    assert any("especialización" in text and "capacidad por cabeza" in text for text in texts)


@pytest.mark.parametrize("name, d_k, d_v", [("gato", 8, 8), ("sharp", 4, 5)])
def test_the_projections_shapes_are_stated_where_they_appear(scene, name, d_k, d_v):
    """W_Q and W_K are d_k × d, W_V d_v × d in the lab's q = W_Q x (d = 8 embeddings; the lab's d_k = d_v = 8, the
    designed weights' 4 and 5: attn_math.sharp's docstring), stated in the captions of steps 2, 3 and 7."""
    assert f"W_Q de d_k × d = {d_k} × 8" in step(scene(name), "queries").caption
    assert f"W_K de d_k × d = {d_k} × 8" in step(scene(name), "keys").caption
    assert f"W_V de d_v × d = {d_v} × 8" in step(scene(name), "output").caption
