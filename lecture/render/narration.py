"""The voice of each step: the lecturer's recordings (one file per step, any format and rate PyAV decodes) or
the draft voice (a Piper neural voice when the config names one and it can be used, else espeak-ng), as mono
samples at the soundtrack's rate. The text the voice says, its sentences
and their times are ``lesson.narration_text``.

Recordings are found and decoded once, by the parent before anything renders, so a bad one stops the render
with one line; the workers get a ``Narration`` per section holding the decoded voices. The check is bounded:
a file is opened as a file (a colon in its folder's name is no URL protocol), refused when it is larger than
any step's recording can be or ends in a crashed recorder's zero bytes, read for at most CHECK_SECONDS, and
Ctrl-C or SIGTERM stop it at the decoder's next read.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import signal
import stat
import subprocess
import threading
import time
import wave
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import av
import numpy as np

from lesson.narration_text import step_file_name, voice_text
from lesson.sections import Section
from sonify.synth import SAMPLE_RATE

AUDIO_SUFFIXES = (".wav", ".flac", ".mp3", ".m4a", ".ogg")
LONGEST_RECORDING = 180.0  # seconds: a step's recording longer than this is a wrong file
LARGEST_RECORDING = int(LONGEST_RECORDING * 192_000 * 4 * 2)  # bytes: 180 s of 192 kHz 32-bit stereo, uncompressed
ZERO_TAIL = 8 * 2 ** 20  # bytes: more zeros than this at a file's end (44 s of 16-bit stereo digital silence) are
#                          what a recorder that crashed leaves, which the decoder would scan for minutes
CHECK_SECONDS = 30.0  # a file still being decoded after this is no step's recording (180 s of MP3 takes ~1 s)
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class NarrationError(ValueError):
    """A recording or the draft voice cannot be used: one line naming the file or the program."""


@dataclass(frozen=True)
class Narration:
    """What speaks a section's steps: the draft voice (``voice`` set) or ``recordings`` by step name."""

    voice: str = ""  # an espeak-ng voice: the draft voice speaks every step
    words_per_minute: int = 150
    recordings: dict[str, np.ndarray] = field(default_factory=dict)  # "03-queries" -> its decoded samples
    piper: str = ""  # a Piper voice's .onnx file: it speaks the draft instead of espeak-ng

    def speak(self, name: str, text: str, spoken: dict) -> np.ndarray | None:
        """The step's voice as mono samples, or None when this step has no recording; ``spoken`` is the
        locale's table of words for signs (see ``voice_text``)."""
        if self.piper:
            return synthesize_piper(voice_text(text, spoken), self.piper, self.words_per_minute)
        if self.voice:
            return synthesize(voice_text(text, spoken), self.voice, self.words_per_minute)
        return self.recordings.get(name)

    def fingerprint(self) -> dict:
        """What the section's video depends on: the voice (a Piper voice by its files' sizes and times), or each
        recording's decoded sound."""
        piper = {str(path): [path.stat().st_size, path.stat().st_mtime_ns] for path in piper_files(self.piper)} \
            if self.piper else None
        return {"voice": self.voice, "words_per_minute": self.words_per_minute, "piper": piper,
                "recordings": {name: hashlib.sha256(samples.tobytes()).hexdigest()
                               for name, samples in sorted(self.recordings.items())}}


# The voice ---------------------------------------------------------------------------------------
def decode(source: Path | bytes) -> np.ndarray:
    """Mono float32 samples at SAMPLE_RATE of an audio file (any format, rate and channels PyAV reads) or of
    the draft voice's WAV bytes; raises NarrationError when it cannot be decoded, lasts over
    LONGEST_RECORDING or is refused by the bounds of the module's docstring."""
    if isinstance(source, bytes):
        return _decode(io.BytesIO(source), "the draft voice")
    with _open_recording(source) as file:
        _check_size(file, str(source))
        return _decode(file, str(source))


