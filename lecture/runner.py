"""Turn a validated config into finished files: up-to-date checks, worker processes, progress, manifest."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import queue
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from lecture.captions import lecture_subtitles, section_subtitles, write_captions
from lecture.config import LectureConfig
from lecture.jobs import JobResult, Quality, RenderJob, run_job
from lecture.media import duration_of, exclusive_lock, join_videos, remove_stale_temporaries, temporary_path
from lecture.sections import BY_ID, SECTIONS

ROOT = Path(__file__).resolve().parent.parent
CODE_DIRS = ("attn_math", "scenes", "sonify", "lecture", "assets")
MANIFEST = "manifest.json"
LECTURE_FORMATS = ("mp4", "webm")


@dataclass(frozen=True)
class RenderRequest:
    """What the CLI asks for: which sections, how, and where."""

    sections: tuple[str, ...]
    config: LectureConfig
    quality: Quality
    format: str
    out_dir: Path
    jobs: int
    force: bool = False
    verbose: bool = False


def code_digest() -> str:
    """Hash of every source and asset file: a code change makes every output stale."""
    digest = hashlib.sha256()
    for directory in CODE_DIRS:
        for path in sorted((ROOT / directory).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def fingerprint(request: RenderRequest, section: str, code: str) -> str:
    """Changes whenever the section's config, the audio settings, quality, format or code change."""
    effective = request.config.effective()
    payload = {"section": effective[section], "audio": effective["audio"], "quality": request.quality.label,
               "format": request.format, "code": code}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def read_manifest(out_dir: Path) -> dict:
    try:
        return json.loads((out_dir / MANIFEST).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {"sections": {}}


def write_manifest(out_dir: Path, manifest: dict) -> None:
    target = out_dir / MANIFEST
    staging = temporary_path(target)
    staging.write_text(json.dumps(manifest, indent=2, ensure_ascii=False))
    os.replace(staging, target)


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    if path.is_dir():
        for child in sorted(path.iterdir()):
            digest.update(child.name.encode())
            digest.update(child.read_bytes())
    else:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def is_up_to_date(entry: dict | None, out_dir: Path, wanted: str) -> bool:
    if not entry or entry.get("fingerprint") != wanted:
        return False
    return all((out_dir / name).exists() and file_hash(out_dir / name) == entry["sha256"].get(name)
               for name in entry["files"])


def render(request: RenderRequest, console: Console | None = None) -> int:
    """Render what is stale, keep what is up to date, join the lecture; returns the exit status."""
    console = console or Console(stderr=True)
    out_dir = request.out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out_dir)
    manifest = read_manifest(out_dir)
    code = code_digest()
    wanted = {section: fingerprint(request, section, code) for section in request.sections}
    stale = [section for section in request.sections
             if request.force or not is_up_to_date(manifest["sections"].get(section), out_dir, wanted[section])]
    for section in request.sections:
        if section not in stale:
            console.print(f"{BY_ID[section].stem}: up to date, skipped (--force re-renders)")
    results = _run_jobs(request, stale, console)
    with exclusive_lock(out_dir / ".manifest.lock"):  # another render may have finished meanwhile
        return _record(request, results, wanted, console)


def _record(request: RenderRequest, results: list[JobResult], wanted: dict, console: Console) -> int:
    """Add the finished sections to the manifest (re-read now), join the lecture, write it back."""
    out_dir = request.out_dir
    manifest = read_manifest(out_dir)
    failures = 0
    for result in results:
        if result.error:
            failures += 1
            console.print(f"[red]{BY_ID[result.section].stem}: failed: {result.error}[/red]")
            continue
        if request.format in LECTURE_FORMATS:  # captions beside the video, tracked with it in the manifest
            result.files += write_captions(section_subtitles(result.steps, result.duration),
                                           out_dir / BY_ID[result.section].stem)
        manifest["sections"][result.section] = {
            "files": result.files, "fingerprint": wanted[result.section], "duration": round(result.duration, 3),
            "sha256": {name: file_hash(out_dir / name) for name in result.files}, "steps": result.steps,
            "cues": result.cues, "timings": result.timings,
            "quality": request.quality.label, "format": request.format, "audio": not request.config.audio.mute,
            "config": request.config.effective()[result.section]}
    manifest["config"] = request.config.effective()
    if request.format in LECTURE_FORMATS:
        _join_lecture(request, manifest, console)
    write_manifest(out_dir, manifest)
    return 1 if failures else 0


