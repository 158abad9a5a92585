"""A section is declared once (issue 28): a throwaway eighth section, declared outside the project (its math,
its scene, its record and its two locale tables, all in a temporary folder), renders end to end through the
real CLI: its clip decodes with its own sound, the manifest lists its steps and its captions are written.
The project's own files hold exactly the registry's sections: the default config's tables, both locales'."""

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from lesson.config import DEFAULT_CONFIG, valid_keys
from lesson.locale import languages, load_locale
from lesson.sections import SECTIONS, CueSound, Section, register
from media_checks import ROOT, TINY, decoded_audio, decoded_frame_count, dominant_frequency, streams

PING = 660.0  # Hz: the throwaway's own sound, heard in its clip

MATH = '''
def halves(count: int) -> list[float]:
    """1, 1/2, 1/4, ... : ``count`` numbers, each half the one before."""
    return [0.5**k for k in range(count)]
'''

SCENE = '''
from manim import DOWN, Circle, Create, Text

from scenes.lesson_scene import LessonScene
from throwaway_math import halves


class ThrowawayScene(LessonScene):
    section_id = "throwaway"
    STEPS = ("start", "halved")

    def lesson(self):
        values = halves(self.settings.count)
        self.begin_step("start", count=self.settings.count)
        self.cue("ping", value=values[0])
        self.play(Create(Circle(radius=1.0)), run_time=0.6)
        self.begin_step("halved", last=values[-1])
        self.play(Create(Text(str(values[-1])).shift(DOWN)), run_time=0.6)
'''

# The record, registered before the CLI loads: at the top level, so that the CLI's worker processes (started
# afresh, each importing this file again) know the section too.
LECTURE = f'''
import sys
from pathlib import Path

import numpy as np
from pydantic import Field

from lesson.section_config import StrictModel
from lesson.sections import CueSound, Section, register
from sonify.synth import pan, tone

HERE = Path(__file__).resolve().parent


class ThrowawayConfig(StrictModel):
    count: int = Field(default=3, ge=1, le=6)


def ping(value, **_):
    return pan(value * tone({PING}, 0.8), 0.0)


register(Section("throwaway", 8, "throwaway_scene", "ThrowawayScene", ThrowawayConfig, "throwaway_math",
                 ("step", "ping"), 1.0,
                 sounds={{"ping": CueSound(ping, 0.0)}},
                 locales={{language: HERE / f"{{language}}.toml" for language in ("es", "en")}}))

if __name__ == "__main__":
    from lecture.cli import cli

    cli(sys.argv[1:], prog_name="atencion")
'''

LOCALE = '''
[throwaway]
title = "{title}"
summary = "{summary}"

[throwaway.steps.start]
title = "{start}"
caption = "{start_caption}"
question = "{question}"
answer = "{answer}"

[throwaway.steps.halved]
title = "{halved}"
caption = "{halved_caption}"

[closing.throwaway]
title = "{title}"
text = "{summary}"
question = "{question}"
answer = "{answer}"
shown = false
'''
LOCALES = {
    "es": dict(title="Mitades", summary="Cada número es la mitad del anterior.", start="Un círculo",
               start_caption="{count} números, cada uno la mitad del anterior.", question="¿Cuál es el último?",
               answer="Uno entre dos elevado a count menos uno.", halved="El último",
               halved_caption="El último número: {last}."),
    "en": dict(title="Halves", summary="Each number is half the one before.", start="A circle",
               start_caption="{count} numbers, each half the one before.", question="Which is the last?",
               answer="One over two to the count minus one.", halved="The last one",
               halved_caption="The last number: {last}."),
}

# The default of three halves: 1, 0.5, 0.25.
CAPTIONS = [LOCALES["es"]["start_caption"].format(count=3), LOCALES["es"]["halved_caption"].format(last=0.25)]


