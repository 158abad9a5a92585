"""The pipeline section's captions, narrations and answers say nothing false of the lecturer's config: step 5's
"√d_k = …" and "√d_k · T = …" say "=" only of an exact number, "≈" of a rounded one; with the lecturer's own
weights no text names the weights they replaced (the lab's random ones, or the designed ones), and the other
preset is named only where it is on screen beside theirs (steps 8 and 9, the presets and exercise 1); a claim about
the rows ("almost uniform", "barely concentrates", "nearly all on one token", "random weights cannot show it") is
made only when the numbers, computed here by hand, bear it out; and every number of the changed texts is the one
plain arithmetic gets. For random configs (the strategy of test_pipeline_answers), filled in as the scene fills
them (``lesson.pipeline_answers``), and for two runs of the scene itself with custom weights."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attn_math.lab import LAB_SENTENCES
from attn_math.sharp import article_and_noun
from lesson.locale import load_locale
from lesson.narration_text import sentences
from lesson.numbers import format_number, parse_number
from lesson.section_config import PipelineConfig
from lesson.pipeline_answers import (article_caption, presets_caption, question_fields, scaled_step,
                                     temperature_caption)
from tests.answer_texts import numbers, written_as
from tests.scene_checks import run_scene
from test_pipeline_answers import GUIDE_TEMPERATURES, answers, configs, runs_of, spread

OWN = {"es": "tus pesos", "en": "your weights"}
# How a text names each preset's weights (not its embeddings, nor the lab's temperature control).
NAMES = {"es": {"lab": re.compile(r"pesos (aleatorios )?del (lab|laboratorio)|aleatorios del lab|pesos aleatorios"),
                "sharp": re.compile(r"pesos diseñados|[Cc]on los diseñados")},
         "en": {"lab": re.compile(r"lab[’'`]s (random )?weights|lab[’']s random|random weights"),
                "sharp": re.compile(r"designed weights|[Ww]ith the designed ones")}}
BESIDE = ("presets", "article", "softmax")  # the steps (and exercise 1's answer) showing both presets' weights
CONCENTRATED = [[3.0 if j == i else 0.0 for j in range(8)] for i in range(3)]
WEIGHTS = {"concentrated": {"W_Q": CONCENTRATED, "W_K": CONCENTRATED},  # each query meets itself
           "equal": {"W_Q": [[0.0] * 8] * 3, "W_K": [[0.0] * 8] * 3},  # every score 0: every row uniform, at any T
           # on the designed features (the constant 1, the noun's flag): every query gives its weight to the nouns
           "nouns": {"W_Q": [[0.0] * 7 + [3.0]], "W_K": [[0.0, 3.0] + [0.0] * 6]}}
ALIKE = {"es": "pesos casi uniformes", "en": "almost uniform weights"}  # step 7's caption_alike
FALLS = {"es": "baja hacia el uniforme", "en": "falls towards uniform"}


def holds(relation: str, written: str, value: float) -> bool:
    """Whether "relation written" is true of ``value``: "=" exactly, "≈" rounded to the written number's last place."""
    decimals = len(re.split(r"[.,]", written + ".")[1])
    if parse_number(written) == value:
        return relation == "="
    return relation == "≈" and abs(parse_number(written) - value) <= 10.0 ** -decimals / 2 + 1e-12


def misnamed(text: str, key: str, preset: str, language: str) -> list[str]:
    """The names of weights ``text`` (of step ``key``) must not use when the lecturer's replace ``preset``'s: that
    preset's anywhere, the other one's away from the steps that show it."""
    other = "sharp" if preset == "lab" else "lab"
    found = NAMES[language][preset].findall(text)
    return found + (NAMES[language][other].findall(text) if key not in BESIDE else [])


def entropy(row: list[float]) -> float:
    return -sum(p * math.log2(p) for p in row if p > 0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), language=st.sampled_from(sorted(OWN)))
def test_step_5_says_equal_only_of_exact_numbers(config, language):
    d_k = len(config.weight_matrices()["W_Q"])
    divisor = math.sqrt(d_k) * config.temperature  # by hand
    key, fields = scaled_step(config, d_k, divisor)
    caption = load_locale(language)["pipeline"]["steps"]["scaled"][key].format(**fields)
    if config.causal:
        relation, written = re.search(rf"√{d_k} · T ([=≈]) ([0-9.,]*[0-9])", caption).groups()
        assert holds(relation, written, divisor), caption
    else:
        relation, written = re.search(rf"√{d_k} ([=≈]) ([0-9.,]*[0-9])", caption).groups()
        assert holds(relation, written, math.sqrt(d_k)), caption


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs().filter(lambda config: config.given_weights()), language=st.sampled_from(sorted(OWN)))
def test_no_answer_names_the_weights_yours_replaced(config, language):
    for key, (question, answer) in answers(config, language).items():
        assert misnamed(answer, key, config.preset, language) == [], (key, answer)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), language=st.sampled_from(sorted(OWN)))
