"""The CLI end to end: commands, options, bad input, real tiny renders that decode, skipping, sound."""

import hashlib
import re

import numpy as np
import pytest
from click.testing import CliRunner

from attn_math import worked_example
from lecture.render.runner import longest_first
from lesson.sections import BY_ID, SECTION_IDS
from media_checks import (TINY, copy_of, decoded_audio, decoded_frame_count, dominant_frequency, manifest, onset,
                          run_cli, streams, tiny_matrix)
from lecture.cli import cli
from lesson.numbers import parse_number
from lesson.records import steps_of


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_list_shows_every_section_in_lesson_order():
    result = CliRunner().invoke(cli, ["list"])
    assert result.exit_code == 0
    lines = [line for line in result.output.splitlines() if line[:1].isdigit()]
    assert [line.split()[1] for line in lines] == list(SECTION_IDS)
    assert "¿Por qué dividir por √d_k?" in result.output


def test_config_prints_effective_toml_with_overrides(tmp_path):
    custom = tmp_path / "mine.toml"
    custom.write_text("[pipeline]\ntemperature = 2.5\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["config", "-c", str(custom), "--set", "matrix.causal=true"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert "temperature = 2.5" in lines and "causal = true" in lines
    assert not any(line.startswith("X = ") for line in lines)  # the preset's matrices stay out
    assert "# X = [[1, 0], [0, 2], [1, 1]]" in lines and lines[0].startswith("# Default config")


@pytest.mark.parametrize("arguments, message", [
    (["render", "matrx"], "error: section 'matrx': unknown section; did you mean 'matrix'?"),
    (["render", "--set", "matrix.X=[[1,2],[3]]"], "error: matrix.X: expected rows of equal length"),
    (["render", "--set", "matrix.X=[[1,nan],[0,1],[1,1]]"], "error: matrix.X: expected a finite number"),
    (["render", "--set", "pipeline.temprature=1"], "error: pipeline.temprature: unknown key; did you mean"),
    (["render", "--set", "pipeline.temperature=9"], "error: pipeline.temperature: expected less than"),
    (["render", "--set", "pipeline.sentence=''"], "error: pipeline.sentence: expected at least one word"),
    (["render", "--resolution", "big"], "error: --resolution: expected WIDTHxHEIGHT"),
    (["config", "--set", "audio.volume=300"], "error: audio.volume: expected less than or equal to 100"),
    (["render", "--set", "matrix.X=[[1,", "0],", "[0,", "1]]"],
     "error: --set matrix.X=[[1,: the shell split the value at its spaces; quote it: --set 'matrix.X=[[1, 0], [0, 1]]'"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, arguments, message):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, [*arguments, "-o", str(out)] if arguments[0] == "render" else arguments)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert result.stderr.startswith(message), result.stderr
    assert not out.exists()


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    shared, result = tiny_matrix(tmp_path_factory)
    return copy_of(shared, tmp_path_factory.mktemp("render") / "out"), result  # the tests render into it again


def test_render_writes_a_video_that_decodes(rendered):
    out, _ = rendered
    video = out / "01-matrix.mp4"
    found = streams(video)
    assert found["video"]["width"] == 256 and found["video"]["height"] == 144 and found["video"]["fps"] == 5
    entry = manifest(out)["sections"]["matrix"]
    assert found["video"]["duration"] == pytest.approx(entry["duration"], abs=0.01)
    assert decoded_frame_count(video) == round(entry["duration"] * 5)
    last_step = entry["steps"][-1]
    assert last_step["end"] < entry["duration"] <= last_step["end"] + 40  # every step, then the closing card
    assert entry["sha256"]["01-matrix.mp4"] == digest(video)


def test_lecture_joins_the_sections(rendered):
    out, _ = rendered
    lecture = streams(out / "lecture.mp4")
    section = streams(out / "01-matrix.mp4")
    assert lecture["video"]["duration"] == pytest.approx(section["video"]["duration"], abs=0.05)
    assert set(lecture) == {"video", "audio"}  # silent: the captions are in the picture, no subtitle track


def test_audio_track_matches_video_and_never_clips(rendered):
    out, _ = rendered
    found = streams(out / "01-matrix.mp4")
    assert found["audio"]["codec"] == "aac"
    assert abs(found["audio"]["duration"] - found["video"]["duration"]) <= 0.05
    samples, rate = decoded_audio(out / "01-matrix.mp4")
    assert np.abs(samples).max() < 1.0
    assert (out / "01-matrix.wav").exists()


def test_step_tones_start_on_their_cue_with_the_markers_pitch(rendered):
    out, _ = rendered
    samples, rate = decoded_audio(out / "01-matrix.mp4")
    entry = manifest(out)["sections"]["matrix"]
    frame = 1 / 5
    for cue in [cue for cue in entry["cues"] if cue["kind"] == "step"]:
        assert abs(onset(samples, rate, cue["time"]) - cue["time"]) <= frame, cue
        pitch = dominant_frequency(samples, rate, cue["time"] + 0.02, 0.2)
        assert pitch == pytest.approx(262, rel=0.01), cue  # the markers' bell (docs/sound.md)


def test_manifest_records_every_steps_texts_and_its_numbers(rendered):
    """What was on screen at each step's end, checkable on any render without running the scene again: each
    text's box (frame units, in pixels through TextRecord.pixels) inside the 256x144 frame."""
    out, _ = rendered
    steps = manifest(out)["sections"]["matrix"]["steps"]
    for step in steps_of(manifest(out)["sections"]["matrix"]):
        assert step.texts and any(text.text == step.title for text in step.texts)
        for text in step.texts:
            (left, top, right, bottom), cap = text.pixels(256, 144)
            assert -0.5 <= left < right <= 256.5 and -0.5 <= top < bottom <= 144.5, text
            assert 0 < cap
            # A text of signs alone ("−∞" in the causal step) is measured by the digit height its glyphs go
            # with (scenes.visuals.cap_height), so its ink may be shorter; letters and digits reach it.
            if any(character.isalnum() for character in text.text):
                assert cap <= bottom - top + 0.2, text  # within 0.2 px: the measures differ by ~1 %
    preset = worked_example.PRESETS["default"]
    Q, K, V = preset.X @ preset.W_Q, preset.X @ preset.W_K, preset.X @ preset.W_V
    scores = Q @ K.T / np.sqrt(K.shape[1])
    weights = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    shows_Z = [step["numbers"]["Z"] for step in steps if "Z" in step.get("numbers", {})]  # the variants come after
    assert shows_Z, "no step shows Z"
    shown = np.array([[parse_number(value) for value in row] for row in shows_Z[-1]])
    np.testing.assert_allclose(shown, weights @ V, atol=0.006)


def test_a_render_says_only_its_own_lines_in_english(rendered):
    """No manim warning or progress bar without -v; the lecture of one section is that section's file."""
    _, result = rendered
    assert result.stderr.splitlines() == [
        line for line in result.stderr.splitlines()
        if re.fullmatch(r"01-matrix +━+ 100% \d+:\d\d:\d\d done", line)
        or line == "lecture.mp4: the same file as 01-matrix.mp4 (a second name, no copy)"]
    assert len(result.stderr.splitlines()) == 2 and result.stdout == ""


def test_second_identical_render_is_skipped(rendered):
    out, _ = rendered
    before = digest(out / "01-matrix.mp4")
    result = run_cli("render", "matrix", *TINY, "-o", str(out))
    assert result.returncode == 0
    assert "01-matrix: up to date, skipped" in result.stderr
    assert digest(out / "01-matrix.mp4") == before


def test_bad_input_leaves_earlier_output_untouched(rendered):
    out, _ = rendered
    before = {path.name: digest(path) for path in out.iterdir() if path.is_file()}
    result = run_cli("render", "matrix", *TINY, "-o", str(out), "--set", "matrix.W_Q=[[1]]")
    assert result.returncode == 2
    assert {path.name: digest(path) for path in out.iterdir() if path.is_file()} == before


def test_png_format_writes_one_still_per_step(tmp_path):
    from PIL import Image

    result = run_cli("render", "matrix", *TINY, "-o", str(tmp_path), "--format", "png")
    assert result.returncode == 0, result.stderr
    stills = sorted((tmp_path / "01-matrix").glob("*.png"))
    steps = manifest(tmp_path)["sections"]["matrix"]["steps"]
    assert [still.name for still in stills] == [f"{n:02d}-{step['key']}.png" for n, step in enumerate(steps, 1)]
    with Image.open(stills[-1]) as image:
        assert image.size == (256, 144)
        assert np.unique(np.asarray(image.convert("L"))).size > 10  # not a blank frame


def test_no_audio_gives_a_file_without_an_audio_stream(tmp_path):
    """On a clip of three steps (a whole section rendered without sound: test_folders, test_output_safety)."""
    result = run_cli("render", "matrix", "--steps", "1..3", *TINY, "-o", str(tmp_path), "--no-audio")
    assert result.returncode == 0, result.stderr
    assert set(streams(tmp_path / "01-matrix-steps-01-03.mp4")) == {"video"}  # silent: no subtitle track either
    assert not list(tmp_path.glob("*.wav"))


def test_the_longest_section_starts_first_so_two_workers_finish_together():
    fresh = longest_first(list(SECTION_IDS), {"sections": {}})
    typical = [BY_ID[section].typical_seconds for section in fresh]
    assert typical == sorted(typical, reverse=True) and set(fresh) == set(SECTION_IDS)
    # a section whose last render here took longest (say a 32-word pipeline) goes first
    slow = {"sections": {"matrix": {"timings": {"scene_seconds": 10 * max(typical)}}}}
    assert longest_first(list(SECTION_IDS), slow)[0] == "matrix"
