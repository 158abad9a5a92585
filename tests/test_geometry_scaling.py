"""The scaling section's two pictures, measured on the built mobjects against numpy written here.

* ``spread``: the cloud's dots are the first draws of q · k (their values read back off the axis), their spread
  grows like √d_k and comes back to about 1 once divided by √d_k; the bracket marks ± the table's deviation.
* ``exponentiate`` (scenes.softmax_moves): the bars stand at the scores, then at e^x / e^{max x}, then at
  e^x / Σ e^x, which sum to 1; each sound lands with its picture.
Both at the default config and at the largest one ScalingConfig allows.
"""

import math

import numpy as np
import pytest
from manim import Scene, tempconfig

from lesson.numbers import format_number, parse_number
from scenes.lesson_scene import LessonScene
from scenes.scaling import CLOUD_POINTS, GROWTH, DividedStrips, ScalingScene, ScoreCloud
from scenes.softmax_moves import DEPTH_SHARE, SoftmaxMoves
from tests.scene_checks import CACHE, TINY, run_scene

LARGEST = ("scaling.d_k=4096", "scaling.n_keys=16", "scaling.seed=4294967295")
BAR_TOLERANCE = 2e-3  # of the unit height: a bar of 0 is drawn as a hairline


def pictures(*overrides):
    """The scene run with, as each play of the two steps lands, what its picture shows: (step key, dict)."""
    shots = []
    original = LessonScene.play

    def play(scene, *animations, **kwargs):
        original(scene, *animations, **kwargs)
        key = scene.steps[-1].key if scene.steps else None
        for mobject in scene.mobjects:
            if isinstance(mobject, SoftmaxMoves):
                # the row that follows the bars: the scores before any move, then the second row
                label, row = (mobject.score_label, mobject.scores) if mobject.state == 0 else \
                    (mobject.row_label, mobject.numbers)
                shots.append((key, {"moves": mobject.state, "heights": mobject.heights(), "unit": mobject.unit,
                                    "label": label.get_tex_string(), "time": scene.renderer.time,
                                    "numbers": [parse_number(text.shown_text) for text in row],
                                    "scores": [parse_number(text.shown_text) for text in mobject.scores],
                                    "sum": parse_number(mobject.sum.shown_text) if mobject.state else None}))
            if isinstance(mobject, ScoreCloud):
                centre = mobject.bracket[0].get_center()[0]
                shots.append((key, {"cloud": mobject.label.get_tex_string(), "time": scene.renderer.time,
                                    "values": np.array([mobject.value_of(dot.get_x()) for dot in mobject.dots]),
                                    "bracket": mobject.value_of(centre + mobject.bracket[0].get_length() / 2)}))
        strips = getattr(scene, "cloud", None)
        if key == "spread" and isinstance(strips, DividedStrips):
            # the divided clouds side by side (review 12): each strip on screen, its dots and bracket read back
            shown = {id(part) for top in scene.mobjects for part in top.get_family()}
            shots.append((key, {"strips": strips.label.get_tex_string(), "time": scene.renderer.time, "shown": {
                d_k: (np.array([strips.value_of(dot.get_x()) for dot in dots]),
                      strips.value_of(bracket[0].get_right()[0]))
                for d_k, (dots, bracket, _) in strips.strips.items() if id(dots[0]) in shown}}))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LessonScene, "play", play)
        scene = run_scene("scaling", *overrides)
    return scene, shots


@pytest.fixture(scope="module", params=[(), LARGEST], ids=["default", "largest"])
def watched(request):
    return pictures(*request.param)


def row_scores(d_k, n_keys, seed):
    """One query against n_keys keys, components N(0, 1) drawn as the lesson says (query in column 0)."""
    components = np.random.default_rng(seed).standard_normal((d_k, 1 + n_keys))
    return components[:, 1:].T @ components[:, 0]


def exponentiated_row(settings) -> np.ndarray:
    """The row the exponentiate step takes through the softmax: the configured d_k's while its softmax shares (its
    largest weight at most 0.9: dividing by the sum then visibly lowers the tallest bar), else that of the largest
    d_k shown below it whose softmax does."""
    def sharing(x):
        return np.max(np.exp(x - x.max()) / np.sum(np.exp(x - x.max()))) <= 0.9

    rows = {d_k: row_scores(d_k, settings.n_keys, settings.seed) for d_k in sorted({*GROWTH, settings.d_k})
            if d_k <= settings.d_k}
    shared = [d_k for d_k, x in rows.items() if sharing(x)]
    return rows[max(shared, default=settings.d_k)]


def cloud_scores(d_k, seed, count=CLOUD_POINTS):
    """The first ``count`` pairs q, k ~ N(0, I) of the seed, pair after pair, and their dot products."""
    pairs = np.random.default_rng(seed).standard_normal((count, 2, d_k))
    return np.sum(pairs[:, 0] * pairs[:, 1], axis=1)


