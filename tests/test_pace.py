"""``lecture.pace``: a factor on every reading time, through the real CLI on the quick section, with every question
on a card ("all": its first step's question follows it). The expectations are the documented reading rule
(docs/config.md, scenes/lesson_scene.py): max(4 s, words / 2.5 + 0.4 s per new number), times the pace."""

from __future__ import annotations

import pytest

from audio_files import tone, write_audio
from lesson.narration_text import TAIL
from media_checks import QUIET, TINY, copy_of, manifest, rendered_once, run_cli, run_quick_cli

ALL_CARDS = ("--set", "lecture.questions='all'")
FRAME = 1 / 5  # seconds: TINY's frame rate
RECORDED_SECONDS = 12.0  # the lecturer's recording of the matrix's formula step: longer than its reading time


def documented_reading(text: str, new_numbers: int) -> float:
    return max(4.0, len(text.split()) / 2.5 + 0.4 * new_numbers)


@pytest.fixture(scope="module")
def renders(tmp_path_factory):
    """The quick section at pace 1, then the same OUT rendered again at pace 2: (pace 1's entry, pace 2's entry,
    the second render's result)."""
    slow_out = tmp_path_factory.mktemp("pace") / "out"
    first, result = rendered_once(tmp_path_factory, "quick-all-cards", "render", "quick", *TINY, *ALL_CARDS,
                                  cli=run_quick_cli)
    assert result.returncode == 0, result.stderr
    copy_of(first, slow_out)
    again = run_quick_cli("render", "quick", *TINY, *ALL_CARDS, "--set", "lecture.pace=2", "-o", str(slow_out))
    assert again.returncode == 0, again.stderr
    return manifest(first)["sections"]["quick"], manifest(slow_out)["sections"]["quick"], again


def test_a_changed_pace_renders_again(renders):
    _, _, again = renders
    assert "up to date" not in again.stdout + again.stderr


def test_at_pace_2_each_step_stays_twice_its_reading_time(renders):
    normal, slow, _ = renders
    for step in slow["steps"]:
        assert step["read_until"] - step["start"] >= 2 * documented_reading(step["caption"], step["new_numbers"]) \
            - FRAME, step["key"]
    assert slow["duration"] > normal["duration"]


def test_at_pace_1_the_steps_do_not_already_hold_that_long(renders):
    """What makes the test above tell paces apart: at pace 1 no step holds twice its reading time."""
    normal, _, _ = renders
    assert all(step["read_until"] - step["start"] < 2 * documented_reading(step["caption"], step["new_numbers"])
               for step in normal["steps"])


def test_a_question_card_holds_twice_as_long(renders):
    """The card's hold is its question's reading time times the pace; its fades stay as they are."""
    normal, slow, _ = renders
    card = {name: next(card for card in entry["cards"] if card["kind"] == "question")
            for name, entry in (("normal", normal), ("slow", slow))}
    lasted = {name: found["end"] - found["start"] for name, found in card.items()}
    assert lasted["slow"] - lasted["normal"] == pytest.approx(documented_reading(card["slow"]["text"], 0), abs=FRAME)


def test_at_pace_half_a_spoken_step_still_lasts_its_voice(tmp_path):
    """The pace is on reading, not on the voice: with a recording of the formula step longer than its reading time,
    that step lasts the recording and its tail at pace 0.5."""
    recordings = tmp_path / "recordings"
    write_audio(recordings / "01-matrix" / "01-formula.wav", tone(150.0, RECORDED_SECONDS, 22050), 22050)
    out = tmp_path / "out"
    result = run_cli("render", "matrix", *TINY, *QUIET, "--set", "lecture.pace=0.5", "--narration", str(recordings),
                     "-o", str(out), "-j", "1", timeout=900)
    assert result.returncode == 0, result.stderr
    formula = manifest(out)["sections"]["matrix"]["steps"][0]
    assert formula["key"] == "formula" and formula["read_until"] - formula["start"] >= RECORDED_SECONDS + TAIL - FRAME


@pytest.mark.parametrize("pace", ["3", "0.4", "'slow'"])
def test_a_pace_out_of_bounds_is_one_line_exit_2_and_out_untouched(pace, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    result = run_quick_cli("render", "quick", *TINY, "--set", f"lecture.pace={pace}", "-o", str(out))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error: lecture.pace:")
    assert "from 0.5 to 2.0" in result.stderr
    assert sorted(path.name for path in out.iterdir()) == ["keep.txt"]
