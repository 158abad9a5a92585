"""The voice of each step: the synthetic voice (Kokoro through ``speech.voice``, phrase by phrase, or espeak-ng
when the neural voice cannot load) or the lecturer's recordings (one file per step, any format and rate PyAV
decodes), as mono samples at the soundtrack's rate. The text the voice says, its sentences and their times are
``lesson.narration_text``; its phrases and the plays they are tied to, ``lesson.narration_phrases``.

Recordings are checked by the parent before anything renders, so a bad one stops the render with one line:
each is decoded a chunk at a time and only its length and hash are kept (``Recording``). A worker decodes a
step's recording again when the step speaks, and it goes to disk with the step's voice: no process holds more
than one recording, whatever their number. Decoding is bounded: a file is opened as a file (a colon in its
folder's name is no URL protocol), refused when it is larger than any step's recording can be or ends in a
crashed recorder's zero bytes, read for at most CHECK_SECONDS, and Ctrl-C or SIGTERM stop it at the decoder's
next read.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import av
import numpy as np

from lecture.render.held_signals import stops_held
from lesson.narration_text import step_file_name, voice_text
from lesson.config import NarrationConfig
from lesson.sections import Section
from lesson.steps import StepRange
from sonify.synth import SAMPLE_RATE
from speech.voice import model_identity, say, voice_problem, voices

AUDIO_SUFFIXES = (".wav", ".flac", ".mp3", ".m4a", ".ogg")
LONGEST_RECORDING = 180.0  # seconds: a step's recording longer than this is a wrong file
LARGEST_RECORDING = int(LONGEST_RECORDING * 192_000 * 4 * 2)  # bytes: 180 s of 192 kHz 32-bit stereo, uncompressed
ZERO_TAIL = 8 * 2 ** 20  # bytes: more zeros than this at a file's end (44 s of 16-bit stereo digital silence) are
#                          what a recorder that crashed leaves, which the decoder would scan for minutes
CHECK_SECONDS = 30.0  # a file still being decoded after this is no step's recording (180 s of MP3 takes ~1 s)


class NarrationError(ValueError):
    """A recording or the voice cannot be used: one line naming the file or the program."""


@dataclass(frozen=True)
class Recording:
    """A step's recording as the parent checked it: its file, its length in samples and the sha256 of its decoded
    samples (float32 at SAMPLE_RATE); small to send to a worker, which decodes the file when the step speaks."""

    path: Path
    length: int
    sha256: str

    def samples(self) -> np.ndarray:
        """The decoded sound the parent checked; raises NarrationError when the file changed since."""
        sound = _read(self.path, keep=True)
        if sound.sha256 != self.sha256:
            raise NarrationError(f"narration: {self.path} changed after the render checked it; render again")
        return sound.samples()


@dataclass(frozen=True)
class Narration:
    """What speaks a section's steps: the synthetic voice (``voice`` set; ``espeak`` when espeak-ng stands in for
    the neural voice) or ``recordings`` by step name."""

    voice: str = ""  # a Kokoro voice: it speaks every phrase of every step
    dialect: str = "es"
    speed: float = 1.0
    espeak: bool = False  # espeak-ng speaks the dialect instead of the neural voice
    recordings: dict[str, Recording] = field(default_factory=dict)  # by step name: "03-queries"

    def speak(self, name: str, phrases: list[str], spoken: dict) -> list[np.ndarray] | None:
        """One array of mono samples per phrase from the synthetic voice, a single one holding every phrase from a
        recording, or None when this step has no recording; ``spoken`` is the locale's table of words for signs
        (see ``voice_text``)."""
        if self.espeak:
            return [synthesize(voice_text(phrase, spoken), self.dialect, round(ESPEAK_WORDS_PER_MINUTE * self.speed))
                    for phrase in phrases]
        if self.voice:
            return [say(voice_text(phrase, spoken), self.voice, self.dialect, self.speed) for phrase in phrases]
        recording = self.recordings.get(name)
        return None if recording is None else [recording.samples()]

    def fingerprint(self) -> dict:
        """What the section's video depends on: the voice (the neural one with its model's identity), or each
        recording's decoded sound (its hash)."""
        engine = "espeak-ng" if self.espeak else model_identity(self.voice) if self.voice else None
        return {"voice": self.voice, "dialect": self.dialect, "speed": self.speed, "engine": engine,
                "recordings": {name: recording.sha256 for name, recording in sorted(self.recordings.items())}}


