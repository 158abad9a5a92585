"""The questions for the class, with their answers, as the locale writes them: every step's ``question`` and
``answer``, and the section's ``closing`` (a statement and a question the sources raise, with its answer).

The video poses only some of them on cards (``lecture.questions``); the speaker notes and the PDF handout
carry them all, so a lecturer who shows the video as it is still has every question and its answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from attn_math.dimensions import GUIDE_D_MODEL, GUIDE_HEADS, LAB_D_K, head_dimension, scale_factor, score_multiplications
from lesson.narration_phrases import phrases
from lesson.narration_text import as_sentence
from lesson.numbers import format_number, written_numbers

LONG_CONTEXT = 1000  # tokens: the context the closing cards price at O(n²·d)


@dataclass(frozen=True)
class Question:
    key: str  # the step it belongs to, or "closing"
    question: str  # for the closing, its statement and question
    answer: str


def closing_fields() -> dict:
    """Numbers the closing strings may quote: the guide's exercises 5 and 6 and the O(n²·d) cost."""
    d_k, long_n = head_dimension(GUIDE_D_MODEL, GUIDE_HEADS), LONG_CONTEXT
    return {"d_model": GUIDE_D_MODEL, "heads": GUIDE_HEADS, "d_k": d_k,
            "root": format_number(1 / scale_factor(d_k), 0), "factor": format_number(scale_factor(d_k), 3),
            "heads_doubled": 2 * GUIDE_HEADS, "d_k_doubled": head_dimension(GUIDE_D_MODEL, 2 * GUIDE_HEADS),
            "lab_d_k": LAB_D_K, "lab_root": format_number(1 / scale_factor(LAB_D_K)),
            "lab_factor": format_number(scale_factor(LAB_D_K), 3),
            "growth": format_number(scale_factor(LAB_D_K) / scale_factor(d_k)),
            "long_n": long_n, "long_millions": score_multiplications(long_n, d_k) // 10**6,
            "long_n_doubled": 2 * long_n, "long_doubled_millions": score_multiplications(2 * long_n, d_k) // 10**6}


def closing_texts(section_id: str, locale: dict, fields: dict) -> dict[str, str] | None:
    """The section's closing (title, text, question, answer, and the ``narration`` the voice says of it, by default
    all four with the answer tied to its play: see ``closing_narration``) filled in with ``fields``
    (``closing_fields`` and the section's own) and written as the locale writes numbers, or None when the locale
    has none."""
    strings = locale.get("closing", {}).get(section_id)
    if not strings:
        return None
    separator = locale["numbers"]["decimal_separator"]
    texts = {part: written_numbers(strings[part].format(**fields), separator)
             for part in ("title", "text", "question", "answer")}
    narration = strings.get("narration")
    return texts | {"narration": written_numbers(narration.format(**fields), separator) if narration
                    else closing_narration(texts)}


def closing_narration(texts: dict[str, str]) -> str:
    """What the voice says of a closing card: its title as a sentence and its statement, then its question and its
    answer, each after its marker (``[[question]]``, ``[[answer]]``: ``lesson.narration_phrases``), so each line
    appears as it is said. A locale's ``narration`` beside them says it shorter where the card's notation is long
    to say."""
    return (f"{as_sentence(texts['title'])} {texts['text']} [[question]] {texts['question']} "
            f"[[answer]] {texts['answer']}")


def answer_parts(answer: str, narration: str) -> list[tuple[str, str]]:
    """A closing card's answer as its voice brings it: (the beat, the words) for the part said after ``[[answer]]``
    and for each later part whose phrase opens with a marker of its own; a card shows each part as it is said, so
    a long answer is not one still screen under the voice. One part when the voice says it in one go. Raises
    ValueError when a later part's words are not the answer's (its narration must say the card's words)."""
    said = phrases(narration)
    starts = [index for index, phrase in enumerate(said) if phrase.play == "answer"]
    later = [phrase for phrase in said[starts[0] + 1:] if phrase.play] if starts else []
    parts, rest, beat = [], answer, "answer"
    for phrase in later:
        cut = rest.find(phrase.text)
        if cut <= 0:
            raise ValueError(f"closing narration: [[{phrase.play}]] says {phrase.text!r}, not the rest of the "
                             f"answer {rest!r}")
        parts.append((beat, rest[:cut].strip()))
        rest, beat = rest[cut:], phrase.play
    return [*parts, (beat, rest.strip())]


def step_question(section_id: str, key: str, locale: dict, fields: dict | None = None) -> Question | None:
    """The question of step ``key`` with its answer, filled in with ``fields`` (the section's numbers for its
    config), or None when the step has none. ``fields["variant"]`` chooses ``question_<variant>`` and
    ``answer_<variant>`` where the locale has them, ``fields["answer_variant"]`` the answer alone."""
    strings = locale[section_id]["steps"][key]
    if "question" not in strings:
        return None
    fields = fields or {}
    variant, answer_variant = fields.get("variant"), fields.get("answer_variant") or fields.get("variant")
    question = strings.get(f"question_{variant}", strings["question"])
    answer = strings.get(f"answer_{answer_variant}", strings.get(f"answer_{variant}", strings["answer"]))
    separator = locale["numbers"]["decimal_separator"]
    return Question(key, written_numbers(question.format(**fields), separator),
                    written_numbers(answer.format(**fields), separator))


def section_questions(section_id: str, keys: list[str], locale: dict, fields: dict,
                      step_fields=lambda key: {}) -> list[Question]:
    """The questions of steps ``keys`` in order (filled in with ``step_fields(key)``), then the closing's (filled
    in with ``fields``): the handout's page for the section."""
    questions = [question for key in keys if (question := step_question(section_id, key, locale, step_fields(key)))]
    closing = closing_texts(section_id, locale, fields)
    if closing:
        questions.append(Question("closing", f"{closing['title']}: {closing['text']} {closing['question']}",
                                  closing["answer"]))
    return questions
