"""The lecture page: ``OUT/site/index.html``, the sections' videos in lesson order, each with its chapters as a
list that jumps the video to the step, its captions, the narration's transcript when it was narrated, its
questions for the class with each answer folded away until the student opens it, and links to the whole
lecture's video, the decks and handouts, storyboard and stills found in OUT.

``OUT/site`` is one self-contained folder: everything the page shows or links to is inside it (hard links
to OUT's files where the file system allows, copies elsewhere), so it can be copied to a USB stick or a web
server as it is. It is replaced file by file (see ``OutputFolder.commit``): what else is in it (``.git``,
``CNAME``, notes) stays, and a file an earlier page had and this one has not is removed. It loads nothing from the network and needs no server: the captions are embedded in the
page as ``data:`` URLs, because browsers refuse a ``<track>`` file next to a page opened from ``file://``.

The page is built from what OUT holds, each file linked and checked against its manifest entry under the
folder's lock (``lecture.publish.snapshot``): a section whose video is missing, or whose files no longer hash
to the manifest, is listed as not rendered (the command that renders it goes to the terminal, not the page),
never rendered here.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

import av
from jinja2 import Environment
from PIL import Image
from rich.console import Console

from lecture.folder_config import render_command
from lecture.render.captions import step_spans
from lecture.render.manifest import MANIFEST, read_manifest
from lecture.render.output_folder import OutputFolder
from lecture.render.runner import plain_line
from lecture.publish.slides import DECK_FORMATS, FOLDER as SLIDES
from lecture.publish.snapshot import changed_line, place, snapshot
from lecture.publish.storyboard import STILLS
from lesson.formats import BY_NAME, PNG
from lesson.locale import DEFAULT_LANGUAGE, load_locale
from lesson.records import steps_of
from lesson.sections import BY_ID, SECTIONS, Section
from lesson.text_overrides import TEXT, lifted, with_texts

SITE = "site"
TEMPLATE = resources.files("lecture.publish") / "templates" / "site.html"
JOINED = "lecture"  # the joined decks' stem: lecture, or lecture-matrix-scaling for some sections


@dataclass(frozen=True)
class Link:
    label: str
    href: str  # relative to OUT/site


@dataclass(frozen=True)
class Chapter:
    anchor: str  # the page's fragment for the step, e.g. matrix-queries
    title: str
    start: float  # seconds, where the step's chapter starts in the video
    transcript: str  # what the narration says in the step; empty when the render did not speak it

    @property
    def clock(self) -> str:
        minutes, seconds = divmod(int(self.start), 60)
        return f"{minutes}:{seconds:02d}"


@dataclass(frozen=True)
class Video:
    href: str
    type: str
    poster: str  # the first step's last frame: what the video stands for before it plays
    captions: str  # the section's WebVTT as a data: URL; "" for a silent section (its captions are in its picture)
    chapters: tuple[Chapter, ...]

    @property
    def narrated(self) -> bool:
        return any(chapter.transcript for chapter in self.chapters)


@dataclass(frozen=True)
class Question:
    question: str
    answer: str


@dataclass(frozen=True)
class SectionPage:
    id: str
    heading: str
    summary: str
    video: Video | None
    questions: tuple[Question, ...]  # for the class, with the answers computed for the render's config
    downloads: tuple[Link, ...]
    stills: tuple[Link, ...]  # one picture per step, labelled with its title


def build(out_dir: Path, console: Console, lang: str | None = None) -> int:
    """Write ``OUT/site`` from what OUT holds, replacing the previous page's files, in locale ``lang`` (None: the
    language OUT's sections were rendered in); returns the exit status."""
    folder = OutputFolder(out_dir)
    warn = plain_line(console)
    with folder.scratch() as scratch:
        site = scratch / SITE
        site.mkdir()
        with folder.lock():  # the manifest and the files it names, as one render left them
            manifest = read_manifest(folder, warn=warn)
            entries = manifest["sections"]
            strings = page_strings(lang or rendered_language(entries), manifest)
            sections = [_section_page(folder.path, site, section, entries.get(section.id), strings, warn)
                        for section in SECTIONS]
            lecture = _lecture_video(folder.path, site, manifest.get("lecture"), strings, warn)
            decks = joined_decks(folder.path, site, strings)
        sections = _with_storyboard_stills(folder.path, site, sections, warn)
        (site / "index.html").write_text(_render(sections, lecture, decks, strings), encoding="utf-8")
        with folder.lock():
            folder.commit({SITE: site}, scratch)
    missing = [section.id for section in sections if section.video is None]
    warn(f"{folder.path / SITE / 'index.html'}: {len(sections) - len(missing)} of {len(sections)} videos"
         + (f"; not rendered: {', '.join(missing)} ({_rendering(folder.path, entries, sections, missing)})"
            if missing else ""))
    return 0


