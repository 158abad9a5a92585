"""Check the system pieces manim needs before any render starts, so a missing one is one clear line
naming the Debian package, not a traceback deep inside a worker."""

from __future__ import annotations

import shutil

PROGRAMS = {  # executable -> the Debian package that provides it
    "latex": "texlive-latex-base",
    "dvisvgm": "dvisvgm",
}
FONTS = {  # font family -> the Debian package that provides it
    "Inter": "fonts-inter",
    "JetBrains Mono": "fonts-jetbrains-mono",
    "DejaVu Sans": "fonts-dejavu-core",
}


def missing_system_dependencies() -> list[str]:
    """One message per missing program or font; empty when everything is there."""
    import manimpango

    problems = [f"'{program}' not found: install the Debian package {package} (make setup does)"
                for program, package in PROGRAMS.items() if shutil.which(program) is None]
    installed = set(manimpango.list_fonts())
    problems += [f"font '{font}' not found: install the Debian package {package} (make setup does)"
                 for font, package in FONTS.items() if font not in installed]
    return problems
