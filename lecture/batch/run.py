"""``render.py batch VARIANTS.toml``: many variants of the lecture, each into ``OUT/<name>/`` exactly as
``render -o OUT/<name>`` would write it, on this machine or, with ``--scheduler``, as Dask tasks on a cluster:
``tls://`` with certificates (``--tls-ca-file``, ``--tls-cert``, ``--tls-key``), since whoever reaches an open
scheduler port runs code on the workers.

Every variant is checked before any work (see ``lecture.batch.variants``), its folder too, but a variant's
folder is only made when the variant starts: an interrupted batch of 5,000 variants leaves no empty folders for
those it never reached. Each variant goes through ``runner.render``, so up-to-date checks, the manifest and the
atomic commit are the same as ``render``'s: a batch run again after an interruption renders only what is
missing or stale.
"""

from __future__ import annotations

import ipaddress
import os
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import click
from rich.console import Console

from lecture.batch.report import Tally, variant_console
from lecture.batch.variants import Variant, VariantsError, read_variants
from lecture.cli_options import (JOBS_OPTION, OUT_OPTION, RERUN_OPTIONS, OneLineCommand, check_system, fail,
                                 run_guarded)
from lecture.render.output_folder import OutputError, check_output_path
from lecture.render.runner import plain_line, render
from lesson.config_hints import clipped

CONNECT_SECONDS = 10
MIN_VARIANTS_IN_FLIGHT = 32  # variants whose tasks wait on the scheduler at once (more for a larger cluster)


@dataclass(frozen=True)
class TlsFiles:
    """A TLS cluster's certificate authority, and this client's certificate (signed by it) and key, as PEM files."""

    ca_file: Path
    cert: Path
    key: Path

    def security(self):
        """Dask's security settings: every connection encrypted, each side's certificate checked against the CA."""
        from distributed.security import Security  # imported here: a local batch never needs Dask

        return Security(tls_ca_file=str(self.ca_file), tls_client_cert=str(self.cert), tls_client_key=str(self.key),
                        require_encryption=True)


def run_batch(variants: list[Variant], scheduler: str | None, console: Console | None = None,
              tls: TlsFiles | None = None) -> int:
    """Render every variant (on the cluster at ``scheduler``, with ``tls`` for a tls:// one, else here); returns
    the exit status."""
    console = console or Console(stderr=True)
    for variant in variants:
        check_folder(variant.request.out_dir)
    tally, started = Tally(variants, console), time.perf_counter()
    if scheduler is None:
        statuses = [render(variant.request, variant_console(variant.name, console),
                           run=tally.local_runner(variant.name)) for variant in variants]
    else:
        statuses = run_on_cluster(variants, scheduler, tally, console, tls)
        if statuses is None:
            return 2
    tally.summary(variants, time.perf_counter() - started)
    return max(statuses, default=0)


