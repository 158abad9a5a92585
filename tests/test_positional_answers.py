"""The positional section's questions and answers follow the lecturer's n_positions, d_model and base: for random
valid configs, each answer is read back into its fields (tests/answer_texts.py, from the locale's text alone) and
each is checked against PE computed here with math.sin and math.cos: the periods of the waves, whether the slowest
column still changes between neighbours, how far the slowest hand turns beside the fastest, how far an odd d's
curves part. Answers without fields read the same for every config (the notes' fixed examples).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lesson.locale import load_locale
from lesson.positional_answers import question_fields
from lesson.questions import step_question
from lesson.section_config import PositionalConfig
from tests.answer_texts import numbers, read_back, written_as

STEPS = ("permutation", "with_pe", "formula", "heatmap", "frequencies", "waves", "clock_hands", "similarity", "table",
         "sum")
LONG_TEXT = 1000  # positions: "a long text", the context the closing cards price
DEFAULT = PositionalConfig(n_positions=32, d_model=16, base=10000.0)


def pe(pos: int, d: int, base: float) -> list[float]:
    """PE(pos): sin and cos of pos / base^(2i/d), column by column."""
    return [(math.sin if j % 2 == 0 else math.cos)(pos / base ** ((j - j % 2) / d)) for j in range(d)]


def answers(config: PositionalConfig, language: str):
    locale = load_locale(language)
    fields = question_fields(config)
    got = {key: step_question("positional", key, locale, fields.get(key)) for key in STEPS}
    return locale["positional"]["steps"], {key: question.answer for key, question in got.items()}


def one_number(text: str) -> tuple[float, float]:
    (found,) = numbers(text)
    return found


def check(config: PositionalConfig, language: str):
    n, d, base = config.n_positions, config.d_model, config.base
    strings, got = answers(config, language)
    read = {key: read_back(got[key], strings[key]) for key in STEPS}
    base_written = lambda fields: written_as(one_number(fields["base"]), base)
    omegas = [base ** (-2 * i / d) for i in range((d + 1) // 2)]  # one per sin column 2i

    variant, fields = read["frequencies"]
    last = 2 * (len(omegas) - 1)
    steps = [abs(pe(pos + 1, d, base)[last] - pe(pos, d, base)[last]) for pos in range(min(6, n) - 1)]
    assert variant == ("one" if d == 2 else "all" if max(steps, default=0) >= 0.05 else "")
    assert variant != "all" or base_written(fields)

    variant, fields = read["waves"]
    periods = [2 * math.pi / omega for omega in omegas]
    assert variant == ("one" if d == 2 else "" if periods[-1] >= LONG_TEXT else "short")
    assert written_as(one_number(fields["shortest"]), periods[0])
    if variant != "one":
        assert int(fields["count"]) == len(periods) and written_as(one_number(fields["longest"]), periods[-1])
    assert variant != "short" or (base_written(fields) and fields["long"] == str(LONG_TEXT))

    variant, fields = read["clock_hands"]
    share = base ** (-2 * (d // 2 - 1) / d)  # the slowest pair's ω over the fastest's (ω = 1)
    assert variant == ("one" if d < 4 else "" if share < 0.1 else "close")
    assert variant != "close" or (written_as(one_number(fields["share"]), share) and base_written(fields))

    variant, fields = read["similarity"]
    if d % 2 == 0:
        assert variant == ""
    else:
        second = max(1, n // 4)
        gap = max(abs(sum(a * b for a, b in zip(pe(0, d, base), pe(delta, d, base)))
                      - sum(a * b for a, b in zip(pe(second, d, base), pe(second + delta, d, base))))
                  for delta in range(n - second))
        assert int(fields["second"]) == second
        assert (variant == "odd" and written_as(one_number(fields["gap"]), gap)) or (variant == "odd_close"
                                                                                     and gap < 0.005)
    assert all(int(fields["d"]) == d for _, fields in read.values() if "d" in fields)
    _, default = answers(DEFAULT, language)
    assert [key for key in STEPS if not read[key][1] and got[key] != default[key]] == []


@pytest.mark.parametrize("language", ["es", "en"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 64), d=st.integers(2, 64), exponent=st.floats(0.0005, 9.0))
def test_every_claim_of_an_answer_is_the_lecturers_encoding(n, d, exponent, language):
    check(PositionalConfig(n_positions=n, d_model=d, base=10.0 ** exponent), language)


def test_the_default_answers_as_the_notes_work_it_out():
    """The default (d = 16, base 10000): 8 frequencies with periods from 2π ≈ 6.28 to 2π·10000^(14/16) ≈ 2.0·10⁴;
    the notes' three tokens with d = 4: PE(2) = (sin 2, cos 2, sin 0.02, cos 0.02) = (0.91, −0.42, 0.02, 1.00)."""
    _, got = answers(DEFAULT, "es")
    assert got["waves"].startswith("Con períodos geométricos, de 6.28 a 2.0·10⁴ posiciones, 8 frecuencias cubren")
    written = ", ".join(f"{value:.2f}".replace("-", "−") for value in pe(2, 4, 10000.0))
    assert got["table"].startswith(f"Se suma PE(2) = ({written})")
    for key in ("frequencies", "clock_hands", "similarity"):
        assert got[key] == load_locale("es")["positional"]["steps"][key]["answer"]
