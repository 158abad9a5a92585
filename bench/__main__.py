"""Measure the renderer: per section and quality, against manim's floor, parallel speed-up, the
up-to-date check, the everyday "change one entry" loop, growth with sentence length, sound's share, and
each section worker's peak memory (its own ``ru_maxrss``, from the manifest's timings), also at 2160p60 on
short clips of the heaviest sections (``UHD_CLIPS``), and the learned section's training from a cold cache
(``bench/learned.py``).

Prints Markdown tables (bench/report.py) and writes ``bench/results.json``. Every render runs through ``render.py`` as a user
runs it, in a fresh temporary output directory. Per-section numbers come from the manifest of a
whole-lecture render with ``-j 1`` (one section at a time, so nothing else competes for the cores):
``render_s`` is the section's time in its worker, scene plus soundtrack.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from bench import learned
from bench.report import RESULTS, markdown

ROOT = Path(__file__).resolve().parent.parent
QUALITIES = {"l": (854, 480, 15), "m": (1280, 720, 30)}
FLOOR_FRAMES = 1800  # about one section's worth at 720p30
LENGTHS = {"pipeline": (4, 8, 16, 32), "heads": (4, 8, 12)}  # heads designs at most 12 words
WORDS = "el gato se sienta en la mesa y mira por la ventana".split()
CHANGED_ENTRY = "matrix.X=[[1,0],[0,2],[1,2]]"  # the default X with its last entry changed
# The longest pipeline sentence the config accepts: 32 words (lab.MAX_TOKENS) filling its 400 characters
# (validation.MAX_SENTENCE_CHARACTERS): 16 words of 12 letters and 16 of 11, with their spaces.
LONG_WORDS = "electroimane transformado probabilidad computadoras significados informacione conocimiento representado"
LONGEST = " ".join([*LONG_WORDS.split() * 2, *(word[:11] for word in LONG_WORDS.split() * 2)])
# 2160p60 clips (a whole lecture at 2160p takes hours here): (section, config overrides, --steps). A worker's peak
# does not depend on the clip's length (x264's lookahead and the frames in flight are full within a step), so the
# clips are short; the longest sentence is rendered at two lengths to show it.
UHD_CLIPS = (("pipeline", (), "2"), ("pipeline", (f"pipeline.sentence='{LONGEST}'",), "4"),
             ("pipeline", (f"pipeline.sentence='{LONGEST}'",), "3..4"), ("capital", (), "4"))


def render(out: Path, *arguments: str) -> float:
    """Wall seconds of one ``render.py render`` call; fails loudly if the render fails."""
    return timed_render(out, *arguments)[0]


def timed_render(out: Path, *arguments: str) -> tuple[float, float]:
    """Wall seconds and CPU seconds (all its processes, user + system) of one ``render.py render`` call."""
    cpu_before = children_cpu_seconds()
    started = time.perf_counter()
    result = subprocess.run([sys.executable, str(ROOT / "render.py"), "render", *arguments, "-o", str(out)],
                            capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"bench: render {' '.join(arguments)} failed:\n{result.stderr}")
    return time.perf_counter() - started, children_cpu_seconds() - cpu_before


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sections_of(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())["sections"]


def floor_seconds_per_frame(width: int, height: int, fps: int) -> float:
    """manim's own cost of one frame: FLOOR_FRAMES static frames of this size, see bench/floor.py."""
    with tempfile.TemporaryDirectory() as media:
        result = subprocess.run([sys.executable, "-m", "bench.floor", str(FLOOR_FRAMES), str(width), str(height),
                                 str(fps), media], capture_output=True, text=True, cwd=ROOT, check=True)
    return float(result.stdout.strip().splitlines()[-1]) / FLOOR_FRAMES


def section_rows(out: Path, quality: str, floor_per_frame: float | None = None) -> list[dict]:
    _, _, fps = QUALITIES[quality]
    rows = []
    for section, entry in sections_of(out).items():
        timings = entry["timings"]
        seconds = timings["scene_seconds"] + timings["sound_seconds"]
        frames = round(entry["duration"] * fps)
        row = {"section": section, "quality": quality, "render_s": round(seconds, 1), "frames": frames,
               "fps": round(frames / seconds, 1), "peak_memory_mb": timings["peak_memory_mb"],
               "sound_share": round(timings["sound_seconds"] / seconds, 3)}
        if floor_per_frame is not None:
            floor = frames * floor_per_frame
            row.update(floor_s=round(floor, 1), ratio_to_floor=round(timings["scene_seconds"] / floor, 2))
        rows.append(row)
    return rows


