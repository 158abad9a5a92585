"""The voice in step with the picture (scenes.lesson_scene): each phrase placed by the scene, a phrase tied to a
play starting with it and never before the voice has finished the phrase before, the voice quiet during a listening
moment, on a small scene whose speaker says each word in WORD seconds (no synthesis: the times are known)."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest
from manim import Square, tempconfig

from lesson.config import load_config
from lesson.locale import load_locale
from scenes.fades import Appear
from lesson.narration_text import TAIL
from scenes.lesson_scene import (FINISHED_HOLD, LISTEN_TAIL, PHRASE_GAP, WORDS_PER_SECOND, LessonScene,
                                 SceneJob)
from sonify.replay import sound_seconds
from sonify.synth import SAMPLE_RATE

WORD = 0.4  # seconds a word of the stand-in voice lasts
NARRATION = ("Primero miramos el cuadro. [[grow]] Ahora el cuadro crece despacio, [[land]] y se posa. "
             "Escucha. [[after]] Eso fue todo.")
STEPS = {"one": {"title": "Uno", "caption": "Un cuadro.", "narration": NARRATION}}


class WordSpeaker:
    """Each phrase as WORD seconds of a quiet tone per word; the phrases it was asked for, kept."""

    def __init__(self):
        self.asked: list[list[str]] = []

    def speak(self, name, phrases, spoken):
        self.asked.append(phrases)
        return [0.1 * np.sin(np.arange(int(WORD * len(phrase.split()) * SAMPLE_RATE)) / 10.0) for phrase in phrases]


class BeatsScene(LessonScene):
    section_id = "beats"
    STEPS = ("one",)

    @property
    def shown_steps(self):
        return self.STEPS

    def lesson(self):
        square = Square()
        self.begin_step("one")
        self.play(Appear(square), run_time=0.5)  # drawn while the first phrase is said
        self.beat("grow")
        self.play(square.animate.scale(1.5), run_time=2.0)
        self.beat("land")
        self.play(square.animate.shift([1, 0, 0]), run_time=0.5)
        with self.listening():
            self.cue("step", step=1)
            self.play(square.animate.shift([-1, 0, 0]), run_time=1.5)
        self.beat("after")


def run(scene_class=BeatsScene, speaker=WordSpeaker, steps=STEPS) -> LessonScene:
    locale = load_locale() | {"beats": {"steps": steps}}
    job = SceneJob(config=load_config(), locale=locale, narration=speaker and speaker())
    with tempfile.TemporaryDirectory() as media, tempconfig({
            "pixel_width": 256, "pixel_height": 144, "frame_rate": 30, "media_dir": media, "write_to_movie": False,
            "verbosity": "ERROR", "progress_bar": "none", "disable_caching": True}):
        scene = scene_class(job, skip_animations=True)
        scene.render()
    return scene


@pytest.fixture(scope="module")
def scene():
    return run()


def phrases(scene) -> dict[str, tuple[float, float, str]]:
    return {text: (start, end, play) for text, start, end, play in scene.steps[0].narration["phrases"]}


def test_each_phrase_is_spoken_apart_without_its_marker(scene):
    assert scene.job.narration.asked == [["Primero miramos el cuadro.", "Ahora el cuadro crece despacio,",
                                          "y se posa.", "Escucha.", "Eso fue todo."]]
    assert scene.steps[0].narration["text"] == ("Primero miramos el cuadro. Ahora el cuadro crece despacio, y se posa. "
                                                "Escucha. Eso fue todo.")


def test_the_first_phrase_starts_with_the_step_and_an_untied_one_follows_the_one_before(scene):
    spoken, step = phrases(scene), scene.steps[0]
    assert spoken["Primero miramos el cuadro."][:2] == pytest.approx((step.start, step.start + 4 * WORD))
    grow_end = spoken["Ahora el cuadro crece despacio,"][1]
    land_end = spoken["y se posa."][1]
    assert spoken["Escucha."][0] == pytest.approx(land_end + PHRASE_GAP)  # no play of its own: right after
    assert grow_end < land_end


def test_a_tied_phrase_waits_for_the_voice_and_starts_with_its_play(scene):
    """The grow play starts only once "Primero miramos el cuadro." is said (it is not drawn before its words),
    and the phrase about it starts at the same moment; the play that moves the square after "crece despacio"
    waits until that phrase is done."""
    spoken, step = phrases(scene), scene.steps[0]
    first_end = step.start + 4 * WORD
    grow_start, grow_end, grow_play = spoken["Ahora el cuadro crece despacio,"]
    assert grow_play == "grow" and grow_start == pytest.approx(first_end + PHRASE_GAP, abs=1 / 30)
    land_start, _, land_play = spoken["y se posa."]
    assert land_play == "land" and land_start >= grow_end + PHRASE_GAP - 1e-6
    assert any(abs(end - grow_start) < 1e-6 for _, end in scene.freezes), scene.freezes
    assert any(abs(end - land_start) < 1e-6 for _, end in scene.freezes), scene.freezes


def test_no_phrase_is_said_during_a_listening_moment_and_its_cues_say_so(scene):
    [(start, end)] = scene.steps[0].narration["listening"]
    assert end - start == pytest.approx(1.5 + LISTEN_TAIL, abs=1 / 30)
    for text, (begin, finish, _) in phrases(scene).items():
        assert finish <= start or begin >= end - 1e-6, text
    listened = [cue for cue in scene.cues if cue.listen]
    assert [cue.kind for cue in listened] == ["step"] and start - 1e-6 <= listened[0].time <= end
    assert phrases(scene)["Eso fue todo."][0] >= end - 1e-6


def test_the_step_lasts_the_whole_voice_and_the_sentences_span_their_phrases(scene):
    step, spoken = scene.steps[0], phrases(scene)
    last_end = spoken["Eso fue todo."][1]
    assert step.read_until >= last_end
    sentence = next(item for item in step.narration["sentences"] if item[0].startswith("Ahora"))
    assert sentence == ["Ahora el cuadro crece despacio, y se posa.",
                        pytest.approx(spoken["Ahora el cuadro crece despacio,"][0]), pytest.approx(spoken["y se posa."][1])]
    assert [start for _, start, _ in step.narration["sentences"]] == sorted(start for _, start, _ in step.narration["sentences"])
    assert sum(len(voice) for _, voice in scene.voices) == pytest.approx(
        WORD * len(step.narration["text"].split()) * SAMPLE_RATE, abs=5)


class NoBeats(BeatsScene):
    def beat(self, name):  # a scene that forgets its beats: the tied phrases are still said, in order, at the end
        pass


def test_phrases_whose_play_never_comes_are_still_said_in_order_tied_to_nothing():
    spoken = phrases(run(NoBeats))
    starts = [spoken[text][0] for text in ("Primero miramos el cuadro.", "Ahora el cuadro crece despacio,",
                                           "y se posa.", "Escucha.", "Eso fue todo.")]
    assert starts == sorted(starts)
    assert {play for _, _, play in spoken.values()} == {""}  # the manifest does not claim a play they started with


def test_a_spoken_steps_caption_is_not_burned_in_a_silent_steps_is():
    """Subtitles carry a spoken step's words; its caption on screen too would give a viewer two texts at once."""
    assert "Un cuadro." not in [text.text for text in run().steps[0].texts]
    assert "Un cuadro." in [text.text for text in run(speaker=None).steps[0].texts]