def assert_written(shown, expected):
    """Equal to the precision written: two decimals, one past 10, none past 100."""
    assert len(shown) == len(expected)
    for value, truth in zip(shown, expected):
        precision = 0.005 if abs(truth) < 9.995 else 0.05 if abs(truth) < 99.95 else 0.5
        assert abs(value - truth) <= precision + 1e-9, (shown, list(expected))


def test_both_steps_are_in_the_step_records_in_reading_order(watched):
    scene, _ = watched
    keys = [record.key for record in scene.steps]
    assert keys == list(ScalingScene.STEPS)
    assert keys.index("variance") < keys.index("spread") < keys.index("growing")
    assert keys.index("growing") < keys.index("exponentiate") < keys.index("scaled")


def test_the_bars_stand_at_the_scores_then_e_to_the_x_then_the_softmax(watched):
    scene, shots = watched
    settings = scene.settings
    x = exponentiated_row(settings)
    states = {shot["moves"]: shot for key, shot in shots if key == "exponentiate" and "moves" in shot}
    assert set(states) == {0, 1, 2}
    # before: signed bars proportional to the scores, the largest |x| reaching DEPTH_SHARE of the unit
    scores = states[0]["heights"]
    assert scores == pytest.approx(x / np.abs(x).max() * DEPTH_SHARE, abs=BAR_TOLERANCE)
    assert_written(states[0]["numbers"], x)
    # exponentiate: e^x on the scale e^{max x} = 1, which the row's label says
    exponentials = np.exp(x - x.max())
    assert states[1]["heights"] == pytest.approx(exponentials, abs=BAR_TOLERANCE)
    assert max(states[1]["heights"]) == pytest.approx(1.0, abs=1e-6)
    assert f"e^{{{format_number(x.max()).replace(chr(0x2212), '-')}}}" in states[1]["label"]
    assert_written(states[1]["numbers"], exponentials)
    assert_written([states[1]["sum"]], [np.sum(exponentials)])  # what every bar is divided by next
    # normalise: every bar divided by the same sum, and now they total 1
    weights = np.exp(x - x.max()) / np.sum(np.exp(x - x.max()))
    assert states[2]["heights"] == pytest.approx(weights, abs=BAR_TOLERANCE)
    assert sum(states[2]["heights"]) == pytest.approx(1.0, abs=len(x) * BAR_TOLERANCE)
    shrink = states[2]["heights"][np.argmax(x)] / states[1]["heights"][np.argmax(x)]
    assert shrink == pytest.approx(1 / np.sum(exponentials), rel=1e-3)
    assert_written(states[2]["numbers"], weights)
    assert_written(states[2]["scores"], x)  # the scores stay under the bars
    assert states[2]["sum"] == 1.0


def test_the_large_unscaled_scores_leave_one_bar_standing(watched):
    """The section's point, at its d_k: without scaling, one weight takes nearly everything."""
    scene, _ = watched
    settings = scene.settings
    x = row_scores(settings.d_k, settings.n_keys, settings.seed)
    growing = next(step for step in scene.steps if step.key == "growing")
    weights = np.exp(x - x.max()) / np.sum(np.exp(x - x.max()))
    assert [float(text) for text in growing.numbers["weights_unscaled"][0]] == pytest.approx(weights, abs=0.005)
    if settings.d_k == 64:  # the default's collapse
        assert weights.max() > 0.99


def test_each_move_of_the_exponentiate_step_visibly_moves_the_bars(watched):
    """The step earns its time: e^x, then the division by the sum, each move a bar by a tenth of the unit at least
    (a row that is one-hot already would stand still through the second move)."""
    _, shots = watched
    states = {shot["moves"]: shot for key, shot in shots if key == "exponentiate" and "moves" in shot}
    assert np.abs(states[1]["heights"] - states[0]["heights"]).max() >= 0.1
    assert np.abs(states[2]["heights"] - states[1]["heights"]).max() >= 0.1


def test_the_cloud_is_the_draws_and_widens_like_root_d_k_then_comes_back_to_one(watched):
    scene, shots = watched
    settings = scene.settings
    dimensions = sorted({*GROWTH, settings.d_k})
    clouds = [shot for key, shot in shots if key == "spread" and "cloud" in shot]
    # one landed screen per change: each raw d_k, then each divided, from the widest back to the narrowest
    changes, seen = [], None
    for shot in clouds:
        if seen is None or not np.array_equal(shot["values"], seen):
            changes.append(shot)
            seen = shot["values"]
    assert len(changes) == len(dimensions)
    raw = changes
    for d_k, shot in zip(dimensions, raw):
        drawn = cloud_scores(d_k, settings.seed)
        reach = max(abs(shot["values"]).max(), 1.0)
        assert shot["values"] == pytest.approx(drawn, abs=2e-3 * reach)
        assert np.std(shot["values"]) == pytest.approx(math.sqrt(d_k), rel=0.12)
        assert shot["bracket"] == pytest.approx(math.sqrt(d_k), rel=0.06)
        assert "sqrt" not in shot["cloud"]
    spreads = [np.std(shot["values"]) for shot in raw]
    assert spreads == sorted(spreads)
    # divided (review 12): one strip a d_k joins the others, from the widest back to the narrowest, and stays
    strips = [shot for key, shot in shots if key == "spread" and "strips" in shot]
    joined = []
    for shot in strips:
        joined += [d_k for d_k in shot["shown"] if d_k not in joined]
        assert "sqrt{d_k}" in shot["strips"]
    assert joined == list(reversed(dimensions))
    for d_k, (values, bracket) in strips[-1]["shown"].items():
        drawn = cloud_scores(d_k, settings.seed) / math.sqrt(d_k)
        assert values == pytest.approx(drawn, abs=2e-3 * max(abs(drawn).max(), 1.0))
        assert np.std(values) == pytest.approx(1.0, rel=0.12)
        assert bracket == pytest.approx(1.0, rel=0.06)


