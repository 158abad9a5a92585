"""Checks shared by the tests of the answers a section computes from its config (test_<section>_answers.py): the
numbers an answer writes against those plain arithmetic gets, and which of the locale's texts it was written from."""

from __future__ import annotations

import re
from string import Formatter

from lesson.locale import load_locale
from lesson.numbers import written_numbers
from lesson.questions import step_question
from test_locale_questions import SENTENCE_END
from test_matrix_answers import close, parsed


def printed_answers(section_id: str, keys, locale: dict, fields: dict[str, dict]) -> dict[str, tuple[str, str]]:
    """(question, answer) of each step of ``keys`` that has one, filled in with its ``fields`` as the handout is."""
    return {key: (q.question, q.answer) for key in keys
            if (q := step_question(section_id, key, locale, fields.get(key)))}


def expected_numbers_problems(text: str, quoted: list[float], required: list[float],
                              structural: set[float]) -> list[str]:
    """What is wrong with the numbers ``text`` writes: one that is none of ``quoted`` (to the digits written) nor
    ``structural`` (a dimension's number, "varianza 1"), or one of ``required`` that it does not write."""
    written = parsed(text)
    strays = [f"stray {value}" for value in written if value[0] not in structural
              and not any(close(value, number) for number in quoted)]
    missing = [f"missing {number}" for number in required if not any(close(value, number) for value in written)]
    return strays + missing


def reads_as(template: str, text: str, separator: str = ".") -> bool:
    """Whether ``text`` is the locale's ``template`` with some values in its fields: which variant was chosen."""
    pattern = "".join(re.escape(written_numbers(literal, separator)) + ("(.+?)" if name is not None else "")
                      for literal, name, _, _ in Formatter().parse(template))
    return re.fullmatch(pattern, text) is not None


def reads_as_one_of(strings: dict, variants: str | tuple[str, ...], text: str) -> bool:
    """Whether ``text`` is the step's (``strings``) answer of one of ``variants`` ("answer" the plain one)."""
    names = (variants,) if isinstance(variants, str) else variants
    return any(reads_as(strings["answer" if name == "answer" else f"answer_{name}"], text) for name in names)


def every_answer_variant(language: str, section_id: str) -> list[str]:
    """Every answer text of the section's steps in ``language``: ``answer`` and each ``answer_<variant>``."""
    steps = load_locale(language)[section_id]["steps"].values()
    return [text for strings in steps for key, text in strings.items() if key.startswith("answer")]


def sentence_count(text: str) -> int:
    return len(SENTENCE_END.split(text.strip()))
