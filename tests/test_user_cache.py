"""The user's cache folder (lesson.user_cache) as a Dask worker uses it for its LaTeX and text caches
(lecture.batch.cluster.CacheSlot): a relative XDG_CACHE_HOME is ignored, and a cache root that another user
could change is not used (LaTeX would compile a .tex planted there)."""

import os
import threading

import pytest

from lecture.batch.cluster import CacheSlot, cache_root
from lesson.user_cache import open_entry, private_folder


@pytest.fixture(autouse=True)
def fresh_root():
    cache_root.cache_clear()
    yield
    cache_root.cache_clear()


def test_a_relative_xdg_cache_home_is_ignored(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative-cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with CacheSlot() as slot:
        assert slot.is_absolute() and slot.parent == tmp_path / "home" / ".cache" / "atencion" / "dask-workers"
    assert not (tmp_path / "relative-cache").exists()


@pytest.mark.parametrize("way", ["a link", "inside a folder others can write"])
def test_a_cache_root_others_could_change_gives_each_task_a_folder_of_its_own(tmp_path, monkeypatch, way):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # writable by all, and not sticky
    if way == "a link":
        (shared / "atencion").mkdir(mode=0o700)
        (tmp_path / "cache").mkdir()
        (tmp_path / "cache" / "atencion").symlink_to(shared / "atencion", target_is_directory=True)
        cache_home = tmp_path / "cache"
    else:
        cache_home = shared / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    with CacheSlot() as slot:
        assert shared not in slot.resolve().parents
        slot.mkdir(parents=True, exist_ok=True)  # as the task's render does
        (slot / "formula.tex").write_text("made by this task")
    assert not slot.exists() and not list(shared.rglob("*.tex"))


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_an_entry_that_is_not_a_regular_file_is_refused_at_once(tmp_path, monkeypatch, kind):
    """A FIFO planted at an entry's name would hold every render that opens it (the speech, typeset and formula
    stores read their entries through open_entry): it is an OSError, at once, as a missing entry is."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = private_folder("probe")
    planted = folder.path / "entry"
    os.mkfifo(planted) if kind == "fifo" else planted.mkdir()
    outcome = []

    def read():
        try:
            open_entry(folder, "entry")
            outcome.append("opened")
        except OSError as error:
            outcome.append(error.strerror)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=5)
    assert outcome == ["entry is not a regular file"]
