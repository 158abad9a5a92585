"""A batch's variants file: named variants, each a render request into ``OUT/<name>``, all checked first.

```toml
[defaults]                  # optional: what every variant starts from
sections = ["matrix"]       # default: every available section
quality = "h"               # l|m|h|k, as -q; resolution = "640x360" and fps = 10 adjust it
format = "mp4"              # as --format; steps = "4..6" as --steps
lang = "en"                 # lecture.lang

[variants.alumno-01.config] # config overrides: the same keys and values as --set
matrix.X = [[1, 0], [0, 2], [1, 1]]
```
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lecture.render.jobs import QUALITIES, Quality
from lecture.render.narration import NarrationError
from lecture.render.runner import RenderRequest, chosen_steps, narration_plans
from lesson.config import CONFIG_MAX_DEPTH, ConfigError, load_config, merge, read_toml, suggestion, toml_value
from lesson.config_hints import clipped, shown
from lesson.formats import DEFAULT_FORMAT, FORMATS
from lesson.sections import BY_ID, SECTION_IDS
from lesson.steps import StepsError

VARIANT_NAME = re.compile(r"[^\W_][\w.-]*")  # a plain folder name: no path, not hidden
NAME_MAX = 255  # bytes in a file name on Linux's, macOS's and Windows' file systems


class VariantsError(ValueError):
    """A bad variants file: one line naming the variant and the key."""


class VariantFields(BaseModel):
    """What a variant (or ``[defaults]``) may set; everything else is refused by name."""

    model_config = ConfigDict(extra="forbid", strict=True)
    sections: list[str] | None = None
    quality: Literal[tuple(QUALITIES)] = "m"
    resolution: str | None = None
    fps: int | None = Field(None, ge=1, le=120)
    format: Literal[FORMATS] = DEFAULT_FORMAT.name
    steps: str | int | None = None
    lang: str | None = None
    config: dict[str, Any] = {}


@dataclass(frozen=True)
class Variant:
    name: str
    request: RenderRequest


def read_variants(path: Path, out_dir: Path, jobs: int, force: bool = False, verbose: bool = False) -> list[Variant]:
    """Every variant of ``path`` as a request into ``out_dir/<name>``; raises VariantsError at the first bad
    one, before anything is written."""
    try:
        data = read_toml(path, max_depth=CONFIG_MAX_DEPTH + 3)  # a config inside [variants.NAME.config]
    except ConfigError as error:
        raise VariantsError(str(error).replace("config: ", "variants: ", 1)) from None
    unknown = set(data) - {"defaults", "variants"}
    if unknown:
        raise VariantsError(f"{path}: unknown table '{sorted(unknown)[0]}'; expected [defaults] and [variants.NAME]")
    defaults, variants = data.get("defaults", {}), data.get("variants", {})
    if not isinstance(defaults, dict) or not isinstance(variants, dict) or not variants:
        raise VariantsError(f"{path}: expected a [defaults] table and at least one [variants.NAME] table")
    check_names(path, variants)
    run_options = {"jobs": jobs, "force": force, "verbose": verbose}
    try:
        return [Variant(name, variant_request(name, defaults, fields, out_dir / name, run_options))
                for name, fields in variants.items()]
    except VariantsError as error:
        raise VariantsError(f"{path}: {error}") from None


def check_names(path: Path, variants: dict) -> None:
    """Names are folder names the file system takes, distinct even where it ignores case."""
    seen: dict[str, str] = {}
    for name, fields in variants.items():
        if not VARIANT_NAME.fullmatch(name):
            raise VariantsError(f"{path}: variant {shown(name)}: expected a plain folder name "
                                "(letters, digits, '-', '_' and '.', starting with a letter or digit)")
        if len(os.fsencode(name)) > NAME_MAX:
            raise VariantsError(f"{path}: variant {shown(name)}: expected a folder name of at most {NAME_MAX} "
                                f"bytes, got {len(os.fsencode(name))}")
        if not isinstance(fields, dict):
            raise VariantsError(f"{path}: variant {shown(name)}: expected a table [variants.NAME]")
        if name.casefold() in seen:
            raise VariantsError(f"{path}: variants {shown(seen[name.casefold()])} and {shown(name)} differ only "
                                "in case: they would share a folder on some file systems")
        seen[name.casefold()] = name


def variant_request(name: str, defaults: dict, own: dict, out_dir: Path, run_options: dict) -> RenderRequest:
    """The defaults with the variant's own fields on top, checked as ``render`` checks its options;
    ``run_options`` are the command's -j, --force and --verbose."""
    merged = copy.deepcopy(defaults)  # merge shares the tables it copies: no variant may change the defaults
    merge(merged, own)
    try:
        fields = VariantFields.model_validate(merged)
        config = load_config(None, config_overrides(fields))
        request = RenderRequest(sections=sections_of(fields.sections), config=config, quality=quality_of(fields),
                                format=fields.format, out_dir=out_dir, **run_options,
                                steps=None if fields.steps is None else str(fields.steps))
        chosen_steps(request)
        narration_plans(request, warn=lambda line: None)  # said once more when the variant renders
    except ValidationError as error:
        raise VariantsError(f"variant {shown(name)}: {field_problem(error)}") from None
    except (ConfigError, ValueError, StepsError, NarrationError) as error:
        raise VariantsError(f"variant {shown(name)}: {error}") from None
    return request


def config_overrides(fields: VariantFields) -> tuple[str, ...]:
    """The variant's config table as ``--set`` overrides (``lang`` is ``lecture.lang``)."""
    def flat(table: dict, prefix: str):
        for key, value in table.items():
            if isinstance(value, dict):
                yield from flat(value, f"{prefix}{key}.")
            else:
                yield f"{prefix}{key}={toml_value(value)}"

    lang = () if fields.lang is None else (f"lecture.lang={toml_value(fields.lang)}",)
    return (*flat(fields.config, ""), *lang)


def sections_of(names: list[str] | None) -> tuple[str, ...]:
    """The named sections in lesson order (default: every available one); raises ValueError."""
    for name in names or ():
        if name not in BY_ID:
            raise ValueError(f"sections: unknown section '{name}'{suggestion(name, list(SECTION_IDS))}")
    if names == []:
        raise ValueError("sections: expected at least one section")
    chosen = set(names or SECTION_IDS)
    return tuple(section for section in SECTION_IDS if section in chosen)


def quality_of(fields: VariantFields) -> Quality:
    """``quality``, with ``resolution`` (even sizes, 16x16 to 7680x4320) and ``fps`` in place of its own."""
    base = QUALITIES[fields.quality]
    if fields.resolution is None:
        return Quality(base.width, base.height, fields.fps or base.fps)
    size = re.fullmatch(r"(\d+)x(\d+)", fields.resolution.lower())
    width, height = (int(part) for part in size.groups()) if size else (0, 0)
    if not (16 <= width <= 7680 and 16 <= height <= 4320) or width % 2 or height % 2:
        raise ValueError(f"resolution: expected even sizes WIDTHxHEIGHT between 16x16 and 7680x4320, "
                         f"got {shown(fields.resolution)}")
    return Quality(width, height, fields.fps or base.fps)


def field_problem(error: ValidationError) -> str:
    """The first problem with a variant's own fields as ``key: what was expected``."""
    first = error.errors()[0]
    key = ".".join(str(part) for part in first["loc"])
    if first["type"] == "extra_forbidden":
        return f"{clipped(key)}: unknown key{suggestion(key, list(VariantFields.model_fields))}"
    return f"{key}: {first['msg'].replace('Input should be', 'expected')}, got {shown(first['input'])}"
