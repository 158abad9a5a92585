"""`render.py config`: the text of ``assets/default.toml``, comments kept, with the user's values in place."""

from __future__ import annotations

import re
from pathlib import Path

from lesson.config import (DEFAULT_CONFIG, language_defaults, load_config, read_toml, toml_value, user_values,
                            valid_keys)
from lesson.locale import LOCALES, load_locale


def documented_toml(config_file: Path | None = None, overrides: tuple[str, ...] = ()) -> str:
    """``assets/default.toml`` line by line, its comments documenting every key, with each key the user gave
    (``-c`` file, then ``--set``) written in place of its default. Nothing derived is written: the preset's
    matrices stay out (changing ``preset`` in the saved file works), optional keys stay commented unless
    given, and keys whose default follows ``lecture.lang`` are commented with the language's value. Loading
    the result gives the same config. Raises ConfigError for a bad config."""
    config = load_config(config_file, overrides)
    given = user_values(config_file, overrides, read_toml(DEFAULT_CONFIG))
    by_language = language_defaults(config.lecture.lang)
    following = language_keys()
    keys = valid_keys()
    lines, table = [], None
    for line in DEFAULT_CONFIG.read_text(encoding="utf-8").splitlines():
        header = re.fullmatch(r"\[(\w+)\]", line)
        statement = re.fullmatch(r"(# )?(\w+) = .*", line)
        if header:
            table = header[1]
        elif table and statement and statement[2] in keys[table]:
            key = statement[2]
            if key in given.get(table, {}):
                line = f"{key} = {toml_value(given[table][key])}"
            elif (table, key) in following and key in by_language.get(table, {}):
                line = f"# {key} = {toml_value(by_language[table][key])}"
            elif (table, key) in following and not statement[1]:
                line = f"# {line}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def language_keys() -> set[tuple[str, str]]:
    """(table, key) of every default that some language sets (the ``[config]`` tables of the locales)."""
    return {(table, key) for path in LOCALES.glob("*.toml")
            for table, values in load_locale(path.stem).get("config", {}).items() for key in values}
