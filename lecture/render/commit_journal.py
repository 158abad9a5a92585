"""A commit's journal: how new files replace old ones in OUT as one change, whatever stops the process.

1. Prepare: each new file, flushed to disk, is moved into ``OUT/.atencion/commit``; nothing in OUT has changed.
2. Decide: ``commit/journal.json`` says where each file goes and which files of ours it retires; it is flushed
   and renamed into place. That rename is the commit: before it the old version stands, after it the new one.
3. Roll forward: each file renamed to its name in OUT, the retired ones removed, the record of our files
   written, the journal removed (``OutputFolder.roll_forward``).

Whoever takes the folder's lock next looks here first (``pending``): a journal means a commit stopped after
deciding (a ``kill -9``, a power cut, a full disk), and it is rolled forward, every step of which can be done
again; a commit folder without one stopped before deciding, and is removed. Every command that reads OUT takes
the lock, so none sees half a commit.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

COMMIT = "commit"  # in OUT/.atencion: the files of the commit under way, and its journal
JOURNAL = "journal.json"
DIGEST_LENGTH = 64  # hex digits of a SHA-256


class JournalError(OSError):
    """A journal that this tool did not write: one line saying where."""


@dataclass(frozen=True)
class Journal:
    """A decided commit: ``moves`` (file in the commit folder, name in OUT), ``retired`` (name in OUT, the SHA-256
    it had when we wrote it: removed only if it still has it) and ``record`` (our files in OUT once done)."""

    moves: list[tuple[str, str]]
    retired: dict[str, str]
    record: dict[str, str | None]

    def as_data(self) -> dict:
        return {"moves": [list(move) for move in self.moves], "retired": self.retired, "record": self.record}


def prepare(private: Path, placed: dict[str, Path]) -> tuple[Path, list[tuple[str, str]]]:
    """Move each file of ``placed`` (by its name in OUT), flushed to disk, into a fresh commit folder; returns the
    folder and the moves a journal will list."""
    folder = private / COMMIT
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700)
    moves = []
    for number, (name, source) in enumerate(placed.items()):
        sync(source)
        os.replace(source, folder / str(number))
        moves.append((str(number), name))
    sync(folder)
    return folder, moves


def decide(folder: Path, journal: Journal) -> None:
    """Write the journal into ``folder``: from the moment its name is in place, the commit has happened."""
    draft = folder / f"{JOURNAL}.draft"
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(journal.as_data(), file, ensure_ascii=False)
        file.flush()
        os.fsync(file.fileno())
    os.replace(draft, folder / JOURNAL)
    sync(folder)


def pending(private: Path) -> Journal | None:
    """The decided commit a stopped process left to roll forward, if any; an undecided one is removed (nothing
    in OUT had changed yet). Raises JournalError for a journal that is not ours."""
    folder = private / COMMIT
    if not os.path.lexists(folder):
        return None
    try:
        descriptor = os.open(folder / JOURNAL, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    except OSError as error:
        raise JournalError(error.errno, f"{folder / JOURNAL} cannot be read") from None
    with os.fdopen(descriptor, encoding="utf-8") as file:
        try:
            return _checked(json.load(file), folder)
        except (ValueError, TypeError, KeyError) as error:
            raise JournalError(0, f"{folder / JOURNAL} is not a journal of this tool ({error}); remove {folder} "
                                  "to give that commit up (its sections are then rendered again)") from None


def finish(private: Path) -> None:
    """The commit is done: its journal, then its folder, removed."""
    folder = private / COMMIT
    os.unlink(folder / JOURNAL)
    shutil.rmtree(folder, ignore_errors=True)


def _checked(data: dict, folder: Path) -> Journal:
    """``data`` as a Journal, if every name in it stays inside OUT and every move's file inside ``folder``."""
    moves = [(str(number), str(name)) for number, name in data["moves"]]
    retired = {str(name): str(digest) for name, digest in data["retired"].items()}
    record = {str(name): (None if digest is None else str(digest)) for name, digest in data["record"].items()}
    names = [name for _, name in moves] + list(retired) + list(record)
    if not all(stays_inside(name) for name in names) or not all(number.isdigit() for number, _ in moves):
        raise ValueError("a name leaves the output folder")
    return Journal(moves, retired, record)


def stays_inside(name: str) -> bool:
    """A relative name that cannot leave the folder it is read in."""
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and "\0" not in name and all(
        part not in ("", ".", "..") for part in parts)


def sync(path: Path) -> None:
    """Flush ``path`` (a file, or a folder and its files) to the disk."""
    if path.is_dir():
        for child in path.iterdir():
            if child.is_file() and not child.is_symlink():
                sync(child)
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
