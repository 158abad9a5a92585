"""Capital under its voice (issue 43, "stills under the voice"): with a stand-in voice at the narration's pace, the
screen follows the voice: no stretch of still screen over 6 s outside the cards (five of 7-10 s before: scores,
distribution, other_country, drag, mirror), no sentence split by a long pause while a matrix fades in (the logits'
«las otras seis son nulas, … así que su logit es cero» waited 9.7 s for W_out, b_out and the logits), and each phrase
that names something on screen starts with the play that shows it."""

import pytest

from tests.scene_checks import PacedSpeaker, run_scene, stills_outside_cards

LONGEST_PAUSE_IN_A_SENTENCE = 1.0  # seconds: a breath at a comma, not a wait for a fade
TIED = {  # step: the narration's markers whose phrase must start with its play (each a play that shows what it names)
    "embeddings": {"country"},
    "projections": {"query", "key", "value", "rows"},  # «Cada fila de V es …» as V fills (10.4 s without words)  # the country's cell framed as «el país, el tercero, aquí vale +1.00» is said
    "scores": {"query", "best"},
    "logits": {"columns", "bias", "logits", "brace"},
    "distribution": {"prediction", "if_right", "loss"},
    "other_country": {"same", "travels", "decides", "brings"},
    "drag": {"swept", "together"},
    "mirror": {"plus", "minus", "roma"},
}


@pytest.fixture(scope="module")
def paced():
    return run_scene("capital", narration=PacedSpeaker())


@pytest.fixture(scope="module", params=[("capital.identity=0.0",), ("capital.identity=-0.37", 'lecture.lang="en"')],
                ids=["tie", "off_grid_english"])
def other_paced(request):
    """The tie (its distribution says another narration) and an English drag from an identity off the grid."""
    return run_scene("capital", *request.param, narration=PacedSpeaker())


def test_nothing_stands_still_over_six_seconds_outside_the_cards(paced):
    assert stills_outside_cards(paced) == []


def test_nor_in_the_tie_or_in_english(other_paced):
    assert stills_outside_cards(other_paced) == []


def test_no_sentence_waits_for_a_fade_in_the_middle(paced):
    """Within one sentence, the voice goes on from phrase to phrase with at most a breath between two (a listening
    moment aside: the voice stops there on purpose)."""
    pauses = []
    for record in paced.steps:
        narration = record.narration
        listening = narration.get("listening", [])
        for text, start, end in narration.get("sentences", []):
            parts = sorted((a, b) for _, a, b, _ in narration["phrases"] if start - 1e-6 <= a and b <= end + 1e-6)
            for (_, before_end), (after_start, _) in zip(parts, parts[1:]):
                heard = any(before_end - 1e-6 <= a and b <= after_start + 1e-6 for a, b in listening)
                if after_start - before_end > LONGEST_PAUSE_IN_A_SENTENCE and not heard:
                    pauses.append((record.key, text[:40], round(after_start - before_end, 1)))
    assert pauses == []


@pytest.mark.parametrize("key", sorted(TIED))
def test_each_phrase_that_names_the_screen_starts_with_its_play(paced, key):
    record = next(step for step in paced.steps if step.key == key)
    assert {play for _, _, _, play in record.narration["phrases"] if play} == TIED[key]


def test_v_fills_under_words(paced):
    """Review s9 (capital, 64.9-75.3): V filled row by row for 10.4 s after the voice's last phrase. Now a phrase
    says what a row of V is while it fills: no gap over 6 s between the step's phrases, nor after its last."""
    record = next(step for step in paced.steps if step.key == "projections")
    times = sorted((start, end) for _, start, end, _ in record.narration["phrases"])
    gaps = [after - before for (_, before), (after, _) in zip(times, times[1:])] + [record.end - times[-1][1]]
    assert max(gaps) < 6.0, gaps
