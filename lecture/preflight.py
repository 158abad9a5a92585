"""Check before any render starts, so a problem is one clear line, not a traceback deep inside a worker: the
system pieces manim needs (naming the Debian package), and a video whose worker would pass its memory target
(issue 31: 2 GB per worker at 2160p)."""

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
# A WebM worker runs two VP9 encoders (lecture.jobs: max_inflight_encoders) and each holds about 0.8 to 1.1 GB at
# 3840x2160 whatever its settings (lag-in-frames 0 to 25): measured, pipeline --steps 2 at 60 fps, 2474 MB at
# 3840x2160 and 1341 MB at 2560x1440, the largest WebM allowed (mp4: see scenes/speedups.py).
WEBM_MAX_SIZE = (2560, 1440)


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
    most_width, most_height = WEBM_MAX_SIZE
    if file_format == "webm" and width * height > most_width * most_height:
        return (f"--format webm: expected frames of at most {most_width}x{most_height} pixels (at 3840x2160 a "
                f"worker's VP9 encoders took 2.4 GB, over its 2 GB), got {width}x{height}; use --format mp4 "
                "or a smaller --resolution")
    return None
