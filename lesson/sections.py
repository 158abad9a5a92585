"""The lesson's sections, in lesson order: one record per section, and the registry everything else reads.

A record names what the rest of the code needs to know about its section: its math module and its scene (module and class, as
strings: this layer loads no Manim), its config model (its table's defaults are in ``assets/default.toml``),
the sound kinds its scene plays (``sonify.mappings``) and typical render time. Its on-screen text is the
locale tables named by ``locale_tables``. The CLI's section list, the config schema (``lesson.config``),
the default file's tables, the README's section table and the tests that loop over sections all read
``SECTIONS``.

Adding a section: its math module, its scene, its record here and its tables in each locale (and its table
in ``assets/default.toml``: tests/test_registry.py holds the file to the registry). A section declared outside
the project (a plug-in, a test's throwaway) calls ``register`` before ``lesson.config`` is imported, with
its locale tables in files of its own (``locales``) and the sounds it brings (``sounds``); its defaults are
then its model's own.
"""

from __future__ import annotations

import importlib
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from lesson.section_config import (CapitalConfig, HeadsConfig, LearnedConfig, MatrixConfig, PipelineConfig,
                                   PositionalConfig, ScalingConfig)
from sonify.mappings import LEVELS, add_sound

SECTION_ID = re.compile(r"[a-z][a-z0-9_]*")  # a config table, a locale table and a file name alike


@dataclass(frozen=True)
class CueSound:
    """A sound kind a section brings: the mapping from a cue's values to stereo samples, and its level (dB)."""

    mapping: Callable
    level: float


@dataclass(frozen=True)
class Section:
    id: str
    number: int
    scene_module: str
    scene_class: str
    config: type[BaseModel]  # its config table's model
    math_module: str  # the attn_math module (no Manim) that computes every number its scene shows
    cue_kinds: tuple[str, ...]  # the sounds its scene plays: sonify.mappings' kinds, or its own ``sounds``
    typical_seconds: float  # its default's render at 480p15 (make bench); only decides which starts first
    # Kinds it brings that sonify lacks, and (when its tables are not in assets/locales) language -> a TOML file
    # of its tables: a section declared outside the project. Not hashed: a section is a key (of its narration).
    sounds: Mapping[str, CueSound] = field(default_factory=dict, hash=False)
    locales: Mapping[str, Path] = field(default_factory=dict, hash=False)
    # Steps ``lecture.skip`` may not leave out, each with why: what later steps show cannot do without them.
    kept_steps: Mapping[str, str] = field(default_factory=dict, hash=False)

    @property
    def stem(self) -> str:
        """Output file stem, e.g. ``01-matrix``."""
        return f"{self.number:02d}-{self.id}"

    @property
    def locale_tables(self) -> tuple[str, ...]:
        """Its tables in every locale: its steps, labels and title, and its closing card."""
        return self.id, f"closing.{self.id}"

    @property
    def levels(self) -> dict[str, float]:
        """The level (dB) each of its cue kinds plays at: one per kind, the same in every section."""
        return {kind: LEVELS[kind] for kind in self.cue_kinds}

    def scene(self) -> type:
        return getattr(importlib.import_module(self.scene_module), self.scene_class)


# Read everywhere, changed only by ``register`` (in place: modules that imported them see every section).
SECTIONS: list[Section] = []  # lesson order
SECTION_IDS: list[str] = []
BY_ID: dict[str, Section] = {}
_schema_built = False


def register(section: Section) -> None:
    """Add ``section`` in its place by number; raises ValueError naming what clashes or is missing."""
    if _schema_built:
        raise RuntimeError(f"section {section.id!r}: register it before lesson.config is imported "
                           "(the config schema is built from the sections then)")
    check(section)
    for kind, sound in section.sounds.items():
        add_sound(kind, sound.mapping, sound.level)
    SECTIONS.append(section)
    SECTIONS.sort(key=lambda known: known.number)
    SECTION_IDS[:] = [known.id for known in SECTIONS]
    BY_ID[section.id] = section


def check(section: Section) -> None:
    """A usable id, a number and an id no other section has, a sound for every cue kind it plays and no sound it
    brings under a kind that has one."""
    if not SECTION_ID.fullmatch(section.id):
        raise ValueError(f"section {section.id!r}: expected an id of lowercase letters, digits and _")
    taken = next((known for known in SECTIONS if section.id == known.id or section.number == known.number), None)
    if taken:
        raise ValueError(f"section {section.id!r}: number {section.number} or id taken by {taken.stem}")
    unknown = sorted(set(section.cue_kinds) - LEVELS.keys() - section.sounds.keys())
    if unknown:
        raise ValueError(f"section {section.id!r}: cue kinds without a sound: {', '.join(unknown)}")
    clashing = sorted(section.sounds.keys() & LEVELS.keys())
    if clashing:
        raise ValueError(f"section {section.id!r}: brings sounds for kinds that have one: {', '.join(clashing)}")


def schema_sections() -> tuple[Section, ...]:
    """The sections the config schema is built from; registering one later is an error, not a silent miss."""
    global _schema_built
    _schema_built = True
    return tuple(SECTIONS)


def with_section_tables(strings: dict, language: str) -> dict:
    """A locale's ``strings`` with the tables of the sections that keep theirs in files of their own."""
    for section in SECTIONS:
        if language in section.locales:
            for name, table in tomllib.loads(section.locales[language].read_text(encoding="utf-8")).items():
                strings[name] = {**strings.get(name, {}), **table}  # closing.<id> joins the other closings
    return strings


for _section in (
    Section("matrix", 1, "scenes.matrix", "MatrixScene", MatrixConfig, "attn_math.attention",
            ("step", "cell", "row", "values", "masked"), 20),
    Section("scaling", 2, "scenes.scaling", "ScalingScene", ScalingConfig, "attn_math.scaling",
            ("step", "cell", "row", "values"), 33),
    Section("heads", 3, "scenes.heads", "HeadsScene", HeadsConfig, "attn_math.heads",
            ("step", "tokens", "head_arcs", "head_row", "heads_overlay", "heads_sum", "sum_row", "heads_chord",
             "cost", "concat"), 55),
    Section("positional", 4, "scenes.positional", "PositionalScene", PositionalConfig, "attn_math.positional",
            ("step", "frequencies", "position_sweep", "frequency_contrast", "wave", "values", "similarity_curve",
             "vector_sum", "outputs_compared"), 40),
    Section("capital", 5, "scenes.capital", "CapitalScene", CapitalConfig, "attn_math.capital",
            ("step", "scale", "cell", "values", "row", "distribution"), 53),
    Section("pipeline", 6, "scenes.pipeline", "PipelineScene", PipelineConfig, "attn_math.lab",
            ("step", "reset", "tokens", "values", "connection", "row", "curve", "masked", "entropy"), 48,
            kept_steps=dict.fromkeys(("embeddings", "queries", "keys", "scores", "scaled", "softmax", "output",
                                      "presets"), "the lab's panel walks through its seven steps in order and "
                                                  "leaves with the presets step")),
    Section("learned", 7, "scenes.learned", "LearnedScene", LearnedConfig, "attn_math.learned",
            ("step", "tokens", "loss", "cell", "values", "head_row"), 50),
):
    register(_section)
