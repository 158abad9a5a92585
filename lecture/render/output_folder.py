"""The output folder (``-o``): what this tool may write there, and how, so that nothing is lost or half-written.

- Our own area is ``OUT/.atencion`` (refused if it is a link or not a folder), a name no other program uses:
  ``OUT/.cache`` would be everyone's cache under ``-o ~``. Everything is made first in a scratch folder inside
  ``OUT/.atencion/scratch``, created with an unpredictable name, and then renamed into place under the folder's
  lock: a name in ``OUT`` always holds a complete file, old or new.
- ``OUT/.atencion/written.json`` lists every file this tool put in ``OUT``. A folder we write (a section's
  stills, ``site``, a deck's assets) is replaced file by file: our files are replaced, those of ours the new
  version lacks are removed, anything else in it (a user's notes, ``.git``, recordings) stays.
- A scratch folder carries an owner file (process id, start time, boot id). A later run removes a
  scratch folder only when that file proves its owner is gone: nothing outside our scratch area is ever
  removed, whatever its name.
- Renaming never follows a link: a link planted at an output name is replaced, not written through.
- A commit blocks SIGINT and SIGTERM while it renames, so an interruption lands before or after it.
- The system's folders (``/``, ``/usr``, ``/etc``, ...) are refused before anything is written there.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import signal
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

PRIVATE = ".atencion"  # this tool's own folder inside OUT
SCRATCH = "scratch"
OWNER = "owner.json"
LOCK = "folder.lock"
WRITTEN = "written.json"  # in PRIVATE: the files this tool put in OUT, relative to it
# Folders of the system, never an output folder: each of these and everything inside it ...
SYSTEM_TREES = ("/proc", "/sys", "/dev", "/run", "/boot", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                "/libx32", "/usr")
# ... and these themselves (a folder inside them, such as /var/www/clase or /home/ana, may be a user's).
SYSTEM_FOLDERS = ("/", "/var", "/home", "/opt", "/srv", "/mnt", "/media")
PATH_MAX = 4096  # bytes in a path, with its final NUL (Linux's limits.h)
ROOM = 256  # bytes the longest path this tool makes inside OUT may add to it


class OutputError(Exception):
    """The output folder cannot be used: one line naming the folder and why."""


class OutputFolder:
    """``OUT``, checked usable, with our private area ``OUT/.atencion`` inside it."""

    def __init__(self, path: Path):
        self.path = check_output_path(path)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise OutputError(f"-o {self.path}: cannot create the output folder: {_reason(error)}") from None
        if not self.path.is_dir():
            raise OutputError(f"-o {self.path}: expected a folder, found a file")
        self.cache = self._private_folder(self.path / PRIVATE)
        self.scratch_root = self._private_folder(self.cache / SCRATCH)

    def _private_folder(self, path: Path) -> Path:
        """``path`` as a real folder of ours (made if missing); a link or a file there is refused."""
        try:
            path.mkdir(exist_ok=True)
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                raise OutputError(f"-o {self.path}: {path} is a link or a file, not this tool's folder; "
                                  "remove it and run again")
            probe = tempfile.TemporaryFile(dir=path)  # the folder must take new files
            probe.close()
        except OSError as error:
            raise OutputError(f"-o {self.path}: cannot write there: {_reason(error)}") from None
        return path

    def lock(self):
        """The folder's lock: one render at a time reads, changes and writes the manifest."""
        return private_lock(self.cache / LOCK)

    @contextmanager
    def scratch(self):
        """A fresh scratch folder owned by this process, removed when the block ends."""
        folder = Path(tempfile.mkdtemp(dir=self.scratch_root))
        try:
            (folder / OWNER).write_text(json.dumps(process_identity(os.getpid())))
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def remove_abandoned_scratch(self) -> None:
        """Remove scratch folders whose owner file names a process that no longer runs (a killed render)."""
        for folder in self.scratch_root.iterdir():
            try:
                owner = json.loads((folder / OWNER).read_text())
            except (OSError, ValueError):
                continue  # no readable owner file: not provably ours, or its owner is still writing it
            if isinstance(owner, dict) and not is_running(owner):
                shutil.rmtree(folder, ignore_errors=True)

    def subfolder(self, relative: str) -> Path:
        """``OUT/relative`` as real folders (made where missing); a link or file on the way is refused."""
        path = self.path
        for part in Path(relative).parts:
            if part in ("..", "/"):
                raise OutputError(f"-o {self.path}: {relative} leaves the output folder")
            path = path / part
            try:
                path.mkdir(exist_ok=True)
                is_folder = stat.S_ISDIR(os.lstat(path).st_mode)
            except OSError as error:
                raise OutputError(f"-o {self.path}: cannot create {path}: {_reason(error)}") from None
            if not is_folder:
                raise OutputError(f"-o {self.path}: {path} is a link or a file; expected a folder of this tool's")
        return path

    def commit(self, staged: dict[str, Path], scratch: Path) -> None:
        """Rename every ``staged`` path to ``OUT/<name>`` (call under ``lock``), files made durable first.

        A staged folder is merged into the folder at its name file by file: each of its files replaces the one
        at its name, files of ours there (``written``) that it lacks are removed, anything else stays. The
        record of our files is written before the renames with the new names, and after them without the
        removed ones: a crash in between leaves no file of ours unrecorded. ``scratch`` is the caller's."""
        placed: dict[str, Path] = {}
        for name, source in staged.items():
            placed |= _files_in(name, source)
        folders = [name for name, source in staged.items() if source.is_dir() and not source.is_symlink()]
        written = self.written()
        retired = {name for name in written if any(name.startswith(f"{folder}/") for folder in folders)} - set(placed)
        for name in folders:
            self.subfolder(name)
        for name, source in placed.items():
            _sync(source)
            self.subfolder(str(Path(name).parent))
            target = self.path / name
            if target.is_dir() and not target.is_symlink():
                raise IsADirectoryError(errno.EISDIR, "a folder stands where this tool writes a file", str(target))
        self._write_record(written | set(placed))
        with signals_held():
            for name, source in placed.items():
                os.replace(source, self.path / name)
            for name in retired:
                remove_file_inside(self.path, name)
            for folder in {(self.path / name).parent for name in placed}:
                _sync(folder)
        self._write_record((written | set(placed)) - retired)

    def written(self) -> set[str]:
        """The files this tool put in OUT, by name relative to it; an unreadable record is empty (nothing of
        ours is then removed: a file we cannot prove is ours stays)."""
        try:
            names = json.loads((self.cache / WRITTEN).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return set()
        if not isinstance(names, list):
            return set()
        return {name for name in names if isinstance(name, str) and _stays_inside(name)}

    def _write_record(self, names: set[str]) -> None:
        with tempfile.NamedTemporaryFile("w", dir=self.cache, prefix=f"{WRITTEN}.", delete=False,
                                         encoding="utf-8") as record:
            json.dump(sorted(names), record, indent=0, ensure_ascii=False)
            record.flush()
            os.fsync(record.fileno())
        os.replace(record.name, self.cache / WRITTEN)


def check_output_path(path: Path) -> Path:
    """``path`` made absolute, or OutputError when it can never be an output folder: too long, or a system
    folder. Makes nothing."""
    # absolute: ffmpeg would read a relative C:\Users\salida as a URL of protocol "C"
    path = Path(os.path.abspath(path))
    if len(os.fsencode(path)) + ROOM >= PATH_MAX:
        raise OutputError(f"-o {path}: the path is too long: at most {PATH_MAX - ROOM - 1} bytes "
                          "leave room for the files inside it")
    system = system_folder(path)
    if system:
        raise OutputError(f"-o {path}: {system} is a system folder, not a place for the lecture's files; "
                          "choose a folder of your own, e.g. -o ~/atencion")
    return path


def system_folder(path: Path) -> str | None:
    """Why ``path`` (links resolved) is no place for our files: it is a system folder or inside one; None if
    it is not."""
    real = os.path.realpath(path)
    for tree in SYSTEM_TREES:
        if real == tree or real.startswith(f"{tree}/"):
            return tree if real == tree else f"{real} is inside {tree}, which"
    return real if real in SYSTEM_FOLDERS else None


def _files_in(name: str, source: Path) -> dict[str, Path]:
    """``source`` by its name in OUT when it is a file; for a folder, each file inside it, by its name in OUT."""
    if not source.is_dir() or source.is_symlink():
        return {name: source}
    found = {}
    for child in sorted(source.iterdir()):
        found |= _files_in(f"{name}/{child.name}", child)
    return found


def _stays_inside(name: str) -> bool:
    """A relative name that cannot leave the folder it is read in."""
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and "\0" not in name and all(
        part not in ("", ".", "..") for part in parts)


def remove_file_inside(root: Path, name: str) -> None:
    """Remove the file ``root/name``, reaching it through real folders only: if a link or a file stands
    anywhere on the way, or ``name`` is now a folder, nothing is removed."""
    *folders, leaf = name.split("/")
    try:
        descriptor = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        for folder in folders:
            inner = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
        os.unlink(leaf, dir_fd=descriptor)
    except OSError:  # gone already, a folder now, or a link on the way: left as it is
        pass
    finally:
        os.close(descriptor)


def link_or_copy(source: Path, target: Path) -> None:
    """``target`` as a second name of ``source``'s bytes: a hard link, or a copy where the file system has no
    links between them (another device, FAT). Safe because this tool replaces files by renaming, never in place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:
        shutil.copyfile(source, target, follow_symlinks=False)


@contextmanager
def private_lock(path: Path):
    """Hold an exclusive lock on ``path`` (a file of ours, made if missing; a link there is refused)."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def process_identity(pid: int) -> dict:
    """What tells this process apart from a later one that reuses its number."""
    return {"pid": pid, "start": _start_time(pid), "boot": _boot_id()}


def is_running(owner: dict) -> bool:
    """Whether the process ``owner`` describes still runs (a zombie does not)."""
    pid = owner.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    if owner.get("boot") != _boot_id():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return _start_time(pid) == owner.get("start") and _state(pid) != "Z"


def _proc_stat(pid: int) -> list[str]:
    """Fields of /proc/PID/stat after the command name (empty where there is no /proc)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def _state(pid: int) -> str | None:
    fields = _proc_stat(pid)
    return fields[0] if fields else None


def _start_time(pid: int) -> int | None:
    fields = _proc_stat(pid)
    return int(fields[19]) if len(fields) > 19 else None  # field 22 of stat: start time in clock ticks


def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


@contextmanager
def signals_held():
    """Hold SIGINT and SIGTERM until the block ends: they take effect after it, never halfway."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _sync(path: Path) -> None:
    """Flush ``path`` (a file, or a folder and its files) to the disk."""
    if path.is_dir():
        for child in path.iterdir():
            if child.is_file() and not child.is_symlink():
                _sync(child)
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _reason(error: OSError) -> str:
    return error.strerror or errno.errorcode.get(error.errno, str(error))


def regular_file_digest(path: Path, digest) -> bool:
    """Feed ``path``'s bytes to ``digest`` without following a link; False if it is not a regular file."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return False
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return True
