"""A section is declared once (issue 28): an eighth section declared outside the project (the quick section of
tests/quick_section: its math, its scene, its record and its two locale tables, copied into a temporary folder)
renders end to end through the real CLI: its clip decodes with its own sound, the manifest lists its steps and its
captions are written. The project's own files hold exactly the registry's sections: the default config's tables,
both locales'."""

import ast
import importlib.util
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from lesson.config import DEFAULT_CONFIG, valid_keys
from lesson.locale import languages, load_locale
from lesson.sections import SECTIONS, CueSound, Section, register
from media_checks import QUICK, TINY, decoded_audio, decoded_frame_count, dominant_frequency, manifest, \
    quick_command, streams
from quick_section.record import PING


def spanish_captions(count: int) -> list[str]:
    """The quick section's captions in its Spanish table, for ``count`` halves (the last one 1/2**(count-1))."""
    steps = tomllib.loads((QUICK / "es.toml").read_text(encoding="utf-8"))["quick"]["steps"]
    fields = dict(count=count, last=f"{0.5 ** (count - 1):g}")
    return [steps[key]["caption"].format(**fields) for key in ("start", "halved", "last")]


@pytest.fixture(scope="module")
def declared_outside(tmp_path_factory):
    """The quick section, from a copy of its folder in a temporary folder (nothing of it on the project's paths),
    rendered by `render quick` at the tiny size, in Spanish and with its default of three halves, its captions not
    burned in (``--clean``: they are its subtitles)."""
    folder = shutil.copytree(QUICK, tmp_path_factory.mktemp("outside") / QUICK.name,
                             ignore=shutil.ignore_patterns("__pycache__"))
    out = folder.parent / "out"
    result = subprocess.run(**quick_command("render", "quick", *TINY, "--clean", "-o", str(out), folder=folder),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return out, manifest(out)


def test_a_section_declared_outside_the_project_renders_through_the_cli_and_its_clip_decodes(declared_outside):
    out, written = declared_outside
    entry = written["sections"]["quick"]
    clip = out / entry["files"][0]
    assert clip.name.startswith("08-quick")
    found = streams(clip)
    assert {"video", "audio"} <= found.keys() and (found["video"]["width"], found["video"]["height"]) == (256, 144)
    assert decoded_frame_count(clip) >= 5 * entry["duration"] - 2


def test_the_manifest_lists_its_steps_with_the_captions_of_its_locale_table(declared_outside):
    steps = declared_outside[1]["sections"]["quick"]["steps"]
    assert [step["key"] for step in steps] == ["start", "halved", "last"]
    assert [step["caption"] for step in steps] == spanish_captions(3)


def test_its_captions_are_written(declared_outside):
    out, written = declared_outside
    stem = written["sections"]["quick"]["files"][0].removesuffix(".mp4")
    subtitles = (out / f"{stem}.vtt").read_text(encoding="utf-8")
    assert all(caption in subtitles for caption in spanish_captions(3))
    assert (out / f"{stem}.srt").is_file()


def test_its_own_sound_plays_at_its_cue(declared_outside):
    out, written = declared_outside
    entry = written["sections"]["quick"]
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
    assert set(tables) - {"lecture", "audio", "narration", "text"} == {section.id for section in SECTIONS}
    for section in SECTIONS:
        keys = set(section.config.model_fields)
        assert keys == set(valid_keys()[section.id]), section.id  # the schema's table is the record's model
        assert set(tables[section.id]) <= keys, section.id
        assert set(tables[section.id]) | commented_keys(text, section.id) == keys, section.id


@pytest.mark.parametrize("language", languages())
def test_each_locale_has_every_sections_tables_with_a_title_and_a_caption_for_every_step(language):
    strings = load_locale(language)
    for section in SECTIONS:
        for name in (*section.locale_tables, f"{section.id}.title"):
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


def module_tree(name: str) -> ast.Module:
    return ast.parse(Path(importlib.util.find_spec(name).origin).read_text(encoding="utf-8"))


def imported_modules(tree: ast.Module) -> set[str]:
    return {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | \
        {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}


def test_every_sections_math_module_is_numpy_its_scene_reads():
    """The record's math module is in attn_math, computes with numpy and imports no Manim; the scene imports names
    from it and uses them (an import left beside numbers computed in the scene would not count)."""
    for section in SECTIONS:
        assert section.math_module.startswith("attn_math."), section.id
        math_imports = imported_modules(module_tree(section.math_module))
        assert "numpy" in math_imports and not any(name.startswith("manim") for name in math_imports), section.id
        scene = module_tree(section.scene_module)
        names = {alias.asname or alias.name for node in ast.walk(scene)
                 if isinstance(node, ast.ImportFrom) and node.module == section.math_module for alias in node.names}
        used = {node.id for node in ast.walk(scene) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        assert names & used, section.id


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
