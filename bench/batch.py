"""Batches: 8 variants of the matrix section (each its own X) at 480p15, on the local process pool, and as Dask
tasks on a LocalCluster of 1 and of 2 worker processes (one thread each).

Each mode first renders one untimed variant per worker, so the timed batch runs as the bulk of a long batch does:
workers started, typesetting caches warm. ``per_task_s`` is wall seconds per task and worker (wall x workers /
tasks); ``overhead_s`` is what it adds to the render itself (the section's scene and sound seconds in its worker):
starting a process and importing manim for the local pool, shipping the job and its files for Dask.
``cores_busy`` is the CPU seconds the renders used over the wall time: one render keeps more than one core busy
(manim encodes frames in a thread beside the one drawing them), so two workers on two cores can gain at most
``2 / cores_busy`` of one worker. ``python -m bench.batch`` prints the rows and adds them to ``bench/results.json``
as ``batch``.
"""

from __future__ import annotations

import io
import json
import resource
import tempfile
import time
from pathlib import Path

from rich.console import Console

from bench.report import RESULTS
from lecture.batch.run import run_batch
from lecture.batch.variants import read_variants

SECTION, VARIANTS = "matrix", 8
TARGET_SPEEDUP = 1.6


def variants_file(folder: Path, names: range, tag: str) -> Path:
    """The section at 480p15 once for each of ``names``, each with an X of its own (so each is rendered)."""
    lines = [f'[defaults]\nsections = ["{SECTION}"]\nquality = "l"\n']
    lines += [f'[variants.{tag}{n + 10}]\nconfig."matrix.X" = [[1, 0], [0, 2], [1, {n}]]\n' for n in names]
    path = folder / f"{tag}.toml"
    path.write_text("\n".join(lines))
    return path


def batch(folder: Path, out: Path, names: range, tag: str, scheduler: str | None) -> float:
    """Wall seconds of one batch of ``names``."""
    variants = read_variants(variants_file(folder, names, tag), out, jobs=1)
    started = time.perf_counter()
    if run_batch(variants, scheduler, Console(file=io.StringIO())) != 0:
        raise SystemExit(f"bench: the batch {tag} on {scheduler or 'the local pool'} failed")
    return time.perf_counter() - started


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def worker_cpu(client) -> float:
    """CPU seconds every worker process of the cluster has used so far."""
    return sum(client.run(time.process_time).values())


def run(folder: Path, workers: int | None) -> dict:
    """A warm-up batch, then VARIANTS variants timed (None: the local pool); wall, CPU and render seconds."""
    from distributed import Client, LocalCluster

    out = folder / f"out-{workers or 'local'}"
    warm_up = range(-1, -1 - (workers or 1), -1)  # Xs the timed variants do not have
    if workers is None:
        batch(folder, out, warm_up, "w", None)
        cpu = children_cpu()
        wall = batch(folder, out, range(VARIANTS), "v", None)
        cpu = children_cpu() - cpu
    else:
        with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            batch(folder, out, warm_up, "w", cluster.scheduler_address)
            cpu = worker_cpu(client)
            wall = batch(folder, out, range(VARIANTS), "v", cluster.scheduler_address)
            cpu = worker_cpu(client) - cpu
    render = sum(render_seconds(out / f"v{n + 10}") for n in range(VARIANTS)) / VARIANTS
    per_task = wall * (workers or 1) / VARIANTS
    return {"mode": "dask" if workers else "local pool", "workers": workers or 1, "wall_s": round(wall, 1),
            "per_task_s": round(per_task, 2), "render_s": round(render, 2), "overhead_s": round(per_task - render, 2),
            "cores_busy": round(cpu / wall, 2)}


def render_seconds(folder: Path) -> float:
    timings = json.loads((folder / "manifest.json").read_text())["sections"][SECTION]["timings"]
    return timings["scene_seconds"] + timings.get("sound_seconds", 0.0)


def measure() -> dict:
    with tempfile.TemporaryDirectory() as directory:
        rows = [run(Path(directory), workers) for workers in (None, 1, 2)]
    for row in rows:
        print(row, flush=True)
    one, two = rows[1], rows[2]
    speedup = one["wall_s"] / two["wall_s"]
    return {"rows": rows, "speedup_2_workers": round(speedup, 2), "ceiling_2_cores": round(2 / one["cores_busy"], 2),
            "target": TARGET_SPEEDUP, "met": speedup >= TARGET_SPEEDUP}


if __name__ == "__main__":
    results = measure()
    print({key: value for key, value in results.items() if key != "rows"})
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    RESULTS.write_text(json.dumps(previous | {"batch": results}, indent=2, ensure_ascii=False) + "\n")
