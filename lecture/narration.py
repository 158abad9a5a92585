"""The voice of each step: the lecturer's recordings (one file per step, any format and rate PyAV decodes) or
the espeak-ng draft voice, as mono samples at the soundtrack's rate; and the text the voice says, its numbers
said as the locale reads them, split into sentences timed on the recording's pauses.

Recordings are found and decoded by the parent before anything renders, so a bad one stops the render
with one line; the workers get a ``Narration`` per section and decode again (cheap next to rendering).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import av
import numpy as np

from lecture.sections import Section
from scenes.numbers import DECIMAL
from sonify.synth import SAMPLE_RATE

AUDIO_SUFFIXES = (".wav", ".flac", ".mp3", ".m4a", ".ogg")
LONGEST_RECORDING = 180.0  # seconds: a step's recording longer than this is a wrong file
TAIL = 0.5  # seconds a narrated step stays on screen after its voice ends
PAUSE = 0.15  # seconds of quiet that may separate two sentences
QUIET_DB = -35.0  # a 20 ms frame this far under the loudest frame is a pause
FRAME = 0.02  # seconds
SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
SENTENCE_END = re.compile(r"(?<=[.?!…])\s+")


class NarrationError(ValueError):
    """A recording or the draft voice cannot be used: one line naming the file or the program."""


@dataclass(frozen=True)
class Narration:
    """What speaks a section's steps: the draft voice (``voice`` set) or ``recordings`` by step name."""

    voice: str = ""  # an espeak-ng voice: the draft voice speaks every step
    words_per_minute: int = 150
    recordings: dict[str, Path] = field(default_factory=dict)  # "03-queries" -> the lecturer's file

    def speak(self, name: str, text: str, spoken: dict) -> np.ndarray | None:
        """The step's voice as mono samples, or None when this step has no recording; ``spoken`` is the
        locale's table of words for signs (see ``voice_text``)."""
        if self.voice:
            return synthesize(voice_text(text, spoken), self.voice, self.words_per_minute)
        path = self.recordings.get(name)
        return None if path is None else decode(path)

    def fingerprint(self) -> dict:
        """What the section's video depends on: the voice, or each recording's content."""
        return {"voice": self.voice, "words_per_minute": self.words_per_minute,
                "recordings": {name: _digest(path) for name, path in sorted(self.recordings.items())}}


def step_file_name(number: int, key: str) -> str:
    """``03-queries``: the step's still and recording name, without the extension."""
    return f"{number:02d}-{key}"


# Numbers and sentences ----------------------------------------------------------------------------
def voice_text(text: str, spoken: dict) -> str:
    """What the draft voice is given, with the locale's ``spoken`` words for what it cannot read: a decimal
    point as the language says it ("0.34" read "0,34" in Spanish), a minus sign before a number ("menos 0,34"),
    a power of ten ("2,0 por diez a la 4"), a blank "___" ("hueco")."""
    text = DECIMAL.sub(lambda match: f"{match[1]}{spoken['decimal_mark']}{match[2]}", text)
    text = re.sub(r"\u2212(?=\d)", spoken["minus"], text)
    text = re.sub(r"\s*[·×]\s*10([⁰¹²³⁴⁵⁶⁷⁸⁹]+)",
                  lambda match: spoken["power_of_ten"].format(exponent=match[1].translate(SUPERSCRIPTS)), text)
    return re.sub(r"_{2,}", spoken["blank"], text)


def sentences(text: str) -> list[str]:
    """The text's sentences, split after . ? ! or …"""
    return [part for part in SENTENCE_END.split(text.strip()) if part]


