"""A lecturer's folder is never lost: commands that build on a render reuse its config, a render that replaces
a section says what changed, any valid path works for -o (and an unusable one is refused), and files that
are the same bytes are stored once. What the matrix section shows is checked on a render of it from a config file;
slides and a replacing render, the same for every section, start from such a render of the quick section
(tests/quick_section), a few seconds of CPU."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import av
import numpy as np
import pytest
from rich.console import Console

from attn_math import worked_example
from lecture.folder_config import changed_keys, folder_config, folder_quality, replacing_line
from lecture.render.jobs import Quality
from lecture.render.runner import RenderRequest
from lecture.publish.storyboard import build as build_storyboard
from lesson.config import ConfigError, load_config
from media_checks import ROOT, TINY, decoded_frame_count, manifest, run_cli, run_quick_cli
from lesson.numbers import parse_number
from quick_section.record import SECTION as QUICK

CUSTOM_X = [[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
ODD_FOLDER = "odd dir %$#~{ñ} 'quoted'/C:\\Users\\profe\\salida"  # LaTeX markup, manim's {}, Windows habits


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def render_cli(*arguments: str, cwd: Path, temporary: Path) -> subprocess.CompletedProcess:
    """`render.py ...` run from ``cwd`` with a temporary folder of its own, to see what it leaves there."""
    temporary.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, str(ROOT / "render.py"), *arguments], capture_output=True, text=True,
                          timeout=600, cwd=cwd, env={**os.environ, "TMPDIR": str(temporary)})


@pytest.fixture(scope="module")
def custom(tmp_path_factory) -> Path:
    """The matrix section rendered tiny from a config file of its own, into a folder with an odd relative path."""
    base = tmp_path_factory.mktemp("folders")
    config = base / "mis matrices.toml"
    config.write_text(f"[matrix]\nX = {CUSTOM_X}\n", encoding="utf-8")
    result = render_cli("render", "matrix", *TINY, "-c", str(config), "-o", ODD_FOLDER, "-j", "1", cwd=base,
                        temporary=base / "tmp")
    assert result.returncode == 0, result.stderr
    return base / ODD_FOLDER


@pytest.fixture(scope="module")
def custom_quick(tmp_path_factory) -> Path:
    """The quick section rendered tiny from a config file of its own: four halves (the default is three)."""
    base = tmp_path_factory.mktemp("quick")
    config = base / "cuatro.toml"
    config.write_text("[quick]\ncount = 4\n", encoding="utf-8")
    result = run_quick_cli("render", "quick", *TINY, "-c", str(config), "-o", str(base / "out"), "-j", "1")
    assert result.returncode == 0, result.stderr
    return base / "out"


def expected_Z(X) -> np.ndarray:
    preset = worked_example.PRESETS["default"]
    X = np.array(X)
    Q, K, V = X @ preset.W_Q, X @ preset.W_K, X @ preset.W_V
    scores = Q @ K.T / np.sqrt(K.shape[1])
    weights = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    return weights @ V


def shown_Z(entry: dict) -> np.ndarray:
    """Z as the last step that shows it wrote it (the variant steps after it show other matrices)."""
    shown = [step["numbers"]["Z"] for step in entry["steps"] if "Z" in step.get("numbers", {})]
    assert shown, "no step shows Z"
    return np.array([[parse_number(value) for value in row] for row in shown[-1]])


def test_an_odd_output_path_renders_and_leaves_no_link_behind(custom):
    entry = manifest(custom)["sections"]["matrix"]
    np.testing.assert_allclose(shown_Z(entry), expected_Z(CUSTOM_X), atol=0.006)
    assert decoded_frame_count(custom / "01-matrix.mp4") == round(entry["duration"] * 5)
    assert entry["lang"] == "es" and entry["settings"]["lecture"]["lang"] == "es"
    assert not list((custom.parent.parent / "tmp").iterdir())  # the links manim wrote through are gone


def test_a_one_section_lecture_is_the_sections_file_under_a_second_name(custom):
    lecture, section = (custom / "lecture.mp4").stat(), (custom / "01-matrix.mp4").stat()
    assert (lecture.st_dev, lecture.st_ino) == (section.st_dev, section.st_ino) and section.st_nlink == 2
    assert manifest(custom)["lecture"]["sha256"] == digest(custom / "01-matrix.mp4")


def test_the_folders_config_is_found_with_the_line_that_says_so(custom):
    config, line = folder_config(custom, ("matrix", "scaling"))
    assert config.matrix.matrices()["X"].tolist() == CUSTOM_X
    assert config.effective()["scaling"] == load_config().effective()["scaling"]  # not rendered: the default
    assert line == f"using the config {custom}/ was rendered with (manifest.json); pass -c or --set to change it"
    assert folder_quality(custom, ("matrix",)) == Quality(256, 144, 5)
    assert folder_config(custom, ("heads",)) is None and folder_config(custom.parent / "nothing", ("matrix",)) is None


def test_a_storyboard_after_a_custom_render_keeps_it(custom, tmp_path):
    """What the CLI does with no -c/--set (lecture.cli.make_request): the folder's config and frame size. (Slides
    the same way: test_slides_with_no_config_after_a_custom_render_keep_it_through_the_cli.)"""
    out = tmp_path / "out"
    subprocess.run(["cp", "-a", str(custom), str(out)], check=True)
    before = digest(out / "01-matrix.mp4")
    config, _ = folder_config(out, ("matrix",))
    request = RenderRequest(("matrix",), config, folder_quality(out, ("matrix",)), "mp4", out, 1)
    console = Console(stderr=True, record=True, width=200)
    assert build_storyboard(request, console) == 0
    said = console.export_text()
    assert "replacing" not in said and "01-matrix-storyboard.png: " in said
    assert digest(out / "01-matrix.mp4") == before
    stills = json.loads((out / "stills" / "manifest.json").read_text())["sections"]["matrix"]
    np.testing.assert_allclose(shown_Z(stills), expected_Z(CUSTOM_X), atol=0.006)


def assert_clips_tile(out: Path, stem: str) -> None:
    """The slide clips are the section's video (``stem``.mp4) cut at its steps (re-encoded, near lossless), and
    the HTML deck's clips are those very files under a second name."""
    video = out / f"{stem}.mp4"
    clips = sorted((out / "slides" / "files" / stem).glob("*.mp4"))
    with av.open(str(video)) as container:
        frames = [frame.to_ndarray(format="rgb24").astype(float) for frame in container.decode(video=0)]
    start = 0
    for clip in clips:
        with av.open(str(clip)) as container:
            cut = [frame.to_ndarray(format="rgb24").astype(float) for frame in container.decode(video=0)]
        assert np.abs(cut[-1] - frames[start + len(cut) - 1]).mean() < 2.0, clip.name
        start += len(cut)
        shown = out / "slides" / f"{stem}_assets" / stem / clip.name
        assert shown.stat().st_ino == clip.stat().st_ino and clip.stat().st_nlink == 2
    assert start == len(frames)


