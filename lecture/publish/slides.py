"""Slides that keep their sound: each section as a manim-slides presentation whose slide videos carry
their slice of the soundtrack, converted to reveal.js HTML, PowerPoint or PDF.

Why the scenes are not rendered as manim-slides ``Slide``s: manim muxes sound only into the final
movie, while manim-slides builds each slide by concatenating manim's partial movie files, which never
have sound; so its slide videos are silent (manim-slides issues 258, 375 and 577). Instead we render
(or reuse, when up to date) the section's finished video and its soundtrack, cut both at the step
boundaries into one clip per step, and write manim-slides' own JSON around those clips, which
``manim-slides present`` plays as they are, so the sound stays. The decks are our own writers'
(``lecture.publish.html_deck``, ``pptx_deck``, ``pdf_deck``): they need no network and show each step's last frame.

Layout, manim-slides' own: ``OUT/slides/NN-section.json`` and ``OUT/slides/files/NN-section/*.mp4``,
with the decks beside the JSON (``OUT/slides/NN-section.html``, ``.pptx``, ``.pdf``), or one joined deck
``OUT/slides/lecture.*``.
"""

from __future__ import annotations

import importlib.util
import json
import os
from bisect import bisect_right
from fractions import Fraction
from functools import partial
from itertools import groupby
from pathlib import Path

import av
import numpy as np
from rich.console import Console

from lecture.render.captions import step_spans
from lecture.publish.decks import CLIPS, Deck, SectionSlides, StepSlide
from lecture.publish.html_deck import write_html
from lecture.publish.snapshot import changed_line, snapshot
from lecture.render.manifest import file_hash, read_manifest
from lecture.render.media import add_audio
from lecture.render.output_folder import OutputFolder, link_or_copy
from lecture.render.runner import RenderRequest, chosen_steps, entries_of, entry_key, plain_line, render
from lesson.records import StepRecord, steps_of
from lesson.sections import BY_ID, SECTION_IDS, Section
from sonify.mix import read_wav
from sonify.synth import SAMPLE_RATE

DECK_FORMATS = ("html", "pptx", "pdf")
FOLDER = "slides"  # manim-slides' default folder: `manim-slides present NN-section` works from OUT
QUALITY = {"crf": "18", "preset": "fast"}  # libx264: cuts are re-encoded to be frame-exact, near-lossless
SOURCE_STAMP = ".source"  # beside the clips: the hashes of the video and sound they were cut from, steps, own hashes
QT_BINDINGS = ("PySide6", "PyQt6")  # what `manim-slides present` can run on
PLAYER_HINT = ("`manim-slides present` needs a Qt binding, not installed here: pip install -e '.[present]' "
               "(PySide6; on Debian also apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1), "
               "or present the HTML deck in a browser")


def build(request: RenderRequest, decks: tuple[str, ...], one_file: bool, joined: bool, console: Console) -> int:
    """Render what is stale, then write each section's slides and, unless ``joined``, its decks, then with
    ``joined`` one deck of all those sections; returns the exit status.

    Everything is made from the sections' files as one render left them (see ``render_current``). A section's
    clips, JSON and decks are made in a scratch folder laid out like OUT, then renamed into place together under
    the folder's lock; the joined deck likewise, after them."""
    folder = OutputFolder(request.out_dir)
    folder.subfolder(f"{FOLDER}/files")  # refused before any work if a link or a file stands in the way
    strings = request.config.locale()
    with folder.scratch() as sources:
        status, entries = render_current(request, console, sources)
        committed, presentation = [], None
        for section_id, entry in entries.items():
            section = BY_ID[section_id]
            with folder.scratch() as scratch:
                staged, presentation = write_presentation(folder, sources, scratch, entry, strings, request.force)
                slides = _section_slides(section, entry, presentation, strings)
                if not joined:
                    deck = _deck(page_title(section, strings), [slides], presentation, False,
                                 request.config.lecture.lang)
                    staged |= write_decks(deck, decks, scratch, stem_of(entry), one_file, console,
                                          request.config.lecture.theme)
                with folder.lock():
                    folder.commit(staged, scratch)
            committed.append(slides)
        if joined and committed:
            with folder.scratch() as scratch:
                staged = write_decks(_deck(strings["lecture"]["title"], committed, presentation, True,
                                           request.config.lecture.lang), decks, scratch,
                                     joined_stem(tuple(entries)), one_file, console, request.config.lecture.theme)
                with folder.lock():
                    folder.commit(staged, scratch)
    if committed and player_missing():
        console.print(f"note: {player_missing()}", soft_wrap=True, markup=False)
    return status


