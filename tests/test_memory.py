"""Memory does not grow with a section's or the lecture's length: a section worker's peak (its own
``ru_maxrss``, recorded in the manifest's timings) for a section rendered at two lengths through the CLI,
and the peak of a process joining a long lecture's parts and WAVs."""

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from lecture.render.media import duration_of
from media_checks import TINY, manifest, run_quick_cli
from sonify.mix import BLOCK, write_wav_blocks
from sonify.synth import SAMPLE_RATE, pan, tone
from test_media import silent_video

ROOT = Path(__file__).resolve().parent.parent
FLAT_MB, FLAT_SHARE = 50, 0.15  # what a longer render may add to the peak (the larger): allocator noise and
# the longer section's extra captions, not a copy of its soundtrack


def flat(short: float, long: float) -> bool:
    """Whether ``long`` is within FLAT_MB or FLAT_SHARE of ``short``."""
    return long <= max(short + FLAT_MB, short * (1 + FLAT_SHARE))


def worker_peak(out: Path, draw_seconds: float) -> tuple[float, float]:
    """(seconds, worker's peak MB) of the quick section rendered at TINY with each drawing ``draw_seconds`` long."""
    result = run_quick_cli("render", "quick", *TINY, "-j", "1", "-o", str(out),
                           "--set", f"quick.draw_seconds={draw_seconds}", timeout=600)
    assert result.returncode == 0, result.stderr
    entry = manifest(out)["sections"]["quick"]
    return entry["duration"], entry["timings"]["peak_memory_mb"]


def test_a_section_workers_peak_memory_does_not_grow_with_the_sections_length(tmp_path):
    """The quick section (tests/quick_section) with the same things on screen, drawn for 16 s and for over three
    minutes: the worker's peak stays flat. Its soundtrack held whole would add 0.77 MB a second (48 kHz stereo
    floats), some 140 MB; before issue 31 the pipeline section's peak grew from 1279 MB at 225 s to 1560 MB at
    293 s."""
    short_seconds, short_peak = worker_peak(tmp_path / "short", 0.6)
    long_seconds, long_peak = worker_peak(tmp_path / "long", 60)
    assert long_seconds > short_seconds + 150
    assert flat(short_peak, long_peak), (short_seconds, short_peak, long_seconds, long_peak)


def long_wav(path: Path, seconds: float) -> Path:
    """A WAV ``seconds`` long of a tone sounding a fifth of each second, as cues do (a steady tone costs the AAC
    encoder twice the time), written a block at a time."""
    block = pan(0.3 * tone(440.0, BLOCK / SAMPLE_RATE), 0.0)
    block[np.arange(BLOCK) % SAMPLE_RATE >= SAMPLE_RATE // 5] = 0.0
    length = int(seconds * SAMPLE_RATE)
    write_wav_blocks((block[:min(BLOCK, length - start)] for start in range(0, length, BLOCK)), path)
    return path


def join_peak(folder: Path, seconds: int) -> float:
    """Peak MB of a fresh process joining two parts of ``seconds`` each (video and WAV) into a lecture."""
    folder.mkdir()
    parts = [silent_video(folder / f"part{k}.mp4", seconds, fps=1) for k in range(2)]  # long, cheap to make
    wavs = [long_wav(folder / f"part{k}.wav", duration_of(part)) for k, part in enumerate(parts)]
    script = textwrap.dedent(f"""
        import resource
        from pathlib import Path
        from lecture.render.media import join_videos
        join_videos([Path(p) for p in {[str(p) for p in parts]}], Path({str(folder / "lecture.mp4")!r}),
                    [Path(w) for w in {[str(w) for w in wavs]}], {SAMPLE_RATE})
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    assert duration_of(folder / "lecture.mp4") >= 2 * seconds - 1
    return float(result.stdout.split()[-1])


def test_joining_a_long_lecture_holds_its_sound_a_block_at_a_time(tmp_path):
    """A 7-minute lecture (two parts of 3.5 minutes; as float64 its sound alone is 160 MB, three times FLAT_MB)
    joins in as little memory as a 1-minute one."""
    short, long = join_peak(tmp_path / "short", 30), join_peak(tmp_path / "long", 210)
    assert flat(short, long), (short, long)