def test_slides_with_no_config_after_a_custom_render_keep_it_through_the_cli(custom_quick, tmp_path):
    out, stem = tmp_path / "out", QUICK.stem
    subprocess.run(["cp", "-a", str(custom_quick), str(out)], check=True)
    before = digest(out / f"{stem}.mp4")
    result = run_quick_cli("slides", "quick", "--to", "pptx", "--to", "html", "-o", str(out), "-j", "1")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0] == (f"using the config {out}/ was rendered with (manifest.json); "
                                             "pass -c or --set to change it")
    assert f"{stem}: up to date, skipped" in result.stderr and "replacing" not in result.stderr
    assert f"slides/{stem}.pptx: " in result.stderr and " slides" in result.stderr
    assert "diapositivas" not in result.stderr
    assert digest(out / f"{stem}.mp4") == before
    assert_clips_tile(out, stem)


def test_a_render_from_another_config_names_what_it_replaces(custom_quick, tmp_path):
    out, clip = tmp_path / "out", f"{QUICK.stem}.mp4"
    subprocess.run(["cp", "-a", str(custom_quick), str(out)], check=True)
    # --no-audio (audio.mute, a shared setting: named after the section's keys) makes the render cheaper
    result = run_quick_cli("render", "quick", "--resolution", "256x144", "--fps", "4",
                           "--set", "quick.draw_seconds=0.4", "--no-audio", "-o", str(out), "-j", "1")
    assert result.returncode == 0, result.stderr
    assert (f"replacing {clip}: quick.count, quick.draw_seconds, audio.mute changed; quality 256x144@4 "
            "(was 256x144@5)" in result.stderr.splitlines())
    entry = manifest(out)["sections"]["quick"]
    assert entry["config"]["draw_seconds"] == 0.4 and entry["quality"] == "256x144@4"
    assert (out / "lecture.mp4").stat().st_ino == (out / clip).stat().st_ino  # re-made with it


def test_a_replacing_line_names_a_few_keys_then_counts_the_rest():
    effective = load_config().effective()
    entry = {"files": ["02-scaling.mp4"], "config": effective["scaling"], "quality": "256x144@5", "format": "mp4",
             "settings": {table: effective[table] for table in ("lecture", "audio", "narration")}}
    same = replacing_line(entry, "scaling", {}, effective, "256x144@5", "mp4")
    changed = load_config(overrides=("audio.volume=10", "lecture.questions='none'", "scaling.d_k=16",
                                     "audio.mute=true")).effective()
    line = replacing_line(entry, "scaling", {}, changed, "256x144@5", "webm")
    assert same is None
    assert line == ("replacing 02-scaling.mp4: scaling.d_k, lecture.questions, audio.volume and 1 more "
                    "changed; format webm (was mp4)")


def test_changed_keys_walk_nested_tables():
    assert changed_keys({"a": {"b": 1, "c": [1]}, "d": 2}, {"a": {"b": 1, "c": [2]}, "e": 3}) == ["a.c", "e", "d"]


def test_sections_rendered_with_different_shared_settings_are_one_line(tmp_path):
    effective = load_config().effective()
    quiet = load_config(overrides=("audio.volume=10",)).effective()
    sections = {section: {"files": [f"{section}.mp4"], "fingerprint": "f", "duration": 1.0, "sha256": {},
                          "steps": [], "quality": "256x144@5", "format": "mp4", "audio": True,
                          "config": data[section], "settings": {"audio": data["audio"]}}
                for section, data in (("matrix", effective), ("scaling", quiet))}
    (tmp_path / "manifest.json").write_text(json.dumps({"sections": sections}))
    with pytest.raises(ConfigError, match=r"^.*: matrix and scaling were rendered with different settings "
                                          r"\(audio.volume\); pass -c or --set to choose, or name one of them$"):
        folder_config(tmp_path, ("matrix", "scaling"))
    assert folder_config(tmp_path, ("scaling",))[0].audio.volume == 10


def test_a_path_too_long_for_the_files_inside_is_refused_before_anything_is_written(tmp_path):
    out = tmp_path.joinpath(*["d" * 200] * 19)  # under PATH_MAX itself, not with our files inside
    result = run_cli("render", "matrix", *TINY, "-o", str(out))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "the path is too long" in result.stderr
    assert not list(tmp_path.iterdir())
