"""The speech process: Kokoro-82M loaded in a process of its own, beside the one that asks for sentences.

A render worker holds a section's frames; the model (onnxruntime and its arenas, some 500 MB) would add itself to
the worker's peak. So the process that needs a sentence synthesised starts ``python -m speech.speaker`` once, on
its first sentence missing from the cache, and asks it each sentence over a pipe: one JSON line
``{"text", "voice", "dialect", "speed"}`` in; one JSON line back (``{"samples": n}`` or ``{"error": "..."}``) and
then n float32 samples at the model's rate. A process whose sentences are all in the cache never starts it.

The speech process ends when its asker closes the pipe: at the asker's exit (``hang_up``, which also waits for it
so that its CPU time counts as the asker's) or when the asker dies, whatever killed it (the pipe's end reads
empty). It ignores Ctrl-C, as render workers do: whoever stops the render closes its pipe.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import numpy as np

from speech import install

THREADS = 1  # onnxruntime's threads per process: render workers speak side by side, one per core
HEADER_LIMIT = 4096  # bytes: the longest reply line (an error message)


class SpeakerFailed(RuntimeError):
    """The speech process ended or answered out of turn: the message names why, in one line."""


class Speaker:
    """The asker's end: a running speech process and its pipes."""

    def __init__(self):
        self.errors = tempfile.TemporaryFile()  # its stderr, read only when it fails
        root = Path(__file__).resolve().parent.parent
        environment = os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [str(root),
                                                                                os.environ.get("PYTHONPATH")]))}
        # -P: the working folder is not on its path (a speech/ planted there is not imported)
        self.process = subprocess.Popen([sys.executable, "-P", "-m", "speech.speaker"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.errors, env=environment)

    def create(self, text: str, voice: str, dialect: str, speed: float) -> np.ndarray:
        """``text`` spoken: float32 samples at the model's rate; raises SpeakerFailed."""
        request = json.dumps({"text": text, "voice": voice, "dialect": dialect, "speed": speed})
        try:
            self.process.stdin.write(request.encode() + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            raise self.failure() from None
        reply = self.process.stdout.readline(HEADER_LIMIT)
        if not reply.endswith(b"\n"):
            raise self.failure()
        answer = json.loads(reply)
        if "error" in answer:
            raise SpeakerFailed(answer["error"])
        size = 4 * answer["samples"]
        data = self.process.stdout.read(size)
        if len(data) != size:
            raise self.failure()
        return np.frombuffer(data, dtype=np.float32).copy()

    def failure(self) -> SpeakerFailed:
        """Why the speech process stopped answering: its exit status and the last line it wrote."""
        status = self.process.wait()
        self.errors.seek(0)
        lines = self.errors.read().decode(errors="replace").strip().splitlines()
        said = f": {lines[-1]}" if lines else ""
        return SpeakerFailed(f"the speech process (Kokoro-82M) ended with status {status}{said}")

    def close(self) -> None:
        """Close its pipe, so it ends, and wait for it."""
        self.process.stdin.close()
        self.process.wait()
        self.process.stdout.close()
        self.errors.close()


@cache
def speaker() -> Speaker:
    """This process's speech process, started on first use and hung up at exit."""
    started = Speaker()
    atexit.register(hang_up)
    return started


def hang_up() -> bool:
    """End this process's speech process and wait for it; False when it started none (a render worker calls it
    before it leaves: multiprocessing's children skip atexit)."""
    if not speaker.cache_info().currsize:
        return False
    speaker().close()
    speaker.cache_clear()
    return True


def model():
    """kokoro_onnx.Kokoro on the set-up's model and voices, on the CPU with THREADS threads."""
    import onnxruntime
    from kokoro_onnx import Kokoro

    # phonemizer warns on every sentence whose punctuation it counts differently ("words count mismatch"), harmless
    # to the sound; kept off the output, where it buried the render's progress lines
    logging.getLogger("phonemizer").propagate = False
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = THREADS
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(install.FOLDER / install.MODEL_NAME), options,
                                           providers=["CPUExecutionProvider"])
    return Kokoro.from_session(session, str(install.FOLDER / install.VOICES_NAME))


def serve(requests, replies) -> None:
    """Answer each request line until the pipe closes; the model is loaded for the first."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    kokoro = None
    for line in requests:
        asked = json.loads(line)
        try:
            kokoro = kokoro or model()
            samples, _ = kokoro.create(asked["text"], voice=asked["voice"], speed=asked["speed"],
                                       lang=asked["dialect"])
        except Exception as error:  # the asker raises it with its one line
            reply(replies, {"error": f"Kokoro-82M: {type(error).__name__}: {' '.join(str(error).split())[:200]}"})
            continue
        samples = np.ascontiguousarray(samples, dtype=np.float32)
        reply(replies, {"samples": len(samples)}, samples.tobytes())


def reply(replies, header: dict, data: bytes = b"") -> None:
    replies.write(json.dumps(header).encode() + b"\n" + data)
    replies.flush()


if __name__ == "__main__":
    try:
        serve(sys.stdin.buffer, sys.stdout.buffer)  # read here, not at import: an asker may have no stdin
    except BrokenPipeError:  # the asker left mid-sentence: nothing to flush at exit either
        os._exit(0)
