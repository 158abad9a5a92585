"""Decode what the renderer wrote, the way a player would (PyAV)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import av
import numpy as np

from lesson.records import CardRecord, StepRecord

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "tests" / "quick_section"  # a small section for tests (its package docstring says what it shows)
TINY = ("--resolution", "256x144", "--fps", "5")


def system_program(name: str, package: str) -> str:
    """The path of a program the tests run; a missing one fails the test (never skips it): `make test` installs
    its Debian package, so a newcomer's run and CI's run the same tests."""
    import pytest

    path = shutil.which(name)
    if path is None:
        pytest.fail(f"'{name}' not found: install the Debian package {package} (make test does)")
    return path


def ctrl_c_as_at_a_terminal() -> None:
    """Popen's preexec_fn: Ctrl-C (SIGINT) handled as in a terminal, even when the test run itself was started in
    the background of a shell without job control, whose children inherit SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli_command(*arguments: str, env: dict[str, str] | None = None, launcher: Path = ROOT / "render.py") -> dict:
    """Popen's arguments for `python render.py ...` as a user types it (``env``: variables set on top of ours)."""
    return dict(args=[sys.executable, str(launcher), *arguments], cwd=ROOT, env={**os.environ, **(env or {})})


def quick_command(*arguments: str, env: dict[str, str] | None = None, folder: Path = QUICK,
                  launcher: Path | None = None) -> dict:
    """``cli_command`` with the quick section registered by ``launcher`` (``folder``/launch.py, or a script that
    imports it), the section's package in ``folder`` (tests/quick_section, or a copy) found through PYTHONPATH."""
    path = {"PYTHONPATH": os.pathsep.join((str(folder.parent), str(ROOT)))}
    return cli_command(*arguments, env=path | (env or {}), launcher=launcher or folder / "launch.py")


