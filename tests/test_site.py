"""The lecture page (`render.py site`), built from a tiny render of two sections (one narrated, one silent)
with a storyboard and decks, and read back: HTML parsed (sections in lesson order, chapters equal to the
videos' own chapters, transcript equal to the narration, captions equal to the .vtt, every link inside the
folder), then a copy of the folder opened in headless Chromium with no network (no console message, every
video playable with its captions, a chapter link seeks its video, the layout at desktop and phone widths)."""

import base64
import json
import os
import re
import shlex
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import av
import pytest
from click.testing import CliRunner

from lecture.render.captions import step_spans
from lecture.cli import cli
from lecture.publish import site as lecture_page
from lecture.publish.site import joined_decks, rendered_language
from lecture.render.manifest import MANIFEST, STILLS
from lecture.render.output_folder import OutputFolder
from lesson.locale import load_locale
from lesson.records import steps_of
from lesson.sections import SECTION_IDS
from media_checks import TINY, copy_of, draft_voice_matrix, manifest, run_cli, system_program, then, tiny_matrix

NO_QUESTIONS = ("--set", "lecture.questions='none'")
# A lecturer's own question for scaling, with characters HTML would read as markup: the page shows them as written.
MARKUP_QUESTION = "Si <b>cada</b> q·k tiene varianza 1 & son independientes, ¿qué varianza tiene una suma de d_k de ellos?"
MARKUP = ("--set", f'text.scaling.steps.variance.question="{MARKUP_QUESTION}"')
RENDERED = ("matrix", "scaling")
STRINGS = load_locale("es")
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}  # headless Chromium lays a page out 500 wide at the least
BREAKPOINT = 56 * 16  # pixels: the page's min-width for chapters beside the video
# Injected into a copy of the page: errors collected from the start; once loaded, what each video plays
# and whether its captions loaded, whether the first answer shows before and after a click on its summary,
# then a click on the scaling video's third chapter and where it went.
PROBE_HEAD = """<script>
window.probeErrors = [];
addEventListener("error", event => probeErrors.push(String(event.message || event.target.src || event.target.href)), true);
</script>
"""
PROBE_END = """<script>
setTimeout(() => {
  const videos = [...document.querySelectorAll("video")].map(video => ({
    id: video.id, source: video.currentSrc, ready: video.readyState, duration: video.duration,
    error: video.error && video.error.code, width: video.videoWidth,
    track: video.querySelector("track") && video.querySelector("track").readyState,
    cues: video.textTracks.length ? video.textTracks[0].cues && video.textTracks[0].cues.length : null,
    box: video.getBoundingClientRect().toJSON(),
    chapters: video.closest(".player").querySelector(".chapters").getBoundingClientRect().toJSON()}));
  const answer = document.querySelector("details.answer");
  const seen = () => answer && {shown: answer.querySelector("p").checkVisibility(), open: answer.open};
  const hidden = seen();
  if (answer) answer.querySelector("summary").click();
  const revealed = seen();
  const link = document.querySelectorAll('.chapters a[data-video="video-scaling"]')[2];
  const video = document.getElementById("video-scaling");
  link.click();
  video.dispatchEvent(new Event("timeupdate"));  // as the player would, once it is at the new time
  document.getElementById("probe").textContent = JSON.stringify({
    videos, hidden, revealed, errors: probeErrors, time: video.currentTime, start: Number(link.dataset.start),
    hash: location.hash, current: link.getAttribute("aria-current"),
    width: document.documentElement.clientWidth,
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth});
}, 3000);
</script>
<pre id="probe"></pre>
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """OUT with the two sections, a storyboard and decks, and the `site` run that built its page."""
    # The draft-voiced matrix render is the session's own (test_narration_render reads it too): the page is
    # built on a copy of it.
    out = copy_of(draft_voice_matrix(tmp_path_factory), tmp_path_factory.mktemp("site-tiny") / "out")
    commands = (("render", "scaling", "--no-audio", *MARKUP), ("storyboard", "matrix"),
                ("slides", "matrix", "--narration", "tts", "--to", "html", "--to", "pdf"))
    for command in commands:
        result = run_cli(*command, *TINY, *NO_QUESTIONS, "-o", str(out), "-j", "1", timeout=900)
        assert result.returncode == 0, result.stderr
    result = run_cli("site", "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out, result


@pytest.fixture(scope="module")
def out(built):
    return built[0]


class Page(HTMLParser):
    """Every element's tag and attributes in order, and the text of each element with the id of the section it
    is in."""

    def __init__(self, path: Path):
        super().__init__()
        self.elements, self.texts, self._open = [], {}, []
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        self.elements.append((tag, attributes))
        self._open.append([tag, attributes, ""])

    def handle_endtag(self, tag):
        while self._open:
            opened, attributes, text = self._open.pop()
            if self._open:
                self._open[-1][2] += text
            if opened == tag:
                section = next((open_[1].get("id") for open_ in reversed(self._open) if open_[0] == "section"), None)
                self.texts.setdefault(tag, []).append((attributes, " ".join(text.split()), section))
                return

    def handle_data(self, data):
        if self._open:
            self._open[-1][2] += data

    def all(self, tag: str, **wanted) -> list[dict]:
        return [attributes for name, attributes in self.elements
                if name == tag and all(attributes.get(key) == value for key, value in wanted.items())]

    def text_of(self, tag: str, section: str | None = None, **wanted) -> list[str]:
        """The texts of the ``tag`` elements with the ``wanted`` attributes (in ``section``, when given)."""
        return [text for attributes, text, inside in self.texts.get(tag, [])
                if all(attributes.get(key) == value for key, value in wanted.items())
                and section in (None, inside)]


@pytest.fixture(scope="module")
def page(out):
    return Page(out / "site" / "index.html")


def test_every_section_in_lesson_order_the_missing_ones_marked(page):
    sections = page.all("section")
    assert [section["id"] for section in sections] == list(SECTION_IDS)
    assert [section["id"] for section in sections if "missing" not in section["class"]] == list(RENDERED)


def suggested(stderr: str, ending: str) -> tuple[list[str], dict[str, set[str]]]:
    """The command ``site`` suggests in "(python render.py ... <ending>)": its words up to the first option, and
    each option's values."""
    command = re.search(rf"\((python render\.py render .*?) {ending}\)", stderr)
    assert command, stderr
    words = shlex.split(command.group(1))
    first = next((index for index, word in enumerate(words) if word.startswith("-")), len(words))
    options: dict[str, set[str]] = {}
    for index in range(first, len(words), 2):
        options.setdefault(words[index], set()).add(words[index + 1])
    return words[:first], options


