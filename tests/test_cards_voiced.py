"""Review s7 (frames-b, "Title and end cards"): in a narrated lecture every section's cards are said, but the joined
lecture's title card (5 s) and end card (37 s) were silent. Now the voice that speaks the sections says the lesson's
title as the title card comes in and one sentence (where to read further) as the end card does; each card lasts at
least its voice and TAIL, its sound is the voice at the sections' speech level, and a narrated lecture's subtitles
carry the sentence while it is said. A silent lecture's cards stay silent. Drawn at 256 x 144, 5 fps, with a stand-in
voice of the narration's pace."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from lecture.render.jobs import Quality
from lecture.render.media import TextTracks, video_duration
from lecture.render.runner import SILENCE, CardJob, CardVideo, card_narration, draw_card, with_cards
from lesson.locale import load_locale
from lesson.narration_text import TAIL
from lesson.references import Card, lecture_cards
from scene_checks import PacedSpeaker, video_freezes
from scenes.cards import HOLD_MOST, OPENING_SECONDS
from sonify.mix import loudness, read_wav
from sonify.synth import SAMPLE_RATE

SPANISH = load_locale("es")
TINY = Quality(256, 144, 5)
FRAME = 1 / TINY.fps
LOUDNESS = -20.0  # LUFS: the speech level the sections' voices are brought to
LONG_TITLE = "Clase 04 — Atención, Transformers y todo lo que se calcula con ellos"  # said in over 5 s


def spoken_seconds(sentence: str) -> float:
    """How long the stand-in voice takes to say ``sentence`` (PacedSpeaker's pace, recomputed)."""
    return int(PacedSpeaker.WORD_SECONDS * len(sentence.split()) * SAMPLE_RATE) / SAMPLE_RATE


def drawn(folder: Path, card: Card, voice=None, name: str = "") -> tuple[list, list, Path]:
    stem = f"{name or card.kind}-{'voiced' if voice else 'silent'}"
    shown, said = draw_card(CardJob(card, TINY, "mp4", folder, stem, voice, SPANISH["spoken"], LOUDNESS))
    return shown, said, folder / f"{stem}.mp4"


@pytest.fixture(scope="module")
def cards():
    return lecture_cards(SimpleNamespace(course="AI Visual Lab", date=""), SPANISH, ["matrix", "learned"])


@pytest.fixture(scope="module")
def voiced(tmp_path_factory, cards):
    folder = tmp_path_factory.mktemp("voiced-cards")
    long_title = Card("opening", "Inicio", ("", LONG_TITLE, ""), f"{LONG_TITLE}.")
    return {name: drawn(folder, card, PacedSpeaker(), name) for name, card in
            (("opening", cards[0]), ("references", cards[1]), ("long", long_title))}


def test_the_cards_say_the_lessons_title_and_where_to_read_further(cards):
    assert cards[0].said == "Clase 4: Atención y Transformers. En 2 secciones; cada número en pantalla está calculado, " \
                            "y las referencias están al final."  # two sections listed: their count said over the list
    assert cards[1].said == SPANISH["cards"]["references_said"] and "leer más" in cards[1].said
    english = lecture_cards(SimpleNamespace(course="", date=""), load_locale("en"), ["matrix"])
    assert [card.said for card in english] == ["Lecture 4: Attention and Transformers.",  # one section: no list
                                               load_locale("en")["cards"]["references_said"]]


@pytest.mark.parametrize("name", ["opening", "references", "long"])
def test_a_cards_sentence_is_said_as_it_comes_in_and_the_card_lasts_its_voice(voiced, cards, name):
    _, said, video = voiced[name]
    sentence = {"opening": cards[0].said, "references": cards[1].said, "long": f"{LONG_TITLE}."}[name]
    (start, end, text), = said
    assert (start, text) == (0.0, sentence) and end == pytest.approx(spoken_seconds(sentence), abs=1e-3)
    least = {"opening": OPENING_SECONDS, "long": OPENING_SECONDS,
             "references": HOLD_MOST}[name]  # the whole list held, once in
    assert video_duration(video) >= max(least, end + TAIL) - FRAME
    if name == "long":  # a voice longer than the card's own time: the card waits for it, TAIL after it
        assert end + TAIL > OPENING_SECONDS and video_duration(video) == pytest.approx(end + TAIL, abs=FRAME)


@pytest.mark.parametrize("name", ["opening", "references"])
def test_a_cards_sound_is_its_voice_at_the_speech_level_then_silence(voiced, name):
    _, said, video = voiced[name]
    (start, end, _), = said
    sound = read_wav(video.with_suffix(".wav"))
    assert len(sound) == round(video_duration(video) * SAMPLE_RATE)
    assert loudness(sound) == pytest.approx(LOUDNESS, abs=1.0)
    voiced_part = sound[int((start + 0.1) * SAMPLE_RATE):int((end - 0.1) * SAMPLE_RATE)]
    assert np.sqrt(np.mean(voiced_part ** 2)) > 0.01
    assert np.abs(sound[int((end + 0.3) * SAMPLE_RATE):]).max() < 1e-3  # nothing after the voice (its room's tail)


def test_a_silent_lectures_cards_have_no_voice_and_no_sound_file(tmp_path, cards):
    for card in cards:
        shown, said, video = drawn(tmp_path, card)
        assert said == [] and shown and not video.with_suffix(".wav").exists()
    # a lecture of two sections: its title card lists them, then holds the list as the end card holds its own
    opening = tmp_path / "opening-silent.mp4"
    assert video_duration(opening) >= OPENING_SECONDS - FRAME and len(cards[0].agenda) == 2
    *_, (start, end) = video_freezes(opening, longest=0)
    assert end - start == pytest.approx(HOLD_MOST, abs=2 * FRAME) and end == pytest.approx(video_duration(opening))
    one = lecture_cards(SimpleNamespace(course="AI Visual Lab", date=""), SPANISH, ["matrix"])[0]
    assert one.agenda == ()
    drawn(tmp_path, one, name="one")
    assert video_duration(tmp_path / "one-silent.mp4") == pytest.approx(OPENING_SECONDS, abs=FRAME)


def test_a_narrated_lectures_subtitles_carry_each_cards_sentence_while_it_is_said(voiced, cards):
    (opening, ending) = [CardVideo(card, voiced[card.kind][2], tuple(voiced[card.kind][0]),
                                   tuple(voiced[card.kind][1]), voiced[card.kind][2].with_suffix(".wav"))
                         for card in cards]
    sections = TextTracks(((0.0, 100.0, "Matriz"),), ((1.0, 3.0, "una frase"),), "spa")
    tracks = with_cards(sections, [opening, ending], True, 100.0)
    first, last = opening.said[0], ending.said[0]
    title, end_start = opening.duration, opening.duration + 100.0
    assert tracks.cues == ((0.0, round(first[1], 3), cards[0].said), (round(1.0 + title, 3), round(3.0 + title, 3),
                           "una frase"), (round(end_start, 3), round(end_start + last[1], 3), cards[1].said))
    assert opening.soundtrack == voiced["opening"][2].with_suffix(".wav")
    silent = CardVideo(cards[0], opening.video, opening.shown)
    assert silent.soundtrack is SILENCE


@pytest.mark.parametrize("source", ["none", "/recordings"])
def test_no_voice_says_the_cards_of_a_silent_lecture_or_of_the_lecturers_recordings(source):
    narration = SimpleNamespace(source=source, silent=source == "none")
    assert card_narration(SimpleNamespace(config=SimpleNamespace(narration=narration))) is None
