"""The user's own cache folder, ``$XDG_CACHE_HOME/atencion``, and private folders inside it that no other user
can change. As the XDG Base Directory spec says, an unset, empty or relative ``XDG_CACHE_HOME`` is ignored and
``~/.cache`` is used instead: a relative one would put the cache wherever the render was started.

A folder is used only if no other user can change it or any folder on the way to it, so nobody can swap it or a
parent for another folder (or a link) while we read it: every component from ``/`` is opened relative to its
parent's descriptor without following links and must be owned by root or by us and writable by nobody else
(a shared folder such as ``/tmp`` only with its sticky bit, which keeps others from renaming what is ours); our
own folders are owned by us with mode 0700. The descriptor stays on the folder that was checked whatever later
happens to its path, so a reader that opens entries relative to it (``os.open(name, dir_fd=...)``) cannot be
redirected.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

APPLICATION = "atencion"
FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
TEMPORARY = re.compile(r"\.entry-[0-9a-f]{16}")  # the name an entry is written under before it is renamed


class Untrusted(OSError):
    """A folder on the way that another user could change (or a link)."""


@dataclass(frozen=True)
class PrivateFolder:
    """A checked folder: its path (without links) and a descriptor open on it for the life of the process."""

    path: Path
    descriptor: int


def cache_home() -> Path:
    """``$XDG_CACHE_HOME`` when it is an absolute path, else ``~/.cache``."""
    value = os.environ.get("XDG_CACHE_HOME", "")
    return Path(value) if os.path.isabs(value) else Path.home() / ".cache"


def private_folder(name: str) -> PrivateFolder | None:
    """``cache_home()/atencion/name``, made (mode 0700) where missing; None when it or a folder on its path
    is a link or could be changed by another user, or it cannot be made."""
    home = cache_home()
    try:
        if not home.is_absolute():  # $HOME itself relative: there is no trusted way to it
            raise Untrusted(f"{home} is not an absolute path")
        descriptor = _checked(os.open("/", FOLDER_FLAGS), ours=False)
        for part in home.parts[1:]:
            descriptor = _enter(descriptor, part, ours=False)
        for part in (APPLICATION, name):
            descriptor = _enter(descriptor, part, ours=True)
    except OSError:  # each step closes what it opened when it fails
        return None
    return PrivateFolder(home / APPLICATION / name, descriptor)


def _enter(parent: int, name: str, ours: bool) -> int:
    """The folder ``name`` inside ``parent`` (made if missing), checked; closes ``parent`` either way."""
    try:
        try:
            child = os.open(name, FOLDER_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            try:
                os.mkdir(name, 0o700, dir_fd=parent)
            except FileExistsError:  # another render made it meanwhile
                pass
            child = os.open(name, FOLDER_FLAGS, dir_fd=parent)
    finally:
        os.close(parent)
    return _checked(child, ours)


def _checked(descriptor: int, ours: bool) -> int:
    """``descriptor``, if only we (or root, for a folder not ``ours``) can change its folder; else closed and
    Untrusted raised."""
    status = os.fstat(descriptor)
    if ours:
        trusted = status.st_uid == os.getuid() and not status.st_mode & 0o077
    else:
        shared = status.st_mode & 0o022 and not status.st_mode & stat.S_ISVTX
        trusted = status.st_uid in (0, os.getuid()) and not shared
    if not trusted:
        os.close(descriptor)
        raise Untrusted(f"folder owned by {status.st_uid} with mode {stat.filemode(status.st_mode)}")
    return descriptor


def open_entry(folder: PrivateFolder, name: str) -> BinaryIO:
    """The entry ``name`` of ``folder`` opened for reading, relative to its descriptor and never through a link;
    OSError when it is not a regular file (a FIFO there would otherwise hold the render forever)."""
    descriptor = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder.descriptor)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(errno.EINVAL, f"{name} is not a regular file")
    return os.fdopen(descriptor, "rb")


def write_entry(folder: PrivateFolder, name: str, write: Callable[[BinaryIO], None]) -> bool:
    """``write(file)`` into a name made exclusively in ``folder``, then renamed over ``name``, so a reader never
    sees half an entry; False, and nothing left behind, when it cannot be written (a full disk)."""
    temporary = f".entry-{secrets.token_hex(8)}"
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                             dir_fd=folder.descriptor)
        with os.fdopen(descriptor, "wb") as file:
            write(file)
        os.replace(temporary, name, src_dir_fd=folder.descriptor, dst_dir_fd=folder.descriptor)
    except OSError:
        try:
            os.unlink(temporary, dir_fd=folder.descriptor)
        except OSError:
            pass
        return False
    return True


def trim(folder: PrivateFolder, entries: re.Pattern, most: int) -> None:
    """Past ``most`` entries (names ``entries`` matches, and temporary names), remove the half least recently
    used, by access time as the file system keeps it."""
    # a descriptor of its own: listing moves the offset it shares with every copy of the folder's descriptor
    listing = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=folder.descriptor)
    try:
        used = {}
        with os.scandir(listing) as found:
            for entry in found:
                if entries.fullmatch(entry.name) or TEMPORARY.fullmatch(entry.name):
                    try:
                        used[entry.name] = entry.stat(follow_symlinks=False).st_atime
                    except OSError:  # removed meanwhile by another render's trim
                        continue
    finally:
        os.close(listing)
    if len(used) <= most:
        return
    for name in sorted(used, key=used.get)[:len(used) // 2]:
        try:
            os.unlink(name, dir_fd=folder.descriptor)
        except FileNotFoundError:
            pass
