"""Section 5's scene: its steps, the numbers it shows against attn_math, its layout, its config keys."""

import math
import re
import statistics

import numpy as np
import pytest

from attn_math.capital import VOCAB, W_K, W_Q, W_V, W_out, b_out, capital_walkthrough
from lesson.config import ConfigError, load_config
from lesson.locale import languages, load_locale
from lesson.numbers import format_number, parse_number
from lesson.steps import parse_steps
from scenes.capital import CapitalScene
from scenes.visuals import LabelledMatrix
from tests.scene_checks import PacedSpeaker, lecture_problems, run_scene, stills_in

STEPS = ("embeddings", "positional", "projections", "scores", "softmax", "context", "layer_norm", "logits",
         "distribution", "other_country", "drag", "undecided", "mirror", "asymmetry")
PARIS, ROMA = VOCAB.index("paris"), VOCAB.index("rome")
SHOWN = 0.005  # numbers are written with two decimals


@pytest.fixture(scope="module")
def francia():
    """The defaults: Francia, identity +1; as it runs, ``digit_contrasts`` reads the colours at each step's end
    (kept as ``francia.checked_contrasts``)."""
    contrasts = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CapitalScene, "finish_step", digit_contrasts(CapitalScene.finish_step, contrasts))
        scene = run_scene("capital")
    scene.checked_contrasts = contrasts
    return scene


@pytest.fixture(scope="module")
def italia():
    """The other end of the range: every identity-carrying number negative, the drag running the other way."""
    return run_scene("capital", "capital.identity=-1.0")


@pytest.fixture(scope="module")
def off_grid():
    """The config's other extreme: an identity off the drag's 0.25 grid, negative (minus signs make the
    widest numbers), so the drag takes uneven steps. The sentence and d_model are fixed: no larger sizes exist."""
    return run_scene("capital", "capital.identity=-0.37")


def step(scene, key):
    return next(record for record in scene.steps if record.key == key)


def shown(scene, key, name) -> np.ndarray:
    return np.array([[parse_number(text) for text in row] for row in step(scene, key).numbers[name]])


def texts(scene, key) -> list[str]:
    return [text.text for text in step(scene, key).texts]


def relative_luminance(colour) -> float:
    """WCAG 2: the linearised sRGB channels weighted 0.2126, 0.7152, 0.0722."""
    channels = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour.to_rgb()]
    return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]


def contrast(first, second) -> float:
    """WCAG 2's contrast ratio of two colours."""
    dark, light = sorted((relative_luminance(first), relative_luminance(second)))
    return (light + 0.05) / (dark + 0.05)


def hand_softmax(values):
    exponentials = [math.exp(value) for value in values]
    return np.array([value / sum(exponentials) for value in exponentials])


def test_steps_come_in_lesson_order_and_no_screen_stands_still_over_six_seconds(francia):
    assert tuple(record.key for record in francia.steps) == STEPS
    assert all(record.end > record.start for record in francia.steps)
    assert 60 <= francia.renderer.time <= 7 * 60  # fourteen steps at their reading time, with question cards
    assert max(end - start for start, end in francia.freezes) <= 6.0


@pytest.mark.parametrize("scene_name", ["francia", "italia", "off_grid"])
def test_every_config_passes_the_lecture_checks(scene_name, request):
    """No overlap or text out of frame, nothing under 14 px cap height (formula scripts included), numbers
    written as a reader writes them, each step its reading time and no still stretch over 6 s."""
    assert lecture_problems(request.getfixturevalue(scene_name)) == []


