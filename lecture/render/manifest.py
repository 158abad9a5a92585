"""``OUT/manifest.json``: what each section's files were rendered from, and their hashes.

The manifest is read through a schema: one that is not ours (wrong types, a folder, a link, invalid
UTF-8, names that leave the folder) is set aside as ``manifest.json.corrupt-<time>`` and the sections it
described are rendered again. A section counts as up to date only when its files hash to its entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError, field_validator

from lecture.render.output_folder import OutputFolder, regular_file_digest
from lesson.records import CardRecord, StepRecord

MANIFEST = "manifest.json"
STILLS = "stills"  # OUT/stills: the storyboard's still render, with a manifest of its own


def plain_name(name: str) -> str:
    """A file name inside OUT: no folder part, not hidden, no '..'."""
    if not name or name.startswith(".") or "/" in name or "\\" in name or "\0" in name:
        raise ValueError(f"expected a plain file name, got {name!r}")
    return name


FileName = Annotated[str, AfterValidator(plain_name)]


class SectionEntry(BaseModel):
    model_config = ConfigDict(extra="allow")
    files: list[FileName]
    fingerprint: str
    duration: float
    sha256: dict[FileName, str]
    contents: dict[FileName, list[FileName]] = {}  # a folder's files (the stills): anything else in it is a user's
    steps: list[StepRecord]
    cards: list[CardRecord] = []
    quality: str
    format: str
    audio: bool
    config: dict[str, Any]


class Lecture(BaseModel):
    model_config = ConfigDict(extra="allow")
    file: FileName
    fingerprint: str
    sha256: str | None = None
    parts: list[FileName]


def clip_key(stem: str, file_format: str) -> str:
    """A ``--steps`` clip's key in ``clips``: its file stem and format (``01-matrix-steps-02.png``), so that the
    clip rendered in several formats keeps an entry for each."""
    return f"{stem}.{file_format}"


class Manifest(BaseModel):
    model_config = ConfigDict(extra="allow")
    sections: dict[str, SectionEntry] = {}
    clips: dict[str, SectionEntry] = {}  # by ``clip_key``
    config: dict[str, Any] | None = None
    lecture: Lecture | None = None

    @field_validator("clips", mode="before")
    @classmethod
    def _keyed_by_format(cls, clips: Any) -> Any:
        """An earlier manifest keyed its clips by file stem alone: each keeps its entry under ``clip_key``."""
        if not isinstance(clips, dict):
            return clips
        return {_current_key(key, entry): entry for key, entry in clips.items()}


def _current_key(key: str, entry: Any) -> str:
    """``key`` with its entry's format added when it lacks it (an entry with no format: as it is, refused later)."""
    file_format = entry.get("format") if isinstance(entry, dict) else None
    if not isinstance(file_format, str) or key.endswith(f".{file_format}"):
        return key
    return clip_key(key, file_format)


def read_manifest(folder: OutputFolder, warn=print) -> dict:
    """The manifest as plain data; a missing one is empty, a corrupt one is set aside (call under the lock)."""
    path = folder.path / MANIFEST
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return {"sections": {}}
    try:
        if not stat.S_ISREG(mode):
            raise ValueError("not a regular file")
        return Manifest.model_validate(json.loads(path.read_bytes().decode("utf-8"))).model_dump(exclude_none=True)
    except (ValueError, ValidationError, OSError, RecursionError) as error:
        aside = path.with_name(f"{MANIFEST}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        while os.path.lexists(aside):
            aside = aside.with_name(aside.name + "-")
        os.replace(path, aside)
        warn(f"{path}: not a manifest of this tool ({type(error).__name__}); kept as {aside.name}, "
             "its sections will be rendered again")
        return {"sections": {}}


def stage_manifest(manifest: dict, scratch: Path) -> Path:
    """The manifest written into ``scratch``, ready to be committed."""
    staged = scratch / MANIFEST
    staged.write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
    return staged


def file_hash(path: Path, names: list[str] | None = None) -> str | None:
    """SHA-256 of a regular file, or of a folder's regular files (names and bytes): those ``names``, or all of
    them; None for anything else (a link, a device, a missing file), which is then never up to date."""
    digest = hashlib.sha256()
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        for name in sorted(os.listdir(path) if names is None else names):
            digest.update(name.encode())
            if not regular_file_digest(path / name, digest):
                return None
        return digest.hexdigest()
    return digest.hexdigest() if regular_file_digest(path, digest) else None


def folder_contents(files: dict[str, Path]) -> dict[str, list[str]]:
    """The names of the files in each of ``files`` that is a folder (for an entry's ``contents``)."""
    return {name: sorted(os.listdir(path)) for name, path in files.items() if path.is_dir() and not path.is_symlink()}


def entry_hash(entry: dict, out_dir: Path, name: str) -> str | None:
    """``file_hash`` of the entry's file ``name`` in ``out_dir``: for a folder, of the files the entry lists."""
    return file_hash(out_dir / name, entry.get("contents", {}).get(name))


def is_up_to_date(entry: dict | None, out_dir: Path, wanted: str) -> bool:
    """The entry was rendered with the wanted fingerprint and every file still hashes to it."""
    if not entry or entry.get("fingerprint") != wanted:
        return False
    return all(entry_hash(entry, out_dir, name) == entry["sha256"].get(name) for name in entry["files"])
