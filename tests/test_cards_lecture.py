"""The joined lecture's title and end cards, through the CLI: the lecture opens on a card of about 5 s (course,
lesson, date from the config), its sections follow with their chapters and captions shifted by exactly that
card's length, and it ends on a card of the works the joined sections cite; one section alone has no card; the
card keys re-join the lecture without re-rendering a section, and a bad one is refused in one line."""

import json
import os
import re
from types import SimpleNamespace

import pytest
from manim import UL, config, tempconfig

from lecture.render.output_folder import PRIVATE, write_whole
from lecture.render.runner import CARDS_FOLDER
from lesson.locale import load_locale
from lesson.references import Card, lecture_cards, said_title
from lesson.sections import SECTIONS as LESSON_SECTIONS
from scenes import style
from scenes.cards import HOLD_MOST, OpeningCard, ReferencesCard, slide_width
from scenes.visuals import label_text

from media_checks import (TINY, chapters, copy_of, decoded_frame_count, manifest, rendered_once, run_cli,
                          run_quick_cli, streams, tiny_clean_matrix, tiny_quick)
from scene_checks import video_stills
from test_captions import parse_vtt

COURSE = "Curso & <IA> 2026"  # every character a caption format or the picture's markup would misread
DATE = "6 de diciembre de 2026"
FPS = 5
LESSON = "Clase 04 — Atención y Transformers"  # the seeds' lesson name (../shared/seeds/clase-04-…)
SECTIONS = ("01-matrix", "08-quick")  # matrix cites the Transformer paper; quick (a test's section) cites nothing


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """matrix (up to date, from ``tiny_clean_matrix``) and the quick section joined, silent and clean (captions as
    subtitles, not burned in), with the card keys set."""
    start = tiny_clean_matrix(tmp_path_factory)
    out, result = rendered_once(tmp_path_factory, "cards-pair", "render", "matrix", "quick", *TINY, "-j", "1",
                                "--clean", "--set", f"lecture.course={COURSE!r}", "--set", f"lecture.date={DATE!r}",
                                start_from=start, cli=run_quick_cli)
    assert result.returncode == 0, result.stderr
    return out, result


def title_seconds(out) -> float:
    return chapters(out / "lecture.mp4")[0][1]


def test_the_sections_in_the_pair_were_not_rendered_again_for_the_card_keys(pair):
    out, result = pair
    assert "01-matrix: up to date, skipped" in result.stderr + result.stdout


def test_the_lecture_opens_on_a_title_card_and_ends_on_an_end_card_in_its_chapters(pair):
    out, _ = pair
    lecture = chapters(out / "lecture.mp4")
    sections = [chapters(out / f"{stem}.mp4") for stem in SECTIONS]
    # the title card: its lines, then its two sections listed (scenes.cards.agenda_list) and held HOLD_MOST
    assert lecture[0][0] == 0 and lecture[0][2] == "Inicio" and 4.5 <= lecture[0][1] <= 4.5 + HOLD_MOST
    assert lecture[-1][2] == "Referencias" and lecture[-1][1] == pytest.approx(streams(out / "lecture.mp4")
                                                                               ["video"]["duration"], abs=1e-3)
    offset, shifted = lecture[0][1], []
    for own in sections:  # each section's own chapters, moved by the title card and the sections before it
        shifted += [(start + offset, end + offset, title) for start, end, title in own]
        offset += own[-1][1]
    assert [(pytest.approx(start, abs=2e-3), pytest.approx(end, abs=2e-3), title)
            for start, end, title in shifted] == lecture[1:-1]
    assert lecture[-1][0] == pytest.approx(offset, abs=2e-3)


def test_the_sections_captions_are_shifted_by_the_title_card(pair):
    out, _ = pair
    lecture = parse_vtt((out / "lecture.vtt").read_text(encoding="utf-8"))
    offset, expected = title_seconds(out), []
    for stem in SECTIONS:
        expected += [(start + offset, end + offset, text)
                     for start, end, text in parse_vtt((out / f"{stem}.vtt").read_text(encoding="utf-8"))]
        offset += chapters(out / f"{stem}.mp4")[-1][1]
    inside = [cue for cue in lecture if title_seconds(out) - 1e-6 <= cue[0] < offset - 1e-6]  # sums of floats: 304.40000000000003
    assert [(pytest.approx(start, abs=2e-3), pytest.approx(end, abs=2e-3), text) for start, end, text in expected] \
        == inside


