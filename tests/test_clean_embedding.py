"""Clean embedding (issue 41): ``--clean`` stills and clips show the content alone, and a ``--steps`` clip's
formats are all kept up to date in the manifest."""

import json
import tomllib

import numpy as np
from PIL import Image

from lecture.render.manifest import file_hash
from media_checks import QUICK, TINY, manifest, run_cli, run_quick_cli, subtitle_cues
from scenes import style

# At 256x144 the header (title and step counter) is one line at the top edge and the caption one or two lines at
# the bottom edge: each lies within an eighth of the frame's height, the body between them.
BAND = 144 // 8
BACKGROUND = style.BACKGROUND.to_int_rgb().astype(int)


def bands_drawn(still) -> tuple[bool, bool]:
    """Whether the still's top band and its bottom (caption) band hold any pixel other than the background."""
    pixels = np.asarray(Image.open(still).convert("RGB")).astype(int)
    drawn = np.abs(pixels - BACKGROUND).max(axis=2) > 0
    return bool(drawn[:BAND].any()), bool(drawn[-BAND:].any())


def test_a_clean_still_is_the_content_alone_and_replaces_the_normal_one(tmp_path):
    out = tmp_path / "out"
    softmax = ("render", "matrix", "--steps", "softmax", "--format", "png", *TINY, "-o", str(out))
    normal = run_cli(*softmax)
    assert normal.returncode == 0, normal.stderr
    (name, entry), = manifest(out)["clips"].items()
    still = out / entry["files"][0] / entry["contents"][entry["files"][0]][0]
    assert still.name.endswith("softmax.png")
    assert bands_drawn(still) == (True, True)
    assert entry["settings"]["lecture"]["clean"] is False

    clean = run_cli(*softmax, "--clean")
    assert clean.returncode == 0, clean.stderr
    assert "lecture.clean changed" in clean.stderr  # same name: the clean still replaces the normal one, said so
    (clean_name, entry), = manifest(out)["clips"].items()
    assert clean_name == name and entry["settings"]["lecture"]["clean"] is True
    assert bands_drawn(still) == (False, False)
    folder = entry["files"][0]
    assert file_hash(out / folder, entry["contents"][folder]) == entry["sha256"][folder]


def test_a_clean_clip_keeps_its_caption_in_its_subtitles(tmp_path):
    result = run_quick_cli("render", "quick", "--steps", "halved", "--clean", *TINY, "-o", str(tmp_path))
    assert result.returncode == 0, result.stderr
    caption = tomllib.loads((QUICK / "es.toml").read_text(encoding="utf-8"))["quick"]["steps"]["halved"]["caption"]
    assert [text for _, _, text in subtitle_cues(tmp_path / "08-quick-steps-02.mp4")[2]] == [caption]


def test_a_clips_formats_are_each_kept_up_to_date(tmp_path):
    out = tmp_path / "out"
    step_two = ("render", "quick", "--steps", "2", *TINY, "-o", str(out))
    for file_format in ("mp4", "png"):
        result = run_quick_cli(*step_two, "--format", file_format)
        assert result.returncode == 0, result.stderr
        assert "skipped" not in result.stderr
    again = run_quick_cli(*step_two, "--format", "mp4")
    assert again.returncode == 0, again.stderr
    assert "08-quick-steps-02: up to date, skipped" in again.stderr
    clips = manifest(out)["clips"]
    assert {entry["format"] for entry in clips.values()} == {"mp4", "png"}
    assert [entry["files"][0] for entry in clips.values()] == ["08-quick-steps-02.mp4", "08-quick-steps-02"]
    for entry in clips.values():
        for name in entry["files"]:
            assert file_hash(out / name, entry.get("contents", {}).get(name)) == entry["sha256"][name]


def test_a_clip_recorded_by_an_earlier_version_stays_up_to_date(tmp_path):
    out = tmp_path / "out"
    step_two = ("render", "quick", "--steps", "2", *TINY, "-o", str(out))
    assert run_quick_cli(*step_two).returncode == 0
    recorded = manifest(out)
    recorded["clips"] = {"08-quick-steps-02": entry for entry in recorded["clips"].values()}  # keyed by stem alone
    (out / "manifest.json").write_text(json.dumps(recorded))
    again = run_quick_cli(*step_two)
    assert again.returncode == 0, again.stderr
    assert "08-quick-steps-02: up to date, skipped" in again.stderr
    assert "corrupt" not in again.stderr and not list(out.glob("manifest.json.corrupt-*"))
