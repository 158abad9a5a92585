"""Typeset labels kept on disk between processes: every section's render (and each save in watch mode) is
a fresh process, and typesetting a caption (Pango, then parsing its SVG) takes about 120 ms where loading
the finished label takes 5. A tiny render of the matrix section typesets some 60 labels.

The store is the user's own cache folder (``$XDG_CACHE_HOME/atencion/typeset-…``, never the output folder,
which others may write to), one file per label named by a hash of everything that shapes it and of the
versions of manim and Pango that drew it. Entries are Python pickles, so the folder is used only when it
is ours and nobody else can write to it; an entry that does not load is typeset again and replaced.
Writes go to a temporary name and are renamed, so concurrent renders never read half an entry.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TypeVar

import manim
import manimpango

Made = TypeVar("Made")
STORE_VERSION = 1  # raise when what a stored label holds changes
MOST_ENTRIES = 2_000  # a caption takes about 0.2 MB: at most some 400 MB; past it the least used half goes


def stored(key: tuple, make: Callable[[], Made]) -> Made:
    """``make()``, or what it returned for ``key`` in an earlier process."""
    folder = store_folder()
    if folder is None:
        return make()
    path = folder / f"{hashlib.sha256(repr(key).encode()).hexdigest()[:40]}.pickle"
    try:
        with open(path, "rb", opener=lambda name, flags: os.open(name, flags | os.O_NOFOLLOW)) as file:
            return pickle.load(file)
    except Exception:  # missing, truncated, or from an incompatible version: typeset it again
        made = make()
    _keep(made, path)
    return made


@cache
def font_installed(font: str) -> bool:
    """Whether Pango has ``font``: part of a label's key, so shapes typeset in a stand-in font before the
    font was installed are not used after."""
    return font in manimpango.list_fonts()


@cache
def store_folder() -> Path | None:
    """Our private store, made if missing; None when it is not ours alone (or cannot be made)."""
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache_home / "atencion" / f"typeset-{STORE_VERSION}-manim-{manim.__version__}-pango-{manimpango.__version__}"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        status = os.lstat(folder)
    except OSError:
        return None
    private = stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid() and not status.st_mode & 0o022
    return folder if private else None


def _keep(made, path: Path) -> None:
    try:
        descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=".entry-")
    except OSError:  # a full disk costs only the time a stored label saves
        return
    try:
        with os.fdopen(descriptor, "wb") as file:
            pickle.dump(made, file, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(name, path)
    except OSError:
        Path(name).unlink(missing_ok=True)
        return
    _trim(path.parent)


def _trim(folder: Path) -> None:
    """Past MOST_ENTRIES, remove the half least recently used (by access time, as the file system keeps it)."""
    entries = list(os.scandir(folder))
    if len(entries) <= MOST_ENTRIES:
        return
    used = {}
    for entry in entries:
        try:
            used[entry.path] = entry.stat().st_atime
        except OSError:  # removed meanwhile by another render's trim
            continue
    for name in sorted(used, key=used.get)[:len(used) // 2]:
        Path(name).unlink(missing_ok=True)
