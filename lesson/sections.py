"""The lesson's sections, in lesson order: stable ids used in config tables and file names."""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    id: str
    number: int
    scene_module: str
    scene_class: str
    typical_seconds: float  # its default's render at 480p15 (make bench); only decides which starts first

    @property
    def stem(self) -> str:
        """Output file stem, e.g. ``01-matrix``."""
        return f"{self.number:02d}-{self.id}"

    @property
    def available(self) -> bool:
        """Whether its scene module exists yet."""
        return importlib.util.find_spec(self.scene_module) is not None

    def scene(self) -> type:
        return getattr(importlib.import_module(self.scene_module), self.scene_class)


SECTIONS = (
    Section("matrix", 1, "scenes.matrix", "MatrixScene", 20),
    Section("scaling", 2, "scenes.scaling", "ScalingScene", 33),
    Section("heads", 3, "scenes.heads", "HeadsScene", 55),
    Section("positional", 4, "scenes.positional", "PositionalScene", 40),
    Section("capital", 5, "scenes.capital", "CapitalScene", 53),
    Section("pipeline", 6, "scenes.pipeline", "PipelineScene", 48),
)
SECTION_IDS = tuple(section.id for section in SECTIONS)
BY_ID = {section.id: section for section in SECTIONS}


def available_sections() -> tuple[Section, ...]:
    return tuple(section for section in SECTIONS if section.available)
