"""The config schema: one typed model, defaults in ``assets/default.toml``, one-line errors.

Layering: ``assets/default.toml`` < the language's defaults (``[config]`` of ``assets/locales/<lecture.lang>.toml``)
< ``--config FILE.toml`` < ``--set key=value`` (a TOML value).
Every error names its key (``matrix.X``, ``pipeline.temperature``) and what was expected.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import stat
import tomllib
from copy import deepcopy
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from attn_math import heads, lab, worked_example
from attn_math.attention import MATRICES, check_shapes, plural, self_attention
from lesson.config_hints import clipped, decimal_comma_line, number_hint, shown
from lesson.locale import languages, load_locale
from lesson.sentences import check_sentence

ASSETS = Path(__file__).resolve().parent.parent / "assets"
DEFAULT_CONFIG = ASSETS / "default.toml"

MATRIX_MAX_TOKENS = 6  # rows of X that fit on screen with their numbers
MATRIX_MAX_DIM = 4  # columns of X, W_Q, W_K, W_V that fit on screen
MATRIX_ENTRY_LIMIT = 10.0  # |entry| of an editable matrix, so every number fits its cell
PIPELINE_MAX_DIM = 16  # rows (d_k, d_v) of a custom lab weight matrix: bars per token that still read
CONFIG_MAX_BYTES = 256 * 1024  # a config file is a few KiB; more is a mistake (or /dev/zero)
CONFIG_MAX_DEPTH = 6  # tables and arrays inside each other; our deepest value, a matrix in a table, is 3


class ConfigError(ValueError):
    """A bad config value: the message is one line naming the key."""

    def __init__(self, message: str):
        # keys and values come from the user: a line break in them must not break the line
        super().__init__(message.replace("\r", "\\r").replace("\n", "\\n"))



Matrix = list[list[float]]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


def check_matrix(key: str, value: Matrix | None, max_rows: int, max_cols: int) -> Matrix | None:
    """Rectangular, non-empty, within the screen's size and the entry limit."""
    if value is None:
        return None
    if not value or not value[0]:
        raise ValueError(f"{key}: expected a non-empty matrix (a list of rows)")
    lengths = [len(row) for row in value]
    if len(set(lengths)) != 1:
        raise ValueError(f"{key}: expected rows of equal length, got lengths {clipped(str(lengths))}")
    if len(value) > max_rows or len(value[0]) > max_cols:
        raise ValueError(f"{key}: at most {max_rows}x{max_cols} fits on screen, got {len(value)}x{len(value[0])}")
    if any(abs(entry) > MATRIX_ENTRY_LIMIT for row in value for entry in row):
        raise ValueError(f"{key}: expected entries between -{MATRIX_ENTRY_LIMIT:g} and {MATRIX_ENTRY_LIMIT:g}")
    return value


class MatrixConfig(StrictModel):
    """Section 1: X, W_Q, W_K, W_V start from ``preset``; any matrix given here replaces the preset's."""

    preset: Literal["default", "large_scores", "shared_projection"]
    X: Matrix | None = None
    W_Q: Matrix | None = None
    W_K: Matrix | None = None
    W_V: Matrix | None = None
    scale: bool
    causal: bool

    @model_validator(mode="after")
    def _fits_and_computes(self) -> "MatrixConfig":
        rows = {"X": MATRIX_MAX_TOKENS, "W_Q": MATRIX_MAX_DIM, "W_K": MATRIX_MAX_DIM, "W_V": MATRIX_MAX_DIM}
        for name, max_rows in rows.items():
            check_matrix(name, getattr(self, name), max_rows, MATRIX_MAX_DIM)
        given = {name for name in MATRICES if getattr(self, name) is not None}
        check_shapes({name: matrix.shape for name, matrix in self.matrices().items()}, given, " (the preset's)")
        self_attention(**self.matrices(), scale=self.scale, causal=self.causal)
        return self

    def matrices(self) -> dict[str, np.ndarray]:
        """The effective X, W_Q, W_K, W_V: the preset's, replaced by any given here."""
        preset = worked_example.PRESETS[self.preset]
        return {name: np.array(getattr(self, name) if getattr(self, name) is not None else getattr(preset, name))
                for name in ("X", "W_Q", "W_K", "W_V")}