def test_the_temperature_step_claims_what_the_rows_show(config, language):
    """The lab's "low T barely concentrates it" only below 0.5, the designed weights' "nearly all on one token" only
    from 0.9 on; else the numbers, of the weights shown (yours: "your weights"), as arithmetic gets them."""
    strings = load_locale(language)["pipeline"]["steps"]["temperature"]
    run, q = runs_of(config, language), config.query
    coldest, hottest = min(config.temperatures), max(config.temperatures)
    cold, hot = (max(run(t, config.causal).weights[q]) for t in (coldest, hottest))
    key = temperature_caption(config, cold)
    own = bool(config.given_weights())
    assert key in {"caption_measured", "caption" if cold < 0.5 and config.preset == "lab" and not own else None,
                   "caption_sharp" if cold >= 0.9 and config.preset == "sharp" and not own else None}, (key, cold)
    fields = {"query": config.tokens[q], "temperatures": "…", "coldest": format_number(coldest),
              "hottest": format_number(hottest), "coldest_max": format_number(cold), "hottest_max": format_number(hot),
              "weights": question_fields(config, language, load_locale(language)["pipeline"]["answer_pieces"])
              ["temperature"]["weights"]}
    for text in (strings[key].format(**fields), strings[key.replace("caption", "narration")].format(**fields)):
        assert (OWN[language] in text) == own and misnamed(text, key, config.preset, language) * own == [], text
        assert format_number(cold) in text or key == "caption", text  # the lab's caption quotes no number


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), language=st.sampled_from(sorted(OWN)))
def test_the_presets_and_exercise_1_claim_what_the_rows_show(config, language):
    """The presets step's "the lab is random, almost uniform" only of the lab's own weights and a row of at least
    0.9 of the most bits; exercise 1's "random weights cannot show it, the designed ones do" only when the article's
    row on the lab's random weights misses its noun and the designed one finds it."""
    run, q = runs_of(config, language), config.query
    row = run(config.temperature, False, "lab").weights[q]
    most = math.log2(len(row))
    own = bool(config.given_weights())
    key = presets_caption(config, entropy(row), most)
    assert key == (f"caption_own_{config.preset}" if own else
                   "caption" if entropy(row) >= 0.9 * most else "caption_measured"), (key, entropy(row), most)
    pair = article_and_noun(config.sentence, language)
    if pair is None:
        return
    found = [max(row) - row[pair[1]] < 5e-3 for row in (run(config.temperature, False, preset).weights[pair[0]]
                                                         for preset in ("lab", "sharp"))]
    exercise = question_fields(config, language, load_locale(language)["pipeline"]["answer_pieces"])["softmax"]
    assert article_caption(config, exercise) == ("caption" if not own and found == [False, True]
                                                 else "caption_measured")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), language=st.sampled_from(sorted(OWN)))
def test_step_7_says_almost_uniform_weights_only_of_flat_rows(config, language):
    """The output answer's "these weights are almost uniform, each output near the mean" (its plain variant) only
    when every row's largest weight is at most 1.5 times its smallest (of those not masked) and the outputs are
    within 0.25 of V's spread of each other."""
    run = runs_of(config, language)(config.temperature, config.causal)
    rows = [[row[j] for j in seen] for row, seen in zip(run.weights, run.seen)]
    flat = len(rows) > 1 and all(max(row) <= 1.5 * min(row) for row in rows) and spread(run) < 0.25
    fields = question_fields(config, language, load_locale(language)["pipeline"]["answer_pieces"])["output"]
    assert (fields["answer_variant"] == "") == flat, (fields, rows)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), language=st.sampled_from(sorted(OWN)))
def test_step_5_says_little_only_of_the_labs_rows_that_stay_flat(config, language):
    """Step 5's answer, "how much depends on the weights: with the lab's random ones, little", only of the lab's own
    weights when the query's top weight stays under 0.5 at the coldest configured T."""
    run, q = runs_of(config, language), config.query
    cold = max(run(min(config.temperatures), config.causal).weights[q])
    answer = answers(config, language)["scaled"][1]
    little = {"es": "con los aleatorios del lab, poco", "en": "with the lab’s random ones, little"}[language]
    assert (little in answer) == (config.preset == "lab" and not config.given_weights() and cold < 0.5), answer


