"""One section rendered in one worker process: its own manim config, media, Tex and text caches."""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import re
import resource
import shutil
import signal
import threading
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from lecture.render.captions import carried, section_tracks, spoken_section, write_captions
from lecture.render.media import add_audio, duration_of, write_video
from lecture.render.narration import Narration
from lecture.render.output_folder import private_lock
from lesson.config import LectureConfig
from lesson.formats import BY_NAME, GIF, PNG
from lesson.records import CardRecord, StepRecord
from lesson.sections import BY_ID
from lesson.steps import StepRange, clip_stem
from speech.speaker import hang_up
from sonify.mappings import write_soundtrack
from sonify.synth import SAMPLE_RATE

STEPS_ONLY = "steps"  # not a file format: run the scene without drawing, for its step records (the script)
PR_SET_PDEATHSIG = 1  # prctl option: the signal a process gets when its parent ends (linux/prctl.h)
PLAIN_PATH = re.compile(r"[A-Za-z0-9/._-]+")  # what LaTeX and manim's folder settings take as it is
# Python's cyclic collector at its default thresholds (700, 10, 10) went over the live objects again and again while
# a scene made and dropped its mobjects: 13 % of a scene run with the collector off. Collecting the young a thirtieth
# as often and the old a fifth: scene runs 5 % faster (matrix, pipeline, capital, scaling: 8.7 s -> 8.3 s), a tiny
# pipeline render's scene 4 % (9.65 s -> 9.23 s), the worker's peak memory the same (314 MB).
GC_THRESHOLDS = (20_000, 20, 50)
LONG_PATH = 1024  # characters: longer folders are linked too, so that manim's files inside stay short
TEX_FOLDER, TEXT_FOLDER = "Tex", "texts"  # in a section's cache: manim's typeset LaTeX and text
TYPESET_NAME = re.compile(r"[0-9a-f]{16}")  # manim's name for a typeset file: the start of its content's hash
TYPESET_SUFFIXES = (".svg", ".tex", ".dvi", ".xdv", ".pdf", ".log", ".aux")  # what LaTeX and dvisvgm make of it


@dataclass(frozen=True)
class Quality:
    """Output size and frame rate; ``-q l|m|h|k`` picks one, ``--resolution``/``--fps`` adjust it."""

    width: int
    height: int
    fps: int

    @property
    def label(self) -> str:
        return f"{self.width}x{self.height}@{self.fps}"


QUALITIES = {"l": Quality(854, 480, 15), "m": Quality(1280, 720, 30),
             "h": Quality(1920, 1080, 60), "k": Quality(3840, 2160, 60)}


@dataclass(frozen=True)
class RenderJob:
    """Everything a worker needs to render one section: plain, picklable data."""

    section: str
    config: LectureConfig
    quality: Quality
    format: str
    work_dir: Path  # a scratch folder of the parent's: the worker writes only here and in its cache
    cache_dir: Path
    verbose: bool = False
    narration: Narration | None = None  # who speaks the steps; None: nobody
    steps: StepRange | None = None  # a clip of these steps (``--steps``); None: the whole section

    @property
    def stem(self) -> str:
        """Its files' stem: ``01-matrix``, or ``01-matrix-steps-04-06`` for a clip."""
        return clip_stem(BY_ID[self.section].stem, self.steps)


@dataclass
class JobResult:
    section: str
    files: dict[str, Path] = field(default_factory=dict)  # output name -> the finished file in work_dir
    duration: float = 0.0
    steps: list[StepRecord] = field(default_factory=list)
    cards: list[CardRecord] = field(default_factory=list)  # question and closing cards
    questions: list[dict] = field(default_factory=list)  # every question with its answer, shown or not
    cues: list[dict] = field(default_factory=list)
    timings: dict = field(default_factory=dict)  # scene and sound seconds, mobjects on screen at the end, memory
    error: str | None = None


