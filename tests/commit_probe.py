"""A render that stops at a chosen step of its commits: for test_commit_sweep.

Started once (the quick section registered, the CLI imported), it reads one request per line on its standard
input and forks a child for each, so that a hundred stopped renders cost a fork each, not a start of Python.
The child runs the real CLI (``render.py render ...``) with two changes: the workers' results and the joined
lecture are replayed from a folder rendered before (``new``: the same files a worker and the join would make,
without their minutes of drawing and encoding), and at
the ``point``-th rename or removal made inside ``OutputFolder.commit`` or while a folder is removed (the render's
scratch), the signal ``stop`` is sent to it (from
another thread, as the kernel may deliver it; SIGKILL before the call). The child's exit status, and how many
such points its commits passed, are written back as a line of JSON.
"""

import json
import os
import shutil
import signal
import sys
import threading
from pathlib import Path

import quick_section.launch  # noqa: F401  (registers the quick section before the config schema is built)
from lecture.cli import cli
from lecture.render import runner
from lecture.render.jobs import JobResult
from lecture.render.output_folder import OutputFolder
from lesson.records import cards_of, steps_of


def replay(new: Path):
    """``runner.finished_jobs`` with each section's files copied from ``new``, as its worker made them there."""
    entries = json.loads((new / "manifest.json").read_text())["sections"]

    def finished_jobs(jobs, parallel, console):
        for job in jobs:
            entry = entries[job.section]
            job.work_dir.mkdir()
            for name in entry["files"]:
                (shutil.copytree if (new / name).is_dir() else shutil.copyfile)(new / name, job.work_dir / name)
            yield JobResult(job.section, {name: job.work_dir / name for name in entry["files"]}, entry["duration"],
                            steps_of(entry), cards_of(entry), entry.get("questions", []), entry.get("cues", []),
                            entry.get("timings", {}))

    return finished_jobs


def stopping(point: int | None, stop: int, passed: list[int]):
    """os.replace, os.unlink and os.rmdir, counted inside a commit and inside a folder's removal (the render's
    scratch); at the ``point``-th, ``stop`` is sent."""
    committing = []

    def counted(call):
        def wrapper(*arguments, **keywords):
            if committing:
                if len(passed) == point:
                    if stop == signal.SIGKILL:
                        os.kill(os.getpid(), signal.SIGKILL)
                    sender = threading.Thread(target=os.kill, args=(os.getpid(), stop))
                    sender.start()
                    sender.join()
                passed.append(1)
            return call(*arguments, **keywords)
        return wrapper

    def watched(call):
        def wrapper(*arguments, **keywords):
            committing.append(1)
            try:
                return call(*arguments, **keywords)
            finally:
                committing.pop()
        return wrapper

    os.replace, os.unlink, os.rmdir = counted(os.replace), counted(os.unlink), counted(os.rmdir)
    OutputFolder.commit = watched(OutputFolder.commit)
    shutil.rmtree = watched(shutil.rmtree)


def child(request: dict) -> None:
    """Run the CLI as the request says, stopping where it says; never returns."""
    passed: list[int] = []
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with open(request["log"], "w") as log:
            os.dup2(log.fileno(), 2)
        runner.finished_jobs = replay(Path(request["new"]))
        runner.join_videos = lambda parts, target, *_: shutil.copyfile(Path(request["new"]) / "lecture.mp4", target)
        stopping(request["point"], request["stop"], passed)
        cli(request["arguments"], prog_name="atencion")
    except SystemExit as ended:
        status = ended.code if isinstance(ended.code, int) else 1
    finally:
        Path(request["log"]).with_suffix(".points").write_text(str(len(passed)))
        os._exit(status)


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            child(request)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": os.waitstatus_to_exitcode(status)}), flush=True)


if __name__ == "__main__":
    main()