def lectures(work: Path) -> tuple[list[dict], dict]:
    """The lecture at 480p15 with -j 1 and -j 2 (both from nothing: LaTeX and Pango caches cold), the
    unchanged second render, one changed entry, and at 720p30 with -j 1 in the -j 1 folder, whose warm
    caches leave the per-frame cost to compare with manim's floor."""
    one, one_cpu = timed_render(work / "j1", "-q", "l", "-j", "1")
    rows = section_rows(work / "j1", "l")
    two, two_cpu = timed_render(work / "j2", "-q", "l", "-j", "2")
    again = render(work / "j2", "-q", "l", "-j", "2")
    # Cores kept busy (CPU seconds / wall seconds): -j 1 already overlaps drawing with encoding, so 2 cores
    # can speed it up by at most 2 / cores_busy_j1.
    summary = {"lecture_j1_s": round(one, 1), "lecture_j2_s": round(two, 1), "speedup_j2": round(one / two, 2),
               "cores_busy_j1": round(one_cpu / one, 2), "cores_busy_j2": round(two_cpu / two, 2),
               "unchanged_second_s": round(again, 2), "second_render_speedup": round(two / again, 1)}
    print(summary, flush=True)
    changed = render(work / "j2", "matrix", "-q", "l", "--set", CHANGED_ENTRY)
    matrix = sections_of(work / "j2")["matrix"]["timings"]
    summary.update(matrix_first_s=next(row["render_s"] for row in rows if row["section"] == "matrix"),
                   matrix_one_entry_changed_s=round(changed, 1),
                   matrix_one_entry_changed_render_s=round(matrix["scene_seconds"] + matrix["sound_seconds"], 1))
    render(work / "j1", "-q", "m", "-j", "1")
    floor = floor_seconds_per_frame(*QUALITIES["m"])
    summary["floor_ms_per_frame_720p30"] = round(1000 * floor, 2)
    rows += section_rows(work / "j1", "m", floor)
    for row in rows:
        print(row, flush=True)
    return rows, summary


def length_scaling(work: Path) -> list[dict]:
    """Sections rendered with 4 to 32 words at 256x144, 2 fps without sound, in the -j 1 folder: building
    the scene, where the n x n cells and lines live, outweighs drawing at that size, and the caches are
    warm, so the times show the growth rather than LaTeX."""
    rows = []
    for section, lengths in LENGTHS.items():
        for n in lengths:
            sentence = " ".join((WORDS * 4)[:n])
            wall = render(work / "j1", section, "--resolution", "256x144", "--fps", "2", "--no-audio",
                          "--set", f"{section}.sentence='{sentence}'")
            timings = sections_of(work / "j1")[section]["timings"]
            rows.append({"section": section, "tokens": n, "wall_s": round(wall, 1), "mobjects": timings["mobjects"],
                         "peak_memory_mb": timings["peak_memory_mb"]})
            print(rows[-1], flush=True)
    return rows


def uhd_peaks(work: Path) -> list[dict]:
    """Each of UHD_CLIPS rendered at 2160p60 with -j 1: its length and its worker's peak memory."""
    rows = []
    for number, (section, overrides, steps) in enumerate(UHD_CLIPS):
        out = work / f"uhd{number}"
        render(out, section, "-q", "k", "-j", "1", "--steps", steps,
               *(argument for override in overrides for argument in ("--set", override)))
        clip = next(iter(json.loads((out / "manifest.json").read_text())["clips"].values()))
        rows.append({"section": section, "config": "longest sentence" if overrides else "default", "steps": steps,
                     "video_s": clip["duration"], "peak_memory_mb": clip["timings"]["peak_memory_mb"]})
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        results = {"date": date.today().isoformat(), "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                   f"Python {platform.python_version()}"}
        results["sections"], summary = lectures(work)
        results.update(summary)
        results["length_scaling"] = length_scaling(work)
        results["uhd_peaks"] = uhd_peaks(work)
    results["learned_training"] = learned.measure()
    results["bench_minutes"] = round((time.perf_counter() - started) / 60, 1)
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    print(markdown(results))


if __name__ == "__main__":
    main()
