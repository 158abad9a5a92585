"""Question and closing cards (``lecture.questions``) as a viewer meets them: a predictive question on a card
just before the step that answers it, every other question after its step only with "all", none with "none";
a closing card only where the locale shows one, at most 12 s; card time at most a tenth of every section; and
every step's finished state on screen at least 4 s before anything replaces or dims it."""

import pytest
import srt

from lecture.render.captions import subtitle_text

from lesson.locale import load_locale
from lesson.sections import SECTIONS
from media_checks import manifest, tiny_clean_matrix, tiny_matrix
from scene_checks import FRAME as RECORDS_FRAME, run_scene, shared_scene, video_freezes
from test_records import records_survive_the_manifest
from scenes.lesson_scene import HEADER_SECONDS, LONGEST_FREEZE, reading_seconds

SPANISH = load_locale("es")
CARD_SHARE = 0.10  # of a section's length, at most
CLOSING_LONGEST = 12.0  # seconds
FINISHED_HOLD = 4.0  # seconds a finished step stays before anything replaces or dims it
FRAME = 1 / 5  # seconds: TINY's frame rate


@pytest.fixture(scope="module")
def default_scenes():
    return {section.id: shared_scene(section.id) for section in SECTIONS}


def words(text: str) -> str:
    return " ".join(text.split())


def step_strings(section_id: str, key: str) -> dict:
    return SPANISH[section_id]["steps"][key]


def test_predictive_questions_come_on_a_card_just_before_the_step_that_answers_them(default_scenes):
    asked = 0
    for section_id, scene in default_scenes.items():
        cards = iter(card for card in scene.cards if card.kind != "closing")
        for before, step in zip([None, *scene.steps], scene.steps):
            strings = step_strings(section_id, step.key)
            if not strings.get("predictive"):
                continue
            card = next(cards)
            asked += 1
            # The question as the scene filled it in for its config (test_<section>_answers.py check its numbers).
            question = scene.step_question(step.key).question
            assert (card.kind, card.key, card.text) == ("predictive", step.key, question)
            assert before.read_until - 1e-6 <= card.start and card.end <= step.start + 1e-6, (section_id, step.key)
            # Fading in, its reading time (a still screen of at most 6 s), fading out with the last step's drawing in
            # the first half of the step's header play: no shortened card. Each of the three lasts whole frames in the
            # video (a play its run time rounded up, a still wait rounded down).
            assert card.end - card.start == pytest.approx(0.5 + min(reading_seconds(card.text), LONGEST_FREEZE)
                                                          + HEADER_SECONDS / 2, abs=2 * RECORDS_FRAME)
            assert words(question) in words(" ".join(text.text for text in card.texts))
        assert next(cards, None) is None, f"{section_id}: a card no predictive question asked for"
    assert asked >= len(SECTIONS)  # about one or two a section


def test_card_time_is_at_most_a_tenth_of_every_section(default_scenes):
    for section_id, scene in default_scenes.items():
        card_time = sum(card.end - card.start for card in scene.cards)
        assert card_time <= CARD_SHARE * scene.renderer.time, (section_id, card_time, scene.renderer.time)


def test_closing_cards_only_where_the_locale_shows_one_and_at_most_12_s(default_scenes):
    closed = set()
    for section_id, scene in default_scenes.items():
        closing = [card for card in scene.cards if card.kind == "closing"]
        if SPANISH["closing"].get(section_id, {}).get("shown"):
            (card,) = closing
            assert card.end == pytest.approx(scene.renderer.time)  # the section ends on it
            assert card.end - card.start <= CLOSING_LONGEST
            closed.add(section_id)
        else:
            assert closing == [], section_id
    assert closed == {"matrix", "heads"}  # the cost O(n²·d) and cross-attention: what the sections lead to


@pytest.fixture(scope="module")
def everything():
    """The matrix section with every question on a card, so it has question and closing cards (test_records reads
    it too)."""
    return run_scene("matrix", "lecture.questions='all'")


