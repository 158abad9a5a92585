"""Storyboards: one contact sheet per section with one tile per step, from stills, not from a video."""

import numpy as np
import pytest
from PIL import Image, ImageDraw
from scipy import ndimage

from lecture.publish.storyboard import LabelFont
from lesson.locale import load_locale
from lesson.steps import step_keys
from media_checks import TINY, manifest, run_cli

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


def test_a_storyboard_in_english_reads_the_english_locale(out, tmp_path):
    result = run_cli("storyboard", "matrix", *TINY, "-o", str(tmp_path), "-j", "1", "--set", "lecture.lang=en")
    assert result.returncode == 0, result.stderr
    entry = manifest(tmp_path / "stills")["sections"]["matrix"]
    assert entry["lang"] == "en"
    assert [step["title"] for step in entry["steps"]] == [
        step["title"] for step in load_locale("en")["matrix"]["steps"].values()]
    assert f"{tmp_path / '01-matrix-storyboard.png'}: {MATRIX_STEPS} steps" in result.stderr.splitlines()
    with Image.open(tmp_path / "01-matrix-storyboard.png") as english, \
            Image.open(out / "01-matrix-storyboard.png") as spanish:
        heading = (0, 0, english.width, english.height // 12)  # the section's title, in its language
        assert english.crop(heading).tobytes() != spanish.crop(heading).tobytes()
