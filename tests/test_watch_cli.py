"""`render.py watch` as a user runs it: a real process, real saves, Ctrl-C."""

import os
import select
import signal
import subprocess
import sys
import time

from media_checks import ROOT, ctrl_c_as_at_a_terminal

from lecture.output_folder import OutputFolder
from lecture.steps import step_keys

SOFTMAX = step_keys("matrix").index("softmax") + 1


def next_line(process, seconds: float) -> str:
    """The process's next line (paths on stdout, errors on stderr, both read here) within ``seconds``."""
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    assert ready, "no line in time"
    return process.stdout.readline().strip()


def test_watch_follows_saves_survives_a_bad_edit_and_stops_on_ctrl_c(tmp_path):
    config, out = tmp_path / "mine.toml", tmp_path / "out"
    config.write_text("")
    still = out / f"01-matrix-steps-{SOFTMAX:02d}" / f"{SOFTMAX:02d}-softmax.png"
    process = subprocess.Popen([sys.executable, str(ROOT / "render.py"), "watch", "matrix", "-c", str(config),
                                "--steps", "softmax", "--resolution", "256x144", "--fps", "5", "-o", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                               preexec_fn=ctrl_c_as_at_a_terminal)
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
    finally:
        process.kill()
        process.stdout.close()
    assert list(OutputFolder(out).scratch_root.iterdir()) == []  # no scratch left
    assert [name for name in os.listdir(out) if not name.startswith(".")] == [still.parent.name]
