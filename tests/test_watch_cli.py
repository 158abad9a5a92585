"""`render.py watch` as a user runs it: a real process, real saves, Ctrl-C, a worker killed mid-render; no
resource-tracker warning on any exit."""

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from media_checks import ROOT, ctrl_c_as_at_a_terminal

from lecture.render.output_folder import OutputFolder
from lesson.steps import step_keys

SOFTMAX = step_keys("matrix").index("softmax") + 1
TRACKER_WARNINGS = ("resource_tracker", "leaked semaphore")


def next_line(process, seconds: float) -> str:
    """The process's next line (paths on stdout, errors on stderr, both read here) within ``seconds``."""
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    assert ready, "no line in time"
    return process.stdout.readline().strip()


def start_watch(config: Path, out: Path) -> subprocess.Popen:
    """`render.py watch matrix --steps softmax` at a tiny size, its errors and paths on one pipe."""
    return subprocess.Popen([sys.executable, str(ROOT / "render.py"), "watch", "matrix", "-c", str(config),
                             "--steps", "softmax", "--resolution", "256x144", "--fps", "5", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                            preexec_fn=ctrl_c_as_at_a_terminal)


def render_worker(watch: int) -> int:
    """The process id of the watch's warm worker: its child started by multiprocessing's spawn."""
    children = Path(f"/proc/{watch}/task/{watch}/children").read_text().split()
    return next(int(child) for child in children if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes())


def test_watch_follows_saves_survives_a_bad_edit_and_stops_on_ctrl_c(tmp_path):
    config, out = tmp_path / "mine.toml", tmp_path / "out"
    config.write_text("")
    still = out / f"01-matrix-steps-{SOFTMAX:02d}" / f"{SOFTMAX:02d}-softmax.png"
    process = start_watch(config, out)
    try:
        assert next_line(process, 120) == str(still)
        first = still.stat().st_mtime_ns
        time.sleep(0.5)
        config.write_text("[matrix]\nscale = 'sí'\n")
        line = next_line(process, 60)
        assert line.startswith("error: matrix.scale") and process.poll() is None
        config.write_text("[matrix]\nscale = false\n")
        assert next_line(process, 60) == str(still) and still.stat().st_mtime_ns > first
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 130
        rest = process.stdout.read()
    finally:
        process.kill()
        process.stdout.close()
    assert not any(warning in rest for warning in TRACKER_WARNINGS), rest
    assert list(OutputFolder(out).scratch_root.iterdir()) == []  # no scratch left
    assert sorted(name for name in os.listdir(out) if not name.startswith(".")) == [still.parent.name, "manifest.json"]


def test_a_worker_killed_mid_render_is_named_in_one_line_and_started_again(tmp_path):
    config, out = tmp_path / "mine.toml", tmp_path / "out"
    config.write_text("")
    still = out / f"01-matrix-steps-{SOFTMAX:02d}" / f"{SOFTMAX:02d}-softmax.png"
    process = start_watch(config, out)
    try:
        assert next_line(process, 120) == str(still)
        worker = render_worker(process.pid)
        time.sleep(1.0)  # the file is watched once the first render is done
        config.write_text("[matrix]\nscale = false\n")
        deadline = time.monotonic() + 30
        while not list(OutputFolder(out).scratch_root.glob("*/matrix")) and time.monotonic() < deadline:
            time.sleep(0.02)  # until the save's render has begun
        assert list(OutputFolder(out).scratch_root.glob("*/matrix")), "the save was not rendered"
        os.kill(worker, signal.SIGKILL)
        line = next_line(process, 120)
        assert line.startswith("error: 01-matrix") and "killed by SIGKILL" in line and process.poll() is None, line
        config.write_text("[matrix]\nscale = true\n")
        assert next_line(process, 120) == str(still)  # a new worker renders the next save
        assert render_worker(process.pid) != worker
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 130
        rest = process.stdout.read()
    finally:
        process.kill()
        process.stdout.close()
    assert not any(warning in rest for warning in TRACKER_WARNINGS), rest
    assert list(OutputFolder(out).scratch_root.iterdir()) == []


def test_sigterm_while_watching_exits_143_without_a_tracker_warning(tmp_path):
    config, out = tmp_path / "mine.toml", tmp_path / "out"
    config.write_text("")
    process = start_watch(config, out)
    try:
        assert next_line(process, 120).endswith("softmax.png")
        time.sleep(1.0)  # waiting for a save
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 143
        rest = process.stdout.read()
    finally:
        process.kill()
        process.stdout.close()
    assert not any(warning in rest for warning in TRACKER_WARNINGS), rest
    assert list(OutputFolder(out).scratch_root.iterdir()) == []
