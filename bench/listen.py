"""Listen to the narration: the sections rendered at 256x144 with the draft voice (``--narration tts``), in
Spanish and in English, each narrated step cut from the soundtrack and transcribed by Whisper base
(``bench/listener.py``). Per section and language: the word error rate against the words the voice was given
(target: at most 10 %) and every misheard word, by step, so the script can be fixed; and Whisper's CPU seconds
per second of speech.

``python -m bench.listen [SECTION...] [--lang es|en ...]`` (default: every section in both languages) prints
the tables and writes them into ``bench/results.json`` as ``listening``; ``make bench`` runs it whole.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import date
from pathlib import Path

from bench.__main__ import render
from bench.listener import THREADS, section_entry, step_hearings
from bench.report import keep, listening_markdown
from bench.spoken_words import error_rate
from lesson.sections import SECTIONS

LANGUAGES = ("es", "en")
TARGET_WER = 0.10
TINY = ("--resolution", "256x144", "--fps", "5")


def listen(out: Path, sections: list[str], language: str) -> tuple[list[dict], float, float]:
    """Render ``sections`` (all when empty) narrated in ``language`` into ``out`` and hear each one: a row per
    section, the seconds of speech heard and the CPU seconds it took."""
    render(out, *sections, "--narration", "tts", "--lang", language, *TINY)
    rendered = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["sections"]
    rows, seconds, started = [], 0.0, time.process_time()
    for section in (section.id for section in SECTIONS if section.id in rendered):  # in lesson order
        row, heard_seconds = section_row(out, section, language)
        rows.append(row)
        seconds += heard_seconds
        print({key: row[key] for key in ("section", "lang", "words", "errors", "wer")}, flush=True)
    return rows, seconds, time.process_time() - started


def section_row(out: Path, section: str, language: str) -> tuple[dict, float]:
    """A section's row (the voice, its word error rate, every misheard word by step: "producto → promucto, k → ∅",
    ∅ for nothing) and the seconds heard."""
    hearings = step_hearings(out, section, language)
    words = sum(hearing.words for hearing in hearings)
    errors = [error for hearing in hearings for error in hearing.errors]
    misheard = {hearing.step: ", ".join(f"{expected or '∅'} → {heard or '∅'}" for expected, heard in hearing.errors)
                for hearing in hearings if hearing.errors}
    row = {"section": section, "lang": language, "voice": section_entry(out, section)["settings"]["narration"],
           "words": words, "errors": len(errors), "wer": round(error_rate(words, errors), 3), "misheard": misheard}
    return row, sum(hearing.seconds for hearing in hearings)


def measure(sections: list[str], languages: list[str]) -> dict:
    """Every (section, language) heard, with the transcription's cost and whether the target is met."""
    rows, seconds, cpu = [], 0.0, 0.0
    with tempfile.TemporaryDirectory() as folder:
        for language in languages:
            language_rows, heard_seconds, cpu_seconds = listen(Path(folder) / language, sections, language)
            rows += language_rows
            seconds += heard_seconds
            cpu += cpu_seconds
    return {"date": date.today().isoformat(), "rows": rows, "speech_s": round(seconds, 1),
            "cpu_per_speech_s": round(cpu / max(seconds, 1e-9), 3), "threads": THREADS, "target_wer": TARGET_WER,
            "met": all(row["wer"] <= TARGET_WER for row in rows)}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.listen", description=__doc__.split("\n\n")[0])
    parser.add_argument("sections", nargs="*", help="section ids (default: all)")
    parser.add_argument("--lang", action="append", choices=LANGUAGES, help="a language (default: both)")
    arguments = parser.parse_args()
    listening = measure(arguments.sections, arguments.lang or list(LANGUAGES))
    keep("listening", listening)
    print(listening_markdown(listening))


if __name__ == "__main__":
    main()
