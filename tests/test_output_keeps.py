"""What the output folder keeps, through the real CLI at tiny size: a section is kept the moment it is done,
whatever stops the render after it; a folder we write keeps what else the user put in it; our private folder
is no one else's; system folders are refused before anything is written. Renders are of the quick section
(tests/quick_section), as in test_output_safety.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from lecture.render.manifest import file_hash
from lesson.sections import SECTIONS
from lesson.steps import clip_stem, parse_steps
from media_checks import TINY, copy_of, quick_command, run_cli, run_quick_cli, tiny_quick
from quick_section.record import SECTION as QUICK
from test_output_safety import LONGER, assert_recorded, wait_until_gone

STEMS = {section.id: section.stem for section in (*SECTIONS, QUICK)}
PRIVATE = ".atencion"  # our own folder in OUT, as the README names it
BAD_SVG = b"<svg garbage"


STILL_RENDERING = 2.0  # seconds the other section is seen not committed after the first one is


def committed_sections(out: Path) -> dict:
    """The sections the manifest in ``out`` holds now (none while it is missing or being replaced)."""
    try:
        return json.loads((out / "manifest.json").read_text())["sections"]
    except (OSError, ValueError, KeyError):
        return {}


def user_files(folder: Path, names: list[str]) -> dict[Path, bytes]:
    """A file of the user's for each of ``names`` in ``folder`` (folders made on the way), by path: its bytes."""
    planted = {}
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"the user's {name}".encode())
        planted[path] = path.read_bytes()
    return planted


def intact(planted: dict[Path, bytes]) -> list[Path]:
    """The planted files that are gone or changed."""
    return [path for path, data in planted.items() if not path.is_file() or path.read_bytes() != data]


# 1. A finished section is committed at once: a signal or a kill afterwards keeps it.

