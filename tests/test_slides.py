"""Slides that keep their sound, and decks for any lecture hall, written at tiny size and read back the way
their users' tools read them: HTML parsed (no network needed, every asset local), the lecture's joined deck
in lesson order with a title slide per section, PowerPoint through python-pptx (last frames, titles, alt
text, language), PDF text through pypdf, clips and their sound through PyAV."""

import base64
import html as html_text
import io
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import av
import numpy as np
import pytest
from click.testing import CliRunner
from manim_slides.config import PresentationConfig
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pypdf import PdfReader

from lecture.cli import cli
from lecture.publish import revealjs, slides
from lecture.publish.pdf_deck import FONT, font_file
from lecture.publish.slides import PLAYER_HINT, cut, player_missing
from lesson.locale import load_locale
from media_checks import (ROOT, TINY, copy_of, decoded_audio, decoded_frame_count, manifest, run_cli, streams,
                          system_program, then, tiny_lecture, tiny_matrix)
from sonify.mix import read_wav

FPS = 5
DECKS = ("--to", "html", "--to", "pptx", "--to", "pdf")
URL = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
# Injected into a copy of a deck: after reveal.js has started, the title says what the current slide plays.
PROBE = """<script>
setTimeout(() => {
  const video = Reveal.getCurrentSlide().slideBackgroundContentElement.querySelector("video");
  const button = document.querySelector(".r-media-play-button");
  document.title = JSON.stringify({slide: Reveal.getIndices().h, source: video && video.currentSrc,
                                   paused: video && video.paused, duration: video && video.duration,
                                   button: button && button.isConnected ? button.textContent : null});
}, 3000);
</script>
"""

STRINGS = load_locale("es")
LANGUAGE = STRINGS["lecture"]["language"]  # the decks of a Spanish lecture are tagged with it


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    out = copy_of(tiny_matrix(tmp_path_factory)[0], tmp_path_factory.mktemp("slides") / "out")  # decks go beside it
    result = run_cli("slides", "matrix", *TINY, "-o", str(out), "-j", "1", *DECKS)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def steps(out):
    return manifest(out)["sections"]["matrix"]["steps"]


def clips(out):
    return clip_files(out, "01-matrix")


def clip_files(out: Path, stem: str) -> list[Path]:
    return sorted((out / "slides" / "files" / stem).glob("*.mp4"))


def steps_of(out: Path, section: str) -> list[dict]:
    return manifest(out)["sections"][section]["steps"]


def test_every_deck_is_written(out, steps):
    """Each deck opens as its format and holds every step: a reveal.js section with its clip a step, a PowerPoint
    slide a step, a PDF page a step and the questions' page(s) last."""
    deck = out / "slides" / "01-matrix"
    html = deck.with_suffix(".html").read_text(encoding="utf-8")
    assert html.count("data-background-video=") == html.count("<section") == len(steps)
    assert len(Presentation(str(deck.with_suffix(".pptx"))).slides) == len(steps)
    assert len(PdfReader(deck.with_suffix(".pdf")).pages) >= len(steps) + 1


def test_html_names_the_section_and_the_formula_and_plays_every_clip(out, steps):
    html = (out / "slides" / "01-matrix.html").read_text(encoding="utf-8")
    strings = load_locale()
    title = html.split("<title>")[1].split("</title>")[0]
    assert strings["matrix"]["title"] in title and strings["slides"]["formula"] in title
    for number, step in enumerate(steps, 1):
        assert f'data-background-video="01-matrix_assets/01-matrix/{number:02d}-{step["key"]}.mp4"' in html
        copy = out / "slides" / "01-matrix_assets" / "01-matrix" / f"{number:02d}-{step['key']}.mp4"
        assert copy.read_bytes() == (out / "slides" / "files" / "01-matrix" / copy.name).read_bytes()


