"""Formulas typeset once per user (scenes.tex_store): a formula typeset for one output folder comes from the store
for the next, byte for byte, without LaTeX; a damaged entry is typeset again and replaced; a store others could
change is not used; and through the real CLI, a render into a new folder runs neither LaTeX nor dvisvgm."""

import os
import shutil
import stat
from pathlib import Path

import numpy as np
import pytest
from manim import MathTex, tempconfig
from manim.mobject.text import tex_mobject

from media_checks import TINY, run_cli
from scenes import tex_store
from scenes.tex_store import store_folder, stored_svg

FORMULA = r"\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty cache home; the store's folder is looked for afresh in it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    store_folder.cache_clear()
    yield tmp_path / "cache" / "atencion" / f"tex-{tex_store.STORE_VERSION}"
    store_folder.cache_clear()


@pytest.fixture
def typeset(monkeypatch):
    """How often LaTeX ran: every call of manim's own typesetting, counted."""
    calls = []
    real = tex_store.tex_to_svg_file
    monkeypatch.setattr(tex_store, "tex_to_svg_file", lambda *arguments: calls.append(1) or real(*arguments))
    return calls


def typeset_formula() -> Path:
    return stored_svg(FORMULA, "align*")


def in_folder(folder: Path, make):
    with tempconfig({"tex_dir": str(folder), "verbosity": "ERROR"}):
        return make()


def test_a_formula_typeset_for_one_folder_comes_from_the_store_for_another(store, tmp_path, typeset, monkeypatch):
    first = in_folder(tmp_path / "a", lambda: typeset_formula())
    second = in_folder(tmp_path / "b", lambda: typeset_formula())
    assert typeset == [1] and second.parent == tmp_path / "b"
    assert second.read_bytes() == first.read_bytes() and b"<svg" in first.read_bytes()
    monkeypatch.setattr(tex_mobject, "tex_to_svg_file", tex_mobject.tex_to_svg_file)  # restored after the test
    tex_store.install()
    fresh = in_folder(tmp_path / "c", lambda: MathTex(FORMULA))
    stored = in_folder(tmp_path / "d", lambda: MathTex(FORMULA))
    assert typeset == [1, 1]  # MathTex's own environment, typeset once
    assert np.array_equal(fresh.get_all_points(), stored.get_all_points()) and len(stored.get_all_points()) > 100


def test_a_damaged_entry_is_typeset_again_and_replaced(store, tmp_path, typeset):
    made = in_folder(tmp_path / "a", lambda: typeset_formula()).read_bytes()
    (entry,) = store.iterdir()
    entry.write_bytes(made[:len(made) // 2])  # a power cut mid-write elsewhere
    again = in_folder(tmp_path / "b", lambda: typeset_formula())
    assert typeset == [1, 1] and again.read_bytes() == entry.read_bytes()
    in_folder(tmp_path / "c", lambda: typeset_formula())
    assert typeset == [1, 1]


def test_another_version_of_a_program_typesets_again(store, tmp_path, typeset, monkeypatch):
    in_folder(tmp_path / "a", lambda: typeset_formula())
    monkeypatch.setattr(tex_store, "version_of", lambda program: f"{program} 99.0")
    in_folder(tmp_path / "b", lambda: typeset_formula())
    assert typeset == [1, 1] and len(list(store.iterdir())) == 2


@pytest.mark.parametrize("mode", [0o770, 0o707])
def test_a_store_others_can_write_to_is_neither_read_nor_written(store, tmp_path, typeset, mode):
    in_folder(tmp_path / "a", lambda: typeset_formula())
    for entry in store.iterdir():
        entry.unlink()
    store_folder.cache_clear()
    store.chmod(mode)
    in_folder(tmp_path / "b", lambda: typeset_formula())
    in_folder(tmp_path / "c", lambda: typeset_formula())
    assert typeset == [1, 1, 1] and not list(store.iterdir())


def test_past_the_limit_the_least_used_half_is_removed(store, tmp_path, monkeypatch):
    monkeypatch.setattr(tex_store, "MOST_ENTRIES", 2)
    made = []  # the store's entries, oldest first
    for number in range(3):
        in_folder(tmp_path / "a", lambda: stored_svg(f"x_{number}", "align*"))
        made.append(*(set(store.iterdir()) - set(made)))
        os.utime(made[-1], (1_000_000 + number, 1_000_000 + number))
    assert [entry.exists() for entry in made] == [False, True, True]


def stand_in(folder: Path, program: str, log: Path) -> None:
    """``program`` that tells its real version but, asked to typeset, only notes that it was called and fails."""
    real = shutil.which(program)
    script = folder / program
    script.write_text(f'#!/bin/sh\nif [ "$1" = "--version" ]; then exec {real} "$@"; fi\n'
                      f'echo "{program} $*" >> {log}\nexit 1\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_a_render_into_a_new_folder_runs_neither_latex_nor_dvisvgm(tmp_path):
    arguments = ("render", "matrix", *TINY, "--format", "png", "--steps", "1..2")
    first = run_cli(*arguments, "-o", str(tmp_path / "first"))
    assert first.returncode == 0, first.stderr
    programs, log = tmp_path / "programs", tmp_path / "typeset.log"
    programs.mkdir()
    for program in ("latex", "dvisvgm"):
        stand_in(programs, program, log)
    second = run_cli(*arguments, "-o", str(tmp_path / "second"), env={"PATH": f"{programs}:{os.environ['PATH']}"})
    assert second.returncode == 0, second.stderr
    assert not log.exists()
    stills = sorted(path.relative_to(tmp_path / "first") for path in (tmp_path / "first").rglob("*.png"))
    assert stills and stills == sorted(path.relative_to(tmp_path / "second")
                                       for path in (tmp_path / "second").rglob("*.png"))
    for still in stills:
        assert (tmp_path / "first" / still).read_bytes() == (tmp_path / "second" / still).read_bytes()
