"""``lecture.skip``: steps left out of their section, through the real CLI on the quick section (its three steps
"start", "halved", "last"; "start" asks a question) and, once, the matrix section: gone from the manifest, the
video's chapters, the captions, the slides and the study page; the counter counts the steps shown; a bad name is
one line, exit status 2, and OUT untouched."""

from __future__ import annotations

import json

import pytest
from pypdf import PdfReader

from media_checks import TINY, chapters, copy_of, manifest, rendered_once, run_cli, run_quick_cli, tiny_clean_pair
from scene_checks import lecture_problems, run_scene

SKIP_START = ("--set", 'lecture.skip=["quick.start"]')
OWN_TITLE = ("--set", 'text.quick.title="Mis mitades"')  # the lecturer's [text] in place of the locale's "Mitades"
# the quick section's locale (tests/quick_section/es.toml): what a viewer would read of the skipped step
START_TITLE, START_QUESTION = "La regla", "¿Cuál es el último?"
KEPT_TITLES = ["Las mitades", "El último"]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    """The quick section rendered tiny without its first step, its slides and its page built in the same OUT."""
    folder, result = rendered_once(tmp_path_factory, "quick-skip-start", "render", "quick", *TINY, *SKIP_START,
                                   *OWN_TITLE, cli=run_quick_cli)
    assert result.returncode == 0, result.stderr
    for command in (("slides", "quick", "--to", "html", "--to", "pdf", *TINY, *SKIP_START, *OWN_TITLE),
                    ("storyboard", "quick", *TINY, *SKIP_START, *OWN_TITLE), ("site",)):
        result = run_quick_cli(*command, "-o", str(folder))
        assert result.returncode == 0, result.stderr
    return folder


def test_the_skipped_step_is_not_in_the_manifest_nor_its_question(out):
    entry = manifest(out)["sections"]["quick"]
    assert [step["key"] for step in entry["steps"]] == ["halved", "last"]
    assert all(question["key"] != "start" for question in entry["questions"])


def test_the_counter_counts_the_steps_shown(out):
    steps = manifest(out)["sections"]["quick"]["steps"]
    counters = [text["text"] for step in steps for text in step["texts"] if text["text"].startswith("Paso")]
    assert counters == ["Paso 1/2", "Paso 2/2"]


def test_the_videos_chapters_and_captions_leave_it_out(out):
    """The captions are burned into the silent picture: what the steps' records say was on screen."""
    assert [title for _, _, title in chapters(out / "08-quick.mp4")] == KEPT_TITLES
    on_screen = " ".join(" ".join(text["text"].split()) for step in manifest(out)["sections"]["quick"]["steps"]
                         for text in step["texts"])
    assert "Cada número, la mitad del anterior." in on_screen and "cada uno la mitad" not in on_screen


def test_the_slides_have_a_slide_for_each_step_shown(out):
    deck = json.loads((out / "slides" / "08-quick.json").read_text(encoding="utf-8"))
    assert [slide["file"].rsplit("/", 1)[1] for slide in deck["slides"]] == ["01-halved.mp4", "02-last.mp4"]
    assert not any(START_TITLE in slide["notes"] for slide in deck["slides"])


def test_the_handout_asks_only_the_closings_question(out):
    """The closing asks the skipped step's question too, after its statement: that one alone is left."""
    handout = " ".join(page.extract_text() for page in PdfReader(out / "slides" / "08-quick.pdf").pages)
    assert handout.count(START_QUESTION) == 1 and f"Mitades: Cada número es la mitad del anterior. {START_QUESTION}" \
        in handout


def test_the_storyboard_has_a_still_for_each_step_shown(out):
    assert sorted(path.name for path in (out / "stills" / "08-quick").iterdir()) == ["01-halved.png", "02-last.png"]


def test_the_page_neither_names_the_step_nor_asks_its_question(out):
    page = (out / "site" / "index.html").read_text(encoding="utf-8")
    assert all(title in page for title in KEPT_TITLES)
    assert START_TITLE not in page
    assert f"<p class=\"question\">{START_QUESTION}" not in page


def test_the_page_titles_the_section_with_the_lecturers_text(out):
    page = (out / "site" / "index.html").read_text(encoding="utf-8")
    assert "<h2>8. Mis mitades</h2>" in page and "8. Mitades" not in page