def joined_stem(sections: tuple[str, ...]) -> str:
    """The joined deck's name: ``lecture``, or with fewer sections than the lesson's, which it holds."""
    if set(sections) == set(SECTION_IDS):
        return "lecture"
    return "-".join(("lecture", *sections))


def write_decks(deck: Deck, formats: tuple[str, ...], scratch: Path, stem: str, one_file: bool,
                console: Console, theme: str) -> dict[str, Path]:
    """``deck`` in each of ``formats`` as ``slides/STEM.FORMAT`` in ``scratch`` (the HTML in reveal.js' ``theme``);
    returns the staged files by name relative to OUT (the decks, and the HTML's assets folder)."""
    # imported here: fpdf and python-pptx take a quarter of a second to import, and every command of the CLI (and
    # each render worker, which imports it again) would pay for them
    from lecture.publish.pdf_deck import write_pdf
    from lecture.publish.pptx_deck import write_pptx

    (scratch / FOLDER).mkdir(exist_ok=True)
    staged = {}
    for deck_format in formats:
        target = scratch / FOLDER / f"{stem}.{deck_format}"
        written = {"html": partial(write_html, one_file=one_file, theme=theme), "pptx": write_pptx,
                   "pdf": write_pdf}[deck_format](deck, target)
        staged |= {f"{FOLDER}/{path.name}": path for path in written}
        console.print(f"{FOLDER}/{target.name}: {deck.slide_count} slides", soft_wrap=True)
    return staged


def _deck(title: str, sections: list[SectionSlides], presentation, joined: bool, lang: str) -> Deck:
    width, height = presentation.resolution
    return Deck(title=title, sections=tuple(sections), width=width, height=height, joined=joined, lang=lang,
                background=presentation.background_color.as_hex(format="long"))


def _section_slides(section: Section, entry: dict, presentation, strings: dict) -> SectionSlides:
    texts = strings[section.id]
    steps = tuple(StepSlide(clip=slide.file, title=step.title, caption=step.caption, notes=slide.notes)
                  for slide, step in zip(presentation.slides, steps_of(entry)))
    questions = tuple((question["question"], question["answer"]) for question in entry.get("questions", []))
    return SectionSlides(stem=stem_of(entry), summary=texts["summary"], steps=steps, questions=questions,
                         heading=strings["slides"]["storyboard_heading"].format(number=section.number,
                                                                                title=texts["title"]))


def render_current(request: RenderRequest, console: Console, sources: Path) -> tuple[int, dict[str, dict]]:
    """Render what is stale; returns the exit status and the manifest entry of every section now rendered
    exactly as ``request`` asks, its files linked into ``sources`` as that entry hashes them (see
    ``lecture.publish.snapshot``). A section whose render failed is left out (the render said why), and so is
    one whose files changed since its entry was written: one line says so, and the status is 1."""
    status = render(request, console)
    folder, clips, warn = OutputFolder(request.out_dir), chosen_steps(request), plain_line(console)
    with folder.lock():
        entries = entries_of(read_manifest(folder, warn=warn), request)
        found = {section: entries.get(entry_key(section, clips)) for section in request.sections}
        asked = {section: entry for section, entry in found.items()
                 if entry and _rendered_as_asked(entry, request, section)}
        changed = {section: snapshot(folder.path, sources, entry, entry["files"]) for section, entry in asked.items()}
    for section, names in changed.items():
        if names:
            warn(f"{changed_line(section, folder.path, names)}; left out: run the command again, it renders "
                 f"{section} anew first")
    return (1 if any(changed.values()) else status), {
        section: entry for section, entry in asked.items() if not changed[section]}


def stem_of(entry: dict) -> str:
    """The file stem of a render: ``01-matrix``, or ``01-matrix-steps-04-06`` for a ``--steps`` clip."""
    return Path(entry["files"][0]).stem


def _rendered_as_asked(entry: dict, request: RenderRequest, section: str) -> bool:
    """Whether ``entry`` holds ``section`` with the request's config, quality, format and sound, files present.

    Not the runner's fingerprint: that also hashes the source code, which may change while a render runs.
    """
    return (entry["config"] == request.config.effective()[section] and entry["quality"] == request.quality.label
            and entry["format"] == request.format and entry["audio"] == (not request.config.audio.mute)
            and all((request.out_dir / name).exists() for name in entry["files"]))


