"""Which process owns a scratch folder, told apart from a later process that reuses its number."""

from __future__ import annotations

import os
from pathlib import Path


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
