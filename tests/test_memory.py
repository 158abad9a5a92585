"""Memory does not grow with a section's or the lecture's length: a section worker's peak (its own
``ru_maxrss``, recorded in the manifest's timings) for a section rendered at two lengths through the CLI,
the peak of a process joining a long lecture's parts and WAVs, and the parent's and the worker's peaks for a
section with few recordings and with many."""

import os
import re
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np

from audio_files import write_audio
from lecture.render.media import duration_of
from lesson.narration_text import step_file_name
from lesson.sections import BY_ID
from lesson.steps import step_keys
from media_checks import QUIET, TINY, cli_command, manifest, run_quick_cli
from sonify.mix import BLOCK, Timeline, Track, write_wav_blocks
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


RECORDING_SECONDS = 30.0  # 60 s showed the same (200 -> 598 MB before issue 42) at twice the suite's time
PARENT_BUDGET_MB = 300  # the render's own process, whatever narration folder it accepts (issue 42)
# render.py, printing its process's peak as it ends: VmHWM, the peak of this process image alone (ru_maxrss
# would start from the test process's, which an exec inherits)
PEAK_LAUNCHER = textwrap.dedent("""
    import atexit
    import sys


    def peak_mb() -> float:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


    if __name__ == "__main__":
        atexit.register(lambda: print(f"parent peak MB {peak_mb():.1f}", file=sys.stderr))
        from lecture.cli import cli

        cli()
""")


def spoken_take(path: Path, seconds: float) -> Path:
    """A recording ``seconds`` long: a low tone in sentences of 2 s with 0.5 s pauses."""
    rate = 44100
    time = np.arange(int(seconds * rate)) / rate
    return write_audio(path, (0.3 * np.sin(2 * np.pi * 150 * time) * (time % 2.5 < 2.0))[:, None], rate)


def narrated_peaks(folder: Path, recorded: int) -> tuple[float, float]:
    """(parent's, worker's) peak MB rendering the matrix section at TINY with its first ``recorded`` steps
    recorded, each RECORDING_SECONDS long (one file, linked under each step's name)."""
    take = spoken_take(folder / "take.wav", RECORDING_SECONDS)
    recordings = folder / "recordings" / BY_ID["matrix"].stem
    recordings.mkdir(parents=True)
    for number, key in enumerate(step_keys("matrix")[:recorded], 1):
        os.link(take, recordings / f"{step_file_name(number, key)}.wav")
    launcher = folder / "peak.py"
    launcher.write_text(PEAK_LAUNCHER)
    result = subprocess.run(**cli_command("render", "matrix", *TINY, *QUIET, "-j", "1", "--narration",
                                          str(recordings.parent), "-o", str(folder / "out"), launcher=launcher,
                                          env={"PYTHONPATH": str(ROOT)}), capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    entry = manifest(folder / "out")["sections"]["matrix"]
    assert entry["duration"] > recorded * RECORDING_SECONDS  # every recording was spoken
    return float(re.search(r"parent peak MB ([\d.]+)", result.stderr)[1]), entry["timings"]["peak_memory_mb"]


def test_the_parents_and_the_workers_peaks_do_not_grow_with_the_number_of_recordings(tmp_path):
    """The matrix section with 3 of its 15 steps recorded and with all 15, half a minute each (5.8 MB each held
    whole as 48 kHz float32): the same peaks. Before issue 42 the parent decoded and kept every recording and
    sent them all to the worker: here parent 154 -> 346 MB, worker 349 -> 414 MB."""
    few_parent, few_worker = narrated_peaks(tmp_path / "few", 3)
    many_parent, many_worker = narrated_peaks(tmp_path / "many", 15)
    assert flat(few_parent, many_parent) and flat(few_worker, many_worker), \
        (few_parent, many_parent, few_worker, many_worker)
    assert many_parent < PARENT_BUDGET_MB


def test_a_recorded_voice_is_mixed_a_block_at_a_time():
    """A 3-minute voice kept on disk (a ``Track``, as a scene keeps it) placed on the section's track is read a
    BLOCK at a time: read whole as stereo float64 it would be 138 MB. It sounds in the centre from where it was
    placed to its end."""
    seconds = 180
    with Track.holding(np.full(seconds * SAMPLE_RATE, 0.1, dtype=np.float32)) as voice, \
            Track((seconds + 1) * SAMPLE_RATE) as mix:
        tracemalloc.start()
        Timeline(samples=mix).place(voice, 1.0)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 20 * 2 ** 20, peak / 2 ** 20
        centre = 0.1 * np.cos(np.pi / 4)
        assert np.allclose(mix[SAMPLE_RATE - 1:SAMPLE_RATE + 1], [[0, 0], [centre, centre]], atol=1e-7)
        assert np.allclose(mix[len(mix) - 1:], [[centre, centre]], atol=1e-7)
