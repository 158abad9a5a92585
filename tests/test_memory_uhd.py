"""A 2160p worker stays under 2 GB (issue 31): x264 looks ahead few frames there, and a WebM whose VP9 encoders
would pass 2 GB is refused before rendering. ``python -m bench.uhd`` measures the peaks (pipeline at 2160p60:
2937 MB with x264's default 40 frames of lookahead, 1661 MB with 10; WebM 2474 MB)."""

import re

from media_checks import manifest, run_cli, run_quick_cli
from test_memory import flat

UHD = ("--resolution", "3840x2160", "--fps", "1")  # a few frames of 2160p: the encoder's settings, not its peak
MAX_LOOKAHEAD = 10  # frames: each is about 25 MB in x264 at 2160p, for each of a worker's two encoders


def test_a_2160p_video_is_encoded_looking_ahead_at_most_ten_frames(tmp_path):
    """x264 writes its settings into the stream (an SEI of every partial movie's first frame): each says how many
    frames it looked ahead."""
    result = run_cli("render", "matrix", *UHD, "--steps", "1", "--no-audio", "-j", "1", "-o", str(tmp_path))
    assert result.returncode == 0, result.stderr
    lookaheads = [int(frames) for frames in re.findall(rb"rc_lookahead=(\d+)", (tmp_path / "01-matrix-steps-01.mp4")
                                                       .read_bytes())]
    assert lookaheads and max(lookaheads) <= MAX_LOOKAHEAD, lookaheads


def test_a_2160p_webm_is_refused_in_one_line_before_rendering(tmp_path):
    out = tmp_path / "out"
    result = run_cli("render", "pipeline", "-q", "k", "--format", "webm", "-o", str(out), timeout=60)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "--format webm" in result.stderr and "3840x2160" in result.stderr
    assert not out.exists()


def gif_peak(out, draw_seconds: float) -> tuple[float, float]:
    """(seconds, worker's peak MB) of a GIF of the quick section (tests/quick_section) with each drawing
    ``draw_seconds`` long: 480x270 frames, 5 a second."""
    result = run_quick_cli("render", "quick", "--format", "gif", "--resolution", "480x270", "--fps", "5",
                           "--set", f"quick.draw_seconds={draw_seconds}", "-j", "1", "-o", str(out), timeout=600)
    assert result.returncode == 0, result.stderr
    entry = manifest(out)["sections"]["quick"]
    return entry["duration"], entry["timings"]["peak_memory_mb"]


def test_a_gifs_worker_does_not_hold_its_frames(tmp_path):
    """manim made a GIF in one pass that kept every frame until the palette was known at the end (pipeline
    at 480x270, 10 fps: 610 MB for 35 s, 1268 MB for 110 s); in two passes the peak stays flat. Held, the long
    render's 600 extra frames would add some 240 MB (0.4 MB each). Both renders draw for 20 s or more at a time:
    the encoders' buffers fill in the first seconds of a long play (measured: 192 MB drawn 0.6 s at a time, 233 MB
    20 s at a time, 227 MB 40 s at a time), and stay so."""
    short_seconds, short_peak = gif_peak(tmp_path / "short", 20)
    long_seconds, long_peak = gif_peak(tmp_path / "long", 60)
    assert long_seconds > short_seconds + 100
    assert flat(short_peak, long_peak), (short_seconds, short_peak, long_seconds, long_peak)
