"""The preview loop's speed: seconds from saving the config to the new still's path, through watchfiles,
the warm worker and ``--steps`` (matrix, step 8, 480p), against a whole ``render.py render --format png``
of the section (a fresh process, every step's still).

``python -m bench.preview`` prints one row and adds it to ``bench/results.json`` as ``preview``.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from pathlib import Path

from bench.__main__ import render
from bench.report import RESULTS
from lecture.render.jobs import QUALITIES
from lecture.watch import WatchRequest, watch

SAVES = 5
EDITS = ("[matrix]\nscale = false\n", "[matrix]\nscale = true\n")
TARGET = 3.0  # seconds from a save to the still


class Done(Exception):
    """Raised from the loop's printer after the last measured save: ends the session."""


def measure(work: Path) -> dict:
    config = work / "mine.toml"
    config.write_text("")
    saved, seconds = [], []

    def say(line: str) -> None:
        if line.startswith("error"):
            raise SystemExit(f"bench: preview failed: {line}")
        if saved:
            seconds.append(time.perf_counter() - saved[-1])
        if len(seconds) == SAVES:
            raise Done
        threading.Timer(0.5, save).start()  # after the watcher is back to watching

    def save() -> None:
        saved.append(time.perf_counter())
        config.write_text(EDITS[len(saved) % 2])

    started = time.perf_counter()
    try:
        watch(WatchRequest(("matrix",), config, (), QUALITIES["l"], work / "out", steps="8"), say)
    except Done:
        pass
    session = time.perf_counter() - started
    whole = render(work / "whole", "matrix", "-q", "l", "--format", "png")
    best, worst = min(seconds), max(seconds)
    return {"saves": SAVES, "save_to_still_s": round(sorted(seconds)[SAVES // 2], 2), "best_s": round(best, 2),
            "worst_s": round(worst, 2), "first_still_s": round(session - sum(seconds) - 0.5 * SAVES, 1),
            "whole_section_stills_s": round(whole, 1), "ratio_to_whole": round(whole / sorted(seconds)[SAVES // 2], 1),
            "target_s": TARGET, "met": worst <= TARGET}


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        row = measure(Path(folder))
    print(row)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    RESULTS.write_text(json.dumps(results | {"preview": row}, indent=2) + "\n")
