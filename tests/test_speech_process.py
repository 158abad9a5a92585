"""The model speaks in a process of its own: the asker (a render worker) never loads it, so a worker's peak memory
is the same whether its sentences were cached or synthesised; the speech process ends with its asker, however the
asker ends, and a speech process that dies is one line, not a hang."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from media_checks import TINY, manifest, run_cli

ROOT = Path(__file__).resolve().parent.parent


def private_cache(tmp_path: Path) -> Path:
    home = tmp_path / "cache"
    home.mkdir(mode=0o700)
    return home


def run_python(code: str, cache: Path, **options) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, text=True,
                            env=os.environ | {"XDG_CACHE_HOME": str(cache)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **options)


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError):
                pass
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_an_uncached_sentence_is_spoken_without_the_model_entering_the_asker(tmp_path):
    asker = run_python("""
        import resource, sys
        from speech import speaker, voice
        samples = voice.say("Una frase que el proceso de voz dice por primera vez.", "ef_dora", "es", 1.0)
        print(len(samples), "onnxruntime" in sys.modules, "kokoro_onnx" in sys.modules)
        print(speaker.hang_up(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
    """, private_cache(tmp_path))
    out, err = asker.communicate(timeout=300)
    assert asker.returncode == 0, err
    (length, runtime, kokoro), (ended, speech_peak) = (line.split() for line in out.splitlines())
    assert int(length) > 48000 and runtime == kokoro == "False"
    assert ended == "True" and int(speech_peak) > 150  # the model was loaded, in the child the asker waited for


def test_the_speech_process_ends_when_its_asker_is_killed(tmp_path):
    asker = run_python("""
        from speech import voice
        voice.say("Primera frase, para que el proceso de voz arranque.", "ef_dora", "es", 1.0)
        print("spoke", flush=True)
        import time; time.sleep(600)
    """, private_cache(tmp_path))
    assert asker.stdout.readline().strip() == "spoke"
    [speech] = children(asker.pid)
    asker.send_signal(signal.SIGKILL)
    asker.wait()
    deadline = time.monotonic() + 20
    while alive(speech) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(speech)


def test_a_speech_process_that_dies_is_one_line_naming_it(tmp_path):
    asker = run_python("""
        import os, signal
        from speech import speaker, voice
        voice.say("Primera frase, para que el proceso de voz arranque.", "ef_dora", "es", 1.0)
        os.kill(speaker.speaker().process.pid, signal.SIGKILL)
        try:
            voice.say("Una segunda frase que ya nadie dirá.", "ef_dora", "es", 1.0)
        except voice.VoiceMissing as error:
            print(error)
    """, private_cache(tmp_path))
    out, err = asker.communicate(timeout=300)
    assert asker.returncode == 0, err
    assert out.strip() == "the speech process (Kokoro-82M) ended with status -9"


@pytest.fixture(scope="module")
def worker_peaks(tmp_path_factory) -> dict[str, dict]:
    """A step of the scaling section rendered silent, then narrated with none of its sentences in the speech cache
    (the typeset formulas cached by the first): each render's worker timings."""
    cache = private_cache(tmp_path_factory.mktemp("cold"))
    settings = tmp_path_factory.mktemp("no-settings")
    timings = {}
    for name, extra in (("silent", ("--narration", "none")), ("spoken", ())):
        out = tmp_path_factory.mktemp(name)
        result = run_cli("render", "scaling", "--steps", "2", *TINY, *extra, "-o", str(out), "-j", "1",
                         env={"XDG_CONFIG_HOME": str(settings), "XDG_CACHE_HOME": str(cache)}, timeout=600)
        assert result.returncode == 0, result.stderr
        [entry] = manifest(out)["clips"].values()
        timings[name] = entry["timings"]
    return timings


def test_a_worker_that_synthesises_its_sentences_holds_no_more_than_a_silent_one(worker_peaks):
    silent, spoken = worker_peaks["silent"], worker_peaks["spoken"]
    # the model alone is a few hundred MB: in the worker it would show here
    assert spoken["peak_memory_mb"] < silent["peak_memory_mb"] + 80, (silent, spoken)
    assert spoken["speech_peak_memory_mb"] > 150  # the model was loaded, beside the worker
    assert "speech_peak_memory_mb" not in silent