def test_a_clip_numbers_the_steps_shown(out, tmp_path):
    """``--steps`` counts the steps shown: with "start" left out, step 1 is "halved"; naming "start" is refused
    with why."""
    result = run_quick_cli("render", "quick", *TINY, *SKIP_START, "--steps", "1", "-o", str(tmp_path / "clip"))
    assert result.returncode == 0, result.stderr
    clip = manifest(tmp_path / "clip")["clips"]
    assert [[step["key"] for step in entry["steps"]] for entry in clip.values()] == [["halved"]]
    refused = run_quick_cli("render", "quick", *TINY, *SKIP_START, "--steps", "start", "-o", str(tmp_path / "no"))
    assert refused.returncode == 2 and "lecture.skip" in refused.stderr


def test_matrix_without_its_last_contrast_counts_fourteen_steps(tmp_path_factory):
    out, result = rendered_once(tmp_path_factory, "matrix-skip-shared", "render", "matrix", *TINY,
                                "--set", 'lecture.skip=["matrix.shared_projection"]', "--set",
                                "lecture.questions='none'")
    assert result.returncode == 0, result.stderr
    steps = manifest(out)["sections"]["matrix"]["steps"]
    assert len(steps) == 14 and "shared_projection" not in [step["key"] for step in steps]
    assert any(text["text"] == "Paso 14/14" for text in steps[-1]["texts"])
    assert len(chapters(out / "01-matrix.mp4")) == 14


def test_matrix_opens_on_its_inputs_when_its_formula_step_is_left_out():
    """The section's first step left out: its code runs with no header and no step tone to wait for (it crashed on
    both, an IndexError in the render), and the section opens on its inputs, every viewer check passing."""
    scene = run_scene("matrix", "lecture.skip=['matrix.formula']")
    assert [step.key for step in scene.steps][:2] == ["inputs", "queries"]
    assert lecture_problems(scene) == []


@pytest.mark.parametrize("skip, expected", [
    ('["quick.strat"]', "lecture.skip: 'quick.strat' names no step of quick; did you mean 'quick.start'?"),
    ('["quik.start"]', "lecture.skip: unknown section in 'quik.start'; did you mean 'quick'?"),
    ('["quick.start", "quick.halved", "quick.last"]', "lecture.skip: leaves no step of quick"),
    ('["pipeline.scores"]', "lecture.skip: pipeline.scores cannot be left out: the lab's panel"),
])
def test_a_bad_skip_is_one_line_exit_2_and_out_untouched(skip, expected, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    result = run_quick_cli("render", "quick", *TINY, "--set", f"lecture.skip={skip}", "-o", str(out))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and expected in result.stderr
    assert sorted(path.name for path in out.iterdir()) == ["keep.txt"]


def test_a_skip_given_twice_is_refused(tmp_path):
    result = run_cli("config", "--set", 'lecture.skip=["matrix.causal", "matrix.causal"]')
    assert result.returncode == 2 and "lecture.skip: 'matrix.causal' is named twice" in result.stderr


def test_skipping_a_step_renders_again_only_its_section_and_the_folder_agrees_on_the_settings(tmp_path_factory):
    """matrix and quick rendered together; then a step of quick skipped: matrix is up to date (no step of its
    own changed) and quick is rendered again; a command that builds on the folder's renders without -c then
    finds one set of settings (matrix's entry records the new skip list, as quick's does)."""
    out = copy_of(tiny_clean_pair(tmp_path_factory), tmp_path_factory.mktemp("skip-one") / "out")
    before = manifest(out)["sections"]["quick"]["fingerprint"]
    result = run_quick_cli("render", "matrix", "quick", *TINY, "-j", "1", "--clean", *SKIP_START, "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "01-matrix: up to date, skipped" in result.stderr + result.stdout
    entries = manifest(out)["sections"]
    assert entries["quick"]["fingerprint"] != before
    assert [step["key"] for step in entries["quick"]["steps"]] == ["halved", "last"]
    assert entries["matrix"]["settings"] == entries["quick"]["settings"]
    assert entries["matrix"]["settings"]["lecture"]["skip"] == ["quick.start"]
    result = run_quick_cli("storyboard", "matrix", "quick", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "were rendered with different settings" not in result.stderr
