"""Check before any render starts, so a problem is one clear line, not a traceback deep inside a worker: the
system pieces manim needs (naming the Debian package), and a video whose worker would pass its memory target
(issue 31: 2 GB per worker at 2160p)."""

from __future__ import annotations

import shutil

from lesson.formats import BY_NAME, DEFAULT_FORMAT

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


def memory_problem(width: int, height: int, file_format: str) -> str | None:
    """One line refusing a video whose worker would pass its memory target at this frame size; None if it fits."""
    chosen = BY_NAME.get(file_format)  # not there: no file is written (the script's steps-only render)
    if chosen is None or chosen.fits(width, height):
        return None
    most_width, most_height = chosen.max_frame
    return (f"--format {chosen.name}: expected frames of at most {most_width}x{most_height} pixels "
            f"({chosen.max_frame_reason}), got {width}x{height}; use --format {DEFAULT_FORMAT.name} "
            "or a smaller --resolution")