def test_pptx_has_one_slide_per_step_with_a_video_that_has_sound_and_notes(out, steps):
    deck = Presentation(str(out / "slides" / "01-matrix.pptx"))
    assert len(deck.slides) == len(steps)
    # The questions as the render filled them in for its config (test_matrix_answers checks their numbers).
    asked = {question["key"]: question for question in manifest(out)["sections"]["matrix"]["questions"]}
    for slide, step in zip(deck.slides, steps):
        assert [shape.shape_type for shape in slide.shapes] == [MSO_SHAPE_TYPE.PLACEHOLDER, MSO_SHAPE_TYPE.MEDIA]
        notes = slide.notes_slide.notes_text_frame.text
        assert step["title"] in notes and step["caption"] in notes and "{" not in notes
        has_question = "question" in STRINGS["matrix"]["steps"][step["key"]]
        asking = STRINGS["slides"]["question"].split("{")[0].strip()  # the words that introduce a question
        # Only the steps whose locale has a question ask it; the others say no empty "question:".
        assert (asking in notes) == has_question
        if has_question:
            assert STRINGS["slides"]["question"].format(question=asked[step["key"]]["question"]) in notes
            assert STRINGS["slides"]["answer"].format(answer=asked[step["key"]]["answer"]) in notes
        media = next(rel.target_part.blob for rel in slide.part.rels.values() if rel.reltype.endswith("/media"))
        with av.open(io.BytesIO(media)) as container:
            assert len(container.streams.video) == 1 and len(container.streams.audio) == 1


def test_slides_tile_the_section_video_frame_for_frame(out, steps):
    lengths = [decoded_frame_count(clip) for clip in clips(out)]
    assert len(lengths) == len(steps)
    assert sum(lengths) == decoded_frame_count(out / "01-matrix.mp4")
    ends = np.cumsum(lengths)[:-1] / FPS
    assert ends == pytest.approx([step["end"] for step in steps[:-1]], abs=0.5 / FPS)


def test_each_slide_carries_the_soundtrack_of_its_time_range(out):
    soundtrack = read_wav(out / "01-matrix.wav")
    start = 0.0
    for clip in clips(out):
        found = streams(clip)
        assert found["audio"]["codec"] == "aac"
        assert found["audio"]["duration"] == pytest.approx(found["video"]["duration"], abs=0.05)
        samples, rate = decoded_audio(clip)
        length = round(found["video"]["duration"] * rate)
        inner = slice(int(0.1 * rate), length)  # past the encoder's first few milliseconds
        expected = soundtrack[round(start * rate):, 0][:length]  # the left channel, as decoded_audio reads it
        assert np.corrcoef(samples[inner], expected[inner])[0, 1] > 0.999, clip.name
        assert np.sqrt(np.mean((samples[inner] - expected[inner]) ** 2)) < 0.02 * np.abs(expected).max(), clip.name
        start += found["video"]["duration"]


def test_manim_slides_reads_the_presentation_with_notes(out, steps):
    presentation = PresentationConfig.from_file(out / "slides" / "01-matrix.json")
    assert [slide.file for slide in presentation.slides] == clips(out)
    assert all(slide.rev_file.exists() for slide in presentation.slides)
    assert [slide.notes.split("\n\n")[:2] for slide in presentation.slides] == [
        [step["title"], step["caption"]] for step in steps]
    assert presentation.resolution == (256, 144)


def test_without_a_soundtrack_slides_are_silent(out, tmp_path):
    targets = [tmp_path / "a.mp4", tmp_path / "b.mp4"]
    cut(out / "01-matrix.mp4", None, [0.0, 2.0], targets)
    assert [set(streams(target)) for target in targets] == [{"video"}, {"video"}]
    assert decoded_frame_count(targets[0]) == 2 * FPS


