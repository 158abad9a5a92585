"""The learned section's trained model, kept in the user's cache so that a second render does not train again.

One file per config and code: ``<sha256>.npz`` in ``lesson.user_cache.private_folder("learned")``, the hash over the
config's values and the source of every module the training runs (a change to either trains again). Read with
``allow_pickle=False`` relative to the folder's descriptor; written under a temporary name made exclusively, then
renamed over, under a lock (``<sha256>.npz.lock``) so that renders at once train once. A folder another user
could change is not used: the model is trained every time.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
import zipfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from attn_math import head_scores, induction_task, learned, tiny_transformer, validation
from lesson.section_config import LearnedConfig
from lesson.user_cache import PrivateFolder, open_entry, private_folder, write_entry

FOLDER = "learned"
TRAINING_MODULES = (induction_task, tiny_transformer, head_scores, learned, validation)
# What a damaged or foreign file raises when read (np.load, the npz's zip, Training.from_arrays' checks).
UNREADABLE = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile)


def cache_key(config: LearnedConfig) -> str:
    """sha256 over the config's values and the source bytes of the training's modules."""
    digest = hashlib.sha256(json.dumps(config.model_dump(), sort_keys=True).encode())
    for module in TRAINING_MODULES:
        digest.update(module.__name__.encode() + b"\0" + Path(module.__file__).read_bytes())
    return digest.hexdigest()


def train(config: LearnedConfig) -> learned.Training:
    """Train the model of ``config`` now, saying so on stderr (it takes a while)."""
    seconds = learned.estimated_seconds(config.steps, config.sequence_length, config.heads)
    print(f"training the learned section's model (about {seconds:.0f} s)...", file=sys.stderr, flush=True)
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
                return _loaded(folder, name)
            except UNREADABLE:  # missing, truncated or damaged: trained again, and the file replaced
                training = train(config)
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


def _loaded(folder: PrivateFolder, name: str) -> learned.Training:
    with open_entry(folder, name) as file, np.load(file, allow_pickle=False) as arrays:
        return learned.Training.from_arrays({key: arrays[key] for key in arrays.files})


def _kept(training: learned.Training, folder: PrivateFolder, name: str) -> None:
    """Write the training beside the old file, then rename it over (``write_entry``); a full disk or any failure
    to write leaves the cache as it was."""
    write_entry(folder, name, lambda file: np.savez(file, **training.to_arrays()))