def test_the_eight_steps_show_attn_math_numbers(francia):
    walk = capital_walkthrough(1.0)
    expected = {
        ("embeddings", "embeddings"): walk.embeddings, ("positional", "positional"): walk.positional,
        ("positional", "X"): walk.embeddings + walk.positional, ("projections", "W_Q"): W_Q,
        ("projections", "W_K"): W_K, ("projections", "W_V"): W_V, ("projections", "Q"): walk.X @ W_Q,
        ("projections", "K"): walk.X @ W_K, ("projections", "V"): walk.X @ W_V,
        ("scores", "q_es"): [walk.Q[-1]], ("scores", "scores"): (walk.K @ walk.Q[-1])[:, None],
        ("softmax", "scaled"): (walk.scores / math.sqrt(3))[:, None],
        ("softmax", "attention"): [hand_softmax(walk.scores / math.sqrt(3))],
        ("context", "context"): [walk.attention_row @ walk.V],
        ("layer_norm", "residual"): [walk.context + walk.X[-1]],
        ("layer_norm", "mean"): [[statistics.fmean(walk.residual)]],
        ("layer_norm", "spread"): [[statistics.pstdev(walk.residual)]],
        ("layer_norm", "normalized"): [walk.normalized], ("logits", "W_out"): W_out,
        ("logits", "normalized"): [walk.normalized],
        ("logits", "b_out"): [b_out], ("logits", "logits"): [walk.normalized @ W_out + b_out],
        ("distribution", "probs"): [hand_softmax(walk.logits)],
        ("distribution", "probability"): [[walk.probs.max()]],
        ("distribution", "loss"): [[-math.log(walk.probs.max())]],
    }
    for (key, name), values in expected.items():
        np.testing.assert_allclose(shown(francia, key, name), values, atol=SHOWN, err_msg=f"{key}: {name}")



def test_the_probabilities_recomputed_from_the_screen_give_the_screen(francia):
    """Review 43: b_out was written 0.68; LN(r) W_out + b_out as written gave the logit 1.486 and p = 0.415 where the
    bars say 0.416. The logits step's LN(r), W_out and b_out as written, through the softmax, give the bars' texts."""
    normalized, W_written, bias = (shown(francia, "logits", name) for name in ("normalized", "W_out", "b_out"))
    logits = normalized @ W_written + bias
    written = step(francia, "distribution").numbers["probs"]
    decimals = len(written[0][0].split(".")[-1])
    assert [[format_number(p, decimals) for p in hand_softmax(logits[0])]] == written

def test_the_layer_norm_divides_the_centred_residual_by_its_spread(francia):
    residual = shown(francia, "layer_norm", "residual")[0]
    mean, spread = shown(francia, "layer_norm", "mean")[0, 0], shown(francia, "layer_norm", "spread")[0, 0]
    np.testing.assert_allclose(shown(francia, "layer_norm", "normalized")[0], (residual - mean) / spread, atol=0.02)


def test_the_mean_and_the_spread_are_written_on_one_line(francia):
    """«μ = 0.36» and «σ = 0.76» side by side: μ's tail made its group taller, and centring the two groups lifted it
    about 3 px above σ's at 720p. Digits have no descenders, so their bottoms are their baseline."""
    record = step(francia, "layer_norm")
    bottoms = [next(text.bottom for text in record.texts if text.text == record.numbers[name][0][0])
               for name in ("mean", "spread")]
    assert bottoms[0] == pytest.approx(bottoms[1], abs=0.005)


def test_changing_the_country_keeps_the_attention_row_and_changes_what_travels(francia):
    assert shown(francia, "other_country", "identity")[0, 0] == 1.0
    assert shown(francia, "other_country", "other_identity")[0, 0] == -1.0
    np.testing.assert_array_equal(shown(francia, "other_country", "attention"),
                                  shown(francia, "other_country", "other_attention"))
    here, there = shown(francia, "other_country", "context")[0], shown(francia, "other_country", "other_context")[0]
    np.testing.assert_array_equal(here[:2], there[:2])
    assert here[2] > 0 > there[2]
    np.testing.assert_allclose(shown(francia, "other_country", "other_probability"),
                               [[capital_walkthrough(-1.0).probs[ROMA]]], atol=SHOWN)


def test_the_null_output_column_is_said_on_screen(francia):
    assert any("columna nula → logit 0" in text for text in texts(francia, "logits"))
    assert np.all(shown(francia, "logits", "logits")[0, 2:] == 0.0)
    assert np.all(W_out[:, 2:] == 0.0)  # columns follow the vocabulary: the six after París and Roma are null


def test_the_drag_ends_at_the_far_end_with_its_distribution(francia, italia):
    for scene, far in ((francia, -1.0), (italia, 1.0)):
        assert shown(scene, "drag", "identity")[0, 0] == far
        np.testing.assert_allclose(shown(scene, "drag", "probs"), [capital_walkthrough(far).probs], atol=SHOWN)


