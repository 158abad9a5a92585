"""``--steps``: choosing steps by number or key, a clip of them that starts at 0, kept apart from the section."""

import numpy as np
import pytest
from PIL import Image
from pypdf import PdfReader
from manim import tempconfig
from rich.console import Console

from lecture.render.jobs import Quality
from lecture.render.output_folder import private_lock
from lecture.render.runner import RenderRequest, render
from lesson.config import load_config
from lesson.locale import load_locale
from lesson.sections import BY_ID
from lesson.steps import StepRange, StepsError, clip_stem, parse_steps, step_keys
from media_checks import TINY as TINY_ARGUMENTS, chapters, manifest, run_cli, run_quick_cli, streams
from quick_section.record import SECTION as QUICK
from scene_checks import CACHE, TINY
from scenes.lesson_scene import HEADER_SECONDS, SHORTEST_STEP, SceneJob

NO_QUESTIONS = ("lecture.questions='none'",)
MATRIX = step_keys("matrix")


def test_steps_by_number_key_or_range():
    assert parse_steps("4", MATRIX) == StepRange(4, 4)
    assert parse_steps("queries..softmax", MATRIX) == StepRange(MATRIX.index("queries") + 1, MATRIX.index("softmax") + 1)
    assert parse_steps("2..keys", MATRIX) == StepRange(2, MATRIX.index("keys") + 1)
    assert parse_steps(f"{len(MATRIX)}", MATRIX).last == len(MATRIX)


@pytest.mark.parametrize("text", ["0", "99", "queries2", "6..2", "softmax..queries", ""])
def test_bad_steps_name_the_option_and_every_valid_step(text):
    with pytest.raises(StepsError) as error:
        parse_steps(text, MATRIX, "matrix")
    message = str(error.value)
    assert message.startswith("--steps") and "\n" not in message
    assert all(f"{number} {key}" in message for number, key in enumerate(MATRIX, 1))


def test_a_huge_steps_value_is_quoted_clipped_through_the_cli():
    huge = "z" * 100_000
    result = run_cli("render", "matrix", "--steps", huge, *TINY_ARGUMENTS)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert len(result.stderr) < 1_000 and "characters)" in result.stderr


def test_clip_files_say_which_steps_they_hold():
    assert clip_stem("01-matrix", None) == "01-matrix"
    assert clip_stem("01-matrix", StepRange(4, 6)) == "01-matrix-steps-04-06"
    assert clip_stem("01-matrix", StepRange(8, 8)) == "01-matrix-steps-08"


