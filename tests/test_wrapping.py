"""Wrapped text in balanced lines (review s10: positional's step 10 ended «… W_Q y W_K pueden aprender columnas / así.»,
its notes «… cada fila, un / número»): as many lines as filling them leaves, of lengths as even as they can be, no
word cut."""

import textwrap

import pytest

from scenes.lesson_scene import balanced

# positional's step-10 note as it was when its greedy wrap left «así.» alone (the locale's note has changed since)
NOTE = "w₁ y w₂ están construidas a mano para mostrar que se puede: W_Q y W_K pueden aprender columnas así."


@pytest.mark.parametrize("characters", range(40, 100, 7))
def test_lines_are_even_and_as_few_as_filling_them_gives(characters):
    filled = textwrap.wrap(NOTE, characters)
    lines = balanced(NOTE, characters)
    assert len(lines) == len(filled) and " ".join(lines) == " ".join(filled)
    assert max(map(len, lines)) <= characters
    if len(lines) > 1:  # the shortest line at least half the longest: no lone last word
        assert min(map(len, lines)) >= max(map(len, lines)) / 2, lines


def test_the_greedy_wrap_left_a_lone_word_where_balancing_does_not():
    width = len(NOTE) - 5  # the note's width on screen leaves its last word, «así.», alone when filled greedily
    assert textwrap.wrap(NOTE, width)[-1] == "así."
    assert balanced(NOTE, width)[-1] != "así." and len(balanced(NOTE, width)) == 2


def test_a_long_word_is_never_cut_to_even_the_lines():
    assert balanced("a bcdefgh", 8) == ["a", "bcdefgh"]


def test_a_wrapped_text_keeps_every_character_when_a_line_would_end_at_a_hyphen():
    """Review s12's end card: «Memory-» / «Efficient …» broken at the hyphen, and the text's last character gone
    («NeurIPS» for «NeurIPS.»): ``wrapped_parts`` counts a line break as a space, and a hyphen break has none."""
    from manim import tempconfig

    from scenes import style
    from scenes.lesson_scene import wrapped_text
    from scenes.visuals import label_text

    text = "FlashAttention: Fast and Memory-Efficient Exact Attention. NeurIPS."
    width = label_text("FlashAttention: Fast and Memory-Efficient", style.TEXT, style.BODY_SIZE).width * 0.97
    with tempconfig({"dry_run": True}):
        drawn = wrapped_text(text, style.TEXT, style.BODY_SIZE, width)
    assert len(drawn.family_members_with_points()) == len("".join(text.split()))
    assert all("-" not in line[-1:] for line in balanced(text, 40))
