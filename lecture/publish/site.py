"""The lecture page: ``OUT/site/index.html``, the six videos in lesson order, each with its chapters as a
list that jumps the video to the step, its captions, the narration's transcript when it was narrated, and
links to the decks, storyboard and stills found in OUT.

``OUT/site`` is one self-contained folder: everything the page shows or links to is inside it (hard links
to OUT's files where the file system allows, copies elsewhere), so it can be copied to a USB stick or a web
server as it is. It is replaced file by file (see ``OutputFolder.commit``): what else is in it (``.git``,
``CNAME``, notes) stays, and a file an earlier page had and this one has not is removed. It loads nothing from the network and needs no server: the captions are embedded in the
page as ``data:`` URLs, because browsers refuse a ``<track>`` file next to a page opened from ``file://``.

The page is built from what OUT holds: a section whose video is missing, or whose files no longer hash to
the manifest, is listed with the command that renders it, never rendered here.
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import av
from jinja2 import Environment
from PIL import Image
from rich.console import Console

from lecture.render.captions import spoken_section, step_spans
from lecture.render.manifest import MANIFEST, file_hash, read_manifest
from lecture.render.output_folder import OutputFolder
from lecture.render.runner import plain_line
from lecture.publish.slides import DECK_FORMATS, FOLDER as SLIDES
from lecture.publish.storyboard import STILLS
from lesson.formats import BY_NAME, PNG
from lesson.locale import DEFAULT_LANGUAGE, load_locale
from lesson.records import steps_of
from lesson.sections import BY_ID, SECTIONS, Section

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
class SectionPage:
    id: str
    heading: str
    summary: str
    command: str  # what renders its video, shown when there is none
    video: Video | None
    downloads: tuple[Link, ...]
    stills: tuple[Link, ...]  # one picture per step, labelled with its title


def build(out_dir: Path, console: Console, lang: str | None = None) -> int:
    """Write ``OUT/site`` from what OUT holds, replacing the previous page's files, in locale ``lang`` (None: the
    language OUT's sections were rendered in); returns the exit status."""
    folder = OutputFolder(out_dir)
    warn = plain_line(console)
    stills_entries = _stills_manifest(folder.path, warn)
    with folder.scratch() as scratch:
        site = scratch / SITE
        site.mkdir()
        with folder.lock():  # the manifest and the files it names, as one render left them
            entries = read_manifest(folder, warn=warn)["sections"]
            strings = load_locale(lang or rendered_language(entries))
            sections = [_section_page(folder.path, site, section, entries.get(section.id),
                                      stills_entries.get(section.id), strings, warn) for section in SECTIONS]
            decks = joined_decks(folder.path, site, strings)
        (site / "index.html").write_text(_render(sections, decks, strings), encoding="utf-8")
        with folder.lock():
            folder.commit({SITE: site}, scratch)
    missing = [section.id for section in sections if section.video is None]
    warn(f"{folder.path / SITE / 'index.html'}: {len(sections) - len(missing)} of {len(sections)} videos"
         + (f"; not rendered: {', '.join(missing)}" if missing else ""))
    return 0


def rendered_language(entries: dict) -> str:
    """The language most of OUT's sections were rendered in (the manifest's ``lang``); the course's when none
    says."""
    languages = [entry.get("lang", DEFAULT_LANGUAGE) for entry in entries.values()]
    return max(sorted(set(languages)), key=languages.count) if languages else DEFAULT_LANGUAGE


def _section_page(out: Path, site: Path, section: Section, entry: dict | None, stills_entry: dict | None,
                  strings: dict, warn) -> SectionPage:
    rendered_as = BY_NAME.get(entry["format"]) if entry else None  # None: not rendered, or by a newer version
    video = _video(out, site, section, entry, warn) if rendered_as and rendered_as.browser_type else None
    if rendered_as and rendered_as.is_still:
        stills_entry = {**entry, "folder": out}
    stills = _stills(site, section, stills_entry, warn) if stills_entry else ()
    downloads = [Link(strings["site"]["video_file"], video.href)] if video else []
    for suffix in ("vtt", "srt"):
        captions = Path(video.href).with_suffix(f".{suffix}").as_posix() if video else ""
        if video and (site / captions).exists():
            downloads.append(Link(strings["site"][f"captions_{suffix}"], captions))
    downloads += _decks(out, site, section.stem, strings)
    storyboard = _place(out / f"{section.stem}-storyboard.png", site, "storyboards")
    if storyboard:
        downloads.append(Link(strings["site"]["storyboard"], storyboard))
    return SectionPage(id=section.id, heading=strings["slides"]["storyboard_heading"].format(
                           number=section.number, title=strings[section.id]["title"]),
                       summary=strings[section.id]["summary"], command=f"python render.py render {section.id}",
                       video=video, downloads=tuple(downloads), stills=stills)


