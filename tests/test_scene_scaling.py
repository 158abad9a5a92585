"""Section 2's scene: the numbers on screen are attn_math's, the layout holds, bad config is refused."""

import math
import re

import numpy as np
import pytest

from attn_math.scaling import score_deviation
from lesson.config import ConfigError, load_config
from lesson.locale import languages, load_locale
from lesson.numbers import format_number, parse_number
from scenes import style
from scenes.lesson_scene import FINISHED_HOLD
from scenes.scaling import GROWTH, ScalingScene
from sonify.mappings import MAPPINGS, staggered
from sonify.synth import SAMPLE_RATE
from tests.scene_checks import layout_problems, legibility_problems, pacing_problems, run_scene

LARGEST = ("scaling.d_k=4096", "scaling.n_keys=16", "scaling.seed=4294967295")
# The most keys at the default d_k: every step changes the most numbers (the largest d_k has nothing left to collapse)
MANY_KEYS = ("scaling.n_keys=16",)


@pytest.fixture(scope="module")
def scene(watched):
    """The defaults: the module's ``watched`` run (its plays recorded as they land, the scene itself unchanged)."""
    return watched[0]


@pytest.fixture(scope="module")
def largest():
    return run_scene("scaling", *LARGEST)


@pytest.fixture(scope="module")
def many_keys():
    return run_scene("scaling", *MANY_KEYS)


def by_hand(d_k, n_keys, seed):
    """Scores, softmax weights and entropies straight from the draws the lesson describes."""
    components = np.random.default_rng(seed).standard_normal((d_k, 1 + n_keys))
    query, keys = components[:, 0], components[:, 1:]
    scores = [math.fsum(q * k for q, k in zip(query, keys[:, j])) for j in range(n_keys)]

    def softmax(values):
        exponentials = [math.exp(value - max(values)) for value in values]
        return [e / sum(exponentials) for e in exponentials]

    def bits(weights):
        return -sum(w * math.log2(w) for w in weights if w > 0)

    scaled = [score / math.sqrt(d_k) for score in scores]
    return {"scores_unscaled": scores, "scores_scaled": scaled,
            "weights_unscaled": softmax(scores), "weights_scaled": softmax(scaled),
            "entropy_unscaled": [bits(softmax(scores))], "entropy_scaled": [bits(softmax(scaled))]}


def shown(step, name):
    return [parse_number(text) for text in step.numbers[name][0]]


def assert_shown(values, expected):
    """Equal to the precision shown: two decimals, one past 10, none past 100."""
    assert len(values) == len(expected)
    for value, truth in zip(values, expected):
        precision = 0.005 if abs(truth) < 9.995 else 0.05 if abs(truth) < 99.95 else 0.5
        assert abs(value - truth) <= precision + 1e-9, (values, expected)


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def test_steps_in_order(scene):
    assert [record.key for record in scene.steps] == list(ScalingScene.STEPS)
    assert all(record.end > record.start for record in scene.steps)


def test_defaults_and_largest_values_keep_text_apart_and_in_frame(scene, largest, many_keys):
    assert layout_problems(scene) == []
    assert layout_problems(largest) == []
    assert layout_problems(many_keys) == []


def test_duration_is_a_paced_minute_or_two(scene):
    assert 60 <= scene.renderer.time <= 180


@pytest.mark.parametrize("name", ["scene", "largest", "many_keys"])
def test_every_step_is_read_without_frozen_stretches(name, request):
    assert pacing_problems(request.getfixturevalue(name)) == []


@pytest.mark.parametrize("name", ["scene", "largest", "many_keys"])
def test_text_is_legible_at_720p(name, request):
    """16 keys too: their titles go above the charts and the colour bar into the column left of the bars."""
    assert legibility_problems(request.getfixturevalue(name)) == []


