"""The output folder under faults, signals and a full disk, through the real CLI at tiny size (concurrent renders
and hostile input are in test_output_inputs.py: two modules, so that two workers run them side by side).

Every test checks what a user would lose: earlier files byte-identical (or the new ones complete and
recorded in the manifest), nothing outside ``-o`` changed, no process of ours left running. What is rendered is
the quick section (tests/quick_section): the folder's guarantees are the same for every section, and it renders in
a few seconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from lecture.render.manifest import entry_hash, read_manifest
from lecture.render.output_folder import PRIVATE, OutputFolder
from media_checks import TINY, ctrl_c_as_at_a_terminal, manifest, quick_command, run_cli, run_quick_cli, tiny_quick
from quick_section.record import SECTION as QUICK

OTHER_COUNT = 4  # quick.count of another config: other captions and pictures (the default is 3)
OTHER_CONFIG = ("--set", f"quick.count={OTHER_COUNT}")
LONGER = ("--set", "quick.draw_seconds=20")  # a render whose worker is still drawing long after it started


def snapshot(folder: Path) -> dict[str, str]:
    """Every file the user sees in ``folder`` (not our own PRIVATE folder) by relative path: its SHA-256, or where a
    link points."""
    found = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if relative.parts[0] == PRIVATE:
            continue
        if path.is_symlink():
            found[str(relative)] = "-> " + os.readlink(path)
        elif path.is_file():
            found[str(relative)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def processes_in_session(session: int) -> list[str]:
    """Command lines of the live (not zombie) processes whose session is ``session``."""
    found = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
            command = (stat_file.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            found.append(command)
    return found


def wait_until_gone(session: int, seconds: float = 20.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while (left := processes_in_session(session)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def dead_pid() -> int:
    finished = subprocess.Popen(["true"])
    finished.wait()
    return finished.pid


def worker_started(out: Path) -> bool:
    """A worker has its scratch folder (``PRIVATE/scratch/<render>/<section>``)."""
    return any(path.is_dir() for path in (out / PRIVATE / "scratch").glob("*/*"))


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """The quick section rendered once with the defaults; tests copy it."""
    return tiny_quick(tmp_path_factory)[0]


@pytest.fixture
def rendered(pristine, tmp_path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(pristine, out, symlinks=True)
    return out


def assert_recorded(out: Path) -> dict:
    """Every section in the manifest hashes to its entry: what the manifest says is what is there."""
    data = manifest(out)
    for entry in data["sections"].values():
        for name in entry["files"]:
            assert entry_hash(entry, out, name) == entry["sha256"][name], name
    return data


# 1. Only what this tool provably made is ever removed.

def test_files_named_like_scratch_files_are_never_removed(rendered):
    planted_folder = rendered / ".photos-old-2024"
    planted_folder.mkdir()
    (planted_folder / "beach.jpg").write_bytes(b"a photo")
    for name in (".thesis.tmp-31337", f".notes-work-{dead_pid()}-x", f".{QUICK.stem}.mp4.tmp-{dead_pid()}"):
        (rendered / name).write_text("the user's")
    scratch = rendered / PRIVATE / "scratch"
    unowned = scratch / "no-owner-file"  # in our area but not provably ours: kept too
    unowned.mkdir()
    abandoned = scratch / "abandoned"  # a killed render's: its owner file names a dead process
    abandoned.mkdir()
    (abandoned / "owner.json").write_text(json.dumps({"pid": dead_pid(), "start": 1, "boot": None}))
    before = snapshot(rendered)
    for arguments in ((), (*OTHER_CONFIG, "--no-audio")):  # an up-to-date run, then a real render (sound or not)
        result = run_quick_cli("render", "quick", *TINY, "-o", str(rendered), *arguments)
        assert result.returncode == 0, result.stderr
    after = snapshot(rendered)
    assert {name: digest for name, digest in after.items() if name.startswith(".")} == \
        {name: digest for name, digest in before.items() if name.startswith(".")}
    assert unowned.is_dir() and not abandoned.exists()


# 2. A signal to the main process alone (or to the group) never replaces a file, and no worker outlives it.

@pytest.mark.parametrize("stop, to_group, status", [
    (signal.SIGINT, False, 130), (signal.SIGTERM, False, 128 + signal.SIGTERM),
    (signal.SIGKILL, False, -signal.SIGKILL), (signal.SIGINT, True, 130)])
def test_a_signal_mid_render_replaces_nothing_and_leaves_no_process(rendered, stop, to_group, status):
    """The quick section, drawn for a minute (LONGER). The signal comes 1 s after the worker's scratch folder
    appears, while the worker sets up its scene: a matrix section's worker is at the same point then (the first
    play of either ends 1.5 to 2 s after its scratch folder), so which section it draws does not change the test."""
    before = snapshot(rendered)
    process = subprocess.Popen(**quick_command("render", "quick", *TINY, "-o", str(rendered), "--force",
                                               *OTHER_CONFIG, *LONGER),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=ctrl_c_as_at_a_terminal)
    deadline = time.monotonic() + 120
    while not worker_started(rendered) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # the worker is rendering
    (os.killpg if to_group else os.kill)(process.pid, stop)
    assert process.wait(timeout=60) == status, process.stderr.read()
    assert wait_until_gone(process.pid) == []
    time.sleep(1.0)  # a worker left behind would still replace files now
    assert snapshot(rendered) == before
    scratch = rendered / PRIVATE / "scratch"
    if stop != signal.SIGKILL:  # a render that could clean up after itself did
        assert not list(scratch.iterdir())
        return
    result = run_quick_cli("render", "quick", *TINY, "-o", str(rendered), "--no-audio", *OTHER_CONFIG)
    assert result.returncode == 0, result.stderr
    assert not list(scratch.iterdir())  # the killed render's scratch is gone
    assert assert_recorded(rendered)["sections"]["quick"]["config"]["count"] == OTHER_COUNT


# 4. A full disk: nothing is replaced unless every new file was written.

def folder_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


@pytest.fixture
def small_disk(pristine, tmp_path):
    """A tmpfs mounted for the test, room for three renders of the section, or a skip where this machine
    does not let the test mount one."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    size_mib = 3 * folder_size(pristine) // 2**20 + 16
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mib}m", "tmpfs", str(mount_point)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.strip()}); the injected ENOSPC test runs")
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=False)