@pytest.fixture(scope="module")
def scenes():
    """scenes(preset, language, weights): the scene run once with WEIGHTS[weights] as W_Q and W_K over ``preset``'s."""
    done = {}

    def run(preset: str, language: str, weights: str):
        if (preset, language, weights) not in done:
            done[preset, language, weights] = run_scene(
                "pipeline", f"pipeline.preset='{preset}'", f"lecture.lang='{language}'",
                *[f"pipeline.{name}={matrix}" for name, matrix in WEIGHTS[weights].items()])
        return done[preset, language, weights]
    return run


def scene_config(preset: str, weights: str) -> PipelineConfig:
    """The scenes' config: the default sentence, query, temperatures and no mask, with WEIGHTS[weights]."""
    return PipelineConfig.model_validate({"sentence": LAB_SENTENCES["gato"], "preset": preset, "query": 1,
                                          "temperature": 1.0, "causal": False, "temperatures": [0.2, 1.0, 3.0],
                                          **WEIGHTS[weights]})


def scene_numbers(preset: str, language: str, weights: str) -> dict[str, list[float]]:
    """The numbers the presets, exercise 1, temperature and exercise 2 steps may write for ``scene_config``, by hand."""
    config = scene_config(preset, weights)
    run, q = runs_of(config, language), config.query
    rows = {side: run(1.0, False, side).weights for side in ("lab", "sharp")}
    article, noun = article_and_noun(config.sentence, language)
    return {"presets": [entropy(rows["lab"][q]), math.log2(7), max(rows["sharp"][q])],
            "article": [1, *[value for side in rows.values() for value in (side[article][noun], max(side[article]))]],
            "temperature": [*config.temperatures, *[max(run(t, False).weights[q]) for t in config.temperatures]],
            "temperature_plot": [2, *GUIDE_TEMPERATURES, *[max(run(t, False).weights[q]) for t in GUIDE_TEMPERATURES]]}


@pytest.mark.parametrize("preset, language, weights", [("lab", "es", "concentrated"), ("sharp", "es", "concentrated"),
                                                       ("lab", "en", "concentrated"), ("sharp", "en", "concentrated"),
                                                       ("lab", "es", "equal"), ("sharp", "es", "nouns")])
def test_the_scene_with_your_weights_says_yours_and_their_numbers(scenes, preset, language, weights):
    """Every caption and narration: no name of the weights yours replaced, the other preset's only beside yours;
    the numbers of the presets, exercise 1, temperature and exercise 2 steps as arithmetic gets them, and exercise
    2's "it falls towards uniform" only when its three top weights differ as written, step 7's "almost uniform
    weights" only when every row looks flat."""
    scene = scenes(preset, language, weights)
    expected = scene_numbers(preset, language, weights)
    for record in scene.steps:
        for text in (record.caption, (record.narration or {}).get("text", "")):
            assert misnamed(text, record.key, preset, language) == [], (record.key, text)
            if record.key in expected:
                assert [value for value in numbers(text)
                        if not any(written_as(value, number) for number in expected[record.key])] == [], text
        if record.key in ("presets", "temperature"):
            assert OWN[language] in record.caption.lower(), record.caption
    titles = [text.text for text in next(r for r in scene.steps if r.key == "presets").texts]
    assert load_locale(language)["pipeline"]["labels"]["title_own"] in titles
    falls = len({format_number(value) for value in expected["temperature_plot"][-3:]}) > 1
    plot = next(r for r in scene.steps if r.key == "temperature_plot").caption
    assert (FALLS[language] in plot) == falls, plot
    rows = runs_of(scene_config(preset, weights), language)(1.0, False).weights
    output = next(r for r in scene.steps if r.key == "output").caption
    assert ALIKE[language] not in output or all(max(row) <= 1.5 * min(row) for row in rows), output


@pytest.mark.parametrize("language, word", [("es", "entropía"), ("en", "entropy")])
def test_a_sentence_quoting_the_rows_bits_says_they_are_entropy(language, word):
    """The review heard «tiene 2.80 bits, cerca del máximo, 2.81» over a screen whose «máx. = 0.16» is the row's
    largest weight: a sentence that quotes the bits and their maximum names them as entropy."""
    quoting = [sentence for strings in load_locale(language)["pipeline"]["steps"].values()
               for name, text in strings.items() if name.startswith("narration")
               for sentence in sentences(text) if "{most_bits}" in sentence]
    assert quoting and [sentence for sentence in quoting if word not in sentence] == []