@contextmanager
def _open_recording(path: Path):
    """``path`` opened for reading as a regular file: a pipe or a device would block or never end, and it is
    checked on the file opened, without blocking on a pipe."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise NarrationError(f"narration: {path} cannot be read ({error.strerror})") from None
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise NarrationError(f"narration: {path} is not a regular file")
        yield file


def _check_size(file, name: str) -> None:
    """Refuse, before decoding, a file larger than any step's recording or ending in a run of zero bytes."""
    size = os.fstat(file.fileno()).st_size
    if size > LARGEST_RECORDING:
        raise NarrationError(f"narration: {name} is {size / 1e6:,.0f} MB; a step's recording of at most "
                             f"{LONGEST_RECORDING:.0f} s is under {LARGEST_RECORDING / 1e6:,.0f} MB even uncompressed")
    zeros = _zero_tail(file, size)
    file.seek(0)
    if zeros > ZERO_TAIL:
        raise NarrationError(f"narration: {name} ends in over {ZERO_TAIL // 2 ** 20} MB of zero bytes, as a recorder "
                             "that crashed leaves them; trim the file to its sound")


def _zero_tail(file, size: int) -> int:
    """How many zero bytes end the file, counted up to just past ZERO_TAIL."""
    counted, block = 0, 2 ** 20
    while counted <= ZERO_TAIL and counted < size:
        length = min(block, size - counted)
        file.seek(size - counted - length)
        nonzero = np.flatnonzero(np.frombuffer(file.read(length), dtype=np.uint8))
        if len(nonzero):
            return counted + length - 1 - int(nonzero[-1])
        counted += length
    return counted


def _decode(file, name: str) -> np.ndarray:
    """Decode ``file`` through a ``_BoundedReader``; when it stopped reading, that is the reason given, whatever
    the decoder made of the early end."""
    with _stops_held() as stops:
        reader = _BoundedReader(file, time.monotonic() + CHECK_SECONDS, stops)
        try:
            samples = _samples(reader, name)
        except (av.FFmpegError, UnicodeDecodeError, ValueError) as error:
            if not reader.stopped:
                raise error if isinstance(error, NarrationError) else NarrationError(
                    f"narration: {name} cannot be decoded as audio ({type(error).__name__})") from None
        if reader.stopped:
            raise _stopped(reader, name)
    if not len(samples) or not np.all(np.isfinite(samples)):
        raise NarrationError(f"narration: {name} holds no sound")
    return samples


def _samples(reader: _BoundedReader, name: str) -> np.ndarray:
    """The decoded, resampled mono samples; raises NarrationError past LONGEST_RECORDING."""
    chunks, count, limit = [], 0, int(LONGEST_RECORDING * SAMPLE_RATE)
    with av.open(reader, "r") as container:
        if not container.streams.audio:
            raise NarrationError(f"narration: {name} has no audio")
        resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
        for frame in container.decode(container.streams.audio[0]):
            resampled = [chunk.to_ndarray().reshape(-1) for chunk in resampler.resample(frame)]
            chunks += resampled
            count += sum(map(len, resampled))  # kept, not summed over all chunks: a long MP3 has thousands
            if count > limit:
                raise NarrationError(f"narration: {name} lasts over {LONGEST_RECORDING:.0f} s; "
                                     "expected one step's recording")
        chunks += [chunk.to_ndarray().reshape(-1) for chunk in resampler.resample(None)]
    return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)


def _stopped(reader: _BoundedReader, name: str) -> Exception:
    """Why the reader stopped: a held signal (handled as it was meant once ``_stops_held`` ends) or the deadline."""
    if reader.stopped == "signal":
        return NarrationError(f"narration: the check of {name} was interrupted")
    return NarrationError(f"narration: {name} was still being decoded after {CHECK_SECONDS:g} s; "
                          "expected one step's recording")


class _BoundedReader:
    """The file as PyAV reads it (through Python, so never as a URL): past the deadline or once a stop signal
    came it reads as ended, and ``stopped`` says why. It never raises: PyAV drops an exception of a read
    that it retries, and a KeyboardInterrupt or SystemExit raised inside its callback cannot pass through."""

    def __init__(self, file, deadline: float, stops: list[int]):
        self.file, self.deadline, self.stops = file, deadline, stops
        self.stopped = ""  # "signal" or "deadline" once reading stopped

    def read(self, size: int) -> bytes:
        if not self.stopped:
            self.stopped = "signal" if self.stops else "deadline" if time.monotonic() > self.deadline else ""
        return b"" if self.stopped else self.file.read(size)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.file.seek(offset, whence)

    def tell(self) -> int:
        return self.file.tell()


