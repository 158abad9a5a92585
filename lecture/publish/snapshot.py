"""A section's files as one render left them, for the commands that read OUT (``slides``, ``site``, ``storyboard``).

Under the output folder's lock, each file a reader needs is linked into its scratch folder and hashed there
against its manifest entry; the reader then works from those links, outside the lock. This tool replaces OUT's
files by renaming, never in place, so a link keeps the bytes it was hashed with whatever happens to OUT later (a
copy where the file system has no hard links): a reader sees the whole old section or the whole new one, never
a mix, and nothing that differs from its entry is ever cut or linked.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from lecture.render.manifest import MANIFEST, file_hash
from lecture.render.output_folder import link_or_copy


def snapshot(source: Path, target: Path, entry: dict, names: list[str]) -> list[str]:
    """Place each of ``names``, files of the manifest ``entry`` in the folder ``source`` (a folder's: those its
    ``contents`` lists), in the folder ``target``; returns those whose placed bytes do not hash to ``entry``
    (missing ones too), and then none stays in ``target``. Call under the lock of ``source``'s output folder."""
    contents = entry.get("contents", {})
    for name in names:
        place(source / name, target / name, contents.get(name))
    changed = [name for name in names if file_hash(target / name, contents.get(name)) != entry["sha256"].get(name)]
    if changed:
        for name in names:
            _remove(target / name)
    return changed


def changed_line(section: str, folder: Path, changed: list[str]) -> str:
    """The start of the one line that says a section's files in ``folder`` are not the ones its entry hashes."""
    return (f"{section}: {', '.join(changed)} in {folder}: missing or changed since it was rendered "
            f"(not the bytes its {MANIFEST} entry hashes)")


def place(source: Path, target: Path, names: list[str] | None = None) -> bool:
    """``source`` (a regular file, or a folder of them: those ``names``, or all) as ``target``, hard-linked where
    possible; False when there is nothing regular to place (a link or a device is never followed)."""
    try:
        mode = os.lstat(source).st_mode
    except OSError:
        return False
    if stat.S_ISDIR(mode) and names is not None:
        target.mkdir(parents=True, exist_ok=True)
        for name in names:
            place(source / name, target / name)
    elif stat.S_ISDIR(mode):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(source, target, copy_function=_link, ignore=_not_regular)
    elif stat.S_ISREG(mode):
        link_or_copy(source, target)
    else:
        return False
    return True


def _link(source: str, target: str) -> None:
    link_or_copy(Path(source), Path(target))


def _not_regular(folder: str, names: list[str]) -> list[str]:
    """Names in ``folder`` that are neither regular files nor folders (links among them): not placed."""
    return [name for name in names
            if not (stat.S_ISREG(mode := os.lstat(os.path.join(folder, name)).st_mode) or stat.S_ISDIR(mode))]


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
