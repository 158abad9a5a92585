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