def test_sixteen_keys_show_every_score_and_weight(largest):
    """The largest config's divided step: 16 scores and weights in each panel, equal to the draws."""
    record = step(largest, "scaled")
    expected = by_hand(4096, 16, 4294967295)
    for name in ("scores_unscaled", "scores_scaled", "weights_scaled"):
        assert_shown(shown(record, name), expected[name])


def test_the_last_step_lasts_its_reading_time_not_more(scene):
    """It sweeps d_k once more with both panels: about as long as reading it, then its finished state's 4 s,
    not a longer tail."""
    record = step(scene, "restored")
    assert record.read_until - record.start <= max(record.reading, record.settled - record.start + FINISHED_HOLD) + 1.0


def intensity(cell) -> float:
    """How far a score cell's fill is from the neutral PANEL (RGB distance)."""
    return float(np.linalg.norm(np.asarray(cell.get_fill_color().to_rgb()) - np.asarray(style.PANEL.to_rgb())))


def test_compared_score_rows_share_one_colour_scale(scene):
    """At the end (d_k = 512 in both panels) a score's colour depends on its value alone, whichever row it is in:
    sorting all 16 cells by |score| sorts them by how far from neutral they are, so every scaled cell is paler
    than the same key's unscaled one. With a scale per row the scaled 1.79 would be as strong as the raw 40.6."""
    settings = load_config().scaling
    expected = by_hand(max(GROWTH), settings.n_keys, settings.seed)
    cells = [(abs(value), intensity(cell), version)
             for version in ("unscaled", "scaled")
             for value, cell in zip(expected[f"scores_{version}"], getattr(scene, version).scores.cells)]
    by_size = sorted(cells)
    assert all(a[1] <= b[1] + 1e-9 for a, b in zip(by_size, by_size[1:])), by_size
    for raw, scaled in zip(scene.unscaled.scores.cells, scene.scaled.scores.cells):
        assert intensity(scaled) < intensity(raw)
    same_value = [intensity(cell) for cell in scene.scaled.scores.cells]
    strongest_raw = max(expected["scores_unscaled"], key=abs)
    assert max(same_value) < 0.25 * intensity(scene.unscaled.scores.cells[expected["scores_unscaled"].index(strongest_raw)])


def test_the_colour_bar_spans_every_score_shown(scene):
    """One bar for both panels and every d_k of the last sweep: it reaches the largest |score| the section shows
    (d_k = 512). The steps before show d_k up to 64 on a bar of their own (tests/test_scaling_review9.py)."""
    settings = load_config().scaling
    largest = max(abs(score) for d_k in sorted({*GROWTH, settings.d_k})
                  for score in by_hand(d_k, settings.n_keys, settings.seed)["scores_unscaled"])
    # the sweep's bar leaves with its panels for the summary table (review 13): the scale it was drawn on
    assert largest <= scene.largest_score <= 1.1 * largest  # review 12: the end ticks cover every score
    assert scene.scale_high == max(GROWTH)
    bar = scene.legend.bar
    assert bar[-1].get_fill_color().to_rgb() == pytest.approx(
        np.asarray(style.PANEL.to_rgb()) + style.SCORE_SATURATION * (
            np.asarray(style.SCORE_POSITIVE.to_rgb()) - np.asarray(style.PANEL.to_rgb())), abs=0.03)


def test_table_shows_d_k_root_and_measured_deviation(scene):
    settings = load_config().scaling
    rows = step(scene, "variance").numbers["table"]
    assert [int(row[0]) for row in rows] == sorted({*GROWTH, settings.d_k})
    for row in rows:
        d_k, root, deviation = (parse_number(text) for text in row)
        assert_shown([root, deviation], [math.sqrt(d_k), score_deviation(int(d_k), seed=settings.seed)])
        assert deviation == pytest.approx(math.sqrt(d_k), rel=0.05)


@pytest.mark.parametrize("key, version", [("growing", "unscaled"), ("scaled", "unscaled"),
                                          ("scaled", "scaled")])
