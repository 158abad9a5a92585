"""A manim user's habit: `manim -ql scenes/matrix.py MatrixScene` renders a section with the default config,
without our CLI (no soundtrack: manim's own CLI knows nothing of our cues)."""

import subprocess
import sys
import tomllib
from functools import reduce
from pathlib import Path

import av
import pytest

from lesson.sections import SECTIONS
from media_checks import ROOT

TINY = ("-r", "256,144", "--fps", "5", "--disable_caching", "--progress_bar", "none")


def manim(*arguments: str, media: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "manim", *TINY, "--media_dir", str(media), *arguments],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


def scene_file(section) -> tuple[str, str]:
    scene = section.scene()
    return scene.__module__.replace(".", "/") + ".py", scene.__name__


def keys_and_values(table: dict, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], object]:
    """Every value of a TOML table by its dotted path."""
    found = {}
    for key, value in table.items():
        found.update(keys_and_values(value, (*path, key)) if isinstance(value, dict) else {(*path, key): value})
    return found


def documented_defaults() -> dict[tuple[str, ...], object]:
    """What the user reads as the defaults, read here without the config loader: assets/default.toml, then the
    ``[config]`` table of its language's locale file (the language's own defaults)."""
    defaults = tomllib.loads((ROOT / "assets" / "default.toml").read_text(encoding="utf-8"))
    language = defaults["lecture"]["lang"]
    locale = tomllib.loads((ROOT / "assets" / "locales" / f"{language}.toml").read_text(encoding="utf-8"))
    return {**keys_and_values(defaults), **keys_and_values(locale.get("config", {}))}


@pytest.mark.parametrize("section", SECTIONS, ids=[section.id for section in SECTIONS])
def test_every_section_scene_is_built_as_manims_cli_builds_it_with_the_default_config(section, no_personal_settings):
    scene = section.scene()()  # what manim's CLI does with the class it is given: no arguments
    used = scene.job.config.model_dump()
    assert {path: reduce(dict.get, path, used) for path in documented_defaults()} == documented_defaults()
    assert scene.job.narration is None
    assert Path(ROOT / scene_file(section)[0]).is_file()


def test_manims_own_cli_renders_the_matrix_section_as_a_video(tmp_path):
    path, name = scene_file(SECTIONS[0])
    result = manim("--fps", "1", path, name, media=tmp_path)  # a frame a second: the whole section, few frames
    assert result.returncode == 0, result.stderr[-2000:]
    video = next(tmp_path.rglob(f"{name}.mp4"))
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        assert (stream.width, stream.height) == (256, 144)
        assert float(stream.duration * stream.time_base) > 60  # the whole section, not one step
