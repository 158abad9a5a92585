"""The narration script: ``OUT/script.md``, what a lecturer reads to record the lecture's voice, one file per
step. The texts are the locale's ``narration`` of each step with this config's numbers, so it comes from
running every scene without drawing (seconds, not a render), in worker processes like any render.
"""

from __future__ import annotations

import re

from rich.console import Console

from lecture.render.jobs import STEPS_ONLY, JobResult, RenderJob
from lecture.render.output_folder import OutputFolder
from lecture.render.runner import RenderRequest, run_jobs
from lesson.numbers import written_numbers
from lesson.sections import BY_ID

NAME = "script.md"
# What CommonMark (and the HTML it lets through) reads as markup inside a line: emphasis, code, links, raw
# HTML and character references, headings' closing #, GitHub's strikethrough and table cells.
MARKDOWN_MARKUP = re.compile(r"[\\`*_\[\]<>&#~|]")
# What starts a block when it begins a line: a list item (-, +, "3." or "3)") or a setext underline (=).
BLOCK_START = re.compile(r"^(?:[-+=]|\d+[.)])")


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
        (scratch / NAME).write_text(script_markdown(results, request.config.locale()),
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
            silent = written_numbers(f"{step.read_until - step.start:.1f}", separator)
            narration = step.narration
            lines += [f"### {labels['step']} {number}: {markdown_text(step.title)}", "",
                      f"- {labels['file']}: `{section.stem}/{narration.get('file', '')}.wav`",
                      f"- {labels['silent']}: {silent} s", "",
                      f"> {markdown_text(narration.get('text', step.caption))}", ""]
    return "\n".join(lines)


def markdown_text(text: str) -> str:
    """``text`` (a user's words may be in it) as literal Markdown on one line: each run of white space one
    space, markup characters behind a backslash, and no block marker at the start."""
    line = MARKDOWN_MARKUP.sub(r"\\\g<0>", " ".join(text.split()))
    return BLOCK_START.sub(lambda start: start[0][:-1] + "\\" + start[0][-1], line)