def test_distributions_on_screen_are_the_softmax_of_the_drawn_scores(scene, key, version):
    settings = load_config().scaling
    record = step(scene, key)
    d_k = int(shown(record, "d_k")[0])
    # the default d_k = 64 collapses: the unscaled sweep ends there
    assert d_k == settings.d_k
    expected = by_hand(d_k, settings.n_keys, settings.seed)
    for name in (f"scores_{version}", f"weights_{version}", f"entropy_{version}"):
        assert_shown(shown(record, name), expected[name])


def test_the_summary_table_gives_each_d_ks_softmax_with_and_without_dividing(scene):
    """Review 13: the last sweep showed each d_k 3 s with some 40 numbers, never together. It ends on a table of every
    d_k: √d_k, the divided deviation, and the entropy and the total slope Σ p(1 − p) of the row, unscaled and
    divided, each recomputed here from the draws."""
    settings = load_config().scaling
    record = step(scene, "restored")
    dimensions = sorted({*GROWTH, settings.d_k})
    assert [int(value) for value in shown(record, "summary_d_k")] == dimensions
    assert_shown(shown(record, "summary_root"), [math.sqrt(d_k) for d_k in dimensions])
    for version in ("unscaled", "scaled"):
        rows = [by_hand(d_k, settings.n_keys, settings.seed) for d_k in dimensions]
        assert_shown(shown(record, f"summary_entropy_{version}"), [row[f"entropy_{version}"][0] for row in rows])
        assert_shown(shown(record, f"summary_gradient_{version}"),
                     [math.fsum(w * (1 - w) for w in row[f"weights_{version}"]) for row in rows])


def test_readout_deviation_is_about_root_d_k_and_one_after_dividing(scene):
    settings = load_config().scaling
    for key, names in (("growing", ("d_k", "deviation", "root")), ("restored", ("d_k", "root", "scaled_deviation"))):
        record = step(scene, key)
        # the last step ends on its summary table: its last row, the sweep's largest d_k
        d_k, *values = (shown(record, name if key == "growing" else f"summary_{name}")[-1 if key == "restored" else 0]
                        for name in names)
        measured = score_deviation(int(d_k), seed=settings.seed)
        truths = {"deviation": measured, "root": math.sqrt(d_k), "scaled_deviation": measured / math.sqrt(d_k)}
        assert_shown(values, [truths[name] for name in names[1:]])
    assert values[-1] == pytest.approx(1.0, abs=0.05)


def test_default_seed_collapses_onto_one_key_at_the_dwelt_d_k(scene):
    record = step(scene, "growing")
    weights = shown(record, "weights_unscaled")
    assert sorted(weights) == [0.0] * (len(weights) - 1) + [1.0]
    # a collapse, not a zero: the default seed's rows are typical ones (default.toml), and one key's weight 0.9987
    # leaves 0.01 bits; a row that still shares has a bit or more
    assert shown(record, "entropy_unscaled")[0] <= 0.05
    assert record.caption == scene.strings["steps"]["growing"]["caption"].format(n_keys=scene.settings.n_keys)
    assert shown(step(scene, "scaled"), "entropy_scaled")[0] > 1.5


def test_the_scaled_caption_quotes_the_entropies_on_screen(scene):
    record = step(scene, "scaled")
    before, after = shown(record, "entropy_unscaled")[0], shown(record, "entropy_scaled")[0]
    d_k = int(shown(record, "d_k")[0])
    root = math.sqrt(d_k)  # "=" and the whole number for an exact root (√64 = 8), "≈" and two decimals otherwise
    assert (f"÷ √{d_k} = {root:.0f}" if root == int(root) else f"÷ √{d_k} ≈ {root:.2f}") in record.caption
    assert f"de {before:.2f} a {after:.2f} bits" in record.caption
    assert after > before


