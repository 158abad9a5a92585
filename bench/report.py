"""The benchmark's results as Markdown tables, the way docs/performance.md shows them.

``python -m bench.report`` prints the tables for ``bench/results.json``; ``python -m bench`` prints
them after a run.
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results.json"
SECTION_COLUMNS = (("section", "section"), ("quality", "quality"), ("render_s", "render s"), ("frames", "frames"),
                   ("fps", "frames/s"), ("peak_memory_mb", "peak MiB"), ("sound_share", "sound share"),
                   ("floor_s", "floor s"), ("ratio_to_floor", "× floor"))
LENGTH_COLUMNS = (("section", "section"), ("tokens", "tokens"), ("wall_s", "wall s"), ("mobjects", "mobjects"),
                  ("peak_memory_mb", "peak MiB"))
UHD_COLUMNS = (("section", "section"), ("config", "config"), ("steps", "steps"), ("video_s", "video s"),
               ("peak_memory_mb", "peak MiB"))
LISTENING_COLUMNS = (("section", "section"), ("lang", "language"), ("words", "words"), ("errors", "errors"),
                     ("wer", "WER"))
QUALITY_NAMES = {"l": "480p15", "m": "720p30"}
PEAK_MEMORY_TARGETS = {"l": 1024, "m": 1024}  # MiB a section's worker may take at most (720p and below: 1 GB)
UHD_PEAK_MEMORY_TARGET = 2048  # MiB at 2160p
FLAT_MB, FLAT_SHARE = 50, 0.15  # what a longer clip may add to a worker's peak, as tests/test_memory.py allows


def keep(name: str, measured) -> None:
    """``measured`` into bench/results.json under ``name``, beside what earlier runs measured."""
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    RESULTS.write_text(json.dumps(previous | {name: measured}, indent=2, ensure_ascii=False) + "\n")


def table(rows: list[dict], columns) -> str:
    lines = ["| " + " | ".join(title for _, title in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row.get(key, "")) for key, _ in columns) + " |" for row in rows]
    return "\n".join(lines)


def memory_check(rows: list[dict], size: str, limit: float) -> tuple[str, str, str, bool]:
    """The target row for the largest peak memory of a section's worker among ``rows`` (renders at ``size``)."""
    worst = max(rows, key=lambda row: row["peak_memory_mb"])
    return (f"peak memory of a section's worker, {size} (worst: {worst['section']})",
            f"{worst['peak_memory_mb']} MiB", f"≤ {limit} MiB", worst["peak_memory_mb"] <= limit)


def uhd_checks(rows: list[dict]) -> list[tuple[str, str, str, bool]]:
    """2160p60: the largest peak, and the peak flat between two clips of one config of different lengths."""
    checks = [memory_check(rows, "2160p60 clips", UHD_PEAK_MEMORY_TARGET)]
    for short in rows:
        for long in rows:
            if (long["section"], long["config"]) == (short["section"], short["config"]) \
                    and long["video_s"] > short["video_s"]:
                allowed = max(short["peak_memory_mb"] + FLAT_MB, short["peak_memory_mb"] * (1 + FLAT_SHARE))
                checks.append((f"2160p60 peak flat with length ({long['section']}, {long['config']}: "
                               f"{short['video_s']} s → {long['video_s']} s)",
                               f"{short['peak_memory_mb']} → {long['peak_memory_mb']} MiB", f"≤ {allowed:.0f} MiB",
                               long["peak_memory_mb"] <= allowed))
    return checks


