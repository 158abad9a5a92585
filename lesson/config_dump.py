"""`render.py config`: the text of ``assets/default.toml``, comments kept, with the user's values in place."""

from __future__ import annotations

import re
from pathlib import Path

import tomlkit
from tomlkit.items import Comment, Item, Table

from lesson.config import DEFAULT_CONFIG, given_values, language_defaults, load_config, read_toml, toml_value, valid_keys
from lesson.locale import languages, load_locale

# default.toml's convention for an optional key: a comment line "# key = example" in its table
OPTIONAL_EXAMPLE = re.compile(r"# (\w+) = ")
# ... and for the optional keys a preset gives: a comment ending 'The "default" preset's:' above their examples
PRESET_VALUES = re.compile(r'The "\w+" preset\'s:$')


def documented_toml(config_file: Path | None = None, overrides: tuple[str, ...] = ()) -> str:
    """``assets/default.toml`` with its comments documenting every key, and each key the user gave (their settings
    file, ``-c`` file, then ``--set``) written in place of its default: tomlkit sets the value, so a comment after it and a
    value over several lines come through whole. Nothing derived is written: the preset's matrices stay out
    (changing ``preset`` in the saved file works), optional keys stay commented unless given, and keys whose
    default follows ``lecture.lang`` are commented with the language's value. Loading the result gives the same
    config. Raises ConfigError for a bad config."""
    config = load_config(config_file, overrides)
    given = given_values(config_file, overrides, read_toml(DEFAULT_CONFIG))
    by_language = language_defaults(config.lecture.lang)
    document = tomlkit.parse(DEFAULT_CONFIG.read_text(encoding="utf-8"))
    for name, keys in valid_keys().items():
        table = document[name]
        for key, value in given.get(name, {}).items():
            if key in table:
                table[key] = value  # tomlkit keeps the comment after the old value
        document[name] = _rewritten(table, given.get(name, {}), by_language.get(name, {}),
                                    {key for table_name, key in language_keys() if table_name == name}, keys,
                                    getattr(config, name).effective())
    return tomlkit.dumps(document)


def _rewritten(table: Table, given: dict, by_language: dict, following: set[str], keys: set[str],
               effective: dict) -> Table:
    """``table`` item by item: the example comment of an optional key the user gave becomes that key, and a
    key that follows the language and was not given becomes a comment with the language's value (its
    default is not written: loading the saved file under another lang then brings that language's). Under a
    'The "default" preset's:' line, the examples not given show the chosen preset's values and the line says
    whose values follow."""
    rewritten = tomlkit.table()
    from_preset = False
    for key, item in table.value.body:
        comment = item.trivia.comment if isinstance(item, Comment) else ""
        example = OPTIONAL_EXAMPLE.match(comment)
        if PRESET_VALUES.search(comment):
            from_preset = True
            rewritten.add(tomlkit.comment(PRESET_VALUES.sub(_whose(table, given, effective), comment)[2:]))
        elif example and example[1] in given and example[1] in keys and example[1] not in table:
            rewritten.add(example[1], given[example[1]])
        elif example and from_preset and example[1] in effective:
            rewritten.add(tomlkit.comment(f"{example[1]} = {toml_value(_plain(effective[example[1]]))}"))
        elif key is not None and key.key in following and key.key not in given:
            shown = by_language.get(key.key, item.unwrap())
            rewritten.add(tomlkit.comment(f"{key.key} = {toml_value(shown)}{_after(item)}"))
        else:
            rewritten.add(*((key, item) if key is not None else (item,)))
    return rewritten


def _plain(value):
    """Whole numbers of a matrix written as integers, as default.toml writes them."""
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _whose(table: Table, given: dict, effective: dict) -> str:
    """Whose matrices follow the preset line: the chosen preset's, the user's, or both."""
    preset = f'the "{effective["preset"]}" preset\'s'
    examples = [OPTIONAL_EXAMPLE.match(item.trivia.comment) for _, item in table.value.body if isinstance(item, Comment)]
    mine = {example[1] for example in examples if example and example[1] in given}
    if not mine:
        return preset[0].upper() + preset[1:] + ":"
    if mine >= {example[1] for example in examples if example and example[1] in effective}:
        return "Yours:"
    return f"Yours, and {preset} for those you did not give:"


def _after(item: Item) -> str:
    """The comment after a value, with the spaces before it, as the file had them."""
    return f"{item.trivia.comment_ws}{item.trivia.comment}" if item.trivia.comment else ""


def language_keys() -> set[tuple[str, str]]:
    """(table, key) of every default that some language sets (the ``[config]`` tables of the locales)."""
    return {(table, key) for language in languages()
            for table, values in load_locale(language).get("config", {}).items() for key in values}
