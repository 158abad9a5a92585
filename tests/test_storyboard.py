"""Storyboards: one contact sheet per section with one tile per step, from stills, not from a video."""

import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image, ImageDraw
from scipy import ndimage

from lecture.cli import cli
from lecture.publish import slides, storyboard
from lecture.publish.storyboard import LabelFont
from lesson.locale import load_locale
from lesson.steps import step_keys
from media_checks import TINY, copy_of, manifest, run_cli, then

MATRIX_STEPS = len(step_keys("matrix"))

BACKGROUND = (17, 21, 28)  # the scenes' background colour: what a tile is made of at its edges


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    out = tmp_path_factory.mktemp("storyboard")
    result = run_cli("storyboard", "matrix", *TINY, "-o", str(out), "-j", "1")
    assert result.returncode == 0, result.stderr
    return out


def tiles(sheet: Image.Image) -> list[tuple[int, int]]:
    """(width, height) of every large region painted in the scenes' background colour."""
    pixels = np.asarray(sheet.convert("RGB")).astype(int)
    mask = np.abs(pixels - BACKGROUND).sum(axis=2) < 12
    labels, count = ndimage.label(mask)
    boxes = ndimage.find_objects(labels)
    sizes = [(box[1].stop - box[1].start, box[0].stop - box[0].start) for box in boxes]
    return [size for size in sizes if size[0] * size[1] > 0.01 * mask.size]


def test_one_tile_per_step(out):
    steps = manifest(out / "stills")["sections"]["matrix"]["steps"]
    with Image.open(out / "01-matrix-storyboard.png") as sheet:
        found = tiles(sheet)
    assert len(found) == len(steps) == MATRIX_STEPS
    assert set(found) == {(256, 144)}


def test_made_from_stills_without_touching_the_videos(out):
    stills = sorted((out / "stills" / "01-matrix").glob("*.png"))
    assert len(stills) == MATRIX_STEPS
    assert not (out / "manifest.json").exists() and not list(out.glob("*.mp4"))


def test_a_second_storyboard_reuses_the_stills(out):
    before = (out / "stills" / "01-matrix" / "01-formula.png").stat().st_mtime_ns
    result = run_cli("storyboard", "matrix", *TINY, "-o", str(out), "-j", "1")
    assert result.returncode == 0, result.stderr
    assert "01-matrix: up to date, skipped" in result.stderr
    assert (out / "stills" / "01-matrix" / "01-formula.png").stat().st_mtime_ns == before


def test_titles_draw_characters_inter_lacks():
    font = LabelFont("Inter-Regular.otf", 40)
    image = Image.new("L", (200, 60), 0)
    font.draw(ImageDraw.Draw(image), (0, 0), "ᵀ")
    box = image.point(lambda value: 255 if value else 0).getbbox()
    missing = font.primary.getbbox("\U0010FFFD")
    assert box and (box[2] - box[0], box[3] - box[1]) != (missing[2] - missing[0], missing[3] - missing[1])


@pytest.fixture(scope="module")
def english_board(tmp_path_factory):
    """The matrix storyboard in English: its folder and the command's result."""
    out = tmp_path_factory.mktemp("storyboard-english")
    result = run_cli("storyboard", "matrix", *TINY, "-o", str(out), "-j", "1", "--set", "lecture.lang=en")
    assert result.returncode == 0, result.stderr
    return out, result


def test_a_storyboard_in_english_reads_the_english_locale(out, english_board):
    folder, result = english_board
    entry = manifest(folder / "stills")["sections"]["matrix"]
    assert entry["lang"] == "en"
    assert [step["title"] for step in entry["steps"]] == [
        step["title"] for step in load_locale("en")["matrix"]["steps"].values()]
    assert f"{folder / '01-matrix-storyboard.png'}: {MATRIX_STEPS} steps" in result.stderr.splitlines()
    with Image.open(folder / "01-matrix-storyboard.png") as english, \
            Image.open(out / "01-matrix-storyboard.png") as spanish:
        heading = (0, 0, english.width, english.height // 12)  # the section's title, in its language
        assert english.crop(heading).tobytes() != spanish.crop(heading).tobytes()


def put_english_stills(english: Path, out: Path) -> None:
    """The English stills renamed over ``out``'s, as a copy by another program would leave them: whole files,
    the stills' manifest left as it was."""
    for still in sorted((english / "stills" / "01-matrix").glob("*.png")):
        shutil.copyfile(still, out / "stills" / "01-matrix" / f".{still.name}.new")
        (out / "stills" / "01-matrix" / f".{still.name}.new").replace(out / "stills" / "01-matrix" / still.name)


def storyboard_in_process(out: Path):
    return CliRunner().invoke(cli, ["storyboard", "matrix", *TINY, "-o", str(out), "-j", "1"])


def test_stills_replaced_after_their_manifest_is_read_are_left_out_in_one_line_and_exit_1(
        out, english_board, tmp_path, monkeypatch):
    copy = copy_of(out, tmp_path / "out")
    monkeypatch.setattr(slides, "read_manifest",
                        then(slides.read_manifest, lambda: put_english_stills(english_board[0], copy)))
    result = storyboard_in_process(copy)
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[-1] == (
        f"matrix: 01-matrix in {copy / 'stills'}: missing or changed since it was rendered (not the bytes its "
        "manifest.json entry hashes); left out: run the command again, it renders matrix anew first")
    assert (copy / "01-matrix-storyboard.png").read_bytes() == (out / "01-matrix-storyboard.png").read_bytes()


def test_stills_replaced_before_the_sheet_is_drawn_give_the_sheet_of_the_render_their_manifest_names(
        out, english_board, tmp_path, monkeypatch):
    copy = copy_of(out, tmp_path / "out")
    monkeypatch.setattr(storyboard, "render_current",
                        then(storyboard.render_current, lambda: put_english_stills(english_board[0], copy)))
    assert storyboard_in_process(copy).exit_code == 0
    assert (copy / "01-matrix-storyboard.png").read_bytes() == (out / "01-matrix-storyboard.png").read_bytes()