def _video(out: Path, site: Path, section: Section, entry: dict, warn) -> Video | None:
    """The section's video and captions placed in ``site/videos``, or None when they differ from the manifest."""
    video = next((name for name in entry["files"] if Path(name).suffix == f".{entry['format']}"), None)
    if video is None:
        return None
    stem = Path(video).stem
    names = [name for name in entry["files"] if name in {video, f"{stem}.vtt", f"{stem}.srt"}]
    if not _placed_intact(out, site, "videos", names, entry):
        warn(f"{section.id}: its files in {out} are missing or changed since they were rendered; the page lists it "
             f"as not rendered (python render.py render {section.id} renders it again)")
        return None
    if f"{stem}.vtt" not in names:
        return None
    steps = steps_of(entry)
    chapters = tuple(Chapter(anchor=f"{section.id}-{step.key}", title=step.title, start=start,
                             transcript=step.narration["text"] if step.spoken else "")
                     for step, (start, _) in zip(steps, step_spans(steps, entry["duration"])))
    # A silent section's captions are in its picture: a track of them, on by default, would show each one twice.
    data = base64.b64encode((site / "videos" / f"{stem}.vtt").read_bytes()).decode("ascii") \
        if spoken_section(steps) else ""
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


def _placed_intact(out: Path, site: Path, folder: str, names: list[str], entry: dict) -> bool:
    """Place ``names`` from OUT in ``site/folder``, a folder's own files only (its manifest ``entry``'s
    ``contents``); whether each hashes as ``entry`` says (if not, none stay)."""
    contents = entry.get("contents", {})
    placed = [_place(out / name, site, folder, contents.get(name)) for name in names]
    if all(path and file_hash(site / path, contents.get(name)) == entry["sha256"].get(name)
           for path, name in zip(placed, names)):
        return True
    for path in filter(None, placed):
        target = site / path
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    return False


def _stills_manifest(out: Path, warn) -> dict:
    """The entries of ``OUT/stills/manifest.json`` (the storyboards' stills), read under that folder's lock."""
    if not (out / STILLS / MANIFEST).exists():
        return {}
    stills = OutputFolder(out / STILLS)
    with stills.lock():
        entries = read_manifest(stills, warn=warn)["sections"]
    return {section: {**entry, "folder": stills.path} for section, entry in entries.items()
            if entry["format"] in BY_NAME and BY_NAME[entry["format"]].is_still}


def _stills(site: Path, section: Section, entry: dict, warn) -> tuple[Link, ...]:
    """The section's stills placed in ``site/stills/NN-section``, each labelled with its step's title."""
    name = entry["files"][0]
    if not _placed_intact(entry["folder"], site, "stills", [name], entry):
        warn(f"{entry['folder'] / name}: missing or changed since it was rendered; the page shows no stills "
             f"of {section.id}")
        return ()
    return tuple(Link(f"{number}. {step.title}", f"stills/{name}/{number:02d}-{step.key}{PNG.suffix}")
                 for number, step in enumerate(steps_of(entry), 1))


def _decks(out: Path, site: Path, stem: str, strings: dict) -> list[Link]:
    """Links to the decks ``OUT/slides/STEM.*`` present, placed in ``site/slides`` (an HTML deck with its
    assets folder)."""
    links = []
    for deck_format in DECK_FORMATS:
        placed = _place(out / SLIDES / f"{stem}.{deck_format}", site, SLIDES)
        if placed:
            if deck_format == "html":
                _place(out / SLIDES / f"{stem}_assets", site, SLIDES)
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


def _place(source: Path, site: Path, folder: str, names: list[str] | None = None) -> str | None:
    """``source`` (a regular file, or a folder of them: those ``names``, or all) put into ``site/folder`` under
    its own name, hard-linked where possible; its path relative to the site, or None when there is nothing
    regular to place."""
    try:
        mode = os.lstat(source).st_mode
    except OSError:
        return None
    target = site / folder / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    if stat.S_ISDIR(mode) and names is not None:
        target.mkdir(exist_ok=True)
        for name in names:
            _place(source / name, site, f"{folder}/{source.name}")
    elif stat.S_ISDIR(mode):
        shutil.copytree(source, target, copy_function=_link_or_copy, ignore=_not_regular)
    elif stat.S_ISREG(mode):
        _link_or_copy(source, target)
    else:
        return None  # a link or a device: nothing that could leave the folder is followed
    return f"{folder}/{source.name}"


def _not_regular(folder: str, names: list[str]) -> list[str]:
    """Names in ``folder`` that are neither regular files nor folders (links among them): not copied."""
    return [name for name in names
            if not (stat.S_ISREG(mode := os.lstat(os.path.join(folder, name)).st_mode) or stat.S_ISDIR(mode))]


def _link_or_copy(source: str | Path, target: str | Path) -> None:
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:  # another file system, or one without hard links
        shutil.copyfile(source, target, follow_symlinks=False)


def _render(sections: list[SectionPage], decks, strings: dict) -> str:
    environment = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    return environment.from_string(TEMPLATE.read_text(encoding="utf-8")).render(
        sections=sections, decks=decks, strings=strings)
