"""Render a section's scene in-process, quickly, and check what a viewer would notice."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from manim import config, tempconfig

from lecture.config import load_config
from lecture.locale import load_locale
from lecture.media import exclusive_lock
from lecture.sections import BY_ID
from scenes.lesson_scene import SceneJob

TINY = {"pixel_width": 256, "pixel_height": 144, "frame_rate": 5}
# Tex and text renderings are cached by content, so every test run on a machine shares them;
# manim's caches are not process-safe, so one scene at a time uses them.
CACHE = Path(tempfile.gettempdir()) / "lecture-test-cache" / os.environ.get("PYTEST_XDIST_WORKER", "main")


def run_scene(section_id: str, *overrides: str, stills_dir=None):
    """Run the whole scene with animations skipped (state only, no video) and return it."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(CACHE / ".lock"), tempfile.TemporaryDirectory() as media, tempconfig({
            **TINY, "media_dir": media, "tex_dir": str(CACHE / "Tex"), "text_dir": str(CACHE / "texts"),
            "write_to_movie": False, "save_last_frame": False,
            "verbosity": "ERROR", "progress_bar": "none", "disable_caching": True}):
        job = SceneJob(config=load_config(overrides=overrides), locale=load_locale(), stills_dir=stills_dir)
        scene = BY_ID[section_id].scene()(job, skip_animations=True)
        scene.render()
    return scene


def layout_problems(scene) -> list[str]:
    """Texts overlapping other texts, or leaving the frame, at the end of each step."""
    half_width, half_height = config.frame_width / 2, config.frame_height / 2
    problems = []
    for step in scene.steps:
        for index, text in enumerate(step.texts):
            if text.left < -half_width or text.right > half_width or text.bottom < -half_height or text.top > half_height:
                problems.append(f"{step.key}: {text.text!r} leaves the frame")
            for other in step.texts[index + 1:]:
                if text.overlaps(other):
                    problems.append(f"{step.key}: {text.text!r} overlaps {other.text!r}")
    return problems