class Filled(BeatsScene):
    """A reveal that fills the step's reading time, as the lab's matrices do."""

    def lesson(self):
        self.begin_step("one")
        self.play(Appear(Square()), run_time=self.reveal_seconds(fill_after=0.0))


def test_a_spoken_step_is_not_held_for_reading_a_caption_that_is_not_on_screen():
    """A 40-word caption takes 16 s to read; said by a voice in 3 words (1.2 s) it is not on screen, so the step
    lasts its voice (and its finished state's hold), its reveal not stretched to fill 16 s: silent minutes came
    from that. The silent step still gives the caption its 16 s."""
    caption = " ".join(["palabra"] * 40) + "."
    steps = {"one": {"title": "Uno", "caption": caption, "narration": "Miramos el cuadro."}}
    spoken, silent = run(Filled, steps=steps).steps[0], run(Filled, speaker=None, steps=steps).steps[0]
    assert silent.read_until - silent.start >= 40 / WORDS_PER_SECOND - 1e-6
    assert spoken.read_until - spoken.start < 40 / WORDS_PER_SECOND / 2
    assert spoken.read_until >= spoken.start + spoken.narration["seconds"] + TAIL - 1e-6
    assert spoken.read_until >= spoken.settled + FINISHED_HOLD - 1e-6


class LongSound(BeatsScene):
    """A listening moment whose sound (the comparison of two outputs, 1.5 s) outlasts its play (0.2 s)."""

    def lesson(self):
        self.begin_step("one")
        square = Square()
        self.beat("grow")
        with self.listening():
            self.cue("outputs_compared", with_pe=True, max_difference=0.5)
            self.play(Appear(square), run_time=0.2)
        self.beat("after")


def test_the_voice_goes_on_only_once_the_listening_moments_last_sound_has_rung_out():
    scene = run(LongSound)
    [(start, end)] = scene.steps[0].narration["listening"]
    [cue] = [cue for cue in scene.cues if cue.listen]
    assert end >= cue.time + sound_seconds(cue) - 1e-6 and sound_seconds(cue) > 0.2 + LISTEN_TAIL
    assert phrases(scene)["Eso fue todo."][0] >= end - 1e-6


def test_a_beat_without_a_name_is_refused():
    class Nameless(BeatsScene):
        def lesson(self):
            self.begin_step("one")
            self.beat("")

    with pytest.raises(ValueError, match="needs a name"):
        run(Nameless)
