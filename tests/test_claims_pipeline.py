"""The pipeline section's captions say nothing false of the lecturer's config: step 5's "√d_k = …" and
"√d_k · T = …" say "=" only of an exact number, "≈" of a rounded one; step 9 with the lecturer's own weights
speaks of "your weights" (never of the lab's random ones nor of the designed ones) and quotes the query's top
weight at the coldest and hottest temperature as plain arithmetic gets it. For random configs (the strategy of
test_pipeline_answers), filled in as the scene fills them (``lesson.pipeline_answers``)."""

from __future__ import annotations

import math
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lesson.locale import load_locale
from lesson.numbers import format_number, parse_number
from lesson.pipeline_answers import scaled_step, temperature_caption
from test_pipeline_answers import configs, runs_of

LAB = {"es": ("del lab", "diseñados"), "en": ("lab’s random", "designed")}  # what a caption names others' weights by
OWN = {"es": "tus pesos", "en": "your weights"}


def holds(relation: str, written: str, value: float) -> bool:
    """Whether "relation written" is true of ``value``: "=" exactly, "≈" rounded to the written number's last place."""
    decimals = len(re.split(r"[.,]", written + ".")[1])
    if parse_number(written) == value:
        return relation == "="
    return relation == "≈" and abs(parse_number(written) - value) <= 10.0 ** -decimals / 2 + 1e-12


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


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), language=st.sampled_from(sorted(OWN)))
def test_step_9_with_your_own_weights_says_what_they_do(config, language):
    strings = load_locale(language)["pipeline"]["steps"]["temperature"]
    key = temperature_caption(config)
    if not config.given_weights():
        assert key != "caption_own"
        return
    run, q = runs_of(config, language), config.query
    coldest, hottest = min(config.temperatures), max(config.temperatures)
    cold, hot = (max(run(t, config.causal).weights[q]) for t in (coldest, hottest))
    fields = {"query": config.tokens[q], "temperatures": "…", "coldest": format_number(coldest),
              "hottest": format_number(hottest), "coldest_max": format_number(cold), "hottest_max": format_number(hot)}
    for text in (strings[key].format(**fields), strings[key.replace("caption", "narration")].format(**fields)):
        assert OWN[language] in text and not any(other in text for other in LAB[language]), text
        assert format_number(cold) in text and format_number(hot) in text
