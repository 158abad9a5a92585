"""A narration's markers: phrases cut where a play starts, the text read and subtitled without them."""

from lesson.narration_phrases import Phrase, phrases, plain, spoken_sentences

TEXT = "Primero, X. [[queries]] Luego multiplicamos X por W sub Q, [[cells]] celda por celda. Ya está."


def test_a_marker_opening_a_sentence_ties_the_whole_sentence_to_its_play():
    assert phrases(TEXT)[1] == Phrase("Luego multiplicamos X por W sub Q,", 1, "queries")


def test_a_marker_inside_a_sentence_cuts_it_into_two_phrases_of_the_same_sentence():
    assert phrases(TEXT)[2] == Phrase("celda por celda.", 1, "cells")
    assert [phrase.sentence for phrase in phrases(TEXT)] == [0, 1, 1, 2]


def test_phrases_without_a_marker_follow_the_one_before():
    assert [phrase.play for phrase in phrases(TEXT)] == ["", "queries", "cells", ""]


def test_the_text_heard_and_subtitled_has_no_marker_and_single_spaces():
    assert plain(TEXT) == "Primero, X. Luego multiplicamos X por W sub Q, celda por celda. Ya está."
    assert spoken_sentences(TEXT) == ["Primero, X.", "Luego multiplicamos X por W sub Q, celda por celda.",
                                      "Ya está."]


def test_the_phrases_hold_every_word_once():
    assert " ".join(phrase.text for phrase in phrases(TEXT)) == plain(TEXT)