def test_the_last_caption_names_the_d_k_swept_and_the_deviation_shown(scene):
    """The caption names the sweep's own d_k, from the configured one (review s14: it named the table's first row, on
    screen 10 s later); the table has every d_k."""
    record = step(scene, "restored")
    dimensions = sorted({*GROWTH, load_config().scaling.d_k})
    assert f"De d_k = {load_config().scaling.d_k} a {dimensions[-1]}" in record.caption
    assert "desviación ≈ 1" in record.caption
    assert all(value == pytest.approx(1.0, abs=0.05) for value in shown(record, "summary_scaled_deviation"))
    assert [int(value) for value in shown(record, "summary_d_k")] == dimensions


def test_the_collapse_happens_before_the_viewer_as_d_k_grows(scene):
    """The unscaled sweep climbs to the configured d_k = 64, where the default's softmax collapses, and stops."""
    growing = step(scene, "growing")
    shown_then = [cue for cue in scene.cues if cue.kind == "row" and growing.start - 1 <= cue.time < growing.end]
    assert [cue.values["d_k"] for cue in shown_then] == [2, 8, 64]
    largest_weight = [max(cue.values["weights"]) for cue in shown_then]
    # d_k = 2 shares (a typical row's largest weight there is about 0.36, three in four rows under 0.5; the default
    # row, typical by default.toml's criterion, gives 0.51), d_k = 64 gives it to one key
    assert largest_weight[0] < 0.6 and largest_weight[-1] > 0.99


def framed_collapse(scene) -> bool:
    """Whether the growing step ends with the zero-gradient note on screen (the collapse framed)."""
    note = scene.strings["labels"]["zero_gradient"]
    return any(text.text == note for text in step(scene, "growing").texts)


def test_the_collapse_is_framed_at_the_end_of_the_sweep_not_in_a_step_of_its_own(scene):
    """Issue 43: a step that was step 3's last picture plus a box and one line (18 s) is gone; the sweep's own step
    ends on that box and the zero-gradient note, and the next step explains why."""
    keys = [record.key for record in scene.steps]
    assert keys[keys.index("growing") + 1] == "exponentiate"
    assert framed_collapse(scene)
    assert "[[zero]]" in scene.strings["steps"]["growing"]["narration"]


def test_a_small_d_k_sweeps_on_to_the_first_collapse():
    """d_k = 8 still shares (0.40 at most, seed 10): the sweep goes on to the first d_k shown whose softmax gives
    one key over 0.99 of the weight, and the collapse is framed there, zero-gradient note and all."""
    scene = run_scene("scaling", "scaling.d_k=8")
    assert layout_problems(scene) == []
    settings = scene.settings
    tops = {size: max(by_hand(size, settings.n_keys, settings.seed)["weights_unscaled"]) for size in GROWTH}
    assert tops[8] < 0.9
    first = min(size for size in GROWTH if size >= 8 and tops[size] > 0.99)
    growing = step(scene, "growing")
    assert [int(text) for text in growing.numbers["d_k"][0]] == [first]
    assert max(shown(growing, "weights_unscaled")) == 1.0
    assert framed_collapse(scene)
    assert int(shown(step(scene, "scaled"), "d_k")[0]) == 8  # the rest of the section stays at the lecturer's d_k


def test_without_a_collapse_the_sweep_ends_on_its_largest_d_k_and_says_so():
    """Seed 11: no d_k shown gives one key over 0.99 of the weight; the sweep goes on to the largest, and its step
    says the softmax still shares there (no zero-gradient note)."""
    scene = run_scene("scaling", "scaling.seed=11")
    settings = scene.settings
    assert max(max(by_hand(size, settings.n_keys, 11)["weights_unscaled"]) for size in GROWTH) < 0.99
    growing = step(scene, "growing")
    assert int(shown(growing, "d_k")[0]) == max(GROWTH)
    assert growing.caption == scene.strings["steps"]["growing"]["caption_spread"].format(
        n_keys=settings.n_keys, high=max(GROWTH))
    assert not framed_collapse(scene)


