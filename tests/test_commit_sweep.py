"""A commit no signal or kill can split: a two-section render (quick and matrix, then the lecture) is stopped at
every rename and removal of its commits and of its scratch folder's removal, by SIGKILL, SIGTERM, SIGINT and SIGHUP;
then the next command takes the folder. At every point each section is wholly old or wholly new (its files hash to
its manifest entry, which is the old render's or the new one's), the lecture hashes to its entry, and a user's file
is still there; after a signal a handler takes, no scratch is left (a kill's is removed by the next render).

The render is tests/commit_probe.py: the real CLI, started once and forked for every stop, with the workers'
results replayed from a new render made once (see there).
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from lecture.render.commit_journal import COMMIT
from lecture.render.manifest import entry_hash, file_hash, read_manifest
from lecture.render.output_folder import PRIVATE, SCRATCH, OutputFolder
from media_checks import ROOT, TINY, copy_of, quick_command, rendered_once, run_quick_cli, tiny_clean_pair, tiny_matrix

SECTIONS = ("quick", "matrix")
# The new render: both sections clean (their captions as subtitles: every file of the old pair changes and each
# section gains two caption files), the session's own (tiny_clean_pair), not a render of matrix for this module.
NEW = ("-j", "1", "--clean")
STOPS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
STATUS = {signal.SIGKILL: -signal.SIGKILL, signal.SIGINT: 130}
USER_FILE = "notas-de-clase.txt"


@pytest.fixture(scope="module")
def renders(tmp_path_factory) -> tuple[Path, Path]:
    """The old folder (both sections and their lecture) and the new render the workers' results come from (the
    same sections and lecture with NEW)."""
    matrix = tiny_matrix(tmp_path_factory)[0]
    old, result = rendered_once(tmp_path_factory, "sweep-old", "render", *SECTIONS, *TINY, start_from=matrix,
                                cli=run_quick_cli)
    assert result.returncode == 0, result.stderr
    return old, tiny_clean_pair(tmp_path_factory)


@pytest.fixture(scope="module")
def probe():
    """tests/commit_probe.py, running; ``probe(request)`` returns the stopped render's exit status."""
    process = subprocess.Popen(**quick_command(launcher=ROOT / "tests" / "commit_probe.py"),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(request: dict) -> int:
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())["status"]

    yield run
    process.stdin.close()
    process.wait(timeout=60)


def stopped_render(probe, renders, tmp_path: Path, point: int | None, stop: int) -> tuple[Path, int]:
    old, new = renders
    out = tmp_path / f"out-{point}"
    copy_of(old, out)
    (out / USER_FILE).write_text("mis notas")
    status = probe({"arguments": ["render", *SECTIONS, *TINY, "-o", str(out), "--force", *NEW], "new": str(new),
                    "point": point, "stop": int(stop), "log": str(tmp_path / f"log-{point}.txt")})
    return out, status


def assert_whole(out: Path, renders) -> list[str]:
    """What the next command sees (it takes the lock first): each section wholly old or wholly new, the lecture
    as its entry says, the user's file kept; returns each section's version."""
    folder = OutputFolder(out)
    with folder.lock():
        manifest = read_manifest(folder)
    assert not (out / PRIVATE / COMMIT).exists()
    versions = []
    for section in SECTIONS:
        entry = manifest["sections"][section]
        for name in entry["files"]:
            assert entry_hash(entry, out, name) == entry["sha256"][name], (section, name)
        made = [version for version, folder in zip(("old", "new"), renders)
                if read_manifest(OutputFolder(folder))["sections"][section]["sha256"] == entry["sha256"]]
        assert made, f"{section}: neither the old render's files nor the new one's"
        versions.append(made[0])
    assert file_hash(out / "lecture.mp4") == manifest["lecture"]["sha256"]
    assert (out / USER_FILE).read_text() == "mis notas"
    return versions


@pytest.fixture(scope="module")
def points(probe, renders, tmp_path_factory) -> int:
    """How many renames and removals the unstopped render's commits and scratch removal make."""
    folder = tmp_path_factory.mktemp("sweep-clean")
    out, status = stopped_render(probe, renders, folder, None, signal.SIGTERM)
    assert status == 0, (folder / "log-None.txt").read_text()
    assert assert_whole(out, renders) == ["new", "new"]
    return int((folder / "log-None.points").read_text())


@pytest.mark.parametrize("stop", STOPS, ids=[stop.name for stop in STOPS])
def test_a_stop_at_any_rename_leaves_every_section_whole(probe, renders, points, tmp_path, stop):
    """SIGKILL at every point; the three signals a handler takes share the points (each every third one, from
    its own offset), so each point also meets one of them, at a third of the time."""
    assert points >= 20  # three commits of several files each: the sweep covers something
    handled = STOPS[1:]
    chosen = range(points) if stop == signal.SIGKILL else range(handled.index(stop), points, len(handled))
    seen = set()
    for point in chosen:
        out, status = stopped_render(probe, renders, tmp_path, point, stop)
        assert status == STATUS.get(stop, 128 + stop), (point, (tmp_path / f"log-{point}.txt").read_text())
        seen.add(tuple(assert_whole(out, renders)))
        if stop != signal.SIGKILL:
            assert not any((out / PRIVATE / SCRATCH).iterdir()), point
        shutil.rmtree(out)
    if stop == signal.SIGKILL:  # a kill before the first commit's journal keeps all, one after it none of the old
        assert {("old", "old"), ("new", "new")} <= seen
    else:  # a handled signal waits for the commit it came in: that section at least is new
        assert ("old", "old") not in seen


def test_the_next_render_finishes_a_killed_commit_and_finds_it_up_to_date(probe, renders, points, tmp_path):
    """Killed in the middle of moving the first section's files: the next real render finishes the move, then
    finds both sections up to date."""
    out, status = stopped_render(probe, renders, tmp_path, points // 6, signal.SIGKILL)
    assert status == -signal.SIGKILL
    result = run_quick_cli("render", *SECTIONS, *TINY, "-o", str(out), *NEW)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("up to date, skipped") == 1  # the killed commit's section; the other is rendered
    assert_whole(out, renders)
