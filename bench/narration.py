"""The narrated lecture's budgets (issue 40), measured through ``render.py`` as a user runs it:

* speech cost: the scaling section's phrases spoken by the neural voice in a fresh process with an empty speech
  cache (CPU seconds per spoken second, model loading included), then again with the cache filled (nothing is
  synthesised: CPU seconds per spoken second of reading the cache);
* the lecture at the default 720p30 (``--quality l``: 480p15, quicker) with ``-j 2`` from empty user caches, as a
  fresh clone renders it, silent and narrated: the narrated one's CPU (every process's, the speech processes'
  too) against the silent one's, its length, the voice's words a minute (words of the text the voice is given,
  over the seconds its phrases last), and each render worker's peak memory (and its speech process's) against its
  section's length.

``python -m bench.narration [--quality l]`` prints the rows and adds them to ``bench/results.json`` as
``narration``; ``make bench`` runs it.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.report import keep

ROOT = Path(__file__).resolve().parent.parent
BUDGET_SPEECH_CPU = 0.7  # CPU s per spoken second, cold
BUDGET_CPU_RATIO = 1.4  # the narrated lecture's CPU over the silent one's, from a fresh clone
BUDGET_MINUTES = 26.0
WORDS_A_MINUTE = (130, 170)
BUDGET_PEAK_MB = 1024
PARALLEL = ("-j", "2")


def child() -> None:
    """Speak every phrase of the default scaling section once and print CPU seconds and spoken seconds."""
    from lecture.render.narration import Narration
    from lesson.config import load_config
    from lesson.locale import load_locale
    from lesson.narration_phrases import phrases
    from sonify.synth import SAMPLE_RATE
    from speech.speaker import hang_up

    config, locale = load_config(overrides=("narration.source='tts'",)), load_locale()
    voice = Narration(voice=config.narration.voice, dialect=config.narration.dialect, speed=config.narration.speed)
    texts = [phrase.text for step in locale["scaling"]["steps"].values()
             for phrase in phrases(step["narration"].replace("{", "(").replace("}", ")"))]
    started = cpu_seconds()
    samples = voice.speak("bench", texts, locale["spoken"])
    hang_up()  # the speech process's CPU counts once it has ended
    print(json.dumps({"cpu_s": cpu_seconds() - started,
                      "spoken_s": sum(len(part) for part in samples) / SAMPLE_RATE}))


def cpu_seconds() -> float:
    """User and system CPU seconds of this process and of the children it waited for (the speech process)."""
    return sum(usage.ru_utime + usage.ru_stime for usage in (resource.getrusage(resource.RUSAGE_SELF),
                                                              resource.getrusage(resource.RUSAGE_CHILDREN)))


def speech_cost(cache: Path) -> dict:
    """Cold then warm: CPU seconds per spoken second of the child, with ``cache`` as the user's cache."""
    rows = {}
    for state in ("cold", "warm"):
        result = subprocess.run([sys.executable, "-m", "bench.narration", "--child"], capture_output=True, text=True,
                                check=True, cwd=ROOT, env={**os.environ, "XDG_CACHE_HOME": str(cache)})
        measured = json.loads(result.stdout.strip().splitlines()[-1])
        rows[state] = round(measured["cpu_s"] / measured["spoken_s"], 3)
        rows["spoken_s"] = round(measured["spoken_s"], 1)
    return rows


def lecture(work: Path, name: str, quality: str, *extra: str) -> dict:
    """The lecture rendered into ``work/name`` with empty user caches (typeset labels, formulas, speech, the trained
    model) and no user settings: CPU seconds of every process, and its manifest."""
    env = {**os.environ, "XDG_CACHE_HOME": str(work / f"{name}-cache"), "XDG_CONFIG_HOME": str(work / "no-settings")}
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before = usage.ru_utime + usage.ru_stime
    result = subprocess.run([sys.executable, str(ROOT / "render.py"), "render", "--quality", quality, *PARALLEL, *extra, "-o",
                             str(work / name)], capture_output=True, text=True, cwd=ROOT, env=env)
    if result.returncode:
        raise SystemExit(f"bench.narration: the {name} lecture failed:\n{result.stderr}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    manifest = json.loads((work / name / "manifest.json").read_text())
    return {"cpu_s": usage.ru_utime + usage.ru_stime - before, "manifest": manifest}


def speech_rate(manifest: dict) -> float:
    """Words of the text the voice was given per minute of its phrases, over the whole lecture."""
    from lesson.locale import load_locale
    from lesson.narration_text import voice_text

    spoken = load_locale(manifest["config"]["lecture"]["lang"])["spoken"]
    phrases = [phrase for entry in manifest["sections"].values() for step in entry["steps"]
               for phrase in step["narration"].get("phrases", [])]
    words = sum(len(voice_text(text, spoken).split()) for text, *_ in phrases)
    return words / (sum(end - start for _, start, end, _ in phrases) / 60)


def measure(quality: str) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        speech = speech_cost(work / "speech-cache")
        silent = lecture(work, "silent", quality, "--narration", "none")
        narrated = lecture(work, "narrated", quality)
    sections = narrated["manifest"]["sections"]
    minutes = sum(entry["duration"] for entry in sections.values()) / 60
    peaks = {name: {"seconds": round(entry["duration"], 1), "peak_mb": round(entry["timings"]["peak_memory_mb"], 1),
                    "speech_peak_mb": entry["timings"].get("speech_peak_memory_mb")}
             for name, entry in sections.items()}
    row = {"quality": quality, "speech_cpu_per_spoken_s": speech, "cpu_ratio": round(narrated["cpu_s"] / silent["cpu_s"], 2),
           "silent_cpu_s": round(silent["cpu_s"]), "narrated_cpu_s": round(narrated["cpu_s"]),
           "silent_minutes": round(sum(entry["duration"] for entry in silent["manifest"]["sections"].values()) / 60, 1),
           "narrated_minutes": round(minutes, 1), "words_a_minute": round(speech_rate(narrated["manifest"])),
           "peaks": peaks}
    row["met"] = {"speech": speech["cold"] <= BUDGET_SPEECH_CPU and speech["warm"] < 0.05,
                  "cpu_ratio": row["cpu_ratio"] <= BUDGET_CPU_RATIO, "length": minutes <= BUDGET_MINUTES,
                  "pace": WORDS_A_MINUTE[0] <= row["words_a_minute"] <= WORDS_A_MINUTE[1],
                  "peak": max(peak["peak_mb"] for peak in peaks.values()) <= BUDGET_PEAK_MB}
    print(json.dumps(row, indent=1), flush=True)
    return row


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child()
    else:
        keep("narration", measure("l" if sys.argv[1:] == ["--quality", "l"] else "m"))
