"""Issues 43 and 44: in a narrated lecture the voice reads the cards (scenes.lesson_scene.say_card). A closing card
was 11 s of digital silence: now its title, statement and question are said as it appears and its answer as the
answer appears, the card lasting its voice; a predictive question is said on its card; the subtitles carry the
card's words as they are said. Run on the heads and matrix sections with a stand-in voice of known pace."""

from __future__ import annotations

import pytest

from lecture.render.captions import section_tracks, subtitle_text
from lesson.locale import load_locale
from lesson.questions import answer_parts
from lesson.narration_phrases import plain
from lesson.narration_text import TAIL, voice_text
from scene_checks import FRAME, PacedSpeaker, freezes, run_scene
from test_locale_questions import closing_fields
from scenes.lesson_scene import CARD_LINE_SECONDS, FINISHED_HOLD, HEADER_SECONDS, LONGEST_FREEZE, PHRASE_GAP, \
    THINK_SECONDS
from sonify.synth import SAMPLE_RATE

SPANISH = load_locale("es")
APPEARING = 0.6  # seconds: a closing card fades in (its voice starts with it)
ANSWER_APPEARING = CARD_LINE_SECONDS  # seconds: its answer comes as it is said (0.25 s: a slower fade of grey text reads as still)
END_WAIT = 0.5  # seconds: a section's last frames after its last step (LessonScene.construct)


class CountingSpeaker(PacedSpeaker):
    """The stand-in voice, keeping the phrases it was asked to say by file name."""

    def __init__(self):
        self.asked: dict[str, list[str]] = {}

    def speak(self, name, phrases, spoken):
        self.asked[name] = phrases
        return super().speak(name, phrases, spoken)


@pytest.fixture(scope="module")
def heads():
    speaker = CountingSpeaker()
    return run_scene("heads", narration=speaker), speaker


def voiced_spans(scene, start: float, end: float) -> list[tuple[float, float]]:
    """The voice's (start, end) within ``start``-``end``, merged where they touch, from the scene's placed voices."""
    voices = [(begin, begin + len(voice) / SAMPLE_RATE) for begin, voice in scene.voices]
    spans = sorted((max(begin, start), min(until, end)) for begin, until in voices if begin < end and until > start)
    merged = []
    for begin, until in spans:
        if merged and begin <= merged[-1][1] + 1e-6:
            merged[-1] = (merged[-1][0], max(merged[-1][1], until))
        else:
            merged.append((begin, until))
    return merged


def longest_silence(scene, start: float, end: float) -> float:
    """The longest stretch of ``start``-``end`` the voice does not cover."""
    bounds = [start, *[time for span in voiced_spans(scene, start, end) for time in span], end]
    return max(until - begin for begin, until in zip(bounds[::2], bounds[1::2]))


def test_the_closing_card_is_spoken_from_its_appearing_to_its_end_and_its_answer_after_it_appears(heads):
    scene, speaker = heads
    [card] = [card for card in scene.cards if card.kind == "closing"]
    closing = SPANISH["closing"]["heads"]
    said = speaker.asked[next(name for name in speaker.asked if name.endswith("-closing"))]
    assert said == [f"{closing['title']}.", closing["text"], closing["question"], closing["answer"]]
    # The question's line and then the answer's come on the card as they are said: no still screen over 6 s.
    assert [phrase[3] for phrase in card.narration["phrases"]] == ["", "", "question", "answer"]
    assert [(start, end) for start, end in freezes(scene) if start >= card.start - 1e-6
            and end - start > LONGEST_FREEZE + 1e-6] == []
    # No silence on the card longer than its fading in, the gaps between phrases, or the hold after the answer.
    answer_start = card.narration["phrases"][-1][1]
    question_end = card.narration["phrases"][-2][2]
    assert longest_silence(scene, card.start, question_end) <= APPEARING + 2 * FRAME
    # then time to think: the answer came 0.3 s after the question was said (review s12)
    assert answer_start - question_end == pytest.approx(THINK_SECONDS, abs=2 * FRAME) and THINK_SECONDS >= 2.0
    assert longest_silence(scene, card.start, card.end) <= FINISHED_HOLD + END_WAIT + 2 * FRAME
    assert card.narration["phrases"][-1][0] == closing["answer"]
    # said as it appears, never before (a phrase's times are kept to 0.1 ms: half of that is rounding)
    assert card.answered - 5e-5 <= answer_start <= card.answered + FRAME
    previous_end = card.narration["phrases"][-2][2]
    assert card.answered >= previous_end + PHRASE_GAP - 1e-6  # the question has been asked before the answer shows
    # The card lasts its voice: TAIL after it, and the answer's FINISHED_HOLD, then the section's last frames.
    voice_end = card.narration["phrases"][-1][2]
    assert card.end == pytest.approx(max(voice_end + TAIL, card.answered + ANSWER_APPEARING + FINISHED_HOLD)
                                     + END_WAIT, abs=2 * FRAME)


@pytest.fixture(scope="module")
def matrix():
    speaker = CountingSpeaker()
    return run_scene("matrix", narration=speaker), speaker


