"""A narrated render through the real CLI, with recordings made here (tones under 200 Hz, where no
sonification note plays, of known lengths, rates and channels): narrated steps last the voice + 0.5 s,
the voice sounds at its step in the decoded MP4, the tones duck under it, steps without a file keep their
timing, captions follow the spoken sentences; bad recordings stop the render with nothing written; the
script lists every step; the draft voice narrates a section."""

import hashlib
import shutil

import numpy as np
import pytest
import srt
from scipy import signal as scipy_signal

from audio_files import tone, write_audio
from lecture.publish.slides import cut_section, speaker_notes
from lecture.render.captions import subtitle_text
from lesson.locale import load_locale
from lesson.records import steps_of, stored
from lesson.narration_text import TAIL
from lesson.sections import SECTIONS
from media_checks import (QUIET, TINY, decoded_audio, decoded_frame_count, draft_voice_matrix, manifest, run_cli,
                          subtitle_cues)
from scene_checks import run_scene
from sonify.mappings import LEVELS, MAPPINGS

FPS = 5
INPUTS_HZ, QUERIES_HZ = 150.0, 180.0
QUERIES_SECONDS = 30.0  # longer than the step's silent reading time (22 s), so the step must grow


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recordings")
    write_audio(folder / "01-matrix" / "02-inputs.flac", tone(INPUTS_HZ, 3.0, 22050), 22050)
    write_audio(folder / "01-matrix" / "03-queries.wav", tone(QUERIES_HZ, QUERIES_SECONDS, 44100, 2), 44100)
    return folder


@pytest.fixture(scope="module")
def narrated(tmp_path_factory, recordings):
    out = tmp_path_factory.mktemp("narrated")
    result = run_cli("render", "matrix", *TINY, *QUIET, "--narration", str(recordings), "-o", str(out), "-j", "1",
                     timeout=900)
    assert result.returncode == 0, result.stderr
    return out, manifest(out)["sections"]["matrix"], result.stderr


@pytest.fixture(scope="module")
def silent():
    """The same section and config without narration, as its manifest entry would list its steps: a step's timing
    is the scene's at the renders' frame rate (whatever the file format or whether frames are drawn), so the scene
    is run here."""
    return {"steps": [stored(record) for record in run_scene("matrix", *QUIET[1:], frame_rate=FPS).steps]}


def step(entry, key):
    return next(step for step in entry["steps"] if step["key"] == key)


def band(samples: np.ndarray, rate: int, low: float, high: float) -> np.ndarray:
    return scipy_signal.sosfiltfilt(scipy_signal.butter(4, [low, high], "bandpass", fs=rate, output="sos"), samples)