def write_presentation(folder: OutputFolder, sources: Path, scratch: Path, entry: dict, strings: dict,
                       force: bool = False):
    """The section's clips (see ``section_clips``) with their speaker notes from ``strings`` (the locale), as
    manim-slides' JSON, staged in ``scratch`` laid out like OUT; returns the staged files by name and the
    presentation."""
    from manim_slides.config import PresentationConfig, SlideConfig  # imported here: slow, only slides need it

    staged, clips = section_clips(folder, sources, scratch, entry, force)
    # rev_file is the clip itself, as manim-slides' own --skip-reversing writes it: reversing every
    # clip would double the encoding time, and a reversed soundtrack is noise.
    steps = steps_of(entry)
    slides = [SlideConfig(file=clip, rev_file=clip, notes=speaker_notes(step, step is steps[-1], entry, strings))
              for clip, step in zip(clips, steps)]
    width, height, background = video_format(sources / entry["files"][0])
    presentation = PresentationConfig(slides=slides, resolution=(width, height), background_color=background)
    name = f"{FOLDER}/{stem_of(entry)}.json"
    (scratch / FOLDER).mkdir(exist_ok=True)
    _save_relative(presentation, scratch / name)
    return {**staged, name: scratch / name}, presentation


def section_clips(folder: OutputFolder, sources: Path, scratch: Path, entry: dict,
                  force: bool = False) -> tuple[dict[str, Path], list[Path]]:
    """The clips of ``OUT/slides/files/NN-section`` when their stamp names this entry's files and steps and they
    still hash as it records (nothing staged), unless ``force``; else those ``cut_section`` stages. Returns the
    staged folder by name and the clips to read, linked into ``sources/slides/files/NN-section``."""
    name, names = clips_folder(entry), clip_names(entry)
    kept = sources / name
    if not force:
        with folder.lock():
            if _clips_kept(folder.path / name, kept, names, _cut_from(entry)):
                return {}, [kept / clip for clip in names]
    staged, clips = cut_section(sources, scratch, entry)
    for clip in clips:
        link_or_copy(clip, kept / clip.name)
    return staged, [kept / clip.name for clip in clips]


def cut_section(sources: Path, scratch: Path, entry: dict) -> tuple[dict[str, Path], list[Path]]:
    """One clip per step with its sound, cut from the section's files in ``sources``, staged in ``scratch`` as
    ``slides/files/NN-section`` with a stamp: the hashes of the video and sound they were cut from, the steps,
    and the clips' own hashes. Returns the staged folder by name and the clips."""
    name, names, cut_from = clips_folder(entry), clip_names(entry), _cut_from(entry)
    staging = scratch / name
    staging.mkdir(parents=True)
    soundtrack = read_wav(sources / _sound(entry)) if entry["audio"] else None
    cut(sources / entry["files"][0], soundtrack, [start for start, _ in step_spans(steps_of(entry), entry["duration"])],
        [staging / clip for clip in names])
    stamp = {**cut_from, "sha256": {clip: file_hash(staging / clip) for clip in names}}
    (staging / SOURCE_STAMP).write_text(json.dumps(stamp, sort_keys=True), encoding="utf-8")
    return {name: staging}, [staging / clip for clip in names]


def clips_folder(entry: dict) -> str:
    """Where a section's clips go, relative to OUT: ``slides/files/NN-section``."""
    return f"{FOLDER}/files/{stem_of(entry)}"


def clip_names(entry: dict) -> list[str]:
    """One clip's name per step: ``01-formula.mp4``, ..."""
    return [f"{number:02d}-{step.key}{CLIPS.suffix}" for number, step in enumerate(steps_of(entry), 1)]


def _sound(entry: dict) -> str:
    return f"{stem_of(entry)}.wav"


def _cut_from(entry: dict) -> dict:
    """What a section's clips are cut from: the hashes of its video (and sound), and its steps."""
    files = [entry["files"][0], *([_sound(entry)] if entry["audio"] else [])]
    return {"cut_from": {file: entry["sha256"][file] for file in files}, "steps": entry["steps"]}