def test_a_clean_silent_lectures_captions_carry_the_cards_text_escaped(pair):
    out, _ = pair
    vtt, srt_text = ((out / f"lecture.{suffix}").read_text(encoding="utf-8") for suffix in ("vtt", "srt"))
    cues = parse_vtt(vtt)
    opening = " ".join(text for start, _, text in cues if start < title_seconds(out))
    assert COURSE.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in opening
    assert DATE in opening and LESSON.split()[-1] in opening and "<IA>" not in vtt
    assert "<IA>" not in srt_text and COURSE in srt_text.replace("\u2060", "")  # SubRip's word joiners
    ending = " ".join(text for start, _, text in cues if start >= chapters(out / "lecture.mp4")[-1][0])
    assert "Vaswani" in ending and "Attention Is All You Need" in ending
    assert "Olsson" not in ending and "Elhage" not in ending  # section 7 is not in this lecture


def test_the_cards_are_frames_of_the_joined_video_with_silence_under_them(pair):
    out, _ = pair
    data = manifest(out)
    cards = sum(card["duration"] for card in data["lecture"]["cards"])
    sections = sum(data["sections"][section]["duration"] for section in ("matrix", "quick"))
    assert decoded_frame_count(out / "lecture.mp4") == round((cards + sections) * FPS)
    assert streams(out / "lecture.mp4")["audio"]["duration"] == pytest.approx(cards + sections, abs=0.05)


