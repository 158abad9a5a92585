"""A deck as PowerPoint: one slide per step holding its clip (playing on arrival, at full volume), the
step's last frame as the clip's picture in the editor, in print and in PDF exports, the step's title as
the slide's title (behind the clip, for the outline and screen readers), alt text for the clip and the
speaker notes; all text marked with the deck's language."""

from __future__ import annotations

from pathlib import Path

from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.lang import MSO_LANGUAGE_ID
from pptx.util import Emu

from lecture.publish.decks import CLIPS, Deck, SectionSlides, StepSlide, slides_in_order

WIDTH = 1280  # pixels at 96 dpi: PowerPoint's standard 13.33-inch wide slide
EMU_PER_PIXEL = 9525
TITLE_SLIDE, TITLE_ONLY = 0, 5  # python-pptx's default layouts
TEXT_COLOR = RGBColor(0xFF, 0xFF, 0xFF)


def write_pptx(deck: Deck, target: Path) -> list[Path]:
    """Write ``deck`` to ``target``; returns what was written."""
    presentation = Presentation()
    presentation.slide_width = Emu(WIDTH * EMU_PER_PIXEL)
    presentation.slide_height = Emu(round(WIDTH * deck.height / deck.width) * EMU_PER_PIXEL)
    presentation.core_properties.title = deck.title
    presentation.core_properties.language = deck.language
    language = next(member for member in MSO_LANGUAGE_ID if member.xml_value == deck.language)
    for slide in slides_in_order(deck):
        if isinstance(slide, SectionSlides):
            _title_slide(presentation, deck, slide, language)
        else:
            _step_slide(presentation, *slide, language)
    presentation.save(str(target))
    return [target]


def _title_slide(presentation, deck: Deck, section: SectionSlides, language) -> None:
    slide = presentation.slides.add_slide(presentation.slide_layouts[TITLE_SLIDE])
    slide.background.fill.solid()
    slide.background.fill.fore_color.rgb = RGBColor.from_string(deck.background.lstrip("#"))
    width, height = presentation.slide_width, presentation.slide_height
    # placed anew: the default layouts are laid out for a 4:3 slide, ours is the video's shape
    for shape, text, top, share in ((slide.shapes.title, section.heading, 0.22, 0.28),
                                    (slide.placeholders[1], section.summary, 0.52, 0.3)):
        shape.left, shape.top, shape.width, shape.height = (width // 12, round(height * top), width * 5 // 6,
                                                            round(height * share))
        shape.text = text
        _mark(shape.text_frame, language, TEXT_COLOR)


def _step_slide(presentation, step: StepSlide, poster: Path, language) -> None:
    slide = presentation.slides.add_slide(presentation.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = step.title
    _mark(slide.shapes.title.text_frame, language)
    movie = slide.shapes.add_movie(str(step.clip), 0, 0, presentation.slide_width, presentation.slide_height,
                                   poster_frame_image=str(poster), mime_type=CLIPS.browser_type)
    movie.element.nvPicPr.cNvPr.set("descr", f"{step.title}. {step.caption}")
    media = slide.element.xpath(f'.//p:timing//p:video[.//p:spTgt/@spid="{movie.shape_id}"]')[0]
    media.xpath("./p:cMediaNode")[0].set("vol", "100000")  # the mix is already at its loudness target
    media.xpath(".//p:cond")[0].set("delay", "0")  # plays when the slide opens, not on a click
    slide.notes_slide.notes_text_frame.text = step.notes
    _mark(slide.notes_slide.notes_text_frame, language)


def _mark(text_frame, language, color: RGBColor | None = None) -> None:
    for paragraph in text_frame.paragraphs:
        for run in paragraph.runs:
            run.font.language_id = language
            if color is not None:
                run.font.color.rgb = color
