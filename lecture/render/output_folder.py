"""The output folder (``-o``): what this tool may write there, and how, so that nothing is lost or half-written.

- Our own area is ``OUT/.atencion``, a name no other program uses (``OUT/.cache`` would be everyone's cache under
  ``-o ~``): refused if it is a link, not a folder, another user's or writable by others, and so is an ``OUT``
  every user may write in without the sticky bit. Everything is made first in a scratch folder inside
  ``OUT/.atencion/scratch``, created with an unpredictable name, and then committed under the folder's lock
  through a journal (``lecture.render.commit_journal``): each commit's files replace the old ones as one change,
  whatever stops the process, and every command that reads OUT takes the lock, which finishes a stopped commit.
- ``OUT/.atencion/written.json`` lists every file this tool put in ``OUT`` with the SHA-256 it had. A folder we
  write (a section's stills, ``site``, a deck's assets) is replaced file by file: our files are replaced, those
  of ours the new version lacks are removed if they still hold what we wrote, anything else in it (a user's
  notes, ``.git``, recordings, a file of ours the user changed) stays.
- A scratch folder carries an owner file (process id, start time, boot id). A later run removes a
  scratch folder only when that file proves its owner is gone: nothing outside our scratch area is ever
  removed, whatever its name.
- Renaming never follows a link: a link planted at an output name is replaced, not written through.
- A commit holds Ctrl-C, SIGTERM and SIGHUP until it is done (``lecture.render.held_signals``).
- The system's folders (``/``, ``/usr``, ``/etc``, ...) are refused before anything is written there.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

from lecture.render import commit_journal
from lecture.render.commit_journal import DIGEST_LENGTH, stays_inside
from lecture.render.held_signals import stops_held
from lecture.render.process_identity import is_running, process_identity

PRIVATE = ".atencion"  # this tool's own folder inside OUT
SCRATCH = "scratch"
OWNER = "owner.json"
LOCK = "folder.lock"
WRITTEN = "written.json"  # in PRIVATE: the files this tool put in OUT, relative to it, with their SHA-256
MAX_RECORD = 16 << 20  # bytes of WRITTEN read at most: a longer one is not ours
# Folders of the system, never an output folder: each of these and everything inside it ...
SYSTEM_TREES = ("/proc", "/sys", "/dev", "/run", "/boot", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                "/libx32", "/usr")
# ... and these themselves (a folder inside them, such as /var/www/clase or /home/ana, may be a user's).
SYSTEM_FOLDERS = ("/", "/var", "/home", "/opt", "/srv", "/mnt", "/media")
PATH_MAX = 4096  # bytes in a path, with its final NUL (Linux's limits.h)
ROOM = 256  # bytes the longest path this tool makes inside OUT may add to it


class OutputError(Exception):
    """The output folder cannot be used: one line naming the folder and why."""


class CommitUnfinished(OSError):
    """A commit that happened (its journal is written) but whose files could not all be moved into place: the
    next command that takes the folder's lock finishes it (``strerror``: why)."""

    FINISHED_LATER = "the next command in this folder finishes the move"


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
        self._check_shared()
        self.cache = self._private_folder(self.path / PRIVATE)
        self.scratch_root = self._private_folder(self.cache / SCRATCH)

    def _check_shared(self) -> None:
        """Refuse an OUT that every user may write in without the sticky bit: anyone could swap our folder."""
        mode = os.stat(self.path).st_mode
        if mode & stat.S_IWOTH and not mode & stat.S_ISVTX:
            raise OutputError(f"-o {self.path}: every user can write in this folder ({stat.filemode(mode)}), so "
                              "anyone could change this tool's files there; choose a folder of your own or "
                              "run chmod o-w on it")

    def _private_folder(self, path: Path) -> Path:
        """``path`` as a real folder of ours (made with mode 0700 if missing) that no other user can change; a
        link, a file, or a folder another user owns or may write in is refused."""
        try:
            path.mkdir(mode=0o700, exist_ok=True)
            status = os.lstat(path)
            if not stat.S_ISDIR(status.st_mode):
                raise OutputError(f"-o {self.path}: {path} is a link or a file, not this tool's folder; "
                                  "remove it and run again")
            if status.st_uid != os.geteuid() or status.st_mode & 0o022:
                raise OutputError(f"-o {self.path}: {path} is not this tool's own folder (owner uid "
                                  f"{status.st_uid}, {stat.filemode(status.st_mode)}; expected yours, writable by "
                                  "you alone); check what is in it, remove it and run again")
            probe = tempfile.TemporaryFile(dir=path)  # the folder must take new files
            probe.close()
        except OSError as error:
            raise OutputError(f"-o {self.path}: cannot write there: {_reason(error)}") from None
        return path

    @contextmanager
    def lock(self):
        """The folder's lock: one command at a time reads, changes and writes the manifest. Taking it first
        finishes a commit that a stopped process left decided (see ``lecture.render.commit_journal``)."""
        with private_lock(self.cache / LOCK):
            try:
                journal = commit_journal.pending(self.cache)
                if journal:
                    with stops_held():
                        self.roll_forward(journal)
            except OSError as error:
                raise OutputError(f"-o {self.path}: a commit stopped earlier could not be finished "
                                  f"({_reason(error)}); nothing else was changed") from None
            yield

    @contextmanager
    def scratch(self):
        """A fresh scratch folder owned by this process, removed when the block ends; Ctrl-C, SIGTERM and SIGHUP
        wait until it is gone (a kill leaves it to ``remove_abandoned_scratch``)."""
        folder = Path(tempfile.mkdtemp(dir=self.scratch_root))
        try:
            (folder / OWNER).write_text(json.dumps(process_identity(os.getpid())))
            yield folder
        finally:
            with stops_held():
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

    def commit(self, staged: dict[str, Path], scratch: Path, replaced: tuple[str, ...] = ()) -> None:
        """Put every ``staged`` path at ``OUT/<name>`` as one change (call under ``lock``): the whole old
        version stays until the new one is decided, whatever stops the process (see
        ``lecture.render.commit_journal``); Ctrl-C, SIGTERM and SIGHUP wait until it is done.

        A staged folder is merged into the folder at its name file by file: each of its files replaces the one
        at its name, files of ours there that it lacks are removed if they still hold what we wrote, anything
        else stays. ``replaced`` names files of ours in OUT that the staged ones make obsolete (the subtitles of an
        earlier render beside a video rendered now without any): removed too if they still hold what we wrote.
        Raises OSError when nothing was replaced, CommitUnfinished when the commit happened but
        could not be finished (the next command finishes it). ``scratch`` is the caller's."""
        placed: dict[str, Path] = {}
        for name, source in staged.items():
            placed |= _files_in(name, source)
        folders = [name for name, source in staged.items() if source.is_dir() and not source.is_symlink()]
        record = self.our_files()
        retired = {name: digest for name, digest in record.items() if digest and name not in placed
                   and (name in replaced or any(name.startswith(f"{folder}/") for folder in folders))}
        for name in folders:
            self.subfolder(name)
        for name, source in placed.items():
            self.subfolder(str(Path(name).parent))
            target = self.path / name
            if target.is_dir() and not target.is_symlink():
                raise IsADirectoryError(errno.EISDIR, "a folder stands where this tool writes a file", str(target))
        digests = {name: sha256_of(source) for name, source in placed.items()}
        final = {name: digest for name, digest in (record | digests).items() if name not in retired}
        with stops_held():
            try:
                folder, moves = commit_journal.prepare(self.cache, placed)
                journal = commit_journal.Journal(moves, retired, final)
                commit_journal.decide(folder, journal)
            except OSError:
                shutil.rmtree(self.cache / commit_journal.COMMIT, ignore_errors=True)
                raise
            try:
                self.roll_forward(journal)
            except OSError as error:
                raise CommitUnfinished(error.errno, _reason(error)) from None

    def roll_forward(self, journal: commit_journal.Journal) -> None:
        """Carry out a decided commit; every step can be done again after an interruption."""
        commit = self.cache / commit_journal.COMMIT
        for number, name in journal.moves:
            if os.path.lexists(commit / number):
                self.subfolder(str(Path(name).parent))
                os.replace(commit / number, self.path / name)
        for folder in {(self.path / name).parent for _, name in journal.moves}:
            commit_journal.sync(folder)
        for name, digest in journal.retired.items():
            if sha256_of(self.path / name) == digest:  # still what we wrote: a user's change stays
                remove_file_inside(self.path, name)
        self._write_record(journal.record)
        commit_journal.finish(self.cache)

    def our_files(self) -> dict[str, str | None]:
        """The files this tool put in OUT, by name relative to it, with the SHA-256 each had when we wrote it
        (None from a record of an earlier version: such a file is never removed). A record that is not a regular
        file of ours or cannot be read is empty: a file we cannot prove is ours stays."""
        try:
            descriptor = os.open(self.cache / WRITTEN, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return {}
        with os.fdopen(descriptor, "rb") as file:
            status = os.fstat(file.fileno())
            if not stat.S_ISREG(status.st_mode) or status.st_uid != os.geteuid() or status.st_mode & 0o022:
                return {}
            try:
                data = json.loads(file.read(MAX_RECORD).decode("utf-8"))
            except (OSError, ValueError):
                return {}
        files = data.get("files") if isinstance(data, dict) else dict.fromkeys(data) if isinstance(data, list) else {}
        if not isinstance(files, dict):
            return {}
        return {name: digest for name, digest in files.items() if isinstance(name, str) and stays_inside(name)
                and (digest is None or isinstance(digest, str) and len(digest) == DIGEST_LENGTH)}

    def _write_record(self, files: dict[str, str | None]) -> None:
        write_whole(self.cache / WRITTEN, json.dumps({"files": dict(sorted(files.items()))}, indent=0,
                                                     ensure_ascii=False))


def write_whole(path: Path, text: str) -> None:
    """``text`` in ``path``, whole or not at all: written and synced under a temporary name beside it, then renamed
    over it (a stop before the rename leaves ``path`` as it was)."""
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=f"{path.name}.", delete=False,
                                     encoding="utf-8") as draft:
        draft.write(text)
        draft.flush()
        os.fsync(draft.fileno())
    os.replace(draft.name, path)


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


def _reason(error: OSError) -> str:
    return error.strerror or errno.errorcode.get(error.errno, str(error))


def sha256_of(path: Path) -> str | None:
    """The SHA-256 of a regular file's bytes, read without following a link; None for anything else."""
    digest = hashlib.sha256()
    return digest.hexdigest() if regular_file_digest(path, digest) else None


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