class ScalingConfig(StrictModel):
    d_k: int = Field(ge=1, le=4096)
    seed: int = Field(ge=0, le=2**32 - 1)
    n_keys: int = Field(ge=2, le=16)


class HeadsConfig(StrictModel):
    sentence: str

    @field_validator("sentence")
    @classmethod
    def _sentence(cls, value: str) -> str:
        return check_sentence(value, heads.MAX_TOKENS)


class PositionalConfig(StrictModel):
    n_positions: int = Field(ge=2, le=64)
    d_model: int = Field(ge=2, le=64)
    base: float = Field(gt=1.0, le=1e9)


class CapitalConfig(StrictModel):
    country: Literal["Francia", "Italia"]
    identity: float | None = Field(default=None, ge=-1.0, le=1.0)


class PipelineConfig(StrictModel):
    """Section 6: the lab's controls and the weights preset; W_Q, W_K, W_V (lab layout, d_k x 8) replace the preset's."""

    sentence: str
    preset: Literal["lab", "sharp"]
    query: int = Field(ge=0)
    temperature: float = Field(ge=0.1, le=5.0)
    causal: bool
    temperatures: list[Annotated[float, Field(ge=0.1, le=5.0)]] = Field(min_length=1, max_length=6)
    W_Q: Matrix | None = None
    W_K: Matrix | None = None
    W_V: Matrix | None = None

    @field_validator("sentence")
    @classmethod
    def _sentence(cls, value: str) -> str:
        return check_sentence(lab.LAB_SENTENCES.get(value, value), lab.MAX_TOKENS)

    @model_validator(mode="after")
    def _query_is_a_token(self) -> "PipelineConfig":
        n = len(self.tokens)
        if self.query >= n:
            raise ValueError(f"query: expected a token index from 0 to {n - 1} (the sentence has {plural(n, 'word')})")
        return self

    @model_validator(mode="after")
    def _weights_fit(self) -> "PipelineConfig":
        given = self.given_weights()
        for name, matrix in given.items():
            check_matrix(name, matrix, PIPELINE_MAX_DIM, lab.LAB_D)
        if given:
            check_lab_shapes(set(given), {name: np.shape(matrix)
                                          for name, matrix in self.weight_matrices().items()})
        return self

    @property
    def tokens(self) -> tuple[str, ...]:
        """The sentence's words; a lab sentence may be named by its key (gato, red, atencion)."""
        return lab.lab_tokens(self.sentence)

    def given_weights(self) -> dict[str, Matrix]:
        """The projection matrices given here (none: the preset's)."""
        return {name: getattr(self, name) for name in ("W_Q", "W_K", "W_V") if getattr(self, name) is not None}

    def weight_matrices(self) -> dict[str, Any]:
        """W_Q, W_K, W_V: the preset's, each replaced by the one given here."""
        from attn_math.sharp import preset_weights  # imported here: the module's imports belong to the file reader
        preset = preset_weights(self.preset)
        return {"W_Q": preset.W_Q, "W_K": preset.W_K, "W_V": preset.W_V, **self.given_weights()}

    def lab_weights(self) -> lab.LabWeights | None:
        """None for the preset's weights, else the preset's with any matrix given here replacing its own."""
        return lab.LabWeights(**self.weight_matrices()) if self.given_weights() else None


def check_lab_shapes(given: set[str], shapes: dict[str, tuple[int, int]]) -> None:
    """The lab's products q = W_Q x, k = W_K x (x the 8-dimensional embedding) and q . k, as one line naming
    both matrices and the shape each needs; ``given`` tells the user's matrices from the preset's."""
    for matrix, rows in (("W_Q", "d_k"), ("W_K", "d_k"), ("W_V", "d_v")):
        if shapes[matrix][1] != lab.LAB_D:
            raise ValueError(f"{matrix}: x (a token's embedding) has {lab.LAB_D} dimensions, so {matrix} needs "
                             f"{lab.LAB_D} columns ({rows} x {lab.LAB_D}), got {shape_text(shapes[matrix])}")
    if shapes["W_Q"][0] != shapes["W_K"][0]:
        wrong, right = ("W_K", "W_Q") if "W_K" in given else ("W_Q", "W_K")
        source = "" if right in given else " (the preset's)"
        raise ValueError(f"{wrong}: {right}{source} is {shape_text(shapes[right])}, so {wrong} needs "
                         f"{plural(shapes[right][0], 'row')} (q . k needs the same d_k), "
                         f"got {shape_text(shapes[wrong])}")