def test_a_predictive_question_is_said_on_its_card(matrix):
    scene, speaker = matrix
    [card] = [card for card in scene.cards if card.kind == "predictive"]
    assert speaker.asked[card.narration["file"]] == [card.text]
    (text, start, end), = [phrase[:3] for phrase in card.narration["phrases"]]
    assert text == card.text and start == pytest.approx(card.start, abs=1e-3)  # as the card fades in
    # time to guess after its voice (it left 0.9-1.4 s: review s11); it leaves in the first half of the step's header play
    assert card.end - HEADER_SECONDS / 2 == pytest.approx(max(end + THINK_SECONDS, start + 0.5 + FINISHED_HOLD),
                                                         abs=2 * FRAME)
    assert card.end - HEADER_SECONDS / 2 - end >= 2.0 - FRAME  # seconds to think, measured from the voice's end
    assert longest_silence(scene, start, end) < 1e-3  # its voice is in the soundtrack


def test_a_long_answer_comes_in_the_parts_its_voice_says_and_no_card_stands_still_over_6_s(matrix):
    """Matrix's answer (its cost, then the alivios) took 8 s to say under one still card: each part now comes on the
    card as its phrase is said."""
    scene, _ = matrix
    [card] = [card for card in scene.cards if card.kind == "closing"]
    answer = SPANISH["closing"]["matrix"]["answer"].format(**closing_fields("matrix"))
    said = [(text, start, play) for text, start, _, play in card.narration["phrases"]]
    relief = next(start for text, start, play in said if play == "relief")
    assert [text for text, _, play in said if play in ("answer", "relief")] == \
        [answer[:answer.index("alivios")].strip(), answer[answer.index("alivios"):]]
    # The first part shows as it is said, the screen waits, and the second part's play starts with its phrase.
    assert card.answered == pytest.approx(next(start for _, start, play in said if play == "answer"), abs=FRAME)
    assert any(end == pytest.approx(relief, abs=FRAME) for start, end in freezes(scene) if start > card.answered)
    assert [(start, end) for start, end in freezes(scene) if start >= card.start - 1e-6
            and end - start > LONGEST_FREEZE + 1e-6] == []


def test_the_subtitles_carry_the_cards_words_as_they_are_said(heads):
    scene, _ = heads
    [card] = [card for card in scene.cards if card.kind == "closing"]
    cues = section_tracks(scene.steps, scene.renderer.time, scene.cards).cues
    on_card = [(start, end, " ".join(text.split())) for start, end, text in cues if start >= card.start - 1e-3]
    closing = SPANISH["closing"]["heads"]
    assert " ".join(text for _, _, text in on_card) == " ".join(
        subtitle_text(part) for part in (f"{closing['title']}.", closing["text"], closing["question"],
                                         closing["answer"]))
    [answer_cue] = [cue for cue in on_card if cue[2] == subtitle_text(closing["answer"])]
    assert answer_cue[0] >= card.answered - 1e-3


def test_a_silent_run_keeps_its_reading_holds():
    scene = run_scene("heads")
    [card] = [card for card in scene.cards if card.kind == "closing"]
    assert card.narration == {} and scene.voices == []


@pytest.mark.parametrize("lang, written, said", [
    ("es", "Lo que cuesta: O(n²·d_k)", "Lo que cuesta: orden de ene al cuadrado por de sub ka"),
    ("es", "QKᵀ: 4² · 8", "cu por ka transpuesta: 4 al cuadrado por 8"),
    ("en", "What it costs: O(n²·d_k)", "What it costs: order n squared times d sub k")])
def test_the_cost_formula_is_said_as_a_lecturer_says_it(lang, written, said):
    assert voice_text(written, load_locale(lang)["spoken"]) == said


@pytest.mark.parametrize("language", ["es", "en"])
def test_a_closings_spoken_form_ties_its_answer_to_its_appearing_and_fills_in_the_scenes_fields(language):
    """A closing's ``narration`` (the matrix's: its card's sum is long to say) brings the question's line once, then
    says the answer after ``[[answer]]``, ending on the card's answer, and fills in only what the scene gives."""
    spoken = {section_id: strings["narration"] for section_id, strings in load_locale(language)["closing"].items()
              if "narration" in strings}
    assert "matrix" in spoken
    for section_id, narration in spoken.items():
        filled = narration.format(**closing_fields(section_id))
        answer = load_locale(language)["closing"][section_id]["answer"].format(**closing_fields(section_id))
        asked, said_answer = filled.split("[[answer]]")
        assert plain(said_answer) == answer and asked.count("[[question]]") == 1 and "[[answer]]" not in asked
        assert filled.count("¿") == filled.count("?") or language != "es"


def test_an_answer_part_the_card_does_not_write_is_refused():
    """The card shows the parts the voice says: a marked part that is not the answer's words would show other words
    than are said, so the locale is refused by name."""
    assert answer_parts("12 millones: caro; alivios: dispersa.", "[[answer]] 12 millones: caro; [[relief]] "
                        "alivios: dispersa.") == [("answer", "12 millones: caro;"), ("relief", "alivios: dispersa.")]
    assert answer_parts("12 millones.", "[[question]] ¿cuánto? [[answer]] 12 millones.") == [("answer", "12 millones.")]
    with pytest.raises(ValueError, match=r"\[\[relief\]\] says 'otra cosa\.'"):
        answer_parts("12 millones: caro.", "[[answer]] 12 millones: caro; [[relief]] otra cosa.")
