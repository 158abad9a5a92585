"""Test order: the modules that take minutes first, so that the two workers of `make test` end together.

xdist (``--dist loadfile``) hands out whole modules in collection order as workers come free; with the
default order (most tests first) a module of a few slow tests came last and one worker ran it alone.
"""

from __future__ import annotations

from pathlib import Path

# Heaviest first, by the sum of their tests' durations in a full run (`make test` prints the slowest tests; run
# `pytest --durations=0` to see them all; 2026-12-02, less what the shared renders saved). A module that renders
# something once for the session (media_checks.rendered_once) pays for it only where it comes first. A module
# missing here only starts later: nothing fails.
SLOWEST_FIRST = (
    "test_narration_render.py", "test_scene_english.py", "test_folders.py", "test_output_keeps.py",
    "test_sound_lecture.py", "test_cards.py", "test_memory.py", "test_output_inputs.py", "test_review_pipeline.py",
    "test_output_safety.py", "test_memory_uhd.py", "test_formats.py", "test_batch.py", "test_steps.py",
    "test_site.py", "test_slides.py", "test_install.py", "test_config_messages.py", "test_scene_matrix.py",
    "test_scene_heads.py", "test_render_cli.py", "test_scene_pipeline.py", "test_formats_once.py",
    "test_watch_cli.py", "test_storyboard.py", "test_captions.py", "test_review_sections.py",
    "test_scene_capital.py", "test_scene_scaling.py", "test_scene_positional.py",
)


def pytest_collection_modifyitems(items) -> None:
    """The slow modules first, in SLOWEST_FIRST's order; every other module after them in its usual place."""
    rank = {name: place for place, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(Path(item.nodeid.split("::")[0]).name, len(rank)))
