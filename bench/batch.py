"""Batches: 8 variants of the matrix section (each its own X) at 480p15, on the local process pool, and as Dask
tasks on a LocalCluster of 1 and of 2 worker processes (one thread each, caches cold at the start of each run).

``per_task_s`` is wall seconds per task and worker (wall x workers / tasks); ``overhead_s`` is what it adds to the
render itself (the section's scene and sound seconds in its worker): starting a process and importing manim for
the local pool, shipping the job and its files for Dask. ``python -m bench.batch`` prints the rows and adds them to
``bench/results.json`` as ``batch``.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import time
from pathlib import Path

from rich.console import Console

from bench.report import RESULTS
from lecture.batch import run_batch
from lecture.batch_variants import read_variants

SECTION, STEM, VARIANTS = "matrix", "01-matrix", 8
TARGET_SPEEDUP = 1.6


def variants_file(folder: Path) -> Path:
    """VARIANTS variants of the section at 480p15, each with an X of its own (so each is rendered)."""
    lines = [f'[defaults]\nsections = ["{SECTION}"]\nquality = "l"\n']
    lines += [f'[variants.v{n}]\nconfig."matrix.X" = [[1, 0], [0, 2], [1, {n}]]\n' for n in range(VARIANTS)]
    path = folder / "variants.toml"
    path.write_text("\n".join(lines))
    return path


def run(folder: Path, workers: int | None) -> dict:
    """One batch from nothing (None: the local pool); its wall time and the render seconds its manifests record."""
    from distributed import LocalCluster

    out = folder / f"out-{workers or 'local'}"
    os.environ["XDG_CACHE_HOME"] = str(folder / f"cache-{workers}")  # the workers' caches start cold
    variants = read_variants(variants_file(folder), out, jobs=1)
    started = time.perf_counter()
    if workers is None:
        status = run_batch(variants, None, Console(file=io.StringIO()))
    else:
        with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cluster:
            started = time.perf_counter()
            status = run_batch(variants, cluster.scheduler_address, Console(file=io.StringIO()))
    wall = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"bench: the batch with {workers or 'the local pool'} failed")
    renders = [render_seconds(out / variant.name) for variant in variants]
    per_task = wall * (workers or 1) / VARIANTS
    return {"mode": "dask" if workers else "local pool", "workers": workers or 1, "wall_s": round(wall, 1),
            "per_task_s": round(per_task, 2), "render_s": round(sum(renders) / VARIANTS, 2),
            "overhead_s": round(per_task - sum(renders) / VARIANTS, 2)}


def render_seconds(folder: Path) -> float:
    timings = json.loads((folder / "manifest.json").read_text())["sections"][SECTION]["timings"]
    return timings["scene_seconds"] + timings.get("sound_seconds", 0.0)


def measure() -> dict:
    with tempfile.TemporaryDirectory() as directory:
        rows = [run(Path(directory), workers) for workers in (None, 1, 2)]
    for row in rows:
        print(row, flush=True)
    speedup = rows[1]["wall_s"] / rows[2]["wall_s"]
    return {"rows": rows, "speedup_2_workers": round(speedup, 2), "target": TARGET_SPEEDUP,
            "met": speedup >= TARGET_SPEEDUP}


if __name__ == "__main__":
    results = measure()
    print({key: value for key, value in results.items() if key != "rows"})
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    RESULTS.write_text(json.dumps(previous | {"batch": results}, indent=2, ensure_ascii=False) + "\n")