@contextmanager
def _stops_held():
    """Ctrl-C, SIGTERM and SIGHUP noted in the yielded list while the decoder runs, then handled as before
    (the process stops with its usual status) once it has returned: the reader ends the decoding at its next
    read, well within a second. A signal ignored stays ignored (a worker leaves Ctrl-C to its parent);
    outside the main thread, where no handler can be set, nothing is held."""
    stops: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield stops
        return
    previous = {number: signal.getsignal(number) for number in STOPS}
    for number, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(number, lambda number, frame: stops.append(number))
    try:
        yield stops
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        if stops:
            signal.raise_signal(stops[0])


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


PIPER_WORDS_PER_MINUTE = 150  # about a Piper voice's pace at its own length scale: words_per_minute scales it


def piper_files(model: str) -> tuple[Path, Path]:
    """A Piper voice's model and, beside it, its config (``voice.onnx`` and ``voice.onnx.json``)."""
    return Path(model).expanduser(), Path(f"{Path(model).expanduser()}.json")


def piper_problem(model: str) -> str:
    """Why the Piper voice ``model`` cannot speak ("" when it can): piper-tts not installed, or a file missing."""
    try:
        import piper  # noqa: F401  (only whether it is installed)
    except ImportError:
        return "piper-tts is not installed (pip install piper-tts)"
    missing = [str(path) for path in piper_files(model) if not path.is_file()]
    return f"{' and '.join(missing)} not found" if missing else ""


@cache
def _piper_voice(model: str):
    """The Piper voice loaded once per process (a worker speaks many steps with it)."""
    from piper import PiperVoice

    return PiperVoice.load(*piper_files(model))


def synthesize_piper(text: str, model: str, words_per_minute: int) -> np.ndarray:
    """The draft voice from the Piper voice ``model`` reading ``text``, at about ``words_per_minute``."""
    from piper import SynthesisConfig

    speech = io.BytesIO()
    with wave.open(speech, "wb") as writer:
        _piper_voice(model).synthesize_wav(text, writer, SynthesisConfig(
            length_scale=PIPER_WORDS_PER_MINUTE / words_per_minute))
    return decode(speech.getvalue())


def missing_espeak() -> str:
    return ("narration.source = \"tts\" needs espeak-ng: install the Debian package espeak-ng "
            "(make setup NARRATION=tts does)")


def draft_voice_plan(voice: str, words_per_minute: int, piper_voice: str, steps, warn) -> dict[str, Narration]:
    """Every section spoken by the Piper voice when it is given and usable, else by espeak-ng (which must then
    be installed); one ``warn`` line says which, and why not Piper when it was given."""
    problem = piper_problem(piper_voice) if piper_voice else ""
    if piper_voice and not problem:
        warn(f"narration: draft voice Piper {Path(piper_voice).stem} ({piper_voice})")
        return {section.id: Narration(piper=piper_voice, words_per_minute=words_per_minute) for section in steps}
    if shutil.which("espeak-ng") is None:
        raise NarrationError(missing_espeak())
    warn(f"narration: draft voice espeak-ng {voice}" + (f" (Piper voice not used: {problem})" if problem else ""))
    return {section.id: Narration(voice=voice, words_per_minute=words_per_minute) for section in steps}


# Finding the recordings ---------------------------------------------------------------------------
def plan(source: str, voice: str, words_per_minute: int, steps: dict[Section, list[str]],
         warn, piper_voice: str = "") -> dict[str, Narration]:
    """A Narration for each section of ``steps`` (section -> its step keys in order), checked before any
    render: every recording decodes and lasts at most LONGEST_RECORDING; steps without one are named in
    one ``warn`` line and keep their silent timing. The draft voice (``source`` "tts") is ``piper_voice`` when
    it can speak, else espeak-ng, said in one ``warn`` line. Empty when ``source`` is ""."""
    if not source:
        return {}
    if source == "tts":
        return draft_voice_plan(voice, words_per_minute, piper_voice, steps, warn)
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
                recordings[name] = decode(found[0])
            else:
                missing.append(f"{section.stem}/{name}")
        plans[section.id] = Narration(recordings=recordings)
    if missing:
        warn(f"narration: no recording for {len(missing)} step(s), which keep their silent timing: "
             f"{', '.join(missing)}")
    return plans
