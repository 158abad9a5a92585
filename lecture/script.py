"""The narration script: ``OUT/script.md``, what a lecturer reads to record the lecture's voice, one file per
step. The texts are the locale's ``narration`` of each step with this config's numbers, so it comes from
running every scene without drawing (seconds, not a render), in worker processes like any render.
"""

from __future__ import annotations

from rich.console import Console

from lecture.jobs import STEPS_ONLY, JobResult, RenderJob
from lecture.locale import load_locale
from lecture.output_folder import OutputFolder
from lecture.runner import RenderRequest, run_jobs
from lecture.sections import BY_ID
from scenes.numbers import written_numbers

NAME = "script.md"


def build(request: RenderRequest, console: Console) -> int:
    """Write OUT/script.md for the request's sections; returns the exit status."""
    folder = OutputFolder(request.out_dir)
    folder.remove_abandoned_scratch()
    with folder.scratch() as scratch:
        # No narration in the jobs: the script gives each step's length before any recording.
        jobs = [RenderJob(section, request.config, request.quality, STEPS_ONLY, scratch / section, folder.cache)
                for section in request.sections]
        results = run_jobs(jobs, request.jobs, console)
        failed = [result for result in results if result.error]
        for result in failed:
            console.print(f"[red]{BY_ID[result.section].stem}: failed: {result.error}[/red]")
        if failed:
            return 1
        (scratch / NAME).write_text(script_markdown(results, load_locale(request.config.lecture.lang)),
                                    encoding="utf-8")
        with folder.lock():
            folder.commit({NAME: scratch / NAME}, scratch)
    console.print(f"{folder.path / NAME}: {sum(len(result.steps) for result in results)} steps", soft_wrap=True)
    return 0


def script_markdown(results: list[JobResult], strings: dict) -> str:
    """Per section a heading, per step its title, the file to record, its silent length and the text, in the
    locale ``strings``."""
    labels, separator = strings["script"], strings["numbers"]["decimal_separator"]
    lines = [f"# {labels['title']}", "", labels["intro"], ""]
    for result in results:
        section = BY_ID[result.section]
        lines += [f"## {section.number}. {strings[section.id]['title']}", ""]
        for number, step in enumerate(result.steps, 1):
            silent = written_numbers(f"{step['read_until'] - step['start']:.1f}", separator)
            narration = step.get("narration", {})
            lines += [f"### {labels['step']} {number}: {step['title']}", "",
                      f"- {labels['file']}: `{section.stem}/{narration.get('file', '')}.wav`",
                      f"- {labels['silent']}: {silent} s", "",
                      f"> {narration.get('text', step['caption'])}", ""]
    return "\n".join(lines)

