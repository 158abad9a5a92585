"""render.py batch: every variant checked before any work; variants rendered as Dask tasks on a LocalCluster of two
worker processes and on a real `dask scheduler` with two `dask worker` processes, each into OUT/<name> as `render`
writes it; a worker killed mid-task does not stop the batch nor leave a partial file; an interrupted batch keeps
what it finished and the next run renders only the rest; a variant's folder is made only when it starts; a TLS
cluster serves only a client whose certificate its CA signed."""

from __future__ import annotations

import datetime
import math
import io
import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from itertools import chain
from pathlib import Path
from types import SimpleNamespace

import dask
import numpy as np
import pytest
from click.testing import CliRunner
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from distributed import Client, LocalCluster, get_worker
from media_checks import ROOT, ctrl_c_as_at_a_terminal, run_cli
from rich.console import Console

from lecture.batch.run import batch_command, run_batch
from lecture.batch.cluster import ClusterJobs, TaskResult
from lecture.batch.variants import read_variants
from lecture.render.jobs import JobResult
from lecture.render.manifest import is_up_to_date
from lecture.render.output_folder import PRIVATE, SCRATCH
from lesson.config import load_config

DASK = Path(sys.executable).with_name("dask")
TINY = 'sections = ["matrix"]\nresolution = "256x144"\nfps = 5\nformat = "png"\n'
X_OF = {"ana": [[1, 0], [0, 1], [2, 1]], "luis": [[0, 1], [1, 1], [1, 0]]}  # each student's own X


def variants_file(folder: Path, steps: str, variants: dict[str, str]) -> Path:
    """A variants file of tiny stills of matrix's ``steps``: each variant's TOML lines by name."""
    text = f"[defaults]\n{TINY}steps = \"{steps}\"\n" + "".join(
        f"[variants.{name}]\n{lines}\n" for name, lines in variants.items())
    path = folder / "variants.toml"
    path.write_text(text)
    return path


def students(folder: Path, steps: str = "scores") -> Path:
    return variants_file(folder, steps, {name: f'config."matrix.X" = {X}' for name, X in X_OF.items()})


def batch(path: Path, out: Path, scheduler: str | None) -> tuple[int, str]:
    """Run the batch in this process; its status and everything it printed."""
    printed = io.StringIO()
    status = run_batch(read_variants(path, out, jobs=1), scheduler, Console(file=printed, width=200))
    return status, printed.getvalue()


def clip_entry(out: Path, name: str, stem: str = "01-matrix-steps-07") -> dict:
    return json.loads((out / name / "manifest.json").read_text())["clips"][f"{stem}.png"]


def shown_scores(entry: dict) -> np.ndarray:
    step = next(step for step in entry["steps"] if step["key"] == "scores")
    return np.array([[float(cell.replace("\u2212", "-")) for cell in row] for row in step["numbers"]["scores"]])


def finished_lines(printed: str) -> dict[str, str]:
    """The worker each variant's task finished on, from the progress lines."""
    return dict(re.findall(r"\] (\w+)/\S+: done on (\S+) in", printed))


def complete(out: Path, name: str, stem: str = "01-matrix-steps-07") -> bool:
    """The variant's folder holds exactly its manifest and the files it lists, hashing to it; no scratch left."""
    entry = clip_entry(out, name, stem)
    folder = out / name
    return (is_up_to_date(entry, folder, entry["fingerprint"])
            and sorted(path.name for path in folder.iterdir()) == sorted([PRIVATE, "manifest.json", *entry["files"]])
            and not any((folder / PRIVATE / SCRATCH).iterdir()))


def test_each_variant_starts_from_the_defaults_not_from_the_variant_before(tmp_path):
    path = tmp_path / "variants.toml"
    path.write_text('[defaults]\nconfig."matrix.scale" = false\n'
                    '[variants.ana]\nquality = "h"\n'
                    '[variants.ana.config.matrix]\ncausal = true\nX = [[1, 0], [0, 1], [2, 1]]\n[variants.luis]\n')
    ana, luis = (variant.request for variant in read_variants(path, tmp_path / "out", jobs=3))
    assert (ana.config.matrix.scale, ana.config.matrix.causal, ana.quality.label) == (False, True, "1920x1080@60")
    assert ana.config.matrix.X == [[1, 0], [0, 1], [2, 1]] and luis.config.matrix.X is None
    assert (luis.config.matrix.scale, luis.config.matrix.causal, luis.quality.label) == (False, False, "1280x720@30")
    assert (ana.out_dir, luis.out_dir, luis.jobs) == (tmp_path / "out" / "ana", tmp_path / "out" / "luis", 3)


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local, \
            Client(local) as client:
        yield local, client


