"""The learned section's model at its default config, trained once for the whole test session: whichever worker
process asks first trains it while holding a lock and saves it in the session's folder; the others load it."""

from __future__ import annotations

import fcntl
import os

import numpy as np

from attn_math import learned
from media_checks import session_folder

_loaded: dict[str, learned.Training] = {}


def default_training(tmp_path_factory) -> learned.Training:
    """``learned.train(**learned.DEFAULTS)``, once per session (and loaded once per process)."""
    folder = session_folder(tmp_path_factory)
    path = folder / "learned-default.npz"
    if str(path) not in _loaded:
        with open(folder / "learned-default.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not path.exists():
                partial = folder / f"learned-default-{os.getpid()}.npz"
                np.savez(partial, **learned.train(**learned.DEFAULTS).to_arrays())
                partial.rename(path)
        with np.load(path, allow_pickle=False) as arrays:
            _loaded[str(path)] = learned.Training.from_arrays({key: arrays[key] for key in arrays.files})
    return _loaded[str(path)]
