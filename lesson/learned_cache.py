"""The learned section's trained model, kept in the user's cache so that a second render does not train again.

One file per config and code: ``<sha256>.npz`` in ``lesson.user_cache.private_folder("learned")``, the hash over the
config's values and the source of every module the training runs (a change to either trains again). Read relative to
the folder's descriptor, only as far as it can be what this config's training writes (``_loaded``): anything else (a
FIFO, a link, a member declaring gigabytes, NaN) is a miss, trained again and replaced. Written under a temporary
name made exclusively, then renamed over, under a lock (``<sha256>.npz.lock``) so that renders at once train once.
A folder another user could change is not used: the model is trained every time.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import stat
import sys
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import numpy as np

from attn_math import head_scores, induction_task, learned, tiny_transformer, validation
from lesson.section_config import LearnedConfig
from lesson.user_cache import PrivateFolder, private_folder, write_entry

FOLDER = "learned"
TRAINING_MODULES = (induction_task, tiny_transformer, head_scores, learned, validation)
MOST_CHECKPOINTS = learned.CHECKPOINTS + 2  # the checkpoints learned.checkpoint_steps chooses, and the first and last
ITEM_BYTES = 8  # the widest number the training keeps: float64, int64
NPY_HEADER_BYTES = 1024  # an .npy member's magic, header length and header (numpy writes 128 bytes)
ZIP_BYTES_PER_MEMBER = 1024  # a member's local and central zip records with its name twice
NPY_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


class Refused(ValueError):
    """A cache file that cannot be what this config's training writes; the message says why."""


def cache_key(config: LearnedConfig) -> str:
    """sha256 over the config's values and the source bytes of the training's modules."""
    digest = hashlib.sha256(json.dumps(config.model_dump(), sort_keys=True).encode())
    for module in TRAINING_MODULES:
        digest.update(module.__name__.encode() + b"\0" + Path(module.__file__).read_bytes())
    return digest.hexdigest()


def train(config: LearnedConfig, refused: Exception | None = None) -> learned.Training:
    """Train the model of ``config`` now, saying so on stderr in one line (it takes a while), and why when the cached
    file was ``refused``."""
    seconds = learned.estimated_seconds(config.steps, config.sequence_length, config.heads)
    why = "" if refused is None else f" again: its cached file is unreadable ({_reason(refused)})"
    print(f"training the learned section's model{why} (about {seconds:.0f} s)...", file=sys.stderr, flush=True)
    return learned.train(config.seed, config.steps, config.vocabulary, config.sequence_length, config.heads)


def trained(config: LearnedConfig) -> learned.Training:
    """The model of ``config``: from the cache when it is there and whole, else trained (and kept)."""
    folder = private_folder(FOLDER)
    if folder is None:
        return train(config)
    try:
        name = f"{cache_key(config)}.npz"
        with _held(folder, name):  # two renders at once: one trains, the other waits and loads
            try:
                return _loaded(folder, name, config)
            except FileNotFoundError:
                training = train(config)
            except Exception as error:  # whatever a damaged or foreign file raises: zipfile alone has five kinds
                training = train(config, error)
            _kept(training, folder, name)
            return training
    finally:
        os.close(folder.descriptor)


