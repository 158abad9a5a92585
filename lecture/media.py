"""Video files: probing, joining sections into one lecture (video remuxed, audio encoded once), muxing a soundtrack."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np


def duration_of(path: Path) -> float:
    """Length in seconds of the longest stream."""
    with av.open(str(path)) as container:
        durations = [float(stream.duration * stream.time_base) for stream in container.streams
                     if stream.duration is not None]
        # WebM stores no per-stream duration, only the container's (in microseconds)
        return max(durations) if durations else container.duration / av.time_base


def video_duration(path: Path) -> float:
    """Length in seconds of the video stream alone (an audio track may run a codec frame longer): its
    stored duration, or (WebM stores none) the end of its last frame, pts + one frame."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        if stream.duration is not None:
            return float(stream.duration * stream.time_base)
        last = max(packet.pts for packet in container.demux(stream) if packet.pts is not None)
        return float(last * stream.time_base + 1 / stream.average_rate)


def join_videos(parts: list[Path], target: Path, soundtracks=None, sample_rate: int = 48000) -> None:
    """Concatenate the video streams of ``parts`` by remuxing packets (no re-encode) into ``target``; with
    ``soundtracks`` (one (n, 2) array per part), encode the lecture's audio once from them, each placed at
    its part's video offset, so no codec priming piles up at the joins."""
    silent = target.with_name(f"video-only-{target.name}") if soundtracks is not None else target
    with av.open(str(parts[0])) as template, av.open(str(silent), "w", format=target.suffix[1:]) as output:
        stream = output.add_stream_from_template(template.streams.video[0])
        offset, last_dts = 0.0, None  # seconds already written; the last packet's decoding time
        for part in parts:
            with av.open(str(part)) as source:
                for packet in source.demux(source.streams.video[0]):
                    if packet.dts is None:  # the demuxer's end-of-stream marker
                        continue
                    shift = round(offset / packet.time_base)
                    packet.dts += shift
                    if packet.pts is not None:
                        packet.pts += shift
                    if last_dts is not None and packet.dts <= last_dts:  # keep decoding times increasing
                        packet.dts = last_dts + 1
                        packet.pts = max(packet.pts, packet.dts) if packet.pts is not None else None
                    last_dts = packet.dts
                    packet.stream = stream
                    output.mux(packet)
            offset += video_duration(part)
    if soundtracks is not None:
        add_audio(silent, joined_soundtrack(parts, soundtracks, sample_rate), sample_rate, target)
        silent.unlink()


def joined_soundtrack(parts: list[Path], soundtracks, sample_rate: int) -> np.ndarray:
    """The parts' soundtracks end to end, part k starting at sample round(sum of earlier video lengths x rate)."""
    starts = np.round(np.cumsum([0.0] + [video_duration(part) for part in parts]) * sample_rate).astype(int)
    joined = np.zeros((starts[-1], 2))
    for start, end, samples in zip(starts, starts[1:], soundtracks):
        length = min(end - start, len(samples))
        joined[start:start + length] = samples[:length]
    return joined


def add_audio(video: Path, samples, sample_rate: int, target: Path) -> None:
    """Copy ``video``'s stream and encode ``samples`` (stereo floats, (n, 2)) as its audio track into ``target``."""
    codec = {".mp4": "aac", ".webm": "libopus", ".mov": "aac"}[target.suffix]
    pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767).astype(np.int16)
    with av.open(str(video)) as source, av.open(str(target), "w", format=target.suffix[1:]) as output:
        video_in = source.streams.video[0]
        video_out = output.add_stream_from_template(video_in)
        audio_out = output.add_stream(codec, rate=sample_rate, layout="stereo")
        audio_out.bit_rate = 192_000
        for packet in source.demux(video_in):
            if packet.dts is not None:
                packet.stream = video_out
                output.mux(packet)
        chunk = 1024
        for start in range(0, len(pcm), chunk):
            frame = av.AudioFrame.from_ndarray(pcm[start:start + chunk].reshape(1, -1), format="s16",
                                               layout="stereo")
            frame.sample_rate, frame.pts = sample_rate, start
            output.mux(audio_out.encode(frame))
        output.mux(audio_out.encode(None))
