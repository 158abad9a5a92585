"""The words of a sentence as the lessons show them: punctuation split off, repeated words told apart.

A token is a run of non-space characters without its leading and trailing punctuation ("¿no?" -> no,
"todo," -> todo, "ladró." -> ladró); punctuation inside a word stays (María's, 3.5, e-mail), and a run
that is only punctuation ("—", "...") is no token. The sentence as typed keeps its punctuation for
the lines that show it whole.
"""

from __future__ import annotations

import regex

_EDGE_PUNCTUATION = regex.compile(r"^\p{P}+|\p{P}+$")
SUBSCRIPT_DIGITS = "₀₁₂₃₄₅₆₇₈₉"


def split_words(text: str) -> tuple[str, ...]:
    """The tokens of ``text``: its whitespace-separated runs with edge punctuation removed, empty ones dropped."""
    return tuple(word for word in (_EDGE_PUNCTUATION.sub("", run) for run in text.split()) if word)


def occurrences(tokens) -> tuple[int, ...]:
    """Per token, 0 if its word (case aside) appears once, else which occurrence it is: 1, 2, ..."""
    forms = [token.casefold() for token in tokens]
    seen: dict[str, int] = {}
    numbers = []
    for form in forms:
        seen[form] = seen.get(form, 0) + 1
        numbers.append(seen[form] if forms.count(form) > 1 else 0)
    return tuple(numbers)


def told_apart(tokens) -> tuple[str, ...]:
    """The tokens with a repeated word's occurrence as a subscript: "la gata y la perra" -> la₁ gata y la₂ perra."""
    return tuple(token + str(number).translate(str.maketrans("0123456789", SUBSCRIPT_DIGITS)) if number else token
                 for token, number in zip(tokens, occurrences(tokens)))


def punctuation_between(text: str) -> tuple[str, ...]:
    """Per token of ``text``, the punctuation between it and the next token (or the end):
    "sí, ¿no?" -> (",¿", "?")."""
    between: list[str] = []
    for run in text.split():
        word = _EDGE_PUNCTUATION.sub("", run)
        if not word:
            if between:
                between[-1] += run
            continue
        leading = run[:run.index(word)]
        if between:
            between[-1] += leading
        between.append(run[run.index(word) + len(word):])
    return tuple(between)