def test_site_names_on_the_terminal_the_sections_not_rendered_and_the_command_that_renders_them(built):
    """The command renders them as the page's first video was (the narrated matrix: TINY, no questions, the
    voice the tests' own settings leave out), into the same folder: run as it is, they join the lecture."""
    out, result = built
    missing = [section for section in SECTION_IDS if section not in RENDERED]
    assert f"{len(RENDERED)} of {len(SECTION_IDS)} videos; not rendered: {', '.join(missing)} (" in result.stderr
    words, options = suggested(result.stderr, "renders them as the others were")
    assert words == ["python", "render.py", "render", *missing]
    assert options == {"-o": {str(out)}, "--resolution": {"256x144"}, "--fps": {"5"},
                       "--set": {'lecture.questions="none"', 'narration.source="tts"'}}


def test_the_page_shows_students_no_command(out):
    """The commands are the lecturer's: `site` names them on its terminal, the page does not."""
    assert "render.py" not in (out / "site" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("section", RENDERED)
def test_each_question_is_under_its_video_with_its_answer_in_a_details_of_its_own(out, page, section):
    """The section's questions for the class, as the render computed them for its config, each answer in a
    ``<details>`` the student opens: no script needed."""
    questions = manifest(out)["sections"][section]["questions"]
    assert questions  # the rendered sections have questions to try
    assert page.text_of("p", section, **{"class": "question"}) == [" ".join(q["question"].split()) for q in questions]
    assert page.text_of("p", section, **{"class": "answer"}) == [" ".join(q["answer"].split()) for q in questions]
    assert page.text_of("details", section, **{"class": "answer"}) == [
        f"{STRINGS['site']['show_answer']} {' '.join(q['answer'].split())}" for q in questions]
    (video,) = [index for index, (tag, attributes) in enumerate(page.elements)
                if tag == "video" and attributes["id"] == f"video-{section}"]
    (first,) = [index for index, (tag, attributes) in enumerate(page.elements)
                if tag == "ol" and attributes.get("id") == f"questions-{section}"]
    assert first > video


def test_a_question_with_markup_characters_shows_them_as_written(out, page):
    html = (out / "site" / "index.html").read_text(encoding="utf-8")
    assert MARKUP_QUESTION in page.text_of("p", "scaling", **{"class": "question"})
    assert "Si &lt;b&gt;cada&lt;/b&gt;" in html and "1 &amp; son" in html
    assert page.all("b") == []


def test_the_whole_lecture_video_is_linked_and_shares_its_bytes_with_out(out, page):
    name = manifest(out)["lecture"]["file"]
    assert page.text_of("a", href=f"videos/{name}") == [STRINGS["site"]["lecture_video"]]
    assert os.path.samefile(out / "site" / "videos" / name, out / name)


def test_a_lecture_video_changed_since_its_render_is_not_linked(out, tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("site", "slides", "stills", ".atencion"))
    name = manifest(copy)["lecture"]["file"]
    with open(copy / name, "ab") as video:
        video.write(b"\0")
    result = run_cli("site", "-o", str(copy))
    assert result.returncode == 0, result.stderr
    assert f"lecture: {name} in {copy}: missing or changed since it was rendered" in result.stderr
    assert not (copy / "site" / "videos" / name).exists()
    assert Page(copy / "site" / "index.html").all("a", href=f"videos/{name}") == []


@pytest.mark.parametrize("section", RENDERED)
def test_the_chapters_are_the_videos_own_chapters(out, page, section):
    video = page.all("video", id=f"video-{section}")[0]
    (source,) = [attributes["src"] for tag, attributes in page.elements if tag == "source"
                 and attributes["src"].endswith(f"-{section}.mp4")]
    with av.open(str(out / "site" / source)) as container:
        chapters = [(float(chapter["start"] * chapter["time_base"]), chapter["metadata"]["title"])
                    for chapter in container.chapters()]
    links = page.all("a", **{"data-video": video["id"]})[:len(chapters)]  # the list; the transcript's follow
    titles = page.text_of("a", **{"data-video": video["id"]})[:len(chapters)]
    listed = [(float(link["data-start"]), title.split(" ", 1)[1]) for link, title in zip(links, titles)]
    assert [start for start, _ in listed] == pytest.approx([start for start, _ in chapters], abs=0.002)
    assert [title for _, title in listed] == [title for _, title in chapters]
    entry = manifest(out)["sections"][section]
    starts = [start for start, _ in step_spans(steps_of(entry), entry["duration"])]
    assert [start for start, _ in listed] == pytest.approx(starts)
    clocks = [title.split(" ", 1)[0] for title in titles]
    assert clocks == [f"{int(start) // 60}:{int(start) % 60:02d}" for start in starts]


def test_the_transcript_is_the_narration_and_only_a_narrated_video_has_one(out, page):
    steps = manifest(out)["sections"]["matrix"]["steps"]
    paragraphs = page.text_of("p")
    first = paragraphs.index(steps[0]["narration"]["text"])
    assert paragraphs[first:first + len(steps)] == [step["narration"]["text"] for step in steps]
    assert page.text_of("h4") == [step["title"] for step in steps]  # each under its step's title
    assert len(page.all("details", **{"class": "transcript"})) == 1  # scaling was rendered silent


def test_the_narrated_sections_captions_track_holds_its_vtt_and_the_silent_one_has_none(out, page):
    """matrix was narrated: its track holds the spoken sentences. scaling was rendered silent: its captions are in its
    picture, and a track of them, on by default, would show each one twice."""
    (track,) = [attributes for tag, attributes in page.elements if tag == "track"
                and attributes["src"] in _tracks_of(page, "matrix")]
    assert track["kind"] == "captions" and track["srclang"] == "es-ES" and "default" in track
    data = track["src"].removeprefix("data:text/vtt;base64,")
    assert base64.b64decode(data) == (out / "01-matrix.vtt").read_bytes()
    assert _tracks_of(page, "scaling") == []


def _tracks_of(page: Page, section: str) -> list[str]:
    """The src of each track inside the section's video (the parser keeps elements in document order)."""
    tracks, inside = [], False
    for tag, attributes in page.elements:
        if tag == "video":
            inside = attributes["id"] == f"video-{section}"
        elif tag == "track" and inside:
            tracks.append(attributes["src"])
    return tracks


def test_every_link_stays_inside_the_folder_and_names_a_file_there(out, page):
    site = (out / "site").resolve()
    pages = [site / "index.html", *site.glob("slides/*.html")]
    for html in pages:
        for tag, attributes in Page(html).elements:
            for name in ("href", "src", "poster", "data-background-video"):
                value = attributes.get(name)
                if not value or value.startswith(("#", "data:")):
                    continue
                parts = urlsplit(value)
                assert not parts.scheme and not parts.netloc, f"{html.name}: {tag} {name}={value}"
                target = (html.parent / unquote(parts.path)).resolve()
                assert target.is_relative_to(site) and target.is_file(), f"{html.name}: {value}"


def test_the_materials_present_are_linked(out, page):
    hrefs = {link["href"] for link in page.all("a")}
    assert {"slides/01-matrix.html", "slides/01-matrix.pdf", "storyboards/01-matrix-storyboard.png",
            "videos/01-matrix.vtt", "videos/01-matrix.srt", "videos/02-scaling.mp4"} <= hrefs
    assert not any(href.startswith("slides/02-scaling") for href in hrefs)  # no deck of scaling was made
    stills = [image["src"] for image in page.all("img")]
    steps = manifest(out)["sections"]["matrix"]["steps"]
    assert stills == [f"stills/01-matrix/{number:02d}-{step['key']}.png" for number, step in enumerate(steps, 1)]
    assert [image["alt"] for image in page.all("img")] == [f"{n}. {step['title']}" for n, step in enumerate(steps, 1)]


def testjoined_decks_come_first_for_the_whole_lecture_and_name_the_sections_they_hold(tmp_path):
    for name in ("lecture-matrix-heads.pdf", "lecture.html", "lecture.pptx", "lecture-notes.pdf"):
        (tmp_path / "slides").mkdir(exist_ok=True)
        (tmp_path / "slides" / name).write_bytes(b"deck")
    decks = joined_decks(tmp_path, tmp_path / "site", load_locale("es"))
    assert [(label, [link.href for link in links]) for label, links in decks] == [
        ("Toda la clase", ["slides/lecture.html", "slides/lecture.pptx"]),
        ("Secciones 1, 3", ["slides/lecture-matrix-heads.pdf"])]  # lecture-notes: not a joined deck of ours
    assert (tmp_path / "site" / "slides" / "lecture.pptx").read_bytes() == b"deck"
    english = joined_decks(tmp_path, tmp_path / "site-en", load_locale("en"))
    assert [label for label, _ in english] == ["The whole lecture", "Sections 1, 3"]


def test_the_page_speaks_the_language_most_sections_were_rendered_in():
    assert rendered_language({}) == "es"
    assert rendered_language({"matrix": {}, "heads": {"lang": "en"}, "capital": {"lang": "en"}}) == "en"
    assert rendered_language({"matrix": {"lang": "es"}, "heads": {"lang": "en"}}) == "en"  # a tie: alphabetical


def test_the_folder_shares_the_videos_bytes_with_out(out):
    assert os.path.samefile(out / "site" / "videos" / "01-matrix.mp4", out / "01-matrix.mp4")


def test_a_video_changed_since_its_render_is_listed_as_not_rendered_and_none_of_its_files_are_copied(out, tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("site", "slides", "stills", ".atencion"))
    with open(copy / "02-scaling.mp4", "ab") as video:
        video.write(b"\0")
    result = run_cli("site", "-o", str(copy))
    assert result.returncode == 0 and "02-scaling" not in " ".join(os.listdir(copy / "site" / "videos"))
    assert f"scaling: 02-scaling.mp4 in {copy}: missing or changed since it was rendered" in result.stderr
    assert "the page lists it as not rendered" in result.stderr and "not rendered: scaling" in result.stderr
    assert "missing" in Page(copy / "site" / "index.html").all("section", id="scaling")[0]["class"]
    # scaling was rendered silent, without questions, at TINY: the command says so (its own [text] stays its own)
    assert suggested(result.stderr, "renders it again") == (
        ["python", "render.py", "render", "scaling"],
        {"-o": {str(copy)}, "--resolution": {"256x144"}, "--fps": {"5"},
         "--set": {'lecture.questions="none"', "audio.mute=true"}})


@pytest.fixture(scope="module")
def two_storyboards(tmp_path_factory):
    """The matrix section with its storyboard's stills in Spanish, and the same stills in English elsewhere."""
    spanish = copy_of(tiny_matrix(tmp_path_factory)[0], tmp_path_factory.mktemp("site-stills") / "out")
    english = tmp_path_factory.mktemp("site-stills-english")
    for folder, language in ((spanish, "es"), (english, "en")):
        result = run_cli("storyboard", "matrix", *TINY, "-o", str(folder), "-j", "1",
                         "--set", f"lecture.lang={language}")
        assert result.returncode == 0, result.stderr
    return spanish, english


def commit_stills(source: Path, out: Path) -> None:
    """``source``'s stills of matrix and their manifest put in ``out/stills`` as a storyboard commits them: under
    that folder's lock, in one commit."""
    stills = OutputFolder(out / STILLS)
    with stills.scratch() as scratch, stills.lock():
        stills.commit({"01-matrix": shutil.copytree(source / STILLS / "01-matrix", scratch / "01-matrix"),
                       MANIFEST: shutil.copy(source / STILLS / MANIFEST, scratch / MANIFEST)}, scratch)


def still_bytes(folder: Path) -> list[bytes]:
    return [still.read_bytes() for still in sorted(folder.glob("*.png"))]


def test_stills_committed_while_the_page_is_built_come_whole_from_one_render(two_storyboards, tmp_path,
                                                                             monkeypatch):
    spanish, english = two_storyboards
    out = copy_of(spanish, tmp_path / "out")
    # The page loads its locale once it has read OUT's manifest, under OUT's lock: a storyboard commits then.
    monkeypatch.setattr(lecture_page, "load_locale", then(lecture_page.load_locale, lambda: commit_stills(english, out)))
    result = CliRunner().invoke(cli, ["site", "-o", str(out)])
    assert result.exit_code == 0 and "changed since it was rendered" not in result.stderr, result.stderr
    shown = still_bytes(out / "site" / "stills" / "01-matrix")
    assert shown in (still_bytes(folder / STILLS / "01-matrix") for folder in (spanish, english))


@pytest.fixture(scope="module")
def opened(out, tmp_path_factory):
    """The page copied elsewhere (as to a USB stick), opened in Chromium at both widths: the probe's report,
    Chromium's log, and a screenshot per width."""
    stick = tmp_path_factory.mktemp("stick") / "site"
    shutil.copytree(out / "site", stick)
    html = (stick / "index.html").read_text(encoding="utf-8")
    probe = stick / "probe.html"
    head, end = html.index("<head>") + len("<head>"), html.rindex("</body>")
    probe.write_text(html[:head] + PROBE_HEAD + html[head:end] + PROBE_END + html[end:], encoding="utf-8")
    reports = {}
    for name, (width, height) in WIDTHS.items():
        window = [f"--window-size={width},{height}"]
        result = chromium("--enable-logging=stderr", "--v=0", "--dump-dom", *window, probe.as_uri())
        found = re.search(r'<pre id="probe">(.*?)</pre>', result.stdout, re.DOTALL)
        assert found and found.group(1), result.stderr[-2000:]
        screenshot = stick.parent / f"{name}.png"
        chromium("--hide-scrollbars", f"--screenshot={screenshot}", *window, (stick / "index.html").as_uri())
        reports[name] = (json.loads(found.group(1)), result.stderr, screenshot)
    return reports


def chromium(*arguments: str) -> subprocess.CompletedProcess:
    """Headless Chromium with no network at all, where this user may (root)."""
    isolated = subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    return subprocess.run([*(["unshare", "-n"] if isolated else []), system_program("chromium", "chromium"),
                           "--headless", "--no-sandbox",
                           "--disable-gpu", "--virtual-time-budget=10000", *arguments],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_page_loads_with_no_console_message_and_every_video_plays_with_its_captions(out, opened, width):
    report, log, _ = opened[width]
    assert report["errors"] == []
    assert not [line for line in log.splitlines() if "CONSOLE" in line and "source: chrome://" not in line]
    assert [video["id"] for video in report["videos"]] == [f"video-{section}" for section in RENDERED]
    for video, section in zip(report["videos"], RENDERED):
        entry = manifest(out)["sections"][section]
        assert video["error"] is None and video["ready"] >= 1 and video["width"] == 256
        assert video["source"].endswith(f"/site/videos/{entry['files'][0]}")
        assert video["duration"] == pytest.approx(entry["duration"], abs=0.3)
        if section == "matrix":  # narrated: its spoken sentences (scaling, silent, has no track)
            cues = (out / entry["files"][0]).with_suffix(".vtt").read_text(encoding="utf-8").count(" --> ")
            assert video["track"] == 2 and video["cues"] == cues  # 2: the track loaded
        else:
            assert video["track"] is None and video["cues"] is None


@pytest.mark.parametrize("width", WIDTHS)
def test_an_answer_is_hidden_until_the_student_opens_it(opened, width):
    report = opened[width][0]
    assert report["hidden"] == {"shown": False, "open": False}
    assert report["revealed"] == {"shown": True, "open": True}


def test_a_chapter_link_seeks_its_video_to_the_step_and_marks_it_current(out, opened):
    report = opened["desktop"][0]
    assert report["time"] == pytest.approx(report["start"])
    starts = [start for start, _ in step_spans(steps_of(manifest(out)["sections"]["scaling"]),
                                               manifest(out)["sections"]["scaling"]["duration"])]
    assert report["start"] == pytest.approx(starts[2])
    assert report["hash"] == f"#scaling-{manifest(out)['sections']['scaling']['steps'][2]['key']}"
    assert report["current"] == "step"


def test_the_layout_puts_the_chapters_beside_the_video_on_a_desktop_and_below_it_on_a_phone(opened):
    for width, beside in (("desktop", True), ("phone", False)):
        report, _, screenshot = opened[width]
        assert (report["width"] >= BREAKPOINT) == beside
        assert report["overflow"] <= 0  # nothing wider than the window
        for video in report["videos"]:
            box, chapters = video["box"], video["chapters"]
            assert (chapters["left"] >= box["right"]) == beside
            assert (chapters["top"] >= box["bottom"]) == (not beside)
            assert box["right"] <= report["width"] and chapters["right"] <= report["width"]
        assert screenshot.stat().st_size > 10_000