# The voice ---------------------------------------------------------------------------------------
def decode(source: Path | bytes) -> np.ndarray:
    """Mono float32 samples at SAMPLE_RATE of an audio file (any format, rate and channels PyAV reads) or of
    espeak-ng's WAV bytes; raises NarrationError when it cannot be decoded, lasts over
    LONGEST_RECORDING or is refused by the bounds of the module's docstring."""
    return _read(source, keep=True).samples()


def check(path: Path) -> Recording:
    """``path`` decoded as ``decode`` does, a chunk at a time, keeping only its length and hash."""
    sound = _read(path, keep=False)
    return Recording(path.absolute(), sound.length, sound.sha256)  # a worker may run elsewhere


class _Sound:
    """Decoded chunks as they come: counted, hashed (sha256 of their float32 bytes) and checked to be finite; the
    chunks themselves are kept only when ``keep``."""

    def __init__(self, keep: bool):
        self.length, self.finite, self.digest = 0, True, hashlib.sha256()
        self.chunks: list[np.ndarray] | None = [] if keep else None

    def add(self, chunk: np.ndarray) -> None:
        self.length += len(chunk)
        self.finite = self.finite and bool(np.all(np.isfinite(chunk)))
        self.digest.update(chunk.tobytes())
        if self.chunks is not None:
            self.chunks.append(chunk)

    @property
    def sha256(self) -> str:
        return self.digest.hexdigest()

    def samples(self) -> np.ndarray:
        return np.concatenate(self.chunks) if self.chunks else np.zeros(0, dtype=np.float32)


def _read(source: Path | bytes, keep: bool) -> _Sound:
    """``source`` (a file, or espeak-ng's WAV bytes) decoded within the module's bounds."""
    if isinstance(source, bytes):
        return _decode(io.BytesIO(source), "espeak-ng's voice", _Sound(keep))
    with _open_recording(source) as file:
        _check_size(file, str(source))
        return _decode(file, str(source), _Sound(keep))


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


def _decode(file, name: str, sound: _Sound) -> _Sound:
    """Decode ``file`` through a ``_BoundedReader`` into ``sound``; when it stopped reading, that is the reason
    given, whatever the decoder made of the early end."""
    with stops_held() as stops:
        reader = _BoundedReader(file, time.monotonic() + CHECK_SECONDS, stops)
        try:
            _fill(sound, reader, name)
        except (av.FFmpegError, UnicodeDecodeError, ValueError) as error:
            if not reader.stopped:
                raise error if isinstance(error, NarrationError) else NarrationError(
                    f"narration: {name} cannot be decoded as audio ({type(error).__name__})") from None
        if reader.stopped:
            raise _stopped(reader, name)
    if not sound.length or not sound.finite:
        raise NarrationError(f"narration: {name} holds no sound")
    return sound


def _fill(sound: _Sound, reader: _BoundedReader, name: str) -> None:
    """Add the decoded, resampled mono samples to ``sound``; raises NarrationError past LONGEST_RECORDING."""
    limit = int(LONGEST_RECORDING * SAMPLE_RATE)
    with av.open(reader, "r") as container:
        if not container.streams.audio:
            raise NarrationError(f"narration: {name} has no audio")
        resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
        for frame in container.decode(container.streams.audio[0]):
            for chunk in resampler.resample(frame):
                sound.add(chunk.to_ndarray().reshape(-1))
            if sound.length > limit:
                raise NarrationError(f"narration: {name} lasts over {LONGEST_RECORDING:.0f} s; "
                                     "expected one step's recording")
        for chunk in resampler.resample(None):
            sound.add(chunk.to_ndarray().reshape(-1))


def _stopped(reader: _BoundedReader, name: str) -> Exception:
    """Why the reader stopped: a held signal (handled as it was meant once ``stops_held`` ends) or the deadline."""
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