def shape_text(shape: tuple[int, ...]) -> str:
    """``3x2`` for a 3 x 2 matrix."""
    return "x".join(map(str, shape))


class AudioConfig(StrictModel):
    """The soundtrack: ``loudness`` is the integrated loudness (LUFS, ITU-R BS.1770) at volume 100."""

    volume: int = Field(ge=0, le=100)
    loudness: float = Field(ge=-36.0, le=-10.0)
    mute: bool

    def target_lufs(self) -> float:
        """loudness + 20 log10(volume / 100): volume 50 is 6 dB quieter; -inf at volume 0."""
        return self.loudness + 20 * float(np.log10(self.volume / 100)) if self.volume else float("-inf")


class NarrationConfig(StrictModel):
    """Who speaks each step: ``source`` "" nobody (the default), "tts" the espeak-ng draft voice, or a folder
    of the lecturer's recordings, one file per step named like the stills (``01-matrix/03-queries.wav``)."""

    source: str = Field(max_length=4096)
    voice: str
    words_per_minute: int = Field(ge=80, le=300)

    @field_validator("voice")
    @classmethod
    def _voice_name(cls, value: str) -> str:
        if not re.fullmatch(r"[a-z]{2,3}(-[a-z0-9]{2,8})*", value):
            raise ValueError("voice: expected an espeak-ng voice name such as \"es\" or \"es-419\"")
        return value

    @field_validator("source")
    @classmethod
    def _no_control_characters(cls, value: str) -> str:
        if any(ord(character) < 32 or ord(character) == 127 for character in value):
            raise ValueError("source: expected \"\", \"tts\" or a folder path without control characters")
        return value


class LectureOptions(StrictModel):
    """The whole lecture: ``questions`` says which question cards appear ("predictive": the few a step
    answers, posed before it, and the closing cards; "all": every step's question after it too; "none": no
    card); ``lang`` is the language of everything a viewer sees or hears (``assets/locales/<lang>.toml``)."""

    questions: Literal["predictive", "all", "none"]
    lang: str

    @field_validator("lang")
    @classmethod
    def _a_language_there_is(cls, value: str) -> str:
        if value not in languages():
            *others, last = map(shown, languages())
            raise ValueError(f"lang: expected {' or '.join(filter(None, (', '.join(others), last)))}, "
                             f"got {shown(value)}")
        return value


class LectureConfig(StrictModel):
    lecture: LectureOptions
    matrix: MatrixConfig
    scaling: ScalingConfig
    heads: HeadsConfig
    positional: PositionalConfig
    capital: CapitalConfig
    pipeline: PipelineConfig
    audio: AudioConfig
    narration: NarrationConfig

    def effective(self) -> dict[str, Any]:
        """Plain data for TOML: matrices resolved from their preset, no empty keys."""
        data = self.model_dump(exclude_none=True)
        data["matrix"] = {"preset": self.matrix.preset,
                          **{name: matrix.tolist() for name, matrix in self.matrix.matrices().items()},
                          "scale": self.matrix.scale, "causal": self.matrix.causal}
        return data


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    return repr(value)


def load_config(config_file: Path | None = None, overrides: tuple[str, ...] = ()) -> LectureConfig:
    """Defaults, then the language's defaults, then the file, then each ``key=value`` override; raises
    ConfigError."""
    data = read_toml(DEFAULT_CONFIG)
    given = user_values(config_file, overrides, data)
    chosen = given.get("lecture") if isinstance(given.get("lecture"), dict) else {}
    merge(data, language_defaults(chosen.get("lang", data["lecture"]["lang"])))
    merge(data, given)
    try:
        return LectureConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(describe(error)) from None


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
    """Set ``table.key`` in ``given``; each table must be one of ``known``'s."""
    *tables, leaf = key.split(".")
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


def suggestion(word: str, choices: list[str]) -> str:
    """"; did you mean 'X'?" for the choice that differs only in case, else the closest one; else the list."""
    same = [choice for choice in choices if choice.casefold() == word.casefold()]
    close = same or difflib.get_close_matches(word, choices, n=1, cutoff=0.5)
    return f"; did you mean '{close[0]}'?" if close else f"; expected one of: {', '.join(choices)}"


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
