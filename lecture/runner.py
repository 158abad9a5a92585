"""Turn a validated config into finished files: up-to-date checks, worker processes, progress, manifest."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from lecture.captions import lecture_tracks, write_captions
from lecture.config import LectureConfig
from lecture.folder_config import replacing_line, shared_settings
from lecture.jobs import JobResult, Quality, RenderJob, worker_main
from lecture.locale import load_locale
from lecture.manifest import MANIFEST, file_hash, is_up_to_date, read_manifest, stage_manifest
from lecture.media import join_videos, video_duration
from lecture.narration import Narration, plan
from lecture.output_folder import OutputFolder, link_or_copy
from lecture.sections import BY_ID, SECTIONS
from lecture.steps import StepRange, clip_stem, parse_steps, step_keys
from sonify.mix import read_wav
from sonify.synth import SAMPLE_RATE

ROOT = Path(__file__).resolve().parent.parent
CODE_DIRS = ("attn_math", "scenes", "sonify", "lecture", "assets")
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
    steps: str | None = None  # ``--steps``: a clip of these steps of each section (see lecture.steps)


def plain_line(console: Console, style: str | None = None):
    """Print a message as one line, as it is: no wrapping, no rich markup (it may hold a user's path)."""
    return lambda message: console.print(message, soft_wrap=True, markup=False, highlight=False, style=style)


def code_digest() -> str:
    """Hash of every source and asset file: a code change makes every output stale."""
    digest = hashlib.sha256()
    for directory in CODE_DIRS:
        for path in sorted((ROOT / directory).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def fingerprint(request: RenderRequest, section: str, code: str, narration: Narration | None = None) -> str:
    """Changes whenever the section's config, the audio settings, quality, format, code or narration
    (the voice, or any recording's content) change."""
    effective = request.config.effective()
    payload = {"section": effective[section], "audio": effective["audio"], "lecture": effective.get("lecture"),
               "quality": request.quality.label, "format": request.format, "code": code,
               "narration": narration.fingerprint() if narration else None, "steps": request.steps}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def render(request: RenderRequest, console: Console | None = None, run=None) -> int:
    """Render what is stale, keep what is up to date, join the lecture; returns the exit status.

    Workers render into a scratch folder; when they are done, the new files, the joined lecture and the
    manifest are renamed into place together under the folder's lock (see ``lecture.output_folder``).
    ``run(jobs, parallel, console) -> list[JobResult]`` runs the stale sections' jobs (default ``run_jobs``, a
    local process per section; a batch on a cluster passes ``lecture.batch_cluster``'s).
    A ``--steps`` clip is recorded apart (the manifest's ``clips``, by file stem) and never joined.
    Raises OutputError when ``request.out_dir`` cannot be used, StepsError when ``request.steps`` names no
    step of a section; both before anything is written.
    """
    console = console or Console(stderr=True)
    clips = chosen_steps(request)
    narrations = narration_plans(request, plain_line(console))
    folder = OutputFolder(request.out_dir)
    folder.remove_abandoned_scratch()
    with folder.lock():
        manifest = read_manifest(folder, warn=plain_line(console))
    code = code_digest()
    wanted = {section: fingerprint(request, section, code, narrations.get(section)) for section in request.sections}
    entries = entries_of(manifest, request)
    stale = [section for section in request.sections if request.force
             or not is_up_to_date(entries.get(entry_key(section, clips)), folder.path, wanted[section])]
    announce(request, stale, manifest, folder.path, console)
    with folder.scratch() as scratch:
        jobs = [RenderJob(section, request.config, request.quality, request.format, scratch / section,
                          folder.cache, request.verbose, narrations.get(section), clips.get(section))
                for section in longest_first(stale, manifest)]
        results = (run or run_jobs)(jobs, request.jobs, console)
        with folder.lock():  # another render may have finished meanwhile: re-read, then commit
            return _record(request, folder, results, wanted, scratch, console)


def announce(request: RenderRequest, stale: list[str], manifest: dict, out_dir: Path, console: Console) -> None:
    """A line for each requested section that is up to date (skipped), or whose file in OUT this render
    replaces although it was made with another config, quality or format (what changed)."""
    clips, effective = chosen_steps(request), request.config.effective()
    for section in request.sections:
        entry = entries_of(manifest, request).get(entry_key(section, clips))
        if section not in stale:
            console.print(f"{clip_stem(BY_ID[section].stem, clips.get(section))}: up to date, skipped "
                          "(--force re-renders)")
        elif entry and os.path.lexists(out_dir / entry["files"][0]):
            line = replacing_line(entry, section, manifest, effective, request.quality.label, request.format)
            if line:
                plain_line(console)(line)


def chosen_steps(request: RenderRequest) -> dict[str, StepRange]:
    """Each requested section's clip for ``--steps`` (none without it); raises StepsError."""
    if request.steps is None:
        return {}
    return {section: parse_steps(request.steps, step_keys(section), section) for section in request.sections}


def entries_of(manifest: dict, request: RenderRequest) -> dict:
    """Where the manifest records this request's renders: ``sections`` by id, or, for clips, ``clips`` by stem."""
    if request.steps is None:
        return manifest["sections"]
    return manifest.setdefault("clips", {})


def entry_key(section: str, clips: dict[str, StepRange]) -> str:
    """A render's key in ``entries_of``: the section's id, or its clip's file stem."""
    return clip_stem(BY_ID[section].stem, clips[section]) if section in clips else section


def narration_plans(request: RenderRequest, warn) -> dict[str, Narration]:
    """Who speaks each requested section's steps (see ``lecture.narration.plan``); raises NarrationError
    before anything is written when a recording is unusable. Stills and GIFs have no voice."""
    if request.format not in LECTURE_FORMATS:
        return {}
    narration, locale = request.config.narration, load_locale(request.config.lecture.lang)
    return plan(narration.source, narration.voice, narration.words_per_minute,
                {BY_ID[section]: list(locale[section]["steps"]) for section in request.sections}, warn)


def _record(request: RenderRequest, folder: OutputFolder, results: list[JobResult], wanted: dict, scratch: Path,
            console: Console) -> int:
    """Stage the finished sections' captions, the joined lecture and the new manifest, then commit them all."""
    manifest = read_manifest(folder, warn=plain_line(console))
    effective = request.config.effective()
    staged: dict[str, Path] = {}
    failures = 0
    try:
        for result in results:
            if result.error:
                failures += 1
                plain_line(console, "red")(f"{BY_ID[result.section].stem}: failed: {result.error}")
                continue
            files = result.files
            entries_of(manifest, request)[entry_key(result.section, chosen_steps(request))] = {
                "files": list(files), "fingerprint": wanted[result.section], "duration": round(result.duration, 3),
                "sha256": {name: file_hash(path) for name, path in files.items()}, "steps": result.steps,
                "cues": result.cues, "timings": result.timings,
                "quality": request.quality.label, "format": request.format, "audio": not request.config.audio.mute,
                "lang": request.config.lecture.lang, "config": effective[result.section],
                "settings": shared_settings(effective)}
            staged |= files
        manifest["config"] = effective
        if request.format in LECTURE_FORMATS and request.steps is None:
            staged |= _join_lecture(request, folder, manifest, staged, scratch, console)
        staged[MANIFEST] = stage_manifest(manifest, scratch)
        folder.commit(staged, scratch)
    except OSError as error:
        plain_line(console, "red")(f"error: could not write the new files ({error.strerror or error}); "
                                   "files from earlier renders are untouched")
        return 1
    return 1 if failures else 0


def run_jobs(jobs: list[RenderJob], parallel: int, console: Console) -> list[JobResult]:
    """Run each job in a worker of its own, with a progress line per section."""
    if not jobs:
        return []
    with Progress(TextColumn("{task.description:<14}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                  TimeElapsedColumn(), TextColumn("{task.fields[status]}"), console=console) as progress:
        tasks = {job.section: progress.add_task(BY_ID[job.section].stem, total=1.0, status="queued")
                 for job in jobs}

        def report(section: str, share: float) -> None:
            progress.update(tasks[section], completed=share, status="rendering")

        results = run_in_workers(jobs, parallel, report)
        for result in results:
            progress.update(tasks[result.section], completed=1.0,
                            status="[red]failed[/red]" if result.error else "[green]done[/green]")
    return sorted(results, key=lambda result: BY_ID[result.section].number)


def run_in_workers(jobs: list[RenderJob], parallel: int, report) -> list[JobResult]:
    """Each job in a fresh process (manim's caches would otherwise pile up section after section, and each
    section's peak memory is its own), at most ``parallel`` at a time. Workers never outlive this call:
    on any exception here (Ctrl-C, SIGTERM) they are killed, and they die with this process if it is killed."""
    context = multiprocessing.get_context("spawn")
    waiting, running, results = list(jobs), {}, []
    try:
        while waiting or running:
            while waiting and len(running) < parallel:
                job = waiting.pop(0)
                job.work_dir.mkdir()
                receiver, sender = context.Pipe(duplex=False)
                process = context.Process(target=worker_main, args=(job, sender, os.getpid()), daemon=True)
                process.start()
                sender.close()
                running[receiver] = (job, process)
            for receiver in wait(list(running), timeout=0.5):
                job, process = running[receiver]
                try:
                    message = receiver.recv()
                except EOFError:  # the worker died without a word (killed, out of memory)
                    process.join()
                    message = JobResult(job.section, error=f"worker ended without a result (exit status "
                                                           f"{process.exitcode})")
                if isinstance(message, JobResult):
                    results.append(message)
                    del running[receiver]
                    receiver.close()
                    process.join()
                else:
                    report(job.section, message[1])
    finally:
        for receiver, (_, process) in running.items():
            process.kill()
            process.join()
            receiver.close()
    return results


def longest_first(sections: list[str], manifest: dict) -> list[str]:
    """The order to start sections in: the longest first (by its last render here, else its typical
    time), so that with -j 2 no long section starts last while the other worker sits idle."""
    def cost(section: str) -> float:
        timings = manifest["sections"].get(section, {}).get("timings", {})
        return timings.get("scene_seconds", BY_ID[section].typical_seconds)

    return sorted(sections, key=cost, reverse=True)


def _join_lecture(request: RenderRequest, folder: OutputFolder, manifest: dict, staged: dict[str, Path],
                  scratch: Path, console: Console) -> dict[str, Path]:
    """Join every section rendered with these settings, in lesson order, into lecture.<format>, and their
    captions, shifted to match, into lecture.srt and lecture.vtt; returns the staged files by name.

    A section's video comes from this render's staged files or, if it was not rendered now, from OUT,
    only while it still hashes to its manifest entry."""
    parts, joined = [], []
    for section in SECTIONS:
        entry = manifest["sections"].get(section.id)
        if not entry or entry["quality"] != request.quality.label or entry["format"] != request.format \
                or entry["audio"] != (not request.config.audio.mute):
            continue
        name = entry["files"][0]
        part = staged.get(name, folder.path / name)
        if name in staged or all(file_hash(folder.path / file) == entry["sha256"][file] for file in entry["files"]):
            parts.append(part)
            joined.append(entry)
    if not parts:
        return {}
    tracks = lecture_tracks([(entry["steps"], video_duration(part)) for entry, part in zip(joined, parts)],
                            lang=request.config.lecture.lang)
    files = write_captions(tracks, scratch, "lecture")
    name = f"lecture.{request.format}"
    wanted = hashlib.sha256("".join(entry["sha256"][entry["files"][0]] for entry in joined).encode()).hexdigest()
    previous = manifest.get("lecture", {})
    if (previous.get("fingerprint") == wanted and file_hash(folder.path / name) == previous.get("sha256")
            and not request.force):
        return files
    files[name] = scratch / name
    if len(parts) == 1:  # the lecture is that section's very file (same picture, sound, chapters, captions)
        link_or_copy(parts[0], files[name])
        console.print(f"{name}: the same file as {joined[0]['files'][0]} (a second name, no copy)")
    else:
        # The lecture's audio is encoded once from the sections' WAVs (beside each video: NN-section.wav).
        wavs = [Path(entry["files"][0]).with_suffix(".wav").name for entry in joined]
        soundtracks = None if request.config.audio.mute else [read_wav(staged.get(wav, folder.path / wav))
                                                              for wav in wavs]
        join_videos(parts, files[name], soundtracks, SAMPLE_RATE, tracks)
        console.print(f"{name}: {len(parts)} sections joined")
    manifest["lecture"] = {"file": name, "fingerprint": wanted, "sha256": file_hash(files[name]),
                           "parts": [entry["files"][0] for entry in joined]}
    return files
