"""Storyboards: per section, one contact sheet with the last frame of every step in a grid and the step's
title under it, for reviewing a config at a glance or printing as a handout.

The frames come from the ``--format png`` render (animations skipped, only each step's last frame
drawn), which is why a storyboard takes seconds, not a video's minutes. That render goes to
``OUT/stills`` with its own manifest: its up-to-date check skips it next time, and the video entries
of ``OUT/manifest.json`` are left alone.
"""

from __future__ import annotations

import math
import subprocess
import textwrap
from dataclasses import replace
from functools import cache
from itertools import groupby
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from rich.console import Console

from lecture.render.manifest import STILLS
from lecture.render.output_folder import OutputFolder
from lecture.render.runner import RenderRequest
from lecture.publish.slides import render_current
from lesson.formats import PNG
from lesson.records import StepRecord, steps_of
from lesson.sections import BY_ID, Section

FONTS = Path("/usr/share/fonts/opentype/inter")  # Debian's fonts-inter, the lecture's own typeface
TILE_WIDTH = 480  # pixels: big enough to read the numbers on a printed page, small enough to review
PAGE, INK = "#FFFFFF", "#1F2430"  # a light page: the sheet is also a handout for the printer
LABEL_LINES = 2


def build(request: RenderRequest, console: Console) -> int:
    """Render (or reuse) every step's last frame, then write one contact sheet per section from those stills as
    their render left them (see ``render_current``)."""
    stills = replace(request, out_dir=request.out_dir / STILLS, format=PNG.name)
    folder = OutputFolder(request.out_dir)
    with folder.scratch() as sources:
        status, entries = render_current(stills, console, sources)
        for section_id, entry in entries.items():
            section = BY_ID[section_id]
            steps = steps_of(entry)
            frames = [sources / entry["files"][0] / f"{number:02d}-{step.key}{PNG.suffix}"
                      for number, step in enumerate(steps, 1)]
            name = f"{section.stem}-storyboard{PNG.suffix}"
            with folder.scratch() as scratch:
                contact_sheet(section, steps, frames, request.config.locale()).save(
                    scratch / name)
                with folder.lock():
                    folder.commit({name: scratch / name}, scratch)
            console.print(f"{folder.path / name}: {len(frames)} steps", soft_wrap=True, markup=False,
                          highlight=False)
    return status


def contact_sheet(section: Section, steps: list[StepRecord], frames: list[Path], strings: dict) -> Image.Image:
    """The section title on top, then the frames in a near-square grid, each with "N. title" under it
    (headings from ``strings``, the locale)."""
    tiles = [_tile(frame) for frame in frames]
    width, height = tiles[0].size
    text_size = max(11, width // 24)
    regular, bold = LabelFont("Inter-Regular.otf", text_size), LabelFont("Inter-Bold.otf", 2 * text_size)
    gap, line = text_size * 2, round(text_size * 1.3)
    columns = math.ceil(math.sqrt(len(tiles)))
    rows = math.ceil(len(tiles) / columns)
    heading_height = 4 * text_size
    cell_height = height + line * LABEL_LINES + text_size
    sheet = Image.new("RGB", (gap + columns * (width + gap), heading_height + rows * cell_height + gap), PAGE)
    draw = ImageDraw.Draw(sheet)
    heading = strings["slides"]["storyboard_heading"].format(number=section.number,
                                                             title=strings[section.id]["title"])
    bold.draw(draw, (gap, text_size), heading)
    for index, (tile, step) in enumerate(zip(tiles, steps)):
        left = gap + (index % columns) * (width + gap)
        top = heading_height + (index // columns) * cell_height
        sheet.paste(tile, (left, top))
        label = strings["slides"]["storyboard_step"].format(number=index + 1, title=step.title)
        for number, text in enumerate(_wrapped(label, regular, width)):
            regular.draw(draw, (left, top + height + text_size // 2 + number * line), text)
    return sheet


def _tile(frame: Path) -> Image.Image:
    with Image.open(frame) as image:
        image = image.convert("RGB")
    if image.width > TILE_WIDTH:
        image = image.resize((TILE_WIDTH, round(image.height * TILE_WIDTH / image.width)), Image.Resampling.LANCZOS)
    return image


def _wrapped(label: str, font: LabelFont, width: int) -> list[str]:
    """``label`` in at most LABEL_LINES lines that fit ``width`` pixels, the last cut with "…" if needed."""
    for characters in range(len(label), 0, -1):  # the widest wrap whose lines all fit
        lines = textwrap.wrap(label, characters)
        if all(font.length(text) <= width for text in lines):
            break
    if len(lines) > LABEL_LINES:
        last = " ".join(lines[LABEL_LINES - 1:])
        while font.length(last + "…") > width:
            last = last[:-1]
        lines = [*lines[:LABEL_LINES - 1], last.rstrip() + "…"]
    return lines


class LabelFont:
    """Inter at one size, falling back glyph by glyph to the font fontconfig picks, as Pango does on screen
    (Inter has no "ᵀ", for example, and a title like "QKᵀ" would otherwise show a box)."""

    def __init__(self, name: str, size: int):
        self.size = size
        self.primary = ImageFont.truetype(str(FONTS / name), size)
        missing = self.primary.getmask("\U0010FFFD")  # a code point no font has: the "missing glyph" box
        self._missing = (missing.size, bytes(missing))

    def length(self, text: str) -> float:
        return sum(font.getlength(run) for run, font in self._runs(text))

    def draw(self, draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str) -> None:
        x, y = xy
        for run, font in self._runs(text):
            draw.text((x, y), run, font=font, fill=INK)
            x += font.getlength(run)

    def _runs(self, text: str) -> list[tuple[str, ImageFont.FreeTypeFont]]:
        fonts = [self._font_for(character) for character in text]
        runs, position = [], 0
        for font, group in groupby(fonts):
            count = len(list(group))
            runs.append((text[position:position + count], font))
            position += count
        return runs

    def _font_for(self, character: str) -> ImageFont.FreeTypeFont:
        mask = self.primary.getmask(character)
        if (mask.size, bytes(mask)) != self._missing:
            return self.primary
        fallback = _fallback_file(character)
        return ImageFont.truetype(fallback, self.size) if fallback else self.primary


@cache
def _fallback_file(character: str) -> str | None:
    """The file of the sans-serif font fontconfig picks for ``character``, or None without fontconfig."""
    try:
        found = subprocess.run(["fc-match", "-f", "%{file}", f"sans-serif:charset={ord(character):x}"],
                               capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return found.stdout.strip() or None
