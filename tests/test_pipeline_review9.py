"""Review s9 (frames-b.md, «06 pipeline»): exercise 5's «la misma nitidez» measured on screen, the screen following
the voice where it stood still (the entropy readout, the article's noun, the sharpness), the guide's row convention
said once, Z written in numbers, and the transition artefacts (row names with no matrix, a replay light round a box
never drawn), the entropy bars named by their tokens' places."""

import math

import numpy as np
import pytest
from manim import Rectangle

from attn_math.lab import lab_embedding, lab_weights
from lesson.numbers import parse_number
from lesson.steps import StepRange
from tests.scene_checks import PacedSpeaker, recorded, render_video, video_stills

SENTENCE = ("el", "gato", "se", "sienta", "en", "la", "mesa")


@pytest.fixture(scope="module")
def spoken():
    """The scene at the narration's pace (a stand-in voice), every play logged."""
    return recorded("pipeline", narration=PacedSpeaker())


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def numbers(record, name) -> np.ndarray:
    return np.array([[parse_number(text) for text in row] for row in record.numbers[name]])


def plays_in(log, record):
    return [play for kind, play in log if kind == "play" and record.start <= play.start < record.end]


def first_play_with(log, record, name) -> float:
    """When the first play of ``record``'s step that brings a number tagged ``name`` starts."""
    return min(play.start for play in plays_in(log, record) if any(tag[0] == name for tag in play.tags()))


def said_at(record, words: str) -> float:
    """When the voice (at the stand-in's even pace) reaches ``words`` in the step's phrases."""
    for text, start, end, _ in record.narration["phrases"]:
        if words in text:
            before = len(text[:text.index(words)].split())
            return start + (end - start) * before / len(text.split())
    raise AssertionError(f"{words!r} is never said: {record.narration['phrases']}")


