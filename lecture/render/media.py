"""Video files: probing, and writing one from remuxed video (a section, or sections joined into the lecture),
a soundtrack encoded once, chapters and subtitles, every stream interleaved in time order."""

from __future__ import annotations

import heapq
from itertools import chain
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from lesson.formats import BY_NAME
from sonify.mix import BLOCK, blocks, pcm16, wav_blocks

AUDIO_FRAME = 1024  # samples per frame handed to the audio encoder
MILLISECOND = Fraction(1, 1000)
# WebVTT cue text reads "&" and "<" as the start of a reference or a tag, and "-->" ends a cue's timing line.
VTT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# The subtitle encoders read an ASS event: "{\" opens an override block ({\i1} italics, the block dropped) and
# "\N" breaks the line. A WORD JOINER (U+2060, no width) after each "{" and "\" in a user's words keeps both
# from forming, as the SubRip captions do (the config refuses invisible characters, so none was there before).
ASS_ESCAPES = str.maketrans({"{": "{\u2060", "\\": "\\\u2060"})
# The subtitle encoders read their cues as ASS events, so they need an ASS header; players style the text.
ASS_HEADER = ("[Script Info]\nScriptType: v4.00+\nPlayResX: 384\nPlayResY: 288\n\n[V4+ Styles]\n"
              "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, "
              "Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, "
              "Alignment, MarginL, MarginR, MarginV, Encoding\n"
              "Style: Default,Sans,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0\n\n"
              "[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n")


@dataclass(frozen=True)
class TextTracks:
    """What a video carries besides picture and sound, each item (start, end, text) in seconds: chapters
    (one per step, its title) and subtitle cues (lines split by newlines), in ``language`` (ISO 639-2)."""

    chapters: tuple[tuple[float, float, str], ...] = ()
    cues: tuple[tuple[float, float, str], ...] = ()
    language: str = "und"


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


def join_videos(parts: list[Path], target: Path, soundtracks=None, sample_rate: int = 48000,
                tracks: TextTracks = TextTracks()) -> None:
    """Concatenate the video streams of ``parts`` into ``target`` with ``tracks``' chapters and subtitles;
    with ``soundtracks`` (one per part: its WAV's path, or an (n, 2) array), encode the lecture's audio once
    from them, each placed at its part's video offset, so no codec priming piles up at the joins. WAVs are
    read a block at a time: memory does not grow with the lecture's length."""
    samples = None if soundtracks is None else joined_soundtrack(parts, soundtracks, sample_rate)
    write_video(parts, target, samples, sample_rate, tracks)


def joined_soundtrack(parts: list[Path], soundtracks, sample_rate: int) -> Iterator[np.ndarray]:
    """The parts' soundtracks end to end as (n, 2) blocks, part k starting at sample round(sum of earlier
    video lengths x rate): each cut at the next part's start, silence where one is shorter than its video."""
    starts = np.round(np.cumsum([0.0] + [video_duration(part) for part in parts]) * sample_rate).astype(int)
    for length, soundtrack in zip(np.diff(starts), soundtracks):
        written = 0
        for block in _sound_blocks(soundtrack):
            block = block[:length - written]
            written += len(block)
            yield block
        yield from _silence(length - written)


def _sound_blocks(soundtrack) -> Iterator[np.ndarray]:
    """A soundtrack's (n, 2) blocks: a WAV's read as they are needed, an array's sliced."""
    if isinstance(soundtrack, (str, Path)):
        return wav_blocks(Path(soundtrack))
    return (block for _, block in blocks(soundtrack))


def _silence(length: int) -> Iterator[np.ndarray]:
    for start in range(0, length, BLOCK):
        yield np.zeros((min(BLOCK, length - start), 2))


def add_audio(video: Path, samples, sample_rate: int, target: Path, tracks: TextTracks = TextTracks()) -> None:
    """Copy ``video``'s stream and encode ``samples`` (its WAV's path, or stereo floats, (n, 2)) as its audio
    track into ``target``, with ``tracks``' chapters and subtitles."""
    write_video([video], target, None if samples is None else _sound_blocks(samples), sample_rate, tracks)


