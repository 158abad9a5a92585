"""The config schema: one typed model, defaults in ``assets/default.toml``, one-line errors.

Its tables: ``lecture``, one per section of ``lesson.sections`` (its record names the model), ``audio``,
``narration`` and ``text``, the lecturer's own words in place of the locale's (``lesson.text_overrides``).

Layering: ``assets/default.toml`` < the language's defaults (``[config]`` of ``assets/locales/<lecture.lang>.toml``)
< the user's own settings (``personal_config_file()``: ``~/.config/atencion/config.toml``) < ``--config FILE.toml``
< ``--set key=value`` (a TOML value).
Every error names its key (``matrix.X``, ``pipeline.temperature``) and what was expected.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
import unicodedata
from copy import deepcopy
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field, ValidationError, create_model, field_validator, model_validator

from lesson.config_hints import clipped, decimal_comma_line, number_hint, shown, suggestion
from lesson.locale import DEFAULT_LANGUAGE, languages, load_locale
from lesson.section_config import StrictModel
from lesson.sections import BY_ID, SECTION_IDS, SECTIONS, Section, schema_sections
from lesson.text_overrides import CLOSING, TEXT, check_texts, in_tables, lifted, replaceable, with_texts

ASSETS = Path(__file__).resolve().parent.parent / "assets"
DEFAULT_CONFIG = ASSETS / "default.toml"

CONFIG_MAX_BYTES = 256 * 1024  # a config file is a few KiB; more is a mistake (or /dev/zero)
PACE_BOUNDS = (0.5, 2.0)  # lecture.pace: half the reading time for a class that knows it, twice for newcomers
CARD_TEXT_LONGEST = 80  # characters of lecture.course and .date: one line of the title card
CONFIG_MAX_DEPTH = 6  # tables and arrays inside each other; our deepest value, a matrix in a table, is 3


class ConfigError(ValueError):
    """A bad config value: the message is one line naming the key."""

    def __init__(self, message: str):
        # keys and values come from the user: a line break in them must not break the line
        super().__init__(message.replace("\r", "\\r").replace("\n", "\\n"))


class AudioConfig(StrictModel):
    """The soundtrack: ``loudness`` is the speech level (LUFS, ITU-R BS.1770) at volume 100: a voice's integrated
    loudness, the data sounds 6 LU under it (``sonify.mix``)."""

    volume: int = Field(ge=0, le=100)
    loudness: float = Field(ge=-36.0, le=-10.0)
    mute: bool

    def target_lufs(self) -> float:
        """loudness + 20 log10(volume / 100): volume 50 is 6 dB quieter; -inf at volume 0."""
        return self.loudness + 20 * float(np.log10(self.volume / 100)) if self.volume else float("-inf")


class NarrationConfig(StrictModel):
    """Who speaks each step: ``source`` "tts" (the default) the synthetic voice, "none" (or "") nobody, or a folder
    of the lecturer's recordings, one file per step named like the stills (``01-matrix/03-queries.wav``). The
    synthetic voice is Kokoro's ``voice`` in ``dialect`` (its accent: "es" Castilian, "es-419" Latin American,
    "en-us", "en-gb") at ``speed``; when the neural voice cannot load, espeak-ng speaks the dialect instead."""

    source: str = Field(max_length=4096)
    voice: str
    dialect: Literal["es", "es-419", "en-us", "en-gb"]
    speed: float = Field(ge=0.5, le=2.0)

    @field_validator("voice")
    @classmethod
    def _voice_name(cls, value: str) -> str:
        if not re.fullmatch(r"[a-z]{2}_[a-z]{2,16}", value):
            raise ValueError("voice: expected a Kokoro voice name such as \"ef_dora\" or \"em_alex\"")
        return value

    @field_validator("source")
    @classmethod
    def _no_control_characters(cls, value: str) -> str:
        if any(ord(character) < 32 or ord(character) == 127 for character in value):
            raise ValueError("source: expected \"tts\", \"none\" or a folder path without control characters")
        return value

    @property
    def silent(self) -> bool:
        """Whether nobody speaks ("none", or "" as older configs wrote it)."""
        return self.source in ("", "none")


class LectureOptions(StrictModel):
    """The whole lecture: ``questions`` says which question cards appear ("predictive": the few a step
    answers, posed before it, and the closing cards; "all": every step's question after it too; "none": no
    card); ``lang`` is the language of everything a viewer sees or hears (``assets/locales/<lang>.toml``);
    ``clean`` draws no step header nor burned caption, for embedding; ``sections``, when given, the sections a
    render that names none renders (a lecturer leaving one out); ``pace`` multiplies every reading time (steps'
    and cards', not the voice's); ``skip`` names steps (``matrix.causal``) left out of their section; ``course``
    and ``date``, on the joined lecture's title card with the lesson's title (the locale's ``lecture.title``);
    ``theme``, the HTML decks' reveal.js theme."""

    questions: Literal["predictive", "all", "none"]
    lang: str
    clean: bool
    pace: float
    skip: list[str]
    sections: list[str] | None = None  # what a render with no SECTIONS named renders (in lesson order); None: all
    course: str = ""  # the joined lecture's title card (lesson.references): "" shows none
    date: str = ""
    theme: Literal["black", "white"] = "black"  # the HTML decks' reveal.js theme (lecture.publish.revealjs.THEMES)

    @field_validator("course", "date")
    @classmethod
    def _one_short_line(cls, value: str, info) -> str:
        hidden = any(unicodedata.category(character).startswith("C") for character in value)
        if hidden or len(value) > CARD_TEXT_LONGEST:
            raise ValueError(f"{info.field_name}: expected one line of at most {CARD_TEXT_LONGEST} visible characters, "
                             f"got {shown(value)}")
        return value.strip()

    @field_validator("pace", mode="before")
    @classmethod
    def _pace_in_bounds(cls, value: Any) -> Any:
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not PACE_BOUNDS[0] <= value <= PACE_BOUNDS[1]:
            raise ValueError(f"pace: expected a factor from {PACE_BOUNDS[0]} to {PACE_BOUNDS[1]} on every reading "
                             f"time (2.0 doubles them), got {shown(value)}")
        return value

    @field_validator("skip")
    @classmethod
    def _steps_there_are(cls, value: list[str]) -> list[str]:
        for name in value:
            check_skipped_step(name)
            if value.count(name) > 1:
                raise ValueError(f"skip: {shown(name)} is named twice")
        return value

    def skipped(self, section_id: str) -> list[str]:
        """The keys of the steps of ``section_id`` that ``skip`` leaves out."""
        return [name.partition(".")[2] for name in self.skip if name.partition(".")[0] == section_id]

    @field_validator("sections")
    @classmethod
    def _sections_there_are(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return value
        if not value:
            raise ValueError(f"sections: expected at least one of {', '.join(SECTION_IDS)}")
        for name in value:
            if name not in SECTION_IDS:
                raise ValueError(f"sections: unknown section {shown(name)}; expected some of {', '.join(SECTION_IDS)}")
            if value.count(name) > 1:
                raise ValueError(f"sections: {shown(name)} is named twice")
        return value

    @field_validator("lang")
    @classmethod
    def _a_language_there_is(cls, value: str) -> str:
        if value not in languages():
            *others, last = map(shown, languages())
            raise ValueError(f"lang: expected {' or '.join(filter(None, (', '.join(others), last)))}, "
                             f"got {shown(value)}")
        return value


def check_skipped_step(name: str) -> None:
    """``section.step``, a step of that section that may be left out; ValueError naming the nearest valid name."""
    section_id, _, key = name.partition(".")
    if section_id not in SECTION_IDS:
        raise ValueError(f"skip: unknown section in {shown(name)}{suggestion(section_id, SECTION_IDS)}")
    keys = list(load_locale()[section_id]["steps"])
    if key not in keys:
        raise ValueError(f"skip: {shown(name)} names no step of {section_id}"
                         f"{suggestion(name, [f'{section_id}.{known}' for known in keys])}")
    kept = BY_ID[section_id].kept_steps
    if key in kept:
        raise ValueError(f"skip: {name} cannot be left out: {kept[key]}")


class Tables(StrictModel):
    """What the whole config does; LectureConfig adds its tables."""

    @model_validator(mode="before")
    @classmethod
    def _recorded_texts_lifted(cls, data: Any) -> Any:
        return lifted(data) if isinstance(data, dict) else data

    @model_validator(mode="after")
    def _texts_fit_the_locale(self) -> Tables:
        if texts := self.text.effective():
            check_texts(texts, load_locale(self.lecture.lang))
        return self

    @model_validator(mode="after")
    def _a_step_left(self) -> Tables:
        for section in SECTIONS:
            if not set(load_locale()[section.id]["steps"]) - self.skipped_steps(section.id).keys():
                raise ValueError(f"lecture.skip: leaves no step of {section.id}; leave the section out with "
                                 "lecture.sections instead")
        return self

    def effective(self) -> dict[str, Any]:
        """Plain data for TOML, each table's effective values (a matrix resolved from its preset), no empty keys;
        the ``[text]`` table's texts in the tables they belong to (``in_tables``): a changed text changes its
        section's table, and only that one."""
        tables = {name: getattr(self, name).effective() for name in type(self).model_fields if name != TEXT}
        for name, texts in in_tables(self.text.effective()).items():
            tables[name][TEXT] = texts
        return tables

    def skipped_steps(self, section_id: str) -> dict[str, str]:
        """The steps of ``section_id`` its render leaves out, each with why: those its table's values cannot show
        (``skipped_steps``) and those ``lecture.skip`` names."""
        return {**getattr(self, section_id).skipped_steps(),
                **{key: "lecture.skip leaves it out" for key in self.lecture.skipped(section_id)}}

    def locale(self) -> dict:
        """The strings of ``lecture.lang`` with the lecturer's own texts in place of the locale's."""
        return with_texts(load_locale(self.lecture.lang), self.text.effective())


def section_table(section: Section) -> tuple[type[StrictModel], Any]:
    """A section's field: required, or optional when its model has a default for every key (a section declared
    outside the project, with no table in assets/default.toml)."""
    model = section.config
    every_key_has_a_default = not any(field.is_required() for field in model.model_fields.values())
    return model, Field(default_factory=model) if every_key_has_a_default else ...


# The [text] table: a table of texts for each table of the locale that has some to replace (lesson.text_overrides).
TextTable = create_model("TextTable", __base__=StrictModel, __module__=__name__,
                         **{name: (dict[str, Any] | None, None) for name in (*SECTION_IDS, CLOSING, "lecture")})

LectureConfig = create_model("LectureConfig", __base__=Tables, __module__=__name__,
                             lecture=(LectureOptions, ...),
                             **{section.id: section_table(section) for section in schema_sections()},
                             audio=(AudioConfig, ...), narration=(NarrationConfig, ...),
                             text=(TextTable, Field(default_factory=TextTable)))


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    return repr(value)


def load_config(config_file: Path | None = None, overrides: tuple[str, ...] = ()) -> LectureConfig:
    """Defaults, then the language's defaults, then the user's own settings, then the file, then each
    ``key=value`` override; raises ConfigError."""
    data = default_values()
    given = given_values(config_file, overrides, data)
    chosen = given.get("lecture") if isinstance(given.get("lecture"), dict) else {}
    merge(data, language_defaults(chosen.get("lang", data["lecture"]["lang"])))
    merge(data, given)
    try:
        return LectureConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(describe(error)) from None


def default_values() -> dict:
    """assets/default.toml, and an empty table for a section that keeps its defaults in its model."""
    return {**{section.id: {} for section in SECTIONS}, **read_toml(DEFAULT_CONFIG)}


def personal_config_file() -> Path:
    """``$XDG_CONFIG_HOME/atencion/config.toml`` when XDG_CONFIG_HOME is an absolute path, else
    ``~/.config/atencion/config.toml``: what a lecturer always wants (no voice, another dialect), set once."""
    value = os.environ.get("XDG_CONFIG_HOME", "")
    return (Path(value) if os.path.isabs(value) else Path.home() / ".config") / "atencion" / "config.toml"


def personal_values() -> dict:
    """The user's own settings file's tables; {} when there is none."""
    path = personal_config_file()
    return read_toml(path) if path.exists() else {}


def given_values(config_file: Path | None, overrides: tuple[str, ...], known: dict) -> dict:
    """What the user's own settings, then the file, then the overrides give."""
    given = personal_values()
    merge(given, user_values(config_file, overrides, known))
    return given


def user_values(config_file: Path | None, overrides: tuple[str, ...], known: dict) -> dict:
    """What the user gave: the file's tables, then each ``key=value`` override (tables as in ``known``)."""
    given = read_toml(Path(config_file)) if config_file is not None else {}
    for override in overrides:
        key, value = parse_override(override)
        set_key(given, known, key, value)
    return given


def language_defaults(language: Any) -> dict:
    """The ``[config]`` table of the language's locale (a partial config: heads.sentence, narration.voice...);
    {} for a language that has none or is not one of lecture.lang's choices (the schema then says so)."""
    if not isinstance(language, str) or language not in languages():
        return {}
    return deepcopy(load_locale(language).get("config", {}))


def read_toml(path: Path, max_depth: int = CONFIG_MAX_DEPTH) -> dict:
    """A TOML file of at most CONFIG_MAX_BYTES, UTF-8 (a byte-order mark, as Notepad writes, is accepted),
    nested at most ``max_depth`` deep (a file that holds configs deeper down, like a batch's variants, may
    allow more); a device, a pipe or a folder is refused before reading."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise ConfigError(f"config: file not found: {path}") from None
    except OSError as error:
        raise ConfigError(f"config: cannot read {path}: {error.strerror}") from None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise ConfigError(f"config: {path} is not a regular file; expected a TOML file")
        raw = handle.read(CONFIG_MAX_BYTES + 1)
    if len(raw) > CONFIG_MAX_BYTES:
        raise ConfigError(f"config: {path} is larger than {CONFIG_MAX_BYTES // 1024} KiB; expected a small TOML file")
    try:
        data = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ConfigError(f"config: {path} is not UTF-8 text; save it as UTF-8") from None
    except tomllib.TOMLDecodeError as error:
        comma = decimal_comma_line(raw.decode("utf-8-sig"), error, path)
        raise ConfigError(comma or f"config: {path} is not valid TOML: {error}") from None
    except RecursionError:
        raise ConfigError(f"config: {path} nests tables or arrays deeper than {max_depth} levels") from None
    check_depth(data, f"config: {path}", max_depth)
    return data


def check_depth(value: Any, where: str, max_depth: int = CONFIG_MAX_DEPTH) -> None:
    """Refuse values nested deeper than ``max_depth`` (a matrix is 3 deep: table, rows, entries)."""
    level = [value]
    for _ in range(max_depth + 1):
        level = [child for item in level if isinstance(item, (dict, list))
                 for child in (item.values() if isinstance(item, dict) else item)]
        if not level:
            return
    raise ConfigError(f"{where}: nests tables or arrays deeper than {max_depth} levels")


def merge(base: dict, extra: dict) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge(base[key], value)
        else:
            base[key] = value


def parse_override(text: str) -> tuple[str, Any]:
    """``key=value`` with a TOML value; a bare word that is not TOML is taken as a string."""
    key, separator, raw = text.partition("=")
    key = key.strip()
    if not separator or not key:
        raise ConfigError(f"--set: expected KEY=VALUE (for example pipeline.temperature=0.5), got {shown(text)}")
    try:
        value = tomllib.loads(f"value = {raw.strip()}")["value"]
    except tomllib.TOMLDecodeError:
        return key, raw.strip()
    except RecursionError:
        raise ConfigError(f"{clipped(key)}: nests arrays deeper than {CONFIG_MAX_DEPTH} levels") from None
    check_depth(value, clipped(key))
    return key, value


def set_key(given: dict, known: dict, key: str, value: Any) -> None:
    """Set ``table.key`` in ``given``; each table must be one of ``known``'s (under ``text``, of the locale's: every
    language has the same)."""
    *tables, leaf = key.split(".")
    if tables[:1] == [TEXT]:
        known = {TEXT: replaceable(load_locale(DEFAULT_LANGUAGE))}
    node = given
    for table in tables:
        if not isinstance(known.get(table), dict):
            raise ConfigError(f"{clipped(key)}: unknown table{suggestion(table, list(known))}")
        known, node = known[table], node.setdefault(table, {})
        if not isinstance(node, dict):
            raise ConfigError(f"{clipped(key)}: the config file sets '{table}' to a value; expected a table")
    node[leaf] = value


def valid_keys() -> dict[str, list[str]]:
    """Each config table and the keys it accepts."""
    return {name: list(field.annotation.model_fields) for name, field in LectureConfig.model_fields.items()}


def describe(error: ValidationError) -> str:
    """The first problem as one line: ``key: what was expected``."""
    first = error.errors()[0]
    location = [str(part) for part in first["loc"]]
    table = location[0] if location else ""
    if first["type"] == "extra_forbidden" and len(location) == 1:
        return f"{clipped(table)}: unknown table{suggestion(table, list(valid_keys()))}"
    if first["type"] == "extra_forbidden":
        choices = [f"{table}.{key}" for key in valid_keys().get(table, [])]
        return f"{clipped('.'.join(location))}: unknown key{suggestion('.'.join(location), choices)}"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "value_error" and not location:  # the whole config's check: its message names the key
        return message
    if first["type"] == "value_error":
        field, separator, rest = message.partition(": ")
        if separator and field.isidentifier():
            location, message = [table, field], rest
    elif first["type"] == "missing":
        message = "required key is missing"
    else:
        message = f"{message.replace('Input should be', 'expected')}, got {shown(first['input'])}"
        if first["type"].startswith(("float", "int")):
            message += number_hint(first["input"])
    key = ".".join(part for part in location if not part.isdigit()) or "config"
    return f"{key}: {message}"
