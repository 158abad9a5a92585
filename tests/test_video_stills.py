"""The reviewers' still measure (scene_checks.video_stills) on clips made here, whose motion is known."""

import av
import numpy as np
import pytest

from scene_checks import video_freezes, video_stills

WIDTH, HEIGHT = 256, 144


def write_clip(path, fps, frames):
    """Encode grey ``frames`` (functions of time in s -> 2-D uint8 array) at ``fps``."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        for index, picture in enumerate(frames):
            frame = av.VideoFrame.from_ndarray(np.stack([picture(index / fps)] * 3, axis=-1), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def square(brightness, left=100):
    picture = np.full((HEIGHT, WIDTH), 20, np.uint8)
    picture[50:90, left:left + 40] = brightness
    return picture


def fading(seconds, start=2.0):
    """2 s of a dark frame, then a square fading in over ``seconds``, then 3 s of it finished."""
    return lambda t: square(20 + int(220 * min(max(t - start, 0) / seconds, 1)))


@pytest.mark.parametrize("fps", [30, 10])
def test_a_slow_fade_is_still_to_a_viewer_where_the_first_frame_measure_sees_it_move(tmp_path, fps):
    clip = write_clip(tmp_path / "fade.mp4", fps, [fading(8.0)] * int(13 * fps))
    stills = video_stills(clip)
    assert len(stills) == 1 and stills[0][0] == pytest.approx(0, abs=0.2) and stills[0][1] == pytest.approx(13, abs=0.2)
    assert all(end - start < 6 for start, end in video_freezes(clip, longest=0))  # compared with a stretch's start


@pytest.mark.parametrize("fps", [30, 10])
def test_a_quick_fade_or_a_moving_square_breaks_a_still(tmp_path, fps):
    quick = [fading(0.2, start=5.0)] * int(10 * fps)
    assert [round(b - a) for a, b in video_stills(write_clip(tmp_path / "q.mp4", fps, quick), longest=0)] == [5, 5]
    half_second = [fading(0.5, start=5.0)] * int(10 * fps)  # 15 levels a frame at 30 fps: still at any rate
    assert [round(b - a) for a, b in video_stills(write_clip(tmp_path / "h.mp4", fps, half_second), longest=0)] == [10]
    moving = [lambda t: square(240, left=20 + int(20 * t))] * int(8 * fps)
    assert video_stills(write_clip(tmp_path / "m.mp4", fps, moving), longest=0.5) == []


def patched(raised_by: int, frames: slice, fps: int = 5):
    """A still dark screen where a patch of 48 pixels (6x8) is ``raised_by`` levels in the frames ``frames``."""
    def picture(t):
        shown = square(20)
        if round(t * fps) in range(*frames.indices(10 * fps)):
            shown[20:26, 30:38] += raised_by
        return shown
    return [picture] * (10 * fps)


def test_one_faint_frame_is_the_encoders_flicker_but_a_bright_one_or_a_lasting_faint_change_is_not(tmp_path):
    """video_freezes at the tiny lecture's 5 fps and 256x144: one frame 48 px off by 30 levels (just over the floor of
    0.001 of the pixels, 36.9, as a P-frame of a still screen was measured) keeps the stretch; the same pixels by 200
    levels (a light running round a row) or a faint change that stays end it."""
    flicker = write_clip(tmp_path / "flicker.mp4", 5, patched(30, slice(20, 21)))
    assert [round(end - start) for start, end in video_freezes(flicker, longest=0)] == [10]
    light = write_clip(tmp_path / "light.mp4", 5, patched(200, slice(20, 21)))
    assert [(round(start, 1), round(end, 1)) for start, end in video_freezes(light, longest=0)] == \
        [(0, 4.0), (4.0, 4.2), (4.2, 10.0)]
    lasting = write_clip(tmp_path / "lasting.mp4", 5, patched(30, slice(20, None)))
    assert [(round(start, 1), round(end, 1)) for start, end in video_freezes(lasting, longest=0)] == \
        [(0, 4.0), (4.0, 10.0)]