def loud_samples(samples: np.ndarray, rate: int, frequency: float) -> np.ndarray:
    """Where the tone of ``frequency`` is over half its peak (10 ms envelope of the band around it)."""
    heard = np.abs(band(samples, rate, frequency - 8, frequency + 8))
    envelope = np.convolve(heard, np.ones(rate // 100) / (rate // 100), mode="same")
    return envelope > 0.5 * envelope.max()


def test_steps_without_a_recording_are_named_once_and_keep_their_silent_timing(narrated, silent):
    _, entry, stderr = narrated
    warnings = [line for line in stderr.splitlines() if line.startswith("narration:")]
    unrecorded = len(load_locale()["matrix"]["steps"]) - 2  # all but inputs and queries
    assert len(warnings) == 1 and f"{unrecorded} step(s)" in warnings[0] and "01-matrix/01-formula" in warnings[0]
    for record, unspoken in zip(entry["steps"], silent["steps"]):
        if record["key"] not in ("inputs", "queries"):
            assert record["end"] - record["start"] == pytest.approx(unspoken["end"] - unspoken["start"], abs=1e-3)
    silent_queries = step(silent, "queries")["end"] - step(silent, "queries")["start"]
    assert silent_queries + 1 < QUERIES_SECONDS, "the recording must outlast the silent step for this test"
    assert step(entry, "queries")["end"] - step(entry, "queries")["start"] > silent_queries + 1


def test_a_clip_names_only_its_own_unrecorded_steps_and_reads_no_other_recording(recordings, tmp_path):
    """``--steps 1..2`` with inputs and queries recorded: the clip's one step without a recording is named, none of
    the 13 outside it, and a broken file outside it is not read; its recorded step speaks."""
    folder = tmp_path / "recordings"
    shutil.copytree(recordings, folder)
    (folder / "01-matrix" / "05-values.wav").write_bytes(b"RIFF" + bytes(range(256)) * 8)
    result = run_cli("render", "matrix", "--steps", "1..2", *TINY, *QUIET, "--narration", str(folder), "-o",
                     str(tmp_path / "out"), timeout=600)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("narration:")]
    assert len(warnings) == 1 and " 1 step(s)" in warnings[0] and warnings[0].endswith(": 01-matrix/01-formula")
    (clip,) = manifest(tmp_path / "out")["clips"].values()
    assert clip["steps"][1]["narration"]["seconds"] == pytest.approx(3.0, abs=0.02)


def test_a_narrated_step_lasts_its_recording_plus_half_a_second_and_the_frames_match(narrated):
    out, entry, _ = narrated
    queries = step(entry, "queries")
    assert queries["narration"]["seconds"] == pytest.approx(QUERIES_SECONDS, abs=0.01)
    assert queries["read_until"] - queries["narration"]["start"] >= QUERIES_SECONDS + TAIL - 1e-6
    assert queries["narration"]["start"] == pytest.approx(queries["start"])
    frames = decoded_frame_count(out / entry["files"][0])
    assert abs(frames - entry["duration"] * FPS) <= 1


def test_the_voice_sounds_at_its_step_in_the_decoded_video_within_one_frame(narrated):
    out, entry, _ = narrated
    samples, rate = decoded_audio(out / entry["files"][0])
    for key, frequency, seconds in (("inputs", INPUTS_HZ, 3.0), ("queries", QUERIES_HZ, QUERIES_SECONDS)):
        start = step(entry, key)["narration"]["start"]
        loud = np.flatnonzero(loud_samples(samples, rate, frequency))
        assert loud[0] / rate == pytest.approx(start, abs=1 / FPS), key
        assert loud[-1] / rate == pytest.approx(start + seconds, abs=1 / FPS), key


def cue_gain_db(track: np.ndarray, rate: int, cue: dict) -> float:
    """The least-squares gain, in dB relative to its kind's level, of the cue's sound in ``track`` (both
    high-passed at 250 Hz, above the test voices)."""
    values = {name: value for name, value in cue.items() if name not in ("time", "kind")}
    reference = 10 ** (LEVELS[cue["kind"]] / 20) * MAPPINGS[cue["kind"]](**values)
    reference = reference.mean(axis=1) if reference.ndim == 2 else reference * np.cos(np.pi / 4)
    start = int(round(cue["time"] * rate))
    heard = track[start:start + len(reference)]
    reference = reference[:len(heard)]
    return float(20 * np.log10(abs(np.dot(heard, reference)) / np.dot(reference, reference)))


def test_the_tones_are_at_least_10_db_lower_under_the_voice(narrated):
    out, entry, _ = narrated
    samples, rate = decoded_audio(out / entry["files"][0])
    treble = scipy_signal.sosfiltfilt(scipy_signal.butter(6, 250, "highpass", fs=rate, output="sos"), samples)
    queries, keys = step(entry, "queries"), step(entry, "keys")
    voice = (queries["narration"]["start"] + 0.1, queries["narration"]["start"] + QUERIES_SECONDS - 0.1)
    under = [cue_gain_db(treble, rate, cue) for cue in entry["cues"]
             if cue["kind"] == "cell" and voice[0] <= cue["time"] <= voice[1] - 1.0]
    free = [cue_gain_db(treble, rate, cue) for cue in entry["cues"]
            if cue["kind"] == "cell" and keys["start"] <= cue["time"] <= keys["end"]]
    assert len(under) >= 4 and len(free) >= 4
    assert np.median(under) - np.median(free) <= -10


def test_captions_of_a_narrated_step_are_its_spoken_sentences_at_their_times(narrated):
    """Each sentence in blocks of at most two lines, one after the other from the sentence's start to its end."""
    out, entry, _ = narrated
    subtitles = list(srt.parse((out / "01-matrix.srt").read_text(encoding="utf-8")))
    queries = step(entry, "queries")
    spoken = queries["narration"]["sentences"]
    assert len(spoken) >= 1
    for text, start, end in spoken:
        first = next(index for index, cue in enumerate(subtitles)
                     if cue.start.total_seconds() == pytest.approx(start, abs=0.002))
        last = next(index for index, cue in enumerate(subtitles)
                    if cue.end.total_seconds() == pytest.approx(end, abs=0.002))
        blocks = subtitles[first:last + 1]
        assert " ".join(" ".join(cue.content.split()) for cue in blocks) == subtitle_text(text)
        assert all(len(cue.content.split("\n")) <= 2 for cue in blocks)
        assert all(a.end == b.start for a, b in zip(blocks, blocks[1:]))
    assert not any(" ".join(cue.content.split()) == queries["caption"] for cue in subtitles)
    formula = step(entry, "formula")  # no recording: its caption is on screen, as without narration, and not a subtitle
    assert " ".join(formula["caption"].split()) in [" ".join(text["text"].split()) for text in formula["texts"]]
    assert not any(" ".join(cue.content.split()) == subtitle_text(formula["caption"]) for cue in subtitles)
    assert queries["caption"] not in [text["text"] for text in queries["texts"]]  # spoken: its subtitles say it


def test_the_slides_clip_of_a_narrated_step_keeps_its_voice(narrated, tmp_path):
    out, entry, _ = narrated
    _, clips = cut_section(out, tmp_path, entry)
    samples, rate = decoded_audio(clips[[record["key"] for record in entry["steps"]].index("queries")])
    assert np.count_nonzero(loud_samples(samples, rate, QUERIES_HZ)) / rate == pytest.approx(QUERIES_SECONDS,
                                                                                            abs=2 / FPS)


def test_speaker_notes_carry_the_narration(narrated):
    _, entry, _ = narrated
    queries = next(record for record in steps_of(entry) if record.key == "queries")
    notes = speaker_notes(queries, False, entry, load_locale())
    assert queries.narration["text"] in notes and queries.caption in notes


def snapshot(folder):
    return {path.relative_to(folder): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file() and ".cache" not in path.parts}


@pytest.mark.parametrize("bad", ["corrupt", "too_long"])
def test_a_bad_recording_stops_the_render_with_one_line_and_nothing_written(narrated, tmp_path, bad):
    out = narrated[0]
    before = snapshot(out)
    folder = tmp_path / "recordings" / "01-matrix"
    if bad == "corrupt":
        folder.mkdir(parents=True)
        (folder / "05-values.wav").write_bytes(b"RIFF" + bytes(range(256)) * 8)
    else:
        write_audio(folder / "05-values.flac", tone(300, 181, 8000), 8000)
    result = run_cli("render", "matrix", *TINY, *QUIET, "--narration", str(tmp_path / "recordings"), "-o", str(out))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "05-values" in result.stderr
    assert snapshot(out) == before


def test_the_script_lists_every_step_with_its_file_name_text_and_silent_length(tmp_path):
    result = run_cli("script", "-o", str(tmp_path), "--set", "matrix.preset=\"large_scores\"", "-j", "2",
                     timeout=900)
    assert result.returncode == 0, result.stderr
    script = (tmp_path / "script.md").read_text(encoding="utf-8")
    locale = load_locale()
    for section in SECTIONS:
        for number, key in enumerate(locale[section.id]["steps"], 1):
            assert f"`{section.stem}/{number:02d}-{key}.wav`" in script
    silent = run_scene("matrix", "matrix.preset=\"large_scores\"").steps[0]
    assert f"{silent.read_until - silent.start:.1f} s" in script.split("### ")[1]  # a decimal point, as on screen
    assert silent.narration["text"] in script


def test_the_synthetic_voice_narrates_a_section(tmp_path_factory):
    """On the voiced matrix render that test_site builds its page from (rendered once for the session)."""
    out = draft_voice_matrix(tmp_path_factory)
    entry = manifest(out)["sections"]["matrix"]
    for record in entry["steps"]:
        voice = record["narration"]
        assert voice["seconds"] > 1.0
        assert record["read_until"] - voice["start"] >= voice["seconds"] + TAIL - 1e-6
    samples, rate = decoded_audio(out / entry["files"][0])
    speech = band(samples, rate, 300, 3000)
    first = entry["steps"][0]["narration"]
    inside = speech[int(first["start"] * rate):int((first["start"] + first["seconds"]) * rate)]
    assert np.sqrt(np.mean(inside ** 2)) > 0.01
    codec, language, cues = subtitle_cues(out / entry["files"][0])  # the video's own track: the spoken words
    assert (codec, language) == ("mov_text", "spa")
    sentences = [subtitle_text(text) for record in entry["steps"] for text, _, _ in record["narration"]["sentences"]]
    assert " ".join(" ".join(text.split()) for _, _, text in cues) == " ".join(sentences)
