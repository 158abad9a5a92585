"""Clean embedding (issue 41): ``--clean`` stills and clips show the content alone, and a ``--steps`` clip's
formats are all kept up to date in the manifest."""

import numpy as np
from PIL import Image

from lecture.render.manifest import file_hash
from media_checks import TINY, manifest, run_cli
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
    assert file_hash(out / entry["files"][0], entry["contents"][entry["files"][0]]) == entry["sha256"][entry["files"][0]]
