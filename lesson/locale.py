"""On-screen text: one TOML file per language in ``assets/locales``, one table per section."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

LOCALES = Path(__file__).resolve().parent.parent / "assets" / "locales"


@cache
def load_locale(language: str = "es") -> dict:
    """The strings of ``language``: ``locale[section]["steps"][step]["title"]`` and so on."""
    return tomllib.loads((LOCALES / f"{language}.toml").read_text(encoding="utf-8"))
