"""Measure the renderer: per section and quality, against manim's floor, parallel speed-up, the
up-to-date check, the everyday "change one entry" loop, growth with sentence length, sound's share.

Prints a table and writes ``bench/results.json``. Every render runs through ``render.py`` as a user
runs it, in a fresh temporary output directory.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results.json"
QUALITIES = {"l": (854, 480, 15), "m": (1280, 720, 30)}
LENGTHS = {"pipeline": (4, 8, 16, 32), "heads": (4, 8, 12)}  # heads designs at most 12 words
WORDS = "el gato se sienta en la mesa y mira por la ventana".split()


def render(out: Path, *arguments: str) -> float:
    """Wall seconds of one ``render.py render`` call; fails loudly if the render fails."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, str(ROOT / "render.py"), "render", *arguments, "-o", str(out)],
                            capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit(f"bench: render {' '.join(arguments)} failed:\n{result.stderr}")
    return time.perf_counter() - started


def entry(out: Path, section: str) -> dict:
    return json.loads((out / "manifest.json").read_text())["sections"][section]


def floor_seconds(frames: int, width: int, height: int, fps: int) -> float:
    with tempfile.TemporaryDirectory() as media:
        result = subprocess.run([sys.executable, "-m", "bench.floor", str(frames), str(width), str(height), str(fps),
                                 media], capture_output=True, text=True, cwd=ROOT, check=True)
    return float(result.stdout.strip().splitlines()[-1])


def sections() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from lecture.sections import available_sections

    return [section.id for section in available_sections()]


def per_section(work: Path) -> list[dict]:
    rows = []
    for section in sections():
        for quality, (width, height, fps) in QUALITIES.items():
            out = work / f"{section}-{quality}"
            wall = render(out, section, "-q", quality, "-j", "1")
            found = entry(out, section)
            frames = round(found["duration"] * fps)
            row = {"section": section, "quality": quality, "wall_s": round(wall, 2), "frames": frames,
                   "fps": round(frames / wall, 1), "peak_memory_mb": found["timings"]["peak_memory_mb"],
                   "sound_share": round(found["timings"]["sound_seconds"] / (found["timings"]["scene_seconds"]
                                                                                + found["timings"]["sound_seconds"]), 3)}
            if quality == "m":
                floor = floor_seconds(frames, width, height, fps)
                row.update(floor_s=round(floor, 2), ratio_to_floor=round(found["timings"]["scene_seconds"] / floor, 2))
            rows.append(row)
            print(row, flush=True)
    return rows


def lecture_runs(work: Path) -> dict:
    one = render(work / "j1", "-q", "l", "-j", "1")
    two = render(work / "j2", "-q", "l", "-j", "2")
    again = render(work / "j2", "-q", "l", "-j", "2")
    return {"lecture_j1_s": round(one, 1), "lecture_j2_s": round(two, 1), "speedup_j2": round(one / two, 2),
            "unchanged_second_s": round(again, 2), "second_render_speedup": round(two / again, 1)}


def one_entry_loop(work: Path) -> dict:
    first = render(work / "loop", "matrix", "-q", "l")
    changed = render(work / "loop", "matrix", "-q", "l", "--set", "matrix.X=[[1,0],[0,2],[1,2]]")
    return {"matrix_first_s": round(first, 1), "matrix_one_entry_changed_s": round(changed, 1)}


def length_scaling(work: Path) -> list[dict]:
    rows = []
    for section, lengths in LENGTHS.items():
        if section not in sections():
            continue
        for n in lengths:
            sentence = " ".join((WORDS * 4)[:n])
            out = work / f"{section}-{n}"
            wall = render(out, section, "-q", "l", "--no-audio", "--set", f"{section}.sentence='{sentence}'")
            rows.append({"section": section, "tokens": n, "wall_s": round(wall, 1),
                         "mobjects": entry(out, section)["timings"]["mobjects"]})
            print(rows[-1], flush=True)
    return rows


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        results = {"date": date.today().isoformat(), "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                   f"Python {platform.python_version()}", "sections": per_section(work)}
        results.update(lecture_runs(work))
        results.update(one_entry_loop(work))
        results["length_scaling"] = length_scaling(work)
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    print(json.dumps({key: value for key, value in results.items() if not isinstance(value, list)}, indent=2))


if __name__ == "__main__":
    main()
