"""The output formats ``--format`` offers, one record each: what a section's file holds and how it is written.

The CLI's choices, the render workers' branches, the encoders of the finished file, the lecture page's players,
the slides' clips and the memory check all read this table: a format is added here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OutputFormat:
    """One ``--format``: its name is also its files' extension and their container's name."""

    name: str
    video_codec: str | None  # the picture's encoder (manim's for a movie); None: no moving picture
    audio_codec: str | None = None  # the soundtrack's encoder; None: the file has no sound
    audio_options: tuple[tuple[str, str], ...] = ()  # the soundtrack encoder's options, as (name, value)
    subtitle_codec: str | None = None  # the captions' track inside the file; None: captions are not carried
    has_chapters: bool = False  # a chapter per step, titled with the step's title
    joined: bool = False  # the sections in OUT are joined into ``lecture.<name>``
    browser_type: str | None = None  # the MIME type a browser's <video> plays it as; None: the page shows no player
    is_still: bool = False  # one PNG per step's end, its animations skipped
    max_frame: tuple[int, int] | None = None  # the largest frame a worker renders within its memory; None: any
    max_frame_reason: str = ""  # what was measured above max_frame

    @property
    def suffix(self) -> str:
        return f".{self.name}"

    @property
    def has_sound(self) -> bool:
        return self.audio_codec is not None

    @property
    def has_captions(self) -> bool:
        return self.subtitle_codec is not None

    @property
    def picture_only(self) -> bool:
        """Whether manim's file is the finished one: no sound, captions or chapters to add."""
        return not (self.has_sound or self.has_captions or self.has_chapters)

    def fits(self, width: int, height: int) -> bool:
        """Whether frames of ``width`` x ``height`` stay within ``max_frame``'s pixels."""
        return self.max_frame is None or width * height <= self.max_frame[0] * self.max_frame[1]


# ffmpeg's AAC encoder searches each frame's quantisers twice by default ("twoloop"): with a voice that took 4 % of
# the sound's length (13.7 s of CPU for the narrated matrix section's 334 s, encoded once in the section and again
# in the lecture). Its "fast" coder took 6.4 s, and at our 192 kb/s stays closer to the mix (52 dB signal to
# error against 32 dB; the same bytes within 2 %).
MP4 = OutputFormat("mp4", video_codec="libx264", audio_codec="aac", audio_options=(("aac_coder", "fast"),),
                   subtitle_codec="mov_text", has_chapters=True, joined=True, browser_type="video/mp4")
# A WebM worker runs two VP9 encoders (lecture.render.jobs: max_inflight_encoders) and each holds about 0.8 to 1.1 GB at
# 3840x2160 whatever its settings (lag-in-frames 0 to 25): measured, pipeline --steps 2 at 60 fps, 2474 MB at
# 3840x2160 and 1341 MB at 2560x1440, the largest WebM allowed (mp4: see scenes/speedups.py).
WEBM = OutputFormat("webm", video_codec="libvpx-vp9", audio_codec="libopus", subtitle_codec="webvtt",
                    has_chapters=True, joined=True, browser_type="video/webm", max_frame=(2560, 1440),
                    max_frame_reason="at 3840x2160 a worker's VP9 encoders took 2.4 GB, over its 2 GB")
GIF = OutputFormat("gif", video_codec="gif")  # picture only: made from an MP4 of the section (scenes.speedups)
PNG = OutputFormat("png", video_codec=None, is_still=True)

BY_NAME = {output.name: output for output in (MP4, WEBM, GIF, PNG)}  # in --help's order
FORMATS = tuple(BY_NAME)  # --format's choices
DEFAULT_FORMAT = MP4