def write_video(parts: list[Path], target: Path, samples=None, sample_rate: int = 48000,
                tracks: TextTracks = TextTracks()) -> None:
    """Write ``target``: the video streams of ``parts`` end to end (packets remuxed, no re-encode), ``samples``
    (stereo floats: (n, 2) blocks one after the other, or one (n, 2) array) as its audio, ``tracks``' chapters
    and subtitle cues, each with the encoder of ``target``'s format (its suffix); packets go in time order so a
    player streaming the file finds each second's picture, sound and text together."""
    written_as = BY_NAME[target.suffix[1:]]
    with av.open(str(parts[0])) as template, av.open(str(target), "w", format=written_as.name) as output:
        # Every stream and the chapters are set up before the first packet: muxing writes the header.
        packets = [_video_packets(parts, output.add_stream_from_template(template.streams.video[0]))]
        if samples is not None:
            audio = output.add_stream(written_as.audio_codec, rate=sample_rate, layout="stereo",
                                      options=dict(written_as.audio_options))
            audio.bit_rate = 192_000
            packets.append(_audio_packets(samples, sample_rate, audio))
        if tracks.cues and written_as.has_captions:
            subtitles = output.add_stream(written_as.subtitle_codec)
            subtitles.metadata["language"] = tracks.language
            subtitles.codec_context.subtitle_header = ASS_HEADER.encode()
            packets.append(_subtitle_packets(tracks.cues, subtitles))
        if tracks.chapters and written_as.has_chapters:
            output.set_chapters([{"id": number, "start": _milliseconds(start), "end": _milliseconds(end),
                                  "time_base": MILLISECOND, "metadata": {"title": title}}
                                 for number, (start, end, title) in enumerate(tracks.chapters, 1)])
        for _, packet in heapq.merge(*packets, key=lambda timed: timed[0]):
            output.mux(packet)


def _video_packets(parts: list[Path], stream) -> Iterator[tuple[float, av.Packet]]:
    """(decoding time in seconds, packet) of each part's video, shifted to start where the previous ended."""
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
                yield float(packet.dts * packet.time_base), packet
        offset += video_duration(part)


def _audio_packets(pieces, sample_rate: int, stream) -> Iterator[tuple[float, av.Packet]]:
    """(decoding time in seconds, packet) of the (n, 2) float blocks ``pieces`` encoded as 16-bit stereo,
    AUDIO_FRAME samples a frame (a block's last few samples wait for the next block)."""
    pieces = [pieces] if isinstance(pieces, np.ndarray) else pieces
    pending, sent = np.zeros((0, 2), dtype="<i2"), 0
    for block in chain(pieces, [None]):  # None: the end, where a last short frame goes out
        pending = pending if block is None else np.concatenate([pending, pcm16(block)])
        whole = len(pending) if block is None else len(pending) // AUDIO_FRAME * AUDIO_FRAME
        for start in range(0, whole, AUDIO_FRAME):
            frame = av.AudioFrame.from_ndarray(pending[start:start + AUDIO_FRAME].reshape(1, -1), format="s16",
                                               layout="stereo")
            frame.sample_rate, frame.pts = sample_rate, sent + start
            yield from _timed(stream.encode(frame))
        pending, sent = pending[whole:], sent + whole
    yield from _timed(stream.encode(None))  # what the encoder still holds


def _timed(packets) -> Iterator[tuple[float, av.Packet]]:
    return ((float(packet.dts * packet.time_base), packet) for packet in packets)


def _subtitle_packets(cues, stream) -> Iterator[tuple[float, av.Packet]]:
    """(start in seconds, packet) of each cue, encoded as the container's text subtitles."""
    webvtt = stream.codec_context.name == "webvtt"  # ffmpeg's WebVTT encoder passes the text through as it is
    for start, end, text in sorted(cues):
        text = text.translate(ASS_ESCAPES).translate(VTT_ESCAPES) if webvtt else text.translate(ASS_ESCAPES)
        event = "0,0,Default,,0,0,0,," + text.replace("\n", "\\N")  # an ASS event: \N breaks a line
        cue = av.subtitles.subtitle.SubtitleSet.create(event.encode(), 0, _milliseconds(end) - _milliseconds(start),
                                                       _milliseconds(start))
        packet = stream.codec_context.encode_subtitle(cue)
        packet.time_base, packet.stream = MILLISECOND, stream
        yield start, packet


def _milliseconds(seconds: float) -> int:
    return round(seconds * 1000)