@pytest.mark.parametrize("lines, named", [
    ('config."matrix.temperature" = 1', "matrix.temperature: unknown key"),
    ('config."matrix.X" = [[1, 0], [0]]', "matrix.X: expected rows of equal length"),
    ('quality = "z"', "quality: expected 'l', 'm', 'h' or 'k'"),
    ('qualty = "l"', "qualty: unknown key; did you mean 'quality'"),
    ('sections = ["matrix", "nope"]', "sections: unknown section 'nope'"),
    ('steps = "99"', "no step '99' in matrix"),
    ('lang = "fr"', "lecture.lang: expected 'es' or 'en'"),
    ('resolution = "15x10"', "resolution: expected even sizes"),
])
def test_a_bad_variant_stops_the_batch_before_any_task_naming_variant_and_key(tmp_path, lines, named):
    path = variants_file(tmp_path, "1", {"ana": "", "luis": lines})
    out = tmp_path / "out"
    # no scheduler listens there: the variants are refused before the batch even connects
    result = CliRunner().invoke(batch_command, [str(path), "-o", str(out), "--scheduler", "tcp://127.0.0.1:9"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert result.output.startswith(f"error: {path}: variant 'luis': ") and named in result.output
    assert not out.exists()


def test_variants_are_tasks_on_two_worker_processes_and_a_second_run_skips_them(cluster, tmp_path):
    local, _ = cluster
    path, out = students(tmp_path), tmp_path / "out"
    status, printed = batch(path, out, local.scheduler_address)
    assert status == 0, printed
    workers = finished_lines(printed)
    assert sorted(workers) == sorted(X_OF)
    assert len(set(workers.values())) == 2 and set(workers.values()) <= set(local.scheduler_info["workers"])
    defaults = load_config().matrix.matrices()
    for name, X in X_OF.items():
        Q, K = np.array(X) @ defaults["W_Q"], np.array(X) @ defaults["W_K"]
        np.testing.assert_allclose(shown_scores(clip_entry(out, name)), Q @ K.T)
        assert complete(out, name)
    assert re.search(r"│ all\s+│\s+2 │\s+0 │\s+0 │", printed)

    status, printed = batch(path, out, local.scheduler_address)
    assert status == 0 and finished_lines(printed) == {}, printed
    assert printed.count("01-matrix-steps-07: up to date, skipped") == 2
    assert re.search(r"│ all\s+│\s+0 │\s+2 │\s+0 │", printed)


def test_render_tasks_of_many_variants_wait_in_the_scheduler_queue_for_a_free_worker(cluster, tmp_path, monkeypatch):
    """Ours, not Dask's default: ``ClusterJobs`` as the batch runs it (a thread per variant) submits the renders of
    many variants so that no worker is handed more than it can start soon (its threads times Dask's worker
    saturation) and the rest wait on the scheduler for whichever worker comes free. That holds because
    ``task_key`` puts every variant's renders in one task group, which Dask queues; with a group per variant they
    were all assigned at once, and one worker of two stood idle while the other had three left. A two-second
    sleep stands in for each render (the workers run the stand-in: a local function is pickled whole)."""
    _, client = cluster

    def slow_render(job, code):
        time.sleep(2)
        return TaskResult(JobResult(job.section, error="stand-in"), {}, get_worker().address, 2.0)

    monkeypatch.setattr("lecture.batch.cluster.render_task", slow_render)
    heard = []
    jobs = ClusterJobs(client, lambda variant, job, worker, seconds, result: heard.append(variant))
    variants = {f"v{n}": SimpleNamespace(section="matrix", stem="01-matrix", work_dir=tmp_path / f"v{n}")
                for n in range(7)}
    results = {}
    threads = [threading.Thread(target=lambda name=name, job=job: results.update({name: [*jobs.run(name, [job], 1, None)]}))
               for name, job in variants.items()]
    for thread in threads:
        thread.start()
    queued, assigned = 0, {}
    deadline = time.monotonic() + 30
    while queued + sum(assigned.values()) < len(variants) and time.monotonic() < deadline:
        queued, assigned = client.run_on_scheduler(lambda dask_scheduler: (
            len(dask_scheduler.queued),
            {worker: len(state.processing) for worker, state in dask_scheduler.workers.items()}))
    for thread in threads:
        thread.join(timeout=60)
    soon = math.ceil(dask.config.get("distributed.scheduler.worker-saturation") * 1)  # one thread per worker
    assert len(assigned) == 2 and all(count == soon for count in assigned.values()), assigned  # none idle, none hoards
    assert queued == len(variants) - 2 * soon
    assert sorted(heard) == sorted(results) == sorted(variants)
    assert all(result.error == "stand-in" for finished in results.values() for result in finished)


def test_a_worker_killed_mid_task_leaves_no_partial_file_and_the_task_runs_again_elsewhere(cluster, tmp_path):
    local, client = cluster
    path, out = students(tmp_path, steps="scores..softmax"), tmp_path / "out"
    pids = client.run(os.getpid)
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.update(result=batch(path, out, local.scheduler_address)))
    thread.start()
    victim = None
    deadline = time.monotonic() + 60
    while victim is None and time.monotonic() < deadline:
        victim = next((worker for worker, keys in client.processing().items()
                       if any(str(key).startswith("render-ana/") for key in keys)), None)
        time.sleep(0.05)
    assert victim is not None
    time.sleep(0.5)  # the task is under way
    assert any(str(key).startswith("render-ana/") for key in client.processing()[victim])
    os.kill(pids[victim], signal.SIGKILL)
    thread.join(timeout=120)
    status, printed = outcome["result"]
    assert status == 0, printed
    assert finished_lines(printed)["ana"] != victim
    for name in X_OF:
        assert complete(out, name, "01-matrix-steps-07-10")


def test_an_interrupted_batch_keeps_finished_variants_and_the_next_run_renders_only_the_rest(cluster, tmp_path):
    local, _ = cluster
    path, out = variants_file(tmp_path, "1", {"ana": "", "luis": 'steps = "scores..softmax"'}), tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-c", "from lecture.batch.run import batch_command; batch_command()",
                                str(path), "-o", str(out), "--scheduler", local.scheduler_address],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=ctrl_c_as_at_a_terminal)
    try:
        deadline = time.monotonic() + 60
        while not (out / "ana" / "manifest.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not (out / "luis" / "manifest.json").exists()  # luis's task is still under way
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 130
    finally:
        process.kill()
    assert complete(out, "ana", "01-matrix-steps-01")
    assert os.listdir(out / "luis") == [PRIVATE] and not any((out / "luis" / PRIVATE / SCRATCH).iterdir())
    status, printed = batch(path, out, local.scheduler_address)
    assert status == 0 and list(finished_lines(printed)) == ["luis"], printed
    assert "ana: 01-matrix-steps-01: up to date, skipped" in printed
    assert complete(out, "luis", "01-matrix-steps-07-10")


def scheduler_address(scheduler_file: Path, seconds: float = 30) -> str:
    """The address a starting scheduler writes into ``scheduler_file``, once the file holds all of it (the
    scheduler writes it in place: it can be seen empty or half written)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return json.loads(scheduler_file.read_text())["address"]
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_a_real_scheduler_and_two_dask_workers_give_the_files_a_local_render_gives(tmp_path):
    path = variants_file(tmp_path, "1", {"ana": "", "luis": "lang = \"en\""})
    scheduler_file = tmp_path / "scheduler.json"
    processes = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                   "--scheduler-file", scheduler_file], stderr=subprocess.DEVNULL)]
    try:
        with Client(scheduler_address(scheduler_file)) as client:
            address = client.scheduler.address
            processes += [subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-dashboard",
                                            "--host", "127.0.0.1"], stderr=subprocess.DEVNULL) for _ in range(2)]
            client.wait_for_workers(2, timeout=60)
            status, printed = batch(path, tmp_path / "cluster", address)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
    assert status == 0 and sorted(finished_lines(printed)) == ["ana", "luis"], printed
    assert batch(path, tmp_path / "here", None)[0] == 0
    for name in ("ana", "luis"):
        cluster, here = (clip_entry(tmp_path / out, name, "01-matrix-steps-01") for out in ("cluster", "here"))
        cluster.pop("timings"), here.pop("timings")
        assert cluster == here
        assert complete(tmp_path / "cluster", name, "01-matrix-steps-01")
    assert clip_entry(tmp_path / "here", "luis", "01-matrix-steps-01")["steps"][0]["title"] != \
        clip_entry(tmp_path / "here", "ana", "01-matrix-steps-01")["steps"][0]["title"]


def variant_lines(names: list[str]) -> dict[str, str]:
    return {name: "" for name in names}


@pytest.mark.parametrize("bad", ["a" * 300, "file-in-the-way"])
def test_a_bad_variant_among_several_makes_no_folder(tmp_path, bad):
    """A name no file system takes, or a file where a variant's folder would go: refused in one line before any
    variant's folder is made (a 300-character name once left the folder of the variant before it)."""
    out = tmp_path / "out"
    if bad == "file-in-the-way":
        out.mkdir()
        (out / bad).write_text("notes")
    path = variants_file(tmp_path, "1", variant_lines(["ana", bad, "luis", "eva"]))
    result = run_cli("batch", str(path), "-o", str(out), "-j", "1", timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), \
        result.stderr
    assert len(result.stderr) < 400  # the name quoted clipped
    assert (sorted(os.listdir(out)) if out.exists() else []) == ([bad] if bad == "file-in-the-way" else [])


def test_an_interrupted_batch_has_made_folders_only_for_the_variants_it_started(tmp_path):
    names = [f"v{number}" for number in range(1, 6)]
    path, out = variants_file(tmp_path, "1", variant_lines(names)), tmp_path / "out"
    process = subprocess.Popen([sys.executable, str(ROOT / "render.py"), "batch", str(path), "-o", str(out),
                                "-j", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                               preexec_fn=ctrl_c_as_at_a_terminal)
    try:
        deadline = time.monotonic() + 240
        while not (out / "v1" / "manifest.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (out / "v1" / "manifest.json").exists()
        process.send_signal(signal.SIGINT)
        assert process.wait(60) == 130
    finally:
        process.kill()
    assert sorted(os.listdir(out)) in (names[:1], names[:2])  # the second may have started before the signal
    assert complete(out, "v1", "01-matrix-steps-01")


def issued(common_name: str, authority=None) -> tuple:
    """A key and a one-day certificate for ``common_name`` (127.0.0.1 and localhost), signed by ``authority``
    (key, certificate), or a certificate authority of its own when there is none."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(subject).public_key(key.public_key())
               .issuer_name(authority[1].subject if authority else subject)
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=authority is None, path_length=None), critical=True))
    if authority:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    return key, builder.sign(authority[0] if authority else key, hashes.SHA256())


def pem_files(folder: Path, stem: str, key, certificate) -> list[str]:
    """``stem.pem`` and ``stem.key`` in ``folder``; their paths."""
    (folder / f"{stem}.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (folder / f"{stem}.key").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                           serialization.PrivateFormat.PKCS8,
                                                           serialization.NoEncryption()))
    return [str(folder / f"{stem}.pem"), str(folder / f"{stem}.key")]


def test_a_tls_cluster_renders_for_a_client_with_its_certificate_and_refuses_any_other(tmp_path):
    """A throwaway CA signs the cluster's certificate and this client's; a certificate from another CA (anyone
    else who reaches the port) is refused in one line, and so is a tls:// scheduler without certificates."""
    authority = issued("course CA")
    ca_file = pem_files(tmp_path, "ca", *authority)[0]
    cluster = ["--tls-ca-file", ca_file, *chain(*zip(["--tls-cert", "--tls-key"],
                                                     pem_files(tmp_path, "cluster", *issued("cluster", authority))))]
    client = pem_files(tmp_path, "client", *issued("client", authority))
    stranger = pem_files(tmp_path, "stranger", *issued("stranger", issued("another CA")))
    path, scheduler_file = variants_file(tmp_path, "1", {"ana": ""}), tmp_path / "scheduler.json"
    processes = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--protocol", "tls",
                                   "--no-dashboard", "--scheduler-file", scheduler_file, *cluster],
                                  stderr=subprocess.DEVNULL)]
    try:
        address = scheduler_address(scheduler_file)
        assert address.startswith("tls://127.0.0.1:")
        processes.append(subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-dashboard", "--host",
                                           "127.0.0.1", *cluster], stderr=subprocess.DEVNULL))

        def batch_as(*tls_options: str) -> subprocess.CompletedProcess:
            return run_cli("batch", str(path), "-o", str(tmp_path / "out"), "--scheduler", address, *tls_options,
                           timeout=300)

        rendered = batch_as("--tls-ca-file", ca_file, "--tls-cert", client[0], "--tls-key", client[1])
        assert rendered.returncode == 0, rendered.stderr
        assert complete(tmp_path / "out", "ana", "01-matrix-steps-01")
        assert "ana/01-matrix-steps-01: done on tls://127.0.0.1:" in rendered.stderr  # on the TLS worker
        shutil.rmtree(tmp_path / "out")
        for refused in (batch_as("--tls-ca-file", ca_file, "--tls-cert", stranger[0], "--tls-key", stranger[1]),
                        batch_as("--tls-ca-file", ca_file)):
            assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
            assert refused.stderr.startswith(f"error: --scheduler {address}: ") and "--tls-cert" in refused.stderr
            assert not (tmp_path / "out").exists()
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