def test_at_identity_zero_every_word_ties_and_nothing_wins(francia):
    assert shown(francia, "undecided", "identity")[0, 0] == 0.0
    probs = shown(francia, "undecided", "probs")[0]
    np.testing.assert_allclose(probs, 1 / len(VOCAB), atol=SHOWN)
    assert len(set(probs)) == 1
    assert "empate" in texts(francia, "undecided")
    caption = step(francia, "undecided").caption  # says what the eight equal bars show
    assert "las ocho palabras empatan en 1/8 = 0.125" in caption and 1 / len(VOCAB) == 0.125
    assert np.all(capital_walkthrough(0.0).logits == 0.0) and "logits valen 0" in caption
    assert shown(francia, "undecided", "probability")[0, 0] == 0.125  # three decimals: 1/8 shown exactly


def test_the_asymmetry_the_lesson_reads_aloud(francia):
    assert shown(francia, "mirror", "identity")[0, 0] == -0.9
    assert shown(francia, "mirror", "mirror_paris_reading")[0, 0] == pytest.approx(0.38, abs=SHOWN)
    assert shown(francia, "mirror", "mirror_roma_reading")[0, 0] == pytest.approx(0.34, abs=SHOWN)
    np.testing.assert_allclose(shown(francia, "mirror", "probs"), [capital_walkthrough(-0.9).probs], atol=SHOWN)


def test_the_asymmetry_step_shows_the_spread_as_its_cause(francia):
    walks = [capital_walkthrough(identity) for identity in (-0.9, 0.0, 0.9)]
    spreads = [statistics.pstdev(walk.residual) for walk in walks]
    np.testing.assert_allclose(shown(francia, "asymmetry", "spread_divisor")[0], spreads, atol=SHOWN)
    assert shown(francia, "asymmetry", "spread_divisor")[0].tolist() == [0.83, 0.76, 0.76]
    before = shown(francia, "asymmetry", "centred_gap")[0]
    after = shown(francia, "asymmetry", "normalized_gap")[0]
    assert before[0] == before[1], "subtracting the mean keeps the mirror"
    assert after[0] < after[1], "dividing by the spread shrinks Italia's push"
    np.testing.assert_allclose(shown(francia, "asymmetry", "winner")[0],
                               [walks[0].probs[ROMA], 1 / len(VOCAB), walks[2].probs[PARIS]], atol=SHOWN)


def test_italia_flips_the_country_column_and_the_prediction(italia):
    walk = capital_walkthrough(-1.0)
    np.testing.assert_allclose(shown(italia, "embeddings", "embeddings"), walk.embeddings, atol=SHOWN)
    assert shown(italia, "embeddings", "embeddings")[3, 2] == -1.0
    np.testing.assert_allclose(shown(italia, "distribution", "probs"), [walk.probs], atol=SHOWN)
    assert "Roma" in texts(italia, "distribution")
    assert "Roma sube" not in step(italia, "drag").caption


def test_distribution_cues_carry_the_chord_of_every_state(francia):
    cues = [cue for cue in francia.cues if cue.kind == "distribution"]
    assert len(cues) > 20
    for cue in cues:
        assert cue.values["words"] == list(VOCAB)
        assert sum(cue.values["weights"]) == pytest.approx(1.0)
        np.testing.assert_allclose(cue.values["weights"], capital_walkthrough(cue.values["identity"]).probs)
    assert [cue.time for cue in cues] == sorted(cue.time for cue in cues)
    assert any(len(set(cue.values["weights"])) == 1 for cue in cues), "the tie at identity 0 is heard"


@pytest.mark.parametrize("override", ["capital.country=España", "capital.country=3", "capital.identity=1.5",
                                      "capital.identity=-1.01", "capital.identity=nan", "capital.identity=inf",
                                      'capital.identity="0.5"', "capital.identity=true", "capital.colour=1"])
def test_bad_config_values_are_refused_naming_the_key(override):
    key = override.partition("=")[0]
    with pytest.raises(ConfigError, match=rf"^{key}"):
        load_config(overrides=(override,))


def test_identity_overrides_the_country():
    assert load_config(overrides=("capital.country=italy", "capital.identity=0.25")).capital.identity == 0.25


