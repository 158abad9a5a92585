"""Sound lands with the picture (issue 26, listen-report items 4-8 and helper G's heads beat): a cue sounds as
the play that shows its visual ends (the row, the bars, the prediction, the head's arcs), and the sounds of
things compared side by side play one after the other, never overlapping."""

import numpy as np
import pytest
from manim import LaggedStart

from attn_math.positional import contiguous_tokens_example, permutation_demo
from scene_checks import FRAME, shared_recorded
from sonify.mappings import MAPPINGS, heads_turn
from sonify.synth import SAMPLE_RATE

COUNTRY = 2  # the embedding dimension that carries the country (capital's dim 2)


def cues_with_plays(scene, log, kind: str, step: str | None = None) -> list:
    """(cue, the first play that animates something after it) for every ``kind`` cue, within ``step`` if given."""
    found = []
    for index, entry in enumerate(log):
        if entry[0] != "cue" or scene.cues[entry[1]].kind != kind:
            continue
        cue = scene.cues[entry[1]]
        if step is not None and step_at(scene, cue.time) != step:
            continue
        following = next((later[1] for later in log[index + 1:] if later[0] == "play" and not later[1].waits), None)
        found.append((cue, following))
    return found


def step_at(scene, time: float) -> str:
    """The key of the step on screen at ``time`` (a cue as its header lands belongs to it)."""
    return [step.key for step in scene.steps if step.start <= time + 1e-6][-1]


def sound_seconds(cue) -> float:
    return len(MAPPINGS[cue.kind](**cue.values)) / SAMPLE_RATE


def assert_lands(pairs, shows):
    """Each cue sounds at the end of the play after it, and that play shows what ``shows(k, play)`` says."""
    for k, (cue, play) in enumerate(pairs):
        assert play is not None and shows(k, play), f"{cue.kind} #{k}: the play after it shows something else"
        assert cue.time == pytest.approx(play.end, abs=1e-6), \
            f"{cue.kind} #{k} at {cue.time:.2f} s, its visual lands at {play.end:.2f} s"


def assert_apart(cues):
    """Each sound ends before the next one starts."""
    for cue, after in zip(cues, cues[1:]):
        assert cue.time + sound_seconds(cue) <= after.time + 1e-6, \
            f"{cue.kind} at {cue.time:.2f} s lasts {sound_seconds(cue):.2f} s, the next starts at {after.time:.2f} s"


@pytest.fixture(scope="module")
def capital():
    return shared_recorded("capital")


@pytest.fixture(scope="module")
def heads():
    return shared_recorded("heads")


@pytest.fixture(scope="module")
def positional():
    return shared_recorded("positional")


@pytest.fixture(scope="module")
def matrix():
    return shared_recorded("matrix")


# Capital --------------------------------------------------------------------------------------------------
def vectors(walk) -> np.ndarray:
    """Every number of X, Q, K, V and the context: the one quantity whose scale their blips share."""
    return np.concatenate([np.ravel(m) for m in (walk.X, walk.Q, walk.K, walk.V, walk.context)])


@pytest.mark.parametrize("step, name, column, scale", [
    ("positional", "X", lambda walk: walk.X[:, COUNTRY], vectors),
    ("scores", "scores", lambda walk: walk.scores, lambda walk: walk.scores),
])
def test_capital_blips_each_row_as_it_lands(capital, step, name, column, scale):
    scene, log = capital
    values, scale = column(scene.walk), scale(scene.walk)
    pairs = cues_with_plays(scene, log, "cell", step)
    assert [cue.values["value"] for cue, _ in pairs] == pytest.approx(list(values))
    assert all((cue.values["low"], cue.values["high"]) == pytest.approx((scale.min(), scale.max()))
               for cue, _ in pairs)
    assert_lands(pairs, lambda row, play: (name, (row, 0)) in play.tags())


def test_capital_blips_each_context_number_as_it_lands(capital):
    scene, log = capital
    pairs = cues_with_plays(scene, log, "cell", "context")
    assert [cue.values["value"] for cue, _ in pairs] == pytest.approx(list(scene.walk.context))
    assert_lands(pairs, lambda j, play: ("context", (0, j)) in play.tags())


def test_capital_projections_sound_the_country_column_of_q_k_v_as_each_row_lands(capital):
    scene, log = capital
    walk = scene.walk
    pairs = cues_with_plays(scene, log, "cell", "projections")
    columns = [(role, matrix[:, COUNTRY]) for role, matrix in (("Q", walk.Q), ("K", walk.K), ("V", walk.V))]
    # V's last row lands with V's whole country column heard instead of its own blip (review s14: the step ended on
    # 4 s of still screen to hear the column after the voice)
    rows = [(role, i) for role, column in columns for i in range(len(column))][:-1]
    assert [cue.values["value"] for cue, _ in pairs] == pytest.approx([v for _, column in columns for v in column][:-1])
    assert_lands(pairs, lambda k, play: (rows[k][0], (rows[k][1], COUNTRY)) in play.tags())
    [(column, play)] = cues_with_plays(scene, log, "values", "projections")
    assert column.values["values"] == pytest.approx(walk.V[:, COUNTRY])
    assert_lands([(column, play)], lambda _, play: ("V", (len(walk.V) - 1, COUNTRY)) in play.tags())