def test_all_poses_every_other_question_after_its_step_and_none_poses_no_card(default_scenes, everything):
    nothing = run_scene("matrix", "lecture.questions='none'")
    after = [card for card in everything.cards if card.kind == "question"]
    wanted = [step.key for step in everything.steps
              if "question" in step_strings("matrix", step.key) and not step_strings("matrix", step.key).get("predictive")]
    assert [card.key for card in after] == wanted and wanted
    for card in after:
        step = next(step for step in everything.steps if step.key == card.key)
        assert step.read_until - 1e-6 <= card.start < card.end <= step.end + 1e-6
        assert card.end - card.start <= 0.9 + min(reading_seconds(card.text), LONGEST_FREEZE) + 2 * RECORDS_FRAME
    assert [card.kind for card in everything.cards if card.kind != "question"] == \
        [card.kind for card in default_scenes["matrix"].cards]
    assert nothing.cards == []
    default = default_scenes["matrix"]
    assert nothing.renderer.time < default.renderer.time < everything.renderer.time


def test_every_finished_step_stays_at_least_4_s_before_anything_replaces_or_dims_it(default_scenes):
    for section_id, scene in default_scenes.items():
        for step in scene.steps:
            assert step.start <= step.settled <= step.read_until <= step.end, (section_id, step.key)
            assert step.read_until - step.settled >= FINISHED_HOLD - 1e-6, (section_id, step.key)


@pytest.fixture(scope="module")
def tiny_render(tmp_path_factory):
    out = tiny_matrix(tmp_path_factory)[0]  # the session's tiny render of the matrix section
    return out, manifest(out)["sections"]["matrix"]


def test_the_decoded_video_holds_each_finished_step_and_each_card_still(tiny_render):
    """Confirmed on the frames: from a step's ``settled`` to its ``read_until`` nothing moves, and a card holds
    still (no countdown bar) between its fade in and out."""
    out, entry = tiny_render
    still = video_freezes(out / entry["files"][0], longest=0)
    for step in entry["steps"]:
        assert any(start <= step["settled"] + FRAME and end >= step["read_until"] - FRAME for start, end in still), \
            (step["key"], step["settled"], step["read_until"])
    for card in entry["cards"]:
        held = max(min(end, card["end"]) - max(start, card["start"]) for start, end in still)
        least = 4.0 if card["kind"] == "closing" else min(reading_seconds(card["text"]), LONGEST_FREEZE)
        assert held >= least - 2 * FRAME, card


def test_the_manifest_lists_the_cards_and_the_captions_show_a_cards_text_while_it_is_up(tmp_path_factory):
    """In a clean render (no caption burned in), the captions are subtitles: a card's text is one while it is up."""
    out = tiny_clean_matrix(tmp_path_factory)
    entry = manifest(out)["sections"]["matrix"]
    assert entry["cards"] and {card["kind"] for card in entry["cards"]} <= {"predictive", "closing"}
    assert all(step["start"] <= step["settled"] <= step["read_until"] <= step["end"] for step in entry["steps"])
    captions = list(srt.parse((out / "01-matrix.srt").read_text(encoding="utf-8")))
    for card in entry["cards"]:
        during = [cue for cue in captions if cue.start.total_seconds() < card["end"] - 0.01
                  and cue.end.total_seconds() > card["start"] + 0.01]
        said = ([card["text"][:-len(card["answer"])].strip(), card["answer"]] if card.get("answer")
                else [card["text"]])  # a closing card's answer comes in a caption of its own, as it is drawn
        assert [words(cue.content) for cue in during] == [subtitle_text(text) for text in said], card
        # from the card's start, or from the end of a step that ended less than 1 s before it (what leaves the
        # screen between them leaves for the card: the next step's caption never comes before it)
        lead = [step["end"] for step in entry["steps"] if card["start"] - 1.0 <= step["end"] <= card["start"]]
        assert during[0].start.total_seconds() == pytest.approx(max(lead, default=card["start"]), abs=0.002)
        assert during[-1].end.total_seconds() == pytest.approx(card["end"], abs=0.002)


def test_the_scenes_records_survive_the_manifest_unchanged_but_for_rounding(everything):
    """test_records' check of the record types, here on this module's run with every card (not run twice)."""
    records_survive_the_manifest(everything)
