"""Captions: one per step, SRT and WebVTT beside each video and for the lecture, inside the video's time."""

import re
from datetime import timedelta

import pytest
import srt

from lecture.captions import lecture_subtitles, step_spans
from media_checks import TINY, manifest, run_cli, shared_output, streams

VTT_TIMING = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d\d\d) --> (\d\d):(\d\d):(\d\d)\.(\d\d\d)$")


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    out = shared_output(tmp_path_factory, "matrix-tiny")
    result = run_cli("render", "matrix", *TINY, "-o", str(out), "-j", "1")
    assert result.returncode == 0, result.stderr
    return out


def parse_vtt(text: str) -> list[tuple[float, float, str]]:
    """(start, end, text) of each cue; fails on anything that is not WebVTT."""
    header, *blocks = text.strip().split("\n\n")
    assert header == "WEBVTT"
    cues = []
    for block in blocks:
        identifier, timing, *lines = block.split("\n")
        assert identifier.isdigit() and lines, block
        parts = [int(part) for part in VTT_TIMING.match(timing).groups()]
        start, end = (3600 * h + 60 * m + s + ms / 1000 for h, m, s, ms in (parts[:4], parts[4:]))
        cues.append((start, end, " ".join(lines)))
    return cues


def unwrapped(content: str) -> str:
    return " ".join(content.split("\n"))


def test_srt_has_one_caption_per_step_inside_the_video(out):
    entry = manifest(out)["sections"]["matrix"]
    captions = list(srt.parse((out / "01-matrix.srt").read_text(encoding="utf-8")))
    duration = streams(out / "01-matrix.mp4")["video"]["duration"]
    assert [unwrapped(caption.content) for caption in captions] == [step["caption"] for step in entry["steps"]]
    assert captions[0].start == timedelta(0)
    assert captions[-1].end.total_seconds() <= duration
    for before, after in zip(captions, captions[1:]):
        assert before.start < before.end == after.start  # one after the other, no gap, no overlap


def test_vtt_has_the_same_cues_as_the_srt(out):
    cues = parse_vtt((out / "01-matrix.vtt").read_text(encoding="utf-8"))
    captions = list(srt.parse((out / "01-matrix.srt").read_text(encoding="utf-8")))
    assert cues == [(caption.start.total_seconds(), caption.end.total_seconds(), unwrapped(caption.content))
                    for caption in captions]


def test_caption_lines_are_short(out):
    captions = srt.parse((out / "01-matrix.srt").read_text(encoding="utf-8"))
    assert all(len(line) <= 42 for caption in captions for line in caption.content.split("\n"))


def test_captions_are_tracked_in_the_manifest(out):
    entry = manifest(out)["sections"]["matrix"]
    assert {"01-matrix.srt", "01-matrix.vtt"} <= set(entry["files"]) <= set(entry["sha256"])


def test_lecture_captions_cover_the_lecture(out):
    lecture = list(srt.parse((out / "lecture.srt").read_text(encoding="utf-8")))
    section = list(srt.parse((out / "01-matrix.srt").read_text(encoding="utf-8")))
    assert [caption.content for caption in lecture] == [caption.content for caption in section]
    assert lecture[-1].end.total_seconds() <= streams(out / "lecture.mp4")["video"]["duration"] + 0.05
    assert len(parse_vtt((out / "lecture.vtt").read_text(encoding="utf-8"))) == len(lecture)


def test_joined_captions_are_shifted_by_the_sections_before_them():
    first = [{"caption": "uno", "end": 2.0}, {"caption": "dos", "end": 5.0}]
    second = [{"caption": "tres", "end": 1.5}, {"caption": "cuatro", "end": 3.0}]
    joined = lecture_subtitles([(first, 6.0), (second, 4.0)])
    assert [(caption.start.total_seconds(), caption.end.total_seconds(), caption.content) for caption in joined] == [
        (0.0, 2.0, "uno"), (2.0, 6.0, "dos"), (6.0, 7.5, "tres"), (7.5, 10.0, "cuatro")]
    assert [caption.index for caption in joined] == [1, 2, 3, 4]


def test_step_spans_tile_the_video():
    assert step_spans([{"end": 1.0}, {"end": 2.5}, {"end": 4.0}], 4.5) == [(0.0, 1.0), (1.0, 2.5), (2.5, 4.5)]