def worker_main(job: RenderJob, connection, parent: int) -> None:
    """Entry point of a worker process: dies with its parent, reports progress and its result on ``connection``."""
    worker_setup(parent)
    result = run_job(job, lambda section, share: connection.send(("progress", share)))
    if hang_up():  # the speech process this section started ends, and its peak joins the worker's record
        result.timings["speech_peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    connection.send(result)
    connection.close()


def worker_setup(parent: int) -> None:
    """What every render worker process does first: die with its parent, leave Ctrl-C to it (it stops the
    workers), and make no semaphore that a killed worker would leak."""
    from tqdm import tqdm

    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.set_threshold(*GC_THRESHOLDS)
    # manim's progress bars would make tqdm's default lock, a named semaphore registered with the parent's
    # resource tracker: a killed worker never releases it and the tracker warns of a leak at exit.
    tqdm.set_lock(threading.RLock())


def die_with_parent(parent: int) -> None:
    """Ask Linux to kill this process when its parent ends, whatever signal ends it (SIGKILL too)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the parent's own clean-up still stops its workers
        pass
    if os.getppid() != parent:  # the parent ended before the request took effect
        os._exit(1)


def run_job(job: RenderJob, progress=None) -> JobResult:
    """Render ``job`` into ``job.work_dir``; errors come back in the result."""
    try:
        return _render(job, progress)
    except Exception as error:  # a failing section names its cause; the others still finish
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return JobResult(job.section, error=f"{type(error).__name__}: {message}")


def _render(job: RenderJob, progress) -> JobResult:
    cache = job.cache_dir / job.section
    cache.mkdir(parents=True, exist_ok=True)
    work = job.work_dir
    # One process at a time per section cache: manim's Tex and text caches are not process-safe.
    with private_lock(cache / "section.lock"):
        drop_bad_cache_entries(cache)
        started = time.perf_counter()
        with manim_folders(cache, work) as folders:
            scene, produced = _run_scene(job, *folders, progress)
            produced = Path(os.path.realpath(produced)) if produced else None  # not through a link of ours
        result = JobResult(job.section, steps=scene.steps, cards=scene.cards, questions=scene.class_questions(),
                           cues=[cue_entry(cue) for cue in scene.cues],
                           timings={"scene_seconds": round(time.perf_counter() - started, 3),
                                    "mobjects": len(scene.get_mobject_family_members())})
        if job.format == STEPS_ONLY:
            result.duration = scene.seconds
        elif stills(job):
            result.files = {job.stem: _staged_stills(work)}
        elif BY_NAME[job.format].picture_only:
            result.files, result.duration = {f"{job.stem}.{job.format}": produced}, scene.seconds
        else:
            started = time.perf_counter()
            result.duration = duration_of(produced)
            result.files = _finish_video(job, job.stem, produced, (result.steps, result.duration, result.cards),
                                         scene, work)
            result.timings["sound_seconds"] = round(time.perf_counter() - started, 3)
        # Each section has a worker process of its own (see runner), so the process's peak is the section's.
        result.timings["peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        return result


@contextmanager
def manim_folders(cache: Path, work: Path):
    """Where manim works for a job: (``cache``, ``work``, a folder for its partial movies) as short absolute
    paths of plain characters (``PLAIN_PATH``). Each is itself when it already is one; else ``cache`` and
    ``work`` are reached through links in a temporary folder of ours, where the partial movies are made
    too, all removed afterwards.

    LaTeX reads ``%``, ``$``, ``#``, ``~`` and spaces in a file's path as markup, manim formats its folder
    settings (``{`` breaks them), and ffmpeg's list of partial movies quotes paths (``'`` and ``\\`` break it),
    so a user's ``-o`` reaches none of them as it is."""
    absolute = [Path(os.path.abspath(folder)) for folder in (cache, work)]
    if all(PLAIN_PATH.fullmatch(str(folder)) and len(str(folder)) <= LONG_PATH for folder in absolute):
        yield (*absolute, absolute[0] / "partial_movie_files")
        return
    base = tempfile.gettempdir() if PLAIN_PATH.fullmatch(tempfile.gettempdir()) else "/tmp"
    links = Path(tempfile.mkdtemp(prefix="atencion-", dir=base))
    try:
        for name, folder in zip(("cache", "work"), absolute):
            (links / name).symlink_to(folder, target_is_directory=True)
        yield links / "cache", links / "work", links / "partial"
    finally:
        shutil.rmtree(links, ignore_errors=True)  # removes the links, never what they point to


def drop_bad_cache_entries(cache: Path) -> list[Path]:
    """Remove cached SVGs (manim's typeset text and LaTeX) that are empty or not SVG, so they are made
    again instead of failing every render (a killed render or a full disk can leave one half-written).

    Only names manim writes are touched: in its Tex and text folders, a 16-hex-digit hash with one of
    ``TYPESET_SUFFIXES`` (the LaTeX files beside a bad SVG go with it); any other file there stays."""
    dropped = []
    for folder in (cache / TEX_FOLDER, cache / TEXT_FOLDER):
        for svg in folder.glob("*.svg"):
            if not TYPESET_NAME.fullmatch(svg.stem) or _is_svg(svg):
                continue
            for suffix in TYPESET_SUFFIXES:
                svg.with_suffix(suffix).unlink(missing_ok=True)
            dropped.append(svg)
    return dropped


def _is_svg(path: Path) -> bool:
    try:
        return path.stat().st_size > 0 and ElementTree.parse(path).getroot().tag.endswith("svg")
    except (ElementTree.ParseError, OSError):
        return False


def cue_entry(cue) -> dict:
    """A cue as the manifest lists it: time, kind, its values, ``replay`` when it is a step's key sound heard
    again after the voice, ``listen`` when the voice stopped for it (a listening moment)."""
    return {"time": round(cue.time, 4), "kind": cue.kind, **cue.values, **({"replay": True} if cue.replay else {}),
            **({"listen": True} if cue.listen else {})}


def _run_scene(job: RenderJob, cache: Path, work: Path, partial: Path, progress):
    """Run the section's scene under its own manim config; returns it and the video it wrote."""
    from manim import tempconfig  # imported here: the parent process never needs manim

    from scenes.lesson_scene import SceneJob

    section = BY_ID[job.section]
    with tempconfig(_manim_config(job, cache, work, partial)):
        _quiet_manim(job.verbose)
        scene_job = SceneJob(config=job.config, locale=job.config.locale(),  # the lecturer's texts in it
                             stills_dir=work if stills(job) else None, narration=job.narration, steps=job.steps,
                             progress=(lambda share: progress(job.section, share)) if progress else None)
        scene = section.scene()(scene_job, skip_animations=not drawn(job))
        scene.render()
        return scene, _written_file(scene.renderer.file_writer, job) if drawn(job) else None


def _written_file(file_writer, job: RenderJob) -> Path:
    """The file manim made: for a GIF it converts the movie and keeps the GIF's own path apart."""
    return Path(file_writer.gif_file_path if job.format == GIF.name else file_writer.movie_file_path)


def stills(job: RenderJob) -> bool:
    """Whether the job keeps each step's last frame as a still (and draws no animation)."""
    return job.format != STEPS_ONLY and BY_NAME[job.format].is_still


def drawn(job: RenderJob) -> bool:
    """Whether the job's scene draws frames: not for stills (only each step's end) nor for step records."""
    return job.format != STEPS_ONLY and not stills(job)


def _finish_video(job: RenderJob, stem: str, produced: Path, timeline: tuple[list[StepRecord], float, list[CardRecord]], scene,
                  work: Path) -> dict[str, Path]:
    """Write the finished video: the scene's picture, a chapter per step, the spoken sentences as a subtitle track
    and beside it as SRT and WebVTT (a silent section's captions are in its picture, so it has neither: a player
    that loads subtitles beside a video, as VLC does, would show each caption twice; ``captions.carried``), and
    (unless muted) the soundtrack synthesized from the scene's cues with its narration's voices, kept beside it as
    a WAV too. ``timeline`` is (step records, duration of ``produced``, card records). Returns the finished files
    by name, the video first."""
    tracks = section_tracks(*timeline, lang=job.config.lecture.lang)
    # a clean picture (lecture.clean) burns no caption in: its video carries them as a spoken one does
    subtitled = spoken_section(timeline[0]) or job.config.lecture.clean
    inside = carried(tracks, subtitled)
    video, wav = work / f"finished.{job.format}", work / f"{stem}.wav"
    if job.config.audio.mute:
        write_video([produced], video, tracks=inside)
        files = {f"{stem}.{job.format}": video}
    else:
        write_soundtrack(scene.cues, timeline[1], job.config.audio.target_lufs(), wav, scene.voices)
        add_audio(produced, wav, SAMPLE_RATE, video, inside)
        files = {f"{stem}.{job.format}": video, wav.name: wav}
    return files | (write_captions(tracks, work, stem) if subtitled else {})


def _manim_config(job: RenderJob, cache: Path, work: Path, partial: Path) -> dict:
    return {
        "media_dir": str(cache),
        "tex_dir": str(cache / TEX_FOLDER),
        "text_dir": str(cache / TEXT_FOLDER),
        "video_dir": str(work / "videos"),
        "images_dir": str(work / "images"),
        "partial_movie_dir": str(partial / job.quality.label / job.format),
        "pixel_width": job.quality.width,
        "pixel_height": job.quality.height,
        "frame_rate": job.quality.fps,
        "format": job.format if drawn(job) else None,
        "write_to_movie": drawn(job),
        "save_last_frame": False,
        "output_file": job.stem,
        "progress_bar": "display" if job.verbose else "none",
        "verbosity": "INFO" if job.verbose else "ERROR",
        # Encode plays' partial movies while the next play is drawn (the matrix section at 720p30 went from 51 s
        # to 37 s with four). Each encoder in flight keeps its own x264 buffers and a queue of frames (33 MB each
        # at 2160p): two keep both cores busy; 4 x 8 frames took 0.5 GB at 720p and 2.1 GB at 2160p on a bare scene.
        "max_inflight_encoders": 2,
        "encoder_queue_size": 4 if job.quality.width * job.quality.height <= 1280 * 720 else 2,
        "disable_caching": True,  # hashing every play call costs more than rendering it; we skip whole sections instead
    }


def _staged_stills(work: Path) -> Path:
    staging = work / "stills"
    staging.mkdir()
    for png in sorted(work.glob(f"*{PNG.suffix}")):
        shutil.move(png, staging / png.name)
    return staging


def _quiet_manim(verbose: bool) -> None:
    logging.getLogger("manim").setLevel(logging.INFO if verbose else logging.ERROR)
