"""The recordings' check is bounded and a path is a path, through the real CLI: a crashed recorder's zero-filled
tail is refused in one line within seconds, SIGTERM or Ctrl-C during a slow check stop the render within a second,
a relative recordings folder named like a URL (``take:1``) is read as a folder; and without the CLI: a file larger
than any recording is refused unread, a decode past CHECK_SECONDS is refused, a worker decodes a recording itself."""

import hashlib
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from audio_files import tone, write_audio
from lecture.render import narration
from lecture.render.narration import LARGEST_RECORDING, NarrationError, decode, plan
from lesson.locale import load_locale
from lesson.config import load_config
from lesson.sections import BY_ID
from media_checks import ROOT, TINY, ctrl_c_as_at_a_terminal, manifest, run_cli

ZEROS = 256 * 2 ** 20  # the tail a crashed recorder left in the issue: 104 s to check


def recording_with_zeros(path: Path, zeros: int, trailer: bytes = b"") -> Path:
    """A valid 1 s WAV followed by ``zeros`` zero bytes (a sparse file: nothing is written) and ``trailer``."""
    write_audio(path, tone(300, 1.0, 44100, 2), 44100)
    with open(path, "r+b") as file:
        file.truncate(path.stat().st_size + zeros)
        file.seek(0, os.SEEK_END)
        file.write(trailer)
    return path


def matrix_step(number: int) -> str:
    """``01-matrix/02-inputs``: where the recording of the matrix's step ``number`` goes."""
    return f"{BY_ID['matrix'].stem}/{number:02d}-{list(load_locale()['matrix']['steps'])[number - 1]}"


def test_a_zero_filled_tail_is_refused_in_one_line_within_seconds_and_nothing_is_written(tmp_path):
    recordings, out = tmp_path / "recordings", tmp_path / "out"
    recording_with_zeros(recordings / f"{matrix_step(2)}.wav", ZEROS)
    started = time.monotonic()
    result = run_cli("render", "matrix", *TINY, "--narration", str(recordings), "-o", str(out), timeout=60)
    assert time.monotonic() - started < 30
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{matrix_step(2)}.wav" in lines[0] and "zero bytes" in lines[0]
    assert not out.exists() or not any(path for path in out.iterdir() if not path.name.startswith("."))


def has_open(pid: int, path: Path) -> bool:
    """Whether process ``pid`` has ``path`` open now."""
    folder = Path(f"/proc/{pid}/fd")
    try:
        return any(os.path.realpath(folder / descriptor) == str(path) for descriptor in os.listdir(folder))
    except OSError:  # the process or one of its descriptors went meanwhile
        return False


@pytest.mark.parametrize(("stop", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stop_during_a_slow_check_ends_the_render_within_a_second_without_a_traceback(tmp_path, stop, status):
    recordings = tmp_path / "recordings"
    # zeros inside the file, not at its end: past the tail check, the decoder scans them for tens of seconds
    slow = recording_with_zeros(recordings / f"{matrix_step(1)}.wav", 200 * 2 ** 20, trailer=b"\x01" * 16)
    process = subprocess.Popen([sys.executable, str(ROOT / "render.py"), "render", "matrix", *TINY, "--narration",
                                str(recordings), "-o", str(tmp_path / "out")], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_as_at_a_terminal)
    try:
        deadline = time.monotonic() + 60
        while not has_open(process.pid, slow.resolve()) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.poll() is None and has_open(process.pid, slow.resolve()), "the check never started"
        time.sleep(0.5)  # inside the decoder's scan
        process.send_signal(stop)
        sent = time.monotonic()
        _, stderr = process.communicate(timeout=30)
        waited = time.monotonic() - sent
    finally:
        process.kill()
        process.communicate()
    assert waited < 2.0
    assert process.returncode == status, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr


def test_a_relative_recordings_folder_named_like_a_url_is_read_as_a_folder(tmp_path):
    first = list(load_locale()["scaling"]["steps"])[0]
    voice = write_audio(tmp_path / "take:1" / BY_ID["scaling"].stem / f"01-{first}.wav", tone(150, 1.5, 44100),
                        44100)
    assert voice.exists()
    # A clip of the recorded step (its worker, in a folder of its own, decodes the file again): a fraction of the
    # section's render.
    result = subprocess.run([sys.executable, str(ROOT / "render.py"), "render", "scaling", "--steps", "1", *TINY,
                             "--narration", "take:1", "-o", "out"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stderr
    (clip,) = manifest(tmp_path / "out")["clips"].values()
    spoken = clip["steps"][0]["narration"]
    assert spoken["seconds"] == pytest.approx(1.5, abs=0.02)


def test_a_relative_path_with_a_colon_decodes_as_a_file(tmp_path, monkeypatch):
    write_audio(tmp_path / "2024-12-01T10:30" / "step.flac", tone(300, 1.0, 22050), 22050)
    monkeypatch.chdir(tmp_path)
    assert len(decode(Path("2024-12-01T10:30/step.flac"))) == pytest.approx(48000, abs=100)


def test_a_file_larger_than_any_recording_is_refused_without_decoding_it(tmp_path):
    huge = recording_with_zeros(tmp_path / "03-queries.wav", LARGEST_RECORDING, trailer=b"\x01")
    started = time.monotonic()
    with pytest.raises(NarrationError, match=r"03-queries.wav is [\d,]+ MB; a step's recording"):
        decode(huge)
    assert time.monotonic() - started < 1.0


def test_a_decode_past_the_time_bound_is_refused_by_name(tmp_path, monkeypatch):
    monkeypatch.setattr(narration, "CHECK_SECONDS", 0.5)
    slow = recording_with_zeros(tmp_path / "04-keys.wav", 200 * 2 ** 20, trailer=b"\x01" * 16)
    started = time.monotonic()
    with pytest.raises(NarrationError, match="04-keys.wav was still being decoded after 0.5 s"):
        decode(slow)
    assert time.monotonic() - started < 5.0


def test_a_worker_is_sent_no_sound_and_decodes_a_recording_as_the_parent_checked_it(tmp_path):
    """What a worker is sent names the recording, its length and its hash (a minute held whole is 11.5 MB at
    48 kHz float32; before issue 42 every recording of the section went); it decodes the sound when its step
    speaks, the one whose hash the section's fingerprint holds, and refuses a file re-recorded since."""
    recording = write_audio(tmp_path / "01-matrix" / "02-inputs.flac", tone(300, 60.0, 22050), 22050)
    decoded = decode(recording)
    source = load_config(overrides=(f"narration.source={str(tmp_path)!r}",)).narration
    plans = plan(source, {BY_ID["matrix"]: ["formula", "inputs"]}, lambda line: None)
    sent = pickle.dumps(plans["matrix"])
    assert len(sent) < 10_000
    received = pickle.loads(sent)
    assert np.array_equal(received.speak("02-inputs", ["Una frase."], {})[0], decoded)
    assert received.fingerprint()["recordings"] == {"02-inputs": hashlib.sha256(decoded.tobytes()).hexdigest()}
    write_audio(recording, tone(310, 60.0, 22050), 22050)
    with pytest.raises(NarrationError, match="02-inputs.flac changed after the render checked it"):
        received.speak("02-inputs", ["Una frase."], {})