def _clips_kept(current: Path, kept: Path, names: list[str], source: dict) -> bool:
    """Whether the clips in ``current`` were cut from ``source`` (their stamp says so) and still hash as their
    stamp records; if so they are linked into ``kept``. Call under the folder's lock."""
    stamp_file = current / SOURCE_STAMP
    if not stamp_file.is_file() or stamp_file.is_symlink():  # a link or a pipe is never read
        return False
    try:
        stamp = json.loads(stamp_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(stamp, dict) or not isinstance(stamp.get("sha256"), dict):
        return False
    return ({key: stamp.get(key) for key in source} == source
            and not snapshot(current, kept, {"sha256": stamp["sha256"]}, names))


def cut(video: Path, soundtrack: np.ndarray | None, starts: list[float], targets: list[Path]) -> None:
    """Re-encode ``video`` into one file per clip, clip k starting at ``starts[k]`` seconds (the first at 0),
    each with the matching samples of ``soundtrack`` as its audio track.

    Clips are cut at whole frames, and the audio at the same instants, so clip k holds frames
    [first_k, first_k+1) and samples [first_k / fps, first_k+1 / fps) × rate: sound and picture stay in sync.
    """
    with av.open(str(video)) as source:
        stream = source.streams.video[0]
        fps = stream.average_rate
        first_frames = _first_frames(starts, fps)
        frames = enumerate(source.decode(stream))
        for clip, group in groupby(frames, key=lambda item: bisect_right(first_frames, item[0]) - 1):
            silent = targets[clip].with_name(f"silent-{targets[clip].name}")
            count = _encode((frame for _, frame in group), silent, fps, stream.width, stream.height)
            if soundtrack is None:
                os.replace(silent, targets[clip])
                continue
            begin, end = first_frames[clip], first_frames[clip] + count
            add_audio(silent, soundtrack[round(begin / fps * SAMPLE_RATE):round(end / fps * SAMPLE_RATE)],
                      SAMPLE_RATE, targets[clip])
            silent.unlink()


def _first_frames(starts: list[float], fps: Fraction) -> list[int]:
    """The frame each clip starts at: rounded to the nearest frame, at least one frame per clip."""
    first = [0]
    for start in starts[1:]:
        first.append(max(first[-1] + 1, round(start * fps)))
    return first


def _encode(frames, target: Path, fps: Fraction, width: int, height: int) -> int:
    """Encode ``frames`` as H.264 into ``target``; returns how many there were."""
    count = 0
    with av.open(str(target), "w") as output:
        stream = output.add_stream(CLIPS.video_codec, rate=fps, options=QUALITY)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        for count, frame in enumerate(frames, 1):
            frame.pts, frame.time_base = count - 1, 1 / fps
            output.mux(stream.encode(frame))
        output.mux(stream.encode(None))
    return count


def video_format(video: Path) -> tuple[int, int, str]:
    """Width, height and background colour (the first frame's corner) of ``video``, for the deck around it."""
    with av.open(str(video)) as source:
        frame = next(source.decode(video=0))
        red, green, blue = frame.to_ndarray(format="rgb24")[0, 0]
        return frame.width, frame.height, f"#{red:02x}{green:02x}{blue:02x}"


def speaker_notes(step: StepRecord, last: bool, entry: dict, strings: dict) -> str:
    """What the step shows (its title and caption), what the narration says, the step's question for the class
    with its answer, and after the section's ``last`` step its closing question with its answer."""
    parts = [step.title, step.caption]
    if step.narration:
        parts.append(strings["slides"]["narration"].format(text=step.narration["text"]))
    for question in entry.get("questions", []):
        if question["key"] == step.key or (last and question["key"] == "closing"):
            form = "closing" if question["key"] == "closing" else "question"
            parts += [strings["slides"][form].format(question=question["question"]),
                      strings["slides"]["answer"].format(answer=question["answer"])]
    return "\n\n".join(parts)


def page_title(section: Section, strings: dict) -> str:
    return strings["slides"]["page_title"].format(section=strings[section.id]["title"],
                                                  formula=strings["slides"]["formula"])


def _save_relative(presentation, target: Path) -> None:
    """Write manim-slides' JSON with clip paths relative to OUT (``slides/files/NN-section/NN-step.mp4``),
    as manim-slides itself reads them: the output directory can be moved or copied to the lecture hall."""
    data = presentation.model_dump(mode="json")
    for slide in data["slides"]:
        for key in ("file", "rev_file"):
            clip = Path(slide[key])
            slide[key] = f"{FOLDER}/files/{clip.parent.name}/{clip.name}"
    target.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")


def player_missing() -> str | None:
    """What to install for ``manim-slides present``, or None when a Qt binding it runs on is there."""
    if any(importlib.util.find_spec(binding) for binding in QT_BINDINGS):
        return None
    return PLAYER_HINT
