"""Our private folder ``OUT/.atencion`` is trusted only when it is ours, and its record of our files removes only
files that still hold what we wrote; a commit that could not be finished says so and is finished next time.
Through the real CLI with the quick section (tests/quick_section), as in test_output_safety.py."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from lecture.render.output_folder import PRIVATE, WRITTEN
from media_checks import TINY, quick_command, run_quick_cli
from quick_section.record import SECTION as QUICK
from test_output_safety import assert_recorded, pristine, small_disk, snapshot  # noqa: F401  (fixtures)

STILLS = ("render", "quick", *TINY, "--format", "png")
OTHER_UID = 1000


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plant(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (folder / name).write_bytes(data)


@pytest.mark.parametrize("legacy", [True, False], ids=["names-only", "with-hashes"])
def test_a_record_removes_only_files_that_still_hold_what_we_wrote(tmp_path, legacy):
    """Names planted in written.json (a note, a recording named like a still, a link, a still of ours the user
    edited) are never removed by a later render; a file that still has the SHA-256 we recorded is."""
    out = tmp_path / "out"
    assert run_quick_cli(*STILLS, "-o", str(out)).returncode == 0
    stills = out / QUICK.stem
    users = {"notas.txt": b"mis notas", "03-step.wav": b"RIFF a recording", "09-editada.png": b"my own picture"}
    plant(stills, users)
    (stills / "enlace.png").symlink_to(out / "manifest.json")
    ours = b"a still an earlier render left"
    (stills / "99-vieja.png").write_bytes(ours)
    record = json.loads((out / PRIVATE / WRITTEN).read_text())["files"]
    planted = [f"{QUICK.stem}/{name}" for name in (*users, "enlace.png")]
    if legacy:  # an earlier version's record: names only
        (out / PRIVATE / WRITTEN).write_text(json.dumps(sorted(record) + planted))
    else:
        record |= {name: sha256(b"what we once wrote there") for name in planted}
        record[f"{QUICK.stem}/99-vieja.png"] = sha256(ours)
        (out / PRIVATE / WRITTEN).write_text(json.dumps({"files": record}))
    result = run_quick_cli(*STILLS, "-o", str(out), "--force")
    assert result.returncode == 0, result.stderr
    assert {name: (stills / name).read_bytes() for name in users} == users
    assert (stills / "enlace.png").is_symlink()
    assert (stills / "99-vieja.png").exists() == legacy  # proven ours only by its recorded hash
    assert_recorded(out)


def test_another_users_private_folder_is_refused_and_nothing_is_removed(tmp_path):
    """In a folder every user may write in (sticky, like /tmp), another user made .atencion, open to all, and
    listed our files in its record: our render refuses it in one line and removes nothing."""
    assert os.geteuid() == 0, "this test gives a folder to another user: run the suite as root (CI does)"
    out = tmp_path / "shared"
    out.mkdir()
    out.chmod(0o1777)
    private = out / PRIVATE
    private.mkdir()
    (out / "tesis.txt").write_text("my thesis")
    (private / WRITTEN).write_text(json.dumps({"files": {"tesis.txt": sha256(b"my thesis")}}))
    for path in (private, private / WRITTEN):
        os.chown(path, OTHER_UID, OTHER_UID)
    private.chmod(0o777)
    before = snapshot(out)
    result = run_quick_cli(*STILLS, "-o", str(out))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{private} is not this tool's own folder (owner uid {OTHER_UID}" in result.stderr
    assert snapshot(out) == before


@pytest.mark.parametrize("where, mode", [(PRIVATE, 0o777), (PRIVATE, 0o775), (".", 0o777)])
def test_a_folder_others_may_write_in_is_refused_in_one_line(tmp_path, where, mode):
    out = tmp_path / "out"
    (out / PRIVATE).mkdir(parents=True)
    (out / where).chmod(mode)
    result = run_quick_cli(*STILLS, "-o", str(out))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: -o {out}: ")
    assert not (out / QUICK.stem).exists()


def test_a_sticky_folder_open_to_all_takes_a_render(tmp_path):
    out = tmp_path / "shared"
    out.mkdir()
    out.chmod(0o1777)
    result = run_quick_cli(*STILLS, "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert oct((out / PRIVATE).stat().st_mode & 0o777) == oct(0o700)


# The quick section's launcher with ENOSPC where the record of our files is written after a commit's renames.
RECORD_DISK_FULL = textwrap.dedent('''
    import quick_section.launch
    from lecture.render.output_folder import OutputFolder


    def disk_full(self, files):
        raise OSError(28, "No space left on device")


    OutputFolder._write_record = disk_full

    if __name__ == "__main__":
        quick_section.launch.main()
''')


def test_a_commit_stopped_by_a_full_disk_after_it_happened_says_so_and_is_finished_next_time(pristine, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(pristine, out, symlinks=True)
    launcher = tmp_path / "record_disk_full.py"
    launcher.write_text(RECORD_DISK_FULL)
    result = subprocess.run(**quick_command("render", "quick", *TINY, "-o", str(out), "--force", "--no-audio",
                                            launcher=launcher), capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    line = next(line for line in result.stderr.splitlines() if "failed" in line)
    assert "its new files are committed but not all moved into place (No space left on device)" in line
    assert "untouched" not in result.stderr  # the lecture's commit finds the section's unfinished, and says so
    assert "a commit stopped earlier could not be finished (No space left on device)" in result.stderr
    result = run_quick_cli("render", "quick", *TINY, "-o", str(out), "--no-audio")
    assert result.returncode == 0 and "up to date, skipped" in result.stderr, result.stderr
    entry = assert_recorded(out)["sections"]["quick"]
    assert entry["audio"] is False
    record = json.loads((out / PRIVATE / WRITTEN).read_text())["files"]
    assert record[entry["files"][0]] == entry["sha256"][entry["files"][0]]


def test_a_clip_on_a_full_disk_does_not_claim_its_sections_are_in_place(pristine, small_disk):  # noqa: F811
    out = small_disk / "out"
    shutil.copytree(pristine, out, symlinks=True)
    before = snapshot(out)
    filler = small_disk / "filler"
    filler.write_bytes(b"\0" * (shutil.disk_usage(small_disk).free - 256 * 1024))
    result = run_quick_cli("render", "quick", *TINY, "-o", str(out), "--steps", "1..2")
    assert result.returncode == 1 and "No space left on device" in result.stderr, result.stderr
    assert "in place" not in result.stderr and "the earlier files are untouched" in result.stderr
    assert snapshot(out) == before



def test_a_journal_that_is_not_ours_stops_in_one_line_that_says_how_to_go_on(pristine, tmp_path):  # noqa: F811
    out = tmp_path / "out"
    shutil.copytree(pristine, out, symlinks=True)
    commit = out / PRIVATE / "commit"
    commit.mkdir(mode=0o700)
    (commit / "journal.json").write_text('{"moves": "garbled"')
    before = snapshot(out)
    result = run_quick_cli("render", "quick", *TINY, "-o", str(out))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "is not a journal of this tool" in result.stderr and f"remove {commit}" in result.stderr
    assert snapshot(out) == before
    shutil.rmtree(commit)  # as the line says: the folder's earlier sections are whole, and up to date
    again = run_quick_cli("render", "quick", *TINY, "-o", str(out))
    assert again.returncode == 0 and "up to date, skipped" in again.stderr, again.stderr
