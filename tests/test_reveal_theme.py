"""The HTML deck's reveal.js theme is the one ``lecture.theme`` picks (black by default, or white), through the CLI:
the deck links that theme's style sheet and no other, the file is beside it and is reveal.js' own; a one-file deck
embeds it; the key renders no section again; an unknown theme is refused in one line."""

from __future__ import annotations

import re

import pytest

from lecture.publish import revealjs
from media_checks import TINY, copy_of, run_cli, tiny_matrix

THEME_SHEET = re.compile(r'<link rel="stylesheet" href="([^"]*theme/[^"]*)">')


@pytest.fixture(scope="module")
def white(tmp_path_factory):
    """The matrix section's slides with the white theme, from a copy of ``tiny_matrix`` (the section up to date)."""
    out = copy_of(tiny_matrix(tmp_path_factory)[0], tmp_path_factory.mktemp("white") / "out")
    result = run_cli("slides", "matrix", *TINY, "-j", "1", "--set", "lecture.theme='white'", "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out, result


def test_the_white_deck_links_the_white_theme_and_it_is_there(white):
    out, result = white
    html = (out / "slides" / "01-matrix.html").read_text(encoding="utf-8")
    assert THEME_SHEET.findall(html) == ["01-matrix_assets/reveal.js/dist/theme/white.css"]
    copy = out / "slides" / "01-matrix_assets" / "reveal.js" / "dist" / "theme" / "white.css"
    assert copy.read_bytes() == (revealjs.installed() / "dist" / "theme" / "white.css").read_bytes()
    assert b"--r-background-color:#fff" in copy.read_bytes().replace(b" ", b"")  # white, as its name says
    assert not (copy.parent / "black.css").exists()
    assert "01-matrix: up to date, skipped" in result.stderr + result.stdout


def test_the_default_deck_is_black(tmp_path_factory, tmp_path):
    out = copy_of(tiny_matrix(tmp_path_factory)[0], tmp_path / "out")
    result = run_cli("slides", "matrix", *TINY, "-j", "1", "--one-file", "-o", str(out))
    assert result.returncode == 0, result.stderr
    html = (out / "slides" / "01-matrix.html").read_text(encoding="utf-8")
    black, white = ((revealjs.installed() / "dist" / "theme" / f"{theme}.css").read_text(encoding="utf-8")
                    for theme in ("black", "white"))
    assert black in html and white not in html


def test_an_unknown_theme_is_one_line_and_exit_2(tmp_path):
    result = run_cli("slides", "matrix", *TINY, "--set", "lecture.theme='pink'", "-o", str(tmp_path / "out"))
    assert result.returncode == 2 and "lecture.theme" in result.stderr and "white" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
