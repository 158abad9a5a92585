"""Muxing the soundtrack, chapters and captions, and joining sections, on small videos made here."""

import html
import re
from pathlib import Path

import av
import numpy as np
import pytest
from scipy import signal as scipy_signal

from lecture.render.captions import lecture_tracks
from lecture.render.media import add_audio, duration_of, join_videos
from media_checks import chapters, decoded_audio, decoded_frame_count, step_record, streams, subtitle_cues
from sonify.synth import SAMPLE_RATE, pan, tone

FPS = 5


def silent_video(path: Path, frames: int, fps: int = FPS) -> Path:
    with av.open(str(path), "w") as container:
        stream = container.add_stream({".mp4": "libx264", ".webm": "libvpx-vp9"}[path.suffix], rate=fps)
        stream.width, stream.height, stream.pix_fmt = 64, 64, "yuv420p"
        for index in range(frames):
            image = np.full((64, 64, 3), index * 10 % 255, dtype=np.uint8)
            container.mux(stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")))
        container.mux(stream.encode(None))
    return path


def clicks(duration: float, seed: int) -> np.ndarray:
    """A stereo soundtrack of short noise bursts at random times: sharp peaks under cross-correlation."""
    rng = np.random.default_rng(seed)
    samples = np.zeros((int(round(duration * SAMPLE_RATE)), 2))
    for at in rng.uniform(0.05, duration - 0.1, 6):
        start = int(at * SAMPLE_RATE)
        samples[start:start + 480] += 0.3 * rng.standard_normal((480, 2))
    return samples


@pytest.fixture
def sections(tmp_path):
    made = []
    for number, (frames, pitch) in enumerate(((10, 440.0), (15, 660.0))):
        video = silent_video(tmp_path / f"silent{number}.mp4", frames)
        samples = pan(0.5 * tone(pitch, duration_of(video)), -0.5)
        add_audio(video, samples, SAMPLE_RATE, tmp_path / f"part{number}.mp4")
        made.append(tmp_path / f"part{number}.mp4")
    return made


def test_audio_is_stereo_48_khz_aac_with_the_video_duration_and_its_pan(sections):
    found = streams(sections[0])
    assert found["audio"]["codec"] == "aac"
    assert found["audio"]["duration"] == pytest.approx(found["video"]["duration"], abs=0.05)
    with av.open(str(sections[0])) as container:
        frames = list(container.decode(audio=0))
    assert frames[0].sample_rate == 48000 and frames[0].layout.nb_channels == 2
    left, right = np.concatenate([frame.to_ndarray() for frame in frames], axis=1)
    spectrum = np.abs(np.fft.rfft(left[4800:]))
    assert np.argmax(spectrum) * 48000 / len(left[4800:]) == pytest.approx(440, rel=0.01)
    # pan -0.5: left cos(pi/8), right sin(pi/8)
    assert np.std(left[4800:]) / np.std(right[4800:]) == pytest.approx(np.tan(3 * np.pi / 8), rel=0.05)


def test_joined_sections_keep_every_frame_and_both_streams(sections, tmp_path):
    lecture = tmp_path / "lecture.mp4"
    soundtracks = [pan(0.5 * tone(pitch, duration_of(part)), 0.0) for part, pitch in zip(sections, (440, 660))]
    join_videos(sections, lecture, soundtracks, SAMPLE_RATE)
    assert decoded_frame_count(lecture) == 25
    found = streams(lecture)
    assert found["video"]["duration"] == pytest.approx(5.0, abs=0.01)
    assert found["audio"]["duration"] == pytest.approx(5.0, abs=0.05)
    samples, rate = decoded_audio(lecture)
    second_half = samples[int(2.5 * rate): int(4.5 * rate)]
    spectrum = np.abs(np.fft.rfft(second_half))
    assert np.argmax(spectrum) * rate / len(second_half) == pytest.approx(660, rel=0.01)
    assert not (tmp_path / "video-only-lecture.mp4").exists()


def lag_of(section: np.ndarray, lecture: np.ndarray, offset: int, search: int) -> int:
    """Where ``section`` sits in ``lecture`` relative to ``offset`` samples: the cross-correlation's peak."""
    window = lecture[max(0, offset - search): offset + len(section) + search]
    correlation = scipy_signal.correlate(window, section, mode="valid", method="fft")
    return int(np.argmax(correlation)) - (offset - max(0, offset - search))


@pytest.mark.parametrize("suffix", [".mp4", ".webm"])
def test_lecture_audio_sits_under_each_sections_picture_within_one_frame(tmp_path, suffix):
    """Six sections of odd lengths, each heard exactly at its video offset in the decoded lecture."""
    parts, soundtracks, offsets = [], [], [0.0]
    for number, frames in enumerate((13, 21, 8, 17, 11, 26)):
        video = silent_video(tmp_path / f"silent{number}{suffix}", frames)
        soundtracks.append(clicks(frames / FPS, seed=number))
        parts.append(tmp_path / f"part{number}{suffix}")
        add_audio(video, soundtracks[-1], SAMPLE_RATE, parts[-1])
        offsets.append(offsets[-1] + frames / FPS)
    lecture = tmp_path / f"lecture{suffix}"
    join_videos(parts, lecture, soundtracks, SAMPLE_RATE)
    with av.open(str(lecture)) as container:
        decoded = np.concatenate([frame.to_ndarray() for frame in container.decode(audio=0)], axis=1)[0]
    assert len(decoded) >= round(offsets[-1] * SAMPLE_RATE)
    for samples, offset in zip(soundtracks, offsets):
        lag = lag_of(samples[:, 0], decoded, round(offset * SAMPLE_RATE), search=SAMPLE_RATE // 2)
        assert abs(lag) / SAMPLE_RATE <= 1 / FPS, lag
        assert abs(lag) <= 48, lag  # in fact within a millisecond: no codec priming piles up


@pytest.mark.parametrize("suffix, codec", [(".mp4", "mov_text"), (".webm", "webvtt")])
def test_joined_lecture_carries_every_sections_chapters_and_cues_at_its_offset(tmp_path, suffix, codec):
    """Two sections of 2 s and 3 s, the second's last step narrated: its chapters and subtitles start 2 s
    into the lecture. The silent section's subtitles are its captions; the narrated one's only its spoken sentences
    (its silent step's caption is on screen)."""
    parts = [silent_video(tmp_path / f"part{number}{suffix}", frames) for number, frames in enumerate((10, 15))]
    first = [step_record("Las entradas", "Tres tokens, dimensión 2.", 1.2),
             step_record("Consultas: Q = XW_Q", "√d_k, QKᵀ y −∞", 1.8)]
    second = [step_record("Año", "una línea bastante larga que hay que partir en dos líneas", 1.0),
              step_record("Voz", "no se muestra: la voz habla", 3.0,
               narration={"sentences": [["Primera frase.", 1.25, 2.0], ["Segunda.", 2.5, 2.75]]})]
    tracks = lecture_tracks([(first, 2.0, []), (second, 3.0, [])])
    lecture = tmp_path / f"lecture{suffix}"
    join_videos(parts, lecture, None, SAMPLE_RATE, tracks)
    assert chapters(lecture) == [(0.0, 1.2, "Las entradas"), (1.2, 2.0, "Consultas: Q = XW_Q"), (2.0, 3.0, "Año"),
                                 (3.0, 5.0, "Voz")]
    assert subtitle_cues(lecture) == (codec, "spa", [  # a narrated step's sentences keep the pauses between them
        (0.0, 1.2, "Tres tokens, dimensión 2."), (1.2, 2.0, "√dₖ, QKᵀ y −∞"),  # as the screen writes d_k
        (3.25, 4.0, "Primera frase."), (4.5, 4.75, "Segunda.")])
    assert decoded_frame_count(lecture) == 25


@pytest.mark.parametrize("suffix", [".mp4", ".webm"])
def test_a_users_words_in_the_video_subtitle_track_read_as_written(tmp_path, suffix):
    """Cue text reaches the encoders as an ASS event: "{\\i1}" would turn italic and vanish, "\\N" break the line;
    WebM's WebVTT track would keep "<script>" as a tag and "&amp;" as a reference. As stored (and, for WebVTT,
    unescaped as a player reads it), each cue is the words as typed, word joiners aside."""
    video = silent_video(tmp_path / f"part{suffix}", 10)
    words = ["a{\\i1}q\\Nr", "<script>x&amp;y", "a-->b {b} c\\d"]
    tracks = lecture_tracks([([step_record(f"Paso {number}", text, 0.6 * number)
                               for number, text in enumerate(words, 1)], 2.0, [])])
    target = tmp_path / f"hostile{suffix}"
    join_videos([video], target, None, SAMPLE_RATE, tracks)
    codec, _, cues = subtitle_cues(target)
    read = [text for _, _, text in cues]
    if codec == "webvtt":  # stored as WebVTT cue text: no tag, no bare reference, then read as a player does
        assert not any("<" in text or re.search(r"&(?!amp;|lt;|gt;)", text) for text in read)
        read = [html.unescape(text) for text in read]
    assert [text.replace("\u2060", "") for text in read] == words
