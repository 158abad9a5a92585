"""The learned section's model at its default config, trained once for the whole test session: whichever worker
process asks first trains it while holding a lock and saves it in the session's folder, with the CPU seconds the
training took; the others load it."""

from __future__ import annotations

import fcntl
import json
import os
import time

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
                started = time.process_time()
                training = learned.train(**learned.DEFAULTS)
                (folder / "learned-default.json").write_text(json.dumps({"cpu_s": time.process_time() - started}))
                partial = folder / f"learned-default-{os.getpid()}.npz"
                np.savez(partial, **training.to_arrays())
                partial.rename(path)
        with np.load(path, allow_pickle=False) as arrays:
            _loaded[str(path)] = learned.Training.from_arrays({key: arrays[key] for key in arrays.files})
    return _loaded[str(path)]


def default_training_cpu_seconds(tmp_path_factory) -> float:
    """The CPU seconds (every thread of the process) that ``default_training`` took to train."""
    default_training(tmp_path_factory)
    return json.loads((session_folder(tmp_path_factory) / "learned-default.json").read_text())["cpu_s"]
