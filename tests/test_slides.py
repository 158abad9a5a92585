"""Slides that keep their sound: decks written at tiny size, read back the way their users' tools read them."""

import io

import av
import numpy as np
import pytest
from manim_slides.config import PresentationConfig
from PIL.PdfParser import PdfParser
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE

from lecture.locale import load_locale
from lecture.slides import cut
from media_checks import TINY, decoded_audio, decoded_frame_count, manifest, run_cli, shared_output, streams
from sonify.mix import read_wav

FPS = 5
REVEAL_ASSETS = ("reveal.css", "black.css", "zenburn.css", "reveal.js", "notes.js", "markdown.js")


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    out = shared_output(tmp_path_factory, "matrix-tiny")
    result = run_cli("slides", "matrix", *TINY, "-o", str(out), "-j", "1", "--to", "html", "--to", "pptx",
                     "--to", "pdf")
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def steps(out):
    return manifest(out)["sections"]["matrix"]["steps"]


def clips(out):
    return sorted((out / "slides" / "files" / "01-matrix").glob("*.mp4"))


def test_every_deck_is_written(out, steps):
    deck = out / "slides" / "01-matrix"
    assert deck.with_suffix(".html").exists() and deck.with_suffix(".pptx").exists()
    assert len(PdfParser(str(deck.with_suffix(".pdf"))).pages) == len(steps)


def test_html_names_the_section_and_the_formula_and_plays_every_clip(out, steps):
    html = (out / "slides" / "01-matrix.html").read_text(encoding="utf-8")
    strings = load_locale()
    title = html.split("<title>")[1].split("</title>")[0]
    assert strings["matrix"]["title"] in title and strings["slides"]["formula"] in title
    for number, step in enumerate(steps, 1):
        assert f'data-background-video="01-matrix_assets/{number:02d}-{step["key"]}.mp4"' in html
        assert (out / "slides" / "01-matrix_assets" / f"{number:02d}-{step['key']}.mp4").exists()


def test_pptx_has_one_slide_per_step_with_a_video_that_has_sound_and_notes(out, steps):
    deck = Presentation(str(out / "slides" / "01-matrix.pptx"))
    assert len(deck.slides) == len(steps)
    for slide, step in zip(deck.slides, steps):
        assert [shape.shape_type for shape in slide.shapes] == [MSO_SHAPE_TYPE.MEDIA]
        notes = slide.notes_slide.notes_text_frame.text
        assert step["title"] in notes and step["caption"] in notes and "Pregunta para la clase:" in notes
        media = next(rel.target_part.blob for rel in slide.part.rels.values() if rel.reltype.endswith("/media"))
        with av.open(io.BytesIO(media)) as container:
            assert len(container.streams.video) == 1 and len(container.streams.audio) == 1


def test_slides_tile_the_section_video_frame_for_frame(out, steps):
    lengths = [decoded_frame_count(clip) for clip in clips(out)]
    assert len(lengths) == len(steps)
    assert sum(lengths) == decoded_frame_count(out / "01-matrix.mp4")
    ends = np.cumsum(lengths)[:-1] / FPS
    assert ends == pytest.approx([step["end"] for step in steps[:-1]], abs=0.5 / FPS)


def test_each_slide_carries_the_soundtrack_of_its_time_range(out):
    soundtrack = read_wav(out / "01-matrix.wav")
    start = 0.0
    for clip in clips(out):
        found = streams(clip)
        assert found["audio"]["codec"] == "aac"
        assert found["audio"]["duration"] == pytest.approx(found["video"]["duration"], abs=0.05)
        samples, rate = decoded_audio(clip)
        length = round(found["video"]["duration"] * rate)
        inner = slice(int(0.1 * rate), length)  # past the encoder's first few milliseconds
        expected = soundtrack[round(start * rate):, 0][:length]  # the left channel, as decoded_audio reads it
        assert np.corrcoef(samples[inner], expected[inner])[0, 1] > 0.999, clip.name
        assert np.sqrt(np.mean((samples[inner] - expected[inner]) ** 2)) < 0.02 * np.abs(expected).max(), clip.name
        start += found["video"]["duration"]


def test_manim_slides_reads_the_presentation_with_notes(out, steps):
    presentation = PresentationConfig.from_file(out / "slides" / "01-matrix.json")
    assert [slide.file for slide in presentation.slides] == clips(out)
    assert all(slide.rev_file.exists() for slide in presentation.slides)
    assert [slide.notes.split("\n\n")[:2] for slide in presentation.slides] == [
        [step["title"], step["caption"]] for step in steps]
    assert presentation.resolution == (256, 144)


def test_one_file_html_embeds_the_clips_and_reveal_js(out, tmp_path, monkeypatch):
    cache = tmp_path / "manim-slides" / "revealjs6.0.1"  # where manim-slides keeps reveal.js once downloaded
    cache.mkdir(parents=True)
    for name in REVEAL_ASSETS:
        (cache / name).write_text(f"/* {name} */", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # the render.py subprocess inherits it
    cut_before = [clip.stat().st_mtime_ns for clip in clips(out)]
    result = run_cli("slides", "matrix", *TINY, "-o", str(out), "-j", "1", "--one-file")
    assert result.returncode == 0, result.stderr
    assert [clip.stat().st_mtime_ns for clip in clips(out)] == cut_before  # same video: clips reused
    html = (out / "slides" / "01-matrix.html").read_text(encoding="utf-8")
    assert html.count("data:video/mp4;base64,") == len(clips(out))
    assert 'src="http' not in html and 'href="http' not in html and "/* reveal.js */" in html


def test_without_a_soundtrack_slides_are_silent(out, tmp_path):
    targets = [tmp_path / "a.mp4", tmp_path / "b.mp4"]
    cut(out / "01-matrix.mp4", None, [0.0, 2.0], targets)
    assert [set(streams(target)) for target in targets] == [{"video"}, {"video"}]
    assert decoded_frame_count(targets[0]) == 2 * FPS


def test_unknown_section_is_one_line_and_exit_2(tmp_path):
    result = run_cli("slides", "matrx", *TINY, "-o", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.strip() == "error: section 'matrx': unknown section; did you mean 'matrix'?"
    assert not (tmp_path / "out").exists()


def test_every_step_has_a_question_for_the_speaker_notes():
    from lecture.locale import load_locale
    from lecture.sections import BY_ID

    strings = load_locale()
    for section in BY_ID:
        for key, step in strings[section]["steps"].items():
            question = step.get("question", "")
            assert question.strip() and question.count("¿") == question.count("?"), (section, key)
