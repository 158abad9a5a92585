"""The lecturer's own words: the config's ``[text]`` table holds texts in place of the locale's, under its keys.

``[text.matrix.steps.inputs]`` ``caption = "..."`` replaces that caption wherever the lecture uses it (on screen, in
the subtitles and the narration, in the manifest's steps and questions), in the language of ``lecture.lang``. What
can be replaced (``replaceable``): every text of a section's table, of its closing (``closing.<section>``) and the
lecture's ``LECTURE_TEXTS``. A text keeps its locale text's placeholders, all and no other (a placeholder is a value
the lesson computes for the config: a text that wrote the number instead would be wrong for another config), and
its ``[[markers]]`` in order (the scene ties each to a play); it passes a sentence's character checks, sentence by
sentence, on one line, at most twice as long as the locale's text (SHORTEST_LIMIT at least).
"""

from __future__ import annotations

import re
import string
import unicodedata
from copy import deepcopy

from attn_math.validation import describe_character
from attn_math.words import split_words
from lesson.config_hints import clipped, shown, suggestion
from lesson.narration_text import sentences
from lesson.sections import SECTIONS
from lesson.sentences import check_sentence

TEXT, CLOSING = "text", "closing"  # the config's table of texts; the locale's table of the sections' closings
LECTURE_TEXTS = ("title", "question", "step_counter")  # the lecture's texts a viewer reads (not its language codes)
SHORTEST_LIMIT = 80  # characters a replaced text may always have, however short the locale's
WRITTEN_MARKER = re.compile(r"\[\[(.*?)\]\]")  # a marker as written, well formed or not (lesson.narration_phrases)
FORMATTER = string.Formatter()


def replaceable(locale: dict) -> dict:
    """The tables of ``locale`` a ``[text]`` table may replace texts of, as the config names them."""
    closings = locale.get(CLOSING, {})
    return {**{section.id: locale[section.id] for section in SECTIONS},
            CLOSING: {section.id: closings[section.id] for section in SECTIONS if section.id in closings},
            "lecture": {key: locale["lecture"][key] for key in LECTURE_TEXTS}}


def with_texts(locale: dict, texts: dict) -> dict:
    """A copy of ``locale`` with ``texts`` (a checked ``[text]`` table, its keys the locale's) in place of its own."""
    merged = deepcopy(locale)
    _replace(merged, texts)
    return merged


def _replace(strings: dict, texts: dict) -> None:
    for key, value in texts.items():
        if isinstance(value, dict):
            _replace(strings[key], value)
        else:
            strings[key] = unicodedata.normalize("NFC", value)


def check_texts(texts: dict, locale: dict) -> None:
    """Raise ValueError, one line naming its key (``text.matrix.steps.inputs.caption``), for the first text of the
    ``[text]`` table ``texts`` that ``locale`` has no such text for or that does not fit it."""
    _check_table(TEXT, texts, replaceable(locale))


def _check_table(where: str, texts: dict, originals: dict) -> None:
    for key, value in texts.items():
        name = f"{where}.{key}"
        if key not in originals:
            choices = [f"{where}.{known}" for known in originals]
            raise ValueError(f"{clipped(name)}: unknown key{suggestion(name, choices)}")
        original = originals[key]
        if isinstance(original, dict):
            if not isinstance(value, dict):
                raise ValueError(f"{name}: expected a table of texts, got {shown(value)}")
            _check_table(name, value, original)
        elif not isinstance(original, str):
            raise ValueError(f"{name}: the locale's is a {type(original).__name__}, not a text; only texts can be "
                             "replaced")
        elif not isinstance(value, str):
            raise ValueError(f"{name}: expected a text (a string), got {shown(value)}")
        else:
            check_text(name, unicodedata.normalize("NFC", value), original)


def check_text(name: str, text: str, original: str) -> None:
    """``text`` in place of the locale's ``original``: not blank unless that is, bounded, visible characters on one
    line, each sentence a sentence the scenes can draw, the same placeholders and markers."""
    if not text.strip() and original.strip():
        raise ValueError(f"{name}: expected a text, got an empty one")
    limit = max(2 * len(original), SHORTEST_LIMIT)
    if len(text) > limit:
        raise ValueError(f"{name}: expected at most {limit} characters (twice the locale's text), got {len(text)}")
    _check_characters(name, text)
    _check_placeholders(name, text, original)
    _check_markers(name, text, original)


