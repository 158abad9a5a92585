"""The preview loop: a still of the chosen step on every save, a bad edit one line, the loop going on, a worker
that ended named in one line and replaced."""

import json
import multiprocessing
import os
import signal

import numpy as np
from PIL import Image

from lecture.render.jobs import Quality
from lecture.render.manifest import MANIFEST, entry_hash
from lecture.watch import WatchRequest, watch
from lesson.steps import step_keys

TINY = Quality(256, 144, 5)
SOFTMAX = step_keys("matrix").index("softmax") + 1


def pixels(path):
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"), dtype=float)


def test_each_save_renders_the_chosen_step_again_and_a_bad_edit_is_one_line(tmp_path):
    config, out = tmp_path / "mine.toml", tmp_path / "out"
    config.write_text("")
    lines, stills = [], []
    still = out / f"01-matrix-steps-{SOFTMAX:02d}" / f"{SOFTMAX:02d}-softmax.png"

    def saves():
        stills.append(pixels(still))
        config.write_text("[matrix]\nscale = false\n")
        yield
        stills.append(pixels(still))
        config.write_text("[matrix]\nscale = 'sí'\n")
        yield
        config.write_text("[matrix]\nW_Q = [[1.0, 0.0], [0.0, 1.0]]\n")
        yield

    request = WatchRequest(("matrix",), config, (), TINY, out, steps="softmax")
    assert watch(request, lines.append, saves()) == 0
    errors = [line for line in lines if line.startswith("error")]
    assert lines == [str(still), str(still), errors[0], str(still)]
    assert "matrix.scale" in errors[0] and "\n" not in errors[0]
    assert stills[0].shape == (144, 256, 3)
    assert np.abs(stills[0] - stills[1]).mean() > 0.5  # unscaled scores: other weights
    assert sorted(path.name for path in (out / still.parent.name).iterdir()) == [still.name]
    assert sorted(path.name for path in out.iterdir() if not path.name.startswith(".")) == \
        [still.parent.name, MANIFEST]
    entry = json.loads((out / MANIFEST).read_text())["clips"][f"{still.parent.name}.png"]
    assert entry_hash(entry, out, still.parent.name) == entry["sha256"][still.parent.name]  # the last save's


def test_a_bad_steps_value_is_one_line_and_no_file(tmp_path):
    config, out, lines = tmp_path / "mine.toml", tmp_path / "out", []
    config.write_text("")
    assert watch(WatchRequest(("matrix",), config, (), TINY, out, steps="99"), lines.append, iter(())) == 0
    assert len(lines) == 1 and lines[0].startswith("error: --steps '99'")
    assert not any(path for path in out.iterdir() if not path.name.startswith("."))


def test_a_worker_that_ended_between_saves_is_named_and_a_new_one_renders_the_save(tmp_path):
    config, out, lines = tmp_path / "mine.toml", tmp_path / "out", []
    config.write_text("")
    still = out / f"01-matrix-steps-{SOFTMAX:02d}" / f"{SOFTMAX:02d}-softmax.png"

    def saves():
        (worker,) = multiprocessing.active_children()  # the warm worker, this test's only child process
        os.kill(worker.pid, signal.SIGKILL)
        worker.join()
        config.write_text("[matrix]\nscale = false\n")
        yield

    assert watch(WatchRequest(("matrix",), config, (), TINY, out, steps="softmax"), lines.append, saves()) == 0
    assert lines[0] == lines[2] == str(still)
    assert lines[1].startswith("error: the render worker had ended (killed by SIGKILL)") and len(lines) == 3


def test_a_video_save_records_its_files_in_the_manifest_as_a_render_does(tmp_path):
    """``watch --video`` replaces the clip's video: the manifest must say so (a reader trusts its hashes)."""
    config, out = tmp_path / "mine.toml", tmp_path / "out"
    config.write_text("")

    def saves():
        config.write_text("[matrix]\nscale = false\n")
        yield

    lines = []
    assert watch(WatchRequest(("matrix",), config, (), TINY, out, steps="softmax", video=True), lines.append,
                 saves()) == 0
    video = out / f"01-matrix-steps-{SOFTMAX:02d}.mp4"
    assert lines.count(str(video)) == 2 and not [line for line in lines if line.startswith("error")]
    entry = json.loads((out / MANIFEST).read_text())["clips"][video.name]
    assert entry["config"]["scale"] is False  # the second save's
    assert all(entry_hash(entry, out, name) == entry["sha256"][name] for name in entry["files"])
