"""Spoken text as comparable words, and the word errors between what was said and what was heard.

A word is compared lowercased, accents kept, punctuation dropped; numbers become digits whether written or
spelled out, so "0,34", "0.34", "cero coma treinta y cuatro" and "cero coma tres cuatro" are all the word 0.34
(text2num reads the spelled-out numbers, jiwer aligns the words).
"""

from __future__ import annotations

import re
import unicodedata

import jiwer
from text_to_num import alpha2digit

from lesson.locale import load_locale

SIGN_WORDS = {"es": {"−": "menos", "+": "más"}, "en": {"−": "minus", "+": "plus"}}  # as the voice says them
THOUSANDS_MARKS = {"es": ".", "en": ","}  # 1.000 in Spanish, 1,000 in English; the other mark is a decimal one
SIGN_BEFORE_NUMBER = re.compile(r"(?<!\w)[-−+](?=\d)")  # not the hyphen of a range, 2-4
# a decimal spoken digit by digit, which text2num leaves apart: "cero coma tres cuatro" -> "0,3 4"
DIGIT_BY_DIGIT = re.compile(r"\b(\d+[.,]\d+)((?: \d\b(?![.,]\d))+)")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# punctuation, symbols and underscores, but not a decimal point between digits
NOT_A_WORD = re.compile(r"(?!(?<=\d)\.(?=\d))[^\w\s]|_")


def comparable_words(text: str, language: str) -> list[str]:
    """``text``'s words as they are compared: lowercase, accents kept, no punctuation, numbers in digits, a lone
    letter as its name (the locale's ``spoken.letters``)."""
    text = unicodedata.normalize("NFKC", text).lower().replace("'", "").replace("’", "")
    text = SIGN_BEFORE_NUMBER.sub(lambda sign: SIGN_WORDS[language][sign[0].replace("-", "−")] + " ", text)
    text = alpha2digit(text.replace("-", " "), language, threshold=0)  # every number, "uno" and "una" too
    text = unicodedata.normalize("NFKC", text)  # text2num writes ordinals with superscripts: 1.ᵉʳ
    text = DIGIT_BY_DIGIT.sub(lambda match: match[1] + match[2].replace(" ", ""), text)
    text = NUMBER.sub(lambda match: plain_number(match[0], THOUSANDS_MARKS[language]), text)
    return " ".join(letter_name(word, language) for word in NOT_A_WORD.sub(" ", text).split()).split()


def letter_name(word: str, language: str) -> str:
    """A lone letter as its name, and a letter's name without the accent the voice is given it with: "k", "ká" and
    "ka" are one spoken word (and "dé", the letter, is heard as "de"); any other word as it is."""
    names = load_locale(language)["spoken"]["letters"]
    name = names.get(word, word)
    return without_accents(name) if without_accents(name) in map(without_accents, names.values()) else word


def without_accents(text: str) -> str:
    return "".join(character for character in unicodedata.normalize("NFD", text) if not unicodedata.combining(character))


def plain_number(written: str, thousands_mark: str) -> str:
    """A number without thousands marks, with a decimal point and no trailing zeros: in Spanish "1.000" is
    "1000", "0,50" and "0.50" are "0.5", "8,00" is "8"; a list of marks that is neither ("1.2.3") is kept."""
    decimal_mark = "," if thousands_mark == "." else "."
    thousands = re.fullmatch(rf"([1-9]\d{{0,2}}(?:{re.escape(thousands_mark)}\d{{3}})+)(?:{re.escape(decimal_mark)}(\d+))?",
                             written)
    if thousands:
        whole, decimals = thousands[1].replace(thousands_mark, ""), thousands[2] or ""
    elif written.count(",") + written.count(".") <= 1:
        whole, _, decimals = written.replace(",", ".").partition(".")
    else:
        return written
    decimals = decimals.rstrip("0")
    return f"{whole}.{decimals}" if decimals else whole


def word_errors(reference: str, heard: str, language: str) -> tuple[float, list[tuple[str, str]]]:
    """The word error rate of ``heard`` against ``reference`` and every error as (expected, heard): a
    substitution has both words, a deletion heard "", an insertion expected ""."""
    expected, got = comparable_words(reference, language), comparable_words(heard, language)
    return error_rate(len(expected), errors := aligned_errors(expected, got)), errors


def error_rate(reference_words: int, errors: list) -> float:
    """Errors per reference word (with no reference word, every heard word is one error)."""
    return len(errors) / max(reference_words, 1)


def aligned_errors(expected: list[str], got: list[str]) -> list[tuple[str, str]]:
    """The substitutions, deletions and insertions of the minimal alignment of ``got`` to ``expected``."""
    if not expected:
        return [("", word) for word in got]
    output = jiwer.process_words(" ".join(expected), " ".join(got))
    errors = []
    for chunk in output.alignments[0]:
        said, heard = expected[chunk.ref_start_idx:chunk.ref_end_idx], got[chunk.hyp_start_idx:chunk.hyp_end_idx]
        if chunk.type == "substitute":
            errors += zip(said, heard)
        elif chunk.type == "delete":
            errors += [(word, "") for word in said]
        elif chunk.type == "insert":
            errors += [("", word) for word in heard]
    return errors
