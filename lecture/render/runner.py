"""Turn a validated config into finished files: up-to-date checks, worker processes, progress, manifest."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from collections.abc import Iterable, Iterator
from contextlib import closing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing.connection import wait
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from lecture.render.captions import (caption_blocks, caption_names, carried, lecture_tracks, spoken_section,
                                     write_captions)
from lecture.folder_config import replacing_line, shared_settings
from lecture.render.jobs import JobResult, Quality, RenderJob, worker_main
from lecture.render.manifest import (MANIFEST, clip_key, file_hash, folder_contents, is_up_to_date, read_manifest,
                                     stage_manifest)
from lecture.render.media import TextTracks, join_videos, video_duration
from lecture.render.narration import Narration, plan
from lecture.render.output_folder import CommitUnfinished, OutputError, OutputFolder, link_or_copy, write_whole
from lesson.config import LectureConfig
from lesson.formats import BY_NAME
from lesson.records import cards_of, steps_of, stored
from lesson.references import Card, lecture_cards
from lesson.sections import BY_ID, SECTIONS
from lesson.steps import StepRange, clip_stem, parse_steps, step_keys
from sonify.synth import SAMPLE_RATE

ROOT = Path(__file__).resolve().parents[2]
CODE_DIRS = ("attn_math", "sonify", "lesson", "speech", "scenes", "lecture", "assets")
# lecture keys no section reads: the joined lecture's cards' and the HTML decks' (a change renders no section again)
CARD_KEYS = ("course", "date", "theme")
NAMING_KEYS = ("sections", "skip")  # lecture keys that name sections or steps: a section reads only its own part
SILENCE = np.zeros((0, 2))  # a silent card's soundtrack (a silent lecture, or the lecturer's recordings)
CARDS_FOLDER = "cards"  # in OUT's private folder: each card's video and when its texts appear, by content


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
    steps: str | None = None  # ``--steps``: a clip of these steps of each section (see lesson.steps)


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
    lecture = {key: value for key, value in effective.get("lecture", {}).items() if key not in CARD_KEYS + NAMING_KEYS}
    lecture["skip"] = request.config.lecture.skipped(section)  # its own steps: skipping another's keeps it
    payload = {"section": effective[section], "audio": effective["audio"], "lecture": lecture,
               "quality": request.quality.label, "format": request.format, "code": code,
               "narration": narration.fingerprint() if narration else None, "steps": request.steps}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def render(request: RenderRequest, console: Console | None = None, run=None) -> int:
    """Render what is stale, keep what is up to date, join the lecture; returns the exit status.

    Workers render into a scratch folder. Each section is committed as soon as its worker is done: its files
    and its manifest entry renamed into place together under the folder's lock (see ``lecture.render.output_folder``),
    so it can be watched while the others render and stays whatever happens to them later. The lecture is
    joined last, from the sections in OUT. ``run(jobs, parallel, console)`` runs the stale sections' jobs and
    yields their results as they end, or returns them all (default ``finished_jobs``, a local process per
    section; a batch on a cluster passes ``lecture.batch.cluster``'s): each is committed as it comes.
    A ``--steps`` clip is recorded apart (the manifest's ``clips``, by file stem and format) and never joined.
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
        failures = committed = 0
        # closing: an interruption while a section is committed stops the workers still running at once
        with closing(_one_by_one((run or finished_jobs)(jobs, request.jobs, console))) as results:
            for result in results:
                done = _commit_section(request, folder, result, wanted[result.section], scratch, console)
                failures, committed = failures + (not done), committed + done
        joined = _commit_lecture(request, folder, scratch, console, committed, wanted)
    return 1 if failures or not joined else 0


def _one_by_one(results: Iterable[JobResult]) -> Iterator[JobResult]:
    """``results`` as a generator, whose ``close`` also closes ``results`` when it is one (ending its workers)."""
    yield from results


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
    skipped = {section: request.config.skipped_steps(section) for section in request.sections}
    return {section: parse_steps(request.steps, step_keys(section, skipped[section]), section, skipped[section])
            for section in request.sections}


def entries_of(manifest: dict, request: RenderRequest) -> dict:
    """This request's renders in the manifest, by ``entry_key``: its ``sections``, or, for clips, the entries of
    its ``clips`` in the request's format by file stem (read only: ``record_entry`` writes)."""
    if request.steps is None:
        return manifest["sections"]
    suffix = clip_key("", request.format)
    return {key.removesuffix(suffix): entry for key, entry in manifest.get("clips", {}).items()
            if key.endswith(suffix)}


def record_entry(manifest: dict, request: RenderRequest, section: str, entry: dict) -> None:
    """Record a finished render's entry: in ``sections`` by id, or in ``clips`` by file stem and format, so that
    each format of a clip keeps its own."""
    key = entry_key(section, chosen_steps(request))
    if request.steps is None:
        manifest["sections"][key] = entry
    else:
        manifest.setdefault("clips", {})[clip_key(key, request.format)] = entry


def entry_key(section: str, clips: dict[str, StepRange]) -> str:
    """A render's key in ``entries_of``: the section's id, or its clip's file stem."""
    return clip_stem(BY_ID[section].stem, clips[section]) if section in clips else section


def narration_plans(request: RenderRequest, warn) -> dict[str, Narration]:
    """Who speaks each requested section's steps (see ``lecture.render.narration.plan``); raises NarrationError
    before anything is written when a recording is unusable. Stills and GIFs have no voice."""
    if not BY_NAME[request.format].has_sound:
        return {}
    return plan(request.config.narration,
                {BY_ID[section]: step_keys(section, request.config.skipped_steps(section))
                 for section in request.sections},
                warn, chosen_steps(request))


def _commit_section(request: RenderRequest, folder: OutputFolder, result: JobResult, wanted: str, scratch: Path,
                    console: Console) -> bool:
    """``commit_section``; False, said in a line and kept in ``result.error``, when the section failed or could
    not be written."""
    if not result.error:
        try:
            commit_section(request, folder, result, wanted, scratch, plain_line(console))
            return True
        except CommitUnfinished as error:
            result.error = (f"its new files are committed but not all moved into place ({error.strerror}); "
                            f"{CommitUnfinished.FINISHED_LATER}")
        except OutputError as error:
            result.error = str(error)
        except OSError as error:
            result.error = f"could not write its files ({_reason(error)}); files from earlier renders are untouched"
    plain_line(console, "red")(f"{BY_ID[result.section].stem}: failed: {result.error}")
    return False


def commit_section(request: RenderRequest, folder: OutputFolder, result: JobResult, wanted: str, scratch: Path,
                   warn) -> None:
    """Commit a finished section's files with its manifest entry, under the lock (the manifest re-read there:
    another render may have committed meanwhile). Raises OSError or OutputError when they could not be written."""
    with folder.lock():
        manifest = read_manifest(folder, warn=warn)
        record_entry(manifest, request, result.section, section_entry(request, result, wanted))
        manifest["config"] = request.config.effective()
        folder.commit(result.files | {MANIFEST: stage_manifest(manifest, scratch)}, scratch,
                      replaced=stale_captions(result.files))


def stale_captions(files: dict[str, Path]) -> tuple[str, ...]:
    """The subtitle files beside each video in ``files`` that this render does not write (a silent render after a
    narrated or clean one): left there, a player would load an earlier render's subtitles with the new video."""
    videos = [Path(name).stem for name in files if Path(name).suffix.lstrip(".") in BY_NAME
              and BY_NAME[Path(name).suffix.lstrip(".")].subtitle_codec]  # a format that can carry subtitles
    return tuple(name for stem in videos for name in caption_names(stem) if name not in files)


def section_entry(request: RenderRequest, result: JobResult, wanted: str) -> dict:
    """The manifest entry of a finished section: what it was rendered from, its files and their hashes."""
    effective = request.config.effective()
    return {"files": list(result.files), "fingerprint": wanted, "duration": round(result.duration, 3),
            "sha256": {name: file_hash(path) for name, path in result.files.items()},
            "contents": folder_contents(result.files), "steps": [stored(step) for step in result.steps],
            "cards": [stored(card) for card in result.cards],
            "questions": result.questions, "cues": result.cues,
            "timings": result.timings, "quality": request.quality.label, "format": request.format,
            "audio": not request.config.audio.mute, "lang": request.config.lecture.lang,
            "config": effective[result.section], "settings": shared_settings(effective)}


def _commit_lecture(request: RenderRequest, folder: OutputFolder, scratch: Path, console: Console,
                    committed: int, wanted: dict[str, str]) -> bool:
    """Under the lock, join the sections in OUT into the lecture and its captions (see ``_join_lecture``) and
    commit them with the manifest; False, said in a line, when they could not be written (``committed``: how
    many sections this render committed before; ``wanted``: each requested section's fingerprint)."""
    staged = {}
    try:
        with folder.lock():
            manifest = read_manifest(folder, warn=plain_line(console))
            manifest["config"] = request.config.effective()
            if request.steps is None:
                _settings_kept(request, manifest, wanted)
            if BY_NAME[request.format].joined and request.steps is None:
                staged = _join_lecture(request, folder, manifest, scratch, console)
            folder.commit(staged | {MANIFEST: stage_manifest(manifest, scratch)}, scratch,
                          replaced=stale_captions(staged))
    except (OSError, OutputError) as error:
        what = "the lecture" if any(name != MANIFEST for name in staged) else "the manifest"
        if isinstance(error, OutputError):
            line = f"error: {error}"
        elif isinstance(error, CommitUnfinished):
            line = (f"error: {what} is committed but not all moved into place ({error.strerror}); "
                    f"{CommitUnfinished.FINISHED_LATER}")
        else:
            kept = "the sections rendered now are in place, " if committed else ""
            line = f"error: could not write {what} ({_reason(error)}); {kept}the earlier files are untouched"
        plain_line(console, "red")(line)
        return False
    return True


def _settings_kept(request: RenderRequest, manifest: dict, wanted: dict[str, str]) -> None:
    """A requested section left as it was (its fingerprint is this render's: another section's step skipped, say)
    is what this render's settings make: its entry records them, so the folder's sections agree on them."""
    settings = shared_settings(request.config.effective())
    for section, fingerprint_wanted in wanted.items():
        entry = manifest["sections"].get(section)
        if entry and entry.get("fingerprint") == fingerprint_wanted:
            entry["settings"] = settings


def _reason(error: Exception) -> str:
    return (error.strerror if isinstance(error, OSError) else None) or str(error)


def finished_jobs(jobs: list[RenderJob], parallel: int, console: Console) -> Iterator[JobResult]:
    """Run each job in a worker of its own, with a progress line per section; yields each result as its
    worker ends. The line says done when the caller comes back for the next one (it has committed the
    section then), or failed if the result holds an error by then."""
    if not jobs:
        return
    with Progress(TextColumn("{task.description:<14}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                  TimeElapsedColumn(), TextColumn("{task.fields[status]}"), console=console) as progress:
        tasks = {job.section: progress.add_task(BY_ID[job.section].stem, total=1.0, status="queued")
                 for job in jobs}

        def report(section: str, share: float) -> None:
            progress.update(tasks[section], completed=share, status="rendering")

        for result in run_in_workers(jobs, parallel, report):
            yield result
            progress.update(tasks[result.section], completed=1.0,
                            status="[red]failed[/red]" if result.error else "[green]done[/green]")


def run_jobs(jobs: list[RenderJob], parallel: int, console: Console) -> list[JobResult]:
    """Every job's result (see ``finished_jobs``) once all are done, in lesson order."""
    return sorted(finished_jobs(jobs, parallel, console), key=lambda result: BY_ID[result.section].number)


def run_in_workers(jobs: list[RenderJob], parallel: int, report) -> Iterator[JobResult]:
    """Each job in a fresh process (manim's caches would otherwise pile up section after section, and each
    section's peak memory is its own), at most ``parallel`` at a time; yields each result as its worker ends.
    Workers never outlive this generator: when it is closed early or an exception reaches it (Ctrl-C,
    SIGTERM) they are killed, and they die with this process if it is killed."""
    context = multiprocessing.get_context("spawn")
    waiting, running = list(jobs), {}
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
                    del running[receiver]
                    receiver.close()
                    process.join()
                    yield message
                else:
                    report(job.section, message[1])
    finally:
        for receiver, (_, process) in running.items():
            process.kill()
            process.join()
            receiver.close()


def longest_first(sections: list[str], manifest: dict) -> list[str]:
    """The order to start sections in: the longest first (by its last render here, else its typical
    time), so that with -j 2 no long section starts last while the other worker sits idle."""
    def cost(section: str) -> float:
        timings = manifest["sections"].get(section, {}).get("timings", {})
        return timings.get("scene_seconds", BY_ID[section].typical_seconds)

    return sorted(sections, key=cost, reverse=True)


def _join_lecture(request: RenderRequest, folder: OutputFolder, manifest: dict, scratch: Path,
                  console: Console) -> dict[str, Path]:
    """Join every section in OUT rendered with these settings, in lesson order, into lecture.<format>, and
    their captions, shifted to match, into its subtitle track and lecture.srt and lecture.vtt (none when every
    caption is burned into the picture: a silent lecture); returns the staged files by name.
    Two sections or more are joined between a title card and an end card (``lesson.references``); one section
    alone is the lecture as it is, with no card.

    A section is joined only while its files in OUT hash to its manifest entry (call under the lock)."""
    parts, joined, ids = [], [], []
    for section in SECTIONS:
        entry = manifest["sections"].get(section.id)
        if not entry or entry["quality"] != request.quality.label or entry["format"] != request.format \
                or entry["audio"] != (not request.config.audio.mute):
            continue
        if all(file_hash(folder.path / file) == entry["sha256"][file] for file in entry["files"]):
            parts.append(folder.path / entry["files"][0])
            joined.append(entry)
            ids.append(section.id)
    if not parts:
        return {}
    narrated = any(spoken_section(steps_of(entry)) for entry in joined)
    cards = drawn_cards(request, ids, folder.cache / CARDS_FOLDER, narrated) if len(parts) > 1 else []
    subtitled = narrated or request.config.lecture.clean
    timeline = [(steps_of(entry), video_duration(part), cards_of(entry)) for entry, part in zip(joined, parts)]
    tracks = with_cards(lecture_tracks(timeline, lang=request.config.lecture.lang), cards, narrated,
                        sum(duration for _, duration, _ in timeline))
    files = write_captions(tracks, scratch, "lecture") if subtitled else {}
    name = f"lecture.{request.format}"
    wanted = hashlib.sha256("".join([entry["sha256"][entry["files"][0]] for entry in joined]
                                    + [file_hash(card.video) for card in cards]).encode()).hexdigest()
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
        wavs = [folder.path / Path(entry["files"][0]).with_suffix(".wav").name for entry in joined]
        soundtracks = None if request.config.audio.mute else [cards[0].soundtrack, *wavs, cards[1].soundtrack]
        join_videos([cards[0].video, *parts, cards[1].video], files[name], soundtracks, SAMPLE_RATE,
                    carried(tracks, subtitled))
        console.print(f"{name}: {len(parts)} sections joined, after a title card and before an end card")
    manifest["lecture"] = {"file": name, "fingerprint": wanted, "sha256": file_hash(files[name]),
                           "parts": [entry["files"][0] for entry in joined],
                           "cards": [{"chapter": card.card.chapter, "duration": round(card.duration, 3)}
                                     for card in cards]}
    return files


@dataclass(frozen=True)
class CardVideo:
    """A card drawn for the joined lecture: its text, its video, when each of its texts' captions starts
    (s, text), when its voice says its sentence (start, end, text; none in a silent lecture) and its soundtrack
    (``soundtrack``: the voice's WAV beside the video, or SILENCE)."""

    card: Card
    video: Path
    shown: tuple[tuple[float, str], ...]
    said: tuple[tuple[float, float, str], ...] = ()
    wav: Path | None = None

    @property
    def duration(self) -> float:
        return video_duration(self.video)

    @property
    def soundtrack(self) -> Path | np.ndarray:
        return self.wav or SILENCE


def drawn_cards(request: RenderRequest, sections: list[str], folder: Path, narrated: bool = False) -> list[CardVideo]:
    """The title and end cards of a lecture joining ``sections``, drawn at the sections' size, frame rate and
    format (their packets join the sections' as they are), or found in ``folder`` drawn so earlier; in a
    ``narrated`` lecture with sound, the synthetic voice that speaks its sections says each card's sentence."""
    code = code_digest()
    voice = card_narration(request) if narrated and not request.config.audio.mute else None
    return [_drawn_card(card, request, folder, code, voice)
            for card in lecture_cards(request.config.lecture, request.config.locale(), sections)]


def card_narration(request: RenderRequest) -> Narration | None:
    """The synthetic voice (``narration.source`` "tts": the neural voice, or espeak-ng standing in) that speaks the
    cards of a narrated lecture; None for the lecturer's recordings (a card has none: it stays silent)."""
    if request.config.narration.silent or request.config.narration.source != "tts":
        return None
    plans = narration_plans(request, lambda message: None)  # the sections' render said why, if espeak-ng speaks
    return next(iter(plans.values()), None)


def _drawn_card(card: Card, request: RenderRequest, folder: Path, code: str, voice: Narration | None) -> CardVideo:
    """``card`` drawn, kept in ``folder`` by its text, the quality, format, code and voice; raises OutputError when
    manim could not draw it."""
    loudness = request.config.audio.target_lufs()
    spoken = [voice.fingerprint(), loudness] if voice else None
    key = hashlib.sha256(json.dumps([asdict(card), request.quality.label, request.format, code, spoken]).encode())
    stem = key.hexdigest()[:20]
    video, times, wav = (folder / f"{stem}.{suffix}" for suffix in (request.format, "json", "wav"))
    kept = _card_times(times) if video.is_file() else None  # the JSON is written last: with it, the video is whole
    if kept is None:
        folder.mkdir(exist_ok=True)
        context = multiprocessing.get_context("spawn")  # manim stays out of this process, as in render workers
        job = CardJob(card, request.quality, request.format, folder, stem, voice, request.config.locale()["spoken"],
                      loudness)
        try:
            with ProcessPoolExecutor(1, mp_context=context) as worker:
                shown, said = worker.submit(draw_card, job).result()
        except Exception as error:  # one line naming the card, whatever manim raised
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise OutputError(f"the lecture's {card.chapter!r} card could not be drawn ({reason})") from None
        kept = {"shown": shown, "said": said}
        write_whole(times, json.dumps(kept))  # whole or absent, whenever the render is stopped
    return CardVideo(card, video, tuple((start, text) for start, text in kept["shown"]),
                     tuple((start, end, text) for start, end, text in kept["said"]),
                     wav if kept["said"] and wav.is_file() else None)


def _card_times(path: Path) -> dict | None:
    """When a kept card's texts appear and its sentence is said, or None when there is no whole record to read."""
    try:
        kept = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return kept if isinstance(kept, dict) and {"shown", "said"} <= kept.keys() else None


@dataclass(frozen=True)
class CardJob:
    """What a worker needs to draw a card: the card, the video's quality, format, folder and file stem, and, in a
    narrated lecture, the voice, the locale's words for signs and the speech level (LUFS)."""

    card: Card
    quality: Quality
    format: str
    folder: Path
    stem: str
    voice: Narration | None = None
    spoken: dict | None = None
    loudness: float = float("-inf")


def draw_card(job: CardJob) -> tuple[list, list]:
    """``scenes.cards.render_card`` (imported in the worker process that runs it: it loads manim), said by the
    job's voice, whose soundtrack (the voice at the sections' speech level) is written beside the video as
    STEM.wav; returns when the card's texts' captions start and when its sentence is said."""
    from scenes.cards import CardVoice, render_card
    from sonify.mappings import write_soundtrack

    samples = job.voice.speak(f"card-{job.card.kind}", [job.card.said], job.spoken) \
        if job.voice and job.card.said else None
    voice = CardVoice(job.card.said, samples[0]) if samples else None
    quality = job.quality
    shown, said = render_card(job.card, (quality.width, quality.height, quality.fps), job.format, job.folder,
                              job.stem, voice)
    if voice is not None:
        video = job.folder / f"{job.stem}.{job.format}"
        write_soundtrack([], video_duration(video), job.loudness, job.folder / f"{job.stem}.wav",
                         [(start, voice.samples) for start, _, _ in said])
    return shown, said


def with_cards(tracks: TextTracks, cards: list[CardVideo], narrated: bool, length: float) -> TextTracks:
    """``tracks`` of the joined sections (``length`` seconds) after the title card and before the end card: each
    card a chapter and, in a silent lecture, its texts as captions while they are up (in a narrated one, as in
    its sections, a card's text is on screen only, no viewer reads it twice, and the sentence its voice says is
    a caption while it is said)."""
    if not cards:
        return tracks
    opening, ending = cards
    last = opening.duration + length  # where the end card starts
    chapters = ((0.0, opening.duration, opening.card.chapter), *_shifted(tracks.chapters, opening.duration),
                (last, last + ending.duration, ending.card.chapter))
    cues = _shifted(tracks.cues, opening.duration)
    if not narrated:
        cues = _card_cues(opening, 0.0) + cues + _card_cues(ending, last)
    else:  # the sentence a card's voice says, as it is said (as a section's card's spoken words)
        cues = _shifted(opening.said, 0.0) + cues + _shifted(ending.said, last)
    return TextTracks(_shifted(chapters, 0.0), cues, tracks.language)


def _card_cues(card: CardVideo, start: float) -> tuple[tuple[float, float, str], ...]:
    """A caption for each of a card's texts from when it appears to when the next does (the last to the card's
    end), cut into blocks that fit; times from ``start``."""
    ends = [later for later, _ in card.shown[1:]] + [card.duration]
    return _shifted([block for (appears, text), end in zip(card.shown, ends)
                     for block in caption_blocks(text, appears, end)], start)


def _shifted(items, shift: float) -> tuple[tuple[float, float, str], ...]:
    """Timed items (start, end, text) ``shift`` seconds later, kept to the millisecond as captions store them."""
    return tuple((round(start + shift, 3), round(end + shift, 3), text) for start, end, text in items)