def run_cli(*arguments: str, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`python render.py ...` as a user types it, run to its end."""
    return subprocess.run(**cli_command(*arguments, env=env), capture_output=True, text=True, timeout=timeout)


def run_quick_cli(*arguments: str, timeout: float = 300,
                  env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``run_cli`` with the quick section registered: for tests of the output folder, whose subject is not what a
    section shows (a render of it takes a few seconds of CPU, the matrix section's 20)."""
    return subprocess.run(**quick_command(*arguments, env=env), capture_output=True, text=True, timeout=timeout)


def manifest(out_dir: Path) -> dict:
    return json.loads((out_dir / "manifest.json").read_text())


def streams(path: Path) -> dict[str, dict]:
    """Each stream's codec, duration in seconds and, for video, size and frame rate."""
    with av.open(str(path)) as container:
        found = {}
        for stream in container.streams:
            if stream.codec_context is None:  # a data stream, such as an MP4's chapter titles
                continue
            duration = (float(stream.duration * stream.time_base) if stream.duration is not None
                        else container.duration / av.time_base)  # WebM: only the container's
            info = {"codec": stream.codec_context.name, "duration": duration}
            if stream.type == "video":
                info.update(width=stream.width, height=stream.height, fps=float(stream.average_rate))
            found[stream.type] = info
        return found


def decoded_audio(path: Path) -> tuple[np.ndarray, int]:
    """The first audio stream as mono float samples and its sample rate."""
    with av.open(str(path)) as container:
        frames = [frame for frame in container.decode(audio=0)]
    samples = np.concatenate([frame.to_ndarray().reshape(frame.layout.nb_channels, -1)[0] for frame in frames])
    return samples.astype(float), frames[0].sample_rate


def decoded_frame_count(path: Path) -> int:
    with av.open(str(path)) as container:
        return sum(1 for _ in container.decode(video=0))


def dominant_frequency(samples: np.ndarray, rate: int, start: float, length: float) -> float:
    """The strongest frequency in [start, start + length), by FFT with zero-padding to 0.1 Hz bins."""
    window = samples[int(start * rate): int((start + length) * rate)]
    window = window * np.hanning(len(window))
    spectrum = np.abs(np.fft.rfft(window, n=10 * rate))
    return float(np.argmax(spectrum) * rate / (10 * rate))


def onset(samples: np.ndarray, rate: int, around: float, search: float = 0.3, threshold: float = 0.2) -> float:
    """When the envelope near ``around`` first reaches ``threshold`` of its local peak (seconds)."""
    start = max(0, int((around - search) * rate))
    window = np.abs(samples[start: int((around + search) * rate)])
    hop = rate // 1000  # 1 ms envelope
    envelope = np.array([window[i:i + hop].max() for i in range(0, len(window) - hop, hop)])
    first = int(np.argmax(envelope >= threshold * envelope.max()))
    return (start + first * hop) / rate


def session_folder(tmp_path_factory) -> Path:
    """The test session's temporary folder, the same for every xdist worker process (each has its own below)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def rendered_once(tmp_path_factory, name: str, *arguments: str, timeout: float = 600,
                  start_from: Path | None = None, cli=run_cli) -> tuple[Path, subprocess.CompletedProcess]:
    """``render.py ARGUMENTS -o <session folder>/<name>``, run once in the whole test session (into a copy of the
    folder ``start_from`` when given: what is up to date there is not rendered again; by ``cli``: ``run_cli``, or
    ``run_quick_cli`` for the quick section).

    Whichever worker process asks first runs it while holding a lock; the others wait for the lock and get the
    same folder and the first run's result (exit status and printed lines), so a test module that needs the
    matrix section rendered tiny does not render it again. Tests read the folder; one that changes it works
    on a copy (``copy_of``). Two modules that share a render by its ``name`` must ask for the same one: a
    ``name`` asked for again with other arguments, another start or another CLI is refused."""
    folder = session_folder(tmp_path_factory)
    out, record = folder / name, folder / f"{name}.result.json"
    asked = {"arguments": list(arguments), "start_from": start_from and str(start_from), "cli": cli.__name__}
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            if start_from is not None:
                shutil.rmtree(out, ignore_errors=True)  # a run stopped half-way in this session left it
                copy_of(start_from, out)
            result = cli(*arguments, "-o", str(out), timeout=timeout)
            record.write_text(json.dumps({**asked, "returncode": result.returncode, "stdout": result.stdout,
                                          "stderr": result.stderr}))
        saved = json.loads(record.read_text())
    made = {key: saved[key] for key in asked}
    if made != asked:
        raise ValueError(f"rendered_once({name!r}): asked for {asked}, but the session's render is {made}")
    return out, subprocess.CompletedProcess(arguments, saved["returncode"], saved["stdout"], saved["stderr"])


def tiny_matrix(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The matrix section rendered at TINY with the defaults, once for the session (``rendered_once``)."""
    out, result = rendered_once(tmp_path_factory, "matrix-tiny", "render", "matrix", *TINY, "-j", "1")
    assert result.returncode == 0, result.stderr
    return out, result


def tiny_clean_matrix(tmp_path_factory) -> Path:
    """The matrix section at TINY with nothing burned into its picture (``--clean``: its captions are its
    subtitles, in the video and beside it), once for the session."""
    out, result = rendered_once(tmp_path_factory, "matrix-tiny-clean", "render", "matrix", *TINY, "-j", "1", "--clean")
    assert result.returncode == 0, result.stderr
    return out


def tiny_clean_pair(tmp_path_factory) -> Path:
    """matrix and the quick section at TINY, clean, joined into their lecture, once for the session, from a copy of
    ``tiny_clean_matrix`` (matrix up to date there): test_skip skips a step in a copy, test_commit_sweep renders
    it over the default pair."""
    out, result = rendered_once(tmp_path_factory, "matrix-quick-clean", "render", "matrix", "quick", *TINY, "-j", "1",
                                "--clean", start_from=tiny_clean_matrix(tmp_path_factory), cli=run_quick_cli)
    assert result.returncode == 0, result.stderr
    return out


def tiny_quick(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The quick section rendered at TINY with the defaults, once for the session (``rendered_once``)."""
    out, result = rendered_once(tmp_path_factory, "quick-tiny", "render", "quick", *TINY, "-j", "1",
                                cli=run_quick_cli)
    assert result.returncode == 0, result.stderr
    return out, result


def tiny_lecture(tmp_path_factory) -> Path:
    """The whole default lecture at TINY, once for the session, starting from a copy of ``tiny_matrix`` (the same
    command and config: the render finds matrix up to date, renders the other sections and joins the lecture).
    test_sound_lecture measures its sound and frames; test_slides joins two of its sections into one deck."""
    matrix = tiny_matrix(tmp_path_factory)[0]
    out, result = rendered_once(tmp_path_factory, "lecture-tiny", "render", *TINY, "-j", "2", timeout=1800,
                                start_from=matrix)
    assert result.returncode == 0, result.stderr
    return out


QUIET = ("--set", "lecture.questions='none'")  # a shorter video, for tests whose subject is not the question cards


def draft_voice_matrix(tmp_path_factory) -> Path:
    """The matrix section at TINY without question cards, narrated by the synthetic voice, once for the
    session: test_site builds its page on a copy, test_narration_render checks the voice in it."""
    out, result = rendered_once(tmp_path_factory, "matrix-tiny-quiet-tts", "render", "matrix", "--narration", "tts",
                                *TINY, *QUIET, "-j", "1", timeout=900)
    assert result.returncode == 0, result.stderr
    return out


def copy_of(folder: Path, target: Path) -> Path:
    """``target``, a copy of the rendered ``folder`` (links kept as links) for a test that changes it."""
    shutil.copytree(folder, target, symlinks=True)
    return target


def chapters(path: Path) -> list[tuple[float, float, str]]:
    """(start, end, title) of each chapter, in seconds."""
    with av.open(str(path)) as container:
        return [(float(chapter["start"] * chapter["time_base"]), float(chapter["end"] * chapter["time_base"]),
                 chapter["metadata"]["title"]) for chapter in container.chapters()]


def subtitle_cues(path: Path) -> tuple[str, str, list[tuple[float, float, str]]]:
    """The subtitle stream's codec, language and cues (start, end, text) in seconds, text as stored: WebVTT
    keeps it bare, MP4's mov_text after a 16-bit length (and before any style boxes). Empty cues are left out."""
    with av.open(str(path)) as container:
        stream = container.streams.subtitles[0]
        cues = []
        for packet in container.demux(stream):
            if packet.dts is None:
                continue
            payload = bytes(packet)
            if stream.codec_context.name == "mov_text":
                payload = payload[2:2 + int.from_bytes(payload[:2], "big")]
            if not payload:  # MP4 fills a gap between cues with an empty one
                continue
            start = float(packet.pts * packet.time_base)
            cues.append((start, start + float(packet.duration * packet.time_base), payload.decode("utf-8")))
        return stream.codec_context.name, stream.metadata.get("language"), cues


def step_record(title: str, caption: str, end: float, **more) -> StepRecord:
    """A step record for caption and chapter tests: only what they read, the rest at its default."""
    return StepRecord(key=title, title=title, caption=caption, start=0.0, end=end, **more)


def card_record(kind: str, text: str, start: float, end: float) -> CardRecord:
    return CardRecord(kind=kind, key=kind, title="", text=text, start=start, end=end)


def then(function, action):
    """``function`` that calls ``action()`` once it has returned: something done at a chosen moment of a run,
    for monkeypatch (another program replacing files, say)."""
    def wrapped(*arguments, **options):
        result = function(*arguments, **options)
        action()
        return result
    return wrapped