def sentence_times(samples: np.ndarray, parts: list[str]) -> list[tuple[float, float]]:
    """(start, end) in seconds of each of ``parts`` in the recording: cut at the longest pauses inside the
    speech when there are enough, otherwise in proportion to each sentence's length in characters."""
    duration = len(samples) / SAMPLE_RATE
    if len(parts) <= 1:
        return [(0.0, duration)]
    width = int(FRAME * SAMPLE_RATE)
    frames = samples[:len(samples) // width * width].reshape(-1, width)
    level = np.sqrt(np.mean(frames ** 2, axis=1))
    loud = np.flatnonzero(level > level.max(initial=0.0) * 10 ** (QUIET_DB / 20))
    pauses = _pauses(level, loud) if len(loud) else []
    if len(pauses) >= len(parts) - 1:
        longest = sorted(pauses, key=lambda pause: pause[1] - pause[0], reverse=True)[:len(parts) - 1]
        cuts = sorted((start + end) / 2 * FRAME for start, end in longest)
    else:
        first, last = (loud[0] * FRAME, (loud[-1] + 1) * FRAME) if len(loud) else (0.0, duration)
        shares = np.cumsum([len(part) for part in parts])[:-1] / sum(len(part) for part in parts)
        cuts = list(first + shares * (last - first))
    bounds = [0.0, *cuts, duration]
    return list(zip(bounds[:-1], bounds[1:]))


def _pauses(level: np.ndarray, loud: np.ndarray) -> list[tuple[int, int]]:
    """(first, last + 1) frame of each quiet run at least PAUSE long between the first and last loud frame."""
    gaps = np.diff(loud)
    return [(int(loud[i]) + 1, int(loud[i + 1])) for i in np.flatnonzero(gaps * FRAME > PAUSE)]


# The voice ---------------------------------------------------------------------------------------
def decode(source: Path | bytes) -> np.ndarray:
    """Mono samples at SAMPLE_RATE of an audio file (any format, rate and channels PyAV reads);
    raises NarrationError when it cannot be decoded or lasts over LONGEST_RECORDING."""
    name = "the draft voice" if isinstance(source, bytes) else str(source)
    if not isinstance(source, bytes):
        _check_regular(source)
    chunks, limit = [], int(LONGEST_RECORDING * SAMPLE_RATE)
    try:
        with av.open(io.BytesIO(source) if isinstance(source, bytes) else str(source)) as container:
            if not container.streams.audio:
                raise NarrationError(f"narration: {name} has no audio")
            resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
            for frame in container.decode(container.streams.audio[0]):
                chunks += [chunk.to_ndarray().reshape(-1) for chunk in resampler.resample(frame)]
                if sum(map(len, chunks)) > limit:
                    raise NarrationError(f"narration: {name} lasts over {LONGEST_RECORDING:.0f} s; "
                                         "expected one step's recording")
            chunks += [chunk.to_ndarray().reshape(-1) for chunk in resampler.resample(None)]
    except (av.FFmpegError, UnicodeDecodeError, ValueError) as error:
        if isinstance(error, NarrationError):
            raise
        raise NarrationError(f"narration: {name} cannot be decoded as audio ({type(error).__name__})") from None
    samples = np.concatenate(chunks).astype(float) if chunks else np.zeros(0)
    if not len(samples) or not np.all(np.isfinite(samples)):
        raise NarrationError(f"narration: {name} holds no sound")
    return samples


def synthesize(text: str, voice: str, words_per_minute: int) -> np.ndarray:
    """The draft voice: espeak-ng reading ``text`` (given on its standard input, never as an option)."""
    program = shutil.which("espeak-ng")
    if program is None:
        raise NarrationError(missing_espeak())
    result = subprocess.run([program, "-v", voice, "-s", str(words_per_minute), "--stdout"], input=text.encode(),
                            capture_output=True, timeout=120, check=False)
    if result.returncode or not result.stdout:
        reason = result.stderr.decode(errors="replace").strip().splitlines()[:1] or [f"exit {result.returncode}"]
        raise NarrationError(f"narration: espeak-ng failed with voice {voice!r}: {reason[0]}")
    return decode(result.stdout)


def missing_espeak() -> str:
    return ("narration.source = \"tts\" needs espeak-ng: install the Debian package espeak-ng "
            "(make setup NARRATION=tts does)")


# Finding the recordings ---------------------------------------------------------------------------
def plan(source: str, voice: str, words_per_minute: int, steps: dict[Section, list[str]],
         warn) -> dict[str, Narration]:
    """A Narration for each section of ``steps`` (section -> its step keys in order), checked before any
    render: every recording decodes and lasts at most LONGEST_RECORDING; steps without one are named in
    one ``warn`` line and keep their silent timing. Empty when ``source`` is ""."""
    if not source:
        return {}
    if source == "tts":
        if shutil.which("espeak-ng") is None:
            raise NarrationError(missing_espeak())
        return {section.id: Narration(voice=voice, words_per_minute=words_per_minute) for section in steps}
    folder = Path(source).expanduser()
    if not folder.is_dir():
        raise NarrationError(f"narration.source: {source} is not a folder of recordings; expected \"\", "
                             "\"tts\" or a folder with one file per step, e.g. 01-matrix/03-queries.wav")
    plans, missing = {}, []
    for section, keys in steps.items():
        recordings = {}
        for number, key in enumerate(keys, 1):
            name = step_file_name(number, key)
            found = [folder / section.stem / f"{name}{suffix}" for suffix in AUDIO_SUFFIXES
                     if (folder / section.stem / f"{name}{suffix}").exists()]
            if len(found) > 1:
                raise NarrationError(f"narration: {section.stem}/{name} has {len(found)} recordings "
                                     f"({', '.join(path.suffix for path in found)}); keep one")
            if found:
                decode(found[0])
                recordings[name] = found[0]
            else:
                missing.append(f"{section.stem}/{name}")
        plans[section.id] = Narration(recordings=recordings)
    if missing:
        warn(f"narration: no recording for {len(missing)} step(s), which keep their silent timing: "
             f"{', '.join(missing)}")
    return plans


def _check_regular(path: Path) -> None:
    """A recording must be a regular file: a pipe or a device would block or never end."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise NarrationError(f"narration: {path} cannot be read ({error.strerror})") from None
    if not stat.S_ISREG(mode):
        raise NarrationError(f"narration: {path} is not a regular file")


def _digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
