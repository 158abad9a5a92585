"""Typeset labels kept between processes (scenes.typeset_store): what comes back is the label typeset afresh,
an entry that does not load is made again, and a store others can write to is never read."""

import os
import subprocess
import sys

import numpy as np
import pytest

from media_checks import ROOT
from scenes import typeset_store
from scenes.typeset_store import store_folder, stored
from scenes.visuals import _markup_label

LABEL = ("La atención de W<sub>Q</sub>", "La atención de W_Q", "#E8E8E8FF", 24, "NORMAL")


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    store_folder.cache_clear()
    yield tmp_path / "cache"
    store_folder.cache_clear()


def never(*_):
    raise AssertionError("typeset again although it was stored")


def drawn(label) -> list[tuple]:
    """Every glyph's points and colours, in order."""
    return [(member.points.round(9).tobytes(), member.fill_rgbas.tobytes(), member.stroke_rgbas.tobytes())
            for member in label.family_members_with_points()]


def test_a_label_typeset_in_another_process_comes_back_as_if_typeset_here(store):
    code = ("from scenes.typeset_store import stored; from scenes.visuals import _markup_label; "
            f"stored(('label', *{LABEL!r}), lambda: _markup_label(*{LABEL!r}))")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, env=os.environ | {"PYTHONPATH": str(ROOT)})
    loaded = stored(("label", *LABEL), never)
    fresh = _markup_label(*LABEL)
    assert loaded.shown_text == fresh.shown_text == "La atención de W_Q"
    assert drawn(loaded) == drawn(fresh) and len(drawn(fresh)) > 10
    np.testing.assert_allclose(loaded.get_center(), fresh.get_center())


def test_an_entry_that_does_not_load_is_typeset_again_and_replaced(store):
    stored(("label", *LABEL), lambda: _markup_label(*LABEL))
    (entry,) = store_folder().glob("*.pickle")
    entry.write_bytes(b"\x80\x05 truncated")
    again = stored(("label", *LABEL), lambda: _markup_label(*LABEL))
    assert drawn(again) == drawn(_markup_label(*LABEL))
    assert drawn(stored(("label", *LABEL), never)) == drawn(again)


@pytest.mark.parametrize("mode", [0o770, 0o707])
def test_a_store_others_can_write_to_is_neither_read_nor_written(store, mode):
    folder = store_folder()
    store_folder.cache_clear()
    folder.chmod(mode)
    made = []
    stored(("label", *LABEL), lambda: made.append(1) or _markup_label(*LABEL))
    stored(("label", *LABEL), lambda: made.append(1) or _markup_label(*LABEL))
    assert store_folder() is None and made == [1, 1] and not list(folder.iterdir())


def test_past_the_limit_the_least_used_half_is_removed(store, monkeypatch):
    monkeypatch.setattr(typeset_store, "MOST_ENTRIES", 4)
    folder = store_folder()
    for number in range(4):
        (folder / f"old-{number}.pickle").write_bytes(b"x")
        os.utime(folder / f"old-{number}.pickle", (1_000_000 + number, 1_000_000 + number))
    stored(("label", *LABEL), lambda: _markup_label(*LABEL))  # the fifth entry, the most recent
    assert sorted(path.stem for path in folder.iterdir() if path.name.startswith("old-")) == ["old-2", "old-3"]
    assert len(list(folder.glob("*.pickle"))) == 3