def _run_jobs(request: RenderRequest, sections: list[str], console: Console) -> list[JobResult]:
    if not sections:
        return []
    jobs = [RenderJob(section, request.config, request.quality, request.format, request.out_dir,
                      request.out_dir / ".cache", request.verbose)
            for section in longest_first(sections, read_manifest(request.out_dir))]
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, Progress(
            TextColumn("{task.description:<14}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
            TimeElapsedColumn(), TextColumn("{task.fields[status]}"), console=console) as progress:
        updates = manager.Queue()
        tasks = {job.section: progress.add_task(BY_ID[job.section].stem, total=1.0, status="en cola")
                 for job in jobs}
        # A fresh worker per section: manim's text and SVG caches would otherwise pile up section after
        # section (a -j 1 lecture at 720p grew to 1.9 GB), and each section's peak memory is its own.
        with ProcessPoolExecutor(max_workers=min(request.jobs, len(jobs)), mp_context=context,
                                 max_tasks_per_child=1) as pool:
            futures = {pool.submit(run_job, job, _Reporter(updates)): job.section for job in jobs}
            while not all(future.done() for future in futures):
                _drain(updates, progress, tasks)
                time.sleep(0.1)
            _drain(updates, progress, tasks)
            results = sorted((future.result() for future in futures), key=lambda result: BY_ID[result.section].number)
        for result in results:
            progress.update(tasks[result.section], completed=1.0,
                            status="[red]error[/red]" if result.error else "[green]listo[/green]")
    return results


def longest_first(sections: list[str], manifest: dict) -> list[str]:
    """The order to start sections in: the longest first (by its last render here, else its typical
    time), so that with -j 2 no long section starts last while the other worker sits idle."""
    def cost(section: str) -> float:
        timings = manifest["sections"].get(section, {}).get("timings", {})
        return timings.get("scene_seconds", BY_ID[section].typical_seconds)

    return sorted(sections, key=cost, reverse=True)


class _Reporter:
    """Picklable progress callback: a worker puts (section, share done) on the queue."""

    def __init__(self, updates):
        self.updates = updates

    def __call__(self, section: str, share: float) -> None:
        self.updates.put((section, share))


def _drain(updates, progress: Progress, tasks: dict) -> None:
    while True:
        try:
            section, share = updates.get_nowait()
        except queue.Empty:
            return
        progress.update(tasks[section], completed=share, status="renderizando")


def _join_lecture(request: RenderRequest, manifest: dict, console: Console) -> None:
    """Join every section rendered with these settings, in lesson order, into lecture.<format>,
    and their captions, shifted to match, into lecture.srt and lecture.vtt."""
    entries = [manifest["sections"].get(section.id) for section in SECTIONS]
    joined = [entry for entry in entries
              if entry and entry["quality"] == request.quality.label and entry["format"] == request.format
              and entry["audio"] == (not request.config.audio.mute) and (request.out_dir / entry["files"][0]).exists()]
    parts = [request.out_dir / entry["files"][0] for entry in joined]
    if not parts:
        return
    write_captions(lecture_subtitles([(entry["steps"], duration_of(part)) for entry, part in zip(joined, parts)]),
                   request.out_dir / "lecture")
    target = request.out_dir / f"lecture.{request.format}"
    wanted = hashlib.sha256("".join(file_hash(part) for part in parts).encode()).hexdigest()
    previous = manifest.get("lecture", {})
    if previous.get("fingerprint") == wanted and target.exists() and not request.force:
        return
    join_videos(parts, target)
    manifest["lecture"] = {"file": target.name, "fingerprint": wanted, "parts": [part.name for part in parts]}
    console.print(f"{target.name}: {len(parts)} section(s) joined")
