"""Test order: the modules that take minutes first, so that the two workers of `make test` end together.

xdist (``--dist loadfile``, with the scheduler below) hands out whole modules in collection order as workers come
free, SHARED_SCENES as one unit; with the default order (most tests first) a module of a few slow tests came last
and one worker ran it alone.
"""

from __future__ import annotations

import gc
import os
import tempfile
from pathlib import Path

import pytest

# Renders in tests are silent unless a test asks for a voice (`--narration tts`, or a job's narration): the neural
# voice costs 0.6 s of CPU per spoken second, and most tests are about something else. The user's own settings file
# (lesson.config.personal_config_file), which the CLI's subprocesses read too, says so; test_narration_default
# renders with an empty one to check that the lecture speaks by default.
PERSONAL_SETTINGS = Path(tempfile.mkdtemp(prefix="atencion-test-settings-"))
(PERSONAL_SETTINGS / "atencion").mkdir()
(PERSONAL_SETTINGS / "atencion" / "config.toml").write_text('[narration]\nsource = "none"\n', encoding="utf-8")
os.environ["XDG_CONFIG_HOME"] = str(PERSONAL_SETTINGS)

from lecture.render.jobs import GC_THRESHOLDS  # noqa: E402  (after the settings: nothing may read a config before)

# The render workers' collector thresholds, in the test processes too: these hold many objects for the session (every
# typeset label, the default scenes, each module's scenes), which the default thresholds went over again and again
# while each scene ran (the English scenes one after another, with the scenes kept: 88 s, 40 s with these).
gc.set_threshold(*GC_THRESHOLDS)

# Heaviest first, by the sum of their tests' durations in a full run (`make test` prints the slowest tests; run `pytest
# --durations=0` to see them all; 2026-12-02; the modules added since by their slowest tests in the full runs of
# 2026-12-06: left off, a module of a minute starts among the last, where its worker may end up running it alone). A
# module that renders something once for the session (media_checks.rendered_once) pays for it only where it comes first:
# test_sound_lecture renders the whole lecture (test_slides reads it later), so it starts first. test_narration_render's
# script and renders of the default sections wait until the lecture has typeset their labels (from a fresh clone, with
# an empty typeset store, the script took 63 s while the lecture typeset the same labels beside it; 33 s with the store
# filled); meanwhile the other worker runs modules whose labels the lecture does not show (English, odd sentences,
# variants). Modules that wait for the session's tiny matrix (test_commit_sweep, test_skip) come after test_cards, by
# when it is made. A group (SHARED_SCENES) goes out where its first module stands. A module missing here only starts
# later: nothing fails.
SLOWEST_FIRST = (
    "test_sound_lecture.py", "test_scene_english.py", "test_output_inputs.py", "test_batch.py",
    "test_scene_pipeline.py", "test_narration_render.py", "test_cards.py", "test_memory.py", "test_site.py",
    "test_matrix_row.py", "test_commit_sweep.py", "test_voice_heard.py", "test_scene_matrix.py", "test_skip.py",
    "test_text_overrides.py", "test_steps.py", "test_output_safety.py", "test_folders.py", "test_scene_scaling.py",
    "test_memory_uhd.py", "test_speech_process.py", "test_pace.py", "test_sound_silence.py", "test_output_keeps.py",
    "test_learned_math.py", "test_config_messages.py", "test_learned_scores.py", "test_scaling_answers.py",
    "test_watch_cli.py", "test_geometry_matrix.py", "test_sound_levels.py", "test_captions.py", "test_formats.py",
    "test_watch.py", "test_storyboard.py", "test_plain_manim.py", "test_slides.py",
)


# The modules that read the default scenes (scene_checks.shared_scene, shared_recorded): one unit of work, on one
# worker, so that each section's default scene runs once in the session, not once in each module.
SHARED_SCENES = ("test_cards.py", "test_review_sections.py", "test_sound_lands.py", "test_scene_heads.py",
                 "test_scene_positional.py", "test_lang.py", "test_pacing.py", "test_sound_scales.py",
                 "test_voice_text.py", "test_pipeline_repeats.py", "test_caption_growth.py")


def module_name(nodeid: str) -> str:
    return Path(nodeid.split("::")[0]).name


def pytest_collection_modifyitems(items) -> None:
    """The slow modules first, in SLOWEST_FIRST's order; every other module after them in its usual place."""
    rank = {name: place for place, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(module_name(item.nodeid), len(rank)))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` with SHARED_SCENES as one unit (xdist's loadgroup cannot: it renames the tests through a
    node attribute pytest 9 no longer reads)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ModulesAndSharedScenes(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "default-scenes" if module_name(nodeid) in SHARED_SCENES else nodeid.split("::", 1)[0]

    return ModulesAndSharedScenes(config, log)


@pytest.fixture
def no_personal_settings(tmp_path, monkeypatch):
    """No user settings file: the config as a user without one gets it (the lecture narrated)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-settings"))
