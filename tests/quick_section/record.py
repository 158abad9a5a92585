"""The quick section's record, config model and sound; ``launch.py`` registers it (a test reads it unregistered:
its stem, its steps)."""

from pathlib import Path

from pydantic import Field

from lesson.section_config import StrictModel
from lesson.sections import CueSound, Section
from sonify.synth import pan, tone

HERE = Path(__file__).resolve().parent
PING = 660.0  # Hz: the section's own sound, played at its first step


class QuickConfig(StrictModel):
    count: int = Field(default=3, ge=1, le=6)  # how many halves: what the steps show and say
    draw_seconds: float = Field(default=0.6, ge=0.2, le=60.0)  # each drawing's length: a longer render


def ping(value, **_):
    return pan(value * tone(PING, 0.8), 0.0)


SECTION = Section("quick", 8, "quick_section.scene", "QuickScene", QuickConfig, "quick_section.halves",
                  ("step", "ping"), 1.0, sounds={"ping": CueSound(ping, 0.0)},
                  locales={language: HERE / f"{language}.toml" for language in ("es", "en")})