def test_distribution_cues_carry_the_weights_heard(scene):
    settings = load_config().scaling
    rows = [cue for cue in scene.cues if cue.kind == "row"]
    assert {cue.values["version"] for cue in rows} == {"unscaled", "scaled"}
    for cue in rows:
        assert len(cue.values["weights"]) == settings.n_keys
        assert math.fsum(cue.values["weights"]) == pytest.approx(1.0)
        assert cue.values["weights"] == pytest.approx(by_hand(cue.values["d_k"], settings.n_keys,
                                                              settings.seed)[f"weights_{cue.values['version']}"])
    variance = step(scene, "variance")
    deviations = [cue for cue in scene.cues if cue.kind == "cell" and variance.start <= cue.time <= variance.end]
    assert [cue.values["d_k"] for cue in deviations] == sorted({*GROWTH, settings.d_k})  # the spread's: its own test


@pytest.mark.parametrize("override", ["scaling.d_k=0", "scaling.d_k=4097", "scaling.d_k=2.5", "scaling.d_k='64'",
                                      "scaling.seed=-1", "scaling.seed=4294967296", "scaling.seed=true",
                                      "scaling.n_keys=1", "scaling.n_keys=17", "scaling.n_keys=8.0"])
def test_bad_values_are_refused_naming_the_key(override):
    with pytest.raises(ConfigError) as error:
        load_config(overrides=(override,))
    assert str(error.value).startswith(override.split("=")[0])


def screens_of(*overrides):
    """The scene run with the tagged numbers on screen recorded as every play lands: (time, numbers) each."""
    screens = []
    original = ScalingScene.play

    def play(scene, *animations, **kwargs):
        original(scene, *animations, **kwargs)
        screens.append((scene.renderer.time, scene._snapshot(scene.mobjects)[1]))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ScalingScene, "play", play)
        scene = run_scene("scaling", *overrides)
    return scene, screens


@pytest.mark.parametrize("overrides", [(), ("scaling.d_k=16",)])
def test_no_screen_shows_a_state_not_yet_true(overrides, request):
    """As every animation lands, each panel's scores, bars and entropy are attn_math's at the d_k the readout
    shows: the scaled panel never shows the unscaled one-hot bars and 0.00 bits before its softmax is taken,
    nor new scores over the bars of the old ones (d_k = 16: the collapse's bars move)."""
    # the defaults' screens are the module's ``watched`` run: the same scene, not run twice
    scene, screens = screens_of(*overrides) if overrides else request.getfixturevalue("watched")
    settings = scene.settings
    checked = set()
    for time, numbers in screens:
        if "d_k" not in numbers:
            continue
        d_k = int(parse_number(numbers["d_k"][0][0]))
        expected = by_hand(d_k, settings.n_keys, settings.seed)
        for name in expected:
            if name in numbers:
                values = [parse_number(text) for text in numbers[name][0]]
                assert len(values) == len(expected[name]), (time, name)
                for value, truth in zip(values, expected[name]):
                    precision = 0.005 if abs(truth) < 9.995 else 0.05 if abs(truth) < 99.95 else 0.5
                    assert abs(value - truth) <= precision + 1e-9, f"{time:.1f} s, d_k = {d_k}: {name} {values}"
                checked.add(name)
    assert checked == set(by_hand(2, 2, 0))


@pytest.fixture(scope="module")
def watched():
    """The default scene and what is on screen as each of its plays lands."""
    return screens_of()


def screen_at(screens, time):
    """The tagged numbers on screen at ``time``: those of the last play landed by then."""
    return [numbers for landed, numbers in screens if landed <= time + 1e-6][-1]


