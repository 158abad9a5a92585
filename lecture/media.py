"""Video files: probing, joining sections into one lecture without re-encoding, muxing a soundtrack."""

from __future__ import annotations

from pathlib import Path

import av


def duration_of(path: Path) -> float:
    """Length in seconds of the longest stream."""
    with av.open(str(path)) as container:
        durations = [float(stream.duration * stream.time_base) for stream in container.streams
                     if stream.duration is not None]
        # WebM stores no per-stream duration, only the container's (in microseconds)
        return max(durations) if durations else container.duration / av.time_base


def join_videos(parts: list[Path], target: Path) -> None:
    """Concatenate files with identical stream layouts by remuxing packets (no re-encode) into ``target``."""
    with av.open(str(parts[0])) as template, av.open(str(target), "w", format=target.suffix[1:]) as output:
        streams = {stream.index: output.add_stream_from_template(stream) for stream in template.streams}
        last_dts = {index: None for index in streams}
        offset = 0.0  # seconds already written
        for part in parts:
            with av.open(str(part)) as source:
                for packet in source.demux():
                    if packet.dts is None:  # the demuxer's end-of-stream marker
                        continue
                    index = packet.stream.index
                    shift = round(offset / packet.time_base)
                    packet.dts += shift
                    if packet.pts is not None:
                        packet.pts += shift
                    if last_dts[index] is not None and packet.dts <= last_dts[index]:
                        # AAC's priming packet starts before 0: keep the stream's timestamps increasing
                        packet.dts = last_dts[index] + 1
                        packet.pts = max(packet.pts, packet.dts) if packet.pts is not None else None
                    last_dts[index] = packet.dts
                    packet.stream = streams[index]
                    output.mux(packet)
            offset += duration_of(part)


def add_audio(video: Path, samples, sample_rate: int, target: Path) -> None:
    """Copy ``video``'s stream and encode ``samples`` (mono floats) as its audio track into ``target``."""
    import numpy as np

    codec = {".mp4": "aac", ".webm": "libopus", ".mov": "aac"}[target.suffix]
    pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767).astype(np.int16)
    with av.open(str(video)) as source, av.open(str(target), "w", format=target.suffix[1:]) as output:
        video_in = source.streams.video[0]
        video_out = output.add_stream_from_template(video_in)
        audio_out = output.add_stream(codec, rate=48000 if codec == "libopus" else sample_rate, layout="mono")
        audio_out.bit_rate = 160_000
        for packet in source.demux(video_in):
            if packet.dts is not None:
                packet.stream = video_out
                output.mux(packet)
        chunk = 1024
        for start in range(0, len(pcm), chunk):
            frame = av.AudioFrame.from_ndarray(pcm[None, start:start + chunk], format="s16", layout="mono")
            frame.sample_rate, frame.pts = sample_rate, start
            output.mux(audio_out.encode(frame))
        output.mux(audio_out.encode(None))
