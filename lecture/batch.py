"""``render.py batch VARIANTS.toml``: many variants of the lecture, each into ``OUT/<name>/`` exactly as
``render -o OUT/<name>`` would write it, on this machine or, with ``--scheduler``, as Dask tasks on a cluster.

Every variant is checked before any work (see ``lecture.batch_variants``), its folder too, but a variant's
folder is only made when the variant starts: an interrupted batch of 5,000 variants leaves no empty folders for
those it never reached. Each variant goes through ``runner.render``, so up-to-date checks, the manifest and the
atomic commit are the same as ``render``'s: a batch run again after an interruption renders only what is
missing or stale.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import click
from rich.console import Console

from lecture.batch_report import Tally, variant_console
from lecture.batch_variants import Variant, VariantsError, read_variants
from lecture.cli_options import (JOBS_OPTION, OUT_OPTION, RERUN_OPTIONS, OneLineCommand, check_system, fail,
                                 run_guarded)
from lecture.output_folder import PATH_MAX, ROOM, OutputError, system_folder
from lecture.runner import plain_line, render

CONNECT_SECONDS = 10
MIN_VARIANTS_IN_FLIGHT = 32  # variants whose tasks wait on the scheduler at once (more for a larger cluster)


def run_batch(variants: list[Variant], scheduler: str | None, console: Console | None = None) -> int:
    """Render every variant (on the cluster at ``scheduler``, else here); returns the exit status."""
    console = console or Console(stderr=True)
    for variant in variants:
        check_folder(variant.request.out_dir)
    tally, started = Tally(variants, console), time.perf_counter()
    if scheduler is None:
        statuses = [render(variant.request, variant_console(variant.name, console),
                           run=tally.local_runner(variant.name)) for variant in variants]
    else:
        statuses = run_on_cluster(variants, scheduler, tally, console)
        if statuses is None:
            return 2
    tally.summary(variants, time.perf_counter() - started)
    return max(statuses, default=0)


def check_folder(path: Path) -> None:
    """Raise OutputError if ``path`` cannot be a variant's folder, as ``OutputFolder`` would, without making it:
    a system folder, a path too long, something not a folder in the way or a folder this user cannot write in."""
    path = Path(os.path.abspath(path))
    if len(os.fsencode(path)) + ROOM >= PATH_MAX:
        raise OutputError(f"-o {path}: the path is too long: at most {PATH_MAX - ROOM - 1} bytes leave room for "
                          "the files inside it")
    system = system_folder(path)
    if system:
        raise OutputError(f"-o {path}: {system} is a system folder, not a place for the lecture's files")
    existing = next(folder for folder in (path, *path.parents) if os.path.lexists(folder))
    if not existing.is_dir():
        raise OutputError(f"-o {path}: {existing} is a file; expected a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"-o {path}: cannot write in {existing}")


def run_on_cluster(variants: list[Variant], scheduler: str, tally: Tally, console: Console) -> list[int] | None:
    """Each variant's ``render`` in a thread of its own whose jobs are Dask tasks; None if the scheduler is
    out of reach. An interruption cancels every task and ends the threads before it goes on."""
    from distributed import Client  # imported here: a local batch never needs Dask

    from lecture.batch_cluster import ClusterJobs

    try:
        client = Client(scheduler, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, ValueError) as error:
        plain_line(console)(f"error: --scheduler {scheduler}: cannot reach the scheduler ({error})")
        return None
    with client:
        jobs = ClusterJobs(client, tally.finished)
        in_flight = max(MIN_VARIANTS_IN_FLIGHT, 2 * sum(client.nthreads().values()))
        with ThreadPoolExecutor(max_workers=min(in_flight, len(variants)), thread_name_prefix="variant") as pool:
            futures = [pool.submit(render, variant.request, variant_console(variant.name, console),
                                   jobs.runner(variant.name)) for variant in variants]
            try:
                return [future.result() for future in as_completed(futures)]
            except BaseException:
                jobs.cancel()
                pool.shutdown(wait=True, cancel_futures=True)
                raise


@click.command("batch", cls=OneLineCommand)
@click.argument("variants_file", metavar="VARIANTS.toml", type=click.Path(dir_okay=False, path_type=Path))
@OUT_OPTION
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="A Dask scheduler: each variant's sections become tasks on its workers (`dask worker "
                   "tcp://HOST:PORT --nthreads 1` on each machine, set up with `make setup`). Default: this machine.")
@JOBS_OPTION
@RERUN_OPTIONS[0]
@RERUN_OPTIONS[1]
def batch_command(variants_file, out_dir, scheduler, jobs, force, verbose):
    """Render every variant of VARIANTS.toml into OUT/<name>/, as `render -o OUT/<name>` would.

    A variant names its sections, quality (or resolution and fps), format, steps, lang and config overrides
    (the keys of --set); [defaults] holds what every variant starts from. Every variant is checked first.
    Without --scheduler, -j sections render in parallel here.
    """
    try:
        variants = read_variants(variants_file, out_dir, jobs, force, verbose)
    except VariantsError as error:
        fail(str(error))
    if scheduler is None:
        check_system()
    run_guarded(run_batch, variants, scheduler)
