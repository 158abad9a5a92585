"""Muxing the soundtrack and joining sections, on small videos made here."""

from pathlib import Path

import av
import numpy as np
import pytest

from lecture.media import add_audio, duration_of, join_videos
from media_checks import decoded_audio, decoded_frame_count, streams
from sonify.synth import SAMPLE_RATE, tone


def silent_video(path: Path, frames: int, fps: int = 5) -> Path:
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = 64, 64, "yuv420p"
        for index in range(frames):
            image = np.full((64, 64, 3), index * 10 % 255, dtype=np.uint8)
            container.mux(stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")))
        container.mux(stream.encode(None))
    return path


@pytest.fixture
def sections(tmp_path):
    made = []
    for number, (frames, pitch) in enumerate(((10, 440.0), (15, 660.0))):
        video = silent_video(tmp_path / f"silent{number}.mp4", frames)
        samples = 0.5 * tone(pitch, duration_of(video))
        add_audio(video, samples, SAMPLE_RATE, tmp_path / f"part{number}.mp4")
        made.append(tmp_path / f"part{number}.mp4")
    return made


def test_audio_is_muxed_with_the_video_duration(sections):
    found = streams(sections[0])
    assert found["audio"]["codec"] == "aac"
    assert found["audio"]["duration"] == pytest.approx(found["video"]["duration"], abs=0.05)
    samples, rate = decoded_audio(sections[0])
    spectrum = np.abs(np.fft.rfft(samples[rate // 10:]))
    assert np.argmax(spectrum) * rate / len(samples[rate // 10:]) == pytest.approx(440, rel=0.01)


def test_joined_sections_keep_every_frame_and_both_streams(sections, tmp_path):
    lecture = tmp_path / "lecture.mp4"
    join_videos(sections, lecture)
    assert decoded_frame_count(lecture) == 25
    found = streams(lecture)
    assert found["video"]["duration"] == pytest.approx(5.0, abs=0.01)
    assert found["audio"]["duration"] == pytest.approx(5.0, abs=0.05)
    samples, rate = decoded_audio(lecture)
    second_half = samples[int(2.5 * rate): int(4.5 * rate)]
    spectrum = np.abs(np.fft.rfft(second_half))
    assert np.argmax(spectrum) * rate / len(second_half) == pytest.approx(660, rel=0.01)