@pytest.fixture(scope="module")
def throwaway(tmp_path_factory):
    """The throwaway section rendered by `render throwaway` at the tiny size, in Spanish and three halves."""
    folder = tmp_path_factory.mktemp("throwaway")
    (folder / "throwaway_math.py").write_text(MATH)
    (folder / "throwaway_scene.py").write_text(SCENE)
    (folder / "lecture_with_throwaway.py").write_text(LECTURE)
    for language, strings in LOCALES.items():
        (folder / f"{language}.toml").write_text(LOCALE.format(**strings), encoding="utf-8")
    out = folder / "out"
    result = subprocess.run([sys.executable, str(folder / "lecture_with_throwaway.py"), "render", "throwaway",
                             *TINY, "-o", str(out)], capture_output=True, text=True, timeout=600, cwd=folder,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    return out, json.loads((out / "manifest.json").read_text())


def test_the_throwaway_section_renders_through_the_cli_and_its_clip_decodes(throwaway):
    out, manifest = throwaway
    entry = manifest["sections"]["throwaway"]
    clip = out / entry["files"][0]
    assert clip.name.startswith("08-throwaway")
    found = streams(clip)
    assert {"video", "audio"} <= found.keys() and (found["video"]["width"], found["video"]["height"]) == (256, 144)
    assert decoded_frame_count(clip) >= 5 * entry["duration"] - 2


def test_the_manifest_lists_its_steps_with_the_captions_of_its_locale_table(throwaway):
    steps = throwaway[1]["sections"]["throwaway"]["steps"]
    assert [step["key"] for step in steps] == ["start", "halved"]
    assert [step["caption"] for step in steps] == CAPTIONS


def test_its_captions_are_written(throwaway):
    out, manifest = throwaway
    stem = manifest["sections"]["throwaway"]["files"][0].removesuffix(".mp4")
    subtitles = (out / f"{stem}.vtt").read_text(encoding="utf-8")
    assert all(caption in subtitles for caption in CAPTIONS)
    assert (out / f"{stem}.srt").is_file()


def test_its_own_sound_plays_at_its_cue(throwaway):
    out, manifest = throwaway
    entry = manifest["sections"]["throwaway"]
    cue = next(cue for cue in entry["cues"] if cue["kind"] == "ping")
    samples, rate = decoded_audio(out / entry["files"][0])
    assert dominant_frequency(samples, rate, cue["time"] + 0.05, 0.5) == pytest.approx(PING, abs=5)


def commented_keys(text: str, table: str) -> set[str]:
    """The optional keys a table of the default file shows as "# key = value" lines (a TOML line once the "# "
    is removed, as the file's header says)."""
    body = re.search(rf"^\[{table}\]$(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL).group(1)
    return {key for line in re.findall(r"^# (\w+ = .*)$", body, re.MULTILINE) for key in toml_or_nothing(line)}


def toml_or_nothing(line: str) -> dict:
    try:
        return tomllib.loads(line)
    except tomllib.TOMLDecodeError:
        return {}


def test_the_default_config_has_a_table_for_each_section_and_no_other():
    """assets/default.toml: every section's table, each key of its model given (or, for an optional one, shown
    as a "# key =" line) and no other, and no section table the registry lacks."""
    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    tables = tomllib.loads(text)
    assert set(tables) - {"lecture", "audio", "narration"} == {section.id for section in SECTIONS}
    for section in SECTIONS:
        keys = set(section.config.model_fields)
        assert keys == set(valid_keys()[section.id]), section.id  # the schema's table is the record's model
        assert set(tables[section.id]) <= keys, section.id
        assert set(tables[section.id]) | commented_keys(text, section.id) == keys, section.id


@pytest.mark.parametrize("language", languages())
def test_each_locale_has_every_sections_tables_with_a_title_and_a_caption_for_every_step(language):
    strings = load_locale(language)
    for section in SECTIONS:
        for name in (*section.locale_tables, section.title_key):
            assert looked_up(strings, name), (language, name)
        steps = strings[section.id]["steps"]
        assert set(steps) == set(section.scene().STEPS), (language, section.id)
        assert all(step["title"] and any(key.startswith("caption") for key in step) for step in steps.values()), \
            (language, section.id)  # caption, or its variants (caption_lab, caption_sharp)


def looked_up(strings: dict, dotted: str):
    """``strings["a"]["b"]`` for ``"a.b"``; None when a part is missing."""
    for part in dotted.split("."):
        strings = strings.get(part) if isinstance(strings, dict) else None
    return strings


def test_every_sections_math_module_is_numpy_its_scene_reads():
    """The record's math module exists, is in attn_math (no Manim below the scenes) and the scene imports it."""
    for section in SECTIONS:
        assert section.math_module.startswith("attn_math.") and importlib.util.find_spec(section.math_module)
        scene_source = Path(importlib.util.find_spec(section.scene_module).origin).read_text(encoding="utf-8")
        imported = {node.module for node in ast.walk(ast.parse(scene_source)) if isinstance(node, ast.ImportFrom)}
        assert section.math_module in imported, section.id


def test_every_cue_kind_a_section_plays_has_a_sound_and_a_level():
    for section in SECTIONS:
        assert section.levels.keys() == set(section.cue_kinds), section.id


def test_registering_a_clashing_or_late_section_fails_loudly():
    """Here lesson.config is imported: its schema is built, so a section registered now would be missing from
    it; and a number or id taken, or a cue kind without a sound, is named."""
    late = Section("late", 8, "late_scene", "LateScene", SECTIONS[0].config, "late_math", ("step",), 1.0)
    with pytest.raises(RuntimeError, match="register it before lesson.config"):
        register(late)
    assert "late" not in {section.id for section in SECTIONS}


@pytest.mark.parametrize(("changes", "message"), [
    ({"id": "matrix", "number": 9}, "number 9 or id taken by 01-matrix"),
    ({"number": 1}, "number 1 or id taken by 01-matrix"),
    ({"cue_kinds": ("step", "hum")}, "cue kinds without a sound: hum"),
    ({"id": "Two words"}, "expected an id of lowercase letters"),
    ({"sounds": {"row": CueSound(lambda **_: None, 0.0)}}, "brings sounds for kinds that have one: row"),
])
def test_a_clashing_record_is_named_before_anything_uses_it(changes, message):
    from lesson.sections import check

    fields = dict(id="extra", number=9, scene_module="extra_scene", scene_class="ExtraScene",
                  config=SECTIONS[0].config, math_module="extra_math", cue_kinds=("step",), typical_seconds=1.0)
    with pytest.raises(ValueError, match=message):
        check(Section(**(fields | changes)))
    check(Section(**fields))


def test_a_kind_the_section_brings_is_a_sound_of_its_own():
    from lesson.sections import check

    hum = Section("extra", 9, "extra_scene", "ExtraScene", SECTIONS[0].config, "extra_math", ("step", "hum"), 1.0,
                  sounds={"hum": CueSound(lambda **_: None, 0.0)})
    check(hum)
