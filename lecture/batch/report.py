"""What a batch says while it runs: a line per finished task (variant, section, worker, seconds), each variant's
own messages prefixed with its name, and a summary table at the end."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from rich.console import Console
from rich.table import Table

from lecture.batch.variants import Variant
from lecture.render.jobs import JobResult, RenderJob
from lecture.render.runner import finished_jobs, plain_line


@dataclass
class VariantTally:
    rendered: int = 0
    failed: int = 0
    seconds: float = 0.0  # on the workers, summed
    workers: set[str] = field(default_factory=set)
    sections: int = 0

    @property
    def up_to_date(self) -> int:
        return self.sections - self.rendered - self.failed


class VariantLines(io.TextIOBase):
    """A text stream that writes each whole line to ``stream`` after the variant's name, so that what
    ``runner.render`` says of a variant ("01-matrix: up to date, skipped") says which one it is."""

    def __init__(self, name: str, stream):
        self.name, self.stream, self.pending = name, stream, ""

    def write(self, text: str) -> int:
        *lines, self.pending = (self.pending + text).split("\n")
        for line in lines:
            self.stream.write(f"{self.name}: {line}\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


def variant_console(name: str, console: Console) -> Console:
    return Console(file=VariantLines(name, console.file), width=console.width, soft_wrap=True)


class Tally:
    """Counts finished tasks, prints a line for each, and the summary table at the end."""

    def __init__(self, variants: list[Variant], console: Console):
        self.console, self.say = console, plain_line(console)
        self.total = sum(len(variant.request.sections) for variant in variants)
        self.variants = {variant.name: VariantTally(sections=len(variant.request.sections)) for variant in variants}
        self.finished_tasks = 0
        self.lock = threading.Lock()

    def finished(self, variant: str, job: RenderJob, worker: str, seconds: float, result: JobResult) -> None:
        with self.lock:
            tally = self.variants[variant]
            self.finished_tasks += 1
            tally.workers.add(worker)
            tally.seconds += seconds
            if result.error:
                tally.failed += 1
                outcome = f"failed on {worker} after {seconds:.1f} s: {result.error}"
            else:
                tally.rendered += 1
                outcome = f"done on {worker} in {seconds:.1f} s"
            self.say(f"[{self.finished_tasks}/{self.total}] {variant}/{job.stem}: {outcome}")

    def local_runner(self, variant: str):
        """``runner.finished_jobs`` for ``variant``: each result told to the tally (worker: "local") and yielded
        as its job ends, so the runner commits that section at once."""
        def run(jobs: list[RenderJob], parallel: int, console: Console) -> Iterator[JobResult]:
            by_section = {job.section: job for job in jobs}
            for result in finished_jobs(jobs, parallel, console):
                seconds = result.timings.get("scene_seconds", 0.0) + result.timings.get("sound_seconds", 0.0)
                self.finished(variant, by_section[result.section], "local", seconds, result)
                yield result
        return run

    def summary(self, variants: list[Variant], wall_seconds: float) -> None:
        """A row per variant and one for the whole batch."""
        table = Table("variant", "rendered", "up to date", "failed", "task seconds", "workers")
        for column in table.columns[1:5]:
            column.justify = "right"
        for name, tally in [(variant.name, self.variants[variant.name]) for variant in variants] + \
                [("all", self.whole())]:
            table.add_row(name, str(tally.rendered), str(tally.up_to_date), str(tally.failed), f"{tally.seconds:.1f}",
                          ", ".join(sorted(worker.partition("://")[2] or worker for worker in tally.workers)),
                          style="red" if tally.failed else None, end_section=name == variants[-1].name)
        self.console.print(table)
        self.console.print(f"{self.finished_tasks} task(s) in {wall_seconds:.1f} s", soft_wrap=True)

    def whole(self) -> VariantTally:
        return VariantTally(sum(tally.rendered for tally in self.variants.values()),
                            sum(tally.failed for tally in self.variants.values()),
                            sum(tally.seconds for tally in self.variants.values()),
                            set().union(*(tally.workers for tally in self.variants.values())),
                            self.total)
