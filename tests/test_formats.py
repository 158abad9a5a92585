"""Every --format through the real CLI at tiny size, decoded: WebM and GIF here, of the quick section
(tests/quick_section: what a format holds is the same for every section, and it renders in a few seconds); MP4 in
test_captions and test_render_cli, PNG stills in test_render_cli."""

import av
import numpy as np
import pytest

from lecture.render.captions import step_spans
from lesson.records import steps_of
from media_checks import TINY, chapters, decoded_frame_count, manifest, rendered_once, run_quick_cli, streams
from quick_section.record import SECTION as QUICK
from test_captions import parse_vtt, to_the_millisecond, unwrapped

FPS = 5


def rendered(tmp_path_factory, video_format: str, *extra: str):
    out, result = rendered_once(tmp_path_factory, f"quick-tiny-{video_format}{''.join(extra)}", "render", QUICK.id,
                                *TINY, "--format", video_format, "-j", "1", *extra, cli=run_quick_cli)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def webm(tmp_path_factory):
    """Clean (``--clean``): its captions, not burned in, are its subtitles."""
    return rendered(tmp_path_factory, "webm", "--clean")


@pytest.fixture(scope="module")
def gif(tmp_path_factory):
    return rendered(tmp_path_factory, "gif")


def test_webm_holds_vp9_opus_and_every_frame(webm):
    entry = manifest(webm)["sections"][QUICK.id]
    found = streams(webm / f"{QUICK.stem}.webm")
    # clean: its captions are not in the picture, so they are its WebVTT track (a narrated WebM's: test_formats_once)
    assert {kind: info["codec"] for kind, info in found.items()} == {"video": "vp9", "audio": "opus",
                                                                     "subtitle": "webvtt"}
    assert (found["video"]["width"], found["video"]["height"]) == (256, 144)
    assert decoded_frame_count(webm / f"{QUICK.stem}.webm") == round(entry["duration"] * FPS)
    assert decoded_frame_count(webm / "lecture.webm") == round(entry["duration"] * FPS)


@pytest.mark.parametrize("name", [QUICK.stem, "lecture"])
def test_webm_carries_a_chapter_per_step_and_the_webvtt_captions_beside_it(webm, name):
    steps = steps_of(manifest(webm)["sections"][QUICK.id])
    duration = manifest(webm)["sections"][QUICK.id]["duration"]
    expected = [(start, end, step.title) for step, (start, end) in zip(steps, step_spans(steps, duration))]
    assert to_the_millisecond(chapters(webm / f"{name}.webm")) == to_the_millisecond(expected)
    beside = parse_vtt((webm / f"{name}.vtt").read_text(encoding="utf-8"))  # the clean section's captions
    assert [unwrapped(text) for _, _, text in beside] == [step.caption for step in steps]


def test_webm_interleaves_picture_and_sound_so_it_plays_while_it_downloads(webm):
    """In file order, the audio packet last read is never more than a second from the video packet last read."""
    with av.open(str(webm / f"{QUICK.stem}.webm")) as container:
        latest, widest = {}, 0.0
        for packet in container.demux(*container.streams.video, *container.streams.audio):
            if packet.dts is not None:
                latest[packet.stream.type] = float(packet.dts * packet.time_base)
                if len(latest) == 2:
                    widest = max(widest, abs(latest["video"] - latest["audio"]))
    assert 0 < widest <= 1.0


def test_gif_decodes_to_every_frame_of_the_section_at_its_size_and_loops(gif):
    entry = manifest(gif)["sections"][QUICK.id]
    assert entry["files"] == [f"{QUICK.stem}.gif"] and entry["format"] == "gif"
    data = (gif / f"{QUICK.stem}.gif").read_bytes()
    assert data.startswith(b"GIF89a") and b"NETSCAPE2.0" in data[:4096]  # the loop extension: plays on repeat
    with av.open(str(gif / f"{QUICK.stem}.gif")) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "gif"
        frames = [frame.to_ndarray(format="rgb24") for frame in container.decode(stream)]
    assert len(frames) == round(entry["duration"] * FPS)
    assert frames[-1].shape == (144, 256, 3)
    assert len(np.unique(frames[len(frames) // 2].reshape(-1, 3), axis=0)) > 10  # a drawn frame, not a blank one
    assert not list(gif.glob("lecture.*"))  # a GIF has no joined lecture, no sound and no captions