def test_bar_charts_write_the_decimals_that_make_their_probabilities_sum_to_one(francia):
    """1/8 written 0.125 (eight 0.12 would sum to 0.96); the distribution keeps three decimals all along the drag."""
    assert step(francia, "undecided").numbers["probs"][0] == ["0.125"] * len(VOCAB)
    for key in ("distribution", "drag", "mirror"):
        written = step(francia, key).numbers["probs"][0]
        assert all(len(text.partition(".")[2]) == 3 for text in written), written
        assert abs(sum(parse_number(text) for text in written) - 1.0) <= len(VOCAB) * 0.0005
    attention = shown(francia, "softmax", "attention")[0]  # two decimals suffice here: 0.02 + 0.34 + … = 1.00
    np.testing.assert_allclose(attention, capital_walkthrough(1.0).attention_row, atol=SHOWN)
    assert attention.sum() == pytest.approx(1.0, abs=1e-9)


WORKED_LINE = re.compile(r"= (?P<terms>[^=≈]+?) (?P<relation>[=≈]) (?P<result>\S+)$")


def worked_lines(scene) -> list[tuple[str, str]]:
    """(step, text) of every worked sum of products on screen ("… = 2.69·2.14 + … ≈ 5.77")."""
    return [(record.key, text.text) for record in scene.steps for text in record.texts
            if "·" in text.text and WORKED_LINE.search(text.text)]


@pytest.mark.parametrize("scene_name", ["francia", "italia", "off_grid"])
def test_worked_lines_reproduce_from_the_numbers_they_show_or_say_about(scene_name, request):
    """A student who multiplies and adds the rounded numbers of a worked line gets its result, or the line
    says ≈: 2.69·2.14 is 5.76, so "= 5.77" (the exact score, rounded) must read "≈ 5.77"."""
    lines = worked_lines(request.getfixturevalue(scene_name))
    assert {key for key, _ in lines} == {"scores", "context", "undecided"}  # step 12: the logits of the tie
    for key, text in lines:
        match = WORKED_LINE.search(text)
        products = [math.prod(parse_number(factor.strip("()")) for factor in term.split("·"))
                    for term in match["terms"].replace(" − ", " + −").split(" + ")]  # a − b as a + (−b)
        reproduced = format_number(math.fsum(products)) == match["result"]
        assert match["relation"] == ("=" if reproduced else "≈"), f"{key}: {text}"


@pytest.mark.parametrize("lang", languages())
def test_the_loss_has_one_symbol_in_caption_and_figure(francia, lang):
    """−ln p, as the figure's label writes it, never −log p."""
    steps = load_locale(lang)["capital"]["steps"]
    assert "−ln p" in steps["distribution"]["caption"]
    assert not [key for key, strings in steps.items() for text in strings.values() if "log p" in str(text)]
    assert "−ln p" in step(francia, "distribution").caption
    assert r"-\ln p" in texts(francia, "distribution")


@pytest.mark.parametrize("scene_name", ["francia", "italia", "off_grid"])
def test_the_loss_shown_is_minus_ln_of_the_probability_shown(scene_name, request):
    """In the caption and in the readout: −ln 0.42 is 0.87, so a caption with p = 0.42 cannot say 0.88."""
    record = step(request.getfixturevalue(scene_name), "distribution")
    caption = re.search(r"p = (?P<p>\d+\.\d+).*−ln p = (?P<loss>\d+\.\d+)", record.caption)
    readout = [record.numbers[name][0][0] for name in ("probability", "loss")]
    for probability, loss in ((caption["p"], caption["loss"]), readout):
        assert format_number(-math.log(parse_number(probability))) == loss, (probability, loss)


def test_one_eighth_is_always_written_0_125(francia):
    """The tie's probability wherever it is shown: the bars, the readout, the asymmetry's winners."""
    assert step(francia, "asymmetry").numbers["winner"][0][1] == "0.125"
    rounded_eighths = [(record.key, name) for record in francia.steps for name, rows in record.numbers.items()
                       for row in rows for text in row if text in ("0.12", "0.13")]
    assert rounded_eighths == []


def digit_contrasts(original, contrasts: list):
    """CapitalScene.finish_step that first adds to ``contrasts`` (contrast, matrix, row, column) of every digit
    on a coloured cell on screen, then finishes the step as ``original`` does."""
    def finish_step(scene):
        for mobject in scene.mobjects:
            for matrix in [part for part in mobject.get_family() if isinstance(part, LabelledMatrix)]:
                for i, row in enumerate(matrix.cells):
                    for j, cell in enumerate(row):
                        if cell.get_fill_opacity() > 0:
                            digits = matrix.entries[i][j].family_members_with_points()[0].get_fill_color()
                            contrasts.append((contrast(digits, cell.get_fill_color()), matrix.name, i, j))
        original(scene)
    return finish_step


