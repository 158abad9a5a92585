"""The learned section's model at its default config, as a render gets it: from the user's cache
(``lesson.learned_cache``), where the first render or test on this machine and code trains it, under a lock, and
everyone after loads it; loaded once per process."""

from __future__ import annotations

from attn_math import learned
from lesson.learned_cache import trained
from lesson.config import load_config

_loaded: dict[str, learned.Training] = {}


def default_training() -> learned.Training:
    """The model of the default config's ``[learned]`` table (``learned.DEFAULTS``), trained at most once here."""
    if "default" not in _loaded:
        _loaded["default"] = trained(load_config().learned)
    return _loaded["default"]
