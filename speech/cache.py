"""Each spoken sentence kept in the user's cache, so that an unchanged sentence is synthesised once.

One file per sentence: ``<sha256>.npy`` in ``lesson.user_cache.private_folder("speech")``, the hash over what the
sound depends on (``speech.voice.say`` names it: the text, the voice, the dialect, the speed and the model's
identity). It holds the model's own samples (float32 at 24 kHz, half the size of the soundtrack's rate) as a plain
.npy array, never a pickle. An entry is read relative to the folder's descriptor and never through a link; one that
does not read back as a non-empty float32 vector (truncated, damaged, pickled, a link) is synthesised again and
replaced, written under a temporary name and renamed over, so a reader never sees half an entry (two renders
speaking one sentence at once both synthesise it; the last rename wins). A folder another user could change is not
used: every sentence is then synthesised.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from functools import cache

import numpy as np

from lesson.user_cache import PrivateFolder, open_entry, private_folder, trim, write_entry

FOLDER = "speech"
# A sentence of 5 s takes 480 kB and the Spanish lecture is about 300 sentences: some six lectures' voices, at most
# about 1 GB; past it the least used half goes.
MOST_ENTRIES = 2_000
ENTRY = re.compile(r"[0-9a-f]{64}\.npy")
# What a missing, damaged, foreign or linked entry raises when read (np.lib.format's checks, its end, O_NOFOLLOW).
UNREADABLE = (OSError, ValueError, EOFError)


def entry_name(*depends_on: str | float) -> str:
    """The entry of the sound that ``depends_on`` (strings and numbers) determine: their sha256, ``.npy``."""
    return hashlib.sha256(json.dumps(depends_on).encode()).hexdigest() + ".npy"


def kept(name: str, synthesise: Callable[[], np.ndarray]) -> np.ndarray:
    """The float32 samples of the entry ``name``: from the cache when it is there and whole, else ``synthesise()``d
    and kept."""
    folder = store_folder()
    if folder is None:
        return synthesise()
    try:
        return _loaded(folder, name)
    except UNREADABLE:
        pass
    samples = synthesise()
    if write_entry(folder, name, lambda file: np.save(file, samples, allow_pickle=False)):
        trim(folder, ENTRY, MOST_ENTRIES)
    return samples


@cache
def store_folder() -> PrivateFolder | None:
    """Our private folder, made if missing and held open for the process; None when another user could change it."""
    return private_folder(FOLDER)


def _loaded(folder: PrivateFolder, name: str) -> np.ndarray:
    with open_entry(folder, name) as file:
        samples = np.lib.format.read_array(file, allow_pickle=False)
    if samples.dtype != np.float32 or samples.ndim != 1 or not samples.size:
        raise ValueError(f"{name} holds {samples.dtype} of shape {samples.shape}, not a sentence's samples")
    return samples