def test_the_new_column_is_the_deviation_over_root_d_k_beside_the_table(watched):
    scene, _ = watched
    record = next(step for step in scene.steps if step.key == "spread")
    table = [[parse_number(text) for text in row] for row in record.numbers["table"]]
    column = [parse_number(row[0]) for row in record.numbers["scaled_table"]]
    assert len(column) == len(table)
    for (d_k, root, deviation), scaled in zip(table, column):
        assert root == pytest.approx(math.sqrt(d_k), abs=0.05)
        assert scaled == pytest.approx(deviation / root, abs=0.02)
        assert scaled == pytest.approx(1.0, abs=0.05)


def test_each_number_sounds_as_its_picture_lands(watched):
    """spread: a deviation's blip as the cloud reaches it (raw, then divided); exponentiate: the exponentials'
    blips as the bars reach e^x, the softmax row as they reach the weights."""
    scene, shots = watched
    settings = scene.settings
    dimensions = sorted({*GROWTH, settings.d_k})
    spread = next(step for step in scene.steps if step.key == "spread")
    blips = [cue for cue in scene.cues if cue.kind == "cell" and spread.start <= cue.time <= spread.end]
    assert [(cue.values["d_k"], cue.values["scaled"]) for cue in blips] == \
        [(d_k, False) for d_k in dimensions] + [(d_k, True) for d_k in reversed(dimensions)]
    landed = {shot["time"] for key, shot in shots if key == "spread"}
    assert all(any(abs(cue.time - time) < 1e-6 for time in landed) for cue in blips)
    for cue in blips:
        assert cue.values["value"] == pytest.approx(1.0 if cue.values["scaled"] else math.sqrt(cue.values["d_k"]),
                                                    rel=0.06)
    x = exponentiated_row(settings)
    moved = {}  # when each state first shows: the play that made it has landed
    for key, shot in shots:
        if key == "exponentiate" and "moves" in shot:
            moved.setdefault(shot["moves"], shot["time"])
    step = next(record for record in scene.steps if record.key == "exponentiate")
    values = [cue for cue in scene.cues if cue.kind == "values" and step.start <= cue.time <= step.end]
    rows = [cue for cue in scene.cues if cue.kind == "row" and step.start <= cue.time <= step.end]
    assert len(values) == len(rows) == 1
    assert values[0].time == pytest.approx(moved[1]) and rows[0].time == pytest.approx(moved[2])
    assert values[0].values["values"] == pytest.approx(np.exp(x - x.max()))
    assert rows[0].values["weights"] == pytest.approx(np.exp(x) / np.sum(np.exp(x)))
    assert rows[0].values["version"] == "unscaled"


@pytest.mark.parametrize("scores", [[2.0, -1.0, -np.inf, 0.5], [0.3, 0.3, 0.3], [-4.0, -6.0]],
                         ids=["masked", "ties", "all negative"])
def test_the_piece_takes_any_row(scores):
    """What the matrix section will give it: a causal row with −∞, equal scores, only negative ones."""
    x = np.asarray(scores)
    with tempconfig({**TINY, "tex_dir": str(CACHE / "Tex"), "text_dir": str(CACHE / "texts"),
                     "write_to_movie": False, "verbosity": "ERROR", "progress_bar": "none"}):
        scene = Scene(skip_animations=True)
        moves = SoftmaxMoves(x, [f"k_{j + 1}" for j in range(len(x))], score_tex=r"s_{1j}")
        scene.add(moves)
        scene.play(*moves.exponentiate())
        exponentials = moves.heights()
        scene.play(*moves.normalise())
        weights = moves.heights()
    finite = np.where(np.isfinite(x), x, -np.inf)
    expected = np.exp(finite - finite.max())
    assert exponentials == pytest.approx(expected, abs=BAR_TOLERANCE)
    assert weights == pytest.approx(expected / expected.sum(), abs=BAR_TOLERANCE)
    with pytest.raises(RuntimeError):
        moves.exponentiate()