def targets(results: dict) -> str:
    """The benchmark's targets (and the batch's, once measured), each with what was measured."""
    pipeline = {row["tokens"]: row["wall_s"] for row in results["length_scaling"] if row["section"] == "pipeline"}
    worst = max(row["ratio_to_floor"] for row in results["sections"] if "ratio_to_floor" in row)
    checks = [memory_check([row for row in results["sections"] if row["quality"] == quality], QUALITY_NAMES[quality],
                           limit) for quality, limit in PEAK_MEMORY_TARGETS.items()]
    checks += uhd_checks(results["uhd_peaks"]) if "uhd_peaks" in results else []
    checks += [("unchanged second render", f"{results['second_render_speedup']}× faster", "≥ 20×",
               results["second_render_speedup"] >= 20),
              ("lecture `-j 2` vs `-j 1`", f"{results['speedup_j2']}×", "≥ 1.6×", results["speedup_j2"] >= 1.6),
              ("per-frame cost vs manim's floor, 720p30 (worst section)", f"{worst}×", "≤ 2×", worst <= 2),
              ("pipeline 32 tokens vs 8", f"{pipeline[32] / pipeline[8]:.2f}×", "≤ 4×", pipeline[32] <= 4 * pipeline[8])]
    if "learned_training" in results:  # measured since issue 29 (``python -m bench.learned``)
        learned = results["learned_training"]
        checks.append(("learned section's training, cold (CPU s, peak MiB)",
                       f"{learned['cpu_s']} s, {learned['peak_mb']} MiB",
                       f"≤ {learned['budget_cpu_s']} s, ≤ {learned['budget_peak_mb']} MiB", learned["met"]))
    if "listening" in results:  # written by ``python -m bench.listen``
        checks.append(listening_check(results["listening"]))
    if "batch" in results:  # written by ``python -m bench.batch``
        batch = results["batch"]
        checks.append((f"batch on Dask, 2 workers vs 1 (ceiling on 2 cores: {batch['ceiling_2_cores']}×)",
                       f"{batch['speedup_2_workers']}×", f"≥ {batch['target']}×", batch["met"]))
    lines = ["| target | measured | wanted | met |", "|---|---|---|---|"]
    lines += [f"| {name} | {measured} | {wanted} | {'yes' if met else 'no'} |" for name, measured, wanted, met in checks]
    return "\n".join(lines)


def listening_check(listening: dict) -> tuple[str, str, str, bool]:
    """The target row for the narration as Whisper base hears it: the worst section's word error rate."""
    worst = max(listening["rows"], key=lambda row: row["wer"])
    return (f"narration heard by Whisper base, word error rate (worst: {worst['section']}, {worst['lang']})",
            f"{worst['wer']:.1%}", f"≤ {listening['target_wer']:.0%}", listening["met"])


def listening_markdown(listening: dict) -> str:
    """The word error rate of each section and language, then every misheard word by step (∅: nothing)."""
    summary = (f"Narration heard on {listening['date']}: {listening['speech_s']} s of speech, "
               f"{listening['cpu_per_speech_s']} CPU s per second of speech (threads: {listening['threads']}).")
    misheard = "\n".join(misheard_line(row) for row in listening["rows"] if row["misheard"])
    return "\n\n".join(part for part in (summary, table(listening["rows"], LISTENING_COLUMNS), misheard) if part)


def misheard_line(row: dict) -> str:
    """``- **scaling (es)**: 01-variance: producto → promucto, k → ∅; 02-spread: ...``"""
    return f"- **{row['section']} ({row['lang']})**: " + "; ".join(
        f"{step}: {words}" for step, words in row["misheard"].items())


def markdown(results: dict) -> str:
    summary = (f"Measured on {results['date']} ({results['machine']}); the benchmark took "
               f"{results['bench_minutes']} minutes. Lecture at 480p15: `-j 1` {results['lecture_j1_s']} s, "
               f"`-j 2` {results['lecture_j2_s']} s (cores kept busy: {results['cores_busy_j1']} with `-j 1`, "
               f"{results['cores_busy_j2']} with `-j 2`), unchanged second render {results['unchanged_second_s']} s. "
               f"Matrix section: {results['matrix_first_s']} s the first time, "
               f"{results['matrix_one_entry_changed_render_s']} s after changing one entry of X "
               f"({results['matrix_one_entry_changed_s']} s for the whole command). "
               f"manim's floor at 720p30: {results['floor_ms_per_frame_720p30']} ms a frame.")
    tables = [table(results["sections"], SECTION_COLUMNS), table(results["length_scaling"], LENGTH_COLUMNS)]
    if "uhd_peaks" in results:  # measured since issue 31
        tables.append(table(results["uhd_peaks"], UHD_COLUMNS))
    if "listening" in results:
        tables.append(listening_markdown(results["listening"]))
    return "\n\n".join([summary, targets(results), *tables])


if __name__ == "__main__":
    print(markdown(json.loads(RESULTS.read_text())))
