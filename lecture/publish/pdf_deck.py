"""A deck as PDF, for print and handouts: one page per step with its title above the step's last frame
and its caption below, both as real text (selectable, searchable), after each section's steps its
questions for the class with their answers, and in the lecture's joined deck a title page before each
section; fonts embedded, so it reads the same anywhere."""

from __future__ import annotations

import subprocess
from pathlib import Path

from fpdf import FPDF

from lecture.publish.decks import Deck, SectionSlides, StepSlide, slides_in_order
from lesson.locale import load_locale

WIDTH = 960  # points: a 13.33-inch wide page, as the PowerPoint deck's
TITLE_BAND, CAPTION_BAND, MARGIN = 64, 110, 24  # points above and below the frame, and at the sides
TITLE_SIZE, CAPTION_SIZE, HEADING_SIZE = 26, 17, 36  # points
# TrueType, covering every character of the locale (ᵀ and ∝ too, which Inter lacks); PDF readers render
# fpdf2's TrueType embedding everywhere, its CFF (Inter's .otf) not always.
FONT = "DejaVu Sans"


def write_pdf(deck: Deck, target: Path) -> list[Path]:
    """Write ``deck`` to ``target``; returns what was written."""
    frame_height = WIDTH * deck.height / deck.width
    pdf = FPDF(unit="pt", format=(WIDTH, TITLE_BAND + frame_height + CAPTION_BAND))
    pdf.set_auto_page_break(False)
    pdf.set_title(deck.title)
    pdf.set_lang(deck.language)
    pdf.set_margins(MARGIN, 0, MARGIN)
    _add_fonts(pdf)
    heading = load_locale(deck.lang)["slides"]["questions_heading"]
    ending = {id(section.steps[-1]): section for section in deck.sections if section.steps}  # last step: section
    for slide in slides_in_order(deck):
        if isinstance(slide, SectionSlides):
            _title_page(pdf, slide)
            continue
        _step_page(pdf, *slide, frame_height)
        section = ending.get(id(slide[0]))
        if section and section.questions:
            _questions_page(pdf, section, heading)
    pdf.output(str(target))
    return [target]


def _step_page(pdf: FPDF, step: StepSlide, frame: Path, frame_height: float) -> None:
    pdf.add_page()
    pdf.set_font(FONT, "B", TITLE_SIZE)
    pdf.set_xy(MARGIN, 0)
    pdf.cell(w=WIDTH - 2 * MARGIN, h=TITLE_BAND, text=step.title)
    pdf.image(str(frame), x=0, y=TITLE_BAND, w=WIDTH, h=frame_height)
    pdf.set_xy(MARGIN, TITLE_BAND + frame_height + MARGIN / 2)
    pdf.set_font(FONT, "", _fitting_size(pdf, step.caption))
    pdf.multi_cell(w=WIDTH - 2 * MARGIN, text=step.caption)


def _questions_page(pdf: FPDF, section: SectionSlides, heading: str) -> None:
    """``heading`` and the section's questions, each in bold with its answer below; a question that would not
    fit starts a new page under the same heading."""
    title = f"{heading} · {section.heading}"
    _handout_page(pdf, title)
    width = WIDTH - 2 * MARGIN
    for question, answer in section.questions:
        needed = sum(_text_height(pdf, text, style) for text, style in ((question, "B"), (answer, ""))) + MARGIN / 2
        if pdf.get_y() + needed > pdf.h - MARGIN:
            _handout_page(pdf, title)
        for text, style in ((question, "B"), (answer, "")):
            pdf.set_font(FONT, style, CAPTION_SIZE)
            pdf.multi_cell(w=width, text=text)
        pdf.ln(MARGIN / 2)


def _handout_page(pdf: FPDF, title: str) -> None:
    pdf.add_page()
    pdf.set_xy(MARGIN, MARGIN)
    pdf.set_font(FONT, "B", TITLE_SIZE)
    pdf.multi_cell(w=WIDTH - 2 * MARGIN, text=title)
    pdf.ln(MARGIN / 2)


def _text_height(pdf: FPDF, text: str, style: str) -> float:
    pdf.set_font(FONT, style, CAPTION_SIZE)
    return pdf.multi_cell(w=WIDTH - 2 * MARGIN, text=text, dry_run=True, output="HEIGHT")


def _title_page(pdf: FPDF, section: SectionSlides) -> None:
    pdf.add_page()
    pdf.set_y(pdf.h / 3)
    pdf.set_font(FONT, "B", HEADING_SIZE)
    pdf.multi_cell(w=WIDTH - 2 * MARGIN, text=section.heading, align="C")
    pdf.ln(MARGIN)
    pdf.set_font(FONT, "", CAPTION_SIZE + 3)
    pdf.multi_cell(w=WIDTH - 2 * MARGIN, text=section.summary, align="C")


def _fitting_size(pdf: FPDF, caption: str) -> float:
    """The caption's font size: CAPTION_SIZE, smaller only when its lines would overflow the band."""
    size = CAPTION_SIZE
    while size > 8:
        pdf.set_font(FONT, "", size)
        lines = pdf.multi_cell(w=WIDTH - 2 * MARGIN, text=caption, dry_run=True, output="LINES")
        if len(lines) * size * 1.2 <= CAPTION_BAND - MARGIN:  # fpdf2's default line height: 1.2 × size
            break
        size -= 1
    return size


def _add_fonts(pdf: FPDF) -> None:
    pdf.add_font(FONT, "", font_file(FONT))
    pdf.add_font(FONT, "B", font_file(f"{FONT}:bold"))


def font_file(pattern: str) -> str:
    """The font file fontconfig picks for ``pattern``."""
    return subprocess.run(["fc-match", "-f", "%{file}", pattern], capture_output=True, text=True,
                          check=True).stdout