def test_each_sound_starts_as_what_it_sounds_has_landed_on_screen(watched):
    """A softmax row sounds once its bars show the weights it plays (not as they start to move: the one-hot
    tone 1.6 s before its bars settle); a deviation's blip once its table row is on screen."""
    scene, screens = watched
    rows = [cue for cue in scene.cues if cue.kind == "row"]
    assert len(rows) >= len(GROWTH) + 2
    for cue in rows:
        version = cue.values["version"]
        shown_now = [parse_number(text) for text in screen_at(screens, cue.time)[f"weights_{version}"][0]]
        assert_shown(shown_now, cue.values["weights"])
    cells = [cue for cue in scene.cues if cue.kind == "cell"]
    for cue in cells:
        table = screen_at(screens, cue.time)["table"]
        assert format_number(cue.values["d_k"], 0) in [row[0] for row in table], cue.time


def test_compared_rows_sound_one_after_the_other(watched):
    """Unscaled and scaled rows never overlap: each starts after the one before has finished, even on one
    speaker (their stereo sides do not keep them apart on a laptop)."""
    scene, _ = watched
    rows = [cue for cue in scene.cues if cue.kind == "row"]
    starts = staggered(rows)
    lengths = [len(MAPPINGS["row"](**cue.values)) / SAMPLE_RATE for cue in rows]
    assert {cue.values["version"] for cue in rows} == {"unscaled", "scaled"}
    for (start, length), following in zip(zip(starts, lengths), starts[1:]):
        assert following >= start + length, (start, length, following)


SHOWN_ELSEWHERE = re.compile(r"simula|laborator|\blab\b|GPT", re.IGNORECASE)
D_K_MENTIONED = re.compile(r"d_k\s*=\s*(\d+)|√(\d+)")


@pytest.mark.parametrize("lang", languages())
def test_cards_mention_only_what_the_section_shows(scene, lang):
    """Every question and closing card of the section: no simulation or model the video never showed, and
    only d_k the video shows (the table's: 2, 8, 64, 512 and the configured one)."""
    locale = load_locale(lang)
    cards = {key: strings["question"] for key, strings in locale["scaling"]["steps"].items() if "question" in strings}
    closing = locale.get("closing", {}).get("scaling")
    if closing:
        cards["closing"] = " ".join(closing[part].format(**scene.closing_fields())
                                    for part in ("title", "text", "question", "answer"))
    shown_d_k = {row[0] for row in step(scene, "variance").numbers["table"]}
    problems = []
    for key, text in cards.items():
        if SHOWN_ELSEWHERE.search(text):
            problems.append(f"{key}: {SHOWN_ELSEWHERE.search(text)[0]!r} in {text!r}")
        problems += [f"{key}: d_k = {number} never shown" for match in D_K_MENTIONED.finditer(text)
                     for number in [match[1] or match[2]] if number not in shown_d_k]
    assert problems == []


def test_the_readout_gives_the_spread_of_the_scores_on_screen_beside_root_d_k(watched):
    """Review 43: a panel of a few keys spreads more or less than √d_k (d_k = 8: 1.78 under a «puntaje típico ≈
    2.82»). Wherever a panel's scores are on screen, the readout gives their own standard deviation, recomputed
    here with numpy from the draws (and, divided by √d_k, of the divided scores), beside the many pairs' ≈ √d_k."""
    scene, screens = watched
    settings = scene.settings
    seen = set()
    for time, numbers in screens:
        if "d_k" not in numbers or not {"scores_unscaled", "scores_scaled"} & set(numbers):
            continue
        d_k = int(parse_number(numbers["d_k"][0][0]))
        scores = np.array(by_hand(d_k, settings.n_keys, settings.seed)["scores_unscaled"])
        name = "scaled_sample" if "scaled_deviation" in numbers else "sample"
        assert name in numbers, f"{time:.1f} s, d_k = {d_k}: no spread of the scores on screen"
        truth = np.std(scores / math.sqrt(d_k) if name == "scaled_sample" else scores)
        assert_shown([parse_number(numbers[name][0][0])], [truth])
        seen.add((d_k, name))
    assert {(8, "sample"), (64, "sample"), (64, "scaled_sample"), (512, "scaled_sample")} <= seen