def scene_of(section: str, steps: StepRange | None, stills_dir=None):
    """The section's scene run without drawing (as for stills), whole or as a clip of ``steps``."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with private_lock(CACHE / ".lock"), tempconfig({
            **TINY, "media_dir": str(CACHE / "media"), "tex_dir": str(CACHE / "Tex"), "text_dir": str(CACHE / "texts"),
            "write_to_movie": False, "save_last_frame": False, "verbosity": "ERROR", "progress_bar": "none",
            "disable_caching": True}):
        job = SceneJob(config=load_config(overrides=NO_QUESTIONS), locale=load_locale(), stills_dir=stills_dir,
                       steps=steps)
        scene = BY_ID[section].scene()(job, skip_animations=True)
        scene.render()
    return scene


def test_a_clip_holds_the_chosen_steps_timed_from_0_as_in_the_whole_section(tmp_path):
    whole = scene_of("matrix", None)
    clip = scene_of("matrix", StepRange(4, 6), tmp_path)
    assert [step.key for step in clip.steps] == MATRIX[3:6]
    # The clip's 0: step 4's header starts to fade in; its tone sounds as the header has landed.
    offset = next(cue.time for cue in whole.cues if cue.values == {"step": 4}) - HEADER_SECONDS
    for mine, theirs in zip(clip.steps, whole.steps[3:6]):
        assert (mine.start, mine.end) == pytest.approx((theirs.start - offset, theirs.end - offset))
        assert mine.numbers == theirs.numbers and mine.caption == theirs.caption
    assert clip.cues[0].time == pytest.approx(HEADER_SECONDS) and clip.cues[0].values == {"step": 4}
    assert [cue.values["step"] for cue in clip.cues if cue.kind == "step"] == [4, 5, 6]
    # the scene's last half-second wait, in whole frames
    assert clip.seconds == pytest.approx(whole.steps[5].end - offset + 0.5, abs=1 / TINY["frame_rate"])
    assert sorted(path.name for path in tmp_path.glob("*.png")) == [f"{n:02d}-{MATRIX[n - 1]}.png" for n in (4, 5, 6)]


def pixels(path):
    with Image.open(path) as image:
        return np.asarray(image)


def request(out, steps, file_format="mp4"):
    return RenderRequest(sections=("matrix",), config=load_config(overrides=(*NO_QUESTIONS, "audio.mute=true")),
                         quality=Quality(256, 144, 5), format=file_format, out_dir=out, jobs=1, steps=steps)


def test_a_clip_of_one_step_is_its_own_file_never_the_section_nor_in_the_lecture(tmp_path):
    """Through the CLI, on the quick section (clips are cut by lesson.steps and the runner, alike for every section)."""
    render_quick = ("render", "quick", *TINY_ARGUMENTS, "--no-audio", "--set", *NO_QUESTIONS, "-o", str(tmp_path))
    result = run_quick_cli(*render_quick, "--steps", "halved")
    assert result.returncode == 0, result.stderr
    stem = f"{QUICK.stem}-steps-02"
    data = manifest(tmp_path)
    assert data["sections"] == {} and "lecture" not in data and not (tmp_path / "lecture.mp4").exists()
    entry = data["clips"][f"{stem}.mp4"]
    assert entry["files"][0] == f"{stem}.mp4" and not (tmp_path / f"{QUICK.stem}.mp4").exists()
    step = entry["steps"][0]
    assert [s["key"] for s in entry["steps"]] == ["halved"] and 0 < step["start"] < 1  # after its header
    assert streams(tmp_path / f"{stem}.mp4")["video"]["duration"] == pytest.approx(entry["duration"], abs=0.25)
    assert entry["duration"] == pytest.approx(step["end"] + 0.5, abs=0.25)
    assert [title for _, _, title in chapters(tmp_path / f"{stem}.mp4")] == [step["title"]]
    # The whole section then renders apart and joins the lecture; the clip stays as it was.
    result = run_quick_cli(*render_quick)
    assert result.returncode == 0, result.stderr
    data = manifest(tmp_path)
    assert data["lecture"]["parts"] == [f"{QUICK.stem}.mp4"] and data["clips"][f"{stem}.mp4"] == entry
    assert data["sections"]["quick"]["duration"] > entry["duration"] + 2 * SHORTEST_STEP  # its two other steps


def test_a_bad_steps_value_writes_nothing(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(StepsError):
        render(request(out, "99"), Console(stderr=True))
    assert not out.exists()


@pytest.fixture(scope="module")
def stills(tmp_path_factory):
    """Stills of steps 2..3, then of the whole section, rendered into one folder (the console's lines kept)."""
    out = tmp_path_factory.mktemp("stills")
    console = Console(stderr=True, record=True, width=200)
    for steps in ("2..3", None):
        assert render(request(out, steps, "png"), console) == 0
    return out, console.export_text()


def test_stills_of_a_clip_are_only_its_steps(stills):
    out, _ = stills
    folder = out / "01-matrix-steps-02-03"
    assert sorted(path.name for path in folder.glob("*.png")) == [f"0{n}-{MATRIX[n - 1]}.png" for n in (2, 3)]
    for still in folder.glob("*.png"):  # the same picture as the whole section's still of that step
        assert np.array_equal(pixels(still), pixels(out / "01-matrix" / still.name))


def test_a_clip_and_its_section_are_each_skipped_when_up_to_date(stills):
    out, first = stills
    assert "up to date" not in first  # both rendered the first time
    console = Console(stderr=True, record=True, width=200)
    for steps in ("2..3", None):
        assert render(request(out, steps, "png"), console) == 0
    skipped = [line for line in console.export_text().splitlines() if "up to date" in line]
    assert [line.split(":")[0] for line in skipped] == ["01-matrix-steps-02-03", "01-matrix"]


def test_slides_of_a_clip_hold_only_its_steps_and_leave_the_sections_slides_alone(tmp_path):
    result = run_cli("slides", "matrix", "--steps", "2..3", "--to", "pdf", *TINY_ARGUMENTS,
                     "--set", "lecture.questions='none'", "-o", str(tmp_path), "-j", "1", timeout=900)
    assert result.returncode == 0, result.stderr
    clips = sorted((tmp_path / "slides" / "files" / "01-matrix-steps-02-03").glob("*.mp4"))
    assert [clip.name for clip in clips] == ["01-inputs.mp4", "02-queries.mp4"]
    pages = PdfReader(tmp_path / "slides" / "01-matrix-steps-02-03.pdf").pages
    strings = load_locale()
    titles = [step["title"] for step in strings["matrix"]["steps"].values()][1:3]
    firsts = [page.extract_text().splitlines()[0] for page in pages]
    assert firsts[:2] == titles
    # Then the questions of those two steps with their answers, not the section's closing (not in the clip).
    handout = " ".join(page.extract_text() for page in pages[2:])
    assert firsts[2].startswith(strings["slides"]["questions_heading"])
    assert strings["matrix"]["steps"]["inputs"]["answer"].split()[0] in handout
    assert strings["closing"]["matrix"]["title"] not in handout
    assert not (tmp_path / "slides" / "01-matrix.pdf").exists()
