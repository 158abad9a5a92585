"""The scaling section's "÷ √d_k = …" says "=" only when √d_k is exactly the number written, "≈" when it is
rounded, and its narration says "about" then: for random d_k the scaled step's caption and narration, filled in
as the scene fills them (``lesson.scaling_answers.scaled_step``), against numpy's square root."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attn_math.scaling import scaling_demo
from lesson.locale import load_locale
from lesson.numbers import parse_number
from lesson.scaling_answers import scaled_step

ABOUT = {"es": "aproximadamente", "en": "about"}  # how each language's narration says a rounded number


def scaled_texts(d_k: int, language: str) -> tuple[str, str]:
    variant, fields = scaled_step(d_k, scaling_demo(d_k, 8, 0))
    strings = load_locale(language)["scaling"]["steps"]["scaled"]
    return (strings[variant].format(**fields),
            strings[variant.replace("caption", "narration", 1)].format(**fields))


@settings(max_examples=60, deadline=None)
@given(d_k=st.integers(1, 4096), language=st.sampled_from(sorted(ABOUT)))
@example(d_k=50, language="es").via("the issue's ÷ √50 = 7.07")
@example(d_k=64, language="es").via("a perfect square: exactly 8")
def test_the_root_is_equal_only_when_exact(d_k, language):
    caption, narration = scaled_texts(d_k, language)
    relation, written = re.search(rf"√{d_k} ([=≈]) ([0-9.,]+)", caption).groups()
    written = written.rstrip(".,")
    value, root = parse_number(written), float(np.sqrt(d_k))
    last_digit = 10.0 ** -len(re.split(r"[.,]", written + ".")[1])  # the written number's last place
    if value == root:
        assert relation == "=" and ABOUT[language] not in narration, caption
    else:  # rounded to its last digit
        assert relation == "≈" and abs(value - root) <= last_digit / 2 + 1e-12 and ABOUT[language] in narration, \
            caption
