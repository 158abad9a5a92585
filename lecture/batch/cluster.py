"""Render jobs as Dask tasks: each (variant, section) runs on a cluster worker, its files come back to the client
as bytes, and the client lays them out in the job's scratch folder just as a local worker would have, so the
runner commits them as usual. No file system is shared; a worker killed mid-task loses only its temporary
folder, and Dask runs the task again on another worker."""

from __future__ import annotations

import fcntl
import functools
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import count
from pathlib import Path

from distributed import as_completed, get_worker

from lecture.render.jobs import JobResult, RenderJob, run_job
from lecture.render.runner import code_digest
from lesson.user_cache import PrivateFolder, private_folder

Contents = bytes | dict[str, bytes]  # a file, or a folder of files (a section's stills)
render_lock = threading.Lock()  # manim's config belongs to the process: one render at a time in a worker


@dataclass
class TaskResult:
    """What a task sends back: the job's result (its paths were the worker's), the files' bytes by output name,
    the worker that rendered it and the seconds it took there."""

    result: JobResult
    contents: dict[str, Contents]
    worker: str
    seconds: float


def render_task(job: RenderJob, code: str) -> TaskResult:
    """Runs on a worker: render ``job`` in a temporary folder of the worker's and return its files' bytes."""
    worker = get_worker().address
    started = time.perf_counter()
    if worker_code() != code:
        error = f"worker {worker} runs other code than the client; set it up from the same commit and restart it"
        return TaskResult(JobResult(job.section, error=error), {}, worker, 0.0)
    with render_lock, CacheSlot() as cache, tempfile.TemporaryDirectory(prefix="atencion-task-") as folder:
        result = run_job(replace(job, work_dir=Path(folder), cache_dir=cache))
        contents = {name: read_contents(path) for name, path in result.files.items()}
    return TaskResult(result, contents, worker, time.perf_counter() - started)


@functools.cache
def worker_code() -> str:
    """The digest of the code this worker process imported (see ``runner.code_digest``)."""
    return code_digest()


@functools.cache
def cache_root() -> PrivateFolder | None:
    """The user's own folder of worker caches (LaTeX and text typesetting), kept between tasks; None when another
    user could change it or a folder on its path (``lesson.user_cache``): LaTeX compiles a cached .tex file and
    dvisvgm converts a cached .dvi, so a file planted there would run as this worker."""
    return private_folder("dask-workers")


class CacheSlot:
    """A cache folder no other worker process uses meanwhile: the first free ``slot-N``, held by a lock, so
    that workers on one machine keep warm caches and never wait for each other's (see ``jobs._render``). Without
    a private cache root, a temporary folder of the task's own: a cold cache, but nothing in it is anyone else's."""

    def __enter__(self) -> Path:
        self.descriptor, self.temporary = None, None
        root = cache_root()
        if root is None:
            self.temporary = tempfile.TemporaryDirectory(prefix="atencion-cache-")
            return Path(self.temporary.name)
        for number in count():
            self.descriptor = os.open(f"slot-{number}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                                      0o600, dir_fd=root.descriptor)
            try:
                fcntl.flock(self.descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(self.descriptor)
                continue
            return root.path / f"slot-{number}"

    def __exit__(self, *exception) -> None:
        if self.temporary is not None:
            self.temporary.cleanup()
        else:
            os.close(self.descriptor)


def read_contents(path: Path) -> Contents:
    if path.is_dir():
        return {child.name: child.read_bytes() for child in sorted(path.iterdir())}
    return path.read_bytes()


def write_contents(target: Path, contents: Contents) -> None:
    if isinstance(contents, bytes):
        target.write_bytes(contents)
        return
    target.mkdir()
    for name, data in contents.items():
        (target / Path(name).name).write_bytes(data)


def unpack(task: TaskResult, job: RenderJob) -> JobResult:
    """The task's result with its files written into ``job.work_dir`` on this machine."""
    job.work_dir.mkdir(exist_ok=True)
    files = {}
    for name, contents in task.contents.items():
        files[name] = job.work_dir / Path(name).name
        write_contents(files[name], contents)
    return replace(task.result, files=files)


def task_key(variant: str, stem: str) -> str:
    """``render-<variant>/<section>-<random>``: every render task in one task group, "render". The scheduler
    then queues them and hands one to each worker as it comes free; with a group of their own (a prefix per
    variant) they were all assigned at once, and one worker of two stood idle while the other had three left."""
    return f"render-{variant}/{stem}-{uuid.uuid4().hex[:8]}"


class ClusterJobs:
    """Runs a variant's jobs on the cluster for ``runner.render``: ``finished(variant, job, worker, seconds,
    result)`` hears of each task as it ends. ``cancel`` ends every task still running (Ctrl-C)."""

    def __init__(self, client, finished):
        self.client, self.finished = client, finished
        self.code = code_digest()
        self.futures: set = set()
        self.cancelled = threading.Event()

    def runner(self, variant: str):
        """The ``run`` function ``runner.render`` calls with the stale jobs of ``variant``."""
        return functools.partial(self.run, variant)

    def run(self, variant: str, jobs: list[RenderJob], parallel: int, console) -> Iterator[JobResult]:
        """Each job as a task; its result yielded as it ends (the runner commits that section at once)."""
        if self.cancelled.is_set():
            raise KeyboardInterrupt
        futures = {self.client.submit(render_task, job, self.code, key=task_key(variant, job.stem), pure=False): job
                   for job in jobs}
        self.futures.update(futures)
        for future in as_completed(futures, loop=self.client.loop):
            job = futures[future]
            if self.cancelled.is_set():
                raise KeyboardInterrupt
            try:
                task = future.result()
            except Exception as error:  # the task's workers kept dying (KilledWorker), or it raised
                result = JobResult(job.section, error=f"{type(error).__name__}: {error}")
                self.finished(variant, job, "the cluster", 0.0, result)
            else:
                result = unpack(task, job)
                self.finished(variant, job, task.worker, task.seconds, result)
            yield result

    def cancel(self) -> None:
        self.cancelled.set()
        self.client.cancel(list(self.futures))