def test_capital_distribution_chord_sounds_as_its_bars_land_within_a_short_growth(capital):
    scene, log = capital
    [(cue, play)] = cues_with_plays(scene, log, "distribution", "distribution")
    assert_lands([(cue, play)], lambda _, play: ("probs", (0, 0)) in play.tags())
    assert play.end - play.start <= 1.5 + 1e-6, "bars growing for longer leave the chord long before they land"


def test_capital_other_country_plays_both_predictions_in_turn_as_each_lands(capital):
    scene, log = capital
    pairs = cues_with_plays(scene, log, "distribution", "other_country")
    first = scene.walk.identity
    assert [cue.values["identity"] for cue, _ in pairs] == pytest.approx([first, -1.0 if first > 0 else 1.0])
    assert_lands(pairs, lambda k, play: (f"{('', 'other_')[k]}probability", (0, 0)) in play.tags())
    assert_apart([cue for cue, _ in pairs])


def test_capital_drag_first_chord_sounds_as_its_chart_appears(capital):
    scene, log = capital
    cue, play = cues_with_plays(scene, log, "distribution", "drag")[0]
    assert_lands([(cue, play)], lambda _, play: ("probs", (0, 0)) in play.tags() and play.shows(scene.slider))


# Heads ----------------------------------------------------------------------------------------------------
def writes_the_row(name: str, query: int):
    """Whether a play writes weights of row ``query`` tagged ``name`` (``weight_readout``'s)."""
    return lambda play: any(tag[0] == name and tag[1][0] == query for tag in play.tags())


@pytest.mark.parametrize("kind, shows", [
    ("head_row", lambda scene, cue: writes_the_row(f"A{cue.values['head'] + 1}", cue.values["query"])),
    ("sum_row", lambda scene, cue: writes_the_row("average", cue.values["query"])),
    # the split column's title comes with the columns sliced from the single projection
    ("cost", lambda scene, cue: lambda play: play.shows(scene.cost[0][1][1][0])),  # cost = (stage, frames)
    # the heads' outputs become the parts of Concat
    ("concat", lambda scene, cue: lambda play: "ReplacementTransform" in play.kinds),
])
def test_heads_cues_sound_as_their_play_ends(heads, kind, shows):
    """Each cue sounds as the play that shows what it is about ends: a head's row as its weights are written under
    the tokens, the average's row as its weights are, the cost as the split projection is drawn, the concatenation
    as the heads' outputs join."""
    scene, log = heads
    pairs = cues_with_plays(scene, log, kind)
    assert pairs
    assert_lands(pairs, lambda k, play: shows(scene, pairs[k][0])(play))


def test_heads_overlay_shows_each_head_as_its_chord_sounds(heads):
    scene, log = heads
    [(cue, play)] = cues_with_plays(scene, log, "heads_overlay")
    beat = heads_turn("heads_overlay")
    assert_lands([(cue, play)], lambda _, play: play.shows(scene.head_arcs[0]))
    plays = [entry[1] for entry in log if entry[0] == "play" and not entry[1].waits and entry[1].end > cue.time]
    for k, arcs in enumerate(scene.head_arcs[1:], start=1):
        lands = next(play.end for play in plays if play.shows(arcs))
        assert lands == pytest.approx(cue.time + k * beat, abs=FRAME), f"head {k + 1}"


def test_heads_choice_writes_each_heads_line_as_its_chord_sounds(heads):
    scene, log = heads
    [(cue, play)] = cues_with_plays(scene, log, "heads_chord")
    beat = heads_turn("heads_chord")
    note = scene.choice[2][1]  # choice = (row, arcs note, (legend, note), ...): the note's title, then a line a head
    plays = [entry[1] for entry in log if entry[0] == "play" and not entry[1].waits and entry[1].end >= cue.time - 1e-6]
    for k, line in enumerate(note[1:]):
        lands = next(play.end for play in plays if play.shows(line))
        assert lands == pytest.approx(cue.time + k * beat, abs=FRAME), f"head {k + 1}"


# Positional -----------------------------------------------------------------------------------------------
def test_positional_vector_sum_sounds_as_x_plus_pe_lands(positional):
    scene, log = positional
    pairs = cues_with_plays(scene, log, "vector_sum")
    assert len(pairs) == len(contiguous_tokens_example().tokens)
    assert_lands(pairs, lambda k, play: ("x_plus_pe", (k, 0)) in play.tags())


def test_positional_permutation_compares_each_output_pair_as_it_lands_then_the_verdict(positional):
    scene, log = positional
    demo = permutation_demo()
    pairs = cues_with_plays(scene, log, "outputs_compared", "permutation")
    rows = len(demo.output_b)
    assert len(pairs) == rows + 1
    assert_lands(pairs, lambda k, play: (("Z_B", (k, 0)) if k < rows else ("difference", (0, 0))) in play.tags())
    assert_apart([cue for cue, _ in pairs])