def test_a_full_disk_fails_the_render_and_keeps_every_earlier_file(pristine, small_disk):
    out = small_disk / "out"
    shutil.copytree(pristine, out, symlinks=True)
    before = snapshot(out)
    filler = small_disk / "filler"
    free = shutil.disk_usage(small_disk).free
    filler.write_bytes(b"\0" * (free - 1024 * 1024))  # leave 1 MiB: the new video and sound do not fit
    result = run_quick_cli("render", "quick", *TINY, "-o", str(out), "--force", *OTHER_CONFIG)
    assert result.returncode == 1 and "No space left on device" in result.stderr, result.stderr
    assert snapshot(out) == before
    assert not list((out / PRIVATE / "scratch").iterdir())
    filler.unlink()
    result = run_quick_cli("render", "quick", *TINY, "-o", str(out), *OTHER_CONFIG)
    assert result.returncode == 0, result.stderr
    assert assert_recorded(out)["sections"]["quick"]["config"]["count"] == OTHER_COUNT


# The quick section's launcher with ENOSPC where the parent makes the lecture (quick_section.launch first: it
# registers the section before lecture.render.runner loads the config schema).
LECTURE_DISK_FULL = textwrap.dedent('''
    import quick_section.launch
    import lecture.render.runner


    def disk_full(parts, target, *_):
        target.write_bytes(b"half a lecture")
        raise OSError(28, "No space left on device")


    lecture.render.runner.join_videos = lecture.render.runner.link_or_copy = disk_full

    if __name__ == "__main__":
        quick_section.launch.main()
''')