def synthesize(text: str, voice: str, words_per_minute: int) -> np.ndarray:
    """The fallback voice: espeak-ng reading ``text`` (given on its standard input, never as an option)."""
    program = shutil.which("espeak-ng")
    if program is None:
        raise NarrationError(f"narration: the fallback voice {missing_espeak()}")
    result = subprocess.run([program, "-v", voice, "-s", str(words_per_minute), "--stdout"], input=text.encode(),
                            capture_output=True, timeout=120, check=False)
    if result.returncode or not result.stdout:
        reason = result.stderr.decode(errors="replace").strip().splitlines()[:1] or [f"exit {result.returncode}"]
        raise NarrationError(f"narration: espeak-ng failed with voice {voice!r}: {reason[0]}")
    return decode(result.stdout)


ESPEAK_WORDS_PER_MINUTE = 150  # espeak-ng's pace at speed 1.0, about the neural voice's


def missing_espeak() -> str:
    return "needs espeak-ng: install the Debian package espeak-ng (make test does)"


def synthetic_voice_plan(narration: NarrationConfig, steps, warn) -> dict[str, Narration]:
    """Every section spoken by the neural voice when it can load, else by espeak-ng in the same dialect (which must
    then be installed), said in one ``warn`` line naming why."""
    problem = voice_problem()
    if not problem:
        if narration.voice not in voices():
            raise NarrationError(f"narration.voice: {narration.voice!r} is not an installed Kokoro voice; "
                                 f"expected one of {', '.join(voices())}")
        return {section.id: Narration(voice=narration.voice, dialect=narration.dialect, speed=narration.speed)
                for section in steps}
    if shutil.which("espeak-ng") is None:
        raise NarrationError(f"narration: the neural voice cannot load ({problem}), and espeak-ng, its fallback, "
                             f"{missing_espeak()}")
    warn(f"narration: the neural voice cannot load ({problem}); espeak-ng {narration.dialect} speaks instead")
    return {section.id: Narration(dialect=narration.dialect, speed=narration.speed, espeak=True) for section in steps}


# Finding the recordings ---------------------------------------------------------------------------
def plan(narration: NarrationConfig, steps: dict[Section, list[str]], warn,
         clips: dict[str, StepRange] | None = None) -> dict[str, Narration]:
    """A Narration for each section of ``steps`` (section -> its step keys in order), checked before any
    render: every recording of a step rendered (all, or those of the section's clip in ``clips``, by section
    id) decodes and lasts at most LONGEST_RECORDING; those steps without one are named in one ``warn`` line
    and keep their silent timing. The synthetic voice (``source`` "tts") is the neural voice when it can load,
    else espeak-ng (``synthetic_voice_plan``). Empty when nobody speaks."""
    if narration.silent:
        return {}
    source = narration.source
    if source == "tts":
        return synthetic_voice_plan(narration, steps, warn)
    folder = Path(source).expanduser()
    if not folder.is_dir():
        raise NarrationError(f"narration.source: {source} is not a folder of recordings; expected \"tts\", "
                             "\"none\" or a folder with one file per step, e.g. 01-matrix/03-queries.wav")
    plans, missing = {}, []
    for section, keys in steps.items():
        clip = (clips or {}).get(section.id)
        names = [step_file_name(number, key) for number, key in enumerate(keys, 1) if clip is None or number in clip]
        found = {name: _recording_file(folder / section.stem, name) for name in names}
        missing += [f"{section.stem}/{name}" for name, path in found.items() if path is None]
        plans[section.id] = Narration(recordings={name: check(path) for name, path in found.items() if path})
    if missing:
        warn(f"narration: no recording for {len(missing)} step(s), which keep their silent timing: "
             f"{', '.join(missing)}")
    return plans


def _recording_file(folder: Path, name: str) -> Path | None:
    """The recording of step ``name`` in a section's ``folder`` (``01-matrix``), None without one; raises
    NarrationError when it has two."""
    found = [folder / f"{name}{suffix}" for suffix in AUDIO_SUFFIXES if (folder / f"{name}{suffix}").exists()]
    if len(found) > 1:
        raise NarrationError(f"narration: {folder.name}/{name} has {len(found)} recordings "
                             f"({', '.join(path.suffix for path in found)}); keep one")
    return found[0] if found else None