@contextmanager
def _held(folder: PrivateFolder, name: str):
    """An exclusive lock on ``name``'s lock file in the folder while the body runs (none where it cannot be made:
    then two renders may both train, and the last rename wins)."""
    try:
        descriptor = os.open(f"{name}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                             dir_fd=folder.descriptor)
    except OSError:
        yield
        return
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock


def _loaded(folder: PrivateFolder, name: str, config: LearnedConfig) -> learned.Training:
    """The training kept in ``name``, read only as far as it can be ``config``'s: a regular file (opened without
    blocking or following a link) no larger than that training's arrays, whose members' declared sizes and .npy
    headers are checked before each is read, with the numbers ``Training.check`` accepts."""
    shape = learned.LearnedShape(config.vocabulary, config.sequence_length // 2, learned.D_MODEL, config.heads)
    largest = learned.array_shapes(shape, config.steps, MOST_CHECKPOINTS)
    with _regular_file(folder, name, _file_bytes(largest)) as file, zipfile.ZipFile(file) as archive:
        training = learned.Training.from_arrays(_arrays(archive, largest))
    if training.shape != shape or len(training.losses) != config.steps:
        raise Refused("a model of another config")
    return training


def _member_bytes(dims: tuple[int, ...]) -> int:
    """The most bytes an .npy member of an array of ``dims`` takes."""
    return NPY_HEADER_BYTES + math.prod(dims) * ITEM_BYTES


def _file_bytes(largest: dict[str, tuple[int, ...]]) -> int:
    """The most bytes an .npz of arrays of the ``largest`` shapes takes."""
    return sum(_member_bytes(dims) + ZIP_BYTES_PER_MEMBER for dims in largest.values())


def _regular_file(folder: PrivateFolder, name: str, most_bytes: int) -> BinaryIO:
    """``name`` opened for reading if it is a regular file of at most ``most_bytes``; never through a link, and
    without waiting for a writer (a FIFO)."""
    descriptor = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder.descriptor)
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode) or status.st_size > most_bytes:
        os.close(descriptor)
        what = "not a regular file" if not stat.S_ISREG(status.st_mode) else f"{status.st_size:,} bytes"
        raise Refused(f"{what}, expected a file of at most {most_bytes:,} bytes")
    return os.fdopen(descriptor, "rb")


def _arrays(archive: zipfile.ZipFile, largest: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """Every array of the .npz ``archive``, which must hold exactly the members of ``largest`` (``<name>.npy``), each
    declaring at most the bytes of its largest shape."""
    members = {f"{name}.npy": name for name in largest}
    if sorted(archive.namelist()) != sorted(members):
        raise Refused("not the arrays of a training")
    for info in archive.infolist():
        if info.file_size > _member_bytes(largest[members[info.filename]]):
            raise Refused(f"{info.filename} declares {info.file_size:,} bytes")
    return {name: _array(archive, member, largest[name]) for member, name in members.items()}


def _array(archive: zipfile.ZipFile, member: str, largest: tuple[int, ...]) -> np.ndarray:
    """The array in ``member``, read once its .npy header declares numbers of at most ITEM_BYTES in a shape no
    larger than ``largest`` along any axis."""
    with archive.open(member) as file:
        version = np.lib.format.read_magic(file)
        if version not in NPY_HEADERS:
            raise Refused(f"{member}: .npy version {version}")
        dims, fortran_order, dtype = NPY_HEADERS[version](file, max_header_size=NPY_HEADER_BYTES)
        if (dtype.kind not in "iuf" or dtype.itemsize > ITEM_BYTES or len(dims) != len(largest)
                or not all(0 <= size <= most for size, most in zip(dims, largest))):
            raise Refused(f"{member} declares {dtype} {dims}, expected at most {largest}")
        size = math.prod(dims) * dtype.itemsize
        data = file.read(size)
        if len(data) != size or file.read(1):  # reading to the end checks the CRC
            raise Refused(f"{member} does not hold {dims} numbers")
    return np.frombuffer(data, dtype).reshape(dims, order="F" if fortran_order else "C")


def _reason(error: Exception) -> str:
    """Why a cached file was refused, in a few words: our own reason, or what a reader of it raised."""
    return str(error) if isinstance(error, Refused) else type(error).__name__


def _kept(training: learned.Training, folder: PrivateFolder, name: str) -> None:
    """Write the training beside the old file, then rename it over (``write_entry``); a full disk or any failure
    to write leaves the cache as it was."""
    write_entry(folder, name, lambda file: np.savez(file, **training.to_arrays()))
