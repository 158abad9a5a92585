"""What a folder's sections were rendered with: the config commands that build on renders reuse when given
no ``-c``/``--set``, and what changed when a render replaces a section."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from pydantic import ValidationError

from lecture.render.jobs import QUALITIES, Quality
from lecture.render.manifest import MANIFEST, STILLS, Manifest
from lesson.config import DEFAULT_CONFIG, ConfigError, LectureConfig, describe, load_config, merge, read_toml, toml_value
from lesson.formats import DEFAULT_FORMAT

SHARED_TABLES = ("lecture", "audio", "narration")  # config tables every section is rendered with
SHOWN_CHANGES = 3  # changed keys named in a "replacing" line before "and N more"


def shared_settings(effective: dict) -> dict:
    """The tables of the effective config that are not a section's own, as a manifest entry records them."""
    return {table: effective[table] for table in SHARED_TABLES if table in effective}


def recorded_tables(entry: dict, section: str, manifest: dict) -> dict:
    """The config tables ``section``'s entry was rendered with: its own table and the shared ones (an entry
    written before they were recorded borrows them from the manifest's last render)."""
    shared = entry.get("settings") or shared_settings(manifest.get("config") or {})
    return {section: entry["config"], **shared}


def folder_config(out_dir: Path, sections: tuple[str, ...]) -> tuple[LectureConfig, str] | None:
    """The config ``out_dir``'s renders of ``sections`` were made with, and the line that says it is used;
    None when none of them was rendered there (the defaults apply). Each section keeps its own table; the
    shared tables must agree, else ConfigError names the first key that differs and the way out.

    Reads ``OUT/manifest.json`` and, for sections with no video there, the storyboard's ``OUT/stills``."""
    found = {section: recorded_tables(entry, section, manifest)
             for section, (entry, manifest) in rendered_entries(out_dir, sections).items()}
    if not found:
        return None
    data = read_toml(DEFAULT_CONFIG)
    first, *others = found
    for section in others:
        differing = changed_keys(shared_settings(found[first]), shared_settings(found[section]))
        if differing:
            raise ConfigError(f"{out_dir}: {first} and {section} were rendered with different settings "
                              f"({differing[0]}); pass -c or --set to choose, or name one of them")
    for tables in found.values():
        merge(data, tables)
    try:
        config = LectureConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(f"{out_dir / MANIFEST}: the recorded config is no longer valid ({describe(error)}); "
                          "pass -c or --set") from None
    return config, (f"using the config {out_dir}{os.sep} was rendered with ({MANIFEST}); "
                    "pass -c or --set to change it")


def folder_quality(out_dir: Path, sections: tuple[str, ...]) -> Quality | None:
    """The frame size and rate ``out_dir``'s renders of ``sections`` were made at, when they agree."""
    labels = {entry["quality"] for entry, _ in rendered_entries(out_dir, sections).values()}
    if len(labels) != 1:
        return None
    size, fps = labels.pop().split("@")
    width, height = size.split("x")
    return Quality(int(width), int(height), int(fps))


def rendered_entries(out_dir: Path, sections: tuple[str, ...]) -> dict[str, tuple[dict, dict]]:
    """Each of ``sections`` rendered in ``out_dir``: its manifest entry and that manifest, from
    ``OUT/manifest.json`` or else the storyboard's ``OUT/stills/manifest.json``."""
    found = {}
    for manifest_path in (out_dir / MANIFEST, out_dir / STILLS / MANIFEST):
        manifest = _readable_manifest(manifest_path)
        for section in sections:
            entry = manifest.get("sections", {}).get(section)
            if entry and section not in found:
                found[section] = entry, manifest
    return found


def _readable_manifest(path: Path) -> dict:
    """The manifest at ``path`` as plain data, or empty when missing or not ours (the render sets that aside)."""
    try:
        return Manifest.model_validate(json.loads(path.read_bytes().decode("utf-8"))).model_dump(exclude_none=True)
    except (OSError, ValueError, ValidationError, RecursionError):
        return {}


def changed_keys(old: dict, new: dict, prefix: str = "") -> list[str]:
    """The dotted keys whose values differ between two nested tables, in ``new``'s order then ``old``'s."""
    changed = []
    for key in dict.fromkeys([*new, *old]):
        before, after = old.get(key), new.get(key)
        if isinstance(before, dict) and isinstance(after, dict):
            changed += changed_keys(before, after, f"{prefix}{key}.")
        elif before != after:
            changed.append(f"{prefix}{key}")
    return changed


def replacing_line(entry: dict, section: str, manifest: dict, effective: dict, quality: str,
                   file_format: str) -> str | None:
    """"replacing 01-matrix.mp4: matrix.X changed" when a render of ``section`` with this config, quality and
    format replaces ``entry`` made with others; None when they are the same (a code change, a lost file)."""
    keys = changed_keys(recorded_tables(entry, section, manifest),
                        {section: effective[section], **shared_settings(effective)})
    changes = []
    if keys:
        more = f" and {len(keys) - SHOWN_CHANGES} more" if len(keys) > SHOWN_CHANGES else ""
        changes.append(f"{', '.join(keys[:SHOWN_CHANGES])}{more} changed")
    for name, before, after in (("quality", entry.get("quality"), quality),
                                ("format", entry.get("format"), file_format)):
        if before != after:
            changes.append(f"{name} {after} (was {before})")
    if not changes:
        return None
    return f"replacing {entry['files'][0]}: {'; '.join(changes)}"


def render_command(out_dir: Path, sections: list[str], entry: dict | None = None) -> str:
    """The command that renders ``sections`` into ``out_dir`` as ``entry`` (a section rendered there) was: its
    frame size and rate, format and shared settings (those that differ from what a render would use by default,
    as --set), so the new sections join the others in the lecture and on its page."""
    words = ["python", "render.py", "render", *sections]
    if out_dir != Path("output"):
        words += ["-o", str(out_dir)]
    if entry is None:
        return shlex.join(words)
    letter = next((letter for letter, quality in QUALITIES.items() if quality.label == entry["quality"]), None)
    if letter is None:
        size, fps = entry["quality"].split("@")
        words += ["--resolution", size, "--fps", fps]
    elif letter != "m":
        words += ["-q", letter]
    if entry["format"] != DEFAULT_FORMAT.name:
        words += ["--format", entry["format"]]
    settings = entry.get("settings") or {}
    defaults = shared_settings(load_config().effective())
    for key in changed_keys(defaults, settings):
        if key == "lecture.sections":  # the command names its sections
            continue
        value = settings
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is not None:
            words += ["--set", f"{key}={toml_value(value)}"]
    return shlex.join(words)
