"""Review s10 (frames-b.md, «06 pipeline», grade 8): the section ended on text. Step 13 is now a picture, the entropy
of every masked row as a bar in its frame of log₂ i (exercise 4's «por qué»: the context a token has); the designed
weights at the coldest temperature are a row of bars beside the lab's; step 8's lines have designed weights too;
transition artefacts in the side panel, the moving frame at 195 and the heads' box."""

import math

import numpy as np
import pytest

from attn_math.lab import LAB_SENTENCES, lab_embedding, lab_weights
from tests.test_pipeline_review9 import SENTENCE, numbers, plays_in, said_at, spoken, step  # noqa: F401 (spoken: a fixture)


def masked_entropies(tokens, temperature: float = 1.0) -> np.ndarray:
    """H of each row of softmax(QKᵀ/(√d_k T) + causal mask), in bits, written out here from the lab's weights."""
    weights = lab_weights()
    X = np.array([lab_embedding(token, i) for i, token in enumerate(tokens)])
    Q, K = X @ weights.W_Q.T, X @ weights.W_K.T
    scores = Q @ K.T / (math.sqrt(Q.shape[1]) * temperature)
    scores[np.triu_indices(len(tokens), 1)] = -np.inf
    A = np.exp(scores - scores.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nansum(np.where(A > 0, A * np.log2(A), 0.0), axis=1)


def test_exercise_4_is_a_picture_of_every_rows_entropy_against_log2_i(spoken):
    """Step 13 collapsed into a three-row text table (review: 240.5-265.0). Its end is a chart: every masked row's
    entropy written over its bar (recomputed here), bars as tall as their numbers on one scale, each inside a frame
    as tall as log₂ i, the most that row can spread over the i tokens it sees; the bars grow from «el» to «mesa»."""
    scene, _ = spoken
    record = step(scene, "entropy")
    expected = masked_entropies(SENTENCE)
    shown = numbers(record, "entropy_rows")[0]
    np.testing.assert_allclose(shown, expected, atol=0.005 + 1e-9)
    chart = scene.entropy_stage[1]
    heights = np.array([bar.height for bar in chart.bars])
    scale = heights[-1] / expected[-1]
    np.testing.assert_allclose(heights[1:], expected[1:] * scale, rtol=0.02)
    limits = np.array([limit.height for limit in chart.limits[1:]])
    np.testing.assert_allclose(limits, np.log2(np.arange(2, len(SENTENCE) + 1)) * scale, rtol=0.02)
    assert np.all(np.diff(expected) > 0) and np.all(np.diff(heights) > 0)
    assert all(bar.get_bottom()[1] == pytest.approx(chart.bars[0].get_bottom()[1], abs=1e-3) for bar in chart.bars)


def test_the_other_lab_sentences_rows_sit_on_the_same_scale(spoken):
    """«en cada oración»: the lab's two other sentences' masked rows as dots at their entropies, on the bars' scale."""
    scene, _ = spoken
    chart = scene.entropy_stage[1]
    base = chart.bars[0].get_bottom()[1]
    scale = chart.bars[-1].height / masked_entropies(SENTENCE)[-1]
    others = [tuple(s.split()) for s in LAB_SENTENCES.values() if tuple(s.split()) != SENTENCE]
    expected = sorted(float(h) for tokens in others for h in masked_entropies(tokens))
    heights = sorted((dot.get_y() - base) / scale for dot in chart.others)
    np.testing.assert_allclose(heights, expected, atol=0.02)


def designed_row(tokens, query: int, temperature: float) -> np.ndarray:
    """The designed weights' row of ``query``: softmax(q·K/(√d_k T)) from attn_math.sharp's features and weights."""
    from attn_math.sharp import sharp_features, sharp_weights
    weights = sharp_weights()
    X = sharp_features(tokens)
    q, K = weights.W_Q @ X[query], X @ weights.W_K.T
    scores = K @ q / (math.sqrt(len(q)) * temperature)
    row = np.exp(scores - scores.max())
    return row / row.sum()


def test_the_designed_weights_at_the_coldest_temperature_are_a_row_of_bars(spoken):
    """Step 10: «pesos diseñados, T = 0.20: máx. = 1.00» was one line of text (review: 189.3). Under it, the row of
    «gato» with the designed weights at T = 0.2 as bars (recomputed here), each in a frame of weight 1: one token, «el»,
    takes the row, the guide's «1-2 tokens»; below the plot, not over it."""
    scene, _ = spoken
    expected = designed_row(SENTENCE, SENTENCE.index("gato"), 0.2)
    row = scene.designed_cold[1]
    chart = row.chart
    heights = np.array([bar.height for bar in chart.bars])
    slot = chart.slots[0].height
    np.testing.assert_allclose(heights, expected * slot, atol=0.01 * slot)
    assert expected.max() > 0.95 and [name.text for name in chart.labels] == [SENTENCE[int(np.argmax(expected))]]
    assert chart.get_top()[1] < scene.plot.get_bottom()[1] and row.readout.get_top()[1] < scene.plot.get_bottom()[1]


def test_exercise_1s_why_is_written_under_its_numbers(spoken):
    """Step 9: with the numbers «el» → «gato»: 0.67, the reason why (the article's query looks for the noun) was
    voice only, and step 13's table had the article's numbers without it. Under each side's readout its reason lands
    as the voice gives the verdict: the designed one's as it says «el artículo mira a su sustantivo»."""
    scene, log = spoken
    record = step(scene, "article")
    stage = scene.presets_stage
    labels = scene.strings["labels"]
    for k, preset in enumerate(("lab", "sharp")):
        why = next(part for part in stage.rings.get_family() if getattr(part, "text", None) is not None
                   and part.text.replace(" ", "") == labels[f"article_why_{preset}"].replace(" ", ""))
        readout = stage.readouts[k]
        assert why.get_top()[1] < readout.get_bottom()[1] and abs(why.get_x() - readout.get_x()) < 0.05
    said = said_at(record, "el artículo mira a su sustantivo")
    brought = [play.start for play in plays_in(log, record) if play.shows(why)]
    assert brought and abs(brought[0] - said) < 0.5, (brought, said)


def test_a_panel_value_fades_in_only_once_its_placeholder_has_gone():
    """Step 6 (review: 77.5-78.0): the side panel's «n/d» faded out while «2.80 bits» and «0.16» faded in, over the
    whole play: both stood one over the other. At every moment of the play, one of the two is (almost) invisible, and
    the swap is over within its first second."""
    from manim.animation.animation import prepare_animation

    from scenes.fades import Appear
    from scenes.lesson_scene import LessonScene
    from tests.scene_checks import PacedSpeaker, run_scene

    swaps, play = [], LessonScene.play

    def logged(self, *animations, **options):
        prepared = [prepare_animation(animation) for animation in animations]
        blanks = [a for a in prepared if not isinstance(a, Appear)
                  and any(getattr(part, "text", None) == self.labels["not_yet"] for part in a.mobject.get_family())]
        values = [a for a in prepared if isinstance(a, Appear)
                  and any(tag in ("entropy", "d_k", "max_weight") for tag in tags_of(a.mobject))]
        if blanks and values:
            swaps.append((blanks, values, options.get("run_time", 1.0)))
        play(self, *prepared, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", logged)
        run_scene("pipeline", narration=PacedSpeaker())
    assert len(swaps) == 2, swaps  # d_k at step 1, entropy and max weight at step 6
    for blanks, values, seconds in swaps:
        for alpha in np.linspace(0, 1, 201):
            gone = min(blank.rate_func(alpha) for blank in blanks)  # the blank's fade to 0: 1 when gone
            shown = max(value.rate_func(alpha) for value in values)
            assert shown < 0.05 or gone > 0.95, (alpha, shown, gone)
        assert all(value.rate_func(min(1.0, 1.0 / seconds)) > 0.99 for value in values)


def tags_of(mobject) -> set:
    return {getattr(part, "tag", (None,))[0] for part in mobject.get_family() if hasattr(part, "tag")}


def test_no_frame_slides_across_the_temperature_readouts(spoken):
    """Step 11 (review: 195): the frame reading the rows' largest weights out slid from row to row and cut through
    «H = 2.80 bits» between. No white frame moves in that step: each lands where it is read, the one before leaves."""
    from manim import Rectangle, Transform

    scene, log = spoken
    record = step(scene, "temperature_plot")
    moved = [play.start for play in plays_in(log, record) for animation in play.animations
             if type(animation) is Transform and isinstance(animation.mobject, Rectangle)]  # a frame moved
    framed = [play.start for play in plays_in(log, record) if any(
        isinstance(part, Rectangle) and any(part.get_center()[1] == pytest.approx(row.readout.get_y(), abs=0.05)
                                            for row in scene.temperature_rows)
        for animated in play.animated for part in animated.get_family())]
    assert not moved and len(framed) >= 3, (moved, framed)


def test_the_dimensions_frames_are_drawn_whole_at_once_and_clear_of_the_digits(spoken):
    """Step 14 (review: 290): the frame round «h = 8 cabezas → d_k = 64» was drawn over its whole phrase, open at a
    corner for seconds, and touched the «64». Each frame round the line the voice is on is whole within 0.5 s of its
    phrase's start, and stands at least 0.15 clear of the line's ends."""
    from manim import Create, SurroundingRectangle

    scene, log = spoken
    record = step(scene, "dimensions")
    drawn = [(play, animation) for play in plays_in(log, record) for animation in play.animations
             if isinstance(animation, Create) and isinstance(animation.mobject, SurroundingRectangle)]
    assert len(drawn) == len(scene.pointers), [play.start for play, _ in drawn]
    for play, animation in drawn:  # the frame, and every piece the phrase brings with it
        seconds = play.end - play.start
        for piece in play.animations:
            assert piece.rate_func(min(1.0, 0.5 / seconds)) > 0.99, (play.start, seconds, type(piece).__name__)
    for phrase, frame in scene.pointers.items():
        target = scene.pointed[phrase]
        assert frame.get_right()[0] - target.get_right()[0] >= 0.15 and target.get_left()[0] - frame.get_left()[0] >= 0.15


def test_the_designed_rows_lines_are_as_thick_as_their_weights(spoken):
    """Step 6's lines all looked alike (the lab's weights 0.12-0.16), so «grosor refleja el peso» (guide §3.1) could not
    be seen. Over the designed map, «gato»'s row (step 8) and the article «el»'s (step 9) are drawn as arcs from the
    token's column name to each other token's, as thick as the weight (recomputed here), by the rule of the lab's
    lines: the thickest to «el» for «gato», to «gato» for «el»."""
    from manim import ArcBetweenPoints, Create

    from scenes.weight_views import WIDEST_LINE

    scene, log = spoken
    names = scene.preset_maps["sharp"].column_labels
    for key, row in (("presets", "gato"), ("article", "el")):
        arcs = list({id(part): part for play in plays_in(log, step(scene, key)) for animation in play.animations
                     if isinstance(animation, Create)
                     for part in animation.mobject.get_family() if isinstance(part, ArcBetweenPoints)}.values())
        weights = designed_row(SENTENCE, SENTENCE.index(row), 1.0)
        expected = {j: w for j, w in enumerate(weights) if j != SENTENCE.index(row) and w >= 0.005}
        assert len(arcs) == len(expected), (key, len(arcs), expected)
        ends = {}
        for arc in arcs:
            far = arc.points[-1] if abs(arc.points[0][0] - names[SENTENCE.index(row)].get_x()) < 0.05 else arc.points[0]
            j = int(np.argmin([abs(far[0] - name.get_x()) for name in names]))
            ends[j] = arc.get_stroke_width()
            assert arc.get_bottom()[1] > max(name.get_top()[1] for name in names)  # over the names, not the numbers
        for j, weight in expected.items():
            assert ends[j] == pytest.approx(max(0.75, WIDEST_LINE * weight), rel=0.01)
        assert max(ends, key=ends.get) == int(np.argmax([w if j != SENTENCE.index(row) else 0
                                                          for j, w in enumerate(weights)]))
    # gone with the maps: none stays over the steps after (they stood over the temperature plot and step 13's title)
    assert not [part for mobject in scene.mobjects for part in mobject.get_family() if isinstance(part, ArcBetweenPoints)]


def test_the_masked_maps_are_gone_before_the_entropy_chart_comes(spoken):
    """Step 13 (review s10's rule for what replaces what): the maps faded out while the rows' chart faded in over them,
    its names over their numbers. In that play the chart starts to show only once the maps are gone."""
    from scenes.fades import Appear, Vanish

    scene, log = spoken
    chart = scene.entropy_stage[1]
    play = next(play for play in plays_in(log, step(scene, "entropy"))
                if any(isinstance(a, Appear) and chart.title in a.mobject.get_family() for a in play.animations))
    leaving = [a for a in play.animations if isinstance(a, Vanish)]
    coming = [a for a in play.animations if isinstance(a, Appear)]
    assert leaving and coming
    for alpha in np.linspace(0, 1, 101):
        if max(a.rate_func(alpha) for a in coming) > 0.02:
            assert min(a.rate_func(alpha) for a in leaving) > 0.98, alpha
