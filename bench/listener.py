"""A listener that judges the narration: OpenAI's Whisper base (faster-whisper, CPU, int8) transcribes what a
render's voice says, and the words heard are compared with the words the voice was given.

``python -m bench.listener`` installs the model (``bench/whisper_model.py``; a second run does no network work).
``section_word_errors(out_dir, "02-scaling")`` is the word error rate of a rendered section's narration.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from faster_whisper import WhisperModel, decode_audio
from scipy.signal import resample_poly

from bench.spoken_words import comparable_words, error_rate, word_errors
from bench.whisper_model import MODEL_DIR, install, is_present
from lesson.locale import load_locale
from lesson.narration_text import voice_text
from sonify.synth import SAMPLE_RATE

WHISPER_RATE = 16000  # Hz: what Whisper listens at
# One thread: on this shared 2-core machine, hearing the scaling section (151 s of speech) took 13-15 CPU s with one
# thread and 15-18 with two, and two were no faster by the clock (2026-12-05); the tests' other worker keeps the
# second core busy anyway.
THREADS = 1
MARGIN = 0.25  # seconds of the soundtrack kept before and after a step's voice, so no syllable is cut


@dataclass(frozen=True)
class StepHearing:
    """One narrated step: the words the voice was given, what Whisper heard in ``seconds`` of the soundtrack,
    how many words were said, and the errors as (expected, heard)."""

    step: str
    said: str
    heard: str
    seconds: float
    words: int
    errors: list[tuple[str, str]]


@cache
def model() -> WhisperModel:
    """Whisper base, loaded once per process from the installed folder (never from a hub)."""
    if not is_present(MODEL_DIR):
        raise FileNotFoundError(f"the Whisper model is not in {MODEL_DIR}: run `python -m bench.listener`")
    return WhisperModel(str(MODEL_DIR), device="cpu", compute_type="int8", cpu_threads=THREADS)


def transcribe(samples_or_path: np.ndarray | str | Path, language: str, sample_rate: int = SAMPLE_RATE) -> str:
    """What Whisper hears in mono ``samples`` (at ``sample_rate``) or in an audio file, in ``language``."""
    if isinstance(samples_or_path, (str, Path)):
        audio = decode_audio(str(samples_or_path), sampling_rate=WHISPER_RATE)
    else:
        audio = np.asarray(samples_or_path, dtype=np.float32)
        if sample_rate != WHISPER_RATE:
            audio = resample_poly(audio, WHISPER_RATE, sample_rate).astype(np.float32)
    # Each call is a clip of its own: earlier text must not steer it, nor timestamps slow it. One temperature:
    # the same audio is always heard the same way, and garbled audio is not decoded again and again at random.
    segments, _ = model().transcribe(audio, language=language, temperature=0.0, without_timestamps=True,
                                     condition_on_previous_text=False)
    return " ".join(segment.text.strip() for segment in segments)


def section_entry(out_dir: Path, section: str) -> dict:
    """The manifest entry of ``section``, named by its id ("scaling") or its files' stem ("02-scaling", or a clip's:
    "02-scaling-steps-01-02")."""
    manifest = json.loads((Path(out_dir) / "manifest.json").read_text(encoding="utf-8"))
    for key, entry in {**manifest["sections"], **manifest.get("clips", {})}.items():  # a clip: --steps
        if section == key or f"{section}.wav" in entry["files"]:
            return entry
    raise KeyError(f"{out_dir}/manifest.json has no section {section!r}")


def step_hearings(out_dir: Path, section: str, language: str | None = None) -> list[StepHearing]:
    """Every narrated step of a rendered section, then every card the voice read, cut from its soundtrack by the
    manifest's narration times and transcribed; the reference is the text the voice was given
    (numbers and signs as the locale says them), its English terms and letters as written."""
    entry = section_entry(out_dir, section)
    language = language or entry["lang"]
    # numbers and signs as the voice says them, but English terms and letters as they are written: a recogniser
    # writes "softmax", not the respelling "sóftmax" the voice is given (a lone letter and its name compare equal)
    written_terms = load_locale(language)["spoken"] | {"terms": {}, "letters": {}}
    soundtrack = next(name for name in entry["files"] if name.endswith(".wav"))
    audio = decode_audio(str(Path(out_dir) / soundtrack), sampling_rate=WHISPER_RATE)
    hearings = []
    for record in [*entry["steps"], *entry.get("cards", [])]:
        if (narration := record.get("narration")) and "seconds" in narration:
            clip, said = spoken_audio(audio, narration), voice_text(narration["text"], written_terms)
            heard = transcribe(clip, language, WHISPER_RATE)
            _, errors = word_errors(said, heard, language)
            hearings.append(StepHearing(narration["file"], said, heard, len(clip) / WHISPER_RATE,
                                        len(comparable_words(said, language)), errors))
    return hearings


def spoken_audio(audio: np.ndarray, narration: dict) -> np.ndarray:
    """The stretches of ``audio`` (at WHISPER_RATE) where the step's phrases are said, MARGIN around each, one after
    the other: not its listening moments, where the data sounds alone and a recogniser would hear words in it."""
    spans = [(start, end) for _, start, end, _ in narration.get("phrases", [])] or \
        [(narration["start"], narration["start"] + narration["seconds"])]
    return np.concatenate([audio[max(0, round((start - MARGIN) * WHISPER_RATE)):round((end + MARGIN) * WHISPER_RATE)]
                           for start, end in spans])


def section_word_errors(out_dir: Path, section: str, language: str | None = None
                        ) -> tuple[float, list[tuple[str, str]]]:
    """The word error rate of a rendered section's narration (all its steps' words together) and every
    misheard word as (expected, heard); ``language`` defaults to the section's own."""
    hearings = step_hearings(out_dir, section, language)
    errors = [error for hearing in hearings for error in hearing.errors]
    return error_rate(sum(hearing.words for hearing in hearings), errors), errors


if __name__ == "__main__":
    print(install())
