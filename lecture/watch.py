"""The fast preview loop: on every save of the config file, render the chosen steps' stills again (or the
whole video) and print their paths; a bad edit prints its one-line error and the loop keeps watching.

Speed comes from one warm worker process kept for the whole session (manim and the scenes imported, Tex
and text caches warm), and from ``--steps``: the scene skips animations up to the first chosen step and
stops after the last. Previews go into OUT like any render but leave the manifest alone. A worker that ends
(killed, out of memory) is named in one line and started again; one that cannot start stops the watch.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lecture.render.jobs import JobResult, Quality, RenderJob, run_job, worker_setup
from lecture.render.output_folder import OutputError, OutputFolder
from lecture.render.runner import RenderRequest, chosen_steps, code_digest, commit_section, fingerprint
from lesson.config import ConfigError, load_config
from lesson.formats import MP4, PNG
from lesson.sections import BY_ID
from lesson.steps import StepsError


@dataclass(frozen=True)
class WatchRequest:
    """What ``render.py watch`` asks for: the config file to watch and what to render on each save."""

    sections: tuple[str, ...]
    config_file: Path
    overrides: tuple[str, ...]
    quality: Quality
    out_dir: Path
    steps: str | None = None
    video: bool = False  # the whole video (mp4) instead of the stills


def serve(connection, parent: int) -> None:
    """The warm worker: import manim and the scenes once, then render each job it is sent."""
    worker_setup(parent)
    for section in BY_ID.values():
        section.scene()
    connection.send("ready")
    while True:
        connection.send(run_job(connection.recv()))


class WorkerEnded(Exception):
    """The warm worker process is gone; the message says how it ended."""


class WarmWorker:
    """One worker process for the whole session, started again when it ends; killed when the session ends."""

    def __enter__(self):
        self.start()
        return self

    def start(self) -> None:
        """Start the worker and wait until it has imported the scenes; raises WorkerEnded if it cannot."""
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=serve, args=(child, os.getpid()), daemon=True)
        self.process.start()
        child.close()
        try:
            self.connection.recv()  # "ready": imports done
        except EOFError:
            raise WorkerEnded(f"the render worker could not start ({self.how_it_ended()})") from None

    def run(self, job: RenderJob) -> JobResult:
        """The job's result; raises WorkerEnded when the worker is gone before or during the job."""
        try:
            self.connection.send(job)
            return self.connection.recv()
        except (EOFError, OSError):  # OSError: the pipe to a worker that had ended is broken
            raise WorkerEnded(self.how_it_ended()) from None

    def how_it_ended(self) -> str:
        """``killed by SIGKILL`` or ``exit status 1``: how the worker process ended."""
        self.process.join(timeout=5)
        code = self.process.exitcode
        if code is None:
            return "it stopped answering"
        return f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"

    def restart(self) -> None:
        self.stop()
        self.start()

    def stop(self) -> None:
        self.process.kill()
        self.process.join()
        self.connection.close()

    def __exit__(self, *exception):
        self.stop()


def watch(request: WatchRequest, say, changes=None) -> int:
    """Render once, then again after every change of ``request.config_file`` until interrupted.

    ``changes`` yields once per save (default: watchfiles on the file's folder); ``say`` prints a line.
    Returns 0, or 1 when the worker cannot be started (said in one line)."""
    folder = OutputFolder(request.out_dir)
    folder.remove_abandoned_scratch()
    try:
        with WarmWorker() as worker:
            preview(request, folder, worker, say)
            for _ in changes if changes is not None else saves(request.config_file):
                preview(request, folder, worker, say)
    except WorkerEnded as ended:
        say(f"error: watch stopped: {ended}")
        return 1
    return 0


def saves(config_file: Path):
    """One item per change of ``config_file`` (an editor may replace the file rather than write it).

    SIGTERM or SIGHUP while waiting end the watch with status 128 + the signal, as any command: watchfiles
    answers every signal it sees with a KeyboardInterrupt (status 130), so which one came is noted first."""
    from watchfiles import watch as watch_files

    target = config_file.resolve()
    with _terminations_noted() as received:
        try:
            for _ in watch_files(target.parent, watch_filter=lambda change, path: Path(path) == target, debounce=50,
                                 step=20):
                yield
        except KeyboardInterrupt:
            if received:
                raise SystemExit(128 + received[-1]) from None
            raise


@contextmanager
def _terminations_noted():
    """SIGTERM and SIGHUP, unless ignored, appended to the yielded list, then ending the process with 128 + the
    signal."""
    received: list[int] = []

    def terminate(number, frame):
        received.append(number)
        raise SystemExit(128 + number)

    previous = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGHUP)}
    for number, handler in previous.items():
        if handler is not signal.SIG_IGN:  # nohup's SIGHUP stays ignored
            signal.signal(number, terminate)
    try:
        yield received
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)


def preview(request: WatchRequest, folder: OutputFolder, worker: WarmWorker, say) -> None:
    """Render the request with the config as it is now into OUT and print each new file's path."""
    try:
        config = load_config(request.config_file, request.overrides)
        render_request = RenderRequest(request.sections, config, request.quality, MP4.name if request.video else PNG.name,
                                       request.out_dir, 1, steps=request.steps)
        clips = chosen_steps(render_request)
    except (ConfigError, StepsError) as error:
        say(f"error: {str(error).strip().splitlines()[0]}")
        return
    lines = []  # printed once the scratch folder is gone: a line means the files are in place, nothing left over
    with folder.scratch() as scratch:
        for section in request.sections:
            job = RenderJob(section, config, request.quality, render_request.format, scratch / section, folder.cache,
                            steps=clips.get(section))
            job.work_dir.mkdir()
            result = render_on(worker, job, say)
            if result.error:
                lines.append(f"error: {BY_ID[section].stem}: {result.error}")
                continue
            try:  # with its manifest entry, as a render writes it: the folder's readers trust what it says
                commit_section(render_request, folder, result, fingerprint(render_request, section, code_digest()),
                               scratch, say)
            except (OSError, OutputError) as error:
                why = error.strerror if isinstance(error, OSError) and error.strerror else error
                lines.append(f"error: {BY_ID[section].stem}: could not write its files ({why}); files from "
                             "earlier renders are untouched")
                continue
            for name in result.files:
                target = request.out_dir / name
                lines += [str(file) for file in (sorted(target.glob(f"*{PNG.suffix}")) if target.is_dir() else [target])]
    for line in lines:
        say(line)


def render_on(worker: WarmWorker, job: RenderJob, say) -> JobResult:
    """The job's result from the warm worker. A worker that ended while the watch waited is started again (said
    in one line) and renders the job; one that ends during the job is started again for the next save, and the
    job's error says how it ended. Raises WorkerEnded when a new worker cannot start."""
    if not worker.process.is_alive():
        say(f"error: the render worker had ended ({worker.how_it_ended()}); a new one renders this save")
        worker.restart()
    try:
        return worker.run(job)
    except WorkerEnded as ended:
        worker.restart()
        return JobResult(job.section, error=f"the render worker ended during the render ({ended}); "
                                            "a new one renders the next save")