def test_unknown_section_is_one_line_and_exit_2(tmp_path):
    result = run_cli("slides", "matrx", *TINY, "-o", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.strip() == "error: section 'matrx': unknown section; did you mean 'matrix'?"
    assert not (tmp_path / "out").exists()


def test_every_question_in_the_locale_is_a_well_formed_question_for_the_speaker_notes():
    """A step may have no question (the matrix's variant steps); the ones it has are written out, with their
    ¿ and ? paired."""
    from lesson.sections import BY_ID

    asked = 0
    for section in BY_ID:
        for key, step in STRINGS[section]["steps"].items():
            if "question" in step:
                question = step["question"]
                assert question.strip() and question.count("¿") == question.count("?"), (section, key)
                asked += 1
    assert asked, "no step in the locale has a question"


@pytest.fixture(scope="module")
def joined(tmp_path_factory):
    """matrix and scaling, asked in the wrong order, as one deck: in a copy of the session's tiny lecture
    (``tiny_lecture``: both sections up to date there, as in a folder a lecturer rendered)."""
    joined = copy_of(tiny_lecture(tmp_path_factory), tmp_path_factory.mktemp("joined") / "out")
    result = run_cli("slides", "scaling", "matrix", *TINY, "-o", str(joined), "-j", "2", "--joined", *DECKS)
    assert result.returncode == 0, result.stderr
    return joined


class Page(HTMLParser):
    """Every tag with its attributes, and the text of every <style> and <script>."""

    def __init__(self, html: str):
        super().__init__()
        self.tags, self.inline, self._open = [], [], None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._open = tag

    def handle_data(self, data):
        if self._open in ("style", "script"):
            self.inline.append((self._open, data))

    def handle_endtag(self, tag):
        self._open = None

    def all(self, tag: str) -> list[dict]:
        return [attributes for name, attributes in self.tags if name == tag]

    def references(self) -> list[str]:
        """Everything the page would load (data: URLs hold what they load): src, href, background videos and
        images, CSS url()s and @imports."""
        found = [value for _, attributes in self.tags for key, value in attributes.items()
                 if key in ("src", "href", "data-background-video", "data-background-image") and value]
        found += [url for kind, text in self.inline if kind == "style"
                  for url in re.findall(r"url\(\s*['\"]?([^'\")]+)", text)]
        found += [url for kind, text in self.inline if kind == "style"
                  for url in re.findall(r"@import\s+['\"]([^'\"]+)", text)]
        return [reference for reference in found if not reference.startswith("data:")]


def test_folder_html_loads_nothing_from_the_network_and_finds_every_asset(out):
    deck = out / "slides" / "01-matrix.html"
    page = Page(deck.read_text(encoding="utf-8"))
    references = page.references()
    assert references and not [reference for reference in references if URL.match(reference)]
    for reference in references:
        assert (deck.parent / reference).is_file(), reference
    reveal = revealjs.installed()
    for name in (*revealjs.STYLES, *revealjs.SCRIPTS):
        copy = deck.parent / "01-matrix_assets" / "reveal.js" / name
        assert copy.read_bytes() == (reveal / name).read_bytes()
    assert [attributes["href"] for attributes in page.all("link")] == [
        f"01-matrix_assets/reveal.js/{name}" for name in revealjs.STYLES]


def test_one_file_html_embeds_reveal_js_and_every_clip_and_is_written_with_no_network(out, tmp_path):
    one = tmp_path / "one"
    shutil.copytree(out, one)
    command = [sys.executable, str(ROOT / "render.py"), "slides", "matrix", *TINY, "-o", str(one), "-j", "1",
               "--one-file"]
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:  # root: no network at all
        command = ["unshare", "-n", *command]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    html = (one / "slides" / "01-matrix.html").read_text(encoding="utf-8")
    page = Page(html)
    assert page.references() == []  # nothing to load: not a file, not a URL
    inline = [text for _, text in page.inline]
    reveal = revealjs.installed()
    for name in (*revealjs.STYLES, *revealjs.SCRIPTS):
        assert (reveal / name).read_text(encoding="utf-8") in inline, name
    slides = [attributes for attributes in page.all("section") if "data-clip" in attributes]
    embedded = dict(re.findall(r'<script type="application/octet-stream" id="([^"]+)">([^<]*)</script>', html))
    assert [base64.b64decode(embedded[slide["data-clip"]]) for slide in slides] == [
        clip.read_bytes() for clip in clip_files(one, "01-matrix")]


def test_html_is_spanish_follows_the_slide_in_the_url_and_has_notes(out):
    html = (out / "slides" / "01-matrix.html").read_text(encoding="utf-8")
    page = Page(html)
    assert page.all("html") == [{"lang": LANGUAGE}]
    assert re.search(r"Reveal\.initialize\(\{[^}]*\bhash: true", html)
    notes = re.findall(r'<aside class="notes">(.*?)</aside>', html, re.DOTALL)
    steps = steps_of(out, "matrix")
    assert len(notes) == len(steps)
    for note, step in zip(notes, steps):
        paragraphs = [html_text.unescape(paragraph) for paragraph in re.findall(r"<p>(.*?)</p>", note, re.DOTALL)]
        assert paragraphs[:2] == [step["title"], step["caption"]]


def test_joined_deck_holds_the_sections_in_lesson_order_each_after_its_title_slide(joined):
    strings = load_locale()
    expected = []
    for number, section in ((1, "matrix"), (2, "scaling")):
        expected.append(f"{number}. {strings[section]['title']}")
        expected += [step["title"] for step in steps_of(joined, section)]
    pdf = PdfReader(joined / "slides" / "lecture-matrix-scaling.pdf")
    firsts = [page.extract_text().split("\n")[0] for page in pdf.pages]
    questions = [number for number, first in enumerate(firsts) if first.startswith(strings["slides"]["questions_heading"])]
    # Each section's pages, then its questions' page(s): none between a title and the steps.
    assert [first for number, first in enumerate(firsts) if number not in questions] == expected
    matrix_pages = len(steps_of(joined, "matrix")) + 1
    after = next(number for number in range(matrix_pages, len(firsts)) if number not in questions)
    assert questions[0] == matrix_pages and firsts[after] == expected[matrix_pages] != firsts[after - 1]
    assert questions[-1] == len(firsts) - 1  # the deck ends on the scaling's questions
    deck = Presentation(str(joined / "slides" / "lecture-matrix-scaling.pptx"))
    assert [slide.shapes.title.text for slide in deck.slides] == expected
    html = (joined / "slides" / "lecture-matrix-scaling.html").read_text(encoding="utf-8")
    page = Page(html)
    assert len(page.all("section")) == len(expected)
    assert [html_text.unescape(heading) for heading in re.findall(r"<h2[^>]*>(.*?)</h2>", html)] == expected
    videos = [attributes["data-background-video"] for attributes in page.all("section")
              if "data-background-video" in attributes]
    assert videos == [f"lecture-matrix-scaling_assets/{stem}/{clip.name}"
                      for stem in ("01-matrix", "02-scaling") for clip in clip_files(joined, stem)]


def last_frames_of_the_section_video(out: Path, stem: str) -> list[np.ndarray]:
    """The frame each step ends on, decoded from the section's video at the clips' boundaries."""
    with av.open(str(out / f"{stem}.mp4")) as container:
        frames = [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]
    ends = []
    for clip in clip_files(out, stem):
        with av.open(str(clip)) as container:
            ends.append((ends[-1] if ends else 0) + sum(1 for _ in container.decode(video=0)))
    return [frames[end - 1] for end in ends]


def test_pptx_previews_each_step_by_its_last_frame_with_title_alt_text_and_language(out):
    deck = Presentation(str(out / "slides" / "01-matrix.pptx"))
    steps = steps_of(out, "matrix")
    assert deck.core_properties.language == LANGUAGE
    for slide, step, frame in zip(deck.slides, steps, last_frames_of_the_section_video(out, "01-matrix"),
                                  strict=True):
        assert slide.shapes.title.text == step["title"]
        movie = slide.shapes[-1]
        assert movie.element.nvPicPr.cNvPr.get("descr") == f"{step['title']}. {step['caption']}"
        poster = np.asarray(Image.open(io.BytesIO(movie.poster_frame.blob)).convert("RGB")).astype(float)
        assert np.abs(poster - frame).mean() < 2.5  # the same picture up to H.264 loss; the step before: 3.7+
        for part in (slide, slide.notes_slide):
            assert set(part.element.xpath(".//a:r/a:rPr/@lang")) == {LANGUAGE}
            assert len(part.element.xpath(".//a:r")) == len(part.element.xpath(".//a:r/a:rPr/@lang"))
        assert slide.element.xpath(".//p:timing//p:video//p:cond/@delay") == ["0"]  # plays on arrival


def test_pdf_pages_carry_title_and_caption_as_text_above_and_below_the_last_frame(out):
    pdf = PdfReader(out / "slides" / "01-matrix.pdf")
    steps = steps_of(out, "matrix")
    for page, step, frame in zip(pdf.pages[:len(steps)], steps, last_frames_of_the_section_video(out, "01-matrix")):
        text = " ".join(page.extract_text().split())
        assert text == f"{step['title']} {step['caption']}"
        (picture,) = page.images
        assert np.abs(np.asarray(picture.image.convert("RGB")).astype(float) - frame).mean() < 2.5


def test_pdf_font_has_every_character_the_locale_shows():
    from fontTools.ttLib import TTFont

    strings = load_locale()
    texts = [strings["lecture"]["title"]]
    for section in ("matrix", "scaling", "heads", "positional", "capital", "pipeline"):
        texts += [strings[section]["title"], strings[section]["summary"]]
        for step in strings[section]["steps"].values():
            texts += [value for key, value in step.items() if key.startswith(("title", "caption"))]
    for style in (FONT, f"{FONT}:bold"):
        covered = TTFont(font_file(style)).getBestCmap()
        missing = {character for text in texts for character in str(text) if ord(character) not in covered}
        assert missing <= {"\n"}, (style, missing)


def test_a_missing_reveal_js_names_the_set_up_command(tmp_path, monkeypatch):
    monkeypatch.setattr(revealjs, "FOLDER", tmp_path / "absent")
    with pytest.raises(revealjs.RevealMissing, match="make setup"):
        revealjs.installed()


def test_integrity_is_the_subresource_integrity_string(tmp_path):
    empty = tmp_path / "empty.tgz"
    empty.write_bytes(b"")  # the well-known sha512 of no bytes, base64
    assert revealjs.integrity(empty) == ("sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHf"
                                         "uwvY7kxvUdBeoGlODJ6+SfaPg==")


def test_without_a_qt_binding_slides_say_what_to_install_for_the_player():
    import importlib.util

    has_qt = any(importlib.util.find_spec(name) for name in ("PySide6", "PyQt6"))
    assert player_missing() == (None if has_qt else PLAYER_HINT)
    assert "pip install" in PLAYER_HINT and "PySide6" in PLAYER_HINT


def no_network() -> list[str]:
    """A command prefix that runs a program with no network at all, where this user may (root)."""
    return ["unshare", "-n"] if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0 else []


def opened_at(deck: Path, slide: int, autoplay: str = "no-user-gesture-required") -> dict:
    """Open ``deck`` at ``slide`` (0-based, as the URL says) in headless Chromium with no network, under the
    ``autoplay`` policy; what plays, and reveal.js' media button's text when it shows one."""
    probe = deck.with_name(f"probe-{deck.name}")
    html = deck.read_text(encoding="utf-8")
    end = html.rindex("</body>")  # the last: reveal.js' speaker view holds a page of its own
    probe.write_text(html[:end] + PROBE + html[end:], encoding="utf-8")
    try:
        result = subprocess.run([*no_network(), system_program("chromium", "chromium"), "--headless",
                                 "--no-sandbox", "--disable-gpu",
                                 f"--autoplay-policy={autoplay}", "--virtual-time-budget=10000",
                                 "--dump-dom", f"{probe.as_uri()}#/{slide}"], capture_output=True, text=True,
                                timeout=120)
    finally:
        probe.unlink()
    return json.loads(html_text.unescape(re.search(r"<title>(\{.*?\})</title>", result.stdout).group(1)))


def test_the_joined_deck_opened_at_any_slide_plays_that_slides_clip_with_no_network(joined):
    deck = joined / "slides" / "lecture-matrix-scaling.html"
    matrix, scaling = clip_files(joined, "01-matrix"), clip_files(joined, "02-scaling")
    for slide, clip in ((5, matrix[4]), (len(matrix) + 2, scaling[0])):  # slide 0 and len(matrix) + 1: titles
        playing = opened_at(deck, slide)
        assert playing["slide"] == slide and not playing["paused"]
        assert playing["source"].endswith(f"lecture-matrix-scaling_assets/{clip.parent.name}/{clip.name}")
        with av.open(str(clip)) as container:
            assert playing["duration"] == pytest.approx(container.duration / av.time_base, abs=0.1)


def test_a_browser_that_plays_no_sound_before_a_click_offers_it_in_the_decks_language(joined):
    """Chromium as a browser opened without a click: the clip plays muted and reveal.js offers its sound, in
    Spanish (reveal.js writes "Unmute video")."""
    playing = opened_at(joined / "slides" / "lecture-matrix-scaling.html", 5, "document-user-activation-required")
    assert playing["button"] == STRINGS["slides"]["media_buttons"]["Unmute video"] != "Unmute video"


def test_libreoffice_opens_the_pptx_and_prints_each_step_as_its_last_frame(out, tmp_path):
    subprocess.run([system_program("soffice", "libreoffice-impress"), "--headless",
                    f"-env:UserInstallation={(tmp_path / 'profile').as_uri()}",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(out / "slides" / "01-matrix.pptx")],
                   capture_output=True, timeout=300, check=True)
    pages = PdfReader(tmp_path / "01-matrix.pdf").pages
    frames = last_frames_of_the_section_video(out, "01-matrix")
    assert len(pages) == len(frames)
    for page, frame in zip(pages, frames):
        pictures = {picture.name.rsplit(".", 1)[0]: picture for picture in page.images}  # the file's, shared
        (drawn,) = re.findall(rb"/(\w+)\s+Do\b", page.get_contents().get_data())  # what this page draws
        printed = pictures[drawn.decode()].image.convert("RGB").resize(frame.shape[1::-1])
        assert np.abs(np.asarray(printed).astype(float) - frame).mean() < 2.5  # neighbours differ by 3.7 and more


def test_the_pdf_handout_ends_the_section_with_every_question_and_its_answer(out):
    """Every question of the locale's matrix steps and its closing, shown on a card or not, with its answer,
    on the pages after the last step's."""
    pdf = PdfReader(out / "slides" / "01-matrix.pdf")
    steps = steps_of(out, "matrix")
    handout = " ".join(" ".join(page.extract_text().split()) for page in pdf.pages[len(steps):])
    assert handout.startswith(STRINGS["slides"]["questions_heading"])
    asked = {question["key"]: question for question in manifest(out)["sections"]["matrix"]["questions"]}
    pairs = [(asked[step["key"]]["question"], asked[step["key"]]["answer"]) for step in steps
             if "question" in STRINGS["matrix"]["steps"][step["key"]]]
    assert pairs and "{" not in handout
    for question, answer in pairs:
        assert f"{' '.join(question.split())} {' '.join(answer.split())}" in handout
    closing = STRINGS["closing"]["matrix"]
    assert closing["title"] in handout  # its numbers are the scene's (test_cards checks them on the card)


@pytest.fixture(scope="module")
def two_sections(out, tmp_path_factory):
    """``out`` (matrix and its slides) with scaling rendered beside it, and scaling rendered in English in another
    folder: the files a lecturer's English render would leave."""
    spanish = copy_of(out, tmp_path_factory.mktemp("two-sections") / "out")
    english = tmp_path_factory.mktemp("english-scaling")
    for folder, language in ((spanish, "es"), (english, "en")):
        result = run_cli("render", "scaling", *TINY, "-o", str(folder), "-j", "1", "--set", f"lecture.lang={language}")
        assert result.returncode == 0, result.stderr
    return spanish, english


SCALING_FILES = ("02-scaling.mp4", "02-scaling.wav")


def put_english_scaling(english: Path, out: Path) -> None:
    """Scaling's English video and sound renamed over ``out``'s, as a copy by another program would leave
    them: whole files, and the manifest left as it was."""
    for name in SCALING_FILES:
        shutil.copyfile(english / name, out / f".{name}.new")
        (out / f".{name}.new").replace(out / name)


def slides_in_process(out: Path) -> CliRunner:
    return CliRunner().invoke(cli, ["slides", "matrix", "scaling", *TINY, "-o", str(out), "-j", "1", "--to", "html"])


def test_a_section_replaced_after_the_manifest_is_read_is_left_out_in_one_line_and_exit_1(two_sections, tmp_path,
                                                                                          monkeypatch):
    spanish, english = two_sections
    out = copy_of(spanish, tmp_path / "out")
    monkeypatch.setattr(slides, "read_manifest", then(slides.read_manifest, lambda: put_english_scaling(english, out)))
    result = slides_in_process(out)
    assert result.exit_code == 1, result.output
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("scaling:")]
    assert line.startswith(f"scaling: {', '.join(SCALING_FILES)} in {out}: missing or changed since it was rendered")
    assert line.endswith("run the command again, it renders scaling anew first")
    assert not (out / "slides" / "files" / "02-scaling").exists() and not list((out / "slides").glob("02-scaling*"))
    assert (out / "slides" / "01-matrix.html").exists()  # the other section's slides are made


