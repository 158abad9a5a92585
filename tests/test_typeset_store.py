"""Typeset labels kept between processes (scenes.typeset_store): what comes back is the label typeset afresh,
an entry that does not load is made again, nothing in the store ever runs as code, and a store that another
user could change (itself or a folder on its path, now or mid-render) is never read."""

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from manim import ManimColor, Mobject, VGroup

from media_checks import ROOT
from scenes import typeset_store
from scenes.typeset_store import store_folder, stored
from scenes.visuals import _markup_label

LABEL = ("La atención de W<sub>Q</sub>", "La atención de W_Q", "#E8E8E8FF", 24, "NORMAL")
KEY = ("label", *LABEL)


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty cache home; the store's folder is looked for afresh in it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    store_folder.cache_clear()
    yield tmp_path / "cache"
    store_folder.cache_clear()


@pytest.fixture
def marker(tmp_path):
    """A file that only a planted pickle, run as code, would create."""
    return tmp_path / "code-ran"


class Planted:
    """Unpickled, this runs ``open(marker, "w")``: any call another user might choose in its place."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


def typeset():
    return _markup_label(*LABEL)


def never(*_):
    raise AssertionError("typeset again although it was stored")


def entries(cache_home: Path) -> list[Path]:
    """Every file under ``cache_home``'s store folders, whatever the store names them."""
    return sorted(path for path in (cache_home / "atencion").rglob("*") if path.is_file())


def plant(folder: Path, marker: Path) -> None:
    """Every file in ``folder`` (and a .pickle, .npz and .npy beside each) becomes a pickle that runs code."""
    planted = pickle.dumps(Planted(marker))
    for entry in [path for path in folder.rglob("*") if path.is_file()]:
        for name in {entry.name, f"{entry.stem}.pickle", f"{entry.stem}.npz", f"{entry.stem}.npy"}:
            entry.with_name(name).write_bytes(planted)


def drawn(label) -> list[tuple]:
    """Every glyph's points and colours, in order."""
    return [(member.points.round(9).tobytes(), member.fill_rgbas.tobytes(), member.stroke_rgbas.tobytes())
            for member in label.family_members_with_points()]


def described(root: Mobject) -> tuple:
    """Everything a mobject holds, in a form ``==`` compares: each mobject reached (its family, its ``chars``,
    its SVG groups) by class and attributes, each array by dtype, shape and values, and a second reference to
    a mobject or array as a reference to the first, so sharing is compared too. The glyphs' parsed SVG path
    (``path_obj``, read only while a glyph is built) is left out."""
    met: dict[int, int] = {}

    def walk(value):
        if isinstance(value, (Mobject, np.ndarray)):
            if id(value) in met:
                return "again", met[id(value)]
            met[id(value)] = len(met)
            if isinstance(value, np.ndarray):
                return "array", value.dtype.str, value.shape, value.tobytes()
            return type(value), {name: walk(item) for name, item in vars(value).items() if name != "path_obj"}
        if isinstance(value, (list, tuple)):
            return type(value), [walk(item) for item in value]
        if isinstance(value, dict):
            return {name: walk(item) for name, item in value.items()}
        if isinstance(value, ManimColor):
            return "colour", value.to_rgba().tobytes()
        return type(value), value

    return walk(root)


def test_a_label_typeset_in_another_process_comes_back_as_if_typeset_here(store):
    code = f"from scenes.typeset_store import stored; from scenes.visuals import _markup_label; stored({KEY!r}, " \
           f"lambda: _markup_label(*{LABEL!r}))"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, env=os.environ | {"PYTHONPATH": str(ROOT)})
    loaded, fresh = stored(KEY, never), typeset()
    assert loaded.shown_text == fresh.shown_text == "La atención de W_Q"
    assert drawn(loaded) == drawn(fresh) and len(drawn(fresh)) > 10
    assert described(loaded) == described(fresh)
    assert loaded.chars[0] is loaded[0] and loaded.copy().scale(2).font_size == fresh.copy().scale(2).font_size == 48


