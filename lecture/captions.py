"""Captions: one Spanish caption per step, as SRT and WebVTT, beside each section's video and for the lecture.

A step's caption covers the same span as its slide (see ``step_spans``), so captions, slides and the
storyboard all agree on where a step begins and ends. A narrated step has one caption per spoken sentence
instead, timed to that sentence in the recording.
"""

from __future__ import annotations

import textwrap
from datetime import timedelta
from pathlib import Path

import srt

LINE_LENGTH = 42  # characters per caption line: the usual limit for subtitles read at a glance


def step_spans(steps: list[dict], duration: float) -> list[tuple[float, float]]:
    """(start, end) in seconds of each step: from the previous step's end to its own end.

    The first span starts at 0 and the last ends at ``duration``, so the spans tile the whole video with
    no gap: the fade between two steps belongs to the step that is fading in.
    """
    ends = [step["end"] for step in steps[:-1]] + [duration]
    return list(zip([0.0, *ends[:-1]], ends))


def section_subtitles(steps: list[dict], duration: float, offset: float = 0.0) -> list[srt.Subtitle]:
    """One subtitle per step with its caption, or per spoken sentence of a narrated step, shifted by
    ``offset`` seconds."""
    parts = []
    for step, span in zip(steps, step_spans(steps, duration)):
        spoken = step.get("narration", {}).get("sentences")
        parts += [(text, (start, end)) for text, start, end in spoken] if spoken else [(step["caption"], span)]
    return [srt.Subtitle(index=number, start=timedelta(seconds=offset + start), end=timedelta(seconds=offset + end),
                         content=_wrapped(text)) for number, (text, (start, end)) in enumerate(parts, 1)]


def lecture_subtitles(sections: list[tuple[list[dict], float]]) -> list[srt.Subtitle]:
    """The sections' subtitles joined, each shifted by the durations of the sections before it.

    ``sections`` holds (steps, duration) in the order the videos were joined.
    """
    joined, offset = [], 0.0
    for steps, duration in sections:
        joined += section_subtitles(steps, duration, offset)
        offset += duration
    return list(srt.sort_and_reindex(joined))


def write_captions(subtitles: list[srt.Subtitle], folder: Path, stem: str) -> dict[str, Path]:
    """Write ``stem.srt`` and ``stem.vtt`` into ``folder``; returns the files by name."""
    written = {}
    for suffix, text in (("srt", srt.compose(subtitles)), ("vtt", webvtt(subtitles))):
        target = folder / f"{stem}.{suffix}"
        target.write_text(text, encoding="utf-8")
        written[target.name] = target
    return written


def webvtt(subtitles: list[srt.Subtitle]) -> str:
    """The same cues as WebVTT, the caption format browsers' <track> elements read."""
    cues = [f"{number}\n{_vtt_time(cue.start)} --> {_vtt_time(cue.end)}\n{cue.content}\n"
            for number, cue in enumerate(subtitles, 1)]
    return "WEBVTT\n\n" + "\n".join(cues)


def _vtt_time(moment: timedelta) -> str:
    milliseconds = moment // timedelta(milliseconds=1)  # truncated, as srt writes its timestamps
    hours, rest = divmod(milliseconds, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, milliseconds = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}.{milliseconds:03d}"


def _wrapped(caption: str) -> str:
    return "\n".join(textwrap.wrap(caption, LINE_LENGTH))