def test_a_failed_lecture_join_keeps_the_new_section_and_the_earlier_lecture(rendered, tmp_path):
    """ENOSPC injected where the parent makes the lecture (joined, or one section's second name), after the
    section was committed: the section stays, new and recorded; the lecture's files are the earlier ones."""
    launcher = tmp_path / "lecture_disk_full.py"
    launcher.write_text(LECTURE_DISK_FULL)
    before = snapshot(rendered)
    result = subprocess.run(**quick_command("render", "quick", *TINY, "-o", str(rendered), "--force", *OTHER_CONFIG,
                                            launcher=launcher), capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "No space left on device" in result.stderr, result.stderr
    after = snapshot(rendered)
    lecture_files = {name for name in before if name.startswith("lecture.")}
    assert lecture_files and {name: after[name] for name in lecture_files} == \
        {name: before[name] for name in lecture_files}
    data = assert_recorded(rendered)
    clip = f"{QUICK.stem}.mp4"
    assert data["sections"]["quick"]["config"]["count"] == OTHER_COUNT and after[clip] != before[clip]
    assert hashlib.sha256((rendered / "lecture.mp4").read_bytes()).hexdigest() == data["lecture"]["sha256"]


# 8. A manifest that is not ours is kept aside and its sections rendered again; unusable folders are one line.

@pytest.mark.parametrize("corrupt", [
    lambda path: path.write_bytes(b"\xff\xfe not utf-8"),
    lambda path: path.write_text('{"sections": 5}'),
    lambda path: path.write_text('{"sections": {"matrix": {"files": ["../../victim"]}}}'),
    lambda path: path.write_text("[" * 100_000 + "]" * 100_000),
    lambda path: (path.unlink(), path.mkdir()),
])
def test_a_corrupt_manifest_is_kept_aside_as_it_was_and_read_as_empty(tmp_path, corrupt):
    folder = OutputFolder(tmp_path / "out")
    target = folder.path / "manifest.json"
    target.write_text("{}")
    corrupt(target)
    kept = snapshot(folder.path).get("manifest.json")
    warnings = []
    assert read_manifest(folder, warnings.append) == {"sections": {}}
    aside = list(folder.path.glob("manifest.json.corrupt-*"))
    assert len(aside) == 1 and not target.exists() and "kept as manifest.json.corrupt-" in warnings[0]
    assert aside[0].is_dir() or hashlib.sha256(aside[0].read_bytes()).hexdigest() == kept


def test_a_render_over_a_corrupt_manifest_keeps_it_aside_and_renders_the_section_again(rendered):
    """The kinds of corruption are the test above; here the CLI's whole path, with a manifest naming a file
    outside the folder."""
    target = rendered / "manifest.json"
    target.write_text('{"sections": {"quick": {"files": ["../../victim"]}}}')
    kept = snapshot(rendered).get("manifest.json")
    result = run_quick_cli("render", "quick", *TINY, "-o", str(rendered), "--no-audio")  # sound is not what is read
    assert result.returncode == 0, result.stderr
    aside = list(rendered.glob("manifest.json.corrupt-*"))
    assert len(aside) == 1 and "kept as manifest.json.corrupt-" in result.stderr
    assert hashlib.sha256(aside[0].read_bytes()).hexdigest() == kept
    assert "quick" in assert_recorded(rendered)["sections"]


@pytest.mark.parametrize("out", ["/proc/lecture-out", "/proc", "{tmp}/a-file/out"])
def test_an_unusable_output_folder_is_one_line_and_exit_2(tmp_path, out):
    (tmp_path / "a-file").write_text("a file, not a folder")
    result = run_cli("render", "matrix", *TINY, "-o", out.format(tmp=tmp_path))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: -o ")


def test_a_read_only_output_folder_is_one_line_for_render_and_slides(pristine, small_disk):
    out = small_disk / "out"
    shutil.copytree(pristine, out, symlinks=True)
    before = snapshot(out)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    for command in ("render", "slides"):
        result = run_quick_cli(command, "quick", *TINY, "-o", str(out), *OTHER_CONFIG)
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1 and "Read-only file system" in result.stderr, result.stderr
    assert snapshot(out) == before
