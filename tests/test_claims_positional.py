"""The positional section's odd-d caption ("las curvas ya no coinciden") is said only where the curves from pos 0
and from the second start visibly part: for random odd d, positions and bases, the similarity step's caption and
narration (the variant ``lesson.positional_answers.odd_variant`` picks, as the scene does) against PE built here
from its formula, sin(pos / base^(2i/d)) and cos(pos / base^(2i/d)), and its dot products."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lesson.locale import load_locale
from lesson.positional_answers import odd_variant, second_start

PART = {"es": "ya no coinciden", "en": "no longer match"}
CLOSE = {"es": "menos de 0.005", "en": "less than 0.005"}


def largest_gap(n: int, d: int, base: float) -> float:
    """max over Δ of |PE_0 · PE_Δ - PE_s · PE_s+Δ|, s the second start, PE from its formula."""
    pe = np.zeros((n, d))
    for pos in range(n):
        for column in range(d):
            angle = pos / base ** (2 * (column // 2) / d)
            pe[pos, column] = np.sin(angle) if column % 2 == 0 else np.cos(angle)
    start = second_start(n)
    return max(abs(pe[0] @ pe[delta] - pe[start] @ pe[start + delta]) for delta in range(n - start))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 64), half=st.integers(1, 31), base=st.sampled_from([2.0, 10.0, 100.0, 1e4, 1e6, 1e9]),
       language=st.sampled_from(sorted(PART)))
@example(n=8, half=1, base=1e9, language="es").via("a lone sine too slow to part the curves")
@example(n=16, half=3, base=1e4, language="es").via("d = 7: the curves part")
def test_the_curves_part_only_where_they_do(n, half, base, language):
    d = 2 * half + 1
    strings = load_locale(language)["positional"]["steps"]["similarity"]
    variant = odd_variant(n, d, base)
    caption, narration = strings[f"caption_{variant}"], strings[f"narration_{variant}"]
    if round(largest_gap(n, d, base), 2) == 0:
        assert CLOSE[language] in caption and PART[language] not in caption + narration, caption
    else:
        assert PART[language] in caption and CLOSE[language] not in caption, caption
