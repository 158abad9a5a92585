"""One section rendered in one worker process: its own manim config, media, Tex and text caches."""

from __future__ import annotations

import logging
import resource
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from lecture.config import LectureConfig
from lecture.locale import load_locale
from lecture.media import (add_audio, duration_of, exclusive_lock, replace_atomically, replace_directory,
                           work_prefix)
from lecture.sections import BY_ID
from sonify.mappings import soundtrack
from sonify.mix import write_wav
from sonify.synth import SAMPLE_RATE

FORMATS = ("mp4", "webm", "gif", "png")


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
    out_dir: Path
    cache_dir: Path
    verbose: bool = False


@dataclass
class JobResult:
    section: str
    files: list[str] = field(default_factory=list)
    duration: float = 0.0
    steps: list[dict] = field(default_factory=list)
    cues: list[dict] = field(default_factory=list)
    timings: dict = field(default_factory=dict)  # scene and sound seconds, mobjects on screen at the end, memory
    error: str | None = None


def run_job(job: RenderJob, progress=None) -> JobResult:
    """Render ``job`` and move its files into ``job.out_dir``; errors come back in the result."""
    try:
        return _render(job, progress)
    except Exception as error:  # a failing section names its cause; the others still finish
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return JobResult(job.section, error=f"{type(error).__name__}: {message}")


def _render(job: RenderJob, progress) -> JobResult:
    section = BY_ID[job.section]
    cache = job.cache_dir / section.id
    cache.mkdir(parents=True, exist_ok=True)
    # One process at a time per section cache: manim's Tex and text caches are not process-safe.
    with exclusive_lock(cache / ".lock"), tempfile.TemporaryDirectory(dir=job.out_dir,
                                                                      prefix=work_prefix(section.stem)) as work:
        work = Path(work)
        started = time.perf_counter()
        scene, produced = _run_scene(job, cache, work, progress)
        result = JobResult(job.section, steps=[_step_record(step) for step in scene.steps],
                           cues=[{"time": round(cue.time, 4), "kind": cue.kind, **cue.values} for cue in scene.cues],
                           timings={"scene_seconds": round(time.perf_counter() - started, 3),
                                    "mobjects": len(scene.get_mobject_family_members())})
        if job.format == "png":
            target = job.out_dir / section.stem
            replace_directory(_staged_stills(work), target)
            result.files = [target.name]
        elif job.format == "gif":
            target = job.out_dir / f"{section.stem}.gif"
            replace_atomically(produced, target)
            result.files, result.duration = [target.name], scene.renderer.time
        else:
            started = time.perf_counter()
            result.files = _finish_video(job, section.stem, produced, scene.cues, work)
            result.duration = duration_of(produced)
            result.timings["sound_seconds"] = round(time.perf_counter() - started, 3)
        # Each section has a worker process of its own (see runner), so the process's peak is the section's.
        result.timings["peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        return result


def _run_scene(job: RenderJob, cache: Path, work: Path, progress):
    """Run the section's scene under its own manim config; returns it and the video it wrote."""
    from manim import tempconfig  # imported here: the parent process never needs manim

    from scenes.lesson_scene import SceneJob

    section = BY_ID[job.section]
    stills = job.format == "png"
    with tempconfig(_manim_config(job, cache, work)):
        _quiet_manim(job.verbose)
        scene_job = SceneJob(config=job.config, locale=load_locale(), stills_dir=work if stills else None,
                             progress=(lambda share: progress(job.section, share)) if progress else None)
        scene = section.scene()(scene_job, skip_animations=stills)
        scene.render()
        return scene, None if stills else Path(scene.renderer.file_writer.movie_file_path)


def _step_record(step) -> dict:
    return {"key": step.key, "title": step.title, "caption": step.caption,
            "start": round(step.start, 4), "end": round(step.end, 4)}


def _finish_video(job: RenderJob, stem: str, produced: Path, cues, work: Path) -> list[str]:
    """Synthesize the soundtrack from the scene's cues, mux it in, and move the files into place."""
    target = job.out_dir / f"{stem}.{job.format}"
    if job.config.audio.mute:
        replace_atomically(produced, target)
        return [target.name]
    samples = soundtrack(cues, duration_of(produced), job.config.audio.volume)
    wav, muxed = work / f"{stem}.wav", work / f"with-audio.{job.format}"
    write_wav(samples, wav)
    add_audio(produced, samples, SAMPLE_RATE, muxed)
    replace_atomically(muxed, target)
    replace_atomically(wav, job.out_dir / wav.name)
    return [target.name, wav.name]


def _manim_config(job: RenderJob, cache: Path, work: Path) -> dict:
    return {
        "media_dir": str(cache),
        "tex_dir": str(cache / "Tex"),
        "text_dir": str(cache / "texts"),
        "video_dir": str(work / "videos"),
        "images_dir": str(work / "images"),
        "partial_movie_dir": str(cache / "partial_movie_files" / job.quality.label / job.format),
        "pixel_width": job.quality.width,
        "pixel_height": job.quality.height,
        "frame_rate": job.quality.fps,
        "format": None if job.format == "png" else job.format,
        "write_to_movie": job.format != "png",
        "save_last_frame": False,
        "output_file": BY_ID[job.section].stem,
        "progress_bar": "display" if job.verbose else "none",
        "verbosity": "INFO" if job.verbose else "ERROR",
        # Encode up to four plays' partial movies while the next play is drawn (manim's suggested value):
        # the matrix section at 720p30 went from 51 s to 37 s.
        "max_inflight_encoders": 4,
        "disable_caching": True,  # hashing every play call costs more than rendering it; we skip whole sections instead
    }


def _staged_stills(work: Path) -> Path:
    staging = work / "stills"
    staging.mkdir()
    for png in sorted(work.glob("*.png")):
        shutil.move(png, staging / png.name)
    return staging


def _quiet_manim(verbose: bool) -> None:
    logging.getLogger("manim").setLevel(logging.INFO if verbose else logging.ERROR)