def _check_characters(name: str, text: str) -> None:
    """No control or invisible character (a line break either: a subtitle's blank line would end its cue), and
    every sentence with words passes ``check_sentence``."""
    hidden = sorted({character for character in text if unicodedata.category(character).startswith("C")})
    if hidden:
        raise ValueError(f"{name}: expected visible characters on one line, found "
                         f"{', '.join(map(describe_character, hidden))}")
    for sentence in sentences(text):
        if split_words(sentence):  # "…" or "___" alone is a text, though no sentence
            try:
                check_sentence(sentence, max_tokens=len(sentence))  # its length bounds its words
            except ValueError as error:
                raise ValueError(f"{name}: {str(error).removeprefix('sentence: ')}") from None


def placeholders(name: str, text: str) -> list[tuple[str, str]]:
    """Each ``{field}`` of ``text`` as (field, what follows it: "!r", ":.2f" or ""); ValueError for a stray brace."""
    try:
        return [(field, (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else ""))
                for _, field, spec, conversion in FORMATTER.parse(text) if field is not None]
    except ValueError as error:
        raise ValueError(f"{name}: {error}; a brace that is no placeholder is written twice, {{{{ or }}}}") from None


def _check_placeholders(name: str, text: str, original: str) -> None:
    wanted = [f"{{{field}}}" for field, _ in placeholders(name, original)]
    used = placeholders(name, text)
    for field, after in used:
        if after:
            raise ValueError(f"{name}: write the placeholder {{{field}}} as it is, without {shown(after)}")
        if f"{{{field}}}" not in wanted:
            hint = suggestion(f"{{{field}}}", list(dict.fromkeys(wanted))) if wanted else "; the locale's text has none"
            raise ValueError(f"{name}: unknown placeholder {clipped(f'{{{field}}}')}{hint}")
    missing = [field for field in wanted if field[1:-1] not in {field for field, _ in used}]
    if missing:
        raise ValueError(f"{name}: the placeholder {missing[0]} is missing; keep it (the lesson writes its value "
                         "for the config there)")


def _check_markers(name: str, text: str, original: str) -> None:
    wanted, given = WRITTEN_MARKER.findall(original), WRITTEN_MARKER.findall(text)
    if given != wanted:
        expected = f"the markers {' '.join(f'[[{marker}]]' for marker in wanted)} in this order, as the locale's " \
                   "text has them (the scene ties each to a play)" if wanted else "no [[marker]]"
        got = " ".join(f"[[{marker}]]" for marker in given) or "none"
        raise ValueError(f"{name}: expected {expected}, got {clipped(got)}")


def in_tables(texts: dict) -> dict[str, dict]:
    """The ``[text]`` table ``texts`` as the tables record it (``effective``): a section's texts in its own table's
    ``text``, its closing's under ``closing`` there, the lecture's in the lecture table's; empty ones left out."""
    tables: dict[str, dict] = {}
    for table, values in texts.items():
        for key, value in values.items():
            if table == CLOSING and value:
                tables.setdefault(key, {})[CLOSING] = value
            elif table != CLOSING:
                tables.setdefault(table, {})[key] = value
    return tables


def lifted(data: dict) -> dict:
    """``data`` (a whole config) with the texts its tables record (``in_tables``, as a manifest keeps them) moved
    back into its ``[text]`` table."""
    data = dict(data)
    texts = deepcopy(data.get(TEXT)) if isinstance(data.get(TEXT), dict) else {}
    for table, values in list(data.items()):
        if table == TEXT or not isinstance(values, dict) or not isinstance(values.get(TEXT), dict):
            continue
        recorded = dict(values[TEXT])
        data[table] = {key: value for key, value in values.items() if key != TEXT}
        if CLOSING in recorded:
            texts[CLOSING] = {**_table(texts.get(CLOSING)), table: recorded.pop(CLOSING)}
        texts[table] = {**_table(texts.get(table)), **recorded}
    if texts:
        data[TEXT] = texts
    return data


def _table(value) -> dict:
    """``value`` when it is a table, else an empty one (the texts recorded in a table replace a value that is none)."""
    return value if isinstance(value, dict) else {}