@pytest.mark.parametrize("stop, status", [(signal.SIGTERM, 128 + signal.SIGTERM), (signal.SIGKILL, -signal.SIGKILL)])
def test_a_section_done_before_the_render_is_stopped_is_kept_and_skipped_next_time(tmp_path, stop, status):
    out = tmp_path / "out"
    # --no-audio: what is kept is the section's files as recorded, whatever they hold (a cheaper render). Two
    # workers: the quick section is done while the matrix section still renders (with one, the longest starts first).
    process = subprocess.Popen(**quick_command("render", "quick", "matrix", *TINY, "--no-audio", "-j", "2", "-o",
                                               str(out)),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 300
    while not committed_sections(out) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    first = set(committed_sections(out))
    # the matrix section renders some 15 s longer: had the commits waited for the end of the render, it would
    # follow the quick one within a moment
    time.sleep(STILL_RENDERING)
    assert first == set(committed_sections(out)) == {"quick"} and process.poll() is None
    os.kill(process.pid, stop)
    assert process.wait(timeout=60) == status, process.stderr.read()  # stopped while the other section rendered
    said = process.stderr.read()
    assert "leaked semaphore" not in said and "resource_tracker" not in said, said  # the killed worker's
    assert wait_until_gone(process.pid) == []
    (done, entry), = committed_sections(out).items()
    for name in entry["files"]:
        assert file_hash(out / name) == entry["sha256"][name], name
    again = run_quick_cli("render", done, *TINY, "--no-audio", "-o", str(out))
    assert again.returncode == 0 and f"{STEMS[done]}: up to date, skipped" in again.stderr, again.stderr


def test_a_render_stopped_while_manim_draws_leaves_no_leaked_semaphore_warning(tmp_path):
    """manim's progress bars made tqdm's default lock, a named semaphore the parent's resource tracker counts:
    the worker killed mid-play never released it, and the tracker warned of a leak as the render ended."""
    out = tmp_path / "out"
    process = subprocess.Popen(**quick_command("render", "quick", *TINY, *LONGER, "-j", "1", "-o", str(out)),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 300
    while not list((out / PRIVATE).glob("quick/partial_movie_files/*/mp4/*.mp4")) \
            and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGTERM)
    said = process.communicate(timeout=60)[1]
    assert process.returncode == 128 + signal.SIGTERM, said
    assert "leaked semaphore" not in said and "resource_tracker" not in said, said


# 2. A folder we write is replaced file by file: what the user put in it stays.

@pytest.mark.parametrize("steps", [None, "2..3"])
def test_stills_keep_the_user_files_in_their_folder(tmp_path, steps):
    out = tmp_path / "out"
    keys = list(QUICK.scene().STEPS)
    stem = clip_stem(QUICK.stem, parse_steps(steps, keys, "quick") if steps else None)
    # A recording named like the still of step 3, where the README says to record it, and a note.
    planted = user_files(out / stem, [f"03-{keys[2]}.wav", "notas.txt"])
    arguments = ("render", "quick", *TINY, "--format", "png", "-o", str(out), *(("--steps", steps) if steps else ()))
    for _ in range(2):  # a first render into the folder, then one replacing our stills (and skipped after)
        result = run_quick_cli(*arguments, "--force")
        assert result.returncode == 0, result.stderr
        assert intact(planted) == []
    stills = sorted(path.name for path in (out / stem).glob("*.png"))
    assert len(stills) == (2 if steps else len(keys))
    assert_recorded(out)
    again = run_quick_cli(*arguments)
    assert again.returncode == 0 and "up to date, skipped" in again.stderr, again.stderr


def test_site_keeps_what_else_is_in_its_folder_and_removes_only_its_own_old_files(tmp_path_factory, tmp_path):
    out = copy_of(tiny_quick(tmp_path_factory)[0], tmp_path / "out")
    video = f"{QUICK.stem}.mp4"
    planted = user_files(out / "site", [".git/config", ".git/HEAD", "CNAME", "notas.md", "videos/mine.mp4"])
    result = run_quick_cli("site", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert intact(planted) == [] and (out / "site" / "videos" / video).is_file()
    (out / video).unlink()  # the page then lists the section as not rendered: its video leaves the site
    result = run_quick_cli("site", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert intact(planted) == [] and not (out / "site" / "videos" / video).exists()
    assert (out / "site" / "index.html").is_file()


def test_slides_keep_the_user_files_in_a_decks_assets_folder(tmp_path_factory, tmp_path):
    out = copy_of(tiny_quick(tmp_path_factory)[0], tmp_path / "out")
    stem = QUICK.stem
    planted = user_files(out / "slides", [f"{stem}_assets/mine.css", f"files/{stem}/notas.txt"])
    result = run_quick_cli("slides", "quick", *TINY, "-j", "1", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert intact(planted) == []
    assert (out / "slides" / f"{stem}.html").is_file() and list((out / "slides" / f"{stem}_assets").iterdir())


# 3. Our private folder is our own: `-o ~` leaves other programs' caches alone.

def test_home_as_the_output_folder_keeps_other_programs_caches(tmp_path):
    home = tmp_path / "home"
    # Another program's cache folder named like one of ours was (~/.cache/<section>), with a file our stale-entry
    # clean-up took for a bad SVG of its own, and a file of the same stem.
    others = user_files(home / ".cache" / "quick" / "Tex", ["x.txt", "0123456789abcdef.tex"])
    (home / ".cache" / "quick" / "Tex" / "0123456789abcdef.svg").write_bytes(BAD_SVG)
    others[home / ".cache" / "quick" / "Tex" / "0123456789abcdef.svg"] = BAD_SVG
    # The stills of the first step: its texts are typeset into our cache like a whole section's.
    render = quick_command("render", "quick", *TINY, "--format", "png", "--steps", "1", "-o", str(home),
                           env={"HOME": str(home)})
    render["env"].pop("XDG_CACHE_HOME", None)
    result = subprocess.run(**render, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert intact(others) == []
    # In our own folder too, a clean-up removes only the names it made: a bad SVG (and LaTeX's files beside
    # it), not another file of the same stem. (In Tex, manim itself deletes any file not .tex or .svg.)
    cached = sorted((home / PRIVATE).rglob("texts/*.svg"))
    assert cached
    cached[0].write_bytes(BAD_SVG)
    beside = user_files(cached[0].parent, [f"{cached[0].stem}.notes"])
    forced = render | {"args": [*render["args"], "--force"]}
    result = subprocess.run(**forced, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert intact(beside) == []
    assert not cached[0].exists() or cached[0].read_bytes() != BAD_SVG  # dropped (made again if needed)


# 4. System folders are refused in one line, before anything is written.

@pytest.mark.parametrize("folder", ["/", "/etc", "/usr/lib/atencion"])
def test_system_folders_are_refused_in_one_line(folder):
    before = set(os.listdir(folder)) if os.path.isdir(folder) else None
    # --format png --steps 1: were the refusal ever lost, the least would be written there
    result = run_cli("render", "matrix", *TINY, "--format", "png", "--steps", "1", "-o", folder, timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"error: -o {folder}: ")
    assert "system folder" in result.stderr
    assert (set(os.listdir(folder)) if os.path.isdir(folder) else None) == before