def _rendering(out: Path, entries: dict, sections: list, missing: list[str]) -> str:
    """How to render the ``missing`` sections as the page's others were, so they join them."""
    shown = next((entries[section.id] for section in sections if section.video is not None), None)
    return f"{render_command(out, missing, shown)} renders them" + (" as the others were" if shown else "")


def rendered_language(entries: dict) -> str:
    """The language most of OUT's sections were rendered in (the manifest's ``lang``); the course's when none
    says."""
    languages = [entry.get("lang", DEFAULT_LANGUAGE) for entry in entries.values()]
    return max(sorted(set(languages)), key=languages.count) if languages else DEFAULT_LANGUAGE


def page_strings(lang: str, manifest: dict) -> dict:
    """The strings of ``lang`` with the lecturer's own texts (``lesson.text_overrides``) the videos in that language
    were rendered with, as the manifest records them: the page titles a section as its video does."""
    recorded = {section: entry.get("config", {}) for section, entry in manifest["sections"].items()
                if entry.get("lang", DEFAULT_LANGUAGE) == lang}
    lecture = manifest.get("config", {}).get("lecture", {})
    if lecture.get("lang", DEFAULT_LANGUAGE) == lang:
        recorded["lecture"] = lecture
    return with_texts(load_locale(lang), lifted(recorded).get(TEXT, {}))


def _section_page(out: Path, site: Path, section: Section, entry: dict | None, strings: dict, warn) -> SectionPage:
    rendered_as = BY_NAME.get(entry["format"]) if entry else None  # None: not rendered, or by a newer version
    video = _video(out, site, section, entry, warn) if rendered_as and rendered_as.browser_type else None
    stills = _stills(site, section, {**entry, "folder": out}, warn) if rendered_as and rendered_as.is_still else ()
    downloads = [Link(strings["site"]["video_file"], video.href)] if video else []
    for suffix in ("vtt", "srt"):
        captions = Path(video.href).with_suffix(f".{suffix}").as_posix() if video else ""
        if video and (site / captions).exists():
            downloads.append(Link(strings["site"][f"captions_{suffix}"], captions))
    downloads += _decks(out, site, section.stem, strings)
    storyboard = _placed(out / f"{section.stem}-storyboard{PNG.suffix}", site, "storyboards")
    if storyboard:
        downloads.append(Link(strings["site"]["storyboard"], storyboard))
    questions = tuple(Question(question["question"], question["answer"])
                      for question in entry.get("questions", [])) if video else ()
    return SectionPage(id=section.id, heading=strings["slides"]["storyboard_heading"].format(
                           number=section.number, title=strings[section.id]["title"]),
                       summary=strings[section.id]["summary"], video=video, questions=questions,
                       downloads=tuple(downloads), stills=stills)


def _lecture_video(out: Path, site: Path, lecture: dict | None, strings: dict, warn) -> Link | None:
    """The whole lecture's video (the manifest's ``lecture``) placed in ``site/videos``; None when there is none
    or it differs from the manifest."""
    if not lecture or not lecture.get("sha256"):
        return None
    name = lecture["file"]
    changed = snapshot(out, site / "videos", {"sha256": {name: lecture["sha256"]}}, [name])
    if changed:
        warn(f"{changed_line('lecture', out, changed)}; the page does not link it")
        return None
    return Link(strings["site"]["lecture_video"], f"videos/{name}")


def _video(out: Path, site: Path, section: Section, entry: dict, warn) -> Video | None:
    """The section's video and captions placed in ``site/videos``, or None when they differ from the manifest."""
    video = next((name for name in entry["files"] if Path(name).suffix == f".{entry['format']}"), None)
    if video is None:
        return None
    stem = Path(video).stem
    names = [name for name in entry["files"] if name in {video, f"{stem}.vtt", f"{stem}.srt"}]
    changed = snapshot(out, site / "videos", entry, names)
    if changed:
        warn(f"{changed_line(section.id, out, changed)}; the page lists it as not rendered "
             f"({render_command(out, [section.id], entry)} renders it again)")
        return None
    steps = steps_of(entry)
    chapters = tuple(Chapter(anchor=f"{section.id}-{step.key}", title=step.title, start=start,
                             transcript=step.narration["text"] if step.spoken else "")
                     for step, (start, _) in zip(steps, step_spans(steps, entry["duration"])))
    # Its subtitles, when it has any (narrated or clean): a silent section's captions are in its picture.
    data = base64.b64encode((site / "videos" / f"{stem}.vtt").read_bytes()).decode("ascii") \
        if f"{stem}.vtt" in names else ""
    poster = f"videos/{stem}.jpg"
    frame_before(site / "videos" / video, steps[0].end).save(site / poster, quality=85)
    return Video(href=f"videos/{video}", type=BY_NAME[entry["format"]].browser_type, poster=poster,
                 captions=f"data:text/vtt;base64,{data}" if data else "", chapters=chapters)