def test_a_new_date_rejoins_the_lecture_and_renders_no_section(pair, tmp_path):
    out = copy_of(pair[0], tmp_path / "out")
    result = run_quick_cli("render", "matrix", "quick", *TINY, "-j", "1", "--clean",
                           "--set", f"lecture.course={COURSE!r}",
                           "--set", "lecture.date='7 de diciembre'", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert re.search(r"01-matrix: up to date.*08-quick: up to date", result.stderr + result.stdout, re.S)
    opening = [text for start, _, text in parse_vtt((out / "lecture.vtt").read_text(encoding="utf-8"))
               if start < title_seconds(out)]
    assert "7 de diciembre" in " ".join(opening) and DATE not in " ".join(opening)


def test_a_card_record_cut_short_is_drawn_again_not_read(pair, tmp_path):
    """A kept card's record (when its texts appear) is written whole under a temporary name and renamed; one cut
    short, as a write in place stopped halfway leaves it, is not read: the card is drawn again and the lecture
    joined (it stopped the render with a traceback)."""
    out = copy_of(pair[0], tmp_path / "out")
    cards = out / PRIVATE / CARDS_FOLDER

    def rejoin(date: str):
        result = run_quick_cli("render", "matrix", "quick", *TINY, "-j", "1", "--clean",
                               "--set", f"lecture.course={COURSE!r}", "--set", f"lecture.date={date!r}", "-o", str(out))
        assert result.returncode == 0, result.stderr

    rejoin("7 de diciembre")  # the cards kept by this code (a card's key holds the code's digest)
    for record in cards.glob("*.json"):
        record.write_text(record.read_text(encoding="utf-8")[:9], encoding="utf-8")
    cut = {record.name for record in cards.glob("*.json")}
    rejoin("8 de diciembre")  # a new title card; the end card's record is the one cut short
    whole = [record.name for record in cards.glob("*.json") if len(record.read_text(encoding="utf-8")) > 9
             and json.loads(record.read_text(encoding="utf-8"))["shown"]]
    assert len(whole) == 2 and len(set(whole) & cut) == 1  # the end card's drawn again, the new title card's
    assert chapters(out / "lecture.mp4")[-1][2] == "Referencias"


def test_a_stop_before_the_rename_leaves_the_older_file_whole(tmp_path, monkeypatch):
    """write_whole, as the cards' records and the output folder's record use it: stopped between writing and
    renaming, the file holds what it held and only the temporary name is new."""
    target = tmp_path / "record.json"
    target.write_text("old", encoding="utf-8")

    def stop(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", stop)
    with pytest.raises(KeyboardInterrupt):
        write_whole(target, "new " * 10_000)
    assert target.read_text(encoding="utf-8") == "old"
    [draft] = [path for path in tmp_path.iterdir() if path != target]
    assert draft.name.startswith("record.json.") and draft.read_text(encoding="utf-8") == "new " * 10_000


def test_one_section_alone_is_the_lecture_with_no_card(tmp_path_factory):
    out, _ = tiny_quick(tmp_path_factory)
    assert chapters(out / "lecture.mp4") == chapters(out / "08-quick.mp4")
    assert decoded_frame_count(out / "lecture.mp4") == decoded_frame_count(out / "08-quick.mp4")


@pytest.mark.parametrize("key, value, expected", [
    ("course", '"Curso\\nde IA"', "lecture.course: expected one line of at most 80 visible characters"),
    ("date", f"'{'9' * 81}'", "lecture.date: expected one line of at most 80 visible characters"),
])
def test_a_bad_card_key_is_one_line_and_exit_2(tmp_path, key, value, expected):
    out = tmp_path / "out"
    result = run_cli("render", "matrix", *TINY, "--set", f"lecture.{key}={value}", "-o", str(out))
    assert result.returncode == 2 and expected in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not out.exists()


GUIDE_READING = ("Attention Is All You Need", "Formal Algorithms for Transformers",  # the lab guide's section 11
                 "FlashAttention", "The Illustrated Transformer", "Attention? Attention!")
GUIDE_YEARS = (2017, 2022, 2022, 2018, 2023)  # as the guide's section 11 lists them (ai-visual-lab-guia-tutorial)


def whole_lecture_end_card():
    return lecture_cards(SimpleNamespace(course=COURSE, date=DATE), load_locale("es"),
                         [section.id for section in LESSON_SECTIONS])[1]


def test_the_end_card_lists_the_lab_guides_reading():
    """Review 43: the guide's references (Vaswani et al.; Phuong & Hutter; Dao et al.; Alammar; Weng) were on no
    frame. The whole lecture's end card lists each, besides the works the sections cite (Elhage, Olsson)."""
    references = whole_lecture_end_card().lines[1:]
    for title in GUIDE_READING + ("Induction Heads", "Mathematical Framework"):
        assert sum(title in reference for reference in references) == 1, title
    # each with the year the guide's section 11 gives it (two reviews found «Weng (2018)» against its 2023)
    for title, year in zip(GUIDE_READING, GUIDE_YEARS):
        assert any(title in reference and f"({year})" in reference for reference in references), (title, year)


MATERIALS = ("Clase 04 — Atención y Transformers", "AI Visual Lab — Guía tutorial")  # the seeds' own titles


def test_the_end_card_names_the_course_materials_first():
    """Review s11: neither the lesson's page and its notes nor the lab were on the end card, so a student was not
    told where to check in the lab."""
    references = whole_lecture_end_card().lines[1:]
    assert [any(title in line for line in references[:len(MATERIALS)]) for title in MATERIALS] == [True, True]
    assert "4.2.6" in references[0] and "7 pasos" in references[1]


def glyph_rows(text) -> list[list]:
    """A drawn text's glyphs in their lines, top line first (a gap of half a glyph's height between rows)."""
    glyphs = sorted(text.family_members_with_points(), key=lambda glyph: -glyph.get_center()[1])
    rows = [[glyphs[0]]]
    for glyph in glyphs[1:]:
        if rows[-1][-1].get_center()[1] - glyph.get_center()[1] > 0.5 * max(g.height for g in rows[-1]):
            rows.append([glyph])
        else:
            rows[-1].append(glyph)
    return rows


def test_the_end_cards_wrapped_entries_fill_their_lines():
    """Review s11: entries balanced to their own widths (Elhage, Olsson and Dao at 815 px beside Phuong & Hutter's
    1249 px) read ragged. Each wrapped entry's lines but its last reach as far as the next word allows: a line
    followed by a word that would not have fitted on it."""
    with tempconfig({"dry_run": True}):
        scene = ReferencesCard(whole_lecture_end_card())
        scene.render()
        _, *entries = [mobject for mobject in scene.mobjects if mobject.width > 0]
        widest = max(entry.width for entry in entries)
        wrapped = [rows for rows in map(glyph_rows, entries) if len(rows) > 1]
        assert wrapped  # the test would be empty with every entry on one line (two wrap since review s14)
        for rows in wrapped:
            for row in rows[:-1]:
                assert max(glyph.get_right()[0] for glyph in row) - min(glyph.get_left()[0] for glyph in row) \
                    >= 0.8 * widest


def first_word_width(row) -> float:
    """The width of a row's first word: its glyphs up to the first gap wider than a third of the row's height."""
    glyphs = sorted(row, key=lambda glyph: glyph.get_left()[0])
    height = max(glyph.height for glyph in glyphs)
    end = next((left.get_right()[0] for left, right in zip(glyphs, glyphs[1:])
                if right.get_left()[0] - left.get_right()[0] > height / 3), glyphs[-1].get_right()[0])
    return end - glyphs[0].get_left()[0]


def test_a_wrapped_line_breaks_only_where_the_next_word_would_not_fit():
    """Review s14: lines broke at about 1060 px of a slide 1210 px wide (a count of characters, not their widths),
    two-line entries that fitted on one pushed the list down to y 680 of 720. A line and the next line's first word,
    with a space, are wider than the slide's text width."""
    with tempconfig({"dry_run": True}):
        scene = ReferencesCard(whole_lecture_end_card())
        scene.render()
        _, *entries = [mobject for mobject in scene.mobjects if mobject.width > 0]
        wrapped = [rows for rows in map(glyph_rows, entries) if len(rows) > 1]
        assert wrapped
        space = max(glyph.height for glyph in wrapped[0][0]) / 3
        for rows in wrapped:
            for row, following in zip(rows, rows[1:]):
                width = max(glyph.get_right()[0] for glyph in row) - min(glyph.get_left()[0] for glyph in row)
                assert width + space + first_word_width(following) > slide_width()


def test_the_whole_lectures_end_card_stays_inside_the_frame():
    """Seven works on one card: every line inside the frame, with room to spare at its edges."""
    with tempconfig({"dry_run": True}):
        scene = ReferencesCard(whole_lecture_end_card())
        scene.render()
        texts = [mobject for mobject in scene.mobjects if mobject.width > 0]
        assert len(texts) == 1 + len(MATERIALS) + len(GUIDE_READING) + 2
        margin = 0.1  # frame units: 6 px at 480p
        assert max(text.get_top()[1] for text in texts) <= config.frame_height / 2 - margin
        assert min(text.get_bottom()[1] for text in texts) >= -config.frame_height / 2 + margin
        assert max(abs(text.get_left()[0]) for text in texts) <= config.frame_width / 2 - margin


# Review s7 (frames-b, "Title and end cards"): the end card took 37.4 s to bring in seven references, one at a time in
# 1 s fades a viewer saw as a still screen, the last at full brightness ~20 s in; its heading sat 15 px from the top
# and its list at x = 148 px of 1280, not at the slides' margin; the title wrapped as «Atención y / Transformers».
COMING_IN = 0.4  # seconds a reference may take to come in, at most (a viewer sees it come: no slow fade)


def test_the_end_card_brings_each_reference_in_quickly_and_never_stands_still_6_s(pair):
    """Measured on the joined lecture's frames (review s8: the whole list at once, then 24.5 s frozen; review s10:
    a reference every 4.5 s, a silent half-minute under the still measure): the references come one after the
    other, each a change a viewer sees within COMING_IN s (the reviewers' frame-to-frame measure: a slow fade is a
    still), all of them within a few seconds; then the list holds under 6 s, and the card ends."""
    out, _ = pair
    start, end, title = chapters(out / "lecture.mp4")[-1]
    references = [line for line in lecture_cards(SimpleNamespace(course=COURSE, date=DATE), load_locale("es"),
                                                 ["matrix"])[1].lines[1:]]
    assert title == "Referencias" and len(references) == len(MATERIALS) + 5
    stills = [(round(begin - start, 2), round(until - start, 2))
              for begin, until in video_stills(out / "lecture.mp4", longest=0) if start - 1e-6 <= begin < end - 1e-6]
    *between, (last_begin, last_until) = stills
    # between two references nothing a viewer would call a pause; the list in within 0.6 s a reference (at 5 fps)
    assert all(until - begin <= 2 * COMING_IN for begin, until in between), stills
    assert last_begin <= 0.6 * len(references), stills
    # the finished list holds HOLD_MOST, under 6 s, and the card ends with it (up to a frame each play and hold)
    assert last_until - last_begin == pytest.approx(HOLD_MOST, abs=COMING_IN + 2 / FPS) and HOLD_MOST < 6.0
    assert end - start - last_until == pytest.approx(0.0, abs=2 / FPS)


def test_the_end_cards_heading_and_list_stand_where_a_slides_title_and_text_do():
    """The heading in a step title's place (``style.MARGIN`` from the frame's top-left corner, as
    ``lesson_scene._header`` puts it) and every reference at that left margin, the list under the heading."""
    with tempconfig({"dry_run": True}):
        scene = ReferencesCard(whole_lecture_end_card())
        scene.render()
        heading, *lines = [mobject for mobject in scene.mobjects if mobject.width > 0]
        header = label_text("Referencias", style.TEXT, style.TITLE_SIZE, weight="BOLD").to_corner(UL, buff=style.MARGIN)
        left = -config.frame_width / 2 + style.MARGIN
        assert heading.get_left()[0] == pytest.approx(left, abs=1e-3)
        assert heading.get_top()[1] == pytest.approx(config.frame_height / 2 - style.MARGIN, abs=1e-3)
        assert heading.get_top()[1] == pytest.approx(header.get_top()[1], abs=1e-3)
        for line in lines:  # a glyph's side bearing is at most a pixel or two
            assert line.get_left()[0] == pytest.approx(left, abs=0.03), line.text
            assert line.get_right()[0] <= config.frame_width / 2 - style.MARGIN + 1e-3
        assert heading.get_bottom()[1] > lines[0].get_top()[1]
        assert all(above.get_bottom()[1] > below.get_top()[1] for above, below in zip(lines, lines[1:]))


def glyphs(text: str) -> str:
    """A text's characters without its spaces (a MarkupText's ``text`` keeps no space)."""
    return "".join(text.split())


def opening_texts(card: Card) -> list:
    with tempconfig({"dry_run": True}):
        scene = OpeningCard(card)
        scene.render()
        return [part for mobject in scene.mobjects for part in mobject.get_family()
                if hasattr(part, "text") and part.width > 0]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_title_card_centres_every_line_and_writes_the_lessons_title_on_one(lang):
    """«AI Visual Lab» was centred over a left-aligned title block that wrapped as «Atención y / Transformers»: every
    line is centred now, and the lesson's title, which fits the slide's width, on one line."""
    title = load_locale(lang)["lecture"]["title"]
    card = lecture_cards(SimpleNamespace(course="AI Visual Lab", date=DATE), load_locale(lang), ["matrix"])[0]
    texts = opening_texts(card)
    one_line = label_text(title, style.TEXT, style.TITLE_SIZE * 1.3, weight="BOLD")
    assert [glyphs(text.text) for text in texts] == [glyphs(line) for line in ("AI Visual Lab", title, DATE)]
    assert texts[1].height == pytest.approx(one_line.height, rel=0.01)  # one line
    for text in texts:
        assert text.get_center()[0] == pytest.approx(0, abs=1e-3), text.text
        assert text.width <= config.frame_width - 2 * style.MARGIN + 1e-3


def test_a_title_too_long_for_one_line_is_broken_into_centred_lines():
    long_title = "Clase 04 — Atención, Transformers y todo lo que se calcula con ellos paso a paso"
    texts = opening_texts(Card("opening", "Inicio", ("", long_title, "")))
    assert len(texts) >= 2 and "".join(glyphs(text.text) for text in texts) == glyphs(long_title)
    for text in texts:
        assert text.get_center()[0] == pytest.approx(0, abs=1e-3), text.text
        assert text.width <= config.frame_width - 2 * style.MARGIN + 1e-3


@pytest.mark.parametrize("written, said", [
    ("Clase 04 — Atención y Transformers", "Clase 4: Atención y Transformers."),
    ("Lecture 04 — Attention and Transformers", "Lecture 4: Attention and Transformers."),
    ("Tema 10: ¿qué es la atención?", "Tema 10: ¿qué es la atención?")])
def test_the_voice_says_the_lessons_title_as_a_lecturer_would(written, said):
    assert said_title(written) == said