def test_positional_with_pe_sounds_apart_as_the_difference_is_written(positional):
    scene, log = positional
    """Since review s14 the difference is written with the rows; the interval sounds as the frames round the two
    numbers it compares thicken (the step stood 9.5 s still while it was heard), the difference flashing after."""
    [(cue, play)] = cues_with_plays(scene, log, "outputs_compared", "with_pe")
    assert play.shows(scene.compared_frames)
    assert cue.time == pytest.approx(play.start, abs=1e-6)


# Matrix ---------------------------------------------------------------------------------------------------
def test_matrix_scaled_rows_sound_as_each_lands(matrix):
    scene, log = matrix
    scaled = scene.result.scaled
    pairs = cues_with_plays(scene, log, "cell", "scaled")
    assert [cue.values["value"] for cue, _ in pairs] == pytest.approx([row.max() for row in scaled])
    assert_lands(pairs, lambda i, play: ("scaled", (i, 0)) in play.tags())


# Pipeline -------------------------------------------------------------------------------------------------
LANDING_SLACK = 0.3  # seconds: a note may sound this long after its picture has landed, never before


def drawn_parts(play) -> list[float]:
    """When each part of a play's LaggedStart (lines drawn one after another) has ended, in scene seconds: manim's
    own timings of the group, scaled to its run time (a LaggedStart runs at a linear rate)."""
    [group] = [animation for animation in play.animations if isinstance(animation, LaggedStart)]
    group.build_animations_with_timings()
    ends = group.anims_with_timings["end"] / group.anims_with_timings["end"].max()
    return list(play.start + ends * group.run_time)


@pytest.fixture(scope="module")
def pipeline():
    return shared_recorded("pipeline")


def test_pipeline_each_attention_line_sounds_as_it_has_been_drawn(pipeline):
    """Every ``connection`` note sounds 0 to 0.3 s after its line's drawing ends (it sounded as the line began,
    before anything of it was on screen: median 0.08 s early); a recalled figure's one note after its own line's."""
    scene, log = pipeline
    notes = [cue for cue in scene.cues if cue.kind == "connection"]
    drawn = [play for kind, play in log if kind == "play" and any(isinstance(a, LaggedStart) for a in play.animations)]
    late = []
    for cue in notes:  # the play drawing the note's line: the last one begun before the note
        play = max((play for play in drawn if play.start < cue.time), key=lambda play: play.start)
        late.append(round(cue.time - drawn_parts(play)[cue.values["key"]], 3))
    assert len(late) > 0
    assert [delay for delay in late if not -1e-6 <= delay <= LANDING_SLACK] == [], late


@pytest.mark.parametrize(("step", "matrices"), [
    ("permutation", ("W_Q", "W_K", "W_V", "X_A", "X_B", "Z_A")),  # Z_B's rows are compared with Z_A's instead
    ("with_pe", ("X_A_pe", "Z_A_pe", "Z_B_pe")),  # both inputs change at once: the first sentence's row is heard
    ("sum", ("by_word", "by_position")),
])
def test_positional_each_row_of_a_matrix_is_heard_as_it_lands(positional, step, matrices):
    """Issue 44 (silence: the permutation's 49 s and with-PE's 35 s built without a sound): each row that comes is
    heard once as it lands, its numbers as blips, in the order the rows come."""
    scene, log = positional
    demo = permutation_demo()
    expected = {"W_Q": demo.W_Q, "W_K": demo.W_K, "W_V": demo.W_V, "X_A": demo.steps_a.X, "X_B": demo.steps_b.X,
                "Z_A": demo.output_a, "X_A_pe": demo.steps_a_pe.X, "Z_A_pe": demo.output_a_pe,
                "Z_B_pe": demo.output_b_pe}
    rows = [(name, i) for name in matrices
            for i in range(len(expected[name]) if name in expected else len(scene_values(scene, step, name)))]
    pairs = cues_with_plays(scene, log, "values", step)
    assert len(pairs) == len(rows)
    assert_lands(pairs, lambda k, play: (rows[k][0], (rows[k][1], 0)) in play.tags())
    for (cue, _), (name, i) in zip(pairs, rows):
        if name in expected:  # the demonstration's numbers, recomputed by attn_math's own passes
            np.testing.assert_allclose(cue.values["values"], expected[name][i])
        else:  # the sum step's readings: the row as the step's record shows it
            shown = scene_values(scene, step, name)[i]
            np.testing.assert_allclose(cue.values["values"], [float(text.replace("−", "-")) for text in shown],
                                       atol=0.006)


def scene_values(scene, step: str, name: str) -> list:
    """The rows of the tagged matrix ``name`` as the end of ``step`` shows them (or the last step that does)."""
    steps = [record for record in scene.steps if name in record.numbers]
    record = next((record for record in steps if record.key == step), steps[-1] if steps else None)
    assert record is not None, name
    return record.numbers[name]