def check_folder(path: Path) -> None:
    """Raise OutputError if ``path`` cannot be a variant's folder, as ``OutputFolder`` would, without making it:
    what ``check_output_path`` refuses, something not a folder in the way or a folder this user cannot write in."""
    path = check_output_path(path)
    existing = next(folder for folder in (path, *path.parents) if os.path.lexists(folder))
    if not existing.is_dir():
        raise OutputError(f"-o {path}: {existing} is a file; expected a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"-o {path}: cannot write in {existing}")


def run_on_cluster(variants: list[Variant], scheduler: str, tally: Tally, console: Console,
                   tls: TlsFiles | None = None) -> list[int] | None:
    """Each variant's ``render`` in a thread of its own whose jobs are Dask tasks; None if the scheduler is
    out of reach or refuses this client. An interruption cancels every task and ends the threads before it
    goes on."""
    from distributed import Client  # imported here: a local batch never needs Dask

    from lecture.batch.cluster import ClusterJobs

    try:
        client = Client(scheduler, timeout=CONNECT_SECONDS, set_as_default=False,
                        security=tls.security() if tls else None)
    except (OSError, ValueError) as error:
        # distributed says "in <TLS (closed) local=... remote=...>: SSLError: ...": the reason is the last part
        reason = str(error).rpartition(">: ")[2] or type(error).__name__
        hint = ("; --tls-cert and --tls-key must be a certificate the cluster's CA signed, and --tls-ca-file that CA"
                if tls else "")
        plain_line(console)(f"error: --scheduler {clipped(scheduler)}: cannot connect ({reason}){hint}")
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


def tls_files(scheduler: str | None, ca_file: Path | None, cert: Path | None, key: Path | None) -> TlsFiles | None:
    """The TLS options checked against ``--scheduler``: all three for a tls:// scheduler, none for any other.
    A plain tcp:// scheduler beyond this machine is run with a warning: anyone who reaches its port can run
    code on the workers."""
    given = [name for name, value in (("--tls-ca-file", ca_file), ("--tls-cert", cert), ("--tls-key", key)) if value]
    if scheduler is not None and scheduler.startswith("tls://"):
        if len(given) < 3:
            fail(f"--scheduler {clipped(scheduler)}: a tls:// scheduler needs --tls-ca-file (the cluster's certificate "
                 "authority), --tls-cert and --tls-key (this client's certificate, signed by it, and its key)")
        return TlsFiles(ca_file, cert, key)
    if given:
        fail(f"{given[0]}: only with a tls:// --scheduler, got {clipped(scheduler) if scheduler else 'none'}")
    if scheduler is not None and not loopback(scheduler):
        click.echo(f"warning: --scheduler {clipped(scheduler)} is neither encrypted nor authenticated: anyone who "
                   "reaches its port runs code on the workers; use tls:// (see docs/batches.md)", err=True)
    return None


def loopback(scheduler: str) -> bool:
    """Whether the scheduler's address is this machine's own (127.0.0.1, ::1, localhost)."""
    host = urlsplit(scheduler if "://" in scheduler else f"tcp://{scheduler}").hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


TLS_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.command("batch", cls=OneLineCommand)
@click.argument("variants_file", metavar="VARIANTS.toml", type=click.Path(dir_okay=False, path_type=Path))
@OUT_OPTION
@click.option("--scheduler", metavar="tls://HOST:PORT",
              help="A Dask scheduler: each variant's sections become tasks on its workers (`dask worker "
                   "tls://HOST:PORT --nthreads 1` and the same TLS options on each machine, set up with `make setup`). "
                   "tcp:// is unencrypted: whoever reaches its port runs code on the workers. Default: this machine.")
@click.option("--tls-ca-file", type=TLS_FILE, help="With tls://: the cluster's certificate authority (PEM).")
@click.option("--tls-cert", type=TLS_FILE, help="With tls://: this client's certificate (PEM), signed by that CA.")
@click.option("--tls-key", type=TLS_FILE, help="With tls://: this client's private key (PEM).")
@JOBS_OPTION
@RERUN_OPTIONS[0]
@RERUN_OPTIONS[1]
def batch_command(variants_file, out_dir, scheduler, tls_ca_file, tls_cert, tls_key, jobs, force, verbose):
    """Render every variant of VARIANTS.toml into OUT/<name>/, as `render -o OUT/<name>` would.

    A variant names its sections, quality (or resolution and fps), format, steps, lang and config overrides
    (the keys of --set); [defaults] holds what every variant starts from. Every variant is checked first.
    Without --scheduler, -j sections render in parallel here.
    """
    tls = tls_files(scheduler, tls_ca_file, tls_cert, tls_key)
    try:
        variants = read_variants(variants_file, out_dir, jobs, force, verbose)
    except VariantsError as error:
        fail(str(error))
    if scheduler is None:
        check_system()
    run_guarded(run_batch, variants, scheduler, None, tls)
