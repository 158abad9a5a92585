"""One sentence spoken by Kokoro-82M as mono float32 samples at the soundtrack's rate, each sentence synthesised once
per user (``speech.cache``).

The model runs in a speech process of its own (``speech.speaker``), started by the first sentence missing from the
cache and loaded once: a render worker never holds it. ``voice_problem`` costs the CLI nothing (kokoro-onnx is not
imported) and a lecture whose sentences are all in the cache never starts the speech process.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from functools import cache

import numpy as np

from sonify.synth import SAMPLE_RATE
from speech import install
from speech.speaker import SpeakerFailed, speaker
from speech.cache import entry_name, kept

MODEL_RATE = 24000  # Kokoro's output; SAMPLE_RATE is twice it
# espeak-ng's names, kokoro-onnx's lang: Castilian and Latin American Spanish, American and British English
DIALECTS = ("es", "es-419", "en-us", "en-gb")
SLOWEST, FASTEST = 0.5, 2.0  # the speeds kokoro-onnx accepts
RUNTIME = ("kokoro-onnx", "phonemizer", "espeakng-loader")  # the packages that turn text into phonemes and sound


class VoiceMissing(RuntimeError):
    """The neural voice cannot load: the message says why and which command sets it up."""


def voices() -> tuple[str, ...]:
    """The voices set-up lays into place: Spanish first (ef_dora, em_alex, em_santa), then English."""
    return tuple(install.VOICES)


def voice_problem() -> str:
    """Why the neural voice cannot load ("" when it can): kokoro-onnx not installed, or the model not set up."""
    if importlib.util.find_spec("kokoro_onnx") is None:
        return "kokoro-onnx is not installed (pip install kokoro-onnx==0.6.1, or make setup)"
    if not install.installed():
        return (f"Kokoro-82M is not set up in {install.FOLDER}: run `make setup` "
                f"(or `python -m speech.install`) once, with the network")
    return ""


def model_identity(voice: str) -> str:
    """What ``voice``'s sound depends on besides the text: the model's and the voice's pinned sha256 and the versions
    of the runtime's packages (for cache keys and the outputs' fingerprints)."""
    versions = " ".join(f"{package} {_version(package)}" for package in RUNTIME)
    return f"{install.MODEL_NAME} {install.MODEL_SHA256} {voice} {install.VOICES[voice]} {versions}"


def say(text: str, voice: str, dialect: str, speed: float) -> np.ndarray:
    """``text`` (one sentence) spoken by ``voice`` in ``dialect`` at ``speed`` (1 is the voice's own pace): mono
    float32 samples at SAMPLE_RATE, from the cache when it holds them. Raises ValueError for an unknown voice,
    dialect or speed, VoiceMissing when the sentence must be synthesised and the model is not set up."""
    if voice not in install.VOICES:
        raise ValueError(f"voice {voice!r}: expected one of {', '.join(voices())}")
    if dialect not in DIALECTS:
        raise ValueError(f"dialect {dialect!r}: expected one of {', '.join(DIALECTS)}")
    if not SLOWEST <= speed <= FASTEST:
        raise ValueError(f"speed {speed}: expected {SLOWEST} to {FASTEST}")
    speed = float(speed)  # 1 and 1.0 are one sound, one entry
    samples = kept(entry_name(text, voice, dialect, speed, model_identity(voice)),
                   lambda: _synthesised(text, voice, dialect, speed))
    from scipy.signal import resample_poly  # scipy.signal takes a second to import: only when speaking

    return resample_poly(samples, SAMPLE_RATE // MODEL_RATE, 1).astype(np.float32)


def _synthesised(text: str, voice: str, dialect: str, speed: float) -> np.ndarray:
    """The model's float32 samples at MODEL_RATE (silence trimmed at both ends), from the speech process; raises
    VoiceMissing when the model is not set up or the speech process fails."""
    if problem := voice_problem():
        raise VoiceMissing(problem)
    try:
        return speaker().create(text, voice, dialect, speed)
    except SpeakerFailed as error:
        raise VoiceMissing(str(error)) from None


@cache
def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "missing"
