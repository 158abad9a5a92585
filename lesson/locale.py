"""On-screen text: one TOML file per language in ``assets/locales``, one table per section.

A language is a locale and a lexicon of the same name (``assets/locales/xx.toml``, ``assets/lexicons/xx.toml``,
or the same two files in the folder ``ATENCION_ASSETS_EXTRA`` names, see ``attn_math.lexicon``): ``--lang``,
``lecture.lang`` and everything that loops over languages read ``languages()``."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from attn_math.lexicon import DEFAULT_LANGUAGE, language_files
from lesson.sections import with_section_tables

LOCALES = Path(__file__).resolve().parent.parent / "assets" / "locales"


def languages() -> tuple[str, ...]:
    """Every language there is: the codes with both a locale and a lexicon, DEFAULT_LANGUAGE first."""
    lexicons = language_files("lexicons")
    return tuple(code for code in language_files("locales") if code in lexicons)


@cache
def load_locale(language: str = DEFAULT_LANGUAGE) -> dict:
    """The strings of ``language``: ``locale[section]["steps"][step]["title"]`` and so on."""
    path = language_files("locales").get(language)
    if path is None:
        raise ValueError(f"lang: expected one of {', '.join(languages())}, got {language!r}")
    return with_section_tables(tomllib.loads(path.read_text(encoding="utf-8")), language)