def decoded_frames(video: Path) -> np.ndarray:
    with av.open(str(video)) as container:
        return np.stack([frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]).astype(float)


def difference(frames: np.ndarray, video: Path) -> float:
    """The mean difference of ``frames`` from ``video``'s, over the frames both have (the languages' lengths differ)."""
    theirs = decoded_frames(video)
    length = min(len(frames), len(theirs))
    return float(np.abs(frames[:length] - theirs[:length]).mean())


def test_a_section_replaced_while_its_clips_are_cut_gives_the_clips_of_the_render_its_manifest_names(two_sections,
                                                                                                 tmp_path, monkeypatch):
    spanish, english = two_sections
    out = copy_of(spanish, tmp_path / "out")
    # read_wav reads the sound just before the video is cut: both then come from the Spanish render, or both not
    monkeypatch.setattr(slides, "read_wav", then(slides.read_wav, lambda: put_english_scaling(english, out)))
    assert slides_in_process(out).exit_code == 0
    cut_frames = np.concatenate([decoded_frames(clip) for clip in clip_files(out, "02-scaling")])
    assert len(cut_frames) == decoded_frame_count(spanish / "02-scaling.mp4")
    from_spanish, from_english = (difference(cut_frames, folder / "02-scaling.mp4") for folder in (spanish, english))
    assert from_spanish < 2.5 < from_english, (from_spanish, from_english)  # H.264's loss; measured 0.17 and 7.0


@pytest.mark.parametrize("stamp", ["as written", "an earlier version's"])
def test_a_kept_clip_that_is_not_what_its_stamp_records_is_cut_again(out, tmp_path, stamp):
    """The clips in OUT are kept only when their stamp names the video and sound they were cut from and they
    still hash as it records. An earlier version's stamp named the manifest's hashes whatever it cut from, and
    nothing about the clips: a deck cut from another language's video under it was kept until --force."""
    copy = copy_of(out, tmp_path / "out")
    kept = clip_files(copy, "01-matrix")
    shutil.copyfile(kept[1], kept[0])  # another clip's bytes (another length) where the first one was
    if stamp != "as written":
        entry = manifest(copy)["sections"]["matrix"]
        (kept[0].parent / ".source").write_text(json.dumps({"sha256": entry["sha256"], "steps": entry["steps"]},
                                                           sort_keys=True))
    result = run_cli("slides", "matrix", *TINY, "-o", str(copy), "-j", "1", "--to", "html")
    assert result.returncode == 0, result.stderr
    assert [decoded_frame_count(clip) for clip in clip_files(copy, "01-matrix")] == [
        decoded_frame_count(clip) for clip in clip_files(out, "01-matrix")]