def test_matrix_digits_stand_out_from_their_cells(francia):
    """Every digit on a heat-coloured cell (scores, scaled scores, attention weights, logits) at 4.5:1 or
    more (WCAG AA), from the colours drawn at the end of each step (of the default run, as it ran)."""
    contrasts = francia.checked_contrasts
    assert {name for _, name, _, _ in contrasts} == {"scores", "scaled", "attention", "logits"}
    assert [entry for entry in contrasts if entry[0] < 4.5] == []


def relation_shown(scene, key, pattern) -> str:
    """"=" or "≈" in the one formula of step ``key`` whose LaTeX matches ``pattern`` (its group 1 the sign)."""
    [match] = [match for text in texts(scene, key) if (match := re.fullmatch(pattern, text))]
    return {"=": "=", r"\approx": "≈"}[match[1]]


SIGN = r"(=|\\approx)"


@pytest.mark.parametrize("scene_name", ["francia", "italia", "off_grid"])
def test_equations_hold_for_the_numbers_they_show_or_say_about(scene_name, request):
    """Redo each equation on the rounded numbers on screen: where that does not give the numbers shown
    (2 · 1.35 = 2.70 but Q shows 2.69), its sign is ≈, elsewhere =."""
    scene = request.getfixturevalue(scene_name)

    def numbers(key, name):
        return shown(scene, key, name)

    equations = [
        ("positional", "X", numbers("positional", "embeddings") + numbers("positional", "positional"),
         rf"X {SIGN} E \+ PE"),
        *[("projections", role, numbers("projections", "X") @ numbers("projections", f"W_{role}"),
           rf"{role} {SIGN} XW_{role}") for role in "QKV"],
        ("context", "context", numbers("context", "attention").T @ numbers("context", "V"), rf".* {SIGN} \\sum_j.*"),
        ("layer_norm", "residual", numbers("layer_norm", "context") + numbers("layer_norm", "x_es"), SIGN),
        ("layer_norm", "normalized", (numbers("layer_norm", "residual") - numbers("layer_norm", "mean"))
         / numbers("layer_norm", "spread"), rf"\\mathrm\{{LN\}}\(r\) {SIGN} .*"),
        ("logits", "logits", numbers("logits", "normalized") @ numbers("logits", "W_out") + numbers("logits", "b_out"),
         SIGN),
    ]
    for key, name, redone, pattern in equations:
        holds = [format_number(value) for value in redone.ravel()] == [
            format_number(value) for value in numbers(key, name).ravel()]
        assert relation_shown(scene, key, pattern) == ("=" if holds else "≈"), (key, name, redone)


def test_w_v_and_v_are_built_as_the_voice_speaks_of_them():
    """Issue 43: W_V and V were built in silence, the phrase about W_V waiting until they were done. With a voice,
    the phrase tied to them starts no later than the first play that writes W_V's numbers."""
    starts = []
    play = CapitalScene.play

    def logged_play(self, *animations, **options):
        tags = {part.tag[0] for animation in animations for part in animation.mobject.get_family()
                if hasattr(part, "tag")}
        if "W_V" in tags:
            starts.append(self.renderer.time)
        play(self, *animations, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CapitalScene, "play", logged_play)
        scene = run_scene("capital", narration=PacedSpeaker(), steps=parse_steps("projections", list(STEPS)))
    phrase = next(phrase for phrase in step(scene, "projections").narration["phrases"] if phrase[3] == "value")
    starts = [start - scene.clip_start for start in starts]  # the clip's records count from its first step
    assert starts and phrase[1] <= min(starts) + 1e-6


def test_the_layer_norm_step_moves_while_the_voice_speaks():
    """Issue 43 (near-still at 135-141 s): μ, σ and LN(r) all came before the voice named them, then the screen
    stood still while it spoke. Each now comes as it is said: with a stand-in voice, nothing stands still over 6 s."""
    scene = run_scene("capital", narration=PacedSpeaker(), steps=parse_steps("layer_norm..logits", list(STEPS)))
    assert stills_in(scene, "layer_norm") == []  # with the next step, so that it waits for its voice to end
