"""The questions for the class as both locales write them: every step question has its answer (for the speaker
notes and the handout), a few are *predictive* (posed on a card just before the step that answers them: at
most two a section, never before a section's first step, each read in at most 6 s), and only the matrix's and
the heads' closings are shown, each read in at most 10 s, with numbers filled in from the fields the scenes give."""

import re
from string import Formatter

import pytest

from attn_math.attention import self_attention
from attn_math.heads import tokenize
from attn_math.lab import lab_tokens
from lesson.config import load_config
from lesson.locale import languages, load_locale
from lesson.sections import BY_ID, SECTIONS
from scenes.lesson_scene import reading_seconds

LANGUAGES = languages()
PREDICTIVE_MOST = 2  # a section's predictive questions
PREDICTIVE_READING = 6.0  # seconds: a predictive question's card holds still no longer
CLOSING_READING = 10.0  # seconds: a shown closing's statement and question, then its answer
SHOWN_CLOSINGS = {"matrix", "heads"}  # the O(n²·d) cost and cross-attention: where the sections lead
CARD_PARTS = ("title", "text", "question", "answer")
# A sentence ends at . ! ? followed by a space and what starts a sentence (not at a decimal point).
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[¿¡«“\"A-ZÁÉÍÓÚÑ])")
QUOTED_WORD = re.compile(r"[«“](\w+)[»”]")  # a token as the locale quotes it: «gato», “cat”


def step_tables(language: str):
    """(section id, step key, its position from 1, the step's locale table) in the order the scenes show them."""
    locale = load_locale(language)
    for section in SECTIONS:
        for number, key in enumerate(section.scene().STEPS, start=1):
            yield section.id, key, number, locale[section.id]["steps"][key]


def closing_fields(section_id: str) -> dict:
    """The fields the section's scene formats its closing with, from the scene's own ``closing_fields`` on an
    instance that was never rendered: the matrix's also reads the example it computed, here the default's."""
    scene = object.__new__(BY_ID[section_id].scene())
    if section_id == "matrix":
        settings = load_config().matrix
        scene.result = self_attention(**settings.matrices(), scale=settings.scale, causal=settings.causal)
    return scene.closing_fields()


def closing_texts(language: str, section_id: str) -> dict[str, str]:
    strings = load_locale(language)["closing"][section_id]
    fields = closing_fields(section_id)
    return {part: strings[part].format(**fields) for part in CARD_PARTS}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_step_question_has_an_answer_and_every_answer_a_question(language):
    problems = [(section_id, key) for section_id, key, _, strings in step_tables(language)
                if bool(strings.get("question", "").strip()) != bool(strings.get("answer", "").strip())
                or ("question" in strings) != ("answer" in strings)]
    assert problems == []
    assert any("answer" in strings for *_, strings in step_tables(language))


@pytest.mark.parametrize("language", LANGUAGES)
def test_answers_take_one_or_two_sentences(language):
    answers = [strings["answer"] for *_, strings in step_tables(language) if "answer" in strings]
    answers += [strings["answer"] for strings in load_locale(language)["closing"].values()]
    assert [answer for answer in answers if len(SENTENCE_END.split(answer.strip())) > 2] == []


def test_spanish_questions_and_answers_open_what_they_close():
    """¿…? and ¡…! in pairs (a guide's exercise may be an instruction rather than a question)."""
    texts = [(key, part, strings[part]) for _, key, _, strings in step_tables("es")
             for part in ("question", "answer") if part in strings]
    texts += [(section_id, part, text) for section_id in load_locale("es")["closing"]
              for part, text in closing_texts("es", section_id).items()]
    unpaired = [(key, part, text) for key, part, text in texts
                if text.count("¿") != text.count("?") or text.count("¡") != text.count("!")]
    assert unpaired == []
    assert any("¿" in text for *_, text in texts)


@pytest.mark.parametrize("language", LANGUAGES)
def test_predictive_questions_at_most_two_a_section_never_first_and_read_in_6_s(language):
    by_section: dict[str, list[str]] = {}
    for section_id, key, number, strings in step_tables(language):
        assert strings.get("predictive", False) in (True, False), (section_id, key)  # a TOML boolean
        if strings.get("predictive"):
            assert number > 1, f"{section_id}.{key}: nothing comes before a section's first step to pose it on"
            assert reading_seconds(strings["question"]) <= PREDICTIVE_READING, (section_id, key, strings["question"])
            by_section.setdefault(section_id, []).append(key)
    assert all(len(keys) <= PREDICTIVE_MOST for keys in by_section.values()), by_section
    assert by_section, "no predictive question at all"


def test_both_locales_ask_the_same_questions_at_the_same_steps():
    spanish, english = list(step_tables("es")), list(step_tables("en"))
    asks = lambda tables: [(section_id, key, "question" in strings, strings.get("predictive", False))
                           for section_id, key, _, strings in tables]
    assert asks(spanish) == asks(english)
    shown = lambda language: {section_id: strings.get("shown")
                              for section_id, strings in load_locale(language)["closing"].items()}
    assert shown("es") == shown("en")


@pytest.mark.parametrize("language", LANGUAGES)
def test_only_the_matrix_and_heads_closings_are_shown(language):
    closings = load_locale(language)["closing"]
    assert {section.id for section in SECTIONS} <= set(closings)  # the others stay for the notes and handout
    assert all(strings.get("shown") in (True, False) for strings in closings.values()), closings
    assert {section_id for section_id, strings in closings.items() if strings["shown"]} == SHOWN_CLOSINGS


@pytest.mark.parametrize("language", LANGUAGES)
def test_shown_closings_are_read_in_10_s(language):
    for section_id in SHOWN_CLOSINGS:
        texts = closing_texts(language, section_id)
        seconds = reading_seconds(f"{texts['text']} {texts['question']}") + reading_seconds(texts["answer"])
        assert seconds <= CLOSING_READING, (section_id, seconds, texts)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_closing_fills_in_only_fields_its_scene_gives(language):
    """Shown or not (the notes and handout fill them in too): no field the scene lacks, no brace left over."""
    for section_id, strings in load_locale(language)["closing"].items():
        fields = closing_fields(section_id)
        used = {name for part in CARD_PARTS for _, name, _, _ in Formatter().parse(strings[part]) if name}
        assert used <= set(fields), (section_id, used - set(fields))
        assert not any("{" in text or "}" in text for text in closing_texts(language, section_id).values())


@pytest.mark.parametrize("language", LANGUAGES)
def test_answers_quote_only_words_of_the_sentence_the_default_lecture_reads(language):
    """The heads' and the pipeline's sentences follow the language (the config's defaults): an answer written
    for one sentence would be wrong about another, numbers and all."""
    config = load_config(overrides=(f"lecture.lang='{language}'",))
    words = {"heads": set(tokenize(config.heads.sentence)), "pipeline": set(lab_tokens(config.pipeline.sentence))}
    strange = [(section_id, key, word) for section_id, key, _, strings in step_tables(language)
               if section_id in words for word in QUOTED_WORD.findall(strings.get("answer", ""))
               if word not in words[section_id]]
    assert strange == []
