"""`pip install .` gives the `atencion` command with its data files: it runs from any folder, without the checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from media_checks import run_cli

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The package installed (no dependencies: they are the venv's) into a folder of its own, built from a
    copy of the checkout's tracked files (a build writes build/ beside its sources)."""
    source, target = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("site")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(source)], check=True, capture_output=True)
    return target


def atencion(installed: Path, *arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    """The console script, with only the installed copy of our packages on the path (not the checkout)."""
    environment = {**os.environ, "PYTHONPATH": str(installed)}
    return subprocess.run([str(installed / "bin" / "atencion"), *arguments], capture_output=True, text=True,
                          cwd=cwd, env=environment, timeout=600)


def test_the_command_runs_from_the_installed_files(installed, tmp_path):
    where = atencion(installed, "--help", cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    assert where.stdout.startswith("Usage: atencion")
    probe = subprocess.run([sys.executable, "-c", "import lesson.config as c; print(c.DEFAULT_CONFIG)"],
                           capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(installed)})
    assert Path(probe.stdout.strip()).is_relative_to(installed)


def test_same_subcommands_as_render_py(installed, tmp_path):
    ours = subprocess.run([sys.executable, str(ROOT / "render.py"), "--help"], capture_output=True, text=True)
    theirs = atencion(installed, "--help", cwd=tmp_path)
    assert theirs.stdout.split("Commands:")[1] == ours.stdout.split("Commands:")[1]


def test_data_files_are_installed(installed, tmp_path):
    listing = atencion(installed, "list", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert "¿Por qué dividir por √d_k?" in listing.stdout
    dumped = atencion(installed, "config", "--set", "scaling.d_k=8", cwd=tmp_path)
    assert dumped.returncode == 0, dumped.stderr
    assert tomllib.loads(dumped.stdout)["scaling"]["d_k"] == 8


def test_renders_a_still_outside_the_checkout_as_the_checkout_does(installed, tmp_path):
    """The same still as ``render.py`` draws from the checkout: the installed copy has every font, locale and formula
    it needs (one missing would change the text drawn, or fail). Antialiasing may differ where one of the two read
    a typeset label from the cache the other wrote: under 0.5 % of the pixels may differ."""
    arguments = ("render", "scaling", "--steps", "1", "--format", "png", "--resolution", "256x144", "--fps", "5",
                 "-j", "1", "-o")
    result = atencion(installed, *arguments, "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    checkout = run_cli(*arguments, str(tmp_path / "checkout"))
    assert checkout.returncode == 0, checkout.stderr
    (still,) = (tmp_path / "out").rglob("*.png")
    (reference,) = (tmp_path / "checkout").rglob("*.png")
    drawn, expected = (np.asarray(Image.open(path).convert("RGB"), dtype=int) for path in (still, reference))
    assert drawn.shape == (144, 256, 3) and drawn.std() > 0  # a picture, not a blank frame
    assert np.mean(np.abs(drawn - expected).max(axis=2) > 32) < 0.005