def frame_before(video: Path, seconds: float) -> Image.Image:
    """The last frame of ``video`` shown before ``seconds``."""
    with av.open(str(video)) as container:
        shown = None
        for frame in container.decode(video=0):
            if shown is not None and frame.time >= seconds:
                break
            shown = frame
        return shown.to_image()


def _with_storyboard_stills(out: Path, site: Path, sections: list[SectionPage], warn) -> list[SectionPage]:
    """``sections`` with the storyboard's stills (``OUT/stills``, see ``lecture.publish.storyboard``) for those
    that have none of their own, read and placed under that folder's lock, where its renders commit them."""
    if not (out / STILLS / MANIFEST).exists():
        return sections
    stills = OutputFolder(out / STILLS)
    with stills.lock():
        entries = {section: entry for section, entry in read_manifest(stills, warn=warn)["sections"].items()
                   if entry["format"] in BY_NAME and BY_NAME[entry["format"]].is_still}
        return [replace(page, stills=_stills(site, BY_ID[page.id], {**entries[page.id], "folder": stills.path},
                                             warn)) if page.id in entries and not page.stills else page
                for page in sections]


def _stills(site: Path, section: Section, entry: dict, warn) -> tuple[Link, ...]:
    """The section's stills placed in ``site/stills/NN-section``, each labelled with its step's title."""
    name = entry["files"][0]
    changed = snapshot(entry["folder"], site / "stills", entry, [name])
    if changed:
        warn(f"{changed_line(section.id, entry['folder'], changed)}; the page shows no stills of {section.id}")
        return ()
    return tuple(Link(f"{number}. {step.title}", f"stills/{name}/{number:02d}-{step.key}{PNG.suffix}")
                 for number, step in enumerate(steps_of(entry), 1))


def _decks(out: Path, site: Path, stem: str, strings: dict) -> list[Link]:
    """Links to the decks ``OUT/slides/STEM.*`` present, placed in ``site/slides`` (an HTML deck with its
    assets folder)."""
    links = []
    for deck_format in DECK_FORMATS:
        placed = _placed(out / SLIDES / f"{stem}.{deck_format}", site, SLIDES)
        if placed:
            if deck_format == "html":
                _placed(out / SLIDES / f"{stem}_assets", site, SLIDES)
            links.append(Link(strings["site"][f"deck_{deck_format}"], placed))
    return links


def joined_decks(out: Path, site: Path, strings: dict) -> tuple[tuple[str, tuple[Link, ...]], ...]:
    """The joined decks present, the whole lecture's first: (what it holds, its links) each, labelled from
    the locale ``strings``."""
    stems = sorted({path.stem for deck_format in DECK_FORMATS
                    for path in (out / SLIDES).glob(f"{JOINED}*.{deck_format}")}, key=lambda stem: (stem != JOINED, stem))
    decks = []
    for stem in stems:
        ids = stem.split("-")[1:]
        if not all(section in BY_ID for section in ids):
            continue  # not one of ours
        label = strings["site"]["joined_all"] if not ids else strings["site"]["joined_some"].format(
            sections=", ".join(str(BY_ID[section].number) for section in ids))
        decks.append((label, tuple(_decks(out, site, stem, strings))))
    return tuple(decks)


def _placed(source: Path, site: Path, folder: str) -> str | None:
    """``source`` placed in ``site/folder`` under its own name (see ``snapshot.place``); its path relative to the
    site, or None when there is nothing regular to place."""
    href = f"{folder}/{source.name}"
    return href if place(source, site / href) else None


def _render(sections: list[SectionPage], lecture: Link | None, decks, strings: dict) -> str:
    environment = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    return environment.from_string(TEMPLATE.read_text(encoding="utf-8")).render(
        sections=sections, lecture=lecture, decks=decks, strings=strings)