def mean_entropy(d_k: int, n_keys: int, rows: int = 20000) -> float:
    """Mean bits of softmax(K q / √d_k) over random rows, written out here from the definitions."""
    rng = np.random.default_rng(2026)
    total = 0.0
    for _ in range(rows // 1000):
        q = rng.normal(size=(1000, d_k))
        K = rng.normal(size=(1000, n_keys, d_k))
        scores = (K @ q[:, :, None])[:, :, 0] / math.sqrt(d_k)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        total += float(np.sum(-weights * np.log2(weights)))
    return total / rows


def test_exercise_5_shows_the_same_sharpness_in_numbers(spoken):
    """«÷ 2.83 → ÷ 8: la misma nitidez» was asserted, not shown. The screen gives the mean entropy of a row of 7 weights
    whose scores (random vectors) are divided by √d_k, at d_k = 8 and at d_k = 64: about equal (2.33 and 2.31 bits,
    recomputed here from the definitions), both well under the uniform's log₂ 7 = 2.81; they come as the voice says
    «la atención queda igual de nítida»."""
    scene, log = spoken
    record = step(scene, "dimensions")
    small, large = numbers(record, "exercise_5_sharpness")[0]
    assert small == pytest.approx(mean_entropy(8, len(SENTENCE)), abs=0.03)
    assert large == pytest.approx(mean_entropy(64, len(SENTENCE)), abs=0.03)
    assert abs(small - large) < 0.1 and max(small, large) < math.log2(len(SENTENCE)) - 0.3
    shown = min(play.start for play in plays_in(log, record) if ("exercise_5_sharpness", (0, 0)) in play.tags())
    assert shown == pytest.approx(said_at(record, "la atención queda igual"), abs=0.5)


def test_the_lab_rows_entropy_comes_with_its_number(spoken):
    """Step 8: the row's readout «H = 2.80 bits» came with «Sus pesos son aleatorios…», four seconds before the voice
    said 2.80, and nothing moved until the formula (review: 114.9-121.1 still). It lands as the voice reaches the
    sentence that says it."""
    scene, log = spoken
    record = step(scene, "presets")
    landed = first_play_with(log, record, "entropy_lab")
    assert 0 <= said_at(record, "2.80") - landed < 2.5


def test_the_designed_article_is_seen_looking_at_its_noun(spoken):
    """Step 9: «el artículo mira a su sustantivo» came over a finished screen (review: 149.0-156.2 still). As the voice
    says it, the noun's name over the designed map's column is framed: its row is framed, its weight ringed."""
    scene, log = spoken
    record = step(scene, "article")
    said = said_at(record, "el artículo mira a su sustantivo")
    heatmap = scene.preset_maps["sharp"]
    noun = heatmap.column_labels[SENTENCE.index("gato")]
    framed = [play for play in plays_in(log, record) if abs(play.start - said) < 0.5
              and any(isinstance(part, Rectangle) and part.get_center()[0] == pytest.approx(noun.get_center()[0])
                      and part.width > noun.width for animated in play.animated for part in animated.get_family())]
    assert framed, [(play.start, play.kinds) for play in plays_in(log, record)]


def test_the_guide_row_convention_is_said_once_on_screen(spoken):
    """Capital writes Q = X W_Q (rows, W_Q of d × d_k, guide §2.2); the pipeline draws q = W_Q x. Step 2 has one line
    saying the guide writes the same product in rows with the transpose; it leaves as K's row takes its place."""
    scene, _ = spoken
    queries = [text.text for text in step(scene, "queries").texts if "Q = X W" in text.text]
    assert len(queries) == 1 and "d × d" in queries[0], queries
    assert not [text.text for text in step(scene, "keys").texts if "Q = X W" in text.text]


def test_z_is_written_with_numbers_and_its_rows_are_almost_equal(spoken):
    """Step 7 says how far apart Z's rows are (it said «las 7 filas de Z salen casi iguales»): Z = softmax(QKᵀ/√8) V is on screen with its numbers
    (recomputed here from the lab's weights and embeddings), its rows within 0.05 of each other, from when the voice
    says so."""
    scene, log = spoken
    record = step(scene, "output")
    weights = lab_weights()
    X = np.array([lab_embedding(token, i) for i, token in enumerate(SENTENCE)])
    Q, K, V = X @ weights.W_Q.T, X @ weights.W_K.T, X @ weights.W_V.T  # the lab's W: d_k × d, q = W x
    scores = Q @ K.T / math.sqrt(Q.shape[1])
    A = np.exp(scores - scores.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    shown = numbers(record, "Z")
    np.testing.assert_allclose(shown, (A @ V)[:, :shown.shape[1]], atol=0.005 + 1e-9)  # its first columns (review s14)
    assert np.ptp(shown, axis=0).max() <= 0.05
    landed = first_play_with(log, record, "Z")
    # review s12: «casi iguales» became how far apart the rows are as written
    assert landed == pytest.approx(said_at(record, "y sus filas difieren"), abs=0.5)


def test_the_masked_row_names_come_with_their_matrix(spoken):
    """Step 12: the row names between the two maps came with the unmasked map, right of it with no matrix on their
    right for seconds (review: 216.0). They come with the masked scores they name."""
    scene, log = spoken
    names = scene.comparison.masked_scores.row_labels
    bringing = [play for play in plays_in(log, step(scene, "causal")) if play.shows(names[0])]
    assert bringing and bringing[0].shows(scene.comparison.masked_scores.matrix.cell_grid[0])


def test_the_entropy_step_moves_as_a_viewer_sees_it_at_720p(tmp_path):
    """Step 13 at 720p, measured as the reviews measure it (scaled to 640 x 360, frame to frame): the cells the first
    and the fourth token see lit as the voice names them were too faint a change to be seen (review: 243.2-252.6)."""
    _, video = render_video("pipeline", tmp_path, frame_rate=10, narration=PacedSpeaker(), steps=StepRange(13, 13),
                            pixels=(1280, 720))
    assert video_stills(video) == []
