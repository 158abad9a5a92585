"""The output folder under concurrent renders and hostile input, through the real CLI at tiny size (the rest of
the faults are in test_output_safety.py; the two modules run side by side on two workers).

Every test checks what a user would lose: earlier files byte-identical (or the new ones complete and
recorded in the manifest), nothing outside ``-o`` changed. Renders are of the quick section (tests/quick_section),
as in test_output_safety.py; sentences are tried in the sections that take one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from lecture.render.output_folder import PRIVATE
from media_checks import TINY, copy_of, quick_command, run_cli, run_quick_cli, streams, tiny_quick
from quick_section.record import SECTION as QUICK
from test_output_safety import OTHER_CONFIG, OTHER_COUNT, assert_recorded, snapshot


@pytest.fixture
def rendered(tmp_path_factory, tmp_path) -> Path:
    """A copy of the quick section rendered once for the session (``tiny_quick``), for a test to change."""
    return copy_of(tiny_quick(tmp_path_factory)[0], tmp_path / "out")


# 3. Two renders with different configs into one folder: the manifest always describes the files there.

def test_concurrent_renders_with_two_configs_keep_manifest_and_files_together(tmp_path):
    """The first render has a second, longer section (matrix): the second render's quick section is committed
    while the first still works, and the first then joins its lecture over it."""
    out = tmp_path / "out"
    clip = out / f"{QUICK.stem}.mp4"
    first = subprocess.Popen(**quick_command("render", "quick", "matrix", *TINY, "-o", str(out), "-j", "2"),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    second = subprocess.Popen(**quick_command("render", "quick", *TINY, "-o", str(out), "-j", "1", "--no-audio",
                                              *OTHER_CONFIG), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    assert first.wait(timeout=600) == 0, first.stderr.read()
    assert second.wait(timeout=600) == 0, second.stderr.read()
    entry = assert_recorded(out)["sections"]["quick"]
    has_audio = "audio" in streams(clip)
    assert entry["audio"] is has_audio and (entry["config"]["count"] == OTHER_COUNT) is (not has_audio)
    for arguments, with_audio in ((("quick", "matrix", "-j", "2"), True),
                                  (("quick", "--no-audio", *OTHER_CONFIG), False)):
        again = run_quick_cli("render", *arguments, *TINY, "-o", str(out))
        assert again.returncode == 0, again.stderr  # skipped only if the video there was made this way
        assert ("audio" in streams(clip)) is with_audio
        assert_recorded(out)


# 5. A link planted at any name we write is replaced, never written through.

def test_planted_links_never_lead_outside_the_output_folder(rendered, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    victims = {name: outside / name for name in ("manifest.json", f"{QUICK.stem}.mp4", f"{QUICK.stem}.wav",
                                                 "lecture.mp4")}
    for name, victim in victims.items():
        victim.write_text(f"not yours: {name}")
        (rendered / name).unlink()
        (rendered / name).symlink_to(victim)
    for pid in range(os.getpid(), os.getpid() + 200):  # the old predictable scratch names
        (rendered / f".manifest.json.tmp-{pid}").symlink_to(outside / "manifest.json")
    before_outside = snapshot(outside)
    result = run_quick_cli("render", "quick", *TINY, "-o", str(rendered), *OTHER_CONFIG)
    assert result.returncode == 0, result.stderr
    assert snapshot(outside) == before_outside
    for name in victims:
        assert (rendered / name).is_file() and not (rendered / name).is_symlink(), name
    assert set(streams(rendered / f"{QUICK.stem}.mp4")) == {"video", "audio"}
    assert_recorded(rendered)


def test_a_link_in_place_of_our_own_folders_is_refused(rendered, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(rendered / PRIVATE)
    (rendered / PRIVATE).symlink_to(outside)
    before = snapshot(rendered)
    result = run_quick_cli("render", "quick", *TINY, "-o", str(rendered), *OTHER_CONFIG)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and PRIVATE in result.stderr
    assert list(outside.iterdir()) == [] and snapshot(rendered) == before
    (rendered / PRIVATE).unlink()
    (rendered / "slides").symlink_to(outside)
    result = run_quick_cli("slides", "quick", *TINY, "-o", str(rendered))
    errors = [line for line in result.stderr.splitlines() if not line.startswith("using the config")]
    assert result.returncode == 2 and len(errors) == 1 and "slides" in errors[0]
    assert list(outside.iterdir()) == []


# 6, 7. Hostile sentences and config files are refused in one line before any work, at bounded cost.

@pytest.mark.parametrize("sentence, named", [
    ("el perro\u200b ladró", "U+200B ZERO WIDTH SPACE"),
    ("el\u2066perro ladró", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ("el perro\u0007 ladró", "U+0007"),
    ("el perro\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
    ("perro" + "\u0301" * 5000, "characters"),
    (" ".join(["a" + "\u0301\u0302\u0303\u0304"] * 12), "accents"),
    ("x" * 31, "letters"),
])
@pytest.mark.parametrize("section", ["heads", "pipeline"])
def test_hostile_sentences_are_refused_naming_the_key(tmp_path, section, sentence, named):
    result = run_cli("render", section, *TINY, "-o", str(tmp_path / "out"),
                     "--set", f"{section}.sentence={json.dumps(sentence)}", timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"error: {section}.sentence: ")
    assert named in result.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("sentence", [
    "Привет ¿¡?! ñandú-ñandú " + "x" * 30,  # Cyrillic, punctuation alone, the longest word (Arabic is refused:
    # the scenes draw letters unshaped, test_sentences.py)
    "a a á\u0302 — … « » 1 2,5 ‰",  # one-letter and repeated words, two accents, dashes, digits
])
def test_odd_but_valid_sentences_render_in_every_section_that_takes_one(tmp_path, sentence):
    out = tmp_path / "out"
    result = run_cli("render", "heads", "pipeline", *TINY, "--format", "png", "-o", str(out),
                     "--set", f"heads.sentence={json.dumps(sentence)}",
                     "--set", f"pipeline.sentence={json.dumps(sentence)}", "--set", "pipeline.query=0")
    assert result.returncode == 0, result.stderr
    for entry in assert_recorded(out)["sections"].values():
        assert len(list((out / entry["files"][0]).glob("*.png"))) == len(entry["steps"])


@pytest.mark.parametrize("make, expected", [
    (lambda tmp: Path("/dev/zero"), "is not a regular file"),
    (lambda tmp: (os.mkfifo(tmp / "pipe.toml"), tmp / "pipe.toml")[1], "is not a regular file"),
    (lambda tmp: (tmp / "big.toml", (tmp / "big.toml").write_text("# x\n" * 100_000))[0], "larger than"),
    (lambda tmp: (tmp / "deep.toml", (tmp / "deep.toml").write_text(
        "[matrix]\nX = " + "[" * 5000 + "]" * 5000))[0], "deeper than"),
    (lambda tmp: (tmp / "latin1.toml", (tmp / "latin1.toml").write_bytes(b"# canci\xf3n\n"))[0], "not UTF-8"),
])
def test_config_files_that_are_not_small_toml_text_are_refused_at_once(tmp_path, make, expected):
    result = run_cli("render", "matrix", *TINY, "-o", str(tmp_path / "out"), "-c", str(make(tmp_path)), timeout=30)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and expected in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


def test_deeply_nested_set_value_is_one_line():
    result = run_cli("config", "--set", "matrix.X=" + "[" * 5000 + "]" * 5000, timeout=30)
    assert result.returncode == 2 and result.stderr == "error: matrix.X: nests arrays deeper than 6 levels\n"


def test_a_config_saved_with_a_byte_order_mark_is_read(tmp_path):
    config = tmp_path / "notepad.toml"
    config.write_bytes("\ufeff[audio]\nvolume = 41\n".encode("utf-8"))
    result = run_cli("config", "-c", str(config))
    assert result.returncode == 0 and "volume = 41" in result.stdout, result.stderr


# 9. A corrupt entry in our cache is dropped and made again.

def test_corrupt_cached_svgs_are_made_again(rendered, tmp_path):
    """The bad entries are dropped before the scene runs, and the scene, which typesets every text of the first
    render again, writes each one anew under its name: all of them are back, whole. (With an empty user cache:
    labels kept in the typeset store are loaded from there and never typeset, so they would write no SVG.)"""
    cached = sorted((rendered / PRIVATE).rglob("*.svg"))
    assert cached
    for number, svg in enumerate(cached):
        svg.write_bytes(b"" if number % 2 else b"<svg garbage")
    result = run_quick_cli("render", "quick", *TINY, "-o", str(rendered), "--force", "--no-audio",  # texts, not sound
                           env={"XDG_CACHE_HOME": str(tmp_path / "empty-cache")})
    assert result.returncode == 0, result.stderr
    remade = [svg for svg in cached if svg.exists() and ElementTree.parse(svg).getroot().tag.endswith("svg")]
    assert remade == cached
    assert_recorded(rendered)