def test_an_entry_that_does_not_load_is_typeset_again_and_replaced(store):
    stored(KEY, typeset)
    (entry,) = entries(store)
    entry.write_bytes(b"\x80\x05 truncated")
    again = stored(KEY, typeset)
    assert drawn(again) == drawn(typeset())
    assert drawn(stored(KEY, never)) == drawn(again)


def test_a_pickle_in_the_store_never_runs_whatever_its_name(store, marker):
    stored(KEY, typeset)
    plant(store / "atencion", marker)
    assert drawn(stored(KEY, typeset)) == drawn(typeset())
    assert not marker.exists()


def test_a_parent_swapped_for_a_link_mid_render_is_not_read(store, tmp_path, marker):
    stored(KEY, typeset)  # the store is checked and used
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(store / "atencion", elsewhere)
    plant(elsewhere, marker)
    (store / "atencion").rename(store / "moved")
    (store / "atencion").symlink_to(elsewhere, target_is_directory=True)
    assert drawn(stored(KEY, never)) == drawn(typeset())  # still the folder that was checked
    assert not marker.exists()


@pytest.mark.parametrize("way", ["a link to a folder others can write", "inside a folder others can write"])
def test_a_store_whose_path_others_could_change_is_not_read(tmp_path, monkeypatch, marker, way):
    planted = tmp_path / "planted"  # a cache home holding a pickle under every name the store uses
    monkeypatch.setenv("XDG_CACHE_HOME", str(planted))
    store_folder.cache_clear()
    stored(KEY, typeset)
    plant(planted, marker)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)  # writable by all, and not sticky: anyone could rename or replace what is in it
    if way.startswith("a link"):
        (tmp_path / "cache").mkdir()
        shutil.move(planted / "atencion", shared / "atencion")
        (tmp_path / "cache" / "atencion").symlink_to(shared / "atencion", target_is_directory=True)
        cache_home = tmp_path / "cache"
    else:
        cache_home = shared / "cache"
        shutil.move(planted, cache_home)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    store_folder.cache_clear()
    made = []
    label = stored(KEY, lambda: made.append(1) or typeset())
    assert made == [1] and drawn(label) == drawn(typeset()) and not marker.exists()
    store_folder.cache_clear()


def test_a_relative_xdg_cache_home_is_ignored(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative-cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    store_folder.cache_clear()
    stored(KEY, typeset)
    store_folder.cache_clear()
    assert not (tmp_path / "relative-cache").exists()
    assert len(entries(tmp_path / "home" / ".cache")) == 1


@pytest.mark.parametrize("mode", [0o770, 0o707])
def test_a_store_others_can_write_to_is_neither_read_nor_written(store, mode):
    stored(KEY, typeset)
    (folder,) = (store / "atencion").iterdir()
    for entry in folder.iterdir():
        entry.unlink()
    store_folder.cache_clear()
    folder.chmod(mode)
    made = []
    stored(KEY, lambda: made.append(1) or typeset())
    stored(KEY, lambda: made.append(1) or typeset())
    assert made == [1, 1] and not list(folder.iterdir())


def test_past_the_limit_the_least_used_half_of_our_entries_is_removed(store, monkeypatch):
    monkeypatch.setattr(typeset_store, "MOST_ENTRIES", 4)
    stored(("group", 0), VGroup)
    (folder,) = (store / "atencion").iterdir()
    notes = folder / "notes.txt"  # not the store's, and the least recently used of all
    notes.write_text("not ours")
    os.utime(notes, (999_000, 999_000))
    made = []  # the store's entries, oldest first
    for number in range(1, 5):
        made.append(*(set(folder.iterdir()) - {notes, *made}))
        os.utime(made[-1], (1_000_000 + number, 1_000_000 + number))
        stored(("group", number), VGroup)  # the fifth entry, the most recent, is over the limit
    assert [entry.exists() for entry in made] == [False, False, True, True]
    assert len(set(folder.iterdir()) - {notes}) == 3 and notes.read_text() == "not ours"
